"""Fit time of the automatic settings (docs/semantics.md §9.4) beside the paper's settings and
CART's grid search, in the same run, on the seed-0 50/50 split of the paper's data sets and on
Adult (adult.data).

    python benchmarks/bench_auto.py                       # FINDRS_DATA_DIR or --data-dir
    python benchmarks/bench_auto.py --datasets adult --repeat 1 --n-jobs 2

Prints per data set: median wall time of ``findrs.fit(train, target, auto=True)`` (the
defaults: one FIND-RS run or the budgeted vote of §9.5, the cross-validation included), of the
same with ``method="find-rs"`` (no vote), of the paper's fit (``auto=False``), of CART with ``max_depth`` by
5-fold CV (the anchor), and the 1-minute load average before the data set (other processes on
the machine slow every column alike).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import warnings
from pathlib import Path

import numpy as np

ROOT = str(Path(__file__).resolve().parents[1])
sys.path.insert(0, ROOT)
import findrs  # noqa: E402
from experiments.noisy import _matrices, load_adult  # noqa: E402
from experiments.uci import UCI_NAMES, load_uci, require_data_dir  # noqa: E402


def timed(f, repeat: int) -> tuple[float, object]:
    times, out = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        out = f()
        times.append(time.perf_counter() - t)
    return statistics.median(times), out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data-dir", type=Path, default=None)
    ap.add_argument("--datasets", nargs="+", default=[n for n in UCI_NAMES if n != "connect-4"] + ["adult"])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--n-jobs", type=int, default=None)
    args = ap.parse_args()
    data_dir = require_data_dir(args.data_dir)
    from sklearn.model_selection import GridSearchCV, StratifiedKFold
    from sklearn.tree import DecisionTreeClassifier

    warnings.simplefilter("ignore", findrs.ContradictionWarning)
    print(f"{os.cpu_count()} cores, n_jobs={args.n_jobs}, median of {args.repeat}")
    print(f"{'dataset':12s} {'rows':>6s} {'auto (s)':>9s} {'no vote':>9s} {'paper (s)':>9s} {'CART CV (s)':>11s} "
          f"{'load':>5s}  chosen")
    for name in args.datasets:
        load = os.getloadavg()[0]
        if name == "adult":
            train, _ = load_adult(data_dir)
            repeat = min(args.repeat, 1)
        else:
            train, _ = findrs.datasets.train_test_split(load_uci(name, data_dir), 0.5, seed=0)
            repeat = args.repeat
        t_auto, model = timed(lambda: findrs.fit(train, "class", True, auto=True, random_state=0,
                                                 n_jobs=args.n_jobs), repeat)
        t_one, _ = timed(lambda: findrs.fit(train, "class", True, method="find-rs", random_state=0,
                                            n_jobs=args.n_jobs), repeat)
        t_paper, _ = timed(lambda: findrs.fit(train, "class", True, auto=False, random_state=0, n_jobs=args.n_jobs),
                           repeat)
        Xtr, _ = _matrices(train, train)
        y = train["class"].to_numpy()
        cv = StratifiedKFold(5, shuffle=True, random_state=0)
        grid = {"max_depth": [2, 3, 4, 5, 6, 8, 10, 12, 15, 20, None]}
        t_cart, _ = timed(lambda: GridSearchCV(DecisionTreeClassifier(random_state=0), grid, cv=cv).fit(Xtr, y),
                          repeat)
        chosen = ", ".join(f"{k}={model.params[k]}" for k in model.params["auto"])
        print(f"{name:12s} {train.height:6d} {t_auto:9.3f} {t_one:9.3f} {t_paper:9.3f} {t_cart:11.3f} {load:5.2f}  {chosen}",
              flush=True)


if __name__ == "__main__":
    np.seterr(all="ignore")
    main()
