"""Simplification measured: conditions per voting rule, rules and test accuracy, with and without.

    python -m experiments.simplify_table --data-dir "$FINDRS_DATA_DIR" [--splits 10]
        [--datasets ...] [--bp-splits-connect4 1] [--out results/raw/simplify.csv]

For each data set and split (``train_test_split(df, 0.5, split)``, the paper's protocol), fits
FIND-RS and FIND-RS-BP with T = 100 (automatic K), ``random_state=split``, the paper's settings
(``auto=False``) with ``simplify=False`` and ``simplify=True``, and writes one row per fit to a
CSV; then prints the Markdown table of the means per data set, method and setting. Nothing here
looks at test scores to choose anything.
"""

from __future__ import annotations

import argparse
import csv
import time
import warnings
from pathlib import Path

import polars as pl

import findrs
from findrs.datasets import train_test_split

from .uci import UCI_NAMES, load_uci, require_data_dir


def table(rows: pl.DataFrame) -> str:
    means = (
        rows.group_by("dataset", "method", "simplify")
        .agg(pl.len().alias("splits"), pl.col("conditions").mean(), pl.col("rules").mean(), pl.col("accuracy").mean())
        .sort("dataset", "method", "simplify")
    )
    lines = ["| dataset | method | splits | not simplified: cond/rule, rules, acc | simplified: cond/rule, rules, acc |",
             "|---|---|---|---|---|"]
    for (ds, method), g in means.group_by("dataset", "method", maintain_order=True):
        cells = {}
        for r in g.iter_rows(named=True):
            cells[r["simplify"]] = f"{r['conditions']:.2f}, {r['rules']:.1f}, {r['accuracy']:.4f}"
        lines.append(f"| {ds} | {method} | {g['splits'].min()} | {cells.get(False, '-')} | {cells.get(True, '-')} |")
    acc = means.group_by("method", "simplify").agg(pl.col("accuracy").mean(), pl.col("conditions").mean()).sort("method", "simplify")
    lines.append("")
    for r in acc.iter_rows(named=True):
        lines.append(f"- {r['method']}, simplify={r['simplify']}: mean accuracy {r['accuracy']:.4f}, "
                     f"mean conditions per rule {r['conditions']:.2f} (over the data sets above)")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data-dir", default=None, help="directory with the UCI files (default: $FINDRS_DATA_DIR)")
    ap.add_argument("--splits", type=int, default=10)
    ap.add_argument("--bp-splits-connect4", type=int, default=1)
    ap.add_argument("--datasets", nargs="*", default=list(UCI_NAMES))
    ap.add_argument("--out", default="results/raw/simplify.csv")
    args = ap.parse_args()
    data_dir = require_data_dir(args.data_dir, args.datasets)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["dataset", "split", "method", "simplify", "conditions", "rules", "accuracy", "seconds"])
        for ds in args.datasets:
            df = load_uci(ds, data_dir)
            for split in range(args.splits):
                train, test = train_test_split(df, 0.5, split)
                for method in ("find-rs", "bp"):
                    if ds == "connect-4" and (method == "bp" and split >= args.bp_splits_connect4 or split >= 1):
                        continue
                    for simplify in (False, True):
                        t0 = time.perf_counter()
                        with warnings.catch_warnings():
                            warnings.simplefilter("ignore", findrs.ContradictionWarning)
                            m = findrs.fit(
                                train, "class", method=method, random_state=split, auto=False,
                                settings=dict(T=100, simplify=simplify),
                            )
                        sec = time.perf_counter() - t0
                        lens = m.rules.head(m.n_rules)["constraints"].list.len()
                        w.writerow([ds, split, method, simplify, f"{lens.mean():.4f}", m.n_rules,
                                    f"{m.score(test):.6f}", f"{sec:.2f}"])
                        fh.flush()
            print(ds, "done", flush=True)
    print(table(pl.read_csv(out)))


if __name__ == "__main__":
    main()
