"""The ``findrs`` namespace on Polars DataFrames and LazyFrames.

``df.findrs.fit`` forwards to :func:`findrs.fit` with the frame first; its signature is
``fit``'s own (``help`` and IDEs show it), so no parameter list is written twice.

Example:
    >>> import findrs, polars as pl
    >>> df = findrs.datasets.tic_tac_toe()
    >>> model = df.findrs.fit("class", "positive", random_state=0, settings={"shuffle": False})
    >>> df.findrs.predict(model).columns[-1]
    'class_predicted'
"""

from __future__ import annotations

import functools
import inspect
from typing import Any, Callable

import polars as pl

from .data.columns import check_columns
from .export.expressions import Engine, input_schema
from .learning.learn import fit as _fit
from .models.bagged import BaggedModel
from .learning.bagging import fit_bagged as _fit_bagged
from .models.exceptions import ExceptionsModel
from .models.model import ModelPair, RuleSetModel


def _forward(function: Callable[..., Any], frame: str, doc: str) -> Callable[..., Any]:
    """A method that calls ``function`` with the namespace's frame (a LazyFrame collected once)
    as its first argument: the signature is ``function``'s own, not a copy (polars-xdt's way)."""

    @functools.wraps(function)
    def method(self: Any, *args: Any, **kwargs: Any) -> Any:
        data = getattr(self, frame)
        return function(data.collect() if isinstance(data, pl.LazyFrame) else data, *args, **kwargs)

    sig = inspect.signature(function)
    method.__signature__ = sig.replace(  # type: ignore[attr-defined]
        parameters=[inspect.Parameter("self", inspect.Parameter.POSITIONAL_ONLY), *list(sig.parameters.values())[1:]])
    method.__doc__ = doc
    del method.__wrapped__  # help() and IDEs read __signature__, with self
    return method


@pl.api.register_dataframe_namespace("findrs")
class DataFrameNamespace:
    """``df.findrs``: :func:`findrs.fit` and a model's prediction and explanation on a
    DataFrame.

    Example:
        >>> import findrs
        >>> df = findrs.datasets.tic_tac_toe()
        >>> m = df.findrs.fit("class", "positive", random_state=0, settings={"shuffle": False})
        >>> df.findrs.predict(m).select("class", "class_predicted").row(0)
        ('positive', 'positive')
    """

    def __init__(self, df: pl.DataFrame) -> None:
        self._df = df

    fit = _forward(_fit, "_df", """``findrs.fit(df, target, ...)`` on this frame: see :func:`findrs.fit`.

        Raises:
            FindRSInputError: as :func:`findrs.fit` (e.g. a missing target column, or a Series
                passed as ``target``: name the column instead).

        Example:
            >>> import findrs
            >>> df = findrs.datasets.tic_tac_toe()
            >>> df.findrs.fit("class", "positive", method="find-rs", random_state=0).n_rules
            8
        """)
    fit_bagged = _forward(_fit_bagged, "_df", """:func:`findrs.fit_bagged` on this frame: the majority vote of
        ``n_estimators`` findrs models fitted on stratified bootstrap samples.

        Raises:
            FindRSInputError: as :func:`findrs.fit_bagged`.

        Example:
            >>> import findrs
            >>> df = findrs.datasets.tic_tac_toe()
            >>> df.findrs.fit_bagged("class", "positive", n_estimators=3, random_state=0).n_estimators
            3
        """)

    def predict(self, model: RuleSetModel | ExceptionsModel | BaggedModel, *, name: str | None = None, engine: Engine = "auto") -> pl.DataFrame:
        """The frame with a prediction column (default name ``<target>_predicted``).

        Raises:
            FindRSInputError: a feature column is missing or changed dtype, or an unknown engine.

        Example:
            >>> import findrs
            >>> df = findrs.datasets.tic_tac_toe()
            >>> m = df.findrs.fit("class", "positive", random_state=0, settings={"shuffle": False})
            >>> df.findrs.predict(m, name="guess")["guess"][0]
            'positive'
        """
        check_columns(self._df, model.encoders)
        with input_schema(self._df.schema):
            expr = model.predict_expr(engine=engine)
        return self._df.with_columns(expr.alias(name) if name else expr)

    def explain(self, model: RuleSetModel | ExceptionsModel | BaggedModel, *, top: int | None = None) -> pl.DataFrame:
        """The frame with the prediction, the decision value, its strength, the fired rules (ids
        and texts) and the nearest rule with its failed conditions, as
        :meth:`RuleSetModel.explain` gives them.

        Raises:
            FindRSInputError: a feature column is missing or changed dtype.

        Example:
            >>> import findrs
            >>> df = findrs.datasets.tic_tac_toe()
            >>> m = df.findrs.fit("class", "positive", random_state=0, settings={"shuffle": False})
            >>> df.head(1).findrs.explain(m, top=1)["fired_rules"].to_list()
            [[0]]
        """
        check_columns(self._df, model.encoders)
        return model._explained(self._df, top, keep=True)


@pl.api.register_lazyframe_namespace("findrs")
class LazyFrameNamespace:
    """``lf.findrs``: the same on a LazyFrame; ``fit`` collects it once, ``predict`` and
    ``explain`` add lazy columns (the streaming engine runs them).

    Example:
        >>> import findrs
        >>> df = findrs.datasets.tic_tac_toe()
        >>> m = df.findrs.fit("class", "positive", random_state=0, settings={"shuffle": False})
        >>> df.lazy().findrs.predict(m).select("class_predicted").collect().height
        958
    """

    def __init__(self, lf: pl.LazyFrame) -> None:
        self._lf = lf

    fit = _forward(_fit, "_lf", """Collects the query once and fits: see :func:`findrs.fit`.

        Raises:
            FindRSInputError: as :func:`findrs.fit`.

        Example:
            >>> import findrs
            >>> lf = findrs.datasets.tic_tac_toe().lazy()
            >>> lf.findrs.fit("class", "positive", method="find-rs", random_state=0).n_rules
            8
        """)
    fit_bagged = _forward(_fit_bagged, "_lf", """:func:`findrs.fit_bagged` on this query (collected once).

        Raises:
            FindRSInputError: as :func:`findrs.fit_bagged`.

        Example:
            >>> import findrs
            >>> df = findrs.datasets.tic_tac_toe()
            >>> df.lazy().findrs.fit_bagged("class", "positive", n_estimators=3, random_state=0).n_estimators
            3
        """)

    def predict(self, model: RuleSetModel | ExceptionsModel | BaggedModel, *, name: str | None = None, engine: Engine = "auto") -> pl.LazyFrame:
        """The query with a prediction column added (lazy; streams). The columns are checked
        first, so a missing one raises the same error as in :meth:`RuleSetModel.predict`.

        Raises:
            FindRSInputError: a feature column is missing or changed dtype, or an unknown engine.

        Example:
            >>> import findrs
            >>> df = findrs.datasets.tic_tac_toe()
            >>> m = df.findrs.fit("class", "positive", random_state=0, settings={"shuffle": False})
            >>> df.lazy().findrs.predict(m).collect(engine="streaming").columns[-1]
            'class_predicted'
        """
        check_columns(self._lf, model.encoders)
        with input_schema(self._lf.collect_schema()):
            expr = model.predict_expr(engine=engine)
        return self._lf.with_columns(expr.alias(name) if name else expr)

    def explain(self, model: RuleSetModel | ExceptionsModel | BaggedModel, *, top: int | None = None) -> pl.LazyFrame:
        """The query with the prediction, the decision value, its strength, the fired rules (ids
        and texts) and the nearest rule with its failed conditions (as
        :meth:`RuleSetModel.explain`).

        Raises:
            FindRSInputError: a feature column is missing or changed dtype.

        Example:
            >>> import findrs
            >>> df = findrs.datasets.tic_tac_toe()
            >>> m = df.findrs.fit("class", "positive", random_state=0, settings={"shuffle": False})
            >>> df.lazy().findrs.explain(m).collect().columns[-2:]
            ['nearest_rule', 'failed_conditions']
        """
        check_columns(self._lf, model.encoders)
        return model._explained(self._lf, top, keep=True)
