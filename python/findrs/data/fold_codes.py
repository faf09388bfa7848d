"""Each fold of the automatic cross-validation encoded on its own training rows
(docs/semantics.md §9.4).

Supervised bin edges (``bin_edges="supervised"``, docs/semantics.md §1.1) are placed on the
training labels. Placed once on every training row, they would let each fold's held-out labels
choose the cut points its model is scored with, and the cross-validation would score the
placement optimistically. So when the cross-validation chooses the placement, each fold's binned
columns get the edges and occupied bins a fit on every training row but the fold's held-out rows
computes, its held-out rows are encoded with them (a value in a bin none of those rows occupies
gets the unseen code, as at prediction), and the fold's model is scored on those codes.

Invariant: a fold's encoders differ from the encoders of every training row only in the edges
and occupied bins of binned columns, and those are exactly what :func:`~findrs.data.encode.fit_encoders`
computes on the rows given (which columns are binned, the categorical values and the outer
edges, none of which depends on the labels, stay those of every training row); no held-out
row's label is among those rows.

Example:
    >>> import numpy as np, polars as pl
    >>> from findrs.data.encode import fit_encoders
    >>> df = pl.DataFrame({"x": [1.0, 2, 3, 4, 10, 11, 12, 13]})
    >>> y = np.array([0, 0, 0, 1, 1, 1, 1, 1], dtype=bool)
    >>> enc = fit_encoders(df, ["x"], 10, bin_edges="supervised", labels=y)
    >>> enc[0].edges
    (1.0, 3.5, 13.0)
    >>> rows = np.array([True, True, True, False, True, True, True, False])  # without 4 and 13
    >>> refit_edges(df, enc, rows, y, 10)[0].edges
    (1.0, 6.5, 13.0)
"""

from __future__ import annotations

import hashlib
from typing import Callable, Sequence

import numpy as np
import polars as pl

from .encode import FeatureEncoder

from .edges import data_edges_of


def _values(df: pl.DataFrame, enc: FeatureEncoder) -> np.ndarray:
    """A binned column's values as doubles, null and NaN as NaN (what the binning reads)."""
    return df.get_column(enc.name).cast(pl.Float64).to_numpy().astype(np.float64, copy=False)


def _bins(x: np.ndarray, enc: FeatureEncoder) -> np.ndarray:
    """The bin of each finite or infinite value of ``x`` under ``enc``'s edges (NaN: any): the
    number of bin starts at or below it, exactly the binning's (``FeatureEncoder.bin_starts``;
    infinities fall in the end bins)."""
    return np.searchsorted(np.asarray(enc.bin_starts, dtype=np.float64), x, side="right")


def _refit(x: np.ndarray, enc: FeatureEncoder, rows: np.ndarray, labels: np.ndarray, bins: int,
           how: str) -> FeatureEncoder:
    """``enc`` (binned) with its edges placed ``how`` on ``x[rows]`` and the bins those rows
    occupy."""
    assert enc.edges is not None
    sub = x[rows]
    edges = data_edges_of(sub, enc.family, enc.edges[0], enc.edges[-1], bins, how, labels[rows])
    placed = FeatureEncoder(enc.name, enc.dtype, "binned", (), edges, enc.family)
    null = np.isnan(sub)
    occupied = np.unique(_bins(sub[~null], placed))
    values = tuple(int(b) for b in occupied) + ((None,) if null.any() else ())
    out = FeatureEncoder(enc.name, enc.dtype, "binned", values, edges, enc.family)
    out.__dict__["bin_starts"] = placed.bin_starts  # the cached property: it reads only edges and family
    return out


def _codes(x: np.ndarray, enc: FeatureEncoder) -> np.ndarray:
    """Every value's code under the binned ``enc`` (as :func:`~findrs.data.encode.encode_frame`
    gives it): its bin's code, the unseen code for a bin no training row occupies, and for null
    the null code (the unseen code when training held no null)."""
    assert enc.edges is not None
    unseen = enc.domain_size
    table = np.full(len(enc.edges) - 1, unseen, dtype=np.uint32)
    for code, b in enumerate(enc.values):
        if b is not None:
            table[b] = code
    null = np.isnan(x)
    out = table[np.minimum(_bins(np.where(null, 0.0, x), enc), len(table) - 1)]
    out[null] = unseen - 1 if enc.has_null else unseen
    return np.ascontiguousarray(out, dtype=np.uint32)


def refit_edges(
    df: pl.DataFrame, encoders: Sequence[FeatureEncoder], rows: np.ndarray, labels: np.ndarray, bins: int,
    how: str = "supervised",
) -> list[FeatureEncoder]:
    """``encoders`` with each binned column's edges (placed ``how``: ``"supervised"`` or
    ``"quantile"``) and occupied bins computed on the training ``rows`` only (a Boolean mask of
    ``df``'s rows; ``labels`` one per row of ``df``); every other encoder as it is. See the
    module docs for an example.

    Raises:
        ValueError: ``rows`` or ``labels`` is not one value per row of ``df``.
    """
    if len(rows) != df.height or len(labels) != df.height:
        raise ValueError(f"rows ({len(rows)}) and labels ({len(labels)}) must have one value per row ({df.height})")
    mask, y = np.asarray(rows, dtype=bool), np.asarray(labels)
    return [_refit(_values(df, e), e, mask, y, bins, how) if e.kind == "binned" else e for e in encoders]


def fold_coder(
    df: pl.DataFrame, encoders: Sequence[FeatureEncoder], codes: Sequence[np.ndarray], labels: np.ndarray, bins: int,
    how: str = "supervised",
) -> Callable[[np.ndarray], tuple[list[FeatureEncoder], list[np.ndarray]]]:
    """The per-fold encoding the cross-validation calls with the mask of the rows each fold may
    learn from (:data:`findrs.models.model.FoldCoder`): :func:`refit_edges` on those rows, and every
    row of ``df`` encoded with the result (``codes``: ``df`` under ``encoders``, whose columns
    that are not binned are reused). A mask seen before is answered from a cache (the
    cross-validation of an encoding, the fit of its winner and the vote of §9.5 use the same
    folds).

    Example:
        >>> import numpy as np, polars as pl
        >>> from findrs.data.encode import encode_frame, fit_encoders
        >>> df = pl.DataFrame({"x": [1.0, 2, 3, 4, 10, 11, 12, 13]})
        >>> y = np.array([0, 0, 0, 1, 1, 1, 1, 1], dtype=bool)
        >>> enc = fit_encoders(df, ["x"], 10, bin_edges="supervised", labels=y)
        >>> coder = fold_coder(df, enc, encode_frame(df, enc), y, 10)
        >>> coder(np.array([True, True, True, False, True, True, True, False]))[1][0].tolist()
        [0, 0, 0, 0, 1, 1, 1, 1]
    """
    y = np.asarray(labels)
    values = {i: _values(df, e) for i, e in enumerate(encoders) if e.kind == "binned"}
    cache: dict[bytes, tuple[list[FeatureEncoder], list[np.ndarray]]] = {}

    def code(rows: np.ndarray) -> tuple[list[FeatureEncoder], list[np.ndarray]]:
        mask = np.asarray(rows, dtype=bool)
        key = hashlib.sha1(np.packbits(mask).tobytes()).digest()
        if key not in cache:
            enc, out = list(encoders), list(codes)
            for i, x in values.items():
                enc[i] = _refit(x, encoders[i], mask, y, bins, how)
                out[i] = _codes(x, enc[i])
            cache[key] = (enc, out)
        return cache[key]

    return code
