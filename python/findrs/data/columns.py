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

from typing import Any, Sequence

import polars as pl

from ..errors import FindRSInputError


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
