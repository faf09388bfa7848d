"""What a feature column may be, and whether a frame holds a model's columns: the coarse dtype
families a prediction frame is checked against, and the errors that name the column and the fix.

Invariant: a frame a model reads passes :func:`check_columns` against the model's encoders, or
the caller gets a :class:`~findrs.FindRSInputError` naming the column, before any value is read.

Example:
    >>> import polars as pl
    >>> dtype_family(pl.Int32), dtype_family(pl.Categorical())
    ('integer', 'string')
"""

from __future__ import annotations

import warnings
from typing import Any, Sequence

import polars as pl

from ..errors import FindRSInputError, IdentifierWarning
from .frames import column


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


def check_columns(df: pl.DataFrame | pl.LazyFrame, encoders: Sequence[Any]) -> None:
    """Raises a clear error when a feature is missing or its dtype changed since training
    (``encoders``: the model's :class:`~findrs.data.encode.FeatureEncoder` values; beyond what
    their ``accepted_families`` allow).

    Raises:
        FindRSInputError: the missing or changed column, its dtypes and how to cast it back.
    """
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


def drift_fix(enc: Any) -> str:
    """How to give a feature column its training dtype back (Polars, and pandas)."""
    base = enc.dtype.split("(")[0]
    pandas = {"string": "string", "boolean": "boolean", "integer": "Int64", "float": "float64"}[enc.family]
    return (
        f"cast it back, e.g. pl.col({enc.name!r}).cast(pl.{base}) "
        f"(a pandas frame: df[{enc.name!r}] = df[{enc.name!r}].astype({pandas!r}))"
    )


# docs/semantics.md §1 (screening): a String feature whose values are all numbers is refused
# above this many distinct values (each would be a category of its own, and the fit's cost grows
# with rows x values), and a text feature with a different value in at least this share of
# at least IDENTIFIER_MIN_ROWS non-null rows is an identifier, left out of the default features.
NUMBER_TEXT_MAX_VALUES = 1_000
IDENTIFIER_SHARE = 0.9
IDENTIFIER_MIN_ROWS = 1_000


def is_text_identifier(rows: int, distinct: int) -> bool:
    """Whether a text column of ``rows`` non-null values, ``distinct`` of them distinct, is an
    identifier that a fit leaves out of its default features (docs/semantics.md §1).

    Example:
        >>> is_text_identifier(2000, 1990), is_text_identifier(2000, 50), is_text_identifier(40, 40)
        (True, False, False)

    Raises:
        Nothing.
    """
    return rows >= IDENTIFIER_MIN_ROWS and distinct >= IDENTIFIER_SHARE * rows


def identifier_left_out(name: str, rows: int, distinct: int) -> IdentifierWarning:
    """The warning of a text identifier left out of the default features.

    Example:
        >>> str(identifier_left_out("name", 2000, 2000))[:46]
        "feature column 'name' holds 2,000 distinct val"

    Raises:
        Nothing.
    """
    return IdentifierWarning(
        f"feature column {name!r} holds {distinct:,} distinct values in {rows:,} rows, like an identifier: rules on "
        f"it describe single rows and do not generalize, and its many values make the fit slow; it is left "
        f"out of the features (name it in features=[...] to keep it)"
    )


def text_identifiers(df: pl.DataFrame, features: Sequence[str]) -> list[str]:
    """The text features of ``df`` that are identifiers (:func:`is_text_identifier`), each
    warned about with :func:`identifier_left_out`: ``fit_bagged`` decides on the whole frame
    once, as a fit decides in ``fit_encoders`` from the statistics it computes anyway.

    Example:
        >>> df = pl.DataFrame({"id": [f"r{i}" for i in range(1000)], "g": ["a", "b"] * 500})
        >>> import warnings
        >>> with warnings.catch_warnings(record=True):
        ...     text_identifiers(df, ["id", "g"])
        ['id']

    Raises:
        Nothing.
    """
    schema = df.schema
    texts = [f for f in features if dtype_family(schema[f]) == "string"]
    if df.height < IDENTIFIER_MIN_ROWS or not texts:
        return []
    stats = []
    for i, name in enumerate(texts):
        col = column(name)
        key = col if schema[name] == pl.String else col.to_physical()
        stats += [col.count().alias(f"{i}n"), key.drop_nulls().n_unique().alias(f"{i}d")]
    row = df.select(stats).row(0, named=True)
    found = []
    for i, name in enumerate(texts):
        if is_text_identifier(row[f"{i}n"], row[f"{i}d"]):
            warnings.warn(identifier_left_out(name, row[f"{i}n"], row[f"{i}d"]), stacklevel=3)
            found.append(name)
    return found


def _may_be_number(v: Any) -> bool:
    """Whether a value may parse as a number in Polars (Python's ``float`` accepts whatever
    Polars' cast does, and more): a first look at a String column's first value that costs
    next to nothing."""
    if v is None:
        return True
    try:
        float(v.strip())
    except ValueError:
        return False
    return True


def check_numbers_as_text(df: pl.DataFrame, features: Sequence[str], bins: int) -> None:
    """Refuses, or warns about, String features that hold numbers as text, before any run
    (docs/semantics.md §1, screening).

    A String column is *numbers as text* when every stripped non-null value parses as a
    number and none has a leading zero (``"02139"`` reads as a code). With more than
    :data:`NUMBER_TEXT_MAX_VALUES` distinct values the fit is refused, naming every such column
    and its cast; with more than ``bins`` (it would be binned as a number) it warns with the
    cast; with fewer it is a category like any other. Categorical and Enum columns are
    categories by choice and are left alone. Only a column whose first value parses is looked
    at further (one ``select`` for all of them).

    Example:
        >>> df = pl.DataFrame({"age": [" 39", " 50", " 38"], "job": ["a", "b", "a"]})
        >>> check_numbers_as_text(df, ["age", "job"], bins=10)

    Raises:
        FindRSInputError: a String column of numbers has more than
            :data:`NUMBER_TEXT_MAX_VALUES` distinct values; the message names it, a sample
            value and the cast, e.g. ``pl.col('fnlwgt').str.strip_chars().cast(pl.Int64)``.
    """
    schema = df.schema
    strings = [f for f in features if schema[f] == pl.String]
    if not strings or df.height == 0:
        return
    first = df.row(0, named=True)
    maybe = [c for c in strings if _may_be_number(first[c])]
    stats: list[pl.Expr] = []
    for i, name in enumerate(maybe):
        col = column(name)
        stripped = col.str.strip_chars()
        present = col.is_not_null()
        stats += [
            col.drop_nulls().n_unique().alias(f"{i}d"),
            (present & stripped.cast(pl.Float64, strict=False).is_null()).any().alias(f"{i}text"),
            (present & stripped.cast(pl.Int64, strict=False).is_null()).any().alias(f"{i}float"),
            stripped.str.contains(r"^[+-]?0[0-9]").any().alias(f"{i}zero"),
            col.drop_nulls().first().alias(f"{i}sample"),
        ]
    row = df.select(stats).row(0, named=True) if stats else {}
    numbers: list[tuple[str, int, Any, str]] = []  # name, distinct values, sample, cast
    for i, name in enumerate(maybe):
        if row[f"{i}d"] and not row[f"{i}text"] and not row[f"{i}zero"]:
            numbers.append((name, row[f"{i}d"], row[f"{i}sample"], "pl.Float64" if row[f"{i}float"] else "pl.Int64"))

    def cast(name: str, to: str) -> str:
        return f"pl.col({name!r}).str.strip_chars().cast({to})"

    many = [c for c in numbers if c[1] > NUMBER_TEXT_MAX_VALUES]
    if many:
        name, d, sample, _ = many[0]
        casts = ", ".join(cast(c[0], c[3]) for c in numbers)
        others = f" ({len(numbers)} columns hold numbers as text: {[c[0] for c in numbers]})" if len(numbers) > 1 else ""
        raise FindRSInputError(
            f"feature column {name!r} holds numbers as text (e.g. {sample!r}) with {d:,} distinct values: each "
            f"would be a category of its own, which makes the fit slow and its rules useless{others}; cast to "
            f"numbers before fitting: df = df.with_columns({casts}) (or read the file with the numbers parsed); "
            f"columns of numbers as text with more than {NUMBER_TEXT_MAX_VALUES:,} values are refused "
            f"(docs/semantics.md §1)"
        )
    for name, d, sample, to in numbers:
        if d > bins:
            warnings.warn(
                f"feature column {name!r} holds numbers as text (e.g. {sample!r}) with {d:,} distinct values; "
                f"they are categories, not numbers: to bin them as numbers cast it, "
                f"df.with_columns({cast(name, to)}); to keep them as categories cast it to pl.Categorical",
                UserWarning,
                stacklevel=4,
            )


def raw_contradictions(df: pl.DataFrame, features: Sequence[str], labels: Any) -> int:
    """Training rows whose *values* (not codes) on every feature equal those of a row with
    another label (docs/semantics.md §1, contradictions): null and NaN are one value, ``-0.0``
    is ``0.0``. ``labels``: one label (or class index) per row.

    Example:
        >>> df = pl.DataFrame({"a": [1.0, 1.0, 2.0], "b": ["x", "x", "x"]})
        >>> raw_contradictions(df, ["a", "b"], [True, False, False])
        2

    Raises:
        Nothing: the columns are the fit's features, already checked.
    """
    schema = df.schema
    keys = []
    for i, name in enumerate(features):
        col = column(name)
        if schema[name].is_float():
            col = col.fill_nan(None) + 0.0  # NaN is null; -0.0 + 0.0 is 0.0
        keys.append(col.alias(f"\0{i}"))
    frame = df.select(keys).with_columns(pl.Series("\0label", labels))
    groups = frame.group_by([f"\0{i}" for i in range(len(keys))]).agg(
        pl.col("\0label").n_unique().alias("labels"), pl.len().alias("rows"))
    return int(groups.filter(pl.col("labels") > 1)["rows"].sum())


def contradiction_message(coded: int, raw: int) -> str:
    """The ``ContradictionWarning`` of a fit with ``coded`` contradictory rows on the codes,
    ``raw`` of them on the values: those the binning made are told apart, with the fix.

    Example:
        >>> contradiction_message(6285, 2)[:63]
        '6,285 training rows are contradictions (identical features, bot'

    Raises:
        Nothing.
    """
    head = f"{coded:,} training rows are contradictions (identical features, both labels)"
    raw = min(raw, coded)
    if raw == coded:
        return f"{head}; no rule set can be consistent on them (see model.contradictions)"
    data = f"{raw:,} in the data itself" if raw else "none in the data itself"
    return (
        f"{head}: {data}, {coded - raw:,} made by binning numeric columns (rows whose values differ fall in the "
        f"same bins); no rule set can be consistent on them (see model.contradictions). Fewer come from finer "
        f"bins (settings=dict(bins=20)), bin edges chosen by the labels (settings=dict(bin_edges='supervised')) "
        f"or numeric columns kept as intervals (settings=dict(numeric='interval'))"
    )
