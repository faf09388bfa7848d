"""One FIND-RS run in the AV and the OH encoding on the first 20,000 rows of Adult (14 features,
6 of them numeric and binned): the fit from frame to model, median of ``--repeat``.

Run from the repository root: ``python benchmarks/bench_encodings.py --data-dir DIR`` (a
directory holding UCI's ``adult.data``; ``FINDRS_DATA_DIR`` otherwise). Issue 10 item 15 found
OH ~20x slower than AV on such a frame: each time a rule absorbs a positive, the run recounts
the rule's near-miss negatives per value of every feature (``refresh_near_misses`` in
rust/core/src/learn/run.rs), and for OH it visited every disallowed value of a feature in every
word of negatives. It now visits the near misses themselves where they are fewer. The two
encodings find different rules (AV drops a constraint where OH widens a value set), so their
times differ for that reason too: the rule counts are printed beside.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import warnings
from pathlib import Path

import polars as pl

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import findrs  # noqa: E402
from experiments.uci import data_dir_from  # noqa: E402

COLUMNS = ["age", "workclass", "fnlwgt", "education", "education_num", "marital_status", "occupation",
           "relationship", "race", "sex", "capital_gain", "capital_loss", "hours_per_week", "native_country", "income"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data-dir", default=None)
    ap.add_argument("--rows", type=int, default=20_000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    data_dir = data_dir_from(args.data_dir)
    if data_dir is None or not (Path(data_dir) / "adult.data").is_file():
        sys.exit("pass --data-dir (or set FINDRS_DATA_DIR) to a directory holding UCI's adult.data")
    df = (
        pl.read_csv(Path(data_dir) / "adult.data", has_header=False, new_columns=COLUMNS, null_values="?")
        .with_columns(pl.col(pl.String).str.strip_chars())
        .head(args.rows)
    )
    warnings.simplefilter("ignore", findrs.ContradictionWarning)
    print(f"Adult, first {df.height:,} rows, {df.width - 1} features; one FIND-RS run, n_jobs=1, median of {args.repeat}")
    times = {}
    for encoding in ("av", "oh"):
        runs = []
        for _ in range(args.repeat):
            t = time.perf_counter()
            model = findrs.fit(df, "income", ">50K", random_state=0, n_jobs=1, settings=dict(encoding=encoding))
            runs.append(time.perf_counter() - t)
        times[encoding] = statistics.median(runs)
        print(f"  {encoding.upper()}: {times[encoding]:.2f} s, {model.n_rules_found} rules", flush=True)
    print(f"  OH / AV: {times['oh'] / times['av']:.1f}x")


if __name__ == "__main__":
    main()
