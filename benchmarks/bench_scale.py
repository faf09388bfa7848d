"""How one default fit grows with rows, clean and noisy, beside scikit-learn's CART and LightGBM.

    python benchmarks/bench_scale.py                                  # 100k .. 2M rows
    python benchmarks/bench_scale.py --rows 100000 200000 --kinds noisy

The frames: connect-4's seed-0 50/50 split (``findrs.datasets.train_test_split``); its training
half (33.8k rows, 42 three-valued columns, "win" against the rest) is repeated until it has
``rows`` rows and cut there. "noisy" then flips 5% of the labels (seed 0): copies of a position
keep their features, so the flipped rows are contradictions, as in real noisy tables (and the
repetition makes identical rows common, which real data has less of: say so beside any figure).
The held-back half, clean, scores every model ("held-back acc").

Each measurement runs in a fresh Python process, so its peak resident memory (ru_maxrss) is its
own, taken after the fit and before CART; "B/(row*col)" is that peak over rows x 42 columns (it
includes Python, Polars and, without ``--parquet``, the frame).

Above 50 million cells (rows x 42 columns: 1,190,476 rows) the default fit learns on a stratified
sample and counts on every row (docs/semantics.md §13); ``--learn-cells N`` sets that sample in
cells (``--learn-cells 10000000000``: every row, the fit before sampling). ``--parquet DIR`` writes each frame to ``DIR/KINDROWS/`` in
Parquet parts of at most 1,000,000 rows (part ``i`` flips labels with seed ``i``) and fits from
``pl.scan_parquet``, so the process never holds the frame (CART, which needs it, is skipped
above 2,000,000 rows); with ``--dask W`` the fit reads the parts as a Dask DataFrame on a
LocalCluster of ``W`` worker processes (the peak is then the driver's):

    python benchmarks/bench_scale.py --rows 50000000 --kinds noisy --parquet /tmp/pq
    python benchmarks/bench_scale.py --rows 2000000 --kinds noisy --parquet /tmp/pq --dask 2

"findrs s": ``findrs.fit(df, "class", random_state=0)``, the default settings (automatic, by
cross-validation on a bounded sample, then one final fit on all rows, or on the sample of
docs/semantics.md §13 above 50 million cells), n_jobs=None (every core).
"CART s", the anchor in the same process: ``DecisionTreeClassifier(random_state=0)`` fitted on the
same rows one-hot encoded (the encoding not timed); LightGBM (defaults, when installed) on the
same one-hot rows, printed at the end of the line. Wall clock on a shared machine is noisy: the
script prints the load average with every line, and "CPU s", the fit's CPU seconds (every thread
of the process: ``time.process_time``), which the load disturbs far less; the growth printed
after a line (``rows^x`` from the line before) is that of the CPU seconds. ``--max-seconds`` stops a kind's growth once a
fit took longer than that.

``--write-codes DIR`` writes each noisy frame's codes instead, as ``DIR/noisyROWS.codes`` in the
format of the core's ``fit_share`` example (first line the domain sizes, then a row's codes and
its label), to time the final fit's run alone without Python:
``cargo run --release -p findrs-core --example fit_share -- noisy540456.codes 0.1 204 1``
(the share and support the default fit chose, its ``min_support`` scaled to the rows).

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


CHUNK_ROWS = 1_000_000
"""``--parquet`` writes a frame in files of at most this many rows (part ``i`` flips its labels
with seed ``i``), so a frame larger than memory is never built whole."""


def frames(data_dir: str, rows: int, noisy: bool, flip_seed: int = 0):
    import numpy as np
    import polars as pl

    import findrs
    from experiments.uci import load_uci

    df = load_uci("connect-4", Path(data_dir))
    train, test = findrs.datasets.train_test_split(df, test_fraction=0.5, seed=0)
    copies = -(-rows // train.height)
    big = pl.concat([train] * copies).head(rows)
    if noisy:
        flipped = pl.Series(np.random.default_rng(flip_seed).random(big.height) < 0.05)
        big = big.with_columns(pl.when(flipped).then(~pl.col("class")).otherwise(pl.col("class")).alias("class"))
    return big, test


def parts_folder(root: str, kind: str, rows: int) -> Path:
    return Path(root) / f"{kind}{rows}"


def write_parts(data_dir: str, root: str, kind: str, rows: int) -> None:
    """The frame of ``kind`` and ``rows`` as Parquet parts of at most :data:`CHUNK_ROWS` rows
    (once: an existing folder is kept)."""
    folder = parts_folder(root, kind, rows)
    if folder.exists():
        return
    tmp = folder.with_name(folder.name + ".tmp")
    tmp.mkdir(parents=True, exist_ok=True)
    for i in range(-(-rows // CHUNK_ROWS)):
        part = frames(data_dir, min(CHUNK_ROWS, rows - i * CHUNK_ROWS), kind == "noisy", i)[0]
        part.write_parquet(tmp / f"part-{i:04d}.parquet")
    tmp.rename(folder)


def one(args: argparse.Namespace) -> dict:
    import warnings

    import numpy as np
    import polars as pl
    from sklearn.preprocessing import OneHotEncoder
    from sklearn.tree import DecisionTreeClassifier

    import findrs
    from findrs.learning import sample

    if args.learn_cells is not None:
        sample.LEARN_CELLS = args.learn_cells
    rows = args.rows[0]
    cluster = None
    if args.parquet:
        # The frame on disk in parts (written by the parent process), read lazily: the fit never
        # holds it whole.
        folder = parts_folder(args.parquet, args.kind, rows)
        test = frames(args.data_dir, 1, False)[1]
        data, df = pl.scan_parquet(folder / "*.parquet"), None
        if args.dask:
            import dask.dataframe as dd
            from dask.distributed import Client, LocalCluster

            cluster = LocalCluster(n_workers=args.dask, threads_per_worker=1, processes=True, dashboard_address=None)
            client = Client(cluster)
            data = dd.read_parquet(str(folder))
    else:
        df, test = frames(args.data_dir, rows, args.kind == "noisy")
        data = df
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t, c = time.perf_counter(), time.process_time()
        model = findrs.fit(data, "class", random_state=0)
        seconds, cpu = time.perf_counter() - t, time.process_time() - c
    if cluster is not None:
        client.close()
        cluster.close()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # the fit's, before CART's frame
    acc = model.score(test)
    from experiments.small import model_size

    out = {"rows": rows, "learned": model._training["rows"], "seconds": seconds, "cpu": cpu, "rules": model.n_rules,
           "conditions": model_size(model)[1],
           "acc": acc, "cart_seconds": None, "cart_acc": None, "peak": peak,
           "bytes_cell": peak / (rows * (len(test.columns) - 1)),
           "settings": {k: model.params[k] for k in ("encoding", "tolerance", "min_support", "direction", "simplify")},
           "load": open("/proc/loadavg").read().split()[0]}
    if df is None:
        if rows > 2 * CHUNK_ROWS or args.dask:  # CART needs the frame in memory (and runs as without Dask)
            return out
        df = data.collect()
    features = [c for c in df.columns if c != "class"]
    enc = OneHotEncoder(handle_unknown="ignore").fit(df.select(features).to_numpy())
    x, y = enc.transform(df.select(features).to_numpy()), df["class"].to_numpy()
    t = time.perf_counter()
    cart = DecisionTreeClassifier(random_state=0).fit(x, y)
    cart_seconds = time.perf_counter() - t
    xt, yt = enc.transform(test.select(features).to_numpy()), test["class"].to_numpy()
    cart_acc = float(np.mean(cart.predict(xt) == yt))
    out.update(cart_seconds=cart_seconds, cart_acc=cart_acc)
    try:  # LightGBM (defaults) on the same one-hot rows, when installed
        import lightgbm
    except ImportError:
        return out
    t = time.perf_counter()
    gbm = lightgbm.LGBMClassifier(random_state=0, verbose=-1).fit(x.astype(np.float32), y)
    out.update(lgbm_seconds=time.perf_counter() - t, lgbm_acc=float(np.mean(gbm.predict(xt.astype(np.float32)) == yt)))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data-dir", default=os.environ.get("FINDRS_DATA_DIR"))
    ap.add_argument("--rows", type=int, nargs="+", default=[100_000, 200_000, 500_000, 1_000_000, 2_000_000])
    ap.add_argument("--kinds", nargs="+", default=["clean", "noisy"], choices=["clean", "noisy"])
    ap.add_argument("--max-seconds", type=float, default=600.0)
    ap.add_argument("--write-codes", metavar="DIR", help="write the noisy frames' codes to DIR, fit nothing")
    ap.add_argument("--learn-cells", type=int, help="the fit's sample in cells (findrs.learning.sample.LEARN_CELLS; default: its own)")
    ap.add_argument("--parquet", metavar="DIR", help="write each frame to DIR as Parquet and fit from pl.scan_parquet")
    ap.add_argument("--dask", type=int, metavar="WORKERS",
                    help="with --parquet: fit a Dask DataFrame of the parts on a LocalCluster of WORKERS processes")
    ap.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--kind", default="clean", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if not args.data_dir:
        sys.exit("give --data-dir DIR or set FINDRS_DATA_DIR (a directory holding connect-4.data)")
    if args.one:
        print(json.dumps(one(args)))
        return
    if args.write_codes:
        from benchmarks.write_codes import write_codes

        for rows in args.rows:
            out = Path(args.write_codes) / f"noisy{rows}.codes"
            write_codes(frames(args.data_dir, rows, True)[0], out)
            print(f"{rows:,} rows -> {out}")
        return
    print("one default fit (automatic settings, random_state=0) of connect-4's training half repeated to "
          "`rows`; CART in the same process; wall clock, shared 2-core machine (load = 1-min load average)")
    print(f"{'kind':>5} {'rows':>9} {'learned':>8} {'findrs s':>9} {'CPU s':>7} {'CART s':>7} {'rules':>6} {'conds':>6} {'held-back acc':>13} "
          f"{'CART acc':>8} {'peak MB':>8} {'B/(row*col)':>11} {'load':>5}  settings")
    for kind in args.kinds:
        prev = None
        for rows in args.rows:
            cmd = [sys.executable, __file__, "--one", "--kind", kind, "--data-dir", args.data_dir, "--rows", str(rows)]
            cmd += ["--learn-cells", str(args.learn_cells)] if args.learn_cells is not None else []
            if args.parquet:
                write_parts(args.data_dir, args.parquet, kind, rows)
                cmd += ["--parquet", args.parquet] + (["--dask", str(args.dask)] if args.dask else [])
            out = subprocess.run(cmd, capture_output=True, text=True)
            if out.returncode:
                sys.exit(out.stderr[-3000:])
            r = json.loads(out.stdout.strip().splitlines()[-1])
            s = r["settings"]
            growth = ""
            if prev is not None:
                import math

                growth = f"  (CPU rows^{math.log(r['cpu'] / prev['cpu']) / math.log(r['rows'] / prev['rows']):.2f})"
            cart = ("      -", "       -") if r["cart_acc"] is None else (f"{r['cart_seconds']:7.1f}", f"{r['cart_acc']:8.3f}")
            gbm = "" if r.get("lgbm_acc") is None else f"  (LightGBM {r['lgbm_seconds']:.1f} s, {r['lgbm_acc']:.3f})"
            print(f"{kind:>5} {r['rows']:>9,} {r['learned']:>8,} {r['seconds']:9.1f} {r['cpu']:7.1f} {cart[0]} {r['rules']:>6,} {r['conditions']:>6,} "
                  f"{r['acc']:13.3f} {cart[1]} {r['peak'] / 2**20:8.0f} {r['bytes_cell']:11.1f} "
                  f"{r['load']:>5}  {s['encoding']}, tolerance {s['tolerance']}, min_support {s['min_support']}, "
                  f"{s['direction']}, simplify {s['simplify']}{growth}{gbm}", flush=True)
            prev = r
            if r["seconds"] > args.max_seconds:
                break


if __name__ == "__main__":
    main()
