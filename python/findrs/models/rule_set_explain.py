"""What a :class:`~findrs.RuleSetModel` says about a row beyond its label: the vote's
margin and strength, the fired rules, why a rule did not fire, as expressions and as a table;
and BP's K changed after the fit (docs/semantics.md §6, §7).

Invariant: every expression here reads the model's one compiled predictor through its plugin
or its public view, so each agrees with :meth:`~findrs.RuleSetModel.predict`.
"""
from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl

from ..data.encode import encode_frame
from ..data.frames import as_polars
from ..errors import FindRSInputError
from ..export import expressions
from ..export.nearest import Nearest
from ..select.params import _chosen_in_order
from . import proba
from .rule_set_parts import _WHY_NOT

if TYPE_CHECKING:  # annotations only: the model module imports this one
    from .model import RuleSetModel


class _Explaining:
    """The explanation half of :class:`~findrs.RuleSetModel` (a mixin of it)."""

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
        the prediction is positive (docs/semantics.md §6). A rescaled vote, not a probability:
        :meth:`predict_proba` gives one.

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

    def _proba_expr(self) -> pl.Expr:
        # Binary: s * q_best + (1 - s) * q_0 on predict's side of 1/2; multiclass: a struct
        # of one field per class (docs/semantics.md §6, "Probabilities").
        if self.target.classes is not None:
            return proba.multiclass_expr(self)
        return proba.rule_set_expr(self)

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
        # Other voting rules: no budget, and the path (of the old ones) is not known.
        training = {key: v for key, v in self._training.items() if key not in ("budget", "path", "all_rows")}
        return type(self)(core, self.encoders, self.target, params, training, self._cv)

    def _with_record(self, params: dict[str, Any], rec: dict[str, Any]) -> "RuleSetModel":
        """This model with ``params`` and ``rec`` as its cross-validation record (learn.py
        ``_choose_vote``)."""
        return type(self)(self._core, self.encoders, self.target, params, self._training, rec)

    def _with_edges_record(self, rec: dict[str, Any], chosen: tuple[str, ...] = ("bin_edges",)) -> "RuleSetModel":
        """This model with ``rec`` as its cross-validation record and ``chosen`` (of
        ``bin_edges`` and ``numeric``) listed as chosen too (learn.py ``_choose_encoding``)."""
        return self._with_record({**self.params, "auto": _chosen_in_order({*self.params["auto"], *chosen})}, rec)

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
