"""Which candidates of the automatic settings ever win: the default fit's chosen settings on the
paper's data sets (seeded 50/50 training halves, labels flipped at the given rates) and Adult,
counted per value of each axis; a grid small by design drops the values that never win.

    python -m experiments.grid_winners --data-dir "$FINDRS_DATA_DIR" --seeds 0 1 2 \
        --noise 0 0.1 0.2 --out results/grid-winners.md

Per fit: the chosen candidate's encoding, tolerance, min_support (as cross-validated, before
scaling to all rows), direction, simplify, bin_edges, numeric, method (the budgeted vote) and
whether rules with exceptions replaced it. Training halves only: no test row is read.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from collections import Counter
from pathlib import Path

import polars as pl

from experiments.noisy import UCI, split
from experiments.uci import require_data_dir

AXES = ("encoding", "tolerance", "min_support", "direction", "simplify", "bin_edges", "numeric", "method")


def chosen(train: pl.DataFrame, seed: int) -> dict:
    import findrs

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = findrs.fit(train, "class", True, random_state=seed)
    rec = model._cv
    c = rec["candidates"][rec["chosen"]] if rec else {}
    row = {k: str(c.get(k, model.params.get(k))) for k in AXES}
    row["exceptions"] = type(model).__name__ == "ExceptionsModel"
    row["candidates"] = len(rec["candidates"]) if rec else 0
    return row


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir")
    ap.add_argument("--datasets", nargs="+", default=[*UCI, "adult"])
    ap.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    ap.add_argument("--noise", nargs="+", type=float, default=[0.0, 0.1, 0.2])
    ap.add_argument("--out")
    args = ap.parse_args(argv)
    data_dir = require_data_dir(args.data_dir)
    rows = []
    for name in args.datasets:
        for noise in args.noise if name != "adult" else [0.0]:
            for seed in args.seeds:
                train, _ = split(name, data_dir, seed, noise)
                rows.append({"dataset": name, "noise": noise, "seed": seed, **chosen(train, seed)})
                print(rows[-1], file=sys.stderr, flush=True)
    df = pl.DataFrame(rows)
    lines = [f"`python -m experiments.grid_winners --datasets {' '.join(args.datasets)} --seeds "
             f"{' '.join(map(str, args.seeds))} --noise {' '.join(map(str, args.noise))}`", "",
             f"{df.height} default fits; how often each value of each axis was the chosen candidate's:", ""]
    for axis in (*AXES, "exceptions"):
        counts = Counter(df[axis].to_list())
        lines.append(f"- `{axis}`: " + ", ".join(f"{v} {n}" for v, n in counts.most_common()))
    lines += ["", "Per fit:", ""]
    with pl.Config(tbl_rows=-1, tbl_cols=-1, tbl_formatting="MARKDOWN", tbl_hide_dataframe_shape=True,
                   tbl_hide_column_data_types=True, tbl_width_chars=1000, fmt_str_lengths=100):
        lines.append(str(df))
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        Path(args.out).write_text(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
