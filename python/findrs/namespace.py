"""The ``findrs`` namespace on Polars DataFrames and LazyFrames.

``df.findrs.fit`` takes exactly :func:`findrs.fit`'s parameters (spelled out, so an IDE shows
them; a test checks the signatures match).

Example:
    >>> import findrs, polars as pl
    >>> df = findrs.datasets.tic_tac_toe()
    >>> model = df.findrs.fit("class", "positive", shuffle=False, random_state=0)
    >>> df.findrs.predict(model).columns[-1]
    'class_predicted'
"""

from __future__ import annotations

from typing import Any, Literal, Sequence

import polars as pl

from .encode import check_columns
from .expressions import Engine, input_schema
from .learn import Auto, BinEdges, Direction, Encoding, IntervalEnds, Method, Numeric, Pair
from .learn import fit as _fit
from .bagged import BaggedModel
from .bagged import fit_bagged as _fit_bagged
from .exceptions import ExceptionsModel
from .model import ModelPair, RuleSetModel
from .params import DEFAULTS, NOT_GIVEN
from .multiclass import DEFAULT as _MULTICLASS_DEFAULT
from .multiclass import Multiclass


@pl.api.register_dataframe_namespace("findrs")
class DataFrameNamespace:
    """``df.findrs``: :func:`findrs.fit` and a model's prediction and explanation on a
    DataFrame.

    Example:
        >>> import findrs
        >>> df = findrs.datasets.tic_tac_toe()
        >>> m = df.findrs.fit("class", "positive", shuffle=False, random_state=0)
        >>> df.findrs.predict(m).select("class", "class_predicted").row(0)
        ('positive', 'positive')
    """

    def __init__(self, df: pl.DataFrame) -> None:
        self._df = df

    def fit(
        self,
        target: str,
        positive: Any | None = None,
        *,
        method: Method | Pair | None = None,
        encoding: Encoding | Auto = NOT_GIVEN["encoding"],
        tolerance: int | float | Auto = NOT_GIVEN["tolerance"],
        min_support: int | Auto = NOT_GIVEN["min_support"],
        direction: Direction | Auto = NOT_GIVEN["direction"],
        auto: bool = True,
        shuffle: bool = True,
        random_state: int | None = None,
        features: Sequence[str] | None = None,
        bins: int = 10,
        T: int = 100,
        n_jobs: int | None = None,
        n_rules: Literal["auto", "cv"] | int | None = "auto",
        accuracy_ratio: float = 0.99,
        simplify: bool | Auto = NOT_GIVEN["simplify"],
        max_rules: int | None = None,
        cv: int | None = None,
        cv_T: int | None = None,
        numeric: Numeric | None = None,
        interval_ends: IntervalEnds = "open",
        multiclass: Multiclass = _MULTICLASS_DEFAULT,
        cv_rows: int | Literal["auto"] | None = DEFAULTS["cv_rows"],
        bin_edges: BinEdges | None = None,
        chunks: int | None = None,
        verbose: bool = False,
        exceptions: bool | Literal["auto"] | None = None,
        best_of: int | None = None,
        run: int = 0,
    ) -> RuleSetModel | ModelPair | ExceptionsModel:
        """``findrs.fit(df, target, positive, ...)``; see :func:`findrs.fit` for the parameters.

        Raises:
            FindRSInputError: as :func:`findrs.fit` (e.g. a missing target column, or a Series
                passed as ``target``: name the column instead).

        Example:
            >>> import findrs
            >>> df = findrs.datasets.tic_tac_toe()
            >>> df.findrs.fit("class", "positive", method="find-rs", random_state=0).n_rules
            8
        """
        return _fit(
            self._df, target, positive, method=method, encoding=encoding, tolerance=tolerance,
            min_support=min_support, direction=direction, auto=auto, shuffle=shuffle, random_state=random_state,
            features=features, bins=bins, T=T, n_jobs=n_jobs, n_rules=n_rules, accuracy_ratio=accuracy_ratio,
            simplify=simplify, max_rules=max_rules, cv=cv, cv_T=cv_T, cv_rows=cv_rows, bin_edges=bin_edges, numeric=numeric,
            interval_ends=interval_ends, multiclass=multiclass, chunks=chunks, verbose=verbose, exceptions=exceptions,
            best_of=best_of, run=run,
        )

    def fit_bagged(self, target: str, positive: Any | None = None, *, n_estimators: int = 25,
                   random_state: int | None = None, **kwargs: Any) -> BaggedModel:
        """:func:`findrs.fit_bagged` on this frame: the majority vote of ``n_estimators``
        findrs models fitted on stratified bootstrap samples (``kwargs``: :func:`findrs.fit`'s
        keywords, given to each member).

        Raises:
            FindRSInputError: as :func:`findrs.fit_bagged`.

        Example:
            >>> import findrs
            >>> df = findrs.datasets.tic_tac_toe()
            >>> df.findrs.fit_bagged("class", "positive", n_estimators=3, random_state=0).n_estimators
            3
        """
        return _fit_bagged(self._df, target, positive, n_estimators=n_estimators, random_state=random_state, **kwargs)

    def predict(self, model: RuleSetModel | ExceptionsModel | BaggedModel, *, name: str | None = None, engine: Engine = "auto") -> pl.DataFrame:
        """The frame with a prediction column (default name ``<target>_predicted``).

        Raises:
            FindRSInputError: a feature column is missing or changed dtype, or an unknown engine.

        Example:
            >>> import findrs
            >>> df = findrs.datasets.tic_tac_toe()
            >>> m = df.findrs.fit("class", "positive", shuffle=False, random_state=0)
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
            >>> m = df.findrs.fit("class", "positive", shuffle=False, random_state=0)
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
        >>> m = df.findrs.fit("class", "positive", shuffle=False, random_state=0)
        >>> df.lazy().findrs.predict(m).select("class_predicted").collect().height
        958
    """

    def __init__(self, lf: pl.LazyFrame) -> None:
        self._lf = lf

    def fit(
        self,
        target: str,
        positive: Any | None = None,
        *,
        method: Method | Pair | None = None,
        encoding: Encoding | Auto = NOT_GIVEN["encoding"],
        tolerance: int | float | Auto = NOT_GIVEN["tolerance"],
        min_support: int | Auto = NOT_GIVEN["min_support"],
        direction: Direction | Auto = NOT_GIVEN["direction"],
        auto: bool = True,
        shuffle: bool = True,
        random_state: int | None = None,
        features: Sequence[str] | None = None,
        bins: int = 10,
        T: int = 100,
        n_jobs: int | None = None,
        n_rules: Literal["auto", "cv"] | int | None = "auto",
        accuracy_ratio: float = 0.99,
        simplify: bool | Auto = NOT_GIVEN["simplify"],
        max_rules: int | None = None,
        cv: int | None = None,
        cv_T: int | None = None,
        numeric: Numeric | None = None,
        interval_ends: IntervalEnds = "open",
        multiclass: Multiclass = _MULTICLASS_DEFAULT,
        cv_rows: int | Literal["auto"] | None = DEFAULTS["cv_rows"],
        bin_edges: BinEdges | None = None,
        chunks: int | None = None,
        verbose: bool = False,
        exceptions: bool | Literal["auto"] | None = None,
        best_of: int | None = None,
        run: int = 0,
    ) -> RuleSetModel | ModelPair | ExceptionsModel:
        """Collects the frame once and fits; see :func:`findrs.fit` for the parameters.

        Raises:
            FindRSInputError: as :func:`findrs.fit`.

        Example:
            >>> import findrs
            >>> lf = findrs.datasets.tic_tac_toe().lazy()
            >>> lf.findrs.fit("class", "positive", method="find-rs", random_state=0).n_rules
            8
        """
        return _fit(
            self._lf.collect(), target, positive, method=method, encoding=encoding, tolerance=tolerance,
            min_support=min_support, direction=direction, auto=auto, shuffle=shuffle, random_state=random_state,
            features=features, bins=bins, T=T, n_jobs=n_jobs, n_rules=n_rules, accuracy_ratio=accuracy_ratio,
            simplify=simplify, max_rules=max_rules, cv=cv, cv_T=cv_T, cv_rows=cv_rows, bin_edges=bin_edges, numeric=numeric,
            interval_ends=interval_ends, multiclass=multiclass, chunks=chunks, verbose=verbose, exceptions=exceptions,
            best_of=best_of, run=run,
        )

    def fit_bagged(self, target: str, positive: Any | None = None, *, n_estimators: int = 25,
                   random_state: int | None = None, **kwargs: Any) -> BaggedModel:
        """:func:`findrs.fit_bagged` on this query (collected once): the majority vote of ``n_estimators``
        findrs models fitted on stratified bootstrap samples (``kwargs``: :func:`findrs.fit`'s
        keywords, given to each member).

        Raises:
            FindRSInputError: as :func:`findrs.fit_bagged`.

        Example:
            >>> import findrs
            >>> df = findrs.datasets.tic_tac_toe()
            >>> df.lazy().findrs.fit_bagged("class", "positive", n_estimators=3, random_state=0).n_estimators
            3
        """
        return _fit_bagged(self._lf.collect(), target, positive, n_estimators=n_estimators, random_state=random_state, **kwargs)

    def predict(self, model: RuleSetModel | ExceptionsModel | BaggedModel, *, name: str | None = None, engine: Engine = "auto") -> pl.LazyFrame:
        """The query with a prediction column added (lazy; streams). The columns are checked
        first, so a missing one raises the same error as in :meth:`RuleSetModel.predict`.

        Raises:
            FindRSInputError: a feature column is missing or changed dtype, or an unknown engine.

        Example:
            >>> import findrs
            >>> df = findrs.datasets.tic_tac_toe()
            >>> m = df.findrs.fit("class", "positive", shuffle=False, random_state=0)
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
            >>> m = df.findrs.fit("class", "positive", shuffle=False, random_state=0)
            >>> df.lazy().findrs.explain(m).collect().columns[-2:]
            ['nearest_rule', 'failed_conditions']
        """
        check_columns(self._lf, model.encoders)
        return model._explained(self._lf, top, keep=True)
