"""Training-data-only check of Adult settings: adult.data split 50/50 (stratified, seeded) into an
inner training half and a validation half; each variant is fitted on the inner half (its own
automatic CV inside) and scored on the validation half. adult.test is not read.

Usage: ``SEEDS="0 1" FINDRS_DATA_DIR=... python -m experiments.adult_holdout cart findrs cv3``
(method names of experiments.noisy, or of :data:`VARIANTS` below). A research script (branches
adult2, accuracy, acc4).

Variants (each the defaults but for one thing):

* ``cv3`` / ``cv5`` / ``cv10``: 3 / 5 / 10 folds (the defaults use 3 above 20,000 training rows, 5 below: the
  inner half has 16,280 rows, all of Adult 32,561).
* ``cv8k``: a cross-validation sample of 8,000 rows instead of 4,000; ``cv8k3``: the same with
  3 folds (as the defaults on all of Adult).
* ``cv12k`` / ``cvall``: a cross-validation sample of 12,000 rows / every row of the inner half
  (16,280 rows: 5 folds either way), instead of 8,000.
* ``tolfine``: share tolerances 0.05 apart (0, 0.05, ..., 0.4) instead of 0.1 apart.
* ``sup-sqrt`` / ``sup-raw``: the CV's winner refitted on all rows with its support scaled by
  ``sqrt(rows / sampled)`` / not scaled, instead of ``rows / sampled``.
* ``vote``: the budgeted BP vote of docs/semantics.md §9.5 tried above 10,000 training rows too
  (``VOTE_MAX_ROWS`` lifted; its final fit makes 20 runs on all rows).
* ``bins20`` / ``bins30``: 20 / 30 bins instead of 10 (at most 19 / 29 supervised cuts; integer
  columns of at most 20 / 30 values stay categorical).
"""
import json
import math
import os
import sys
import time
import warnings
from pathlib import Path
from typing import Any, Callable

import polars as pl

from experiments.noisy import BASELINES, load_adult, run_baseline, run_findrs

SETTINGS = ("encoding", "tolerance", "direction", "simplify", "bins", "numeric", "bin_edges", "interval_ends")


def _refit(scale: Callable[[int, int, int], int]) -> Callable[[pl.DataFrame, int], Any]:
    """The defaults' chosen settings refitted on all rows with the support ``scale(s, rows, sampled)``."""
    def fit(train: pl.DataFrame, seed: int) -> Any:
        import findrs

        m = findrs.fit(train, "class", True, random_state=seed, method="find-rs")
        rec = m._cv
        s = rec["candidates"][rec["chosen"]]["min_support"]
        kw = {k: m.params[k] for k in SETTINGS}
        return findrs.fit(train, "class", True, random_state=seed, method="find-rs", auto=False,
                          min_support=scale(s, train.height, rec["sampled"]), **kw)
    return fit


def _with_auto_constant(name: str, value: Any) -> Callable[[pl.DataFrame, int], Any]:
    """The default fit with one constant of :mod:`findrs.auto` (e.g. ``TOLERANCES``,
    ``VOTE_MAX_ROWS``) set to ``value`` for the fit's duration."""
    def fit(train: pl.DataFrame, seed: int) -> Any:
        import findrs
        import findrs.auto as auto

        old = getattr(auto, name)
        setattr(auto, name, value)
        try:
            return findrs.fit(train, "class", True, random_state=seed)
        finally:
            setattr(auto, name, old)
    return fit


def _kw(**kw: Any) -> Callable[[pl.DataFrame, int], Any]:
    def fit(train: pl.DataFrame, seed: int) -> Any:
        import findrs

        return findrs.fit(train, "class", True, random_state=seed, **kw)
    return fit


VARIANTS: dict[str, Callable[[pl.DataFrame, int], Any]] = {
    "cv3": _kw(cv=3),
    "cv5": _kw(cv=5),
    "cv10": _kw(cv=10),
    "cv8k": _kw(cv_rows=8_000),
    "cv8k3": _kw(cv_rows=8_000, cv=3),
    "cv12k": _kw(cv_rows=12_000),
    "cvall": _kw(cv_rows=None),
    "tolfine": _with_auto_constant("TOLERANCES", (0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4)),
    "sup-sqrt": _refit(lambda s, n, k: max(0, round(s * math.sqrt(n / k)))),
    "sup-raw": _refit(lambda s, n, k: s),
    "vote": _with_auto_constant("VOTE_MAX_ROWS", 10**9),
    "bins20": _kw(bins=20),
    "bins30": _kw(bins=30),
}


def run_variant(method: str, train: pl.DataFrame, test: pl.DataFrame, seed: int) -> dict:
    import findrs

    t = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", findrs.ContradictionWarning)
        model = VARIANTS[method](train, seed)
    secs = time.perf_counter() - t
    rules = model.rules.filter(pl.col("kept"))
    chosen = {k: model.params[k] for k in (*model.params.get("auto", []), "min_support")}
    return dict(acc=float(model.score(test)), rules=int(rules.height), secs=secs, setting=json.dumps(chosen, default=str))


def main() -> None:
    train, _ = load_adult(Path(os.environ["FINDRS_DATA_DIR"]))
    for seed in map(int, os.environ.get("SEEDS", "0").split()):
        shuffled = train.with_row_index("i").sample(fraction=1.0, shuffle=True, seed=seed)
        parts = [g for _, g in shuffled.group_by("class", maintain_order=True)]
        a = pl.concat([g.head(g.height // 2) for g in parts]).drop("i")
        b = pl.concat([g.tail(g.height - g.height // 2) for g in parts]).drop("i")
        for method in sys.argv[1:]:
            if method in BASELINES:
                r = run_baseline(method, a, b, seed)
            elif method in VARIANTS:
                r = run_variant(method, a, b, seed)
            else:
                r = run_findrs(method, "adult", a, b, seed)
            print(json.dumps({"seed": seed, "method": method, "val_acc": round(r["acc"], 4), "rules": r["rules"],
                              "secs": round(r["secs"], 1), "setting": r.get("setting"),
                              "load": round(os.getloadavg()[0], 1)}), flush=True)


if __name__ == "__main__":
    main()
