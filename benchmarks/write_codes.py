"""Writes Adult's training codes as findrs encodes them, for the core's ``fit_codes`` example.

    python benchmarks/write_codes.py --data-dir DIR adult.codes
    cargo run --release -p findrs-core --example fit_codes -- adult.codes av 3 1
    python benchmarks/write_codes.py --data-dir DIR --connect-4-half c4half.codes

``adult.data`` (or ``connect-4.data``) comes from ``--data-dir DIR`` or the ``FINDRS_DATA_DIR``
environment variable. The file's first line holds the features' domain sizes; every other line
one row's codes (numeric columns in the paper's 10 equal-width bins) then its label (1: ``>50K``,
the positive class of docs/speed.md's Adult rows). With ``--connect-4-half`` the rows are
connect-4's seed-0 training half (``train_test_split(connect-4, 0.5, 0)``, docs/speed.md's
connect-4 BP100 fit) and the label 1 is ``win``. ``fit_codes`` times the core without Python,
so that ``valgrind --tool=callgrind`` can count its instructions.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import polars as pl

from findrs.data.encode import encode_frame, fit_encoders
from findrs.data.target import binarize

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from experiments.noisy import load_adult  # noqa: E402
from experiments.uci import load_uci, require_data_dir  # noqa: E402


def write_codes(frame: pl.DataFrame, out: Path) -> int:
    """Writes ``frame``'s features (every column but the binary ``class``) as codes in the format
    above (the paper's 10 equal-width bins for numeric columns) to ``out``; returns the rows."""
    features = [c for c in frame.columns if c != "class"]
    y, _ = binarize(frame, "class", None)
    encoders = fit_encoders(frame, features, 10, numeric="bins", interval_ends="open", bin_edges="uniform", labels=y)
    codes = encode_frame(frame, encoders)
    table = pl.DataFrame({f"c{j}": c for j, c in enumerate(codes)}).with_columns(y=pl.Series(y).cast(pl.Int64))
    with open(out, "w") as f:
        f.write(" ".join(str(e.domain_size) for e in encoders) + "\n")
        table.write_csv(f, separator=" ", include_header=False)
    return table.height


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", help="the file to write")
    ap.add_argument("--data-dir", default=None, help="directory with adult.data (default: $FINDRS_DATA_DIR)")
    ap.add_argument("--connect-4-half", action="store_true",
                    help="write connect-4's seed-0 training half instead of Adult")
    args = ap.parse_args()
    if args.connect_4_half:
        from findrs.datasets import train_test_split

        data_dir = require_data_dir(args.data_dir, ["connect-4"])
        frame, _ = train_test_split(load_uci("connect-4", data_dir), 0.5, 0)
    else:
        data_dir = require_data_dir(args.data_dir, [], extra_files=("adult.data", "adult.test"))
        frame, _ = load_adult(Path(data_dir))
    rows = write_codes(frame, Path(args.out))
    print(f"{rows:,} rows -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
