"""``RuleSetModel``: a fitted rule set (FIND-RS), vote of rule sets (BO) or weighted rule set (BP).

A model is the Rust core's model value (rules, weights, runs, K, T, threshold, decision; held
by the extension module) plus the encoders that turn a frame into codes and the target. This
module is the only one that touches the extension (``findrs._core``): everything else reads the
model's public members, and exporters its public view, :attr:`RuleSetModel.vote`.

Predictions (eager or in a Polars query) all go through one path: the encoders' Polars
expressions, then the core's expression plugin. The JSON form (format version 2) is the core's
one serialization; version 1 files are converted on load.

A multiclass model (docs/semantics.md §10) holds the core's multiclass model: its class sets
are binary models (:attr:`RuleSetModel.class_models`), its combination is printed by
:mod:`findrs.models.multiclass`, and the core's plugin decides each row's class.
"""

from __future__ import annotations

import hashlib
import warnings
from dataclasses import dataclass
from typing import Any, Iterator, Sequence

import numpy as np
import polars as pl

from .. import _core
from ..select import auto
from ..select import multiclass as multiclass_settings
from ..export import expressions
from . import multiclass
from ..data.encode import FeatureEncoder, check_columns
from .base import Model
from ..errors import FindRSInputError
from .multiclass import Combination
from ..data.frames import as_polars
from ..export.nearest import Nearest
from ..select.params import MAX_T
from ..export.sql import model_to_sql
from ..data.target import Target
from ..export.text import constraint_text
from ..export.view import Constraint, Vote
from .rule_set_parts import FORMAT_VERSION, _parse_dtype
from .rule_set_explain import _Explaining
from .rule_set_files import _Files
from .rule_set_fit import _Fitting
from .rule_set_path import _Path
from .rule_set_view import _Reading


@dataclass(frozen=True)
class ModelPair:
    """The BO and the BP model of one set of runs: what ``findrs.fit(..., method="bo+bp")``
    returns; it unpacks as ``bo, bp``. Each is exactly the model of a separate ``method="bo"`` /
    ``method="bp"`` fit with the same data, parameters and ``random_state`` (docs/semantics.md
    §5.1).

    Example:
        >>> import findrs
        >>> df = findrs.datasets.tic_tac_toe()
        >>> bo, bp = findrs.fit(df, "class", "positive", method="bo+bp", random_state=0, auto=False, settings=dict(T=5))
        >>> (bo.method, bp.method, bo.params["random_state"] == bp.params["random_state"])
        ('bo', 'bp', True)
    """

    bo: RuleSetModel
    bp: RuleSetModel

    def __iter__(self) -> Iterator["RuleSetModel"]:
        return iter((self.bo, self.bp))


__version__: str = _core.__version__
assert _core.MAX_RUNS == MAX_T and _core.FORMAT_VERSION == FORMAT_VERSION, "findrs._core does not match"


class RuleSetModel(_Fitting, _Files, _Reading, _Explaining, _Path, Model):
    """A fitted findrs model. Build one with ``df.findrs.fit(...)`` or :func:`findrs.fit`.

    Its members, by use:

    - what it is: :attr:`method`, :attr:`encoding`, :attr:`T`, :attr:`n_rules` (K),
      :attr:`n_rules_found`, :attr:`features`, :attr:`encoders`, :attr:`target`,
      :attr:`positive`, :attr:`params`, :attr:`random_state`, :attr:`contradictions`,
      :attr:`cv_results` (automatic settings), :attr:`rules` (the table) and :attr:`vote` (the
      public view exporters print); ``print(model)``, :meth:`to_text`, :meth:`to_markdown` and
      the notebook view;
    - on a frame: :meth:`predict`, :meth:`decision_function`, :meth:`score` (accuracy),
      :meth:`explain`, :meth:`predict_proba` (graded probabilities), :meth:`importance` (what
      each rule and feature decides on a labelled frame);
    - in a Polars query: :meth:`predict_expr`, :meth:`decision_expr`, :meth:`strength_expr`,
      :meth:`explain_expr`, :meth:`why_not_expr`, :meth:`predict_proba_expr`;
    - exported: :meth:`to_expr`, :meth:`to_sql`, :meth:`to_json` / :meth:`from_json` (and pickle);
    - BP only: :meth:`with_n_rules`, :meth:`pruning_curve`.

    Attributes:
        encoders: one :class:`~findrs.data.encode.FeatureEncoder` per feature, in model order.
        target: the :class:`~findrs.data.target.Target` (column, labels).
        params: the fit's parameters (see :mod:`findrs.select.params`).

    Example:
        >>> import findrs
        >>> df = findrs.datasets.tic_tac_toe()
        >>> model = df.findrs.fit("class", "positive", random_state=0, settings=dict(shuffle=False))
        >>> model.predict(df).head(2).to_list()
        ['positive', 'positive']
        >>> model.n_rules
        8
    """

    def __init__(
        self,
        core: _core.CoreModel | _core.CoreMulticlass,
        encoders: Sequence[FeatureEncoder],
        target: Target,
        params: dict[str, Any],
        training: dict[str, Any],
        cv: dict[str, Any] | None = None,
    ) -> None:
        self._core = core
        self.encoders: tuple[FeatureEncoder, ...] = tuple(encoders)
        self.target: Target = target
        self.params: dict[str, Any] = dict(params)
        self._training: dict[str, Any] = dict(training)
        self._cv = cv
        self._rules_df: pl.DataFrame | None = None
        self._vote: Vote | None = None
        self._texts: list[str] | None = None
        self._kwargs: dict[str, str] | None = None
        self._csr: tuple[np.ndarray, np.ndarray] | None = None
        self._voting_texts: pl.Series | None = None
        self._nearest: Nearest | None = None
        self._class_models: tuple[RuleSetModel, ...] | None = None


    def __reduce__(self) -> tuple[Any, ...]:
        # Pickle (copy, joblib, multiprocessing) through the JSON form.
        return (RuleSetModel.from_json, (self.to_json(),))

    # ----------------------------------------------------------------- description
    @property
    def method(self) -> str:
        """``"find-rs"``, ``"bo"`` or ``"bp"``."""
        return self._core.method

    @property
    def encoding(self) -> str:
        """``"av"`` or ``"oh"`` (docs/semantics.md §2)."""
        return self.params["encoding"]

    @property
    def features(self) -> list[str]:
        """The feature columns, in the order the model uses them."""
        return [e.name for e in self.encoders]

    @property
    def positive(self) -> Any:
        """The label the rules describe (``None`` for a multiclass model)."""
        return self.target.positive

    @property
    def classes(self) -> list[Any] | None:
        """A multiclass model's class labels, sorted; ``None`` for a binary model."""
        return None if self.target.classes is None else list(self.target.classes)

    @property
    def multiclass(self) -> str | None:
        """A multiclass model's combination, ``"frequent-first"``, ``"rarest-first"`` or
        ``"one-vs-rest"`` (docs/semantics.md §10; ``multiclass="auto"`` records the one it chose
        and ``model.combination_cv`` how); ``None`` for a binary model."""
        return None if self.target.classes is None else self._core.combine

    @property
    def combination_cv(self) -> pl.DataFrame | None:
        """How ``multiclass="auto"`` chose the combination: per combination the held-out rows its
        FIND-RS classified correctly in the stratified cross-validation, and ``chosen``;
        ``None`` when the combination was given (or a class had fewer than 2 rows)."""
        cv = self._training.get("combination_cv")
        if cv is None:
            return None
        return pl.DataFrame(
            {
                "multiclass": list(multiclass.COMBINATIONS),
                "correct": pl.Series(cv["correct"], dtype=pl.UInt32),
                "folds": pl.Series([cv["folds"]] * len(cv["correct"]), dtype=pl.UInt32),
                "chosen": [c == self.multiclass for c in multiclass.COMBINATIONS],
            }
        )

    @property
    def numeric_cv(self) -> pl.DataFrame | None:
        """How ``numeric=None`` chose bins or intervals for a multiclass model
        (docs/semantics.md §10): per kind (``numeric``) the held-out rows its FIND-RS classified
        correctly in ``multiclass="auto"``'s stratified cross-validation (with the combination
        ``multiclass`` chose for that kind), and ``chosen``; ``None`` when ``numeric`` was given,
        with ``auto=False``, for a binary model (its record is :attr:`cv_results`), when no
        column was binned or a class had fewer than 2 rows."""
        cv = self._training.get("numeric_cv")
        if cv is None:
            return None
        kinds = ["bins", "interval"]
        return pl.DataFrame(
            {
                "numeric": kinds,
                "correct": pl.Series(cv["correct"], dtype=pl.UInt32),
                "folds": pl.Series([cv["folds"]] * 2, dtype=pl.UInt32),
                "chosen": [k == self.params["numeric"] for k in kinds],
            }
        )

    @property
    def combination(self) -> Combination:
        """How a multiclass model's class sets decide a row (see
        :class:`findrs.models.multiclass.Combination`).

        Raises:
            FindRSInputError: the model is binary.
        """
        self._multiclass_only("combination")
        core = self._core
        return Combination(
            rule=core.combine,
            classes=tuple(self.target.classes or ()),
            set_classes=tuple(core.set_classes),
            default=core.default_class,
            thetas=tuple(core.thetas),
            thresholds=tuple(m.vote.threshold for m in self.class_models),
        )

    @property
    def class_models(self) -> tuple["RuleSetModel", ...]:
        """A multiclass model's class sets, in the order its combination reads them: each a
        binary model of its class against the rest of its training rows (its ``predict`` says
        "is it this class?", its ``rules``, ``vote``, ``to_sql`` are that set's).

        Raises:
            FindRSInputError: the model is binary.

        Example:
            >>> import findrs, polars as pl
            >>> df = pl.DataFrame({"a": ["x", "y", "z", "x"], "c": ["p", "q", "r", "p"]})
            >>> [m.positive for m in df.findrs.fit("c", settings=dict(multiclass="one-vs-rest")).class_models]
            ['p', 'q', 'r']
        """
        self._multiclass_only("class_models")
        if self._class_models is None:
            core = self._core
            t = self.target
            classes = t.classes or ()
            counts = self._training["class_counts"]
            order = list(core.set_classes) + ([core.default_class] if core.default_class is not None else [])
            models = []
            for i, (c, sub) in enumerate(zip(core.set_classes, core.class_models())):
                rows = self._training["rows"] if core.combine == "one-vs-rest" else sum(counts[k] for k in order[i:])
                contradictions = self._training["set_contradictions"][i]
                training = {"rows": int(rows), "positives": int(counts[c]), "contradictions": int(contradictions)}
                models.append(RuleSetModel(sub, self.encoders, Target(t.name, t.dtype, classes[c], None), self.params, training))
            self._class_models = tuple(models)
        return self._class_models

    def _multiclass_only(self, what: str) -> None:
        if self.target.classes is None:
            raise FindRSInputError(f"{what} applies to multiclass models; this one is binary")

    def _binary_only(self, what: str, instead: str) -> None:
        if self.target.classes is not None:
            raise FindRSInputError(f"{what} applies to binary models; this one is multiclass: {instead}")

    @property
    def T(self) -> int:
        """Number of FIND-RS runs aggregated (1 for FIND-RS)."""
        return self._core.T

    @property
    def n_rules(self) -> int:
        """K, the number of rules that vote (BP's top K; all rules for FIND-RS and BO; summed
        over the class sets of a multiclass model)."""
        if self.target.classes is not None:
            return sum(m.n_rules for m in self.class_models)
        return self._core.n_rules

    @property
    def n_rules_found(self) -> int:
        """Number of (distinct) rules found, voting or not (summed over the class sets of a
        multiclass model)."""
        if self.target.classes is not None:
            return sum(m.n_rules_found for m in self.class_models)
        return self._core.n_rules_found

    @property
    def contradictions(self) -> int:
        """Training rows that have an identical row with the other label (docs/semantics.md §1)."""
        return int(self._training["contradictions"])

    @property
    def cv_results(self) -> pl.DataFrame | None:
        """The cross-validation that chose the automatic settings (``None`` without any): one
        row per candidate with its settings, ``cv_accuracy`` (held-out rows right over all
        folds), ``cv_accuracy_std`` (over the folds), the mean voting ``rules`` and
        ``conditions`` per fold, and ``chosen`` (the candidate fitted; docs/semantics.md §9.4);
        when the budgeted vote was tried, each candidate's ``method`` and ``cv_T`` (runs per
        fold fit, docs/semantics.md §9.5).

        Example:
            >>> import findrs
            >>> m = findrs.datasets.monks(3).findrs.fit("class", auto=True, random_state=0)
            >>> m.cv_results.filter("chosen").height, m.params["auto"]
            (1, ['encoding', 'tolerance', 'min_support', 'direction', 'simplify', 'max_rules'])
        """
        if self._cv is None:
            rec = self._training.get("settings_cv")  # a multiclass model's (docs/semantics.md §10)
            return None if rec is None else multiclass_settings.table(rec)
        return auto.table(self._cv)

    @property
    def random_state(self) -> int:
        """The seed the fit used (drawn at random when ``random_state=None`` was passed)."""
        return int(self.params["random_state"])

    @property
    def vote(self) -> Vote:
        """How the voting rules decide a row: their constraints, the vote groups and weights, the
        threshold and the decision scale (see :class:`findrs.export.view.Vote`). Exporters print this.

        Example:
            >>> import findrs
            >>> m = findrs.datasets.tic_tac_toe().findrs.fit("class", "positive", method="bp", random_state=0, settings=dict(T=10))
            >>> v = m.vote
            >>> (v.threshold, v.scale) == (5, 10.0), len(v.groups) == m.n_rules
            (True, True)

        Raises:
            FindRSInputError: the model is multiclass (each class set has its vote:
                ``model.class_models[i].vote``).
        """
        self._binary_only("vote", "each class set has its own, model.class_models[i].vote")
        if self._vote is None:
            core = self._core
            constraints = self._constraints()
            offsets, ids = core.rule_constraints()
            k = core.n_rules
            rules = tuple(tuple(int(i) for i in ids[offsets[r] : offsets[r + 1]]) for r in range(k))
            groups, group_weights = core.vote_groups()
            scale, offset = core.decision_scale
            self._vote = Vote(
                method=core.method,
                T=core.T,
                constraints=constraints,
                rules=rules,
                weights=tuple(core.weights[:k]),
                runs=tuple(tuple(r) for r in core.runs),
                groups=tuple(tuple(g) for g in groups),
                group_weights=tuple(group_weights),
                threshold=int(core.threshold),
                scale=float(scale),
                offset=float(offset),
                max_votes=int(core.max_votes),
            )
        return self._vote

    def _constraints(self) -> tuple[Constraint, ...]:
        # The core lists an interval constraint by the gap codes of its ends (2i + 1 for value
        # i) and null's (2d + 1); the view lists indices into the encoder's values, as for the
        # other kinds.
        out = []
        for f, codes, passes in self._core.constraint_table():
            if self.encoders[f].kind == "interval":
                codes = [c // 2 for c in codes]
            out.append(Constraint(f, tuple(codes), passes))
        return tuple(out)

    def _rule_counts(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """A binary model's rules' ``train_positives``, ``train_negatives`` and number of
        conditions (int64, one entry per rule of :attr:`rules`), without building that table."""
        offsets, _ = self._rule_csr()
        core = self._core
        return (np.asarray(core.train_positives, dtype=np.int64), np.asarray(core.train_negatives, dtype=np.int64),
                np.diff(offsets[: core.n_rules_found + 1]))

    def _fired_matrix(self, codes: Sequence[np.ndarray]) -> np.ndarray:
        """A binary model's voting rules that cover each row of ``codes`` (this model's
        encoding, one uint32 array per feature), as a Boolean ``rows x n_rules`` matrix: entry
        ``[i, r]`` is true where rule ``r`` (the id of :attr:`rules`) covers row ``i``. For a
        FIND-RS model a row is positive exactly where its matrix row has a true entry."""
        offsets, ids = self._core.fired([np.ascontiguousarray(c, dtype=np.uint32) for c in codes])
        n = len(offsets) - 1
        out = np.zeros((n, self.n_rules), dtype=bool)
        out[np.repeat(np.arange(n), np.diff(offsets).astype(np.int64)), ids] = True
        return out

    def _constraint_texts(self) -> list[str]:
        if self._texts is None:
            self._texts = [constraint_text(self.encoders[c.feature], c) for c in self._constraints()]
        return self._texts

    # ----------------------------------------------------------------- prediction
    def _plugin(self, function: str) -> pl.Expr:
        if self._kwargs is None:
            text = self._core.plugin_json()
            self._kwargs = {"key": hashlib.sha256(text.encode()).hexdigest()[:32], "model": text}
        return expressions.plugin_expr(function, self.encoders, self._kwargs)

    def _frame(self, data: Any) -> pl.DataFrame:
        df = as_polars(data)
        check_columns(df, self.encoders)
        return df

    def predict(self, data: Any, *, labels: bool = True) -> pl.Series:
        """Predictions, named after the target column.

        Args:
            data: a Polars DataFrame or LazyFrame, a pandas DataFrame or a PyArrow table with the
                feature columns.
            labels: the target's labels (the positive label where the rules say so, else the
                negative one; for a one-vs-rest target, Booleans "is it the positive label?");
                ``False`` gives a Boolean "is positive" mask.

        Raises:
            FindRSInputError: a feature column is missing or changed dtype.

        Example:
            >>> import findrs
            >>> df = findrs.datasets.tic_tac_toe()
            >>> m = df.findrs.fit("class", "positive", random_state=0, settings=dict(shuffle=False))
            >>> m.predict(df.head(3), labels=False).to_list()
            [True, True, True]
        """
        df = self._frame(data)
        with expressions.input_schema(df.schema):
            return df.select(self.predict_expr(labels=labels)).to_series().alias(self.target.name)

    def _class_index_expr(self, engine: expressions.Engine) -> pl.Expr:
        """A multiclass model's class of each row, as an index into :attr:`classes`."""
        if expressions.check_engine(engine):
            return self._plugin("findrs_class")
        votes = [expressions.compiled_votes(m.vote, self.encoders) for m in self.class_models]
        return multiclass.compiled_index(self.combination, votes)

    def decision_function(self, data: Any) -> pl.Series | pl.DataFrame:
        """The decision value per row (``Float64``, named ``decision``): positive exactly where
        ``predict`` says the positive label. It is ``votes / scale - offset``
        (:attr:`vote`): FIND-RS 1/2 if some rule covers the row, else -1/2; BO the fraction of
        runs whose rule set covers the row, minus 1/2; BP the covering voting rules' weights
        summed and divided by T, minus gamma_K / 2 (docs/semantics.md §6).

        A multiclass model gives a DataFrame instead, one column per class (named by the class
        label as text): the decision value of the class's set, positive exactly where that set
        alone says "this class"; null for a decision list's default class, which has no set.

        Raises:
            FindRSInputError: a feature column is missing or changed dtype.

        Example:
            >>> import findrs
            >>> df = findrs.datasets.tic_tac_toe()
            >>> m = df.findrs.fit("class", "positive", random_state=0, settings=dict(shuffle=False))
            >>> m.decision_function(df.head(3)).to_list()
            [0.5, 0.5, 0.5]
        """
        df = self._frame(data)
        with expressions.input_schema(df.schema):
            if self.target.classes is not None:
                return df.select(self.decision_expr()).unnest(f"{self.target.name}_decision")
            return df.select(self.decision_expr()).to_series().alias("decision")

    def score(self, data: Any, target: str | None = None) -> float:
        """Accuracy on a labelled frame (the target column defaults to the training one); a row
        counts as positive when its target equals the positive label (multiclass: a row is
        right when its label is the predicted one; a null label is never right).

        Raises:
            FindRSInputError: the target column or a feature column is missing.

        Example:
            >>> import findrs
            >>> train, test = findrs.datasets.train_test_split(findrs.datasets.tic_tac_toe())
            >>> train.findrs.fit("class", "positive", random_state=0, settings=dict(shuffle=False)).score(test)
            1.0
        """
        df = as_polars(data)
        col = target or self.target.name
        if col not in df.columns:
            raise FindRSInputError(f"target column {col!r} not found; the columns are {df.columns}")
        if self.target.classes is not None:
            truth = df.get_column(col).alias("target")
            if isinstance(truth.dtype, (pl.Categorical, pl.Enum)):
                truth = truth.cast(pl.String)
            right = (self.predict(df).cast(truth.dtype) == truth).fill_null(False)
            return float(right.mean()) if len(right) else float("nan")
        truth = (df.get_column(col).alias("target") == self.target.positive).fill_null(False).to_numpy()
        return float(np.mean(self.predict(df, labels=False).to_numpy() == truth))

    def predict_mask(self, data: Any) -> np.ndarray:
        """Deprecated: use ``predict(data, labels=False)`` (a Boolean Series).

        Raises:
            FindRSInputError: as :meth:`predict`.

        Warns:
            DeprecationWarning: always.

        Example:
            >>> import findrs
            >>> df = findrs.datasets.tic_tac_toe()
            >>> m = df.findrs.fit("class", "positive", random_state=0, settings=dict(shuffle=False))
            >>> m.predict(df.head(2), labels=False).to_numpy().tolist()  # instead of predict_mask
            [True, True]
        """
        warnings.warn(
            "predict_mask(df) is deprecated: use predict(df, labels=False).to_numpy()", DeprecationWarning, stacklevel=2
        )
        return self.predict(data, labels=False).to_numpy()

    # ----------------------------------------------------------------- expressions
    def predict_expr(self, *, labels: bool = True, engine: expressions.Engine = "auto") -> pl.Expr:
        """The prediction as a Polars expression, for ``with_columns``, ``filter``, ``group_by``,
        on DataFrames and LazyFrames (the streaming engine runs it batch by batch).

        Args:
            labels: the target's labels (named ``<target>_predicted``); ``False`` gives a
                Boolean "is positive" mask (named ``<target>_is_positive``).
            engine: ``"auto"`` or ``"plugin"`` (the Rust expression plugin, findrs' prediction
                path), or ``"compiled"`` (plain Polars expressions printed from :attr:`vote`;
                practical up to a few hundred rules).

        Raises:
            FindRSInputError: an unknown engine. A feature column missing from the frame is
                reported when the query runs, by Polars (``ColumnNotFoundError`` naming it): an
                expression does not see the frame before. ``lf.findrs.predict(model)`` and
                ``model.predict(lf)`` check the columns first and raise the same
                ``FindRSInputError`` as on a DataFrame.

        Example:
            >>> import findrs, polars as pl
            >>> df = findrs.datasets.tic_tac_toe()
            >>> m = df.findrs.fit("class", "positive", random_state=0, settings=dict(shuffle=False))
            >>> df.lazy().with_columns(m.predict_expr()).collect()["class_predicted"][0]
            'positive'

        A multiclass model predicts its class labels (``labels=False`` is an error).
        """
        if self.target.classes is not None:
            if not labels:
                raise FindRSInputError("labels=False (an 'is positive' mask) applies to binary models; this one is multiclass")
            index = self._class_index_expr(engine)
            return multiclass.labels_expr(index, self.target, _parse_dtype(self.target.dtype)).alias(f"{self.target.name}_predicted")
        if expressions.check_engine(engine):
            mask = self._plugin("findrs_predict")
        else:
            mask = expressions.compiled_mask(self.vote, self.encoders)
        return prediction_expr(mask, self.target, labels)


    def to_expr(self) -> pl.Expr:
        """The prediction (a Boolean mask named ``<target>_is_positive``) compiled to plain Polars
        expressions from :attr:`vote`: each rule an ``all_horizontal`` of its constraints, the
        votes the weighted count of the vote groups that hold, against the threshold. Needs no
        plugin; practical up to a few hundred rules. A multiclass model gives its labels (named
        ``<target>_predicted``), its combination printed over each set's votes.

        Example:
            >>> import findrs
            >>> df = findrs.datasets.tic_tac_toe()
            >>> m = df.findrs.fit("class", "positive", random_state=0, settings=dict(shuffle=False))
            >>> df.head(2).select(m.to_expr()).to_series().to_list()
            [True, True]
        """
        if self.target.classes is not None:
            return self.predict_expr(engine="compiled")
        return self.predict_expr(labels=False, engine="compiled")


    def to_sql(self, *, table: str | Sequence[str] | None = None, dialect: str = "duckdb", output: str = "predict") -> str:
        """The model as a SQL expression (or, with ``table``, a ``SELECT``) computing exactly what
        ``predict`` computes (``output="votes"``: the integer votes, ``"decision"``:
        ``decision_function``), for ``dialect`` ``"duckdb"`` or ``"sqlite"``; see
        :func:`findrs.export.sql.model_to_sql`.

        Raises:
            FindRSInputError: an unknown dialect or output.

        Example:
            >>> import findrs
            >>> m = findrs.datasets.tic_tac_toe().findrs.fit("class", "positive", random_state=0, settings=dict(shuffle=False))
            >>> m.to_sql().startswith("CASE")
            True

        A multiclass model's SQL gives its labels (``output="predict"`` only): each class set's
        votes as that set's ``to_sql(output="votes")`` prints them, combined as
        :func:`findrs.models.multiclass.combination_sql` says.
        """
        if self.target.classes is not None:
            if output != "predict":
                raise FindRSInputError(
                    f"a multiclass model's SQL predicts its labels (output='predict'), got {output!r}; "
                    f"each class set's votes or decision: model.class_models[i].to_sql(output=...)"
                )
            votes = [m.to_sql(dialect=dialect, output="votes") for m in self.class_models]
            return multiclass.combination_sql(self.combination, votes, self.target, table=table, dialect=dialect)
        return model_to_sql(self.vote, self.encoders, self.target, table=table, dialect=dialect, output=output)

    # ----------------------------------------------------------------- rules


    # ----------------------------------------------------------------- BP pruning


    def _freed(self, settings: dict[str, Any] | None = None) -> "RuleSetModel":
        """This model with no rule constraining a feature of one training code
        (:func:`one_code_features`), when its settings call for it (:func:`frees_one_code_features`;
        docs/semantics.md §2.1): every training row satisfies such a constraint, so the rules'
        training counts, weights, K and cross-validation record stay, and only a row with a
        null or another value there is decided anew. ``self`` itself otherwise. ``settings``:
        the parameters that decide (default: this model's; an exception model's are its rules',
        :meth:`findrs.ExceptionsModel._freed`)."""
        p = self.params if settings is None else settings
        free = one_code_features(self.encoders) if frees_one_code_features(p) else []
        if not free:
            return self
        core = self._core.without_constraints_on(free)
        return RuleSetModel(core, self.encoders, self.target, self.params, self._training, self._cv)


    # ----------------------------------------------------------------- JSON


def one_code_features(encoders: Sequence[FeatureEncoder]) -> list[int]:
    """The indices of the features whose training column encodes to a single code that is not
    null (a constant column, a numeric column with one bin or one value), with no null in
    training: every training row satisfies a constraint on it, which only refuses null and
    values never seen (docs/semantics.md §2.1)."""
    return [i for i, e in enumerate(encoders) if e.domain_size == 1 and not e.has_null]


def frees_one_code_features(params: dict[str, Any]) -> bool:
    """Whether a fit with ``params`` leaves the features of :func:`one_code_features`
    unconstrained (docs/semantics.md §2.1): with settings chosen by cross-validation
    (``params["auto"]`` not empty) or bin edges other than equal-width. The paper's algorithm
    (no automatic setting, equal-width bins) keeps them, as the paper does (§2)."""
    return bool(params.get("auto")) or params.get("bin_edges", "uniform") != "uniform"


def prediction_expr(mask: pl.Expr, target: Target, labels: bool) -> pl.Expr:
    """A binary model's prediction from its "is positive" ``mask``: the mask named
    ``<target>_is_positive`` (``labels=False``), or the labels named ``<target>_predicted`` in
    the target's dtype (a one-vs-rest target's labels are the mask)."""
    name = target.name
    if not labels:
        return mask.alias(f"{name}_is_positive")
    if target.negative is None:
        return mask.alias(f"{name}_predicted")
    out = pl.when(mask).then(pl.lit(target.positive)).otherwise(pl.lit(target.negative))
    dtype = _parse_dtype(target.dtype)
    if dtype is not None:
        out = out.cast(dtype)
    return out.alias(f"{name}_predicted")


