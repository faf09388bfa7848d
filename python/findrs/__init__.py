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
from .models.bagged import BaggedModel
from .learning.bagging import fit_bagged
from .models.base import Model
from .models.loader import load
from . import namespace as _namespace  # noqa: F401  (registers df.findrs / lf.findrs)
from .config import Config
from .errors import ContradictionWarning, FindRSInputError, FindRSMemoryError, IdentifierWarning
from .models.exceptions import ExceptionsModel
from .learning.learn import fit
from .models.model import ModelPair, RuleSetModel, __version__
from .settings import Settings

__all__ = [
    "BaggedModel", "Config", "ContradictionWarning", "ExceptionsModel", "FindRSInputError", "FindRSMemoryError", "IdentifierWarning", "Model", "ModelPair",
    "RuleSetModel", "Settings", "__version__", "datasets", "fit", "fit_bagged", "load",
]
