"""The rows of a Dask DataFrame as a source of a fit that learns on a sample
(docs/semantics.md §13): every query runs on each partition where the partition is, as a Polars
LazyFrame, and only its small result (counts, or the rows the sample keeps) comes back.

Invariant: partition ``i``'s rows are at positions ``offset(i) ..`` of the whole frame, its
offset the rows of the partitions before it, so a row's draw and the sample are those of the
same rows in one Polars frame, and the fit is the local fit's.
"""

from __future__ import annotations

import itertools
from typing import Any, Callable

import polars as pl


def _part(part: Any, at: int, query: Callable[[pl.LazyFrame, int], pl.LazyFrame]) -> pl.DataFrame:
    """``query`` on one partition (pandas, converted once), at its offset."""
    return query(pl.from_pandas(part).lazy(), at).collect()


def schema(data: Any) -> pl.Schema:
    """The Polars schema of a Dask DataFrame's columns (from its metadata: no partition read)."""
    return pl.from_pandas(data._meta).collect_schema()


def runner(data: Any, by_class: Callable[[pl.LazyFrame, int], pl.LazyFrame]) -> tuple[
        int, Callable[[Callable[[pl.LazyFrame, int], pl.LazyFrame]], pl.DataFrame], pl.DataFrame]:
    """The rows of a Dask DataFrame, the ``run`` of a source over its partitions, and the result
    of ``by_class`` (each partition's class counts, a ``len`` column) over them, from one pass
    that also gives each partition's rows and so its offset."""
    import dask

    parts = data.to_delayed()
    counted = dask.compute(*[dask.delayed(_part)(p, 0, by_class) for p in parts])
    lengths = [int(c.get_column("len").sum()) for c in counted]
    offsets = [0, *itertools.accumulate(lengths)][:-1]

    def run(query: Callable[[pl.LazyFrame, int], pl.LazyFrame]) -> pl.DataFrame:
        results = dask.compute(*[dask.delayed(_part)(p, at, query) for p, at in zip(parts, offsets)])
        return pl.concat(results, how="vertical_relaxed")

    return sum(lengths), run, pl.concat(counted, how="vertical_relaxed")
