"""Fits on more rows than the rules need: the rules are learned on a stratified sample, and what
the model states about its training rows is counted on every row in streaming passes
(docs/semantics.md §13).

A fit with automatic settings on a frame of more than :func:`learn_rows` rows (a DataFrame, or a
LazyFrame such as ``pl.scan_parquet(...)``, which is never collected whole) learns on a sample of
that many rows, then counts on all rows: the training rows, the rows of each class, the
rows the model gets right and, for a binary FIND-RS model, each rule's covered rows of each label
and the rows right at every budget of its accuracy-size path. The counts go into the model's
``training["all_rows"]`` record.

Invariants:
- the sample depends on the rows in their order, the target and the seed only: a row's draw is
  a splitmix64 hash of its position and the seed, and each class keeps the rows of its smallest
  draws, so threads, the engine and batch sizes never change it;
- each class keeps ``round(size * n_c / N)`` of its ``n_c`` rows, at least
  ``min(n_c, MIN_CLASS_ROWS)``, exactly; the sample keeps the frame's row order;
- a Dask DataFrame's partitions are read where they are, each at its offset (the rows of the
  partitions before it), and send back only a query's small result: its sample and model are
  those of the same rows in one Polars frame;
- the counts are exact on every row of the source: the same numbers a fit's own counts give on a
  collected frame (tests/test_sample_fit.py checks them against an eager count).
"""

from __future__ import annotations

import itertools
import math
import secrets
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
import polars as pl

from ..data.frames import as_polars, is_dask, refuse_missing_features
from ..data.target import refuse_labels
from ..errors import FindRSInputError
from ..models import all_rows as _all_rows

LEARN_CELLS = 50_000_000
"""A fit with automatic settings learns its rules on at most this many cells (rows x feature
columns; :func:`learn_rows`); the counts it states are made on every row. A fit's memory follows
its cells (the frame, its codes and the run's bitsets: 40 to 50 bytes a cell in all on
connect-4's noisy replication, results/scale.md), and while a frame fits, a fit of every row
costs little more than a fit of a sample and is more accurate: on a million noisy rows of 42
columns (42 million cells) 51.3 CPU-s for .835 held-back accuracy, against 44.3 CPU-s for .806
on a 100,000-row sample (a sample of repeated rows repeats less, and copies are what a run
skips)."""

MIN_LEARN_ROWS = 10_000
"""However many feature columns, a sample has at least this many rows."""

MIN_CLASS_ROWS = 100
"""Every class keeps at least this many rows in the sample (all of its rows when it has fewer),
so a rare class is still learned from."""

_ROW = "__findrs_row"
_DRAW = "__findrs_draw"


Query = Callable[[pl.LazyFrame, int], pl.LazyFrame]
"""A query over one part of the rows: the part (a LazyFrame) and its first row's position in the
whole frame; its result is small (counts, or the rows a sample keeps)."""


@dataclass(frozen=True)
class Source:
    """Where a fit on a sample reads its rows: ``run`` applies a :data:`Query` to every part
    of the rows where they are (the whole LazyFrame in one streaming pass, or each partition of
    a Dask DataFrame on its worker) and concatenates the results; ``n`` rows, ``class_counts``,
    and ``size``, the rows of the sample."""

    run: Callable[[Query], pl.DataFrame]
    n: int
    class_counts: dict[Any, int]
    size: int


def learn_rows(n_features: int) -> int:
    """The rows a fit with automatic settings learns on, with ``n_features`` feature columns:
    :data:`LEARN_CELLS` cells, at least :data:`MIN_LEARN_ROWS` rows.

    Example:
        >>> learn_rows(42), learn_rows(14), learn_rows(10_000)
        (1190476, 3571428, 10000)
    """
    return max(MIN_LEARN_ROWS, LEARN_CELLS // max(n_features, 1))


def draws(positions: np.ndarray, seed: int) -> np.ndarray:
    """Each row's draw: splitmix64 of its position plus the seed times the golden-ratio constant
    (uint64). The same position and seed give the same draw on every machine.

    Example:
        >>> draws(np.arange(3, dtype=np.uint64), 0).tolist() == draws(np.arange(3, dtype=np.uint64), 0).tolist()
        True
    """
    with np.errstate(over="ignore"):
        z = positions.astype(np.uint64) + np.uint64(seed % 2**64) * np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))


def _draw_expr(seed: int) -> pl.Expr:
    return pl.col(_ROW).map_batches(
        lambda s: pl.Series(draws(s.to_numpy(), seed), dtype=pl.UInt64), return_dtype=pl.UInt64, is_elementwise=True)


def source(data: Any, target: str, features: Any) -> tuple[Source | None, Any]:
    """The rows of ``data`` as a source when there are more than :func:`learn_rows` (``None``
    otherwise), and ``data`` as the fit should read it (a pandas or Arrow table converted once).
    A Dask DataFrame is always a source: its rows stay on its workers. A missing target column
    or a null label is refused as :func:`findrs.fit` refuses it on a frame in memory; other
    checks are the fit's, on the sample."""
    distributed = is_dask(data)
    if distributed:
        schema, n = pl.from_pandas(data._meta).collect_schema(), None  # its metadata: no partition read
    else:
        if isinstance(data, pl.LazyFrame):
            lf = data
            n = int(lf.select(pl.len()).collect(engine="streaming").item())
        else:
            data = as_polars(data)
            lf, n = data.lazy(), data.height
        schema = lf.collect_schema()

        def run(query: Query) -> pl.DataFrame:
            return query(lf, 0).collect(engine="streaming")

    cols = None if features is None else ([features] if isinstance(features, str) else list(features))
    size = learn_rows(len(schema) - (target in schema) if cols is None else len(cols))
    if n is not None and n <= size:
        return None, data
    refuse_labels(target, schema)
    if _ROW in schema or _DRAW in schema:
        raise FindRSInputError(f"the columns {_ROW!r} and {_DRAW!r} are findrs' own while it samples; rename them")
    refuse_missing_features(cols or (), schema)
    by_class: Query = lambda lf, at: lf.group_by(target).agg(pl.len())  # noqa: E731
    if distributed:
        # One pass counts each partition's classes, which also gives its rows and offset.
        n, run, counts = _dask_runner(data, by_class)
    else:
        counts = run(by_class)
    if cols is not None:
        keep = list(dict.fromkeys([*cols, target]))
        whole = run
        run = lambda query: whole(lambda lf, at: query(lf.select(keep), at))  # noqa: E731
    counts = counts.group_by(target).agg(pl.col("len").sum())
    keys, lens = counts.get_column(target).to_list(), counts.get_column("len").to_list()
    refuse_labels(target, schema, n_null=sum(c for k, c in zip(keys, lens) if k is None),
                  n_bad=sum(c for k, c in zip(keys, lens) if isinstance(k, float) and not math.isfinite(k)))
    return Source(run, n, dict(zip(keys, lens)), min(size, n)), data


def _part(part: Any, at: int, query: Query) -> pl.DataFrame:
    """``query`` on one partition of a Dask DataFrame (pandas, converted once), at its offset:
    what its worker computes and sends back."""
    return query(pl.from_pandas(part).lazy(), at).collect()


def _dask_runner(data: Any, by_class: Query) -> tuple[int, Callable[[Query], pl.DataFrame], pl.DataFrame]:
    """The rows of a Dask DataFrame, the ``run`` of a source over its partitions, and the result
    of ``by_class`` (each partition's class counts, a ``len`` column), from one pass that also
    gives each partition's rows and so its offset: partition ``i``'s rows are at the positions
    after the partitions before it, so the draws and the sample are those of the same rows in
    one Polars frame."""
    import dask

    parts = data.to_delayed()
    counted = dask.compute(*[dask.delayed(_part)(p, 0, by_class) for p in parts])
    lengths = [int(c.get_column("len").sum()) for c in counted]
    offsets = [0, *itertools.accumulate(lengths)][:-1]

    def run(query: Query) -> pl.DataFrame:
        results = dask.compute(*[dask.delayed(_part)(p, at, query) for p, at in zip(parts, offsets)])
        return pl.concat(results, how="vertical_relaxed")

    return sum(lengths), run, pl.concat(counted, how="vertical_relaxed")


def quotas(class_counts: dict[Any, int], n: int, size: int) -> dict[Any, int]:
    """The rows each class keeps in a sample of about ``size`` of the ``n`` rows.

    Example:
        >>> quotas({"a": 900_000, "b": 100_000}, 1_000_000, 1_000)
        {'a': 900, 'b': 100}
        >>> quotas({"a": 999_950, "b": 50}, 1_000_000, 1_000)
        {'a': 1000, 'b': 50}
    """
    return {k: min(c, max(round(size * c / n), MIN_CLASS_ROWS)) for k, c in class_counts.items()}


def sample(src: Source, target: str, seed: int) -> pl.DataFrame:
    """The stratified sample of ``src`` (module invariants): per class the :func:`quotas` rows
    of smallest draw, in the frame's order. One streaming pass keeps the rows whose draw falls
    under a class's rate with a margin of five standard deviations; a class short of its quota
    (improbable) is drawn again with twice the rate."""
    want = quotas(src.class_counts, src.n, src.size)
    margin = {k: q + 5 * q**0.5 + 20 for k, q in want.items()}
    while True:
        rate = {k: min(1.0, margin[k] / src.class_counts[k]) for k in want}
        limit = pl.lit(None, pl.UInt64)
        for k in want:
            cap = 2**64 - 1 if rate[k] >= 1.0 else int(rate[k] * 2**64)
            limit = pl.when(pl.col(target) == pl.lit(k)).then(pl.lit(cap, pl.UInt64)).otherwise(limit)
        got = src.run(lambda lf, at: lf.with_row_index(_ROW, offset=at).with_columns(_draw_expr(seed).alias(_DRAW))
                      .filter(pl.col(_DRAW) <= limit))
        have = dict(got.group_by(target).agg(pl.len()).iter_rows())
        short = [k for k in want if have.get(k, 0) < want[k]]
        if not short:
            break
        margin = {k: (2 * margin[k] if k in short else margin[k]) for k in want}
    keep = pl.col(target).replace_strict(list(want), list(want.values()), return_dtype=pl.UInt32)
    return (got.filter(pl.col(_DRAW).rank("ordinal").over(target) <= keep)
            .sort(_ROW).drop(_ROW, _DRAW))


def seed_of(random_state: int | None) -> int:
    """The seed of a fit on a sample: ``random_state``, or one drawn now (the model records it,
    so the same sample and model come back from ``random_state=model.params["random_state"]``)."""
    return secrets.randbits(63) if random_state is None else int(random_state)


def all_rows(model: Any, src: Source, target: str) -> dict[str, Any]:
    """The ``training["all_rows"]`` record of ``model`` (learned on a sample of ``src``): its
    counts on every row in one streaming pass (module docstring)."""
    rec: dict[str, Any] = {"rows": src.n}
    binary_rules = (model is _all_rows.holder(model) and model.target.classes is None and model.method == "find-rs"
                    and model._training.get("path") is not None)
    if model.target.classes is None:
        y = pl.col(target) == pl.lit(model.target.positive)
        rec["positives"] = int(sum(c for k, c in src.class_counts.items() if k == model.target.positive))
    else:
        y = None
        rec["class_counts"] = [int(src.class_counts.get(k, 0)) for k in model.target.classes]
    if not binary_rules:
        right = (model.predict_expr() == pl.col(target)).sum().alias("right")
        rec["correct"] = int(src.run(lambda lf, at: lf.select(right)).get_column("right").sum())
        return rec
    order = model._training["path"]["order"]
    n_rules, k = model.n_rules, len(order)
    # One pass: each row's fired rules (the core's plugin) plus one tag, n_rules + the position
    # in path order of its first fired rule (k: none), exploded and counted by label: the tags
    # below n_rules are the rules' covered rows, the others the path's.
    fired = model.explain_expr()
    first = fired.list.eval(pl.element().replace_strict(order, list(range(k)), return_dtype=pl.UInt32)).list.min()
    tagged = pl.concat_list([fired, (first.fill_null(k) + n_rules).cast(pl.UInt32)]).alias("tag")
    counts = src.run(lambda lf, at: lf.select(tagged, y.alias("y")).explode("tag").group_by("tag", "y").agg(pl.len()))
    table = np.zeros((n_rules + k + 1, 2), dtype=np.int64)
    for tag, label, c in counts.iter_rows():
        table[tag, int(bool(label))] += c
    fp, fn = table[n_rules:, 1], table[n_rules:, 0]
    negatives = src.n - rec["positives"]
    # A prefix of j rules predicts positive the rows whose first rule is among them.
    path = [int(fp[:j].sum() + negatives - fn[:j].sum()) for j in range(1, k + 1)]
    rec.update(correct=path[-1], path_correct=path, rule_positives=[int(x) for x in table[:n_rules, 1]],
               rule_negatives=[int(x) for x in table[:n_rules, 0]])
    return rec
