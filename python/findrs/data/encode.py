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
import warnings
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np
import polars as pl

from ..errors import FindRSInputError, IdentifierWarning
from .columns import _check_usable, check_columns, dtype_family, identifier_left_out, is_text_identifier
from .edges import (
    _ATOL, _RTOL, _data_edges, _edge_texts, _edges, _is_finite_number, _is_int, cuts_between, format_number, nudged,
    nudged_threshold, occupied_bins, supervised_cuts, whole_edge,
)
from .frames import column

_CATEGORICAL_DTYPES = (pl.String, pl.Categorical, pl.Enum, pl.Boolean)
# Integers of smaller magnitude are exact doubles.
_EXACT_FLOAT = 2**53
# A string or integer feature with a distinct value in every one of at least this many rows
# draws an IdentifierWarning (a float measurement may well be all distinct; it draws none).
_IDENTIFIER_ROWS = 20


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


@functools.lru_cache(maxsize=4096)  # pure
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


def fit_encoders(
    df: pl.DataFrame,
    features: Sequence[str],
    bins: int,
    *,
    numeric: str = "bins",
    interval_ends: str = "tight",
    bin_edges: str = "uniform",
    labels: np.ndarray | None = None,
    leave_out_identifiers: bool = False,
) -> list[FeatureEncoder]:
    """Learns one encoder per feature column of the training frame; with
    ``leave_out_identifiers``, none for a text column that is an identifier
    (:func:`~findrs.data.columns.is_text_identifier`, docs/semantics.md §1), which is warned about.

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
            least 20 rows): an identifier, on which rules cannot generalize; or a text
            identifier was left out.
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
        if leave_out_identifiers and family == "string" and is_text_identifier(count, len(values)):
            warnings.warn(identifier_left_out(name, count, len(values)), stacklevel=4)
            continue
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


def edge_texts(enc: "FeatureEncoder") -> tuple[str, ...]:
    """A binned feature's edges for reading: whole numbers for an integer column; otherwise
    4 significant digits, more where two inner edges would read the same."""
    return _edge_texts(enc.edges or (), enc.whole_edges)


def encode_frame(df: pl.DataFrame, encoders: Sequence[FeatureEncoder]) -> list[np.ndarray]:
    """The code columns of a frame (one ``select`` of the encoders' expressions), as contiguous
    ``uint32`` arrays: the training codes of a fit, and the codes a pruning curve evaluates.

    Raises:
        FindRSInputError: a feature column is missing or changed dtype family.
    """
    check_columns(df, encoders)
    coded = df.select([enc.expr() for enc in encoders])
    return [_to_codes(coded.get_column(enc.name)) for enc in encoders]
