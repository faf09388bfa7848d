"""What docs/semantics.md §2.1 (features of one training code are free) changes on the default
fits: each fit of ``model_digests.py --defaults`` (and, with ``--adult``, the default fit on
``adult.data``) is made twice, as it is and with §2.1 turned off (the final model kept as the
cross-validation made it), and the two are compared:

    python benchmarks/one_code_features.py --adult

A line per fit: ``identical`` (the same model file byte for byte), or the one-code features, the
conditions dropped, and checks that nothing else changed: the same params and ``cv_results``,
the same rule table but for the texts, each text the old one without its conditions on those
features, equal predictions on the training rows, and (Adult) a null in those columns now
predicted as the training value. ``adult.test`` is not read.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from pathlib import Path
from typing import Any, Iterator

import polars as pl

import findrs
from findrs.datasets import train_test_split
from findrs.models.exceptions import ExceptionsModel
from findrs.models.model import RuleSetModel, one_code_features

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from benchmarks.model_digests import DEFAULT_SETS  # noqa: E402
from experiments.noisy import _read_adult, flip_labels  # noqa: E402
from experiments.uci import load_uci, require_data_dir  # noqa: E402


@contextlib.contextmanager
def without_freeing() -> Iterator[None]:
    """§2.1 turned off: ``fit`` returns the final model as it was made."""
    saved = RuleSetModel._freed, ExceptionsModel._freed
    RuleSetModel._freed = lambda self, settings=None: self  # type: ignore[method-assign]
    ExceptionsModel._freed = lambda self: self  # type: ignore[method-assign]
    try:
        yield
    finally:
        RuleSetModel._freed, ExceptionsModel._freed = saved  # type: ignore[method-assign]


def rule_sets(m: Any) -> list[RuleSetModel]:
    return [m.rules_model, m.exception_model] if isinstance(m, ExceptionsModel) else [m]


def texts(m: RuleSetModel) -> list[str]:
    if m.method == "bp":
        m = m.with_n_rules(m.n_rules_found)
    return m.rules["text"].to_list()


def compare(name: str, train: pl.DataFrame, seed: int) -> None:
    new = findrs.fit(train, "class", True, random_state=seed)
    with without_freeing():
        old = findrs.fit(train, "class", True, random_state=seed)
    if new.to_json() == old.to_json():
        print(f"{name:28s} identical", flush=True)
        return
    free = [new.encoders[i].name for i in one_code_features(new.encoders)]
    assert new.params == old.params and type(new) is type(old)
    assert (old.cv_results is None and new.cv_results is None) or new.cv_results.equals(old.cv_results)
    dropped = rules = 0
    for o, n in zip(rule_sets(old), rule_sets(new)):
        assert n.rules.drop("text", "constraints").equals(o.rules.drop("text", "constraints"))
        for s, t in zip(texts(o), texts(n), strict=True):
            kept = [c for c in s.split(" and ") if not any(c.startswith(f"{f} ") for f in free)]
            assert (" and ".join(kept) or "TRUE") == t, (s, t)
            dropped += len(s.split(" and ")) - len(kept)
            rules += 1
    assert new.predict(train).equals(old.predict(train))
    nulls = train.with_columns(*(pl.lit(None, dtype=train.schema[f]).alias(f) for f in free))
    assert new.predict(nulls).equals(new.predict(train))
    print(f"{name:28s} changed: one-code features {free}, {dropped} conditions dropped over {rules} rules; "
          f"params, cv_results, rule counts and training predictions equal; with {free} null, positive "
          f"rows {int(old.predict(nulls, labels=False).sum())} before, "
          f"{int(new.predict(nulls, labels=False).sum())} now (as on the training values)", flush=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data-dir", default=None, help="directory with the UCI files (default: $FINDRS_DATA_DIR)")
    ap.add_argument("--adult", action="store_true", help="also the default fit on adult.data (about 1 minute)")
    ap.add_argument("--sets", nargs="*", default=list(DEFAULT_SETS),
                    help="the UCI data sets (default: the --defaults digest's eight; mushroom has a constant column)")
    args = ap.parse_args()
    data_dir = require_data_dir(args.data_dir, args.sets)
    for name in args.sets:
        frame = load_uci(name, data_dir)
        for seed in (0, 1):
            train, _ = train_test_split(frame, 0.5, seed)
            for noise in (0, 0.1, 0.2):
                compare(f"{name} seed {seed} noise {noise}", flip_labels(train, noise, seed), seed)
    if args.adult:
        adult = _read_adult(Path(args.data_dir or os.environ["FINDRS_DATA_DIR"]) / "adult.data", False)
        compare("adult (adult.data)", adult, 0)
    return 0


if __name__ == "__main__":
    sys.exit(main())
