"""A BP fit on connect-4 replicated to hundreds of thousands of noisy rows, locally and through a
local Dask cluster (issue 14 item 5), with its growth in rows and its memory per row.

    python benchmarks/bench_distributed.py                      # 540,456 rows (8 copies), both ways
    python benchmarks/bench_distributed.py --copies 2 4 8       # the growth table, local only
    python benchmarks/bench_distributed.py --copies 8 --tolerance 0 --T 2   # the paper's test

The frame: connect-4 (67,557 rows, 42 three-valued columns, "win" against the rest) repeated
``--copies`` times, then 5% of the labels flipped (seed 0): every copy of a position keeps its
features, so the flipped rows are contradictions, as in real noisy tables. Each measurement runs
in a fresh Python process, so its peak resident memory (ru_maxrss) is its own; "MB/1k rows" is
that peak over the rows (it includes Python, Polars and the frame itself).

"local": ``findrs.fit(..., n_jobs=2)`` in one process. "dask": the same fit with ``chunks=2``
under ``joblib.parallel_backend("dask")`` on a ``LocalCluster`` of 2 worker processes of 1 thread
(``n_jobs=1`` per chunk): the same 2 cores, plus what shipping the codes to the workers and the
rules back costs. The two models are compared (they must be equal). The anchor of the dask figure
is the local one, measured in the same run. Wall-clock times on a shared machine are noisy.

The UCI file comes from ``--data-dir DIR`` or ``FINDRS_DATA_DIR``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = str(Path(__file__).resolve().parents[1])
sys.path.insert(0, ROOT)


def frame(data_dir: str, copies: int, flip: float):
    import numpy as np
    import polars as pl

    from experiments.uci import load_uci

    df = load_uci("connect-4", Path(data_dir))
    df = pl.concat([df] * copies)
    rng = np.random.default_rng(0)
    flipped = pl.Series(rng.random(df.height) < flip)
    return df.with_columns(pl.when(flipped).then(~pl.col("class")).otherwise(pl.col("class")).alias("class"))


def one(args: argparse.Namespace) -> dict:
    """One measurement, in this (fresh) process."""
    import findrs

    df = frame(args.data_dir, args.copies[0], args.flip)
    # auto=False: the settings given (the defaults would choose settings by CV; chunks refuses that).
    kw = dict(method="bp", T=args.T, tolerance=args.tolerance, min_support=args.min_support, random_state=0, auto=False)
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t0 = time.perf_counter()
    if args.mode == "local":
        model = findrs.fit(df, "class", **findrs.settings.fit_keywords(dict(n_jobs=2, **kw)))
        workers_mb = None
    else:
        import joblib
        from dask import distributed

        with distributed.LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None) as cluster:
            with distributed.Client(cluster) as client:
                t0 = time.perf_counter()  # the cluster's start-up is not the fit's
                with joblib.parallel_backend("dask"):
                    model = findrs.fit(df, "class", **findrs.settings.fit_keywords(dict(n_jobs=1, **kw, settings=dict(chunks=2))))
                seconds = time.perf_counter() - t0
                rss = client.run(lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
                workers_mb = max(rss.values()) / 1024
    seconds = time.perf_counter() - t0 if args.mode == "local" else seconds
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {
        "rows": df.height, "seconds": seconds, "rules": model.n_rules_found, "K": model.n_rules,
        "peak_mb": peak / 1024, "frame_mb": base / 1024, "workers_mb": workers_mb,
        "train_accuracy": float((model.predict(df, labels=False) == df["class"]).mean()),
        "model": model.to_json(),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data-dir", default=os.environ.get("FINDRS_DATA_DIR"))
    ap.add_argument("--copies", type=int, nargs="+", default=[8])
    ap.add_argument("--flip", type=float, default=0.05)
    ap.add_argument("--T", type=int, default=10)
    ap.add_argument("--tolerance", type=float, default=0.2)
    ap.add_argument("--min-support", type=int, default=10)
    ap.add_argument("--modes", nargs="+", default=["local", "dask"], choices=["local", "dask"])
    ap.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--mode", default="local", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.tolerance >= 1:
        args.tolerance = int(args.tolerance)
    elif args.tolerance == 0:
        args.tolerance = 0
    if not args.data_dir:
        sys.exit("give --data-dir DIR or set FINDRS_DATA_DIR (a directory holding connect-4.data)")
    if args.one:
        print(json.dumps(one(args)))
        return
    print(f"BP, T = {args.T}, tolerance {args.tolerance}, min_support {args.min_support}, "
          f"{args.flip:.0%} labels flipped; 2 cores; one measurement per line (wall clock, shared machine)")
    print(f"{'rows':>9} {'mode':>6} {'seconds':>8} {'rules':>7} {'K':>6} {'train acc':>9} {'peak MB':>8} "
          f"{'MB/1k rows':>10} {'worker MB':>9}")
    for copies in args.copies:
        models = {}
        for mode in args.modes:
            cmd = [sys.executable, __file__, "--one", "--mode", mode, "--data-dir", args.data_dir, "--copies",
                   str(copies), "--flip", str(args.flip), "--T", str(args.T), "--tolerance", str(args.tolerance),
                   "--min-support", str(args.min_support)]
            out = subprocess.run(cmd, capture_output=True, text=True)
            if out.returncode:
                sys.exit(out.stderr[-3000:])
            r = json.loads(out.stdout.strip().splitlines()[-1])
            models[mode] = r.pop("model")
            w = f"{r['workers_mb']:9.0f}" if r["workers_mb"] is not None else f"{'':>9}"
            print(f"{r['rows']:>9,} {mode:>6} {r['seconds']:8.1f} {r['rules']:>7,} {r['K']:>6,} "
                  f"{r['train_accuracy']:9.3f} {r['peak_mb']:8.0f} {1000 * r['peak_mb'] / r['rows']:10.2f} {w}",
                  flush=True)
        if len(models) == 2:
            print(f"{'':>9} models equal: {models['local'] == models['dask']}")


if __name__ == "__main__":
    main()
