"""findrs on real and noisy data (docs/semantics.md §9) against CART, logistic regression and
RIPPER, all fitted in the same run and chosen on the training half only.

Data: Adult (``adult.data`` -> ``adult.test``) and the paper's UCI data sets (seed-fixed 50/50
splits), each with 0, 5, 10 and 20% of the *training* labels flipped (test labels clean).

    python -m experiments.noisy --data-dir DIR --out results/          # writes results/noisy.md
    python -m experiments.noisy --data-dir DIR --datasets car vote --noise 0.1 --splits 2
    python -m experiments.noisy --out results/ --tables-only

Raw results are appended to ``results/raw/noisy.jsonl`` (one line per data set, noise level,
split and method); a run skips what is there already, so it can be resumed.

Methods (findrs ones through the public API only):

* ``cart``: DecisionTreeClassifier, ``max_depth`` by 5-fold CV; numbers as numbers, categories
  one-hot. ``lr``: LogisticRegression, ``C`` by 5-fold CV; standardised numbers, one-hot
  categories. ``ripper``: wittgenstein's RIPPER with its defaults.
* ``paper``: FIND-RS-BP100, AV, the paper's tolerance (1 for monk-2, monk-3, vote; else 0), with
  ``auto=False`` (the paper's algorithm). ``paper-run``: one paper FIND-RS run (``auto=False``:
  the default fit before automatic settings became the default).
* ``findrs``: ``findrs.fit(train, target)`` with nothing else: the defaults (automatic
  settings, docs/semantics.md §9.4).
* ``findrs-one`` / ``findrs-best10``: the defaults with ``best_of=1`` (one final FIND-RS run, the
  defaults before docs/semantics.md §5.3) / ``best_of=10`` (the best of 10 runs by training
  accuracy).
* ``auto``: one FIND-RS run, ``encoding``, ``tolerance``, ``min_support`` and ``direction`` all
  ``"auto"``, no simplification, every row in the cross-validation; ``auto-tol``,
  ``auto-tol-sup``, ``auto-tol-sup-dir``: the same with only the first one, two, three of them
  automatic (the ablation).
* ``auto-bp``: FIND-RS-BP100 with the defaults' automatic settings and the automatic K.
* ``auto-bins30``: the defaults with 30 equal-width bins for numeric columns instead of 10.
* ``auto-cv12k``: the defaults with ``cv_rows=12_000`` (a larger cross-validation sample).
* ``auto-sup``: the defaults with ``bin_edges="supervised"`` (entropy/MDL bin edges on the
  training labels, docs/semantics.md §1.1); ``auto-sup12k``: the same with ``cv_rows=12_000``.
* ``auto-edgescv`` / ``auto-edgescv12k``: a prototype of ``bin_edges`` as a cross-validation
  axis: the defaults (``cv_rows`` 4,000 / 12,000) fitted with equal-width and supervised edges,
  the model whose chosen candidate has the better CV accuracy kept (ties to equal-width).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
import warnings
from typing import Any
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import polars as pl

from .uci import command_line, data_dir_from, load_uci

UCI = ("banknote", "car", "kr-vs-kp", "monk-1", "monk-2", "monk-3", "mushroom", "tic-tac-toe", "vote", "wine")
NOISE = (0.0, 0.05, 0.1, 0.2)
PAPER_TAU = {"monk-2": 1, "monk-3": 1, "vote": 1}
AUTO4 = dict(encoding="auto", tolerance="auto", min_support="auto", direction="auto")
PAPER = dict(auto=False)
FINDRS = {
    "paper": lambda ds: dict(method="bp", T=100, tolerance=PAPER_TAU.get(ds, 0), **PAPER),
    "paper-run": lambda ds: dict(PAPER),
    "findrs": lambda ds: dict(),
    "findrs-only": lambda ds: dict(method="find-rs"),  # the defaults without the budgeted vote (§9.5)
    "findrs-exc": lambda ds: dict(exceptions=True),  # rules with exceptions (§9.6), automatic settings
    "findrs-excauto": lambda ds: dict(),  # the defaults or exceptions=True, by the defaults' CV (exc_auto)
    "findrs-one": lambda ds: dict(best_of=1),  # the defaults with one final run (before §5.3's best of 10)
    "findrs-best10": lambda ds: dict(best_of=10),  # the defaults with the best of 10 final runs (§5.3)
    "auto-tol": lambda ds: dict(tolerance="auto", **PAPER, cv_rows=None),
    "auto-tol-sup": lambda ds: dict(tolerance="auto", min_support="auto", **PAPER, cv_rows=None),
    "auto-tol-sup-dir": lambda ds: dict(tolerance="auto", min_support="auto", direction="auto", **PAPER, cv_rows=None),
    "auto": lambda ds: dict(AUTO4, **PAPER, cv_rows=None),
    "auto-bp": lambda ds: dict(method="bp", T=100),
    "auto-bins30": lambda ds: dict(bins=30),
    "auto-cv12k": lambda ds: dict(cv_rows=12_000),
    "auto-sup": lambda ds: dict(bin_edges="supervised"),
    "auto-sup12k": lambda ds: dict(bin_edges="supervised", cv_rows=12_000),
}
EDGES_CV = {"auto-edgescv": {}, "auto-edgescv12k": {"cv_rows": 12_000}}
"""Harness prototypes: ``bin_edges`` chosen by the defaults' cross-validation (:func:`_edges_cv`)."""
BASELINES = ("cart", "lr", "ripper")
METHODS = (*BASELINES, *FINDRS, *EDGES_CV)
ADULT_COLUMNS = ("age", "workclass", "fnlwgt", "education", "education_num", "marital_status", "occupation",
                 "relationship", "race", "sex", "capital_gain", "capital_loss", "hours_per_week", "native_country")


# --------------------------------------------------------------------------- data
def _read_adult(path: Path, skip_first_line: bool) -> pl.DataFrame:
    """One Adult file: fields separated by ", ", ``?`` missing, test labels ending with ".",
    adult.test's first line is not data."""
    lines = [ln for ln in path.read_text().splitlines() if ln.strip()]
    rows = [ln.split(", ") for ln in lines[1 if skip_first_line else 0:]]
    bad = next((i for i, r in enumerate(rows) if len(r) != len(ADULT_COLUMNS) + 1), None)
    if bad is not None:
        raise ValueError(f"{path}: data line {bad + 1} has {len(rows[bad])} fields, expected 15")
    cols = {}
    for j, name in enumerate(ADULT_COLUMNS):
        values = [r[j] for r in rows]
        if name in ("age", "fnlwgt", "education_num", "capital_gain", "capital_loss", "hours_per_week"):
            cols[name] = pl.Series(name, [int(v) for v in values], dtype=pl.Int64)
        else:
            cols[name] = pl.Series(name, [None if v == "?" else v for v in values], dtype=pl.String)
    cols["class"] = pl.Series("class", [r[-1].rstrip(".") == ">50K" for r in rows])
    return pl.DataFrame(cols)


def load_adult(data_dir: Path) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(adult.data, adult.test) with a Boolean ``class`` (True for >50K)."""
    return _read_adult(data_dir / "adult.data", False), _read_adult(data_dir / "adult.test", True)


def flip_labels(train: pl.DataFrame, rate: float, seed: int) -> pl.DataFrame:
    """Flips the ``class`` of ``round(rate * rows)`` training rows drawn at random (seeded)."""
    if rate == 0:
        return train
    n = train.height
    idx = np.random.default_rng(10_000 + seed).choice(n, size=round(rate * n), replace=False)
    mask = np.zeros(n, dtype=bool)
    mask[idx] = True
    return train.with_columns(pl.when(pl.Series(mask)).then(~pl.col("class")).otherwise(pl.col("class")))


BUNDLED = ("breast-cancer", "digits")
"""Data sets scikit-learn ships (no download), binarised: breast-cancer's class is malignant,
digits' class is an odd digit (64 pixel counts, 0-16)."""


def load_bundled(name: str) -> pl.DataFrame:
    """One of :data:`BUNDLED` with its Boolean target in ``class``."""
    from sklearn.datasets import load_breast_cancer, load_digits

    if name == "breast-cancer":
        b = load_breast_cancer()
        names = [n.replace(" ", "_") for n in b.feature_names]
        return pl.DataFrame(b.data, schema=names).with_columns(pl.Series("class", b.target == 0))  # 0: malignant
    if name == "digits":
        b = load_digits()
        return pl.DataFrame(b.data, schema=[f"px{i}" for i in range(64)]).with_columns(pl.Series("class", b.target % 2 == 1))
    raise ValueError(f"unknown bundled data set {name!r}; one of {BUNDLED}")


def split(name: str, data_dir: Path, seed: int, noise: float) -> tuple[pl.DataFrame, pl.DataFrame]:
    import findrs

    if name == "adult":
        train, test = load_adult(data_dir)
    elif name in BUNDLED:
        train, test = findrs.datasets.train_test_split(load_bundled(name), 0.5, seed=seed)
    else:
        train, test = findrs.datasets.train_test_split(load_uci(name, data_dir), 0.5, seed=seed)
    return flip_labels(train, noise, seed), test


# --------------------------------------------------------------------------- methods
def _matrices(train: pl.DataFrame, test: pl.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    from sklearn.preprocessing import OneHotEncoder, StandardScaler

    feats = [c for c in train.columns if c != "class"]
    num = [c for c in feats if train[c].dtype.is_float() or (train[c].dtype.is_integer() and train[c].n_unique() > 10)]
    cat = [c for c in feats if c not in num]

    def cats(d: pl.DataFrame) -> np.ndarray:
        return d.select(pl.col(cat).cast(pl.String).fill_null("?")).to_numpy()

    oh = OneHotEncoder(handle_unknown="ignore", sparse_output=False).fit(cats(train)) if cat else None
    sc = StandardScaler().fit(train.select(num).to_numpy()) if num else None

    def X(d: pl.DataFrame) -> np.ndarray:
        parts = ([sc.transform(d.select(num).to_numpy())] if num else []) + ([oh.transform(cats(d))] if cat else [])
        return np.hstack(parts).astype(np.float64)

    return X(train), X(test)


def run_baseline(method: str, train: pl.DataFrame, test: pl.DataFrame, seed: int) -> dict:
    from sklearn.model_selection import GridSearchCV, StratifiedKFold

    y, yt = train["class"].to_numpy(), test["class"].to_numpy()
    cv = StratifiedKFold(5, shuffle=True, random_state=seed)
    t = time.perf_counter()
    if method == "ripper":
        import wittgenstein as lw

        def frame(d: pl.DataFrame):
            x = d.drop("class").to_pandas()
            return x.fillna("?") if x.isna().any().any() else x

        r = lw.RIPPER(random_state=seed)
        r.fit(frame(train), y, pos_class=True)
        pred = np.asarray(r.predict(frame(test)))
        return dict(acc=float((pred == yt).mean()), rules=len(r.ruleset_),
                    conditions=sum(len(rule.conds) for rule in r.ruleset_), secs=time.perf_counter() - t)
    if method == "ebm":  # interpret's glass-box additive model, its defaults (the experiments extra)
        from interpret.glassbox import ExplainableBoostingClassifier

        x, xt = (d.drop("class").to_pandas() for d in (train, test))
        m = ExplainableBoostingClassifier(random_state=seed, n_jobs=2).fit(x, y)
        return dict(acc=float((m.predict(xt) == yt).mean()), rules=None, conditions=None, secs=time.perf_counter() - t)
    Xtr, Xte = _matrices(train, test)
    if method == "cart":
        from sklearn.tree import DecisionTreeClassifier

        g = GridSearchCV(DecisionTreeClassifier(random_state=seed),
                         {"max_depth": [2, 3, 4, 5, 6, 8, 10, 12, 15, 20, None]}, cv=cv).fit(Xtr, y)
        tree = g.best_estimator_
        # A tree as rules: its leaves; conditions: the path lengths to the leaves.
        depth = tree.tree_.compute_node_depths() if hasattr(tree.tree_, "compute_node_depths") else None
        leaves = tree.tree_.children_left == -1
        conds = int(depth[leaves].sum() - leaves.sum()) if depth is not None else None
        return dict(acc=float(g.score(Xte, yt)), rules=int(tree.get_n_leaves()), conditions=conds,
                    secs=time.perf_counter() - t, setting=json.dumps(g.best_params_))
    if method == "lr":
        from sklearn.linear_model import LogisticRegression

        g = GridSearchCV(LogisticRegression(max_iter=2000), {"C": [0.01, 0.1, 1, 10, 100]}, cv=cv).fit(Xtr, y)
        return dict(acc=float(g.score(Xte, yt)), rules=None, conditions=int(Xtr.shape[1]),
                    secs=time.perf_counter() - t, setting=json.dumps(g.best_params_))
    raise ValueError(method)


def _edges_cv(train: pl.DataFrame, seed: int, extra: dict) -> tuple[Any, dict]:
    """Prototype of ``bin_edges`` as a cross-validation axis: the defaults fitted with each
    placement, the model whose chosen candidate has the best internal CV accuracy kept (ties to
    the earlier, equal-width); the folds depend only on the labels and ``random_state``, so both
    cross-validations use the same sample and folds. Training rows only."""
    import findrs

    best = None
    for how in ("uniform", "supervised"):
        kw = dict(extra, bin_edges=how)
        model = findrs.fit(train, "class", True, **findrs.settings.fit_keywords(dict(random_state=seed, **kw)))
        cv = model.cv_results.filter(pl.col("chosen"))["cv_accuracy"][0]
        if best is None or cv > best[0]:
            best = (cv, model, kw)
        if all(e.kind != "binned" for e in model.encoders):
            break  # nothing binned: every placement gives the same codes
    return best[1], best[2]


def exc_auto(train: pl.DataFrame, seed: int) -> tuple[Any, dict]:
    """Prototype of the automatic choice of rules with exceptions (issue 12): the defaults'
    model, or ``exceptions=True``'s when the rules-with-exceptions model of the defaults' own
    candidates (``findrs.learning.exceptions_cv``: the best positive FIND-RS candidate, the best negative
    one on its encoding, combined on each fold of the same cross-validation) has strictly more
    held-out rows right than the defaults' chosen candidate. Training rows only. Returns the
    model and what was compared."""
    import findrs
    from findrs.learning.exceptions_cv import exceptions_pick, fold_counts
    from findrs.learning.learn import _encode_variant
    from findrs.data.target import binarize

    model = findrs.fit(train, "class", True, random_state=seed)
    rec = model._cv
    pick = exceptions_pick(rec) if rec is not None else None
    info: dict = {"plain_cv": sum(rec["candidates"][rec["chosen"]]["correct"]) if rec else None}
    if pick is None:
        return model, {**info, "exc_cv": None, "won": False}
    y, tgt = binarize(train, "class", True)
    features = [c for c in train.columns if c != "class"]
    p = model.params

    def variant(c: dict) -> tuple:
        q = {**p, "bin_edges": c.get("bin_edges", p["bin_edges"]), "numeric": c.get("numeric", p["numeric"])}
        return _encode_variant(train, features, y, q)

    counts = fold_counts(y, tgt, rec, p, pick, variant)
    exc_cv = sum(c[0] for c in counts)
    info.update(exc_cv=exc_cv, won=exc_cv > info["plain_cv"])
    if info["won"]:
        model = findrs.fit(train, "class", True, random_state=seed, settings=dict(exceptions=True))
        r = rec["candidates"][pick[0]]
        if any(model.params[k] != r[k] for k in ("encoding", "tolerance", "simplify")):
            raise AssertionError("exceptions=True's rules are not the candidate scored")
    return model, info


def run_findrs(method: str, ds: str, train: pl.DataFrame, test: pl.DataFrame, seed: int) -> dict:
    import findrs

    t = time.perf_counter()
    info = None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", findrs.ContradictionWarning)
        if method in EDGES_CV:
            model, kw = _edges_cv(train, seed, EDGES_CV[method])
        elif method == "findrs-excauto":
            model, info = exc_auto(train, seed)
            kw = {}
        else:
            kw = FINDRS[method](ds)
            model = findrs.fit(train, "class", True, **findrs.settings.fit_keywords(dict(random_state=seed, **kw)))
    secs = time.perf_counter() - t
    if isinstance(model, findrs.ExceptionsModel):  # the rules and the exception rules that override one
        used = sorted({s for e in model.exceptions_of for s in e})
        rules = pl.concat([model.rules_model.rules.select("constraints"),
                           model.exception_model.rules.select("constraints")[used]])
        chosen = {**{k: model.params[k] for k in model.params.get("auto", [])},
                  "exceptions": model.params["exception_settings"], **({"excauto": info} if info else {})}
        return dict(acc=float(model.score(test)), rules=int(rules.height),
                    conditions=int(rules["constraints"].list.len().sum()), secs=secs,
                    setting=json.dumps(chosen, default=str))
    rules = model.rules.filter(pl.col("kept"))
    chosen = {k: model.params[k] for k in model.params.get("auto", [])}
    if kw.get("exceptions") is True:  # exceptions=True, but no rule got an exception: the rules alone
        chosen["exceptions"] = None
    if info:
        chosen["excauto"] = info
    return dict(acc=float(model.score(test)), rules=int(rules.height),
                conditions=int(rules["constraints"].list.len().sum()), secs=secs,
                setting=json.dumps(chosen or kw, default=str))


# --------------------------------------------------------------------------- driver and tables
def _done(raw: Path) -> set[tuple]:
    if not raw.exists():
        return set()
    return {(r["dataset"], r["noise"], r["split"], r["method"]) for r in map(json.loads, raw.read_text().splitlines())}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m experiments.noisy", description=__doc__.split("\n\n")[0])
    ap.add_argument("--data-dir", type=Path, default=None, help="UCI and Adult files (default: $FINDRS_DATA_DIR)")
    ap.add_argument("--out", type=Path, default=Path("results"))
    ap.add_argument("--datasets", nargs="+", default=["adult", *UCI])
    ap.add_argument("--noise", nargs="+", type=float, default=list(NOISE))
    ap.add_argument("--splits", type=int, default=10, help="seeded 50/50 splits per UCI data set (Adult: its own)")
    ap.add_argument("--methods", nargs="+", default=list(METHODS), choices=METHODS)
    ap.add_argument("--tables-only", action="store_true")
    args = ap.parse_args(argv)
    raw = args.out / "raw" / "noisy.jsonl"
    if not args.tables_only:
        data_dir = data_dir_from(args.data_dir)
        if data_dir is None:
            ap.error("pass --data-dir or set FINDRS_DATA_DIR")
        raw.parent.mkdir(parents=True, exist_ok=True)
        done = _done(raw)
        with raw.open("a") as out:
            for ds in args.datasets:
                for noise in args.noise:
                    for s in range(1 if ds == "adult" else args.splits):
                        train, test = split(ds, data_dir, s, noise)
                        for m in args.methods:
                            if (ds, noise, s, m) in done:
                                continue
                            r = run_baseline(m, train, test, s) if m in BASELINES else run_findrs(m, ds, train, test, s)
                            row = dict(dataset=ds, noise=noise, split=s, method=m, **r,
                                       when=datetime.now(timezone.utc).isoformat(timespec="seconds"),
                                       load=os.getloadavg()[0])
                            out.write(json.dumps(row) + "\n")
                            out.flush()
                            print(f"{ds:12s} {noise:4.2f} {s} {m:18s} acc {r['acc']:.4f} rules {r['rules']} "
                                  f"{r['secs']:7.2f}s {r.get('setting', '')}", flush=True)
    command = command_line("experiments.noisy", sys.argv[1:] if argv is None else argv)
    (args.out / "noisy.md").write_text(report(raw, command))
    return 0


def report(raw: Path, command: str = "python -m experiments.noisy") -> str:
    df = pl.read_ndjson(raw)
    order = {m: i for i, m in enumerate(METHODS)}
    lines = ["# findrs on noisy data", "", f"Command: `{command}`", "",
             f"Generated from `{raw.as_posix()}` "
             f"({datetime.now(timezone.utc).date()}; {platform.node() and 'machine: ' + platform.machine()}, "
             f"{os.cpu_count()} cores). Accuracy on the clean test half; every setting chosen on the training half.",
             "Each cell: mean test accuracy (mean voting rules `r`, mean conditions per rule `c/r`; for CART its "
             "leaves and root-to-leaf path lengths, for LR no rules), mean fit seconds (wall, cross-validation "
             "included; the machine was shared with other jobs, so times are noisy).", ""]

    def table(d: pl.DataFrame, title: str, index: list[str]) -> None:
        g = d.group_by(*index, "method").agg(
            pl.col("acc").mean(), pl.col("rules").mean(), (pl.col("conditions") / pl.col("rules")).mean().alias("cpr"),
            pl.col("secs").mean(), pl.len().alias("n"))
        methods = sorted(g["method"].unique().to_list(), key=lambda m: order.get(m, 99))
        lines.append(f"### {title}")
        lines.append("")
        lines.append("| " + " | ".join(index + methods) + " |")
        lines.append("|" + "---|" * (len(index) + len(methods)))
        for key in g.select(index).unique().sort(index).iter_rows():
            cells = []
            for m in methods:
                r = g.filter(pl.col("method") == m, *[pl.col(c) == v for c, v in zip(index, key)])
                if r.height == 0:
                    cells.append("")
                    continue
                acc, rules, cpr, secs = r["acc"][0], r["rules"][0], r["cpr"][0], r["secs"][0]
                what = f" ({rules:.0f} r, {cpr:.1f} c/r)" if rules is not None and cpr is not None else (
                    f" ({rules:.0f} r)" if rules is not None else "")
                cells.append(f"{acc:.3f}{what}, {secs:.2g} s")
            lines.append("| " + " | ".join(str(k) for k in key) + " | " + " | ".join(cells) + " |")
        lines.append("")

    adult = df.filter(pl.col("dataset") == "adult")
    if adult.height:
        table(adult, "Adult (adult.data -> adult.test): accuracy (voting rules)", ["noise"])
    uci = df.filter(pl.col("dataset") != "adult")
    if uci.height:
        table(uci, "The paper's data sets: mean accuracy (mean voting rules) per noise level", ["noise"])
        table(uci, "Per data set", ["dataset", "noise"])
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())
