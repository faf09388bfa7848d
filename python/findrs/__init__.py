"""findrs: readable rule sets (FIND-RS, FIND-RS-BO, FIND-RS-BP) learned on Polars frames.

Example:
    >>> import findrs
    >>> df = findrs.datasets.tic_tac_toe()
    >>> model = df.findrs.fit("class", "positive", random_state=0, settings={"shuffle": False})  # chosen by CV
    >>> print(model)  # doctest: +ELLIPSIS
    FIND-RS (AV, tolerance 0): class = 'positive'
    settings chosen by 5-fold cross-validation (auto=False fits the paper's): encoding='av', tolerance=0, ...
    positive when any of these 8 rules holds:
    ...
    >>> paper = df.findrs.fit("class", "positive", auto=False, settings={"shuffle": False})  # the paper's
"""

from __future__ import annotations

import polars as _polars

from .polars_floor import check_polars as _check_polars

_check_polars(_polars.__version__)  # before anything builds a Polars query

from . import datasets
from .bagged import BaggedModel
from .bagging import fit_bagged
from .base import Model
from .loader import load
from . import namespace as _namespace  # noqa: F401  (registers df.findrs / lf.findrs)
from .config import Config
from .errors import ContradictionWarning, FindRSInputError, FindRSMemoryError, IdentifierWarning
from .exceptions import ExceptionsModel
from .learn import fit
from .model import ModelPair, RuleSetModel, __version__
from .settings import Settings

__all__ = [
    "BaggedModel", "Config", "ContradictionWarning", "ExceptionsModel", "FindRSInputError", "FindRSMemoryError", "IdentifierWarning", "Model", "ModelPair",
    "RuleSetModel", "Settings", "__version__", "datasets", "fit", "fit_bagged", "load",
]
