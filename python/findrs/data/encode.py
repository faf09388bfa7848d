"""Feature encoders: Polars columns to dense ``uint32`` codes, the only form the Rust core sees.

A categorical column (string, categorical, enum, boolean, an integer column with at most
``bins`` distinct values, or a float column holding only 0 and 1) gets codes ``0..k-1`` for its
sorted distinct training values, null being one more value of its own (semantics §1). Any value
never seen in training encodes to ``k`` (the "unseen" code, docs/semantics.md §2). Another
numeric column is either

- *binned* (``numeric="bins"``): cut into ``bins`` equal-width bins between its training min and
  max, as scikit-learn's ``KBinsDiscretizer(strategy="uniform")`` does (values outside the range
  fall into the end bins); the occupied bins become the codes. An integer column's inner edges
  are the whole numbers at which that binning changes bin, so its integer values fall in the
  same bins and its rules read in whole numbers (docs/semantics.md §1); or
- an *interval* feature (``numeric="interval"``, docs/semantics.md §11): its ``d`` distinct
  training values ``v_0 < ... < v_{d-1}`` are kept, and a value gets the core's gap code: ``v_i``
  is ``2i + 1``, null (NaN included) ``2d + 1``; a value never seen in training gets the code of
  its place among them. With ``interval_ends="tight"`` that is its gap (``0`` below ``v_0``,
  ``2i + 2`` between ``v_i`` and ``v_{i+1}``, ``2d`` above), so an interval admits exactly the
  values between its end values; otherwise the value takes the code of the training value on
  its side of the *cut* ``c_i`` chosen in the middle of each gap (``x >= c_i`` goes up), so an
  interval's ends sit at the cuts.

All the work is done by Polars expressions, so no Python loop runs per row. There is one
encoder: :func:`fit_encoders` learns each column's domain, and the codes of every frame, the
training frame included, come from :meth:`FeatureEncoder.expr` (:func:`encode_frame` for
NumPy codes; the prediction expressions use it in lazy queries), so training and prediction
codes agree by construction.
"""

from __future__ import annotations

import functools
import math
import struct
import sys
import warnings
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np
import polars as pl

from ..errors import FindRSInputError, IdentifierWarning
from .frames import column

_CATEGORICAL_DTYPES = (pl.String, pl.Categorical, pl.Enum, pl.Boolean)
# scikit-learn's KBinsDiscretizer nudges values by this before digitizing (numeric stability
# at bin edges); doing the same keeps our bins identical to the paper's.
_RTOL, _ATOL = 1.0e-5, 1.0e-8
# Integers of smaller magnitude are exact doubles.
_EXACT_FLOAT = 2**53
# A string or integer feature with a distinct value in every one of at least this many rows
# draws an IdentifierWarning (a float measurement may well be all distinct; it draws none).
_IDENTIFIER_ROWS = 20


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
    if dtype == pl.Null:
        return "null"
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
        kind: ``"categorical"``, ``"binned"`` or ``"interval"``.
        values: categorical: the training values in code order (``None`` for null, last);
            binned: the occupied bin indices in code order (``None`` for null, last);
            interval: the distinct training values ascending (``None`` for null, last): value
            ``i`` has gap code ``2i + 1``.
        edges: binned only: the ``bins + 1`` bin edges (whole numbers inside for an integer
            column, see :attr:`bin_starts`).
        family: the training column's kind of values (``"string"``, ``"integer"``,
            ``"boolean"``, ``"float"``). A binned feature of family ``"integer"`` bins without
            the nudge, against its whole-number edges (docs/semantics.md §1).
        cuts: interval only, ``None`` for ``interval_ends="tight"``: the cut ``c_i`` between
            values ``i`` and ``i + 1`` (``v_i < c_i <= v_{i+1}``; a value ``x >= c_i`` is
            on the side of ``v_{i+1}``).

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
    cuts: tuple[float, ...] | None = None

    @property
    def domain_size(self) -> int:
        """Number of training codes (the unseen code is this number); for an interval feature
        its number of distinct non-null training values ``d`` (the core's domain size)."""
        if self.kind == "interval":
            return len(self.values) - self.has_null
        return len(self.values)


    @property
    def has_null(self) -> bool:
        return len(self.values) > 0 and self.values[-1] is None

    @staticmethod
    def fit(s: pl.Series, bins: int, numeric: str = "bins", interval_ends: str = "tight") -> "FeatureEncoder":
        """Learns the encoder of one training column (see :func:`fit_encoders`).

        Raises:
            FindRSInputError: the column's dtype cannot be a feature (list, struct, temporal...),
                or a numeric column has no finite value to bin, or an interval column holds an
                infinity.
        """
        return fit_encoders(pl.DataFrame([s]), [s.name], bins, numeric=numeric, interval_ends=interval_ends)[0]

    @property
    def whole_edges(self) -> bool:
        """A binned integer column: whole-number inner edges, compared without the nudge."""
        return self.kind == "binned" and self.family == "integer"

    @functools.cached_property
    def bin_starts(self) -> tuple[float, ...]:
        """Binned only: for each bin ``b >= 1``, the least number that falls into bin ``b`` or
        above (``bin_starts[b - 1]``), exactly: a finite value ``x`` is in bin
        ``#{b : bin_starts[b - 1] <= x}``. For an integer column these are its inner edges;
        otherwise the least double whose nudged value reaches the edge (a hair below it)."""
        assert self.edges is not None
        inner = self.edges[1:-1]
        if self.whole_edges:
            return tuple(inner)
        return tuple(nudged_threshold(e) for e in inner)

    def _bin_expr(self, x: pl.Expr) -> pl.Expr:
        """Bin index of a Float64 expression (null stays null). Float columns, as
        KBinsDiscretizer computes it: ``digitize(x + eps, edges[1:])`` clipped to the last bin,
        i.e. the number of inner edges at or below the nudged value; integer columns: the number
        of (whole-number) inner edges at or below the value."""
        assert self.edges is not None
        inner = pl.Series(self.edges[1:-1], dtype=pl.Float64)
        if self.whole_edges:
            index = pl.lit(inner).search_sorted(x, side="right").cast(pl.UInt32)
            return pl.when(x.is_null()).then(None).otherwise(index)
        # (An infinity stays itself: -inf + inf would be NaN.) Infinities fall in the end bins.
        nudged = pl.when(x.is_infinite()).then(x).otherwise(x + (_ATOL + _RTOL * x.abs()))
        index = pl.lit(inner).search_sorted(nudged, side="right").cast(pl.UInt32)
        return pl.when(x.is_null()).then(None).otherwise(index)

    def expr(self, col: pl.Expr | None = None) -> pl.Expr:
        """A Polars expression that encodes the column (the column named ``name`` by default) to codes."""
        if col is None:
            return self._column_expr
        return self._build_expr(col)

    @functools.cached_property
    def _column_expr(self) -> pl.Expr:
        # Built once per encoder: every prediction expression of a model reuses it.
        return self._build_expr(column(self.name))

    def _build_expr(self, col: pl.Expr) -> pl.Expr:
        # Each branch reads the column with an operation Polars refuses on dtypes the feature
        # does not accept (accepted_families), so a query on a re-typed column fails as eager
        # prediction does (check_columns), instead of computing on it.
        if self.kind == "interval":
            return self._interval_expr(col)
        unseen = self.domain_size
        null_code = pl.lit(unseen - 1 if self.has_null else unseen, pl.UInt32)
        known = [v for v in self.values if v is not None]
        if self.kind == "binned":
            # A lookup table from bin to code (unseen for an empty bin), indexed by the bin; a
            # null value has no bin and gets the null code.
            assert self.edges is not None
            table = np.full(len(self.edges) - 1, unseen, dtype=np.uint32)
            for code, b in enumerate(self.values):
                if b is not None:
                    table[b] = code
            bin_ = self._bin_expr(_float(col, numeric_only=True))
            return pl.lit(pl.Series(table)).gather(bin_).fill_null(null_code).alias(self.name)
        if self.family == "string":
            # A non-strict Enum cast is a hash lookup that maps values outside the domain to
            # null (3-4x faster than replace_strict); a null input is told apart below. Polars
            # refuses to cast numbers to an Enum (and booleans and dates). Older versions (to
            # 1.44) read numbers as the Enum's codes: there the cast runs under a comparison
            # with a string, which those versions refuse on numbers, and whose rows give the
            # cast's own value (a String cast first would turn 1 into "1" and compute).
            enum = pl.Enum(known)
            cast = col.cast(enum, strict=False)
            if not _enum_cast_refuses_numbers():
                empty = pl.lit("", pl.String)
                cast = pl.when(col == empty).then(empty.cast(enum, strict=False)).otherwise(cast)
            codes = cast.to_physical().cast(pl.UInt32).fill_null(unseen)
            if not self.has_null:
                return codes.alias(self.name)  # a null is an unseen value too
            return pl.when(col.is_null()).then(null_code).otherwise(codes).alias(self.name)
        if self.family == "boolean":
            # pl.when accepts Boolean predicates only.
            code = {v: pl.lit(i, pl.UInt32) for i, v in enumerate(known)}
            unseen_lit = pl.lit(unseen, pl.UInt32)
            return (
                pl.when(col.is_null()).then(null_code)
                .when(col).then(code.get(True, unseen_lit))
                .otherwise(code.get(False, unseen_lit))
                .alias(self.name)
            )
        new = pl.Series(range(len(known)), dtype=pl.UInt32)
        if self.exact_in_float:
            # Integers and floats alike as Float64, exact for these values: a whole-valued float
            # is that integer, any other float a value never seen, NaN null (a pandas integer
            # column that met a NaN). An integer beyond 2**53 rounds to no training value.
            key = _float(col, numeric_only=True)
            old = pl.Series(known, dtype=pl.Float64)
        else:
            # Integers beyond 2**53: compared exactly, as Int128 (any integer dtype fits).
            key = self._int128_key(col)
            old = pl.Series(known, dtype=pl.Int128)
        codes = key.replace_strict(old, new, default=unseen, return_dtype=pl.UInt32)
        return pl.when(key.is_null()).then(null_code).otherwise(codes).alias(self.name)

    def plugin_inputs(self, dtype: pl.DataType | None = None) -> tuple[pl.Expr, dict[str, Any] | None]:
        """What the plugin reads for this feature: an expression, and for a string feature what
        the plugin needs to encode it itself (docs/semantics.md §1-2).

        A string feature hands over its column as it is (String, Categorical or Enum: the plugin
        reads a Categorical's or an Enum's codes and categories without a cast) with
        ``{"values": training values in code order, "null": the code of a null, "unseen": the
        code of any other value}``. When the column's ``dtype`` is known (eager prediction) and
        is a Categorical of Polars' categories model (1.32 on), whose codes mean the same
        strings in the whole process, it hands over the column's codes instead, with
        ``"codes"``: the code of each training value in that Categorical (Polars exports a
        Categorical column by renumbering its codes row by row; the codes themselves need no
        work). Any other feature hands over :meth:`expr` (its codes, no nulls) and ``None``.

        Example:
            >>> import polars as pl
            >>> enc = FeatureEncoder.fit(pl.Series("a", ["y", "x", None]), bins=10)
            >>> expr, strings = enc.plugin_inputs()
            >>> expr.meta.output_name(), strings
            ('a', {'values': ['x', 'y'], 'null': 2, 'unseen': 3})

        Raises:
            Nothing: the plugin raises when run on a column the feature does not accept.
        """
        if self.kind != "categorical" or self.family != "string":
            return self.expr(), None
        if isinstance(dtype, pl.Categorical) and hasattr(pl, "Categories"):
            expr, strings = self._plugin_strings
            codes = pl.Series(strings["values"], dtype=dtype).to_physical().cast(pl.UInt32).to_list()
            return column(self.name).to_physical().alias(self.name), {**strings, "codes": codes}
        return self._plugin_strings

    @functools.cached_property
    def _plugin_strings(self) -> tuple[pl.Expr, dict[str, Any]]:
        unseen = self.domain_size
        known = [v for v in self.values if v is not None]
        return column(self.name).alias(self.name), {"values": known, "null": unseen - 1 if self.has_null else unseen, "unseen": unseen}

    def _interval_expr(self, col: pl.Expr) -> pl.Expr:
        """Gap codes (see the module docs): ``left + right`` of the value's two insertion points
        among the training values (``2i + 1`` on ``v_i``, ``2i`` in the gap below it), or with
        cuts ``2 (number of cuts <= x) + 1``; null and NaN get ``2d + 1``."""
        d = self.domain_size
        x = _float(col, numeric_only=True)
        if d == 0:
            code = pl.lit(0, pl.UInt32)
        elif self.cuts is None:
            values = pl.lit(pl.Series(self.values[:d], dtype=pl.Float64))
            code = values.search_sorted(x, side="left").cast(pl.UInt32) + values.search_sorted(x, side="right").cast(pl.UInt32)
        else:
            cuts = pl.lit(pl.Series(self.cuts, dtype=pl.Float64))
            code = cuts.search_sorted(x, side="right").cast(pl.UInt32) * 2 + 1
        return pl.when(x.is_null()).then(pl.lit(2 * d + 1, pl.UInt32)).otherwise(code).alias(self.name)

    def allows(self, codes: Sequence[int], unseen: bool) -> pl.Expr:
        """Boolean expression: whether the column's value has one of the training ``codes`` (or,
        with ``unseen``, is a value never seen in training), decided on the raw values, with
        no code lookup: ``expr().is_in(codes + [unseen code])`` computed as comparisons, which
        Polars evaluates at a fixed small cost however often a model repeats them (the
        compiled form, docs/semantics.md §2). It does not check the column's dtype: evaluate
        :meth:`expr` once beside it for that.

        Example:
            >>> enc = FeatureEncoder.fit(pl.Series("a", ["x", "y", None]), bins=10)
            >>> pl.DataFrame({"a": ["x", "z", None]}).select(enc.allows([0, 2], False)).to_series().to_list()
            [True, False, True]
        """
        allowed = set(int(c) for c in codes)
        null_code = self.domain_size - 1 if self.has_null else None
        # A null never seen in training is an unseen value.
        null_ok = (null_code in allowed) if null_code is not None else unseen
        col = column(self.name)
        if self.kind == "interval":
            return self._interval_allows(codes, col)
        if self.kind == "binned":
            assert self.edges is not None
            code_of = {b: c for c, b in enumerate(self.values) if b is not None}
            n_bins = len(self.edges) - 1

            def bin_ok(b: int) -> bool:
                return (code_of[b] in allowed) if b in code_of else unseen

            # A finite value is in the first bin b whose next bin starts above it (bin_starts:
            # exact thresholds, nudge included); only the bins where "allowed" changes are
            # tested. -inf falls in bin 0, +inf in the last, as in the encoder.
            starts = self.bin_starts
            x = col.cast(pl.Float64)
            test = pl.when(x.is_null() | x.is_nan()).then(pl.lit(null_ok))
            for b in range(n_bins - 1):
                if bin_ok(b) != bin_ok(b + 1):
                    test = test.when(x < starts[b]).then(pl.lit(bin_ok(b)))
            return test.otherwise(pl.lit(bin_ok(n_bins - 1)))
        # (The caller checks the column's dtype once per feature: expressions.py, _checked.)
        missing = col.is_null()
        if self.family == "string":
            key = col.cast(pl.String)
        elif self.family == "boolean":
            key = col
        elif self.exact_in_float:
            key = col.cast(pl.Float64)
            missing = missing | key.is_nan()
        else:
            key = self._int128_key(col)
            missing = key.is_null()
        dtype = {"string": pl.String, "boolean": pl.Boolean}.get(self.family, pl.Float64 if self.exact_in_float else pl.Int128)
        if unseen:
            listed, hit = [k for k in range(self.domain_size) if k not in allowed], False
        else:
            listed, hit = sorted(allowed), True
        values = pl.Series([self.values[k] for k in listed if self.values[k] is not None], dtype=dtype)
        if values.len() == 0:
            test = pl.lit(not hit)
        elif values.len() == 1:
            one = pl.lit(values[0], dtype)  # typed as the key: an Int128 value beyond Int64 too
            test = key == one if hit else key != one
        else:
            # The values as one list of the key's dtype (a Python list's dtype is inferred from
            # its first values: Int64 for [1, 2**100], a TypeError).
            inside = key.is_in(values.implode())
            test = inside if hit else ~inside
        return pl.when(missing).then(pl.lit(null_ok)).otherwise(test)

    def _interval_allows(self, codes: Sequence[int], col: pl.Expr) -> pl.Expr:
        """An interval constraint (the view's codes: its first and last values' indices, then
        ``d`` when null passes) on the raw values: the ends of :meth:`interval_bounds`."""
        d = self.domain_size
        null_ok = d in codes
        known = [int(k) for k in codes if k != d]
        x = col.cast(pl.Float64)
        missing = x.is_null() | x.is_nan()
        if not known:
            return pl.when(missing).then(pl.lit(null_ok)).otherwise(pl.lit(False))
        lower, lower_closed, upper, upper_closed = self.interval_bounds(min(known), max(known))
        tests = []
        if lower is not None:
            tests.append(x >= lower if lower_closed else x > lower)
        if upper is not None:
            tests.append(x <= upper if upper_closed else x < upper)
        inside = pl.all_horizontal(tests) if len(tests) > 1 else (tests[0] if tests else pl.lit(True))
        return pl.when(missing).then(pl.lit(null_ok)).otherwise(inside)

    @property
    def exact_in_float(self) -> bool:
        """A categorical feature compared as Float64, exactly: a 0/1 float one, or an integer one
        whose training values are exact doubles (``|v| < 2**53``); another integer categorical
        feature is compared as Int128."""
        if self.kind != "categorical":
            return False
        if self.family == "float":
            return True
        return self.family == "integer" and all(abs(v) < _EXACT_FLOAT for v in self.values if v is not None)

    def _int128_key(self, col: pl.Expr) -> pl.Expr:
        """The column's values as Int128 for exact comparison with training integers beyond
        2**53: null for null and NaN, a value no training value has for a float that is not a
        whole number (it is never seen), the integer itself otherwise. ``abs`` makes Polars
        refuse a column that is not numeric (Boolean, String, temporal...) with an error."""
        known = {v for v in self.values if v is not None}
        never = next(v for v in range(-(2**127), -(2**127) + len(known) + 1) if v not in known)
        as_float = col.cast(pl.Float64)
        as_int = col.cast(pl.Int128, strict=False)
        return (
            pl.when(col.abs().is_null() | as_float.is_nan()).then(pl.lit(None, pl.Int128))
            .when(as_int.cast(pl.Float64) == as_float).then(as_int)
            .otherwise(pl.lit(never, pl.Int128))
        )

    @property
    def accepted_families(self) -> tuple[str, ...]:
        """The dtype families (:func:`dtype_family`) a prediction column may have: a numeric
        feature (binned, interval, 0/1 float, or integer: a whole-valued float is that integer)
        integers and floats, a string feature strings (or an all-null Null column), a Boolean
        one Booleans."""
        if self.kind in ("binned", "interval") or self.family in ("integer", "float"):
            return ("integer", "float")
        if self.family == "string":
            return ("string", "null")  # a Null-dtype column: every value null
        return (self.family,)

    def encode(self, s: pl.Series) -> np.ndarray:
        """Codes of a Series as a contiguous ``uint32`` NumPy array."""
        return _to_codes(pl.DataFrame([s.alias(self.name)]).select(self.expr()).to_series())

    def label(self, code: int) -> str:
        """Readable text of one training code (a bin as ``[lo, hi)``, ``< hi`` or ``>= lo``,
        its edges rounded as :func:`edge_texts` does)."""
        v = self.values[code]
        if v is None:
            return "null"
        if self.kind == "interval" or (self.kind == "categorical" and self.family == "float"):
            return format_number(v, None)
        if self.kind == "binned":
            texts = edge_texts(self)
            n_bins = len(texts) - 1
            if v == 0 and n_bins == 1:
                return "any number"
            if v == 0:
                return f"< {texts[1]}"
            if v == n_bins - 1:
                return f">= {texts[v]}"
            return f"[{texts[v]}, {texts[v + 1]})"
        return _value_text(v)

    def interval_bounds(self, lo: int, hi: int) -> tuple[float | None, bool, float | None, bool]:
        """What an interval constraint allowing the training values ``lo..hi`` (indices into
        :attr:`values`) admits: ``(lower, lower_closed, upper, upper_closed)``, ``None`` for an
        open end (the interval reaches the first or last training value). Without cuts the ends
        are the values themselves (closed); with cuts, ``[c_{lo-1}, c_hi)``.

        Example:
            >>> import polars as pl
            >>> enc = FeatureEncoder.fit(pl.Series("x", [1.0, 2.0, 4.0, 8.0]), 10, "interval", "midpoint")
            >>> enc.interval_bounds(1, 2), enc.interval_bounds(1, 3)
            ((1.5, True, 6.0, False), (1.5, True, None, False))
        """
        assert self.kind == "interval"
        d = self.domain_size
        if self.cuts is None:
            lower = None if lo == 0 else float(self.values[lo])
            upper = None if hi == d - 1 else float(self.values[hi])
            return lower, True, upper, True
        lower = None if lo == 0 else self.cuts[lo - 1]
        upper = None if hi == d - 1 else self.cuts[hi]
        return lower, True, upper, False

    def interval_label(self, lo: int, hi: int) -> str:
        """The values ``lo..hi`` of an interval feature as one interval: ``[2.31, 5.07]``,
        ``(-inf, 5.07]``, ``[2.3, 5.1)``..."""
        lower, lc, upper, uc = self.interval_bounds(lo, hi)
        left = "(-inf" if lower is None else ("[" if lc else "(") + format_number(lower, None)
        right = "inf)" if upper is None else format_number(upper, None) + ("]" if uc else ")")
        return f"{left}, {right}"

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
        """The encoder as plain data (an entry of a model file's ``features``)."""
        d: dict[str, Any] = {"name": self.name, "dtype": self.dtype, "family": self.family, "kind": self.kind}
        if self.kind == "binned":
            d["edges"] = list(self.edges or ())
            d["bins"] = list(self.values)
        else:
            d["values"] = list(self.values)
        if self.kind == "interval":
            d["cuts"] = None if self.cuts is None else list(self.cuts)
        return d

    @staticmethod
    def from_dict(d: Any, *, legacy: bool = False) -> "FeatureEncoder":
        """An encoder from :meth:`to_dict`'s output, checked: a name, a dtype, a known family and
        kind, distinct values of the family (null only last), finite ascending bin edges and
        occupied bins within them. ``legacy``: a version-1 entry, which has no ``family``
        (it is inferred from the values, as version 1 did).

        Raises:
            FindRSInputError: what is wrong, naming the feature.
        """
        if not isinstance(d, dict):
            raise FindRSInputError(f"a feature must be an object, got {d!r}")
        name = d.get("name")
        if not isinstance(name, str) or "\0" in name:
            raise FindRSInputError(f"a feature's name must be a string without NUL characters, got {name!r}")

        def bad(what: str) -> FindRSInputError:
            return FindRSInputError(f"feature {name!r}: {what}")

        kind = d.get("kind")
        if legacy and kind == "interval":
            raise bad("version 1 has no interval features")
        keys = {"name", "dtype", "kind"} | ({"edges", "bins"} if kind == "binned" else {"values"}) | (set() if legacy else {"family"})
        if kind == "interval":
            keys.add("cuts")
        if set(d) != keys:
            raise bad(f"has the fields {sorted(d)}, expected {sorted(keys)}")
        dtype = d["dtype"]
        if not isinstance(dtype, str):
            raise bad(f"dtype must be a string, got {dtype!r}")
        if kind == "binned":
            edges, bins = d["edges"], d["bins"]
            if not isinstance(edges, list) or len(edges) < 2 or not all(_is_finite_number(e) for e in edges):
                raise bad(f"edges must be a list of at least 2 finite numbers, got {edges!r}")
            if any(a > b for a, b in zip(edges, edges[1:])):
                raise bad(f"edges must be ascending, got {edges!r}")
            n_bins = len(edges) - 1
            known = bins[:-1] if isinstance(bins, list) and bins and bins[-1] is None else bins
            if not isinstance(known, list) or not all(_is_int(b) and 0 <= b < n_bins for b in known):
                raise bad(f"bins must list bin indices from 0 to {n_bins - 1} (then null), got {bins!r}")
            if any(a >= b for a, b in zip(known, known[1:])):
                raise bad(f"bins must be ascending and distinct, got {bins!r}")
            family = "float" if legacy else d["family"]
            if family not in ("float", "integer"):
                raise bad(f"a binned feature's family is 'float' or 'integer', got {family!r}")
            if family == "integer" and not all(float(e).is_integer() for e in edges[1:-1]):
                raise bad(f"an integer column's inner bin edges are whole numbers, got {edges!r}")
            return FeatureEncoder(name, dtype, kind, tuple(bins), tuple(float(e) for e in edges), family)
        if kind == "interval":
            return _interval_from_dict(name, dtype, d, bad)
        if kind != "categorical":
            raise bad(f"kind must be 'categorical', 'binned' or 'interval', got {kind!r}")
        values = d["values"]
        if not isinstance(values, list):
            raise bad(f"values must be a list, got {values!r}")
        known = values[:-1] if values and values[-1] is None else values
        if legacy:
            if known and all(isinstance(v, bool) for v in known):
                family = "boolean"
            elif all(_is_int(v) for v in known):
                family = "integer"
            else:
                family = "string"
        else:
            family = d["family"]
        check = {
            "string": lambda v: isinstance(v, str),
            "integer": _is_int,
            "boolean": lambda v: isinstance(v, bool),
            "float": lambda v: _is_finite_number(v) and v in (0, 1),
        }
        if not isinstance(family, str) or family not in check:
            raise bad(f"a categorical feature's family is 'string', 'integer', 'boolean' or 'float', got {family!r}")
        wrong = [v for v in known if not check[family](v)]
        if wrong:
            what = "values (0 and 1 only)" if family == "float" else "values"
            raise bad(f"its {family} {what} include {wrong[0]!r}")
        if family == "float":
            known = [float(v) for v in known]
            values = known + values[len(known) :]
            if known != sorted(known):
                raise bad(f"its values must be ascending, got {values!r}")
        if len(set(known)) != len(known):
            raise bad(f"its values repeat: {values!r}")
        if not values:
            raise bad("it has no value")
        return FeatureEncoder(name, dtype, kind, tuple(values), None, family)


def _interval_from_dict(name: str, dtype: str, d: dict[str, Any], bad: Any) -> FeatureEncoder:
    """An interval encoder from its dict, checked: finite values of the family, strictly
    ascending, then null; cuts ``None`` or one per gap, each in ``(v_i, v_{i+1}]``."""
    family, values, cuts = d["family"], d["values"], d["cuts"]
    if family not in ("integer", "float"):
        raise bad(f"an interval feature's family is 'integer' or 'float', got {family!r}")
    if not isinstance(values, list):
        raise bad(f"values must be a list, got {values!r}")
    known = values[:-1] if values and values[-1] is None else values
    ok = _is_int if family == "integer" else _is_finite_number
    wrong = [v for v in known if not ok(v) or (family == "integer" and abs(v) > 2**53)]
    if wrong:
        raise bad(f"its {family} values include {wrong[0]!r}")
    if any(a >= b for a, b in zip(known, known[1:])):
        raise bad(f"its values must be strictly ascending, got {values!r}")
    if not values:
        raise bad("it has no value")
    if cuts is not None:
        n = max(len(known) - 1, 0)
        if not isinstance(cuts, list) or len(cuts) != n or not all(_is_finite_number(c) for c in cuts):
            raise bad(f"cuts must be null or a list of {n} finite numbers, got {cuts!r}")
        if not all(a < c <= b for a, c, b in zip(known, cuts, known[1:])):
            raise bad(f"each cut must lie after its value and at or before the next, got values {known!r} and cuts {cuts!r}")
        cuts = tuple(float(c) for c in cuts)
    values = [v if family == "integer" else float(v) for v in known] + values[len(known) :]
    return FeatureEncoder(name, dtype, "interval", tuple(values), None, family, cuts)


def cut_between(a: float, b: float) -> float:
    """A cut between neighbouring training values ``a < b`` (see :func:`cuts_between`).

    Example:
        >>> cut_between(5.07, 5.13), cut_between(30, 32), cut_between(30, 31), cut_between(0.11, 0.9)
        (5.1, 31.0, 30.5, 0.5)
    """
    return float(cuts_between(np.array([a, b], dtype=np.float64))[0])


def cuts_between(values: np.ndarray) -> np.ndarray:
    """The cuts between neighbouring values of an ascending array (``len(values) - 1`` of them):
    in each gap ``(a, b)``, the number with the fewest significant digits in the middle half
    of the gap, ``[m - (b - a)/4, m + (b - a)/4]`` with ``m`` the midpoint (of those, the
    midpoint rounded to that many digits, which is the nearest to ``m``), so a rule's printed
    end is short and exact; ``m`` itself when no shorter number lies there; ``b`` when ``a``
    and ``b`` are neighbouring doubles. Always ``a < cut <= b``. Vectorized: one pass per
    number of digits (1 to 17)."""
    v = np.asarray(values, dtype=np.float64)
    a, b = v[:-1], v[1:]
    mid = a / 2 + b / 2
    quarter = b / 4 - a / 4
    lo, hi = mid - quarter, mid + quarter
    out = np.where((a < mid) & (mid <= b), mid, b)
    todo = np.arange(len(mid))
    with np.errstate(all="ignore"):
        exp = np.floor(np.log10(np.abs(np.where(mid == 0, 1.0, mid)))).astype(np.int64)
        for digits in range(1, 18):
            m, k = mid[todo], exp[todo] - digits + 1  # m rounded to a multiple of 10^k
            up = np.power(10.0, np.abs(k).astype(np.float64))
            c = np.where(k >= 0, np.round(m / up) * up, np.round(m * up) / up)
            # Beyond 10^22 powers of ten are inexact: round those (rare) through text.
            for i in np.flatnonzero(np.abs(k) > 22):
                c[i] = float(f"{m[i]:.{digits - 1}e}")
            ok = np.isfinite(c) & (lo[todo] <= c) & (c <= hi[todo]) & (a[todo] < c) & (c <= b[todo])
            out[todo[ok]] = c[ok]
            todo = todo[~ok]
            if len(todo) == 0:
                break
    return out


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_finite_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def nudged(x: float) -> float:
    """KBinsDiscretizer's nudged value ``x + (1e-8 + 1e-5 |x|)`` in double precision, as the
    encoder's Polars expression computes it."""
    return x + (_ATOL + _RTOL * abs(x))


def _order_key(x: float) -> int:
    """An integer key with the order of the doubles (finite, -0.0 as 0.0)."""
    (bits,) = struct.unpack("<q", struct.pack("<d", x + 0.0))
    return bits if bits >= 0 else -(bits & 0x7FFF_FFFF_FFFF_FFFF)


def _from_key(k: int) -> float:
    bits = k if k >= 0 else (-k) | -0x8000_0000_0000_0000
    return struct.unpack("<d", struct.pack("<q", bits))[0]


@functools.lru_cache(maxsize=4096)  # pure; the same edges recur across folds and candidates
def nudged_threshold(edge: float) -> float:
    """The least double ``t`` with ``nudged(t) >= edge``: a finite value is at or above the edge
    after the nudge exactly when it is at least ``t`` (``nudged`` is non-decreasing)."""
    edge = float(edge)
    least = -sys.float_info.max
    if nudged(least) >= edge:
        return least  # every finite value reaches the edge (an edge within 1e-5 of -1.8e308)
    lo = _order_key(max(edge - (2.0e-5 * abs(edge) + 1.0e-7), least))  # nudged(lo) < edge
    hi = _order_key(edge)  # nudged(edge) >= edge
    assert nudged(_from_key(lo)) < edge <= nudged(_from_key(hi))
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if nudged(_from_key(mid)) >= edge:
            hi = mid
        else:
            lo = mid
    return _from_key(hi)


def whole_edge(edge: float) -> float:
    """The least whole number whose nudged value reaches ``edge``: the integers the paper's
    binning puts at or above ``edge`` are exactly those at least this one."""
    return float(math.ceil(nudged_threshold(edge)))


def format_number(x: float, digits: int | None = 4) -> str:
    """``x`` for reading: a whole number as an integer; otherwise ``digits`` significant digits
    (``None``: the shortest text that reads back as ``x``), without an exponent unless the number
    is very small or very large."""
    x = float(x)
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    if x.is_integer() and abs(x) < 1e16:
        return str(int(x))
    if digits is None:
        return repr(x)
    if x != 0 and not 1e-4 <= abs(x) < 1e15:
        return f"{x:.{digits}g}"
    return np.format_float_positional(x, precision=digits, unique=False, fractional=False, trim="-")


def edge_texts(enc: "FeatureEncoder") -> tuple[str, ...]:
    """A binned feature's edges for reading: whole numbers for an integer column; otherwise
    4 significant digits, more where two inner edges would read the same."""
    return _edge_texts(enc.edges or (), enc.whole_edges)


@functools.lru_cache(maxsize=4096)
def _edge_texts(edges: tuple[float, ...], whole: bool) -> tuple[str, ...]:
    if whole:
        return tuple(format_number(e) for e in edges)
    for digits in range(4, 18):
        texts = tuple(format_number(e, digits) for e in edges)
        inner = texts[1:-1]
        if all(a != b for a, b, x, y in zip(inner, inner[1:], edges[1:-1], edges[2:-1]) if x != y):
            return texts
    return tuple(format_number(e, None) for e in edges)


def _value_text(v: Any) -> str:
    if isinstance(v, str):
        plain = v and v.lower() != "null" and all(c.isalnum() or c in "_-." for c in v)
        return v if plain else repr(v)
    return str(v)


def _to_codes(s: pl.Series) -> np.ndarray:
    arr = s.to_numpy()
    return np.ascontiguousarray(arr, dtype=np.uint32)


def _float(col: pl.Expr, *, numeric_only: bool = False) -> pl.Expr:
    """The column as Float64, NaN as null. ``numeric_only``: Polars refuses a column that is
    not numeric (``abs`` is defined on numbers only; it is null exactly where the value is)."""
    x = col.cast(pl.Float64)
    missing = x.is_nan() | col.abs().is_null() if numeric_only else x.is_nan()
    return pl.when(missing).then(None).otherwise(x)


@functools.lru_cache(maxsize=1)
def _enum_cast_refuses_numbers() -> bool:
    """Whether this Polars refuses to cast integers to an Enum (2.0 on does; older versions
    read them as the Enum's codes)."""
    try:
        pl.Series([0]).cast(pl.Enum(["a"]), strict=False)
    except Exception:  # noqa: BLE001 - the refusal is what we probe for
        return True
    return False


def occupied_bins(edges: Sequence[float], occupied: Sequence[int]) -> tuple[tuple[float, ...], list[int]]:
    """``edges`` without the inner edges between two bins no training value occupies, and the
    occupied bins' indices among the bins left: every value falls in an occupied bin exactly as
    before, and any other value in a bin none occupies (an unseen value, as before), so the
    codes are the same, but bins beyond the column's distinct values cost nothing (1,000,000
    bins over 20 rows made to_sql take 25 s and to_json 19 MB).

    Example:
        >>> occupied_bins((0.0, 1.0, 2.0, 3.0, 4.0, 5.0), [0, 4])
        ((0.0, 1.0, 4.0, 5.0), [0, 2])
    """
    taken = set(occupied)
    kept = [0] + [i for i in range(1, len(edges) - 1) if i - 1 in taken or i in taken] + [len(edges) - 1]
    bin_of = {b: j for j, b in enumerate(kept[:-1])}  # an occupied bin starts at a kept edge
    return tuple(edges[i] for i in kept), [bin_of[b] for b in occupied]


def _edges(lo: float, hi: float, bins: int) -> tuple[float, ...]:
    """``bins + 1`` equal-width edges from ``lo`` to ``hi``: NumPy's ``linspace``, as
    KBinsDiscretizer computes them. When ``hi - lo`` overflows a double (values near +-1e308)
    they are computed from the halves and doubled, which is exact (a power of two) and gives
    ``linspace``'s own values wherever ``linspace`` does not overflow."""
    # (linspace may overflow on its way to the last edge, which it then sets to its stop.)
    with np.errstate(over="ignore", invalid="ignore"):
        edges = np.linspace(lo, hi, bins + 1)
        if not (math.isfinite(hi - lo) and np.isfinite(edges).all()):
            edges = np.linspace(lo / 2.0, hi / 2.0, bins + 1) * 2.0
    return tuple(float(e) for e in edges)


def supervised_cuts(x: np.ndarray, y: np.ndarray, max_cuts: int) -> list[float]:
    """Fayyad and Irani's entropy cuts of one numeric column, at most ``max_cuts`` of them
    (docs/semantics.md §1.1): ``x`` the finite training values, ``y`` their class codes
    (``0..k-1``). A segment is split at the boundary between two distinct values that minimizes
    the weighted class entropy of its halves, when the split passes the MDL test of Fayyad and
    Irani (1993); of the accepted splits, those that lower the total entropy most are made
    first (best first), until ``max_cuts`` cuts. A cut is the midpoint of the two values it
    separates. Returns the cuts ascending (none when no split passes the test).

    Example:
        >>> x = np.array([1.0, 2, 3, 4, 10, 11, 12, 13])
        >>> y = np.array([0, 0, 0, 0, 1, 1, 1, 1])
        >>> supervised_cuts(x, y, 5)
        [7.0]

    Raises:
        ValueError: ``x`` and ``y`` differ in length.
    """
    if len(x) != len(y):
        raise ValueError(f"x has {len(x)} values and y {len(y)}")
    if max_cuts < 1 or len(x) < 2:
        return []
    order = np.argsort(x, kind="stable")
    xs = np.asarray(x, dtype=np.float64)[order]
    _, yc = np.unique(np.asarray(y)[order], return_inverse=True)
    k = int(yc.max()) + 1 if len(yc) else 1
    onehot = np.zeros((len(xs), k), dtype=np.float64)
    onehot[np.arange(len(xs)), yc] = 1.0
    cum = np.vstack([np.zeros((1, k)), np.cumsum(onehot, axis=0)])  # cum[i]: counts of xs[:i]

    def entropy(counts: np.ndarray) -> np.ndarray:
        n = counts.sum(axis=-1, keepdims=True)
        with np.errstate(divide="ignore", invalid="ignore"):
            p = np.where(n > 0, counts / np.where(n > 0, n, 1), 0.0)
            logs = np.where(p > 0, np.log2(np.where(p > 0, p, 1)), 0.0)
        return -(p * logs).sum(axis=-1)

    def best_split(a: int, b: int) -> tuple[float, int] | None:
        # Rows a..b-1; candidate split positions i (a < i < b) where the value changes.
        pos = np.nonzero(xs[a + 1 : b] != xs[a : b - 1])[0] + a + 1
        if len(pos) == 0:
            return None
        total = cum[b] - cum[a]
        n = b - a
        left = cum[pos] - cum[a]
        right = total - left
        nl, nr = pos - a, b - pos
        e_left, e_right = entropy(left), entropy(right)
        weighted = (nl * e_left + nr * e_right) / n
        j = int(np.argmin(weighted))  # first minimum: deterministic
        i = int(pos[j])
        ent = float(entropy(total))
        gain = ent - float(weighted[j])
        kk = int((total > 0).sum())
        k1, k2 = int((left[j] > 0).sum()), int((right[j] > 0).sum())
        delta = math.log2(3**kk - 2) - (kk * ent - k1 * float(e_left[j]) - k2 * float(e_right[j]))
        if gain <= (math.log2(n - 1) + delta) / n:
            return None
        return gain * n, i

    import heapq

    heap: list[tuple[float, int, int, int]] = []
    first = best_split(0, len(xs))
    if first is not None:
        heap.append((-first[0], 0, len(xs), first[1]))
    cuts: list[float] = []
    while heap and len(cuts) < max_cuts:
        _, a, b, i = heapq.heappop(heap)
        cuts.append(float(xs[i - 1] / 2 + xs[i] / 2))
        for lo, hi in ((a, i), (i, b)):
            found = best_split(lo, hi)
            if found is not None:
                heapq.heappush(heap, (-found[0], lo, hi, found[1]))
    return sorted(cuts)


def _data_edges(
    df: pl.DataFrame, name: str, family: str, lo: float, hi: float, bins: int, how: str, labels: np.ndarray | None
) -> tuple[float, ...]:
    """Edges ``(lo, inner..., hi)`` that follow the training values of one column
    (``bin_edges="quantile"`` or ``"supervised"``, docs/semantics.md §1.1): distinct inner edges
    strictly inside ``(lo, hi]``, placed so that each training value falls on the side it was
    meant to after the binning's nudge; whole numbers for an integer column."""
    return data_edges_of(df.get_column(name).cast(pl.Float64).to_numpy(), family, lo, hi, bins, how, labels)


def data_edges_of(
    x: np.ndarray, family: str, lo: float, hi: float, bins: int, how: str, labels: np.ndarray | None
) -> tuple[float, ...]:
    """:func:`_data_edges` of one column's values ``x`` (as doubles, null as NaN; ``labels`` one
    per value)."""
    finite = np.isfinite(x)
    values = x[finite]
    if how == "quantile":
        at = np.arange(1, bins) / bins
        with np.errstate(over="ignore", invalid="ignore"):
            qs = np.quantile(values, at, method="linear")
        if not np.isfinite(qs).all():
            # Values spanning more than the largest double (e.g. +-1.79e308): the interpolation's
            # difference overflowed. The quantiles of the halves, doubled, within the values.
            with np.errstate(over="ignore"):
                halves = np.quantile(values / 2, at, method="linear") * 2
            qs = np.where(np.isfinite(qs), qs, np.clip(halves, values.min(), values.max()))
        inner = [float(q) for q in qs]
    else:
        if labels is None or len(labels) != len(x):
            raise FindRSInputError("bin_edges='supervised' needs the training labels of every row")
        inner = supervised_cuts(values, np.asarray(labels)[finite], bins - 1)
    out: list[float] = []
    distinct = np.unique(values)
    for e in inner:
        if family == "integer":
            e = float(math.ceil(e))
        else:
            # The least training value at or above the edge must stay there after the nudge, and
            # the greatest below it below: the edge moves to just above the lower one's nudge.
            j = int(np.searchsorted(distinct, e, side="left"))
            if 0 < j < len(distinct) and nudged(float(distinct[j - 1])) >= e:
                e = max(e, float(np.nextafter(nudged(float(distinct[j - 1])), np.inf)))
                if nudged(float(distinct[j])) < e:
                    # The two values are closer than the nudge (e.g. 0 and 5e-244): after it no
                    # edge separates them, so the cut is dropped (kept, it would only mark the
                    # bin above the upper value, and where that lies would depend on `hi`).
                    continue
        if lo < e <= hi and (not out or e > out[-1]):
            out.append(e)
    return (float(lo), *out, float(hi))


def fit_encoders(
    df: pl.DataFrame,
    features: Sequence[str],
    bins: int,
    *,
    numeric: str = "bins",
    interval_ends: str = "tight",
    bin_edges: str = "uniform",
    labels: np.ndarray | None = None,
) -> list[FeatureEncoder]:
    """Learns one encoder per feature column of the training frame.

    Strings, categoricals, enums and booleans are categorical; so are integer columns with at
    most ``bins`` distinct values and float columns that hold only 0 and 1 (besides null and
    NaN). Other numeric columns are binned (``numeric="bins"``) or interval features
    (``numeric="interval"``, with cuts unless ``interval_ends="tight"``). A binned column's
    edges are ``bin_edges="uniform"`` (equal width, the paper's), ``"quantile"`` (the distinct
    ``k / bins`` quantiles of its training values) or ``"supervised"`` (entropy cuts chosen on
    the training ``labels``, one integer class code per row, :func:`supervised_cuts`), see
    docs/semantics.md §1.1.

    Polars ``select`` calls do the work for every column at once: one for the domains (distinct
    values, min and max), and one for the bins the training values of numeric columns occupy
    or their distinct values.

    Raises:
        FindRSInputError: a column's dtype cannot be a feature (list, struct, temporal...), or a
            binned column has no finite value, or an interval column holds an infinity.

    Warns:
        IdentifierWarning: a string or integer column holds a distinct value in every row (at
            least 20 rows): an identifier, on which rules cannot generalize.
    """
    schema = df.schema
    families: dict[str, str] = {}
    stats: list[pl.Expr] = []
    for name in features:
        dtype = schema[name]
        _check_usable(name, dtype)
        family = dtype_family(dtype)
        col = column(name)
        if family in ("string", "boolean", "integer"):
            key = col.cast(pl.String) if family == "string" else col
            # Null, if present, sorts first; it is taken out below.
            stats.append(key.unique().sort().implode().alias(f"{name}\0values"))
            stats.append(col.count().alias(f"{name}\0count"))
        if family in ("integer", "float"):
            # Bin edges span the finite values; infinities fall into the end bins.
            x = _float(col)
            finite = x.filter(x.is_finite())
            stats += [finite.min().alias(f"{name}\0min"), finite.max().alias(f"{name}\0max"),
                      finite.n_unique().alias(f"{name}\0distinct")]
            stats.append(x.is_infinite().any().alias(f"{name}\0inf"))
        if family == "float":
            # A float column of 0s and 1s (what one-hot encoders emit) is categorical.
            x = _float(col)
            stats += [
                (x == 0.0).any().alias(f"{name}\0zero"),
                (x == 1.0).any().alias(f"{name}\0one"),
                (x.is_not_null() & (x != 0.0) & (x != 1.0)).any().alias(f"{name}\0other"),
                x.is_null().any().alias(f"{name}\0null"),
            ]
        families[name] = family
    row = df.select(stats).row(0, named=True)
    encoders: list[FeatureEncoder] = []
    pending: list[pl.Expr] = []
    for name in features:
        family, dtype = families[name], schema[name]
        values = row.get(f"{name}\0values")
        has_null = bool(values) and values[0] is None
        if has_null:
            values = values[1:]
        count = row.get(f"{name}\0count")
        if family in ("string", "integer") and count >= _IDENTIFIER_ROWS and len(values) == count:
            warnings.warn(
                f"feature column {name!r} holds a different value in each of its {count} rows, like an "
                f"identifier: rules on it describe single rows and do not generalize; leave it out with "
                f"features=[...] (or drop the column)",
                IdentifierWarning,
                stacklevel=4,
            )
        if family in ("string", "boolean") or (family == "integer" and len(values) <= bins):
            encoders.append(
                FeatureEncoder(name, str(dtype), "categorical", tuple(values) + ((None,) if has_null else ()), None, family)
            )
            continue
        if family == "float" and not row[f"{name}\0other"] and (row[f"{name}\0zero"] or row[f"{name}\0one"]):
            known = tuple(v for v, seen in ((0.0, row[f"{name}\0zero"]), (1.0, row[f"{name}\0one"])) if seen)
            null = (None,) if row[f"{name}\0null"] else ()
            encoders.append(FeatureEncoder(name, str(dtype), "categorical", known + null, None, "float"))
            continue
        if numeric == "interval":
            if row[f"{name}\0inf"]:
                raise FindRSInputError(
                    f"numeric feature column {name!r} holds an infinity; an interval feature needs finite "
                    f"values (and null): replace it, e.g. pl.when(pl.col({name!r}).is_infinite()).then(None)"
                    f".otherwise(pl.col({name!r})), or fit with settings={{'numeric': 'bins'}}"
                )
            encoders.append(FeatureEncoder(name, str(dtype), "interval", (), None, family))
            # Distinct values ascending, null (if any) first.
            pending.append(_float(column(name)).unique().sort().implode().alias(name))
            continue
        lo, hi = row[f"{name}\0min"], row[f"{name}\0max"]
        if lo is None or hi is None or not (math.isfinite(lo) and math.isfinite(hi)):
            raise FindRSInputError(
                f"numeric feature column {name!r} has no finite value to bin; "
                f"drop it with features=[...] or fill it, e.g. pl.col({name!r}).fill_null(0)"
            )
        if bin_edges != "uniform":
            edges = _data_edges(df, name, family, lo, hi, bins, bin_edges, labels)
        else:
            edges = _edges(lo, hi, bins)
        if family == "integer" and bin_edges == "uniform":
            # Whole-number inner edges that bin every integer as the nudged edges do.
            inner = [whole_edge(e) for e in edges[1:-1]]
            edges = (min(edges[0], inner[0]), *inner, max(edges[-1], inner[-1])) if inner else edges
        enc = FeatureEncoder(name, str(dtype), "binned", (), edges, family)
        encoders.append(enc)
        # The occupied bins, ascending, null (if any) first.
        pending.append(enc._bin_expr(_float(column(name))).unique().sort().implode().alias(name))
    if pending:
        found = df.select(pending).row(0, named=True)
        for i, enc in enumerate(encoders):
            if enc.kind not in ("binned", "interval"):
                continue
            b = found[enc.name]
            has_null = bool(b) and b[0] is None
            known = b[1:] if has_null else b
            null = (None,) if has_null else ()
            if enc.kind == "binned":
                edges, known = enc.edges, [int(v) for v in known]
                if len(edges) - 1 > row[f"{enc.name}\0distinct"]:
                    edges, known = occupied_bins(edges, known)
                values = tuple(known) + null
                encoders[i] = FeatureEncoder(enc.name, enc.dtype, "binned", values, edges, enc.family)
                continue
            # Compared as doubles; an integer column keeps whole-number values (within 2^53,
            # where every integer is a double; beyond it the values are written as floats).
            family = "integer" if enc.family == "integer" and all(abs(v) <= 2.0**53 for v in known) else "float"
            known = [int(v) for v in known] if family == "integer" else [float(v) for v in known]
            cuts = None
            if interval_ends != "tight":
                cuts = tuple(float(c) for c in cuts_between(np.array(known, dtype=np.float64)))
            encoders[i] = FeatureEncoder(enc.name, enc.dtype, "interval", tuple(known) + null, None, family, cuts)
    return encoders


def check_columns(df: pl.DataFrame | pl.LazyFrame, encoders: Sequence[FeatureEncoder]) -> None:
    """Raises a clear error when a feature is missing or its dtype changed since training
    (beyond what :attr:`FeatureEncoder.accepted_families` allows)."""
    schema = df.collect_schema() if isinstance(df, pl.LazyFrame) else df.schema
    for enc in encoders:
        if enc.name not in schema:
            raise FindRSInputError(
                f"feature column {enc.name!r} used by the model is missing from the frame; "
                f"its columns are {list(schema.names())}; add the column (or refit without it)"
            )
        dtype = schema[enc.name]
        if dtype_family(dtype) not in enc.accepted_families:
            raise FindRSInputError(
                f"feature column {enc.name!r} was {enc.dtype} when the model was fitted but is "
                f"{dtype} now; {drift_fix(enc)}"
            )


def drift_fix(enc: FeatureEncoder) -> str:
    """How to give a feature column its training dtype back (Polars, and pandas)."""
    base = enc.dtype.split("(")[0]
    pandas = {"string": "string", "boolean": "boolean", "integer": "Int64", "float": "float64"}[enc.family]
    return (
        f"cast it back, e.g. pl.col({enc.name!r}).cast(pl.{base}) "
        f"(a pandas frame: df[{enc.name!r}] = df[{enc.name!r}].astype({pandas!r}))"
    )


def encode_frame(df: pl.DataFrame, encoders: Sequence[FeatureEncoder]) -> list[np.ndarray]:
    """The code columns of a frame (one ``select`` of the encoders' expressions), as contiguous
    ``uint32`` arrays: the training codes of a fit, and the codes a pruning curve evaluates.

    Raises:
        FindRSInputError: a feature column is missing or changed dtype family.
    """
    check_columns(df, encoders)
    coded = df.select([enc.expr() for enc in encoders])
    return [_to_codes(coded.get_column(enc.name)) for enc in encoders]
