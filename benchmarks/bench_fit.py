"""Fit-time benchmark on the paper's 11 datasets (seed-0 50/50 split), beside the authors' code.

    python benchmarks/bench_fit.py                                   # one FIND-RS run
    python benchmarks/bench_fit.py --method bp                       # BP, T = 100
    python benchmarks/bench_fit.py --method bp --scaling --memory

The UCI files come from ``--data-dir DIR`` or the ``FINDRS_DATA_DIR`` environment variable
(without either, the script says which files it needs and where to get them).

Prints, per dataset: the whole fit (frame -> model: encoding, crossing into Rust, runs, best-K)
as the median of several repeats, the core alone on pre-encoded codes, the rule count, and the
authors' Python implementation's fit time as given in the project's issues (measured on the same
kind of 2-core machine; their code does not run here) with the speed-up ratio.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time

from pathlib import Path

import numpy as np

import findrs
from findrs.datasets import train_test_split

# The UCI loader belongs to the paper reproduction (experiments/uci.py), beside this directory.
ROOT = str(Path(__file__).resolve().parents[1])
sys.path.insert(0, ROOT)
from experiments.uci import UCI_NAMES, load_uci, require_data_dir  # noqa: E402
from findrs.data.encode import encode_frame, fit_encoders
from findrs.models.model import RuleSetModel
from findrs.select.params import check_params
from findrs.data.target import binarize

# The authors' Python implementation, seconds per fit (figures from the project's issues).
ANCHOR_ONE_RUN = {"tic-tac-toe": 0.030, "car": 0.058, "kr-vs-kp": 0.64, "mushroom": 1.85, "vote": 0.006, "banknote": 0.043}
ANCHOR_BP100 = {
    "tic-tac-toe": 2.56, "car": 5.88, "kr-vs-kp": 64.6, "mushroom": 170.0, "vote": 0.67,
    "banknote": 4.71, "monk-1": 0.41, "wine": 0.20,
}
TOLERANCE = {"monk-2": 1, "monk-3": 1, "vote": 1}  # the paper's choice; 0 elsewhere


def timed(fn, repeat: int) -> tuple[float, object]:
    times, out = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times), out


def core_only(train, method: str, T: int, tau: int, n_jobs: int | None):
    """The Rust fit alone, on codes encoded beforehand."""
    y, target = binarize(train, "class", None)
    feats = [c for c in train.columns if c != "class"]
    enc = fit_encoders(train, feats, 10)
    codes = encode_frame(train, enc)
    params = check_params({"method": method, "T": T, "tolerance": tau, "random_state": 0})
    return lambda: RuleSetModel._fit(codes, y, enc, target, params, n_jobs, None)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data-dir", default=None, help="directory with the UCI files (default: $FINDRS_DATA_DIR)")
    ap.add_argument("--method", choices=["find-rs", "bo", "bp"], default="find-rs")
    ap.add_argument("--T", type=int, default=100)
    ap.add_argument("--n-jobs", type=int, default=None)
    ap.add_argument("--datasets", nargs="*", default=list(UCI_NAMES))
    ap.add_argument("--scaling", action="store_true", help="connect-4 fit time against rows")
    ap.add_argument("--memory", action="store_true", help="peak RSS of one connect-4 fit (subprocess)")
    args = ap.parse_args()
    needed = list(args.datasets) + (["connect-4"] if args.scaling or args.memory else [])
    args.data_dir = str(require_data_dir(args.data_dir, needed))
    T = 1 if args.method == "find-rs" else args.T
    anchors = ANCHOR_ONE_RUN if args.method == "find-rs" else ANCHOR_BP100 if args.method == "bp" else {}
    print(f"findrs {findrs.__version__}, method {args.method}, T={T}, n_jobs={args.n_jobs or os.cpu_count()}, "
          f"{os.cpu_count()} cores, seed-0 50/50 split, AV encoding")
    print(f"{'dataset':<12} {'train rows':>10} {'fit (ms)':>10} {'core (ms)':>10} {'rules':>6} {'K':>5} "
          f"{'authors (s)':>11} {'speed-up':>9}")
    for name in args.datasets:
        df = load_uci(name, args.data_dir)
        train, _ = train_test_split(df, 0.5, 0)
        tau = TOLERANCE.get(name, 0)
        big = train.height > 20000
        repeat = 1 if (big and T > 1) else 3 if big else 15
        fit = lambda: findrs.fit(train, "class", method=args.method, random_state=0, n_jobs=args.n_jobs, settings=dict(T=T, tolerance=tau))  # noqa: E731
        fit()  # warm-up (first Polars calls, thread pool start)
        t_fit, model = timed(fit, repeat)
        t_core, _ = timed(core_only(train, args.method, T, tau, args.n_jobs), repeat)
        anchor = anchors.get(name)
        ratio = f"{anchor / t_fit:>8.0f}x" if anchor else f"{'-':>9}"
        print(f"{name:<12} {train.height:>10} {t_fit * 1e3:>10.2f} {t_core * 1e3:>10.2f} {model.n_rules_found:>6} "
              f"{model.n_rules:>5} {anchor if anchor else '-':>11} {ratio}", flush=True)
    if args.scaling:
        df = load_uci("connect-4", args.data_dir)
        print(f"\nconnect-4 {args.method} fit time against training rows (rows sampled with seed 0)")
        for n in (4000, 8000, 16000, 33000, 67557):
            train = df.sample(n=min(n, df.height), seed=0)
            t, m = timed(lambda: findrs.fit(train, "class", method=args.method, random_state=0, n_jobs=args.n_jobs, settings=dict(T=T)), 1)
            print(f"  {train.height:>6} training rows: {t:8.2f} s, {m.n_rules_found} rules, K {m.n_rules}", flush=True)
    if args.memory:
        code = (
            f"import sys;sys.path.insert(0,{ROOT!r});"
            "import findrs,resource,time;from findrs.datasets import train_test_split;"
            "from experiments.uci import load_uci;"
            f"tr,_=train_test_split(load_uci('connect-4',{args.data_dir!r}),0.5,0);"
            f"t=time.perf_counter();m=findrs.fit(tr,'class',method={args.method!r},T={T},random_state=0);"
            "print(f'{time.perf_counter()-t:.2f} s', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss//1024, 'MiB peak RSS')"
        )
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
        print(f"\nconnect-4 {args.method} T={T} in a fresh process: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
