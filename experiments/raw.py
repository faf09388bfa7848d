"""The raw result files of the paper reproduction and how to read and write them.

``<out>/raw/results.csv`` holds one row per (dataset, split, method, encoding, T) and
``<out>/raw/pruning_curves.csv`` the BP pruning curves of Figure 1. ``run.py`` writes them and
``report.py`` reads them; both import the schema from here, so neither imports the other.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl

from .protocol import DATASETS, EXTRA_DATASETS

COLUMNS: dict[str, pl.DataType] = {
    "dataset": pl.String,
    "split": pl.Int64,
    "method": pl.String,
    "encoding": pl.String,
    "T": pl.Int64,  # 1 for FIND-RS, the number of runs for BO/BP, 0 for the baselines
    "tolerance": pl.Int64,
    "status": pl.String,  # ok | exceeded | error
    "accuracy": pl.Float64,
    "f1": pl.Float64,
    "train_accuracy": pl.Float64,
    "n_rules": pl.Int64,  # FIND-RS rules, BP's K, RIPPER rules, CART leaves
    "n_rules_found": pl.Int64,  # BO/BP: distinct rules of the T runs
    "cv_score": pl.Float64,  # 5-fold CV accuracy on the training half (baselines: of the best setting)
    "fit_seconds": pl.Float64,  # the final fit on the training half
    "select_seconds": pl.Float64,  # grid search / encoding CV on the training half
    "seconds": pl.Float64,  # everything for this row
    "params": pl.String,
    "contradictions": pl.Int64,
    "n_train": pl.Int64,
    "n_test": pl.Int64,
    "fits_done": pl.Int64,
    "fits_total": pl.Int64,
    "note": pl.String,
}
KEY = ("dataset", "split", "method", "encoding", "T")
CURVE_COLUMNS: dict[str, pl.DataType] = {
    "dataset": pl.String, "split": pl.Int64, "encoding": pl.String, "T": pl.Int64, "tolerance": pl.Int64,
    "K": pl.Int64, "train_accuracy": pl.Float64, "test_accuracy": pl.Float64, "auto_K": pl.Int64,
}


class Store:
    """The raw per-split rows, keyed by (dataset, split, method, encoding, T)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.rows: dict[tuple, dict[str, Any]] = {}
        if path.exists():
            for row in read_results(path).iter_rows(named=True):
                self.rows[tuple(row[k] for k in KEY)] = row

    def has(self, key: tuple) -> bool:
        return key in self.rows

    def put(self, row: dict[str, Any]) -> None:
        full = {c: row.get(c) for c in COLUMNS}
        self.rows[tuple(full[k] for k in KEY)] = full

    def frame(self) -> pl.DataFrame:
        if not self.rows:
            return pl.DataFrame(schema=COLUMNS)
        order = {d: i for i, d in enumerate(DATASETS + EXTRA_DATASETS)}
        df = pl.DataFrame(list(self.rows.values()), schema=COLUMNS, orient="row")
        return df.with_columns(pl.col("dataset").replace_strict(order, default=99).alias("_o")).sort(
            ["_o", "split", "method", "encoding", "T"]).drop("_o")

    def save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".tmp")
        self.frame().write_csv(tmp)
        tmp.replace(self.path)


def read_results(path: Path) -> pl.DataFrame:
    return pl.read_csv(path, schema=COLUMNS)


def read_curves(path: Path) -> pl.DataFrame:
    return pl.read_csv(path, schema=CURVE_COLUMNS)
