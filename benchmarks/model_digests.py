"""Digests of the models of many fits, to prove that a speed change changed no rule.

    python benchmarks/model_digests.py --data-dir "$FINDRS_DATA_DIR" > before.txt
    # ... change the core, rebuild ...
    python benchmarks/model_digests.py --data-dir "$FINDRS_DATA_DIR" > after.txt
    diff before.txt after.txt        # empty: every model's to_json() is byte-identical

Each line is one fit (data set, method, encoding, tolerance, numeric kind, n_jobs) and the
SHA-256 of its ``model.to_json()``, with the number of rules. The fits cover the paper's
settings on all 11 UCI data sets (BP100, AV and OH), connect-4 BP100 on its seed-0 training
half with ``n_jobs`` 1 and 2 (which must agree), tolerances above 0 (counts and shares) and
Adult with binned and interval features, and share tolerances with ``min_support`` on noisy
rows (connect-4 and Adult with 10% of their labels flipped, the settings a default fit chooses
there). ``--quick`` leaves out the connect-4 BP100 fits (about 40 CPU-seconds).

``--kinds`` digests one fit of every model kind a fit returns: Adult's default fit (its size
chosen by cross-validation) and its accuracy-first fit (``max_rules=None``: rules with
exceptions), car's default multiclass fit, a bagged vote, a BO+BP pair and a rule budget.

``tests/test_model_digests.py`` compares ``--quick``, ``--defaults`` and ``--kinds`` with the
committed fixture ``tests/data/model_digests.txt``: a refactor must leave every line as it is.

``--defaults`` digests default fits instead (``findrs.fit(train, "class", True,
random_state=seed)``: the automatic settings and the size, their cross-validation and the best
of the final runs) on the seed-0 and seed-1 50/50 training halves of eight small data sets with 0, 10 and 20%
of their labels flipped (48 fits): a change meant only to be faster must leave them byte-identical.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path

import findrs
from findrs.datasets import train_test_split

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from experiments.noisy import flip_labels, load_adult  # noqa: E402
from experiments.uci import UCI_FILES, load_uci, require_data_dir  # noqa: E402


def sha(model) -> str:
    """The first 16 hex digits of the SHA-256 of ``model.to_json()``."""
    return hashlib.sha256(model.to_json().encode()).hexdigest()[:16]


def digest(name: str, train, **kw) -> None:
    model = findrs.fit(train, "class", **findrs.settings.fit_keywords(dict(random_state=0, auto=False, **kw)))
    h = sha(model)
    args = " ".join(f"{k}={v}" for k, v in kw.items())
    print(f"{name:12s} {args:55s} rules {len(model.rules):7d} sha256 {h}", flush=True)


DEFAULT_SETS = ("tic-tac-toe", "monk-2", "monk-1", "monk-3", "car", "vote", "kr-vs-kp", "banknote")


def default_digests(data_dir: str) -> None:
    for name in DEFAULT_SETS:
        frame = load_uci(name, data_dir)
        for seed in (0, 1):
            train, _ = train_test_split(frame, 0.5, seed)
            for noise in (0, 0.1, 0.2):
                model = findrs.fit(flip_labels(train, noise, seed), "class", True, random_state=seed)
                print(f"{name:12s} seed {seed} noise {noise:<4} rules {len(model.rules):5d} sha256 {sha(model)}",
                      flush=True)


def kind_digests(data_dir: str) -> None:
    """One fit of each model kind, with settings a user would pass."""
    adult, _ = load_adult(Path(data_dir))
    car, _ = train_test_split(load_uci("car", data_dir, labels=True), 0.5, 0)  # four classes: multiclass
    vote, _ = train_test_split(load_uci("vote", data_dir), 0.5, 0)
    ttt, _ = train_test_split(load_uci("tic-tac-toe", data_dir), 0.5, 0)
    fits = {
        "adult default": lambda: findrs.fit(adult, "class", True, random_state=0),
        "adult accurate": lambda: findrs.fit(adult, "class", True, random_state=0, max_rules=None),
        "car default": lambda: findrs.fit(car, "class", random_state=0),
        "ttt bagged": lambda: findrs.fit_bagged(ttt, "class", True, n_estimators=5, random_state=0),
        "vote bo+bp": lambda: findrs.fit(vote, "class", True, method="bo+bp", random_state=0, auto=False, settings=dict(T=10)),
        "vote budget": lambda: findrs.fit(vote, "class", True, method="bp", max_rules=3, random_state=0, auto=False, settings=dict(T=10)),
    }
    for name, fit in fits.items():
        model = fit()
        models = tuple(model) if isinstance(model, findrs.ModelPair) else (model,)
        for i, m in enumerate(models):
            print(f"{name:14s} {i} {type(m).__name__:15s} sha256 {sha(m)}", flush=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data-dir", default=None, help="directory with the UCI files (default: $FINDRS_DATA_DIR)")
    ap.add_argument("--quick", action="store_true", help="leave out the connect-4 BP100 fits")
    ap.add_argument("--defaults", action="store_true", help="digest 48 default fits (noisy small sets) instead")
    ap.add_argument("--kinds", action="store_true", help="digest one fit of every model kind instead")
    args = ap.parse_args()
    if args.kinds:
        kind_digests(require_data_dir(args.data_dir, ["car", "vote", "tic-tac-toe"], extra_files=("adult.data", "adult.test")))
        return 0
    if args.defaults:
        default_digests(require_data_dir(args.data_dir, list(DEFAULT_SETS)))
        return 0
    names = list(UCI_FILES)
    data_dir = require_data_dir(args.data_dir, names, extra_files=("adult.data", "adult.test"))
    for name in names:
        train, _ = train_test_split(load_uci(name, data_dir), 0.5, 0)
        big = name == "connect-4"
        for encoding in ("av", "oh"):
            if big and encoding == "av" and not args.quick:
                for n_jobs in (1, 2):
                    digest(name, train, method="bp", T=100, encoding=encoding, n_jobs=n_jobs)
            elif not big:
                digest(name, train, method="bp", T=100, encoding=encoding)
            digest(name, train, method="bo", T=10, encoding=encoding)
            for tolerance in (1, 3, 0.05):
                digest(name, train.head(8000) if big else train, method="bo", T=5, encoding=encoding,
                       tolerance=tolerance)
        if name == "banknote":
            digest(name, train, method="bp", T=20, numeric="interval")
    adult, _ = load_adult(Path(data_dir))
    for encoding in ("av", "oh"):
        digest("adult", adult, method="bp", T=100, encoding=encoding)
    digest("adult", adult.head(6000), method="bo", T=5, numeric="interval")
    digest("adult", adult.head(6000), method="bo", T=5, tolerance=2, numeric="interval")
    # Share tolerances with a minimum support on noisy rows: the settings of a default fit's
    # final fit on noisy data, where nearly every counted candidate is rejected.
    c4, _ = train_test_split(load_uci("connect-4", data_dir), 0.5, 0)
    noisy = {"connect-4+": flip_labels(c4.head(12000), 0.1, 0), "adult+": flip_labels(adult.head(8000), 0.1, 0)}
    for name, frame in noisy.items():
        for encoding in ("av", "oh"):
            for tolerance, support in ((0.1, 10), (0.2, 0)):
                digest(name, frame, method="bo", T=3, encoding=encoding, tolerance=tolerance,
                       min_support=support, simplify=False)
    digest("adult+", noisy["adult+"], method="bo", T=3, tolerance=0.1, min_support=10, numeric="interval")
    return 0


if __name__ == "__main__":
    sys.exit(main())
