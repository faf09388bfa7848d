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

import contextlib
import gc
import hashlib
import json
import os
import warnings
from dataclasses import dataclass
from pathlib import Path
from types import EllipsisType
from typing import Any, Callable, Iterator, Sequence

import numpy as np
import polars as pl

from .. import _core
from ..select import auto
from ..export import expressions
from . import multiclass
from ..export import report
from ..data.encode import FeatureEncoder, check_columns, encode_frame
from .base import Model
from ..errors import FindRSInputError
from .multiclass import Combination
from ..data.frames import as_polars
from ..data.memory import check_fit_memory, memory_error
from ..export.nearest import Nearest
from ..select.params import ABSENT_FROM_OLDER_FILES, MAX_T, check_params, _chosen_in_order
from ..export.sql import model_to_sql
from ..data.target import Target
from ..export.text import constraint_labels, constraint_text
from ..export.view import Constraint, Vote

FORMAT = "findrs-model"


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
FORMAT_VERSION = 2
_WHY_NOT = pl.Struct({"nearest_rule": pl.UInt32, "failed_conditions": pl.List(pl.String)})
_SECTIONS = ("target", "features", "params", "training")
_OPTIONAL_SECTIONS = ("cv",)  # present exactly when a setting was chosen by cross-validation
# interval_ends -> the core's widening of a run's interval ends (docs/semantics.md §11).
_WIDEN = {"tight": "no", "midpoint": "no", "open": "open", "widened": "nearest"}
_SMALL_TABLE = 2_000
"""Up to this many rules, :attr:`RuleSetModel.rules` builds its list columns in Python
(:meth:`RuleSetModel._rule_columns_small`), beyond it with Polars' list expressions."""

FoldCoder = Callable[[np.ndarray], tuple[Sequence[FeatureEncoder], list[np.ndarray]]]
"""Encodes one cross-validation fold on its own (docs/semantics.md §9.4): given a Boolean mask
of the rows it may learn from (every training row but the fold's held-out rows), the encoders
fitted on those rows and every row's codes under them."""

UNSAMPLED: int = _core.UNSAMPLED
"""The fold :func:`findrs._core.cv_folds` gives a row outside the cross-validation's sample."""
cv_folds = _core.cv_folds
"""The fold of every row in the automatic cross-validation (the core's ``cv_folds``)."""
fold_seed = _core.fold_seed
"""The ``random_state`` whose fit gives a fold's scores in the automatic cross-validation."""
__version__: str = _core.__version__
assert _core.MAX_RUNS == MAX_T and _core.FORMAT_VERSION == FORMAT_VERSION, "findrs._core does not match"


class RuleSetModel(Model):
    """A fitted findrs model. Build one with ``df.findrs.fit(...)`` or :func:`findrs.fit`.

    Its members, by use:

    - what it is: :attr:`method`, :attr:`encoding`, :attr:`T`, :attr:`n_rules` (K),
      :attr:`n_rules_found`, :attr:`features`, :attr:`encoders`, :attr:`target`,
      :attr:`positive`, :attr:`params`, :attr:`random_state`, :attr:`contradictions`,
      :attr:`cv_results` (automatic settings), :attr:`rules` (the table) and :attr:`vote` (the
      public view exporters print); ``print(model)``, :meth:`to_text`, :meth:`to_markdown` and
      the notebook view;
    - on a frame: :meth:`predict`, :meth:`decision_function`, :meth:`score` (accuracy),
      :meth:`explain`;
    - in a Polars query: :meth:`predict_expr`, :meth:`decision_expr`, :meth:`strength_expr`,
      :meth:`explain_expr`, :meth:`why_not_expr`;
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

    @classmethod
    def _fit(
        cls,
        codes: list[np.ndarray],
        labels: np.ndarray,
        encoders: Sequence[FeatureEncoder],
        target: Target,
        params: dict[str, Any],
        n_jobs: int | None,
        progress: Callable[[int, int], None] | None,
        fold_codes: FoldCoder | None = None,
    ) -> "RuleSetModel":
        """Fits the core on training codes (what :func:`findrs.fit` calls once it has checked the
        parameters, encoded the frame and binarized the target). ``params["auto"]`` not empty:
        the settings it names are chosen by cross-validation first (docs/semantics.md §9.4),
        each fold encoded by ``fold_codes`` when given (:data:`FoldCoder`)."""
        if params["auto"]:
            return cls._fit_auto(codes, labels, encoders, target, params, n_jobs, progress, fold_codes)
        return cls._fit_many(codes, labels, encoders, target, [params], n_jobs, progress)[0]

    @classmethod
    def _fit_many(
        cls,
        codes: list[np.ndarray],
        labels: np.ndarray,
        encoders: Sequence[FeatureEncoder],
        target: Target,
        params_list: Sequence[dict[str, Any]],
        n_jobs: int | None,
        progress: Callable[[int, int], None] | None,
        chunks: int | None = None,
    ) -> list["RuleSetModel"]:
        """The models of ``params_list`` (no automatic setting; one parameter set, or BO's and
        BP's that differ only in method and ``n_rules``) from one set of runs
        (docs/semantics.md §5.1). ``chunks``: the runs are computed in that many chunks
        dispatched through joblib (the active joblib backend, e.g. Dask's, spreads them;
        docs/semantics.md §5.2), then the models are built here from them."""
        p = params_list[-1]
        negate = auto.core_setting(p, p["accuracy_ratio"])[3]
        y = ~labels if negate else labels
        method = "+".join(q["method"] for q in params_list)
        schema = _schema(encoders, p["encoding"])
        with _input_errors(), _memory_errors(encoders, p["encoding"], labels):
            runs = None
            if chunks is not None:
                runs = _runs_in_chunks(codes, schema, y, p, chunks, _core_options("fit_runs", p, n_jobs))
            options = _core_options("fit", p, n_jobs, method=method)
            fitted = _core.fit(codes, *schema, y, options, progress, runs)
        models = []
        for q, (core, contradictions, budget, best) in zip(params_list, fitted):
            training = _training(y, contradictions)
            if budget is not None:
                training["budget"] = {"correct_before": int(budget[0]), "correct": int(budget[1])}
            q = _with_best_of(q, training, best)
            models.append(cls(core, encoders, _described(target, negate), q, training))
        return models

    @classmethod
    def _fit_auto(
        cls,
        codes: list[np.ndarray],
        labels: np.ndarray,
        encoders: Sequence[FeatureEncoder],
        target: Target,
        params: dict[str, Any],
        n_jobs: int | None,
        progress: Callable[[int, int], None] | None,
        fold_codes: FoldCoder | None = None,
        record: dict[str, Any] | None = None,
    ) -> "RuleSetModel":
        """Cross-validates the candidates of ``params["auto"]`` in the core, fits the best on all
        rows and records what was tried; ``params["cv"]`` ``None`` means
        :func:`findrs.select.auto.default_folds` of the rows the cross-validation uses, at most the rows
        of the smaller class. With more than ``params["cv_rows"]``
        rows, the cross-validation uses a stratified sample of that many, and an automatic
        ``min_support`` is scaled to all rows (docs/semantics.md §9.4). ``fold_codes``: each
        fold's own encoding (:data:`FoldCoder`). ``record``: the record :meth:`_cross_validate`
        made with these codes, parameters and ``fold_codes``: its cross-validation is not run
        again, the core fits from its scores (the same model and record, at the cost of the
        final fit alone)."""
        out = cls._auto_core(codes, labels, encoders, params, n_jobs, progress, final_fit=True, fold_codes=fold_codes,
                             record=record)
        core, contradictions, cands, best, rows, folds, sampled, support, best_run = out
        chosen = cands[best]
        fitted = {**params, **chosen, "min_support": int(support), "cv": folds}
        if params["method"] != "bp":
            fitted["n_rules"] = None
        negate = chosen["direction"] == "negative"
        y = ~labels if negate else labels
        rec = auto.record(cands, rows, best, folds, int(sampled))
        training = _training(y, contradictions)
        fitted = _with_best_of(fitted, training, best_run)
        return cls(core, encoders, _described(target, negate), fitted, training, rec)

    @classmethod
    def _cross_validate(
        cls,
        codes: list[np.ndarray],
        labels: np.ndarray,
        encoders: Sequence[FeatureEncoder],
        params: dict[str, Any],
        n_jobs: int | None,
        progress: Callable[[int, int], None] | None,
        cands: list[dict[str, Any]] | None = None,
        fold_codes: FoldCoder | None = None,
    ) -> dict[str, Any]:
        """The cross-validation of :meth:`_fit_auto` alone, without its final fit on all rows:
        its record (the chosen candidate the best-ranked one). The same codes and parameters
        (and ``fold_codes``) give the same record as the fit's (docs/semantics.md §9.4), so the
        other CV axes (bin edges, numeric kind) compare encodings and fit only the winner.
        ``cands``: the candidates to try instead of those of ``params`` (the vote axis, §9.5)."""
        out = cls._auto_core(codes, labels, encoders, params, n_jobs, progress, final_fit=False, cands=cands,
                             fold_codes=fold_codes)
        _, _, cands, best, rows, folds, sampled, _, _ = out
        return auto.record(cands, rows, best, folds, int(sampled))

    @classmethod
    def _auto_core(
        cls,
        codes: list[np.ndarray],
        labels: np.ndarray,
        encoders: Sequence[FeatureEncoder],
        params: dict[str, Any],
        n_jobs: int | None,
        progress: Callable[[int, int], None] | None,
        *,
        final_fit: bool,
        cands: list[dict[str, Any]] | None = None,
        fold_codes: FoldCoder | None = None,
        record: dict[str, Any] | None = None,
    ) -> tuple[Any, ...]:
        """The core's ``fit_auto`` on these codes: (core model or ``None`` without a final fit,
        contradictions, candidates, index of the best, per-candidate fold counts, folds, rows
        sampled, final support). ``cands``: the candidates to try (default: those of
        ``params``, :func:`findrs.select.auto.candidates`). ``fold_codes``: fold ``f`` of the
        cross-validation is read from ``fold_codes(rows)``, the encoding fitted on ``rows``
        (a mask of the training rows: all but ``f``'s held-out rows; docs/semantics.md §9.4).
        ``record`` (with ``final_fit``): a record of this cross-validation (:func:`findrs.select.auto.record`);
        its candidates and scores are passed to the core, which fits from them without
        cross-validating. The final fit keeps the best of ``params["best_of"]`` runs
        (docs/semantics.md §5.3); the last item is then the run kept and every run's training
        rows right (else ``None``)."""
        n_pos = int(labels.sum())
        smaller = min(n_pos, len(labels) - n_pos)
        if smaller < 2:
            raise FindRSInputError(
                f"automatic settings ({', '.join(params['auto'])}) need cross-validation, which needs at least "
                f"2 rows of each class; the smaller class has {smaller}: fix those settings instead"
            )
        n = len(labels)
        sample = params["cv_rows"] if params["cv_rows"] is not None and params["cv_rows"] < n else n
        folds = params["cv"] if params["cv"] is not None else auto.default_folds(sample)
        folds = min(folds, smaller)
        # The candidates as the sample sees them (its positives decide the supports tried).
        s_pos = max(1, (n_pos * sample + n // 2) // n)
        scores = None
        if record is not None:
            cands, scores = auto.record_scores(record)
        if cands is None:
            cands = auto.candidates(params, n_positives=s_pos, n_negatives=sample - s_pos)
        fold_columns = None
        if fold_codes is not None and record is None:
            fold_of = _core.cv_folds(labels, folds, params["random_state"], params["cv_rows"])
            fold_columns = []
            for f in range(folds):
                # Every training row but f's held-out ones: with a sample, the rows outside it
                # too (no fold holds them out), as the final fit's edges see every row.
                enc_f, codes_f = fold_codes(fold_of != f)
                fold_columns.append((codes_f, _schema(enc_f, "av")[0]))
        with _input_errors(), _memory_errors(encoders, "av", labels):
            core, contradictions, best, rows, sampled, support, best_run = _core.fit_auto(
                codes,
                *_schema(encoders, "av"),
                labels,
                [auto.core_setting(c, params["accuracy_ratio"]) for c in cands],
                _core_options("fit_auto", params, n_jobs, folds=folds, final_fit=final_fit),
                progress,
                fold_columns,
                scores,
            )
        return core, contradictions, cands, best, rows, folds, sampled, support, best_run

    @classmethod
    def _fit_multiclass(
        cls,
        codes: list[np.ndarray],
        classes: np.ndarray,
        encoders: Sequence[FeatureEncoder],
        target: Target,
        params: dict[str, Any],
        combine: str,
        n_jobs: int | None,
        progress: Callable[[int, int], None] | None,
        combination_cv: dict[str, Any] | None = None,
        numeric_cv: dict[str, Any] | None = None,
    ) -> "RuleSetModel":
        """Fits one rule set per class (``classes``: each row's class index into
        ``target.classes``), combined by ``combine`` (docs/semantics.md §10);
        ``combination_cv`` records how ``multiclass="auto"`` chose it, ``numeric_cv`` how
        ``numeric=None`` chose bins or intervals."""
        p = params
        negate = auto.core_setting(p, p["accuracy_ratio"])[3]
        assert target.classes is not None and not negate and not p["auto"]
        with _input_errors(), _multiclass_memory_errors(encoders, p["encoding"], classes, combine, n_jobs):
            core, contradictions, set_contradictions = _core.fit_multiclass(
                codes,
                *_schema(encoders, p["encoding"]),
                classes,
                len(target.classes),
                _core_options("fit_multiclass", p, n_jobs, combine=combine),
                progress,
            )
        counts = np.bincount(classes, minlength=len(target.classes))
        training = {
            "rows": int(len(classes)),
            "class_counts": [int(c) for c in counts],
            "contradictions": int(contradictions),
            "set_contradictions": [int(c) for c in set_contradictions],
        }
        if combination_cv is not None:
            training["combination_cv"] = combination_cv
        if numeric_cv is not None:
            training["numeric_cv"] = numeric_cv
        return cls(core, encoders, target, params, training)

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
            (1, ['encoding', 'tolerance', 'min_support', 'direction', 'simplify', 'method'])
        """
        return None if self._cv is None else auto.table(self._cv)

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

    def decision_expr(self, *, engine: expressions.Engine = "auto") -> pl.Expr:
        """:meth:`decision_function` as a ``Float64`` Polars expression named
        ``<target>_decision`` (multiclass: a struct of one ``Float64`` field per class, named
        by the label as text, null for a decision list's default class).

        Raises:
            FindRSInputError: an unknown engine.

        Example:
            >>> import findrs
            >>> df = findrs.datasets.tic_tac_toe()
            >>> m = df.findrs.fit("class", "positive", random_state=0, settings=dict(shuffle=False))
            >>> df.head(2).select(m.decision_expr()).columns
            ['class_decision']
        """
        if self.target.classes is not None:
            expressions.check_engine(engine)
            by_class = {c: m.decision_expr(engine=engine) for c, m in zip(self._core.set_classes, self.class_models)}
            fields = [
                (by_class[i] if i in by_class else pl.lit(None, pl.Float64)).alias(str(label))
                for i, label in enumerate(self.target.classes)
            ]
            return pl.struct(fields).alias(f"{self.target.name}_decision")
        if expressions.check_engine(engine):
            e = self._plugin("findrs_decision")
        else:
            e = expressions.compiled_decision(self.vote, self.encoders)
        return e.alias(f"{self.target.name}_decision")

    def score_expr(self, *, engine: expressions.Engine = "auto") -> pl.Expr:
        """Deprecated: use :meth:`decision_expr` (``score`` is accuracy; this was the decision
        value, named ``<target>_score``).

        Raises:
            FindRSInputError: an unknown engine.

        Warns:
            DeprecationWarning: always.

        Example:
            >>> import findrs
            >>> df = findrs.datasets.tic_tac_toe()
            >>> m = df.findrs.fit("class", "positive", random_state=0, settings=dict(shuffle=False))
            >>> df.head(1).select(m.decision_expr()).item()  # instead of score_expr
            0.5
        """
        warnings.warn("score_expr() is deprecated: use decision_expr()", DeprecationWarning, stacklevel=2)
        return self.decision_expr(engine=engine).alias(f"{self.target.name}_score")

    def explain_expr(self, *, top: int | None = None) -> pl.Expr:
        """The ids of the voting rules that fire on each row (``List[UInt32]``, in rule order:
        heaviest first for BO/BP; ids index ``model.rules``), named ``fired_rules``; ``top``
        keeps the first ``top``. A multiclass model lists its class sets' rules in set order (ids
        index its ``rules``, whose ``class`` column says whose they are).

        Raises:
            FindRSInputError: a feature column is missing when the query runs (a Polars
                ``ColumnNotFoundError`` naming it: an expression cannot see the frame before;
                ``lf.findrs.explain(model)`` checks first and raises ``FindRSInputError``).

        Example:
            >>> import findrs
            >>> df = findrs.datasets.tic_tac_toe()
            >>> m = df.findrs.fit("class", "positive", random_state=0, settings=dict(shuffle=False))
            >>> df.head(1).select(m.explain_expr(top=2)).item().to_list()
            [0, 1]
        """
        if self.target.classes is not None:
            parts, at = [], 0
            for m in self.class_models:
                parts.append(m.explain_expr().list.eval(pl.element() + pl.lit(at, pl.UInt32)))
                at += m.n_rules_found
            e = pl.concat_list(parts)
        else:
            e = self._plugin("findrs_fired")
        if top is not None:
            e = e.list.head(int(top))
        return e.alias("fired_rules")

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

    def explain(self, data: Any, *, top: int | None = None) -> pl.DataFrame:
        """Per row: the prediction, the decision value, its 0-1 strength, the rules that fire
        and, for a row predicted negative, the nearest rule and the conditions it fails
        (docs/semantics.md §6).

        Returns a DataFrame with columns ``<target>_predicted``, ``<target>_decision``,
        ``<target>_strength`` (see :meth:`strength_expr`), ``fired_rules`` (rule ids, heaviest
        first for BO/BP) and ``fired_texts`` (``top`` keeps the ``top`` first fired rules),
        ``nearest_rule`` and ``failed_conditions`` (see :meth:`why_not_expr`; null on rows
        predicted positive). A multiclass model gives ``<target>_predicted``, ``<target>_decision``
        (a struct, see :meth:`decision_expr`), ``fired_rules`` (set by set), ``fired_texts`` and
        ``fired_classes``, the class whose set each fired rule belongs to.

        Raises:
            FindRSInputError: a feature column is missing or changed dtype.

        Example:
            >>> import findrs, polars as pl
            >>> df = findrs.datasets.tic_tac_toe()
            >>> m = df.findrs.fit("class", "positive", random_state=0, settings=dict(shuffle=False))
            >>> row = df.filter(pl.col("class") == "negative").head(1)
            >>> ex = m.explain(row)
            >>> ex["class_predicted"][0], ex["nearest_rule"][0], ex["failed_conditions"][0].to_list()
            ('negative', 0, ['top_right = x'])
        """
        return self._explained(self._frame(data), top, keep=False)

    def _explained(self, frame: Any, top: int | None, *, keep: bool) -> Any:
        """``frame`` (a DataFrame or LazyFrame; only the explanation when not ``keep``) with the
        explanation columns, in :meth:`explain`'s order."""
        with expressions.input_schema(frame.collect_schema() if isinstance(frame, pl.LazyFrame) else frame.schema):
            exprs = self._explain_exprs(top)
        out = frame.with_columns(exprs) if keep else frame.select(exprs)
        if self.target.classes is not None:
            return out.with_columns(self._texts_expr())
        out = out.with_columns(self._texts_expr()).unnest("why_not")
        last = ["fired_texts", "nearest_rule", "failed_conditions"]
        names = out.collect_schema().names() if isinstance(out, pl.LazyFrame) else out.columns
        return out.select([c for c in names if c not in last] + last)

    def _explain_exprs(self, top: int | None) -> list[pl.Expr]:
        if self.target.classes is not None:
            return [self.predict_expr(), self.decision_expr(), self.explain_expr(top=top)]
        return [
            self.predict_expr(),
            self.decision_expr(),
            self.strength_expr(),
            self.explain_expr(top=top),
            self.why_not_expr(),
        ]

    def _texts_expr(self) -> pl.Expr | list[pl.Expr]:
        if self.target.classes is not None:
            rules = self.rules.filter("kept")
            fired = pl.col("fired_rules").list.eval
            return [
                fired(pl.element().replace_strict(rules["id"], rules["text"], return_dtype=pl.String)).alias("fired_texts"),
                fired(pl.element().replace_strict(rules["id"], rules["label"], return_dtype=rules["label"].dtype)).alias(
                    "fired_classes"
                ),
            ]
        texts = self._rule_texts_series()
        ids = pl.Series(range(len(texts)), dtype=pl.UInt32)
        return (
            pl.col("fired_rules")
            .list.eval(pl.element().replace_strict(ids, texts, return_dtype=pl.String))
            .alias("fired_texts")
        )

    def strength_expr(self, *, engine: expressions.Engine = "auto") -> pl.Expr:
        """A 0-1 reading of the decision value for people (``Float64``, named
        ``<target>_strength``): 0 when no voting rule holds, 1 at the most votes the model can
        give, 1/2 at the threshold and linear in the votes on each side; above 1/2 exactly where
        the prediction is positive (docs/semantics.md §6). It is the number
        ``FindRSClassifier.predict_proba(X)[:, 1]`` gives; :meth:`decision_function` is
        unchanged.

        Raises:
            FindRSInputError: an unknown engine.

        Example:
            >>> import findrs
            >>> df = findrs.datasets.tic_tac_toe()
            >>> m = df.findrs.fit("class", "positive", method="bp", random_state=0, settings=dict(T=10))
            >>> s = df.select(m.strength_expr())["class_strength"]
            >>> bool(((s > 0.5) == m.predict(df, labels=False)).all())
            True
        """
        self._binary_only("strength_expr", "each class set has its own, model.class_models[i].strength_expr()")
        scale, theta = self._core.decision_scale  # the vote's numbers, without building :attr:`vote`
        top = self._core.max_votes / scale
        d = self.decision_expr(engine=engine)
        up = (0.5 + 0.5 * d / (top - theta)).clip(0.0, 1.0) if top > theta else pl.lit(1.0)
        down = (0.5 + 0.5 * d / theta).clip(0.0, 0.5) if theta > 0 else pl.lit(0.0)
        # Rounding must never move a positive row onto 1/2 (it cannot move a negative above).
        up = pl.max_horizontal(up, pl.lit(float(np.nextafter(0.5, 1.0))))
        return pl.when(d > 0).then(up).otherwise(down).alias(f"{self.target.name}_strength")

    def why_not_expr(self) -> pl.Expr:
        """Why a row is not positive, as a Polars expression: a struct ``why_not`` of
        ``nearest_rule`` (``UInt32``: the id in ``model.rules`` of the voting rule with the
        fewest conditions the row fails, among those that do not hold on it; the heavier on a
        tie) and ``failed_conditions`` (``List[String]``: exactly the conditions of that rule
        the row fails, in feature order); both null on rows predicted positive
        (docs/semantics.md §6). NumPy computes it batch by batch (:mod:`findrs.export.nearest`), about
        one operation per condition of the voting rules for each negative row: meant for the
        rows you look at.

        Raises:
            FindRSInputError: a feature column is missing when the query runs (Polars'
                ``ColumnNotFoundError``, as :meth:`explain_expr`); the model is multiclass (each
                class set has its own, ``model.class_models[i].why_not_expr()``).

        Example:
            >>> import findrs, polars as pl
            >>> df = findrs.datasets.tic_tac_toe()
            >>> m = df.findrs.fit("class", "positive", random_state=0, settings=dict(shuffle=False))
            >>> row = df.filter(pl.col("class") == "negative").head(1)
            >>> row.select(m.why_not_expr()).unnest("why_not").row(0)
            (0, ['top_right = x'])
        """
        self._binary_only("why_not_expr", "each class set has its own, model.class_models[i].why_not_expr()")
        mask = self.predict_expr(labels=False).alias("\0positive")
        args = [mask] + [enc.expr() for enc in self.encoders]
        return (
            pl.struct(args)
            .map_batches(self._why_not_batch, return_dtype=_WHY_NOT, is_elementwise=True)
            .alias("why_not")
        )

    def _why_not_batch(self, s: pl.Series) -> pl.Series:
        cols = s.struct.unnest()
        positive = cols.to_series(0).fill_null(False).to_numpy().astype(bool)
        codes = [cols.to_series(i + 1).to_numpy().astype(np.int64) for i in range(len(self.encoders))]
        if self._nearest is None:
            offsets, ids = self._rule_csr()
            k = self.n_rules
            domains = [e.domain_size for e in self.encoders]
            intervals = {f: e.domain_size for f, e in enumerate(self.encoders) if e.kind == "interval"}
            self._nearest = Nearest(domains, self._constraints(), offsets[: k + 1], ids[: offsets[k]], intervals)
        nearest, failed = self._nearest.search(codes, ~positive)
        texts = self._constraint_texts()
        rule = pl.Series("nearest_rule", [None if r < 0 else r for r in nearest.tolist()], dtype=pl.UInt32)
        conditions = pl.Series(
            "failed_conditions", [None if f is None else [texts[j] for j in f] for f in failed], dtype=pl.List(pl.String)
        )
        return pl.DataFrame([rule, conditions]).to_struct(s.name)

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
    @property
    def rules(self) -> pl.DataFrame:
        """The rules as a table, heaviest first for BO/BP (docs/semantics.md §6).

        Columns (those of every model kind, :data:`findrs.models.base.RULES_COLUMNS`): ``id``,
        ``text``, ``label`` (the label the rule describes: :attr:`positive`, or a multiclass
        model's class), ``kind`` (``"rule"``), ``constraints`` (list of ``{feature, values}``
        structs, values as text), ``weight`` (alpha: how many runs found the rule; 1 for
        FIND-RS), ``train_positives`` / ``train_negatives`` (training rows of the label / of the
        others covered), ``kept`` (whether the rule votes: BP's top K; always true otherwise). A
        multiclass model's table lists its class sets' rules one set after the other (in
        :attr:`class_models` order); ``train_negatives`` are the rows of the other classes the
        set was learned against.

        Example:
            >>> import findrs
            >>> df = findrs.datasets.tic_tac_toe()
            >>> m = df.findrs.fit("class", "positive", random_state=0, settings=dict(shuffle=False))
            >>> m.rules.select("id", "text", "weight").row(0)
            (0, 'top_left = x and top_middle = x and top_right = x', 1)
        """
        if self._rules_df is None and self.target.classes is not None:
            tables, at = [], 0
            for m in self.class_models:
                t = m.rules
                tables.append(t.with_columns(pl.col("id") + at, self._labels(m.positive, t.height)))
                at += t.height
            self._rules_df = pl.concat(tables)
        if self._rules_df is None:
            core = self._core
            n = core.n_rules_found
            constraint_type = pl.Struct({"feature": pl.String, "values": pl.List(pl.String)})
            table = pl.Series(
                [
                    {"feature": self.encoders[c.feature].name, "values": constraint_labels(self.encoders[c.feature], c)}
                    for c in self._constraints()
                ],
                dtype=constraint_type,
            )
            if n <= _SMALL_TABLE:
                text, constraints = self._rule_columns_small(n, table, constraint_type)
            else:
                # Each rule's constraint ids as a list, then the ids replaced by the constraints'
                # texts and structs (a few distinct constraints, many rules).
                ids = self._id_lists(n)
                keys = pl.Series(range(len(table)), dtype=pl.UInt32)
                text = self._join_texts(ids)
                constraints = ids.list.eval(pl.element().replace_strict(keys, table, return_dtype=constraint_type))
                if constraints.dtype != pl.List(constraint_type):  # every list empty
                    constraints = pl.Series([[]] * n, dtype=pl.List(constraint_type))
            self._rules_df = pl.DataFrame(
                {
                    "id": pl.Series(range(n), dtype=pl.UInt32),
                    "text": text,
                    "label": self._labels(self.target.positive, n),
                    "kind": pl.Series(["rule"] * n, dtype=pl.String),
                    "constraints": constraints,
                    "weight": pl.Series(core.weights, dtype=pl.UInt32),
                    "train_positives": pl.Series(core.train_positives, dtype=pl.UInt32),
                    "train_negatives": pl.Series(core.train_negatives, dtype=pl.UInt32),
                    "kept": pl.Series(np.arange(n) < core.n_rules, dtype=pl.Boolean),
                }
            )
        return self._rules_df

    def _labels(self, label: Any, n: int) -> pl.Series:
        """:attr:`rules`' ``label`` column: ``label`` ``n`` times, in the target's dtype."""
        dtype = _parse_dtype(self.target.dtype)
        try:
            return pl.Series("label", [label] * n, dtype=dtype, strict=True)
        except (TypeError, ValueError, pl.exceptions.PolarsError):
            return pl.Series("label", [label] * n)

    def _rule_columns_small(self, n: int, table: pl.Series, dtype: pl.DataType) -> tuple[pl.Series, pl.Series]:
        """:attr:`rules`' ``text`` and ``constraints`` columns of the first ``n`` rules built
        from Python lists (``table``: every constraint's struct, of type ``dtype``): the same
        columns as the Polars route of a large table (:meth:`_id_lists`, :meth:`_join_texts`),
        at a fraction of the cost for a table of a few rules, as the default fit's choices
        build many (docs/semantics.md §9.6)."""
        offsets, cids = self._rule_csr()
        texts = self._constraint_texts()
        structs = table.to_list()
        lists = [cids[offsets[r]:offsets[r + 1]].tolist() for r in range(n)]
        text = pl.Series([" and ".join([texts[i] for i in ids]) if ids else "TRUE" for ids in lists], dtype=pl.String)
        constraints = pl.Series([[structs[i] for i in ids] for ids in lists], dtype=pl.List(dtype))
        return text, constraints

    def _rule_csr(self) -> tuple[np.ndarray, np.ndarray]:
        """Every rule's constraint ids (into :meth:`_constraints`, ascending: feature order) as
        CSR: rule ``r``'s are ``ids[offsets[r]:offsets[r + 1]]``."""
        if self._csr is None:
            offsets, ids = self._core.rule_constraints()
            self._csr = (np.asarray(offsets, dtype=np.int64), np.asarray(ids, dtype=np.uint32))
        return self._csr

    def _id_lists(self, n: int) -> pl.Series:
        """The first ``n`` rules' constraint ids as a ``List[UInt32]`` Series (empty for a rule
        without constraints). A rule's ids are a contiguous run of the CSR ids, so grouping by
        a sorted rule column builds the lists without hashing."""
        offsets, ids = self._rule_csr()
        rule = pl.Series("rule", np.repeat(np.arange(n, dtype=np.uint32), np.diff(offsets[: n + 1]))).set_sorted()
        grouped = (
            pl.DataFrame([rule, pl.Series("ids", ids[: offsets[n]], dtype=pl.UInt32)])
            .group_by("rule", maintain_order=True)
            .agg("ids")
        )
        every = pl.DataFrame({"rule": pl.Series(range(n), dtype=pl.UInt32)})
        out = every.join(grouped, on="rule", how="left", maintain_order="left").get_column("ids")
        return out.fill_null(pl.lit([], dtype=pl.List(pl.UInt32)))

    def _join_texts(self, lists: pl.Series) -> pl.Series:
        """Rules' texts from their constraint id lists (``TRUE`` for none)."""
        texts = pl.Series(self._constraint_texts(), dtype=pl.String)
        keys = pl.Series(range(len(texts)), dtype=pl.UInt32)
        # (The cast: on lists that are all empty, list.eval keeps the input's type.)
        replaced = lists.list.eval(pl.element().replace_strict(keys, texts, return_dtype=pl.String))
        joined = replaced.cast(pl.List(pl.String)).list.join(" and ")
        frame = pl.DataFrame([lists.alias("ids"), joined.alias("text")])
        return frame.select(pl.when(pl.col("ids").list.len() == 0).then(pl.lit("TRUE")).otherwise("text")).to_series()

    def _rule_texts_series(self) -> pl.Series:
        """The voting rules' texts (what ``fired_texts`` reads), without building :attr:`rules`."""
        if self._voting_texts is None:
            if self._rules_df is not None:
                self._voting_texts = self._rules_df.get_column("text").head(self.n_rules)
            else:
                self._voting_texts = self._join_texts(self._id_lists(self.n_rules))
        return self._voting_texts

    def _display_rows(self, ids: Sequence[int], width: int | None) -> list[report.Row]:
        """The rules ``ids`` as displays show them (texts cut to ``width`` characters)."""
        offsets, cids = self._rule_csr()
        texts = self._constraint_texts()
        core = self._core
        weights, pos, neg = core.weights, core.train_positives, core.train_negatives
        rows = []
        for r in ids:
            conditions = [texts[j] for j in cids[offsets[r] : offsets[r + 1]]]
            text, cut = report.cut_text(conditions, width)
            rows.append(report.Row(int(r), int(weights[r]), int(pos[r]) + int(neg[r]), int(pos[r]), text, cut))
        return rows

    @property
    def _threshold(self) -> int:
        """The vote's threshold (without building :attr:`vote`)."""
        return int(self._core.threshold)

    @property
    def _dnf(self) -> bool:
        """Whether a rule budget made the voting rules a DNF (docs/semantics.md §8)."""
        return bool(self._core.dnf)

    @property
    def _budget(self) -> dict[str, int] | None:
        """A rule budget's training counts (``correct``, ``correct_before``), if any."""
        return self._training.get("budget")

    @property
    def _best_of(self) -> list[int] | None:
        """A ``best_of`` fit's training rows right of every run (docs/semantics.md §5.3), if any."""
        return self._training.get("best_of")

    @property
    def _training_rows(self) -> int:
        return int(self._training["rows"])

    def to_text(
        self, *, max_rules: int | None | EllipsisType = ..., rule_width: int | None | EllipsisType = ...
    ) -> str:
        """The model for reading (what ``print(model)`` shows): the method and settings, how the
        rules decide in plain words, then the voting rules with their training coverage and
        precision (heaviest first for BO/BP). At most ``max_rules`` rules are shown (the first
        and the last, around a line counting those hidden), each cut to ``rule_width``
        characters at a condition boundary; defaults from :class:`findrs.Config`, ``None``: no
        limit.

        Raises:
            FindRSInputError: a limit out of range.

        Example:
            >>> import findrs
            >>> m = findrs.datasets.tic_tac_toe().findrs.fit("class", "positive", auto=False, settings=dict(shuffle=False))
            >>> print(m.to_text(max_rules=2))
            FIND-RS (AV, tolerance 0): class = 'positive'
            positive when any of these 8 rules holds:
              id  covers  precision  rule
               0      78      1.000  top_left = x and top_middle = x and top_right = x
                … 6 rules hidden …
               7      78      1.000  top_middle = x and middle_middle = x and bottom_middle = x
            (covers: training rows where the rule holds; precision: the share of them that are positive)
            (show more rules with findrs.Config.set_max_rules(n), or all with model.to_text(max_rules=None))
        """
        if self.target.classes is not None:
            return multiclass.as_text(self, max_rules, rule_width)
        return report.as_text(report.summary(self, max_rules, rule_width))

    def to_markdown(
        self, *, max_rules: int | None | EllipsisType = ..., rule_width: int | None | EllipsisType = ...
    ) -> str:
        """The model as Markdown, for a report: :meth:`to_text`'s content with the rules as a
        table (each rule a code span, ``|`` escaped, other text escaped), truncated likewise.

        Raises:
            FindRSInputError: a limit out of range.

        Example:
            >>> import findrs
            >>> m = findrs.datasets.tic_tac_toe().findrs.fit("class", "positive", auto=False, settings=dict(shuffle=False))
            >>> print(m.to_markdown(max_rules=2).splitlines()[6])
            | 0 | 78 | 1.000 | `top_left = x and top_middle = x and top_right = x` |
        """
        if self.target.classes is not None:
            return multiclass.as_markdown(self, max_rules, rule_width)
        return report.as_markdown(report.summary(self, max_rules, rule_width))

    def _repr_html_(self) -> str:
        """The notebook view: :meth:`to_text`'s content as an HTML table, escaped."""
        if self.target.classes is not None:
            return multiclass.as_html(self)
        return report.as_html(report.summary(self))

    def __str__(self) -> str:
        return self.to_text()

    def __repr__(self) -> str:
        if self.target.classes is not None:
            return (
                f"RuleSetModel(method={self.method!r}, encoding={self.encoding!r}, n_rules={self.n_rules}, "
                f"target={self.target.name!r}, classes={list(self.target.classes)!r}, multiclass={self.multiclass!r})"
            )
        return (
            f"RuleSetModel(method={self.method!r}, encoding={self.encoding!r}, "
            f"n_rules={self.n_rules}, target={self.target.name!r}, positive={self.target.positive!r})"
        )

    # ----------------------------------------------------------------- BP pruning
    def with_n_rules(self, k: int) -> "RuleSetModel":
        """The same BP model with the top ``k`` rules voting.

        Raises:
            FindRSInputError: the model is not BP, or ``k`` is out of ``1..n_rules_found``, or a
                rule budget (``max_rules``) chose the model's rules.

        Example:
            >>> import findrs
            >>> df = findrs.datasets.tic_tac_toe()
            >>> bp = df.findrs.fit("class", "positive", method="bp", random_state=0, settings=dict(T=10))
            >>> bp.with_n_rules(3).n_rules
            3
        """
        self._binary_only("with_n_rules", "refit with settings={'n_rules': k}")
        if self.method != "bp":
            raise FindRSInputError(f"with_n_rules applies to BP models; this one is {self.method!r}")
        if self._core.dnf:
            raise FindRSInputError(
                f"a rule budget (max_rules={self.params['max_rules']}) chose this model's rules and they all vote "
                "as a DNF; fit without max_rules to choose the number of voting rules"
            )
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not (1 <= k <= self.n_rules_found):
            raise FindRSInputError(f"n_rules must be an integer from 1 to {self.n_rules_found}, got {k!r}")
        core = self._core.with_n_rules(int(k))
        # The same runs with K = k and no budget: what a fit with these params gives.
        params = {**self.params, "n_rules": int(k), "max_rules": None}
        training = {key: v for key, v in self._training.items() if key != "budget"}
        return RuleSetModel(core, self.encoders, self.target, params, training, self._cv)

    def _with_record(self, params: dict[str, Any], rec: dict[str, Any]) -> "RuleSetModel":
        """This model with ``params`` and ``rec`` as its cross-validation record (learn.py
        ``_choose_vote``)."""
        return RuleSetModel(self._core, self.encoders, self.target, params, self._training, rec)

    def _with_edges_record(self, rec: dict[str, Any], chosen: tuple[str, ...] = ("bin_edges",)) -> "RuleSetModel":
        """This model with ``rec`` as its cross-validation record and ``chosen`` (of
        ``bin_edges`` and ``numeric``) listed as chosen too (learn.py ``_choose_encoding``)."""
        return self._with_record({**self.params, "auto": _chosen_in_order({*self.params["auto"], *chosen})}, rec)

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

    def pruning_curve(self, train: Any, test: Any | None = None) -> pl.DataFrame:
        """Accuracy of the top-K BP vote for every K (the paper's Figure 1).

        Returns a DataFrame with columns ``K``, ``train_accuracy`` and, when ``test`` is given,
        ``test_accuracy``; ``K`` runs over 1..n_rules_found. Each frame must hold the target.

        Raises:
            FindRSInputError: the model is not BP, or a frame lacks the target or a feature.

        Example:
            >>> import findrs
            >>> train, test = findrs.datasets.train_test_split(findrs.datasets.tic_tac_toe())
            >>> bp = train.findrs.fit("class", "positive", method="bp", random_state=0, settings=dict(T=10))
            >>> curve = bp.pruning_curve(train, test)
            >>> curve.columns, curve.height == bp.n_rules_found
            (['K', 'train_accuracy', 'test_accuracy'], True)
        """
        self._binary_only("pruning_curve", "each class set has its own, model.class_models[i].pruning_curve")
        if self.method != "bp":
            raise FindRSInputError(f"pruning_curve applies to BP models; this one is {self.method!r}")
        if self._core.dnf:
            raise FindRSInputError("this model's rules are a rule budget's DNF, not a top-K vote: it has no pruning curve")
        out: dict[str, Any] = {"K": pl.Series(range(1, self.n_rules_found + 1), dtype=pl.UInt32)}
        for name, data in (("train_accuracy", train), ("test_accuracy", test)):
            if data is None:
                continue
            df = as_polars(data)
            if self.target.name not in df.columns:
                raise FindRSInputError(
                    f"target column {self.target.name!r} not found in the {name.split('_')[0]} frame; "
                    f"its columns are {df.columns}"
                )
            truth = (df.get_column(self.target.name).alias("target") == self.target.positive).fill_null(False).to_numpy()
            y = np.ascontiguousarray(truth, dtype=np.bool_)
            correct = np.asarray(self._core.pruning_curve(encode_frame(df, self.encoders), y), dtype=np.float64)
            out[name] = correct / max(len(y), 1)
        return pl.DataFrame(out)

    # ----------------------------------------------------------------- JSON
    def to_json(self, path: str | os.PathLike[str] | None = None) -> str:
        """The model as JSON text (format version 2, see docs/json-format.md); also written to ``path``
        when given.

        Raises:
            OSError: ``path`` cannot be written.

        Example:
            >>> import findrs
            >>> m = findrs.datasets.tic_tac_toe().findrs.fit("class", "positive", random_state=0, settings=dict(shuffle=False))
            >>> findrs.RuleSetModel.from_json(m.to_json()).n_rules
            8
        """
        sections = [
            ("target", _dumps(self.target.to_dict())),
            ("features", _dumps([e.to_dict() for e in self.encoders])),
            # run 0 of one (every fit but a chosen run, docs/semantics.md §5.3) is left out: such a
            # file is byte for byte what findrs wrote before these parameters, and loads with them.
            ("params", _dumps({k: v for k, v in self.params.items()
                               if not (k in ("run", "best_of") and v == ABSENT_FROM_OLDER_FILES[k])})),
            ("training", _dumps(self._training)),
        ]
        if self._cv is not None:
            sections.append(("cv", _dumps(self._cv)))
        text = self._core.dump(sections, self._constraint_texts())
        if path is not None:
            Path(path).write_text(text)
        return text

    @classmethod
    def from_json(cls, source: str | os.PathLike[str]) -> "RuleSetModel":
        """Loads a model from JSON text or from a file path (format version 2, or 1 as findrs
        wrote it before). Everything is checked on load; an error names what is wrong.

        Raises:
            FindRSInputError: not a findrs model, an unsupported version, or inconsistent content.
            OSError: the file cannot be read.

        Example:
            >>> import findrs
            >>> m = findrs.datasets.tic_tac_toe().findrs.fit("class", "positive", random_state=0, settings=dict(shuffle=False))
            >>> findrs.RuleSetModel.from_json(m.to_json()).rules["text"][0]
            'top_left = x and top_middle = x and top_right = x'
        """
        text = source_text(source)
        if text is source and not text.lstrip().startswith(("{", "[", '"')) and not text.strip()[:1].isdigit():
            raise FindRSInputError(f"{source!r} is neither a findrs model file nor findrs model JSON")
        try:
            core, sections = _core.CoreModel.load(text)
        except ValueError as e:
            if "format version 1 " in str(e):
                return cls._from_v1(text)
            if '"findrs-exceptions"' in text[:200]:
                raise FindRSInputError(
                    "this is a rules-with-exceptions model (docs/semantics.md §9.6): load it with "
                    "findrs.ExceptionsModel.from_json") from None
            raise FindRSInputError(f"findrs model JSON: {e}") from None
        return cls._assemble(core, dict(sections))

    @classmethod
    def _assemble(cls, core: _core.CoreModel | _core.CoreMulticlass, raw: dict[str, str]) -> "RuleSetModel":
        """The model from the core's model and the document's other sections, checked against
        each other."""
        missing = [s for s in _SECTIONS if s not in raw]
        extra = [s for s in raw if s not in _SECTIONS + _OPTIONAL_SECTIONS]
        if missing or extra:
            raise FindRSInputError(
                f"findrs model JSON: the sections besides 'model' must be {list(_SECTIONS)} "
                f"(and {list(_OPTIONAL_SECTIONS)} after a cross-validation); "
                + (f"missing {missing}" if missing else f"unknown {extra}")
            )
        d = {k: json.loads(v) for k, v in raw.items()}

        def section(name: str, read: Callable[[Any], Any]) -> Any:
            try:
                return read(d[name])
            except FindRSInputError as e:
                raise FindRSInputError(f"findrs model JSON: {name}: {e}") from None

        encoders = section("features", _read_features)
        target = section("target", Target.from_dict)
        params = section("params", _read_params)
        multi = isinstance(core, _core.CoreMulticlass)
        training = section("training", _check_multiclass_training if multi else _check_training)
        if bool(params["auto"]) != ("cv" in d):
            raise FindRSInputError(
                "findrs model JSON is inconsistent: params['auto'] lists the settings a cross-validation chose "
                "exactly when the 'cv' section records it"
            )
        cv = section("cv", lambda r: auto.check_record(r, params, training["rows"])) if "cv" in d else None
        names = [e.name for e in encoders]
        dup = sorted({n for n in names if names.count(n) > 1})
        problems = []
        if dup:
            problems.append(f"the feature names {dup} repeat")
        sizes, kinds, null_seen = _schema(encoders, params["encoding"])
        if sizes != list(core.domain_sizes):
            problems.append(
                f"the features have {sizes} values but the model's schema "
                f"{list(core.domain_sizes)}"
            )
        if list(core.kinds) != kinds:
            problems.append(
                f"params say encoding {params['encoding']!r} and the features say {kinds}, but the model's "
                f"schema has {list(core.kinds)}"
            )
        if list(core.null_seen) != null_seen:
            problems.append("the interval features' null values disagree with the model's schema")
        intervals = [e.name for e in encoders if e.kind == "interval"]
        if intervals and params["numeric"] != "interval":
            problems.append(f"params say numeric {params['numeric']!r} but {intervals} are interval features")
        if params["numeric"] == "interval" and any(e.kind == "binned" for e in encoders):
            problems.append("params say numeric 'interval' but some features are binned")
        tight = params["interval_ends"] == "tight"
        if any((e.cuts is None) != tight for e in encoders if e.kind == "interval"):
            problems.append(
                f"params say interval_ends {params['interval_ends']!r}, which "
                + ("has no cuts" if tight else "needs the cuts")
                + ", but an interval feature disagrees"
            )
        if params["method"] != core.method or params["T"] != core.T:
            problems.append(
                f"params say method {params['method']!r} with T = {params['T']}, the model is "
                f"{core.method!r} with T = {core.T}"
            )
        budget = params["max_rules"]
        if multi:
            over = [m.n_rules for m in core.class_models() if budget is not None and m.n_rules > budget]
            if over:
                problems.append(f"params say max_rules = {budget} but a class set has {over[0]} voting rules")
        else:
            if budget is not None and core.n_rules > budget:
                problems.append(f"params say max_rules = {budget} but {core.n_rules} rules vote")
            if budget is None and (core.dnf or "budget" in training):
                problems.append("the model is a rule budget's but params say max_rules = None")
        if multi and (target.classes is None or len(target.classes) != core.n_classes):
            problems.append(f"the model has {core.n_classes} classes but the target lists {target.classes!r}")
        if multi and len(training["class_counts"]) != core.n_classes:
            problems.append(f"the model has {core.n_classes} classes but training counts {len(training['class_counts'])}")
        if multi and len(training["set_contradictions"]) != len(core.set_classes):
            problems.append(f"the model has {len(core.set_classes)} rule sets but training counts contradictions of {len(training['set_contradictions'])}")
        if not multi and target.classes is not None:
            problems.append("the target lists classes but the model is binary")
        if not multi:
            problems += _best_of_problems(params, training)
        elif params["best_of"] != 1 or params["run"] != 0:
            problems.append("a multiclass model's class sets each make run 0: params must say run 0, best_of 1")
        if multi and (params["auto"] or params["direction"] != "positive"):
            problems.append("a multiclass model's params have no automatic settings and describe each class (direction 'positive')")
        if problems:
            raise FindRSInputError("findrs model JSON is inconsistent: " + "; ".join(problems))
        return cls(core, encoders, target, params, training, cv)

    @classmethod
    def _from_v1(cls, text: str) -> "RuleSetModel":
        """A version-1 document converted to version 2 and loaded as such."""
        with _no_gc():
            try:
                d = json.loads(text)
            except json.JSONDecodeError as e:
                raise FindRSInputError(f"not a findrs model: invalid JSON ({e})") from None
            try:
                v2 = _v1_to_v2(d)
            except FindRSInputError as e:
                raise FindRSInputError(f"findrs model JSON (version 1): {e}") from None
            except (KeyError, TypeError, AttributeError, IndexError, ValueError) as e:
                raise FindRSInputError(f"findrs model JSON (version 1) is missing or has a malformed field: {e!r}") from None
            try:
                core, sections = _core.CoreModel.load(json.dumps(v2))
            except ValueError as e:
                raise FindRSInputError(f"findrs model JSON (version 1): {e}") from None
        return cls._assemble(core, dict(sections))


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


def _runs_in_chunks(
    codes: list[np.ndarray],
    schema: tuple[list[int], list[str], list[bool]],
    y: np.ndarray,
    p: dict[str, Any],
    chunks: int,
    options: dict[str, Any],
) -> tuple[np.ndarray, np.ndarray]:
    """The runs of a fit computed in ``chunks`` contiguous chunks of run indexes, dispatched by
    ``joblib.Parallel(n_jobs=-1)`` under the active joblib backend (each chunk on ``n_jobs``
    threads where it runs); concatenated in run order. A run depends on the data, the
    parameters, ``random_state`` and its index only (docs/semantics.md §5.2), so the model is
    that of a local fit whatever the chunks and wherever they ran. ``schema`` is
    :func:`_schema`'s and ``options`` :func:`_core_options`' for ``fit_runs`` of the same
    parameters, exactly as the local fit passes them (each run's interval ends are widened
    where it runs)."""
    try:
        from joblib import Parallel, delayed
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise FindRSInputError(
            "chunks dispatches the runs through joblib, which is not installed: pip install 'findrs[distributed]'"
        ) from e
    total = p["T"] if p["method"] != "find-rs" else 1
    bounds = sorted({round(i * total / chunks) for i in range(chunks + 1)})
    task = delayed(_fit_runs_task)
    with _input_errors():
        parts = Parallel(n_jobs=-1)(
            task(codes, *schema, y, options, a, b) for a, b in zip(bounds, bounds[1:])
        )
    words = np.concatenate([w for w, _ in parts]).astype(np.uint64, copy=False)
    lengths = np.concatenate([n for _, n in parts]).astype(np.uint32, copy=False)
    return words, lengths


def _fit_runs_task(codes: list[np.ndarray], *args: Any, **kwargs: Any) -> tuple[np.ndarray, np.ndarray]:
    """One chunk of runs where joblib runs it: the arrays as the core reads them (Dask's
    serialization delivers them unaligned; they are copied then)."""
    codes = [np.require(c, dtype=np.uint32, requirements=["C", "A"]) for c in codes]
    sizes, kinds, null_seen, y, *rest = args
    y = np.require(y, dtype=np.bool_, requirements=["C", "A"])
    return _core.fit_runs(codes, sizes, kinds, null_seen, y, *rest, **kwargs)


def _described(target: Target, negate: bool) -> Target:
    """The target as the model describes it: with ``direction="negative"`` (docs/semantics.md
    §9.3) the rules describe the other label, which becomes ``positive``."""
    return Target(target.name, target.dtype, target.negative, target.positive) if negate else target


def _training(labels: np.ndarray, contradictions: int) -> dict[str, Any]:
    return {"rows": int(len(labels)), "positives": int(labels.sum()), "contradictions": int(contradictions)}


def _with_best_of(params: dict[str, Any], training: dict[str, Any], best: tuple[int, list[int]] | None) -> dict[str, Any]:
    """A FIND-RS fit with ``best_of`` above 1 (docs/semantics.md §5.3): ``params`` with the run
    it kept as ``run``, and ``training["best_of"]`` (added here) the training rows every run got
    right. Other fits: ``params`` unchanged."""
    if best is None:
        return params
    run, correct = best
    training["best_of"] = [int(c) for c in correct]
    return {**params, "run": int(run)}


def _kind(enc: FeatureEncoder, encoding: str) -> str:
    """The core's constraint kind of a feature: ``"interval"`` for an interval feature, the
    model's encoding (``"av"``, ``"oh"``) for the others."""
    return "interval" if enc.kind == "interval" else encoding


def _read_features(features: Any) -> list[FeatureEncoder]:
    if not isinstance(features, list):
        raise FindRSInputError(f"must be a list, got {features!r}")
    return [FeatureEncoder.from_dict(f) for f in features]


def _read_params(params: Any) -> dict[str, Any]:
    if not isinstance(params, dict):
        raise FindRSInputError(f"must be an object, got {params!r}")
    return check_params(params, loading=True)


def _dumps(value: Any) -> str:
    try:
        return json.dumps(value, allow_nan=False)
    except (TypeError, ValueError) as e:
        raise FindRSInputError(f"the model cannot be written as JSON: {e}") from None


def _check_training(t: Any) -> dict[str, Any]:
    keys = ["rows", "positives", "contradictions"]
    if not isinstance(t, dict) or sorted(set(t) - {"budget", "best_of"}) != sorted(keys):
        raise FindRSInputError(
            f"must be an object with the fields {keys} (and 'budget' after a rule budget, 'best_of' after a "
            f"choice of runs), got {t!r}")
    if not all(_count(t[k]) for k in keys):
        raise FindRSInputError(f"its counts must be integers of at least 0, got {t!r}")
    if t["positives"] > t["rows"] or t["contradictions"] > t["rows"]:
        raise FindRSInputError(f"it counts more positives or contradictions than rows: {t!r}")
    out: dict[str, Any] = {k: int(t[k]) for k in keys}
    if "best_of" in t:
        c = t["best_of"]
        if not isinstance(c, list) or len(c) < 2 or not all(_count(x) and x <= t["rows"] for x in c):
            raise FindRSInputError(f"'best_of' must count the training rows each run got right (2 runs or more, each at most the rows), got {c!r}")
        out["best_of"] = [int(x) for x in c]
    if "budget" in t:
        b = t["budget"]
        fields = ["correct", "correct_before"]
        if not isinstance(b, dict) or sorted(b) != fields or not all(_count(b[k]) and b[k] <= t["rows"] for k in fields):
            raise FindRSInputError(f"'budget' must count the training rows {fields} (at most the rows), got {b!r}")
        out["budget"] = {k: int(b[k]) for k in fields}
    return out


def _best_of_problems(params: dict[str, Any], training: dict[str, Any]) -> list[str]:
    """A model file's ``run`` and ``best_of`` against its training record (docs/semantics.md
    §5.3): with ``best_of`` above 1, the rows each of the ``best_of`` runs got right, and the
    kept run the first with the most (an earlier run as good can only be one that kept no rule,
    which gets exactly the negatives right)."""
    best_of, run, correct = params["best_of"], params["run"], training.get("best_of")
    if best_of == 1:
        return [] if correct is None else ["training records a choice of runs but params say best_of = 1"]
    if correct is None or len(correct) != best_of:
        n = "none" if correct is None else len(correct)
        return [f"params say best_of = {best_of} but training records the rows right of {n} runs"]
    negatives = training["rows"] - training["positives"]
    if max(correct) != correct[run] or any(c == correct[run] and c != negatives for c in correct[:run]):
        return [f"params say run {run} was kept, but the first run with the most training rows right of "
                f"{correct} is run {correct.index(max(correct))}"]
    return []


def _count(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool) and x >= 0


def _check_multiclass_training(t: Any) -> dict[str, Any]:
    keys = ["rows", "class_counts", "contradictions", "set_contradictions"]
    if not isinstance(t, dict) or sorted(set(t) - {"combination_cv", "numeric_cv"}) != sorted(keys):
        raise FindRSInputError(f"must be an object with the fields {keys} (and 'combination_cv', 'numeric_cv'), got {t!r}")
    lists = [t[k] if isinstance(t[k], list) else [None] for k in ("class_counts", "set_contradictions")]
    numbers = [t["rows"], t["contradictions"], *lists[0], *lists[1]]
    if not all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in numbers):
        raise FindRSInputError(f"its counts must be integers of at least 0, got {t!r}")
    if sum(lists[0]) != t["rows"] or max([t["contradictions"], *lists[1]]) > t["rows"]:
        raise FindRSInputError(f"its class counts do not sum to its rows, or it counts more contradictions than rows: {t!r}")
    out: dict[str, Any] = {
        "rows": int(t["rows"]),
        "class_counts": [int(c) for c in lists[0]],
        "contradictions": int(t["contradictions"]),
        "set_contradictions": [int(c) for c in lists[1]],
    }
    if "combination_cv" in t:
        cv = t["combination_cv"]
        ok = isinstance(cv, dict) and sorted(cv) == ["correct", "folds"] and isinstance(cv["correct"], list)
        ok = ok and _count(cv["folds"]) and cv["folds"] >= 2 and len(cv["correct"]) == len(multiclass.COMBINATIONS)
        if not ok or not all(_count(c) and c <= t["rows"] for c in cv["correct"]):
            raise FindRSInputError(
                f"'combination_cv' must hold 'folds' (2 or more) and the held-out rows right of each of "
                f"{list(multiclass.COMBINATIONS)}, got {cv!r}"
            )
        out["combination_cv"] = {"folds": int(cv["folds"]), "correct": [int(c) for c in cv["correct"]]}
    if "numeric_cv" in t:
        cv = t["numeric_cv"]
        ok = isinstance(cv, dict) and sorted(cv) == ["correct", "folds"] and isinstance(cv["correct"], list)
        ok = ok and _count(cv["folds"]) and cv["folds"] >= 2 and len(cv["correct"]) == 2
        if not ok or not all(_count(c) and c <= t["rows"] for c in cv["correct"]):
            raise FindRSInputError(
                f"'numeric_cv' must hold 'folds' (2 or more) and the held-out rows right with bins and with "
                f"intervals, got {cv!r}"
            )
        out["numeric_cv"] = {"folds": int(cv["folds"]), "correct": [int(c) for c in cv["correct"]]}
    return out


def _v1_to_v2(d: Any) -> dict[str, Any]:
    """A version-1 model dict as a version-2 document (raises on what cannot be converted)."""
    if not isinstance(d, dict):
        raise FindRSInputError("the document is not an object")
    encoders = [FeatureEncoder.from_dict(f, legacy=True) for f in d["features"]]
    index = {e.name: i for i, e in enumerate(encoders)}
    if len(index) != len(encoders):
        raise FindRSInputError("feature names repeat")
    lookups = [{_value_key(e.json_value(c)): c for c in range(e.domain_size)} for e in encoders]
    table: dict[tuple[int, tuple[int, ...]], int] = {}
    rules = []
    training = d["training"]
    positives, negatives = training["rule_positives"], training["rule_negatives"]
    if len(positives) != len(d["rules"]) or len(negatives) != len(d["rules"]):
        raise FindRSInputError("'training' does not count every rule's coverage")
    for i, r in enumerate(d["rules"]):
        ids = []
        for c in r["constraints"]:
            f = index[c["feature"]]
            codes = tuple(sorted(lookups[f][_value_key(v)] for v in c["values"]))
            ids.append(table.setdefault((f, codes), len(table)))
        rules.append(
            {"weight": r["weight"], "constraints": sorted(ids), "train_positives": positives[i], "train_negatives": negatives[i]}
        )
    weights = [r["weight"] for r in d["rules"]]
    if not all(isinstance(w, int) and not isinstance(w, bool) for w in weights) or d["total_weight"] != sum(weights):
        raise FindRSInputError(f"total_weight {d['total_weight']!r} is not the sum of the rules' weights")
    rule_set: dict[str, Any] = {"n_rules": d["n_rules"], "rules": rules}
    if d["runs"]:
        rule_set["runs"] = d["runs"]
    if training.get("curve"):
        rule_set["curve"] = training["curve"]
    return {
        "format": FORMAT,
        "version": FORMAT_VERSION,
        "target": d["target"],
        "features": [e.to_dict() for e in encoders],
        "params": d["params"],
        "training": {k: training[k] for k in ("rows", "positives", "contradictions")},
        "model": {
            "method": d["method"],
            "T": d["T"],
            "schema": {"domains": [e.domain_size for e in encoders], "kinds": [d["encoding"]] * len(encoders)},
            "constraints": [{"feature": f, "codes": list(codes)} for (f, codes) in table],
            "rule_sets": [rule_set],
        },
    }


@contextlib.contextmanager
def _input_errors() -> Iterator[None]:
    """A fit's core errors are about its input (parameters are checked before, so what is left
    depends on the data, e.g. a ``min_support`` that leaves no rule): a ``FindRSInputError``."""
    try:
        yield
    except FindRSInputError:
        raise
    except ValueError as e:
        raise FindRSInputError(str(e)) from None


def _core_options(function: str, p: dict[str, Any], n_jobs: int | None, **given: Any) -> dict[str, Any]:
    """The one settings dict the core's ``function`` (``"fit"``, ``"fit_runs"``,
    ``"fit_multiclass"`` or ``"fit_auto"``) takes for the parameters ``p`` on ``n_jobs``
    threads (``findrs/_core.pyi``'s ``FitOptions``, ``FitRunsOptions``, ``MulticlassOptions``,
    ``AutoOptions``; the core refuses a key it does not read): the method, runs, seed, order,
    widening and threads of every fit; but for ``fit_auto`` (which takes its settings per
    candidate) the fixed setting's run rules (:func:`findrs.select.auto.core_setting`: tolerance,
    share tolerance, support, simplification); for ``fit`` and ``fit_multiclass`` which rules
    vote (BP's K or accuracy ratio, the rule budget); for ``fit`` FIND-RS's run and best of
    runs; for ``fit_auto`` the cross-validation's runs, sample and support scaling and the
    final fit's best of runs. ``given``: the items the caller decides (``fit``'s methods
    joined by ``+``, ``fit_multiclass``'s ``combine``, ``fit_auto``'s ``folds`` and
    ``final_fit``)."""
    o: dict[str, Any] = {
        "method": p["method"],
        "n_runs": p["T"],
        "seed": p["random_state"],
        "shuffle": p["shuffle"],
        "widen": _WIDEN[p["interval_ends"]],
        "n_jobs": n_jobs,
    }
    if function == "fit_auto":
        o.update(cv_n_runs=p["cv_T"], max_rows=p["cv_rows"], scale_support="min_support" in p["auto"],
                 best_of=p["best_of"])
    else:
        tau, epsilon, _, min_support, fixed, ratio = auto.core_setting(p, p["accuracy_ratio"])[1:7]
        o.update(tolerance=tau, epsilon=epsilon, min_support=min_support, simplify=p["simplify"])
        if function != "fit_runs":
            bp = p["method"] == "bp"
            o.update(n_rules=fixed if bp else None, accuracy_ratio=ratio if bp else None, max_rules=p["max_rules"])
        if function == "fit":
            o.update(run=p["run"], best_of=p["best_of"])
    return {**o, **given}


def _schema(encoders: Sequence[FeatureEncoder], encoding: str) -> tuple[list[int], list[str], list[bool]]:
    """The core's schema of these features: per feature its number of training codes, its
    constraint kind (:func:`_kind`) and whether it is an interval feature that held null."""
    return (
        [e.domain_size for e in encoders],
        [_kind(e, encoding) for e in encoders],
        [e.kind == "interval" and e.has_null for e in encoders],
    )


@contextlib.contextmanager
def _memory_errors(encoders: Sequence[FeatureEncoder], encoding: str, labels: np.ndarray) -> Iterator[None]:
    """Refuses a fit that needs more memory than is available, before the core allocates it,
    and turns an allocation the core could not make into the same error (findrs.data.memory)."""
    n_pos = int(labels.sum())
    sizes, kinds, null_seen = _schema(encoders, encoding)
    needed = _core.fit_bytes(sizes, kinds, n_pos, len(labels) - n_pos, null_seen)
    with _refused_beyond(needed, encoders, len(labels)):
        yield


@contextlib.contextmanager
def _multiclass_memory_errors(
    encoders: Sequence[FeatureEncoder], encoding: str, classes: np.ndarray, combine: str, n_jobs: int | None
) -> Iterator[None]:
    """:func:`_memory_errors` for a multiclass fit: its class sets are fitted in parallel, so it
    may need the biggest set's bytes once per thread (at most once per set)."""
    sizes, kinds, null_seen = _schema(encoders, encoding)
    counts = np.bincount(classes)
    n_sets = len(counts) - (combine != "one-vs-rest")
    one = max(int(_core.fit_bytes(sizes, kinds, int(c), len(classes) - int(c), null_seen)) for c in counts)
    needed = one * max(1, min(n_sets, n_jobs or os.cpu_count() or 1))
    with _refused_beyond(needed, encoders, len(classes)):
        yield


@contextlib.contextmanager
def _refused_beyond(needed: int, encoders: Sequence[FeatureEncoder], rows: int) -> Iterator[None]:
    """Refuses a fit needing ``needed`` bytes when they are not available, and turns an
    allocation the core could not make into the same ``FindRSMemoryError``."""
    sizes = [e.domain_size for e in encoders]
    names = [e.name for e in encoders]
    check_fit_memory(needed, names, sizes, rows)
    try:
        yield
    except MemoryError as e:
        if isinstance(e, FindRSInputError):
            raise
        raise memory_error(needed, None, names, sizes, rows, failed=str(e)) from e


@contextlib.contextmanager
def _no_gc() -> Iterator[None]:
    """Pauses the cyclic garbage collector while a version-1 file (millions of small,
    acyclic containers for a large model) is parsed and converted: collections triggered while
    building them took two thirds of the time."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _value_key(v: Any) -> Any:
    """A hashable key equal for two JSON values exactly when their JSON texts are equal
    (1, 1.0 and true stay distinct; a bin's [lo, hi] is compared as text)."""
    if isinstance(v, (list, dict)):
        return ("json", json.dumps(v))
    return (type(v).__name__, v)


def source_text(source: Any) -> str:
    """The JSON text a model reader reads: the string itself when it is JSON text (it starts
    with ``{``), else a file's text (a path-like, or a string naming a file).

    Raises:
        FindRSInputError: ``source`` is neither a string nor a path; no such file; a file that
            cannot be read (a directory, no permission).
    """
    if isinstance(source, str) and source.lstrip().startswith(("{", "[")):
        return source
    if not isinstance(source, (str, os.PathLike)):
        raise FindRSInputError(f"a model is read from a path or its JSON text, got {type(source).__name__}")
    path = Path(source)
    try:
        return path.read_text()
    except FileNotFoundError:
        raise FindRSInputError(f"no such model file: {str(path)!r} (pass a path, or the JSON text itself)") from None
    except OSError as e:
        raise FindRSInputError(f"cannot read the model file {str(path)!r}: {e.strerror or e}") from None
    except UnicodeDecodeError:
        raise FindRSInputError(f"the file {str(path)!r} is not text: not a findrs model file") from None


def document_format(text: str) -> Any:
    """The ``format`` of the JSON object ``text`` (``"findrs-exceptions"``, ``"findrs-bagged"``),
    ``None`` for a plain model's document or text that is not a JSON object."""
    try:
        doc = json.loads(text)
    except ValueError:
        return None
    return doc.get("format") if isinstance(doc, dict) else None


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


def _parse_dtype(text: str) -> pl.DataType | None:
    simple = {
        "String": pl.String, "Boolean": pl.Boolean, "Int8": pl.Int8, "Int16": pl.Int16, "Int32": pl.Int32,
        "Int64": pl.Int64, "UInt8": pl.UInt8, "UInt16": pl.UInt16, "UInt32": pl.UInt32, "UInt64": pl.UInt64,
        "Float32": pl.Float32, "Float64": pl.Float64, "Categorical": pl.Categorical,
    }
    return simple.get(text)
