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
and occupied bins of binned columns, and those are exactly what :func:`~findrs.encode.fit_encoders`
computes on the rows given (which columns are binned, the categorical values and the outer
edges, none of which depends on the labels, stay those of every training row); no held-out
row's label is among those rows.

Example:
    >>> import numpy as np, polars as pl
    >>> from findrs.encode import fit_encoders
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

from .encode import FeatureEncoder, _data_edges, _float, encode_frame
from .frames import column


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
    sub = df.filter(pl.Series(np.asarray(rows, dtype=bool)))
    y = np.asarray(labels)[np.asarray(rows, dtype=bool)]
    out = list(encoders)
    placed: list[tuple[int, FeatureEncoder]] = []
    for i, enc in enumerate(encoders):
        if enc.kind != "binned":
            continue
        assert enc.edges is not None
        edges = _data_edges(sub, enc.name, enc.family, enc.edges[0], enc.edges[-1], bins, how, y)
        placed.append((i, FeatureEncoder(enc.name, enc.dtype, "binned", (), edges, enc.family)))
    if not placed:
        return out
    # The bins the fold's training values occupy, ascending, null (if any) first.
    found = sub.select([e._bin_expr(_float(column(e.name))).unique().sort().implode().alias(e.name) for _, e in placed])
    row = found.row(0, named=True)
    for i, enc in placed:
        b = row[enc.name]
        has_null = bool(b) and b[0] is None
        known = b[1:] if has_null else b
        values = tuple(int(v) for v in known) + ((None,) if has_null else ())
        out[i] = FeatureEncoder(enc.name, enc.dtype, "binned", values, enc.edges, enc.family)
    return out


def fold_coder(
    df: pl.DataFrame, encoders: Sequence[FeatureEncoder], labels: np.ndarray, bins: int, how: str = "supervised",
) -> Callable[[np.ndarray], tuple[list[FeatureEncoder], list[np.ndarray]]]:
    """The per-fold encoding the cross-validation calls with each fold's training-row mask
    (:data:`findrs.model.FoldCoder`): :func:`refit_edges` on those rows, and every row of ``df``
    encoded with the result. A mask seen before is answered from a cache (the cross-validation
    of an encoding, the fit of its winner and the vote of §9.5 use the same folds).

    Example:
        >>> import numpy as np, polars as pl
        >>> from findrs.encode import fit_encoders
        >>> df = pl.DataFrame({"x": [1.0, 2, 3, 4, 10, 11, 12, 13]})
        >>> y = np.array([0, 0, 0, 1, 1, 1, 1, 1], dtype=bool)
        >>> enc = fit_encoders(df, ["x"], 10, bin_edges="supervised", labels=y)
        >>> coder = fold_coder(df, enc, y, 10)
        >>> coder(np.array([True, True, True, False, True, True, True, False]))[1][0].tolist()
        [0, 0, 0, 0, 1, 1, 1, 1]
    """
    cache: dict[bytes, tuple[list[FeatureEncoder], list[np.ndarray]]] = {}

    def code(rows: np.ndarray) -> tuple[list[FeatureEncoder], list[np.ndarray]]:
        key = hashlib.sha1(np.packbits(np.asarray(rows, dtype=bool)).tobytes()).digest()
        if key not in cache:
            enc = refit_edges(df, encoders, rows, labels, bins, how)
            cache[key] = (enc, encode_frame(df, enc))
        return cache[key]

    return code
