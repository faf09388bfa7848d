"""Exceptions and warnings raised by findrs.

Every error about the user's data is a :class:`FindRSInputError` (a ``ValueError``) whose message
names the column, the offending value and a fix.
"""

from __future__ import annotations


class FindRSInputError(ValueError):
    """Bad input: a missing or unusable column, a bad label, an empty frame, a bad parameter.
    The message names the column or parameter, the value and a fix. It is a ``ValueError``.

    Example:
        >>> import findrs
        >>> try:
        ...     findrs.fit(findrs.datasets.tic_tac_toe(), "winner")
        ... except findrs.FindRSInputError as e:
        ...     print(str(e)[:40])
        target column 'winner' not found; the co
    """


class ContradictionWarning(UserWarning):
    """The training data hold identical rows with both labels (semantics §1); they are legal, and
    ``model.contradictions`` counts the rows involved. The message tells the contradictions of
    the values themselves from those the binning of numeric columns made, with the fixes.

    Example:
        >>> import warnings, polars as pl, findrs
        >>> df = pl.DataFrame({"a": ["x", "x", "y"], "y": [True, False, False]})
        >>> with warnings.catch_warnings(record=True) as caught:
        ...     warnings.simplefilter("always")
        ...     m = findrs.fit(df, "y", random_state=0, settings={"shuffle": False})
        >>> caught[0].category.__name__, m.contradictions
        ('ContradictionWarning', 2)
    """


class FindRSMemoryError(FindRSInputError, MemoryError):
    """A fit would need more memory than the machine has: the training structures grow with
    rows x the features' numbers of values, so a column with very many distinct values (an id)
    at many rows can need gigabytes. The message names the columns and the estimate. It is a
    :class:`FindRSInputError` and a ``MemoryError``. ``FINDRS_MEMORY_LIMIT=<bytes>`` sets the
    memory findrs assumes available.

    Example:
        >>> import findrs
        >>> issubclass(findrs.FindRSMemoryError, (findrs.FindRSInputError, MemoryError))
        True
    """


class IdentifierWarning(UserWarning):
    """A string or integer feature column holds a different value in every training row (an
    identifier, semantics §1): rules on it describe single rows and do not generalize; leave it
    out with ``features=[...]``. A text column with a different value in at least 90% of 1,000
    rows or more is left out of the default features with this warning.

    Example:
        >>> import findrs
        >>> issubclass(findrs.IdentifierWarning, UserWarning)
        True
    """
