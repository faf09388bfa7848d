"""findrs: readable rule sets (FIND-RS, FIND-RS-BO, FIND-RS-BP) learned on Polars frames.

Example:
    >>> import findrs
    >>> df = findrs.datasets.tic_tac_toe()
    >>> model = df.findrs.fit("class", "positive", shuffle=False)
    >>> print(model)  # doctest: +ELLIPSIS
    FIND-RS (AV, tolerance 0): class = 'positive'
    positive when any of these 8 rules holds:
    ...
"""

from __future__ import annotations

from . import datasets
from . import namespace as _namespace  # noqa: F401  (registers df.findrs / lf.findrs)
from .config import Config
from .errors import ContradictionWarning, FindRSInputError, FindRSMemoryError, IdentifierWarning
from .learn import fit
from .model import RuleSetModel, __version__

__all__ = [
    "Config", "ContradictionWarning", "FindRSInputError", "FindRSMemoryError", "IdentifierWarning", "RuleSetModel",
    "__version__", "datasets", "fit",
]
