"""Accepting data: Polars DataFrames and LazyFrames, and anything Polars can take in one step
(pandas DataFrames, PyArrow tables, objects with ``__arrow_c_stream__``)."""

from __future__ import annotations

from typing import Any

import polars as pl

from .errors import FindRSInputError


def as_polars(data: Any) -> pl.DataFrame:
    """A Polars DataFrame for ``data`` (a LazyFrame is collected once).

    Raises:
        FindRSInputError: ``data`` is not a table Polars can read.
    """
    if isinstance(data, pl.DataFrame):
        return data
    if isinstance(data, pl.LazyFrame):
        return data.collect()
    mod = type(data).__module__.split(".")[0]
    try:
        if mod == "pandas":
            return pl.from_pandas(data)
        if mod == "pyarrow":
            return pl.from_arrow(data)  # type: ignore[return-value]
        if hasattr(data, "__arrow_c_stream__"):
            return pl.DataFrame(data)
    except Exception as e:  # noqa: BLE001 - re-raised with the reason
        raise FindRSInputError(f"could not read the {type(data).__name__} as a table: {e}") from e
    raise FindRSInputError(
        f"expected a Polars DataFrame or LazyFrame (or a pandas DataFrame / PyArrow table), "
        f"got {type(data).__name__}"
    )
