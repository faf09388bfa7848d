"""Prediction throughput, beside the Enum cast of the same columns and a plain scan.

    python benchmarks/bench_predict.py [--data-dir DIR] [--rows 10000000] [--memory-copies 30]

The UCI file connect-4.data comes from ``--data-dir DIR`` or the ``FINDRS_DATA_DIR`` environment
variable (without either, the script says where to get it).

Fits FIND-RS-BP (T = 100, seed 0, the paper's settings, automatic K) on connect-4's seed-0
training half. First, on connect-4 replicated ``--memory-copies`` times in memory (2.03M rows at
30), times best of ``--repeat``: the anchor, casting the 42 string columns to Enum (what
encoding them costs Polars), then ``predict_expr`` in the streaming engine, eager
``model.predict(df)``, ``lf.findrs.predict(model)`` (streaming; it knows the query's schema,
so it reads a Categorical's codes as eager prediction does), and all three again on the columns
held as Enum and as Categorical. Then writes connect-4
replicated to ``--rows`` rows to a Parquet file and times, in the streaming engine:
- the plain scan ``lf.select(pl.all().to_physical().max())`` (the anchor: reading the columns);
- ``lf.select(model.predict_expr(...))`` with the plugin and the compiled expression, for the
  model at its automatic K and with all its rules (the compiled form is skipped where building
  or planning it takes over --compiled-limit seconds, and the table says so).
Also prints where the compiled expression stops being practical (plan time against constraints).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import polars as pl

import findrs
from findrs.datasets import train_test_split

# The UCI loader belongs to the paper reproduction (experiments/uci.py), beside this directory.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from experiments.uci import load_uci, require_data_dir  # noqa: E402


def timed(fn):
    t = time.perf_counter()
    out = fn()
    return time.perf_counter() - t, out


def best(fn, repeat: int) -> float:
    return min(timed(fn)[0] for _ in range(repeat))


def in_memory(model, features: pl.DataFrame, copies: int, repeat: int) -> None:
    """The in-memory table: prediction against the Enum cast of the same string columns."""
    big = pl.concat([features] * copies).rechunk()
    values = sorted(set().union(*(big[c].unique().drop_nulls().to_list() for c in big.columns)))
    as_enum = pl.all().cast(pl.Enum(values))
    t_cast = best(lambda: big.lazy().select(as_enum).collect(engine="streaming"), repeat)
    print(f"\n{big.height:,} rows in memory, {big.width} string columns; best of {repeat}; "
          f"load {os.getloadavg()[0]:.1f} at start")
    print(f"{'what':<62} {'seconds':>8} {'x Enum cast':>12}")
    print(f"{'anchor: cast the columns to Enum (streaming)':<62} {t_cast:>8.3f} {1:>12.2f}")
    frames = {"String": big, "Enum": big.with_columns(as_enum), "Categorical": big.with_columns(pl.all().cast(pl.Categorical))}
    for dtype, frame in frames.items():
        t_expr = best(lambda: frame.lazy().select(model.predict_expr(labels=False)).collect(engine="streaming"), repeat)
        t_eager = best(lambda: model.predict(frame, labels=False), repeat)
        # The namespace knows the query's schema, so it reads a Categorical's codes (as eager).
        predicted = f"{model.target.name}_predicted"
        t_ns = best(lambda: frame.lazy().findrs.predict(model).select(predicted).collect(engine="streaming"), repeat)
        print(f"{f'predict_expr() streaming, {dtype} input':<62} {t_expr:>8.3f} {t_expr / t_cast:>12.2f}")
        print(f"{f'lf.findrs.predict(model) streaming (labels), {dtype} input':<62} {t_ns:>8.3f} {t_ns / t_cast:>12.2f}")
        print(f"{f'model.predict(df) eager, {dtype} input':<62} {t_eager:>8.3f} {t_eager / t_cast:>12.2f}", flush=True)
    print(f"(load {os.getloadavg()[0]:.1f} at end)")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data-dir", default=None, help="directory with the UCI files (default: $FINDRS_DATA_DIR)")
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--T", type=int, default=100)
    ap.add_argument("--compiled-limit", type=float, default=20.0)
    ap.add_argument("--memory-copies", type=int, default=30)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    data_dir = require_data_dir(args.data_dir, ["connect-4"])

    df = load_uci("connect-4", data_dir)
    train, _ = train_test_split(df, 0.5, 0)
    t_fit, model = timed(lambda: findrs.fit(train, "class", method="bp", random_state=0, auto=False, settings=dict(T=args.T)))
    full = model.with_n_rules(model.n_rules_found)
    print(f"BP{args.T} on connect-4: fit {t_fit:.1f} s, K = {model.n_rules} (auto) of {model.n_rules_found} rules; "
          f"polars {pl.__version__}, {os.cpu_count()} cores")

    features = df.drop("class")
    in_memory(model, features, args.memory_copies, args.repeat)
    reps = -(-args.rows // features.height)
    path = os.path.join(tempfile.gettempdir(), f"findrs_connect4_{args.rows}.parquet")
    if not os.path.exists(path):
        pl.concat([features] * reps).head(args.rows).write_parquet(path)
    lf = pl.scan_parquet(path)
    n = lf.select(pl.len()).collect().item()

    t_scan, _ = timed(lambda: lf.select(pl.all().to_physical().max()).collect(engine="streaming"))
    values = sorted(set().union(*(features[c].unique().drop_nulls().to_list() for c in features.columns)))
    t_pcast, _ = timed(lambda: lf.select(pl.all().cast(pl.Enum(values)).to_physical().max()).collect(engine="streaming"))
    print(f"\n{n:,} rows from Parquet (scan_parquet, streaming). plain scan: {t_scan:.2f} s ({n / t_scan / 1e6:.1f} M rows/s); "
          f"scan + Enum cast: {t_pcast:.2f} s; load {os.getloadavg()[0]:.1f}")
    print(f"{'model':<16} {'engine':<9} {'constraints':>11} {'seconds':>8} {'M rows/s':>9} {'x scan':>7}")
    for label, m in ((f"auto K={model.n_rules}", model), (f"all {full.n_rules}", full)):
        n_cons = sum(len(r) for r in m.vote.rules)
        for engine in ("plugin", "compiled"):
            if engine == "compiled" and n_cons > 20000:
                print(f"{label:<16} {engine:<9} {n_cons:>11} {'skipped: expression too large to plan':>30}")
                continue
            t, _ = timed(lambda: lf.select(m.predict_expr(labels=False, engine=engine)).collect(engine="streaming"))
            print(f"{label:<16} {engine:<9} {n_cons:>11} {t:>8.2f} {n / t / 1e6:>9.2f} {t / t_scan:>7.2f}", flush=True)

    print("\ncompiled expression: plan + run on 100k rows against model size")
    small = lf.head(100_000)
    for k in (8, 64, 256, 1024, 4096):
        if k > full.n_rules_found:
            break
        mk = full.with_n_rules(k)
        n_cons = sum(len(r) for r in mk.vote.rules)
        tc, _ = timed(lambda: small.select(mk.predict_expr(labels=False, engine="compiled")).collect())
        tp, _ = timed(lambda: small.select(mk.predict_expr(labels=False, engine="plugin")).collect())
        print(f"  K={k:>5} ({n_cons:>6} constraints): compiled {tc:6.2f} s, plugin {tp:6.2f} s", flush=True)
        if tc > args.compiled_limit:
            break
    return 0


if __name__ == "__main__":
    sys.exit(main())
