"""``findrs.load``: every kind of model file, read back (the one loader).

Invariant: it dispatches on a document's ``format`` alone and reads the text once; the kinds'
own checks decide the rest.
"""

from __future__ import annotations

import os

from .bagged import FORMAT as BAGGED
from .bagged import BaggedModel
from .base import Model
from .exceptions import FORMAT as EXCEPTIONS
from .exceptions import ExceptionsModel
from .model import RuleSetModel
from .rule_set_files import document_format, source_text


def load(source: str | os.PathLike[str]) -> Model:
    """Reads any model :meth:`Model.to_json` wrote: a path, or the JSON text itself.

    Args:
        source: a path (``str`` or path-like) of a model file, or its JSON text.

    Returns:
        The model, of the kind the document holds.

    Raises:
        FindRSInputError: no such file (a string that is not JSON text and names no file), text
            that is not a findrs model document, or a document that fails its checks (the
            message says which).

    Example:
        >>> import findrs
        >>> m = findrs.fit(findrs.datasets.tic_tac_toe(), "class", "positive", random_state=0)
        >>> findrs.load(m.to_json()).n_rules == m.n_rules
        True
    """
    text = source_text(source)
    kind = document_format(text)
    if kind == EXCEPTIONS:
        return ExceptionsModel.from_json(text)
    if kind == BAGGED:
        return BaggedModel.from_json(text)
    return RuleSetModel.from_json(text)
