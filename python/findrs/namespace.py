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

from .encode import check_columns
from .learn import fit as _fit
from .model import RuleSetModel


@pl.api.register_dataframe_namespace("findrs")
class DataFrameNamespace:
    def __init__(self, df: pl.DataFrame) -> None:
        self._df = df

    def fit(self, target: str, positive: Any | None = None, **kwargs: Any) -> RuleSetModel:
        """``findrs.fit(df, target, positive, **kwargs)``; see :func:`findrs.fit`."""
        return _fit(self._df, target, positive, **kwargs)

    def predict(self, model: RuleSetModel, *, name: str | None = None, engine: str = "auto") -> pl.DataFrame:
        """The frame with a prediction column (default name ``<target>_predicted``)."""
        check_columns(self._df, model.encoders)
        expr = model.predict_expr(engine=engine)  # type: ignore[arg-type]
        return self._df.with_columns(expr.alias(name) if name else expr)

    def explain(self, model: RuleSetModel, *, top: int | None = None) -> pl.DataFrame:
        """The frame with the prediction, the score and the fired rules (ids and texts)."""
        check_columns(self._df, model.encoders)
        return self._df.with_columns(model.explain_exprs(top=top)).with_columns(model.fired_texts_expr())


@pl.api.register_lazyframe_namespace("findrs")
class LazyFrameNamespace:
    def __init__(self, lf: pl.LazyFrame) -> None:
        self._lf = lf

    def fit(self, target: str, positive: Any | None = None, **kwargs: Any) -> RuleSetModel:
        """Collects the frame once and fits; see :func:`findrs.fit`."""
        return _fit(self._lf.collect(), target, positive, **kwargs)

    def predict(self, model: RuleSetModel, *, name: str | None = None, engine: str = "auto") -> pl.LazyFrame:
        """The query with a prediction column added (lazy; streams)."""
        check_columns(self._lf, model.encoders)
        expr = model.predict_expr(engine=engine)  # type: ignore[arg-type]
        return self._lf.with_columns(expr.alias(name) if name else expr)

    def explain(self, model: RuleSetModel, *, top: int | None = None) -> pl.LazyFrame:
        """The query with the prediction, the score and the fired rules (ids and texts)."""
        check_columns(self._lf, model.encoders)
        return self._lf.with_columns(model.explain_exprs(top=top)).with_columns(model.fired_texts_expr())
