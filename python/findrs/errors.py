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
