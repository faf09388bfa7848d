"""Hypothesis strategies of the generated-frame battery (tests/test_battery.py).

As ``polars.testing.parametric`` draws frames column by column (a name, a dtype, values with
nulls), these draw training frames whose features have small domains, so that fitted models have
rules worth comparing: any feature dtype findrs accepts (strings, Categorical, Enum, Boolean,
every integer width, Float32/64, Decimal), names Polars reads as patterns (``*``, ``^a.*$``) and
names SQL engines fold (``a`` / ``A``), nulls, NaN, infinities and extreme numbers, and sizes from
one row to a few thousand. Prediction frames reuse the schema with values never seen in
training, other accepted dtypes, and reordered columns. Bad inputs (unusable dtypes, bad
parameters and labels, frames missing a column) come from :func:`bad_fits`.

``TOTALS`` counts what the battery generated and what each path did; tests/conftest.py prints
it at the end of the run.
"""

from __future__ import annotations

import datetime
import json
import math
import os
import time
from collections import Counter
from decimal import Decimal
from typing import Any

import polars as pl
from hypothesis import strategies as st

TOTALS: Counter[str] = Counter()

CHECKPOINT = os.environ.get("FINDRS_BATTERY_TOTALS")
"""A file the totals are written to every 30 seconds (for a long run cut short: its figures
so far); unset, nothing is written."""
_last_checkpoint = [time.monotonic()]


def checkpoint(every: float = 30.0) -> None:
    """Counts a case (each test of the battery calls it first), and writes TOTALS to
    ``$FINDRS_BATTERY_TOTALS`` when ``every`` seconds have passed."""
    TOTALS["cases"] += 1
    if CHECKPOINT and time.monotonic() - _last_checkpoint[0] >= every:
        _last_checkpoint[0] = time.monotonic()
        with open(CHECKPOINT + ".tmp", "w") as f:
            json.dump({"time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), **dict(sorted(TOTALS.items()))}, f,
                      indent=1)
        os.replace(CHECKPOINT + ".tmp", CHECKPOINT)

NAMES = [
    "a", "b", "c", "x", "a1", "*", "^a.*$", "^x$", "^[a-z]+$", "a.b", "(a)", "\\d", "$", "^",
    "null", "NULL", "A", "y_predicted", "fired_rules", "with space", 'quo"te', "it's", "", "Ä",
    "ä", "数", "0",
]
STRINGS = ["a", "b", "c", "x y", "Z", "", "null", "NULL", "é", "'", '"', "a,b", "1"]
INT_DTYPES = [pl.Int8, pl.Int16, pl.Int32, pl.Int64, pl.UInt8, pl.UInt16, pl.UInt32, pl.UInt64]
FLOAT_SPECIALS = [0.0, -0.0, 1e308, -1e308, 1.7976931348623157e308, -1.7976931348623157e308, 5e-324,
                  float("inf"), float("-inf"), float("nan")]
KINDS = ["string", "categorical", "enum", "boolean", "int", "wide_int", "float", "float32", "decimal"]


def _int_range(dtype: pl.DataType) -> tuple[int, int]:
    bits = int(str(dtype).lstrip("UInt") or 64)
    if str(dtype).startswith("U"):
        return 0, 2**bits - 1
    return -(2 ** (bits - 1)), 2 ** (bits - 1) - 1


@st.composite
def feature(draw, kind: str | None = None) -> tuple[pl.DataType, list[Any]]:
    """A feature's dtype and its pool of values (None is null)."""
    kind = kind or draw(st.sampled_from(KINDS))
    k = draw(st.integers(1, 5))
    if kind in ("string", "categorical", "enum"):
        values: list[Any] = draw(st.lists(st.sampled_from(STRINGS), min_size=k, max_size=k, unique=True))
        dtype: Any = {"string": pl.String, "categorical": pl.Categorical}.get(kind)
        if kind == "enum":
            extra = draw(st.lists(st.sampled_from(STRINGS), max_size=2))
            dtype = pl.Enum(list(dict.fromkeys(values + extra)))
    elif kind == "boolean":
        values, dtype = draw(st.sampled_from([[True], [False], [True, False]])), pl.Boolean
    elif kind in ("int", "wide_int"):
        dtype = draw(st.sampled_from(INT_DTYPES))
        lo, hi = _int_range(dtype)
        ends = st.sampled_from([lo, hi, 0])
        n = k if kind == "int" else draw(st.integers(11, 20))
        values = draw(st.lists(st.one_of(st.integers(max(lo, -50), min(hi, 50)), ends), min_size=n, max_size=n, unique=True))
    elif kind in ("float", "float32"):
        width = 64 if kind == "float" else 32
        finite = st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False, width=width)
        specials = st.sampled_from(FLOAT_SPECIALS if width == 64 else [0.0, float("inf"), float("nan"), 3.4e38, -3.4e38])
        values = draw(st.lists(st.one_of(finite, finite, specials), min_size=k, max_size=k + 4))
        if not any(isinstance(v, float) and math.isfinite(v) for v in values):
            values.append(1.5)
        dtype = pl.Float64 if width == 64 else pl.Float32
    else:  # decimal
        values = [Decimal(v).quantize(Decimal("0.01")) for v in draw(st.lists(st.integers(-10_000, 10_000), min_size=k, max_size=k + 4, unique=True))]
        dtype = pl.Decimal(12, 2)
    if draw(st.booleans()):
        values = values + [None]
    return dtype, values


@st.composite
def names(draw, n: int) -> list[str]:
    """``n`` distinct column names, regex-looking and case-folding ones among them."""
    return draw(st.lists(st.one_of(st.sampled_from(NAMES), st.text(st.characters(codec="utf-8", exclude_characters="\0"), min_size=1, max_size=4)), min_size=n, max_size=n, unique=True))


@st.composite
def target_column(draw, name: str, n: int, classes: int = 2) -> pl.Series:
    """A target of ``n`` rows with both classes: Boolean, strings, integers or floats
    (``classes`` above 2: that many labels, each present, in strings, integers, floats or
    Categorical)."""
    if classes > 2:
        kind = draw(st.sampled_from(["string", "int", "float", "categorical"]))
        pool = {"string": ["yes", "no", "maybe", "", "NULL"], "categorical": ["p", "q", "r", "s", "t"],
                "int": [7, -3, 0, 2**40, -1], "float": [0.5, 2.5, -1.25, 1e300, 0.0]}[kind][:classes]
        idx = draw(st.lists(st.integers(0, classes - 1), min_size=n, max_size=n))
        spots = draw(st.lists(st.integers(0, n - 1), min_size=classes, max_size=classes, unique=True))
        for c, i in enumerate(spots):
            idx[i] = c
        s = pl.Series(name, [pool[i] for i in idx])
        return s.cast(pl.Categorical) if kind == "categorical" else s
    kind = draw(st.sampled_from(["bool", "bool", "string", "int", "float", "categorical"]))
    labels = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    i, j = draw(st.lists(st.integers(0, n - 1), min_size=2, max_size=2, unique=True))
    labels[i], labels[j] = True, False
    if kind == "bool":
        return pl.Series(name, labels, dtype=pl.Boolean)
    pos, neg = {"string": ("yes", "no"), "categorical": ("yes", "no"), "int": (7, -3), "float": (0.5, 2.5)}[kind]
    s = pl.Series(name, [pos if v else neg for v in labels])
    return s.cast(pl.Categorical) if kind == "categorical" else s


@st.composite
def training_frames(draw, max_rows: int = 60, *, classes: int = 2, kinds: list[str] | None = None,
                    big: int = 3000) -> tuple[pl.DataFrame, str]:
    """A training frame of 2 (``classes``) to ``max_rows`` rows (sometimes up to ``big``) and its
    target name; ``kinds``: the feature kinds to draw from (at least one numeric one first, when
    they are all numeric ones)."""
    n_features = draw(st.integers(1, 5))
    cols = draw(names(n_features + 1))
    target = cols[-1]
    lo = max(2, classes)
    sizes = [st.integers(lo, max_rows)] * 3 + ([st.integers(200, big)] if big >= 200 else [])
    n = draw(st.one_of(*sizes))
    data = []
    for name in cols[:-1]:
        dtype, pool = draw(feature(draw(st.sampled_from(kinds)) if kinds else None))
        idx = draw(st.lists(st.integers(0, len(pool) - 1), min_size=min(n, 60), max_size=min(n, 60)))
        values = [pool[idx[i % len(idx)] if i < len(idx) else (i * 7919 + len(pool)) % len(pool)] for i in range(n)]
        data.append(pl.Series(name, values, dtype=dtype, strict=False))
    data.append(draw(target_column(target, n, classes)))
    TOTALS["training frames"] += 1
    TOTALS["training rows"] += n
    # A dict keeps an empty name (a list of Series names it column_0).
    return pl.DataFrame({s.name: s for s in data}), target


def _widen(s: pl.Series, draw) -> pl.Series:
    """The same column with some values replaced by values never seen in training and nulls,
    keeping its dtype (Enum: values among its categories)."""
    dtype = s.dtype
    n = s.len()
    if isinstance(dtype, pl.Enum):
        pool = list(dtype.categories) + [None]
    elif dtype in (pl.String, pl.Categorical):
        pool = STRINGS + ["never seen", None]
    elif dtype == pl.Boolean:
        pool = [True, False, None]
    elif dtype.is_integer():
        lo, hi = _int_range(dtype)
        pool = [lo, hi, 0, 1, min(hi, 99), None]
    elif dtype.is_float():
        pool = FLOAT_SPECIALS + [123456.5, -7.25, None]
    elif isinstance(dtype, pl.Decimal):
        pool = [Decimal("9999999.99"), Decimal("-0.01"), Decimal("0.00"), None]
    else:
        return s
    picks = draw(st.lists(st.tuples(st.integers(0, max(n - 1, 0)), st.sampled_from(pool)), max_size=min(n, 8)))
    values = s.to_list()
    for i, v in picks:
        values[i] = v
    return pl.Series(s.name, values, dtype=dtype, strict=False)


def _drift_dtype(s: pl.Series, draw) -> pl.Series:
    """The column in another dtype findrs accepts for the same feature."""
    dtype = s.dtype
    if dtype == pl.String:
        return s.cast(draw(st.sampled_from([pl.Categorical, pl.String])))
    if isinstance(dtype, (pl.Categorical, pl.Enum)):
        return s.cast(pl.String)
    if dtype.is_integer():
        lo, hi = _int_range(dtype)
        if -(2**53) < lo and hi < 2**53 and draw(st.booleans()):
            return s.cast(pl.Float64)  # a pandas integer column that met a NaN
        return s.cast(pl.Int64, strict=False) if hi < 2**63 else s
    if dtype == pl.Float64:
        return s.cast(pl.Float32) if draw(st.booleans()) else s
    return s


@st.composite
def prediction_frame(draw, train: pl.DataFrame, features: list[str]) -> pl.DataFrame:
    """A frame for the model of ``train``: the feature columns (in a shuffled order, with an
    extra column), some values never seen, some in another accepted dtype."""
    cols = []
    for name in draw(st.permutations(features)):
        s = train.get_column(name)
        if draw(st.booleans()):
            s = _widen(s, draw)
        if draw(st.integers(0, 3)) == 0:
            s = _drift_dtype(s, draw)
        cols.append(s)
    out = pl.DataFrame({s.name: s for s in cols})
    if "extra" not in out.columns:
        out = out.with_columns(pl.lit(1).alias("extra"))
    TOTALS["prediction frames"] += 1
    TOTALS["prediction rows"] += out.height
    return out


@st.composite
def fit_params(draw) -> dict[str, Any]:
    method = draw(st.sampled_from(["find-rs", "bo", "bp"]))
    params: dict[str, Any] = {
        "method": method,
        "encoding": draw(st.sampled_from(["av", "oh"])),
        "tolerance": draw(st.sampled_from([0, 0, 1, 2, 5])),
        "shuffle": draw(st.booleans()),
        "random_state": draw(st.integers(0, 2**64 - 1)),
        "bins": draw(st.sampled_from([2, 3, 10, 10, 17])),
    }
    if method != "find-rs":
        params["T"] = draw(st.integers(1, 9))
    if method == "bp":
        params["n_rules"] = draw(st.sampled_from(["auto", None, 1, 3]))
    # The settings beyond the paper, now and then (docs/semantics.md §8, §9).
    if draw(st.integers(0, 3)) == 0:
        params["tolerance"] = draw(st.sampled_from([0.05, 0.3]))
    if draw(st.integers(0, 4)) == 0:
        params["min_support"] = draw(st.sampled_from([1, 2]))
    if draw(st.integers(0, 4)) == 0:
        params["direction"] = "negative"
    if draw(st.integers(0, 3)) == 0:
        params["simplify"] = True
    if draw(st.integers(0, 4)) == 0:
        params["max_rules"] = draw(st.sampled_from([1, 2, 5]))
    return params


# --------------------------------------------------------------------------- model kinds
# What came after the binary RuleSetModel (issue 42): each kind is a frame strategy and the
# flat parameters of its fit (fit_keywords turns them into fit's keywords); "fit_bagged" in
# the parameters asks for findrs.fit_bagged with that many estimators.
MODEL_KINDS = ["multiclass", "interval", "exceptions", "bagged", "pair", "max_rules", "chunks", "auto"]
NUMERIC_KINDS = ["float", "float", "float32", "int", "wide_int", "decimal", "string"]
COMBINATIONS = ["frequent-first", "rarest-first", "one-vs-rest"]


def _classes(draw, multiclass_share: int) -> int:
    """2, or (one time in ``multiclass_share``) 3 or 4 classes."""
    return draw(st.sampled_from([3, 4])) if multiclass_share and draw(st.integers(1, multiclass_share)) == 1 else 2


@st.composite
def kind_case(draw, kind: str) -> tuple[pl.DataFrame, str, dict[str, Any]]:
    """(training frame, target, flat fit parameters) of a model of ``kind`` (MODEL_KINDS)."""
    params = draw(fit_params())
    params.pop("direction", None)
    if kind == "multiclass":
        df, target = draw(training_frames(max_rows=40, classes=draw(st.sampled_from([3, 3, 4])), big=600))
        if draw(st.booleans()):
            params["multiclass"] = draw(st.sampled_from(COMBINATIONS))
    elif kind == "interval":
        df, target = draw(training_frames(max_rows=40, classes=_classes(draw, 4), kinds=NUMERIC_KINDS, big=1000))
        params["numeric"] = "interval"
        if draw(st.booleans()):
            params["interval_ends"] = draw(st.sampled_from(["tight", "midpoint", "open", "widened"]))
    elif kind == "exceptions":
        df, target = draw(training_frames(max_rows=40, big=600))
        params = {k: v for k, v in params.items() if k not in ("T", "n_rules", "max_rules")}
        params.update(method="find-rs", exceptions=True)
        if draw(st.integers(0, 3)) == 0:
            params["numeric"] = "interval"
    elif kind == "bagged":
        df, target = draw(training_frames(max_rows=40, classes=_classes(draw, 4), big=400))
        params["fit_bagged"] = draw(st.integers(1, 3))
        params["random_state"] %= 2**63  # fit_bagged's documented range (fit's is 0 to 2**64 - 1)
        labels = list(dict.fromkeys(df.get_column(target).to_list()))  # (a Series method reads '^a.*$' as a pattern)
        if len(labels) > 2:  # a bagged vote is binary: one class against the rest
            params["positive"] = draw(st.sampled_from(labels))
    elif kind == "pair":
        df, target = draw(training_frames(max_rows=40, big=600))
        params.update(method="bo+bp", T=draw(st.integers(1, 9)))
        params.setdefault("n_rules", draw(st.sampled_from(["auto", None, 1, 3])))
    elif kind == "max_rules":
        df, target = draw(training_frames(max_rows=40, classes=_classes(draw, 4), big=600))
        params["max_rules"] = draw(st.sampled_from([1, 1, 2, 3, 5]))
    elif kind == "chunks":
        df, target = draw(training_frames(max_rows=40, big=400))
        params.update(method=draw(st.sampled_from(["bo", "bp"])), T=draw(st.integers(2, 9)),
                      chunks=draw(st.sampled_from([2, 2, 3])))
        params.pop("max_rules", None)
        if params["method"] == "bo":
            params.pop("n_rules", None)
    else:  # auto: the default settings, chosen by cross-validation
        df, target = draw(training_frames(max_rows=30, classes=_classes(draw, 4), big=0))
        params = {"random_state": params["random_state"], "auto": True}
        if draw(st.booleans()):
            params["method"] = draw(st.sampled_from(["find-rs", "bo", "bp"]))
        if draw(st.integers(0, 3)) == 0:
            params["T"] = draw(st.integers(1, 5))
    params.setdefault("auto", False)
    return df, target, params


# --------------------------------------------------------------------------- bad inputs
UNUSABLE = {
    "list": pl.Series([[1], [2, 3], None]),
    "struct": pl.Series([{"a": 1}, {"a": 2}, None]),
    "date": pl.Series([datetime.date(2020, 1, 1), None, datetime.date(2021, 1, 1)]),
    "datetime": pl.Series([datetime.datetime(2020, 1, 1), None, datetime.datetime(2021, 1, 1)]),
    "duration": pl.Series([datetime.timedelta(1), None, datetime.timedelta(2)]),
    "time": pl.Series([datetime.time(1), None, datetime.time(2)]),
    "binary": pl.Series([b"a", None, b"b"]),
    "null": pl.Series([None, None, None]),
    "object": pl.Series([object(), object(), object()], dtype=pl.Object),
}

BAD_PARAMS = [
    {"bins": 1}, {"bins": 0}, {"bins": 2**31}, {"bins": 2.5}, {"bins": True}, {"T": 0}, {"T": -1},
    {"T": 10**7}, {"method": "bp", "T": 0}, {"tolerance": -1}, {"tolerance": 2**32}, {"tolerance": 0.5},
    {"method": "x"}, {"encoding": "ab"}, {"method": "bp", "n_rules": 0}, {"method": "bp", "n_rules": "all"},
    {"method": "bp", "accuracy_ratio": 0.0}, {"method": "bp", "accuracy_ratio": float("nan")},
    {"method": "bp", "accuracy_ratio": 1.5}, {"random_state": -1}, {"random_state": 2**64}, {"n_jobs": 0},
    {"n_jobs": -2}, {"shuffle": "yes"}, {"method": "bo", "n_rules": 3}, {"features": []}, {"features": ["missing"]},
    {"features": "y"}, {"positive": "not a label"}, {"positive": [1]},
]


@st.composite
def bad_fits(draw) -> tuple[Any, str, dict[str, Any], str]:
    """(data, target, fit keyword arguments, what is bad): a frame or parameters findrs must
    refuse with a FindRSInputError (or fit correctly, where the frame happens to be fine)."""
    df, target = draw(training_frames(max_rows=20))
    what = draw(st.sampled_from(["unusable column", "parameter", "target nulls", "one class", "empty", "no features",
                                 "missing target", "nan target", "nul name"]))
    kw: dict[str, Any] = {}
    if what == "unusable column":
        kind = draw(st.sampled_from(sorted(UNUSABLE)))
        col = UNUSABLE[kind]
        values = [col[i % col.len()] for i in range(df.height)]
        df = df.with_columns(pl.Series("bad_" + kind, values, dtype=col.dtype))
        what += f" ({kind})"
    elif what == "parameter":
        kw = dict(draw(st.sampled_from(BAD_PARAMS)))
        what += f" {kw}"
    elif what == "target nulls":
        df = df.with_columns(pl.when(pl.int_range(pl.len()) == 0).then(None).otherwise(df.get_column(target)).alias(target))
    elif what == "one class":
        df = df.with_columns(pl.repeat(df.get_column(target)[0], df.height, dtype=df.schema[target]).alias(target))
    elif what == "empty":
        df = df.head(0)
    elif what == "no features":
        df = df.select(df.get_column(target))
    elif what == "missing target":
        target = target + "_missing"
    elif what == "nul name":
        df = df.rename({df.columns[0]: df.columns[0] + "\0"})
        target = target + "\0" if df.columns[0] == target + "\0" else target
    elif what == "nan target":
        df = df.with_columns(pl.Series(target, [float("nan")] + [1.0] * (df.height - 1)))
    return df, target, kw, what
