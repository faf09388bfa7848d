"""Accepting data: Polars DataFrames and LazyFrames, and anything Polars can take in one step
(pandas DataFrames, PyArrow tables, objects with ``__arrow_c_stream__``); and :func:`column`,
the one way findrs names a user's column in a Polars expression.

Invariant: every expression findrs builds on a user's column refers to it by its exact name,
whatever the name looks like (``pl.col`` reads ``*`` and ``^...$`` as patterns).
"""

from __future__ import annotations

import functools
from typing import Any

import polars as pl
import polars.selectors as cs

from ..errors import FindRSInputError


def is_dask(data: Any) -> bool:
    """Whether ``data`` is a Dask collection (read where its partitions are, docs/semantics.md §13).

    Example:
        >>> is_dask(pl.DataFrame())
        False
    """
    return type(data).__module__.split(".")[0] == "dask"


def refuse_missing_features(features: Any, columns: Any) -> None:
    """Refuses ``features`` that are not all among ``columns``, naming them.

    Raises:
        FindRSInputError: a feature column is missing.

    Example:
        >>> refuse_missing_features(["a"], ["a", "y"])  # nothing to refuse
    """
    missing = [f for f in features if f not in columns]
    if missing:
        raise FindRSInputError(f"feature column(s) {missing} not found; the columns are {list(columns)}")


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
        where = _pandas_column_at_fault(data) if mod == "pandas" else ""
        reason = f"{where} (the reader said: {e})" if where else str(e)
        raise FindRSInputError(f"could not read the {type(data).__name__} as a table: {reason}") from e
    raise FindRSInputError(
        f"expected a Polars DataFrame or LazyFrame (or a pandas DataFrame / PyArrow table), "
        f"got {type(data).__name__}"
    )


def _pandas_column_at_fault(data: Any) -> str:
    """The start of the message for a pandas frame Polars could not read: the first column that
    fails alone, the types it mixes and the fix (``""`` when no single column fails)."""
    for name in data.columns:
        try:
            pl.from_pandas(data[[name]])
        except Exception:  # noqa: BLE001 - this column is the one at fault
            values = data[name].dropna()
            kinds = sorted({type(v).__name__ for v in values})
            mixed = f" mixes values of types {', '.join(kinds)}" if len(kinds) > 1 else " cannot be read"
            return (f"column {name!r}{mixed}; give it one type, e.g. df[{name!r}] = df[{name!r}].astype(str) "
                    f"(or pd.to_numeric(df[{name!r}], errors='coerce') for numbers)")
    return ""


# The characters the regex engine of Polars (Rust's `regex` crate) reads as syntax.
_REGEX_META = frozenset("\\.+*?()|[]{}^$#&-~")


def _is_pattern(name: str) -> bool:
    """Whether ``pl.col(name)`` would read ``name`` as a pattern rather than a name."""
    return name == "*" or (len(name) >= 2 and name.startswith("^") and name.endswith("$"))


@functools.lru_cache(maxsize=1)
def _by_name_is_literal() -> bool:
    # cs.by_name matches exact names in newer Polars; older versions (1.25) route it through
    # pl.col, which reads patterns.
    try:
        probe = pl.DataFrame({"^a$": [0], "a": [0]})
        return probe.select(cs.by_name("^a$")).columns == ["^a$"]
    except Exception:  # noqa: BLE001 - any failure: use the escaped pattern
        return False


def column(name: str) -> pl.Expr:
    """``pl.col`` for the column named exactly ``name``, even one Polars would read as a
    pattern (``*``, ``^a.*$``): such a name becomes a selector of that exact name (or, in
    Polars versions whose selectors read patterns, an escaped pattern matching only it).

    Example:
        >>> df = pl.DataFrame({"^a.*$": [1], "a1": [2]})
        >>> df.select(column("^a.*$")).columns
        ['^a.*$']
    """
    if not _is_pattern(name):
        return pl.col(name)
    if _by_name_is_literal():
        return cs.by_name(name).as_expr()
    escaped = "".join("\\" + c if c in _REGEX_META else c for c in name)
    return pl.col(f"^{escaped}$")
