"""The one model type: :class:`Model`, the surface every fitted findrs model offers
(:func:`findrs.load` reads every kind back).

Whatever a fit returns (a binary or multiclass :class:`~findrs.RuleSetModel`, rules with
exceptions, a bagged vote) is a :class:`Model`: the same methods with the same signatures, so
one script serves every kind. A capability that only some kinds have (a BP vote's ``K``, a
vote's margin as an expression) is a method of those kinds alone, never a method that raises.

Invariant this module keeps: it imports no model module (each kind imports it).

Example:
    >>> import findrs
    >>> df = findrs.datasets.tic_tac_toe()
    >>> m = findrs.fit(df, "class", "positive", random_state=0)
    >>> isinstance(m, findrs.Model), findrs.load(m.to_json()).to_json() == m.to_json()
    (True, True)
"""

from __future__ import annotations

import abc
import html
import os
from types import EllipsisType
from typing import Any, Sequence

import polars as pl

from ..data.columns import check_columns
from ..data.frames import as_polars
from ..errors import FindRSInputError
from ..export import expressions


RULES_COLUMNS = ("id", "text", "label", "kind", "constraints", "weight", "train_positives", "train_negatives", "kept")
"""The columns every model's :attr:`Model.rules` starts with, in this order (a kind may add
its own after them)."""


class Model(abc.ABC):
    """A fitted findrs model: rules that decide rows, and every way to use them.

    Subclasses: :class:`~findrs.RuleSetModel` (FIND-RS, BO, BP; binary or multiclass),
    :class:`~findrs.ExceptionsModel` (rules with exceptions), :class:`~findrs.BaggedModel` (a
    majority vote of models).

    Example:
        >>> import findrs
        >>> df = findrs.datasets.tic_tac_toe()
        >>> for m in (findrs.fit(df, "class", "positive", random_state=0),
        ...           findrs.fit(df, "class", "positive", random_state=0, auto=False, settings={"exceptions": True})):
        ...     print(type(m).__name__, round(m.score(df), 3), m.rules.columns[:3])
        RuleSetModel 1.0 ['id', 'text', 'label']
        ExceptionsModel 1.0 ['id', 'text', 'label']
    """

    params: dict[str, Any]
    target: Any
    encoders: Any

    # ----------------------------------------------------------------- what it is
    @property
    @abc.abstractmethod
    def rules(self) -> pl.DataFrame:
        """The rules, one row each, with the columns :data:`RULES_COLUMNS` first: ``id``,
        ``text``, ``label`` (the label the rule votes for), ``kind`` (``"rule"``, or
        ``"exception"`` for an exception rule), ``constraints``, ``weight``,
        ``train_positives`` / ``train_negatives`` (training rows of the rule's label / of the
        others it covers; null where a kind has no training counts) and ``kept`` (votes)."""

    @property
    @abc.abstractmethod
    def n_rules(self) -> int:
        """How many rules vote."""

    @property
    @abc.abstractmethod
    def features(self) -> list[str]:
        """The feature columns, in model order."""

    @property
    def cv_results(self) -> pl.DataFrame | None:
        """The cross-validation that chose the settings, one row per candidate (``None`` when
        nothing was chosen). On large frames the candidates are those of the last stage of the
        successive halving (docs/semantics.md §9.4): each scored on the whole sample."""
        return None

    # ----------------------------------------------------------------- predict
    @abc.abstractmethod
    def predict(self, data: Any, *, labels: bool = True) -> pl.Series:
        """The predicted label of every row of ``data`` (``labels=False``: whether it is
        positive; multiclass models always give labels).

        Raises:
            FindRSInputError: a feature column is missing or changed dtype.

        Example:
            >>> import findrs
            >>> df = findrs.datasets.tic_tac_toe()
            >>> m = findrs.fit(df, "class", "positive", random_state=0)
            >>> m.predict(df.head(2)).to_list()
            ['positive', 'positive']
        """

    @abc.abstractmethod
    def predict_expr(self, *, labels: bool = True, engine: Any = "auto") -> pl.Expr:
        """:meth:`predict` as a Polars expression, for lazy and streaming queries.

        Raises:
            FindRSInputError: an unknown engine.

        Example:
            >>> import findrs
            >>> df = findrs.datasets.tic_tac_toe()
            >>> m = findrs.fit(df, "class", "positive", random_state=0)
            >>> df.lazy().select(m.predict_expr()).collect().to_series().head(1).to_list()
            ['positive']
        """

    @abc.abstractmethod
    def decision_function(self, data: Any) -> pl.Series | pl.DataFrame:
        """A score per row whose sign (or, multiclass, whose largest column) is the prediction.

        Raises:
            FindRSInputError: a feature column is missing or changed dtype.

        Example:
            >>> import findrs
            >>> df = findrs.datasets.tic_tac_toe()
            >>> m = findrs.fit(df, "class", "positive", random_state=0)
            >>> (m.decision_function(df.head(1)) > 0).to_list()
            [True]
        """

    def predict_proba_expr(self) -> pl.Expr:
        """:meth:`predict_proba` as a Polars expression (DataFrames and LazyFrames), named
        ``<target>_probability``: a ``Float64`` (binary) or a struct of one ``Float64`` field per
        class, named by the label as text (multiclass).

        Raises:
            FindRSInputError: a feature column is missing when the query runs (Polars'
                ``ColumnNotFoundError``; :meth:`predict_proba` checks first).

        Example:
            >>> import findrs
            >>> df = findrs.datasets.tic_tac_toe()
            >>> m = findrs.fit(df, "class", "positive", random_state=0, auto=False)
            >>> df.lazy().select(m.predict_proba_expr()).collect().columns
            ['class_probability']
        """
        return self._proba_expr().alias(f"{self.target.name}_probability")

    @abc.abstractmethod
    def _proba_expr(self) -> pl.Expr:
        """The kind's probability expression (:mod:`findrs.models.proba`), unnamed."""

    def predict_proba(self, data: Any) -> pl.Series | pl.DataFrame:
        """A graded probability per row from the training counts of the rules that fire
        (docs/semantics.md §6, "Probabilities"): binary models give a ``Float64`` Series named
        ``probability``, the probability of the positive label, above 1/2 exactly where
        :meth:`predict` says the positive label (1/2 itself is negative); multiclass models a
        DataFrame of one column per class (named by the label as text) summing to 1 per row,
        largest at :meth:`predict`'s class.

        Raises:
            FindRSInputError: a feature column is missing or changed dtype.

        Example:
            >>> import findrs
            >>> df = findrs.datasets.tic_tac_toe()
            >>> m = findrs.fit(df, "class", "positive", random_state=0, auto=False)
            >>> p = m.predict_proba(df)
            >>> bool(((p > 0.5) == m.predict(df, labels=False)).all()), p.min() > 0.0
            (True, True)
        """
        df = self._frame(data)
        with expressions.input_schema(df.schema):
            out = df.select(self.predict_proba_expr())
        if self.target.classes is not None:
            return out.unnest(out.columns[0])
        return out.to_series().alias("probability")

    @abc.abstractmethod
    def explain(self, data: Any) -> pl.DataFrame:
        """``data`` with the prediction and the rules that decided it.

        Raises:
            FindRSInputError: a feature column is missing or changed dtype.

        Example:
            >>> import findrs
            >>> df = findrs.datasets.tic_tac_toe()
            >>> m = findrs.fit(df, "class", "positive", random_state=0)
            >>> m.explain(df.head(1)).height
            1
        """

    def score(self, data: Any, target: str | None = None) -> float:
        """Accuracy on ``data`` (its ``target`` column, by default the model's).

        Raises:
            FindRSInputError: the target or a feature column is missing.

        Example:
            >>> import findrs
            >>> df = findrs.datasets.tic_tac_toe()
            >>> m = findrs.fit(df, "class", "positive", random_state=0, auto=False, settings=dict(exceptions=True))
            >>> m.score(df) > 0.9
            True
        """
        df = self._frame(data)
        name = target or self.target.name
        if name not in df.columns:
            raise FindRSInputError(f"the target column {name!r} is not in the frame; pass target=<column>")
        truth = df.get_column(name) == self.target.positive
        return float((self.predict(df, labels=False) == truth).mean())  # type: ignore[arg-type]

    def importance(self, data: Any, target: str | None = None) -> pl.DataFrame:
        """A global view: per voting rule (``kind`` ``"rule"`` or ``"exception"``, ``id`` and
        ``name`` as in :attr:`rules`) and per feature (``kind`` ``"feature"``, ``name`` the
        column), ``decides`` (rows of ``data`` whose prediction changes without it) and
        ``accuracy_drop`` (accuracy on ``data`` minus accuracy without it; negative when the
        model is better off without it), most important first. Without a rule: that rule no
        longer fires; without a feature: every condition on it passes; the other rules' weights
        and the thresholds stay (docs/semantics.md §6, "Importance"). The model keeps no
        training rows, so pass them: ``data`` is the training frame (or any labelled frame)
        with its ``target`` column (default: the model's).

        Raises:
            FindRSInputError: the target column or a feature column is missing.

        Example:
            >>> import findrs
            >>> df = findrs.datasets.tic_tac_toe()
            >>> m = findrs.fit(df, "class", "positive", random_state=0, auto=False)
            >>> imp = m.importance(df)
            >>> imp.columns, imp.row(0)[0]
            (['kind', 'id', 'name', 'decides', 'accuracy_drop'], 'feature')
        """
        from . import importance

        return importance.table(self, self._frame(data), target or self.target.name)

    def _frame(self, data: Any) -> pl.DataFrame:
        """``data`` as a Polars frame holding the model's feature columns (checked)."""
        df = as_polars(data)
        check_columns(df, self.encoders)
        return df

    # ----------------------------------------------------------------- export
    @abc.abstractmethod
    def to_expr(self) -> pl.Expr:
        """The prediction as a plain Polars expression (no plugin).

        Raises:
            FindRSInputError: nothing for a fitted model (a model file is checked on load).

        Example:
            >>> import findrs
            >>> df = findrs.datasets.tic_tac_toe()
            >>> m = findrs.fit(df, "class", "positive", random_state=0)
            >>> df.head(1).select(m.to_expr()).item()
            True
        """

    @abc.abstractmethod
    def to_sql(self, *, table: str | Sequence[str] | None = None, dialect: str = "duckdb") -> str:
        """A ``SELECT`` that adds the prediction to ``table`` in DuckDB or SQLite.

        Raises:
            FindRSInputError: an unknown dialect, or column names SQL cannot tell apart.

        Example:
            >>> import findrs
            >>> df = findrs.datasets.tic_tac_toe()
            >>> m = findrs.fit(df, "class", "positive", random_state=0)
            >>> m.to_sql(table="t").startswith("SELECT")
            True
        """

    @abc.abstractmethod
    def to_json(self, path: str | os.PathLike[str] | None = None) -> str:
        """The model as JSON text (written to ``path`` too, if given); :func:`findrs.load` reads it.

        Raises:
            FindRSInputError: nothing; ``OSError`` when ``path`` cannot be written.

        Example:
            >>> import findrs
            >>> df = findrs.datasets.tic_tac_toe()
            >>> m = findrs.fit(df, "class", "positive", random_state=0)
            >>> findrs.load(m.to_json()).to_json() == m.to_json()
            True
        """

    @abc.abstractmethod
    def to_text(self, *, max_rules: int | None | EllipsisType = ...) -> str:
        """What ``print(model)`` shows.

        Raises:
            FindRSInputError: ``max_rules`` not ``None`` or at least 1.

        Example:
            >>> import findrs
            >>> df = findrs.datasets.tic_tac_toe()
            >>> m = findrs.fit(df, "class", "positive", random_state=0)
            >>> m.to_text().splitlines()[0]
            "FIND-RS (AV, tolerance 0): class = 'positive'"
        """

    def to_markdown(self, *, max_rules: int | None | EllipsisType = ...) -> str:
        """:meth:`to_text` as a Markdown block (notebooks render it).

        Raises:
            FindRSInputError: as :meth:`to_text`.

        Example:
            >>> import findrs
            >>> df = findrs.datasets.tic_tac_toe()
            >>> m = findrs.fit(df, "class", "positive", random_state=0)
            >>> len(m.to_markdown().splitlines()) > 3
            True
        """
        return "```text\n" + self.to_text(max_rules=max_rules) + "\n```\n"

    def _repr_html_(self) -> str:
        return "<pre>" + html.escape(self.to_text()) + "</pre>"

    def __str__(self) -> str:
        return self.to_text()
