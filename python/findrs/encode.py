"""Feature encoders: Polars columns to dense ``uint32`` codes, the only form the Rust core sees.

A categorical column (string, categorical, enum, boolean, or an integer column with at most
``bins`` distinct values) gets codes ``0..k-1`` for its sorted distinct training values, null
being one more value of its own (semantics §1). A numeric column is cut into ``bins`` equal-width bins
between its training min and max, as scikit-learn's ``KBinsDiscretizer(strategy="uniform")``
does (values outside the range fall into the end bins); the occupied bins become the codes.
Any value never seen in training encodes to ``k`` (the "unseen" code, docs/semantics.md §2).

All the work is done by Polars expressions (one ``select`` for all columns), so no Python loop
runs per row, and ``FeatureEncoder.expr`` can be used inside lazy queries.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np
import polars as pl

from .errors import FindRSInputError

_CATEGORICAL_DTYPES = (pl.String, pl.Categorical, pl.Enum, pl.Boolean)
# scikit-learn's KBinsDiscretizer nudges values by this before digitizing (numeric stability
# at bin edges); doing the same keeps our bins identical to the paper's.
_RTOL, _ATOL = 1.0e-5, 1.0e-8


def dtype_family(dtype: pl.DataType) -> str:
    """A coarse dtype class used to check prediction frames against the training frame."""
    if dtype == pl.Boolean:
        return "boolean"
    if isinstance(dtype, (pl.Categorical, pl.Enum)) or dtype == pl.String:
        return "string"
    if dtype.is_integer():
        return "integer"
    if dtype.is_float() or isinstance(dtype, pl.Decimal):
        return "float"
    return str(dtype)


def _check_usable(name: str, dtype: pl.DataType) -> None:
    if isinstance(dtype, (pl.List, pl.Array, pl.Struct)) or dtype in (pl.Object, pl.Binary, pl.Null):
        raise FindRSInputError(
            f"feature column {name!r} has dtype {dtype}, which findrs cannot use as a feature; "
            f"leave it out with features=[...] or convert it, e.g. "
            f"pl.col({name!r}).cast(pl.String)"
        )
    if dtype.is_temporal():
        raise FindRSInputError(
            f"feature column {name!r} has temporal dtype {dtype}; convert it to a number "
            f"(e.g. pl.col({name!r}).dt.epoch('d')) or to a string before fitting"
        )


@dataclass(frozen=True)
class FeatureEncoder:
    """How one feature column becomes codes.

    Attributes:
        name: column name.
        dtype: the training column's dtype, as text.
        kind: ``"categorical"`` or ``"binned"``.
        values: categorical: the training values in code order (``None`` for null, last);
            binned: the occupied bin indices in code order (``None`` for null, last).
        edges: binned only: the ``bins + 1`` bin edges.

    Example:
        >>> import polars as pl
        >>> enc = FeatureEncoder.fit(pl.Series("a", ["y", "x", None]), bins=10)
        >>> enc.values, enc.encode(pl.Series("a", ["x", "z", None])).tolist()
        (('x', 'y', None), [0, 3, 2])
    """

    name: str
    dtype: str
    kind: str
    values: tuple[Any, ...]
    edges: tuple[float, ...] | None = None
    family: str = field(default="", compare=False)

    @property
    def domain_size(self) -> int:
        """Number of training codes (the unseen code is this number)."""
        return len(self.values)

    @property
    def has_null(self) -> bool:
        return len(self.values) > 0 and self.values[-1] is None

    @staticmethod
    def fit(s: pl.Series, bins: int) -> "FeatureEncoder":
        """Learns the encoder of one training column (see :func:`fit_transform`).

        Raises:
            FindRSInputError: the column's dtype cannot be a feature (list, struct, temporal...),
                or a numeric column has no finite value to bin.
        """
        return fit_transform(pl.DataFrame([s]), [s.name], bins)[0][0]

    def _bin_expr(self, x: pl.Expr) -> pl.Expr:
        """Bin index of a Float64 expression (null stays null), as KBinsDiscretizer computes it:
        ``digitize(x + eps, edges[1:])`` clipped to the last bin, i.e. the number of inner edges
        at or below the nudged value."""
        assert self.edges is not None
        inner = pl.Series(self.edges[1:-1], dtype=pl.Float64)
        # (An infinity stays itself: -inf + inf would be NaN.) Infinities fall in the end bins.
        nudged = pl.when(x.is_infinite()).then(x).otherwise(x + (_ATOL + _RTOL * x.abs()))
        index = pl.lit(inner).search_sorted(nudged, side="right").cast(pl.UInt32)
        return pl.when(x.is_null()).then(None).otherwise(index)

    def expr(self, col: pl.Expr | None = None) -> pl.Expr:
        """A Polars expression that encodes the column (``pl.col(name)`` by default) to codes."""
        col = pl.col(self.name) if col is None else col
        unseen = self.domain_size
        null_code = unseen - 1 if self.has_null else unseen
        known = [v for v in self.values if v is not None]
        if self.kind == "binned":
            key = self._bin_expr(_float(col))
        elif self.family == "string":
            # A non-strict Enum cast is a hash lookup that maps values outside the domain to
            # null (3-4x faster than replace_strict); a null input is told apart below.
            key = col.cast(pl.String)
            codes = key.cast(pl.Enum(known), strict=False).to_physical().cast(pl.UInt32).fill_null(unseen)
            return pl.when(key.is_null()).then(pl.lit(null_code, pl.UInt32)).otherwise(codes).alias(self.name)
        else:
            key = col
        codes = key.replace_strict(known, list(range(len(known))), default=unseen, return_dtype=pl.UInt32)
        return pl.when(key.is_null()).then(pl.lit(null_code, pl.UInt32)).otherwise(codes).alias(self.name)

    def encode(self, s: pl.Series) -> np.ndarray:
        """Codes of a Series as a contiguous ``uint32`` NumPy array."""
        return _to_codes(pl.DataFrame([s.alias(self.name)]).select(self.expr()).to_series())

    def label(self, code: int) -> str:
        """Readable text of one training code."""
        v = self.values[code]
        if v is None:
            return "null"
        if self.kind == "binned":
            lo, hi = self.bin_bounds(v)
            if lo is None:
                return f"< {_num(hi)}"
            if hi is None:
                return f">= {_num(lo)}"
            return f"[{_num(lo)}, {_num(hi)})"
        return _value_text(v)

    def bin_bounds(self, b: int) -> tuple[float | None, float | None]:
        """The interval of bin ``b`` (``None`` for an open end: bins are clipped at both ends)."""
        assert self.edges is not None
        n_bins = len(self.edges) - 1
        lo = None if b == 0 else self.edges[b]
        hi = None if b == n_bins - 1 else self.edges[b + 1]
        return lo, hi

    def json_value(self, code: int) -> Any:
        """The JSON form of a training code: the value, or ``[lo, hi]`` for a bin."""
        v = self.values[code]
        if self.kind == "binned" and v is not None:
            return list(self.bin_bounds(v))
        return v

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"name": self.name, "dtype": self.dtype, "kind": self.kind}
        if self.kind == "binned":
            d["edges"] = list(self.edges or ())
            d["bins"] = list(self.values)
        else:
            d["values"] = list(self.values)
        return d

    @staticmethod
    def from_dict(d: dict[str, Any]) -> "FeatureEncoder":
        kind = d["kind"]
        if kind == "binned":
            return FeatureEncoder(d["name"], d["dtype"], kind, tuple(d["bins"]), tuple(d["edges"]), "float")
        values = tuple(d["values"])
        known = [v for v in values if v is not None]
        if all(isinstance(v, bool) for v in known) and known:
            family = "boolean"
        elif all(isinstance(v, int) and not isinstance(v, bool) for v in known):
            family = "integer"
        else:
            family = "string"
        return FeatureEncoder(d["name"], d["dtype"], kind, values, None, family)


def _num(x: float) -> str:
    return f"{x:.4g}"


def _value_text(v: Any) -> str:
    if isinstance(v, str):
        plain = v and v.lower() != "null" and all(c.isalnum() or c in "_-." for c in v)
        return v if plain else repr(v)
    return str(v)


def _to_codes(s: pl.Series) -> np.ndarray:
    arr = s.to_numpy()
    return np.ascontiguousarray(arr, dtype=np.uint32)


def _float(col: pl.Expr) -> pl.Expr:
    x = col.cast(pl.Float64)
    return pl.when(x.is_nan()).then(None).otherwise(x)


def fit_transform(
    df: pl.DataFrame, features: Sequence[str], bins: int
) -> tuple[list[FeatureEncoder], list[np.ndarray]]:
    """Learns one encoder per feature column and encodes the training frame.

    Two Polars ``select`` calls do the work for every column at once: one for the domains
    (distinct values, min and max), one for the codes (dense ranks of categorical values, bin
    indices of numeric ones), so small frames fit in well under a millisecond of Polars time.

    Raises:
        FindRSInputError: see :meth:`FeatureEncoder.fit`.
    """
    schema = df.schema
    kinds: dict[str, str] = {}
    stats: list[pl.Expr] = []
    for name in features:
        dtype = schema[name]
        _check_usable(name, dtype)
        family = dtype_family(dtype)
        col = pl.col(name)
        if family in ("string", "boolean") or family == "integer":
            key = col.cast(pl.String) if family == "string" else col
            # Null, if present, sorts first; it is taken out below (dropping it here costs more).
            stats.append(key.unique().sort().implode().alias(f"{name}\0values"))
        if family in ("integer", "float"):
            # Bin edges span the finite values; infinities fall into the end bins.
            x = _float(col)
            x = x.filter(x.is_finite())
            stats += [x.min().alias(f"{name}\0min"), x.max().alias(f"{name}\0max")]
        kinds[name] = family
    row = df.select(stats).row(0, named=True)
    encoders: list[FeatureEncoder] = []
    code_exprs: list[pl.Expr] = []
    for name in features:
        family, dtype = kinds[name], schema[name]
        values = row.get(f"{name}\0values")
        has_null = bool(values) and values[0] is None
        if has_null:
            values = values[1:]
        categorical = family in ("string", "boolean") or (family == "integer" and len(values) <= bins)
        col = pl.col(name)
        if categorical:
            enc = FeatureEncoder(name, str(dtype), "categorical", tuple(values) + ((None,) if has_null else ()), None, family)
            if family == "string":
                # An Enum cast is a hash lookup: far cheaper than ranking strings.
                code = col.cast(pl.String).cast(pl.Enum(values)).to_physical().cast(pl.UInt32)
            else:
                code = (col.rank("dense") - 1).cast(pl.UInt32)
            code_exprs.append(code.fill_null(len(values)).alias(name))
        else:
            lo, hi = row[f"{name}\0min"], row[f"{name}\0max"]
            if lo is None or hi is None or not (math.isfinite(lo) and math.isfinite(hi)):
                raise FindRSInputError(
                    f"numeric feature column {name!r} has no finite value to bin; "
                    f"drop it with features=[...] or fill it, e.g. pl.col({name!r}).fill_null(0)"
                )
            edges = tuple(float(e) for e in np.linspace(lo, hi, bins + 1))
            enc = FeatureEncoder(name, str(dtype), "binned", (), edges, "float")
            code_exprs.append(enc._bin_expr(_float(col)).alias(name))
        encoders.append(enc)
    coded = df.select(code_exprs)
    codes: list[np.ndarray] = []
    for i, enc in enumerate(encoders):
        s = coded.get_column(enc.name)
        if enc.kind == "binned":
            # Occupied bins become the training values; their dense rank is the code.
            has_null = s.null_count() > 0
            b = s.to_numpy()
            valid = b[~np.isnan(b)].astype(np.int64) if has_null else b.astype(np.int64)
            occupied = np.unique(valid)
            code = np.full(len(b), len(occupied), dtype=np.uint32)
            if has_null:
                mask = ~np.isnan(b)
                code[mask] = np.searchsorted(occupied, b[mask].astype(np.int64))
            else:
                code[:] = np.searchsorted(occupied, valid)
            values = tuple(int(v) for v in occupied) + ((None,) if has_null else ())
            encoders[i] = FeatureEncoder(enc.name, enc.dtype, "binned", values, enc.edges, "float")
            codes.append(code)
        else:
            codes.append(_to_codes(s))
    return encoders, codes


def check_columns(df: pl.DataFrame | pl.LazyFrame, encoders: Sequence[FeatureEncoder]) -> None:
    """Raises a clear error when a feature is missing or its dtype changed since training."""
    schema = df.collect_schema() if isinstance(df, pl.LazyFrame) else df.schema
    for enc in encoders:
        if enc.name not in schema:
            raise FindRSInputError(
                f"feature column {enc.name!r} used by the model is missing from the frame; "
                f"its columns are {list(schema.names())}; add the column (or refit without it)"
            )
        dtype = schema[enc.name]
        fam = dtype_family(dtype)
        ok = fam == enc.family or (enc.kind == "binned" and fam in ("integer", "float"))
        if enc.kind == "categorical" and enc.family == "integer" and fam == "integer":
            ok = True
        if not ok:
            raise FindRSInputError(
                f"feature column {enc.name!r} was {enc.dtype} when the model was fitted but is "
                f"{dtype} now; cast it back, e.g. pl.col({enc.name!r}).cast(pl.{enc.dtype.split('(')[0]})"
            )


def encode_frame(df: pl.DataFrame, encoders: Sequence[FeatureEncoder]) -> list[np.ndarray]:
    """The code columns of a frame (one ``select``), as contiguous ``uint32`` arrays."""
    check_columns(df, encoders)
    coded = df.select([enc.expr() for enc in encoders])
    return [_to_codes(coded.get_column(enc.name)) for enc in encoders]
