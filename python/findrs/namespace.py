"""The ``findrs`` namespace on Polars DataFrames and LazyFrames.

Example:
    >>> import findrs, polars as pl
    >>> df = findrs.datasets.tic_tac_toe()
    >>> model = df.findrs.fit("class", "positive", shuffle=False)
    >>> df.findrs.predict(model).columns[-1]
    'class_predicted'
"""

from __future__ import annotations

from typing import Any

import polars as pl

from .learn import fit as _fit
from .model import RuleSetModel


@pl.api.register_dataframe_namespace("findrs")
class DataFrameNamespace:
    def __init__(self, df: pl.DataFrame) -> None:
        self._df = df

    def fit(self, target: str, positive: Any | None = None, **kwargs: Any) -> RuleSetModel:
        """``findrs.fit(df, target, positive, **kwargs)``; see :func:`findrs.fit`."""
        return _fit(self._df, target, positive, **kwargs)

    def predict(self, model: RuleSetModel, *, name: str | None = None) -> pl.DataFrame:
        """The frame with a prediction column (default name ``<target>_predicted``)."""
        col = name or f"{model.target.name}_predicted"
        return self._df.with_columns(model.predict(self._df).alias(col))


@pl.api.register_lazyframe_namespace("findrs")
class LazyFrameNamespace:
    def __init__(self, lf: pl.LazyFrame) -> None:
        self._lf = lf

    def fit(self, target: str, positive: Any | None = None, **kwargs: Any) -> RuleSetModel:
        """Collects the frame once and fits; see :func:`findrs.fit`."""
        return _fit(self._lf.collect(), target, positive, **kwargs)
