"""Exceptions and warnings raised by findrs.

Every error about the user's data is a :class:`FindRSInputError` (a ``ValueError``) whose message
names the column, the offending value and a fix.
"""

from __future__ import annotations


class FindRSInputError(ValueError):
    """Bad input: a missing or unusable column, a bad label, an empty frame, a bad parameter."""


class ContradictionWarning(UserWarning):
    """The training data hold identical rows with both labels (semantics §1); they are legal, and
    ``model.contradictions`` counts the rows involved."""


class FindRSMemoryError(FindRSInputError, MemoryError):
    """A fit would need more memory than the machine has: the training structures grow with
    rows x the features' numbers of values, so a column with very many distinct values (an id)
    at many rows can need gigabytes. The message names the columns and the estimate. It is a
    :class:`FindRSInputError` and a ``MemoryError``."""
