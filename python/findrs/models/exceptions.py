"""Rules with exceptions (docs/semantics.md §9.6): a binary model that predicts the positive
label where some positive rule ``r`` holds and none of ``r``'s exceptions holds.

The model is two FIND-RS rule sets over one encoder: the *rules* (a FIND-RS model describing
the positive label) and the *exception rules* (a FIND-RS model of the same encoders describing
the negative label, ``direction="negative"``). Rule ``r``'s exceptions are the exception rules
``s`` whose Laplace-smoothed training precision beats ``r``'s as naive-Bayes evidence:
``logit(p_s) >= logit(p_r) - logit(prior)``, ``p = (covered rows of the rule's class + 1) /
(covered rows + 2)``, ``prior`` the training share of the positive label. It is decided in
integers: ``(a_s + 1) * P * (b_r + 1) >= (a_r + 1) * (b_s + 1) * N`` (``a`` / ``b`` the rows of
the rule's own / the other class it covers, ``P`` / ``N`` the positive / negative training
rows), so a saved model reloads with exactly the exceptions it was fitted with.

Invariant: ``exceptions_of[r]`` is exactly that set for every rule ``r`` (checked on
construction and on load). The sets are nested (a more precise rule has fewer exceptions), so
every surface decides a row by one comparison: with the exception rules ordered by precision,
most precise first (``rank``), and ``count[r] = len(exceptions_of[r])``, a row is positive iff
``min(count[r] for fired r) <= min(rank[s] for fired s)`` (no fired exception: the number of
exception rules). Prediction, ``predict_expr`` (the plugin's fired rules), ``to_expr`` (plain
Polars) and ``to_sql`` (``r AND NOT (s1 OR ...)`` per rule) compute the same rows.

Example:
    >>> import findrs
    >>> df = findrs.datasets.tic_tac_toe()
    >>> m = findrs.fit(df, "class", "positive", random_state=0, auto=False, settings=dict(exceptions=True))
    >>> type(m).__name__, m.n_rules >= 8
    ('ExceptionsModel', True)
"""

from __future__ import annotations

import html
import json
import os
from fractions import Fraction
from pathlib import Path
from types import EllipsisType
from typing import Any, Sequence

import numpy as np
import polars as pl

from ..export import expressions, report
from .base import RULES_COLUMNS, Model
from ..config import Config
from ..data.encode import FeatureEncoder
from ..errors import FindRSInputError
from ..select.auto import table as auto_table
from . import proba
from .model import RuleSetModel, prediction_expr
from .rule_set_files import document_format, source_text
from ..export.sql import _check_names, _dialect, _literal, _rule_sql, _sql_bool, _table_name, quote_identifier
from ..data.target import Target

FORMAT = "findrs-exceptions"
FORMAT_VERSION = 1


def is_exceptions_document(text: str) -> bool:
    """Whether ``text`` is JSON of a rules-with-exceptions model (its ``format``), not of a
    :class:`~findrs.RuleSetModel`.

    Example:
        >>> is_exceptions_document('{"format": "findrs-exceptions"}'), is_exceptions_document("{}")
        (True, False)
    """
    return document_format(text) == FORMAT


def exception_matrix(P: int, N: int, ar: Sequence[int], br: Sequence[int], as_: Sequence[int],
                     bs: Sequence[int]) -> np.ndarray:
    """The exceptions rule of docs/semantics.md §9.6 for every pair at once: a Boolean
    ``len(ar) x len(as_)`` matrix whose entry ``[r, s]`` says exception rule ``s`` overrides rule
    ``r``: ``(as_[s] + 1) * P * (br[r] + 1) >= (ar[r] + 1) * (bs[s] + 1) * N``, ``a`` / ``b`` the
    training rows of the rule's own / the other class it covers, ``P`` / ``N`` the positive /
    negative training rows. Exact: in int64 when no product can overflow, else in Python's
    integers. The one implementation of the rule (the model, its load checks and the
    cross-validation's fold counts call it).

    Example:
        >>> exception_matrix(10, 10, [9, 3], [0, 2], [4], [0]).tolist()
        [[False], [True]]
    """
    a_r, b_r, a_s, b_s = (np.asarray(x, dtype=np.int64).reshape(-1) + 1 for x in (ar, br, as_, bs))
    top = max(int(x.max(initial=1)) for x in (a_r, b_r, a_s, b_s)) ** 2 * max(P, N, 1)
    if top >= 2**62:  # exact in Python's integers
        a_r, b_r, a_s, b_s = (x.astype(object) for x in (a_r, b_r, a_s, b_s))
    out = a_s[None, :] * P * b_r[:, None] >= a_r[:, None] * b_s[None, :] * N
    return np.asarray(out, dtype=bool).reshape(len(a_r), len(a_s))


def exception_sets(rules: RuleSetModel, exceptions: RuleSetModel) -> list[list[int]]:
    """For each rule of ``rules``, the ids of the rules of ``exceptions`` that override it
    (docs/semantics.md §9.6), ascending: ``logit(p_s) >= logit(p_r) - logit(prior)`` decided
    in integers from the rules' training counts (:func:`exception_matrix`).

    Example:
        >>> import findrs
        >>> df = findrs.datasets.tic_tac_toe()
        >>> m = findrs.fit(df, "class", "positive", random_state=0, auto=False, settings=dict(exceptions=True))
        >>> exception_sets(m.rules_model, m.exception_model) == [list(e) for e in m.exceptions_of]
        True
    """
    P = int(rules._training["positives"])
    N = int(rules._training["rows"]) - P
    r, s = rules.rules, exceptions.rules
    m = exception_matrix(P, N, r["train_positives"].to_list(), r["train_negatives"].to_list(),
                         s["train_positives"].to_list(), s["train_negatives"].to_list())
    return [np.flatnonzero(row).tolist() for row in m]


class ExceptionsModel(Model):
    """A fitted rules-with-exceptions model (docs/semantics.md §9.6): the positive label where
    some rule holds and none of that rule's exceptions holds. Build one with
    ``findrs.fit(..., settings=dict(exceptions=True))``.

    Attributes:
        rules_model: the rules, a FIND-RS :class:`~findrs.RuleSetModel` of the positive label
            (alone, it is the model without exceptions).
        exception_model: the exception rules, a FIND-RS model of the negative label over the
            same encoders (``direction="negative"``).
        exceptions_of: for each rule id, the exception rule ids that override it.
        encoders, target, params: the rules' (``params`` adds ``exceptions`` and the
            exception rules' own settings).

    Example:
        >>> import findrs
        >>> df = findrs.datasets.tic_tac_toe()
        >>> m = findrs.fit(df, "class", "positive", random_state=0, auto=False, settings=dict(exceptions=True))
        >>> m.predict(df.head(2)).to_list()
        ['positive', 'positive']
    """

    def __init__(self, rules: RuleSetModel, exceptions: RuleSetModel,
                 exceptions_of: Sequence[Sequence[int]] | None = None) -> None:
        problems = _check_parts(rules, exceptions)
        if problems:
            raise FindRSInputError("rules with exceptions: " + "; ".join(problems))
        expected = exception_sets(rules, exceptions)
        if exceptions_of is not None and [sorted(map(int, e)) for e in exceptions_of] != expected:
            bad = next(i for i, e in enumerate(expected) if i >= len(exceptions_of) or sorted(exceptions_of[i]) != e) \
                if len(exceptions_of) == len(expected) else None
            where = f"rule {bad}'s" if bad is not None else f"{len(exceptions_of)} lists for {len(expected)} rules:"
            raise FindRSInputError(
                f"rules with exceptions: {where} exceptions are not those the rules' training counts give "
                f"(docs/semantics.md §9.6); the file was edited or damaged: fit the model again"
            )
        self.rules_model = rules
        self.exception_model = exceptions
        self.exceptions_of: tuple[tuple[int, ...], ...] = tuple(tuple(e) for e in expected)
        self.encoders: tuple[FeatureEncoder, ...] = rules.encoders
        self.target: Target = rules.target
        self.params: dict[str, Any] = {**rules.params, "exceptions": True,
                                       "exception_settings": {k: exceptions.params[k] for k in
                                                              ("tolerance", "min_support", "simplify")}}
        odds = [Fraction(a + 1, b + 1) for a, b in zip(exceptions.rules["train_positives"].to_list(),
                                                          exceptions.rules["train_negatives"].to_list())]
        order = sorted(range(len(odds)), key=lambda j: (-odds[j], j))
        self._rank = [0] * len(odds)
        for k, j in enumerate(order):
            self._rank[j] = k
        self._count = [len(e) for e in expected]
        self._cv: dict[str, Any] | None = None
        self._plain_cv: int | None = None
        for i, e in enumerate(expected):  # nested: each set is a prefix of the precision order
            if sorted(order[: len(e)]) != e:
                raise AssertionError(f"exceptions of rule {i} are not a prefix of the precision order")

    def _chosen_by_cv(self, auto: list[str], record: dict[str, Any], plain: int) -> "ExceptionsModel":
        """This model as the automatic choice of the default fit (docs/semantics.md §9.6):
        ``auto`` the settings the cross-validation chose (``"exceptions"`` last), ``record`` its
        candidates with this model's as one more (``exceptions`` true, chosen), ``plain`` the
        held-out rows right of the best model without exceptions."""
        self.params = {**self.params, "auto": list(auto)}
        self._cv, self._plain_cv = record, int(plain)
        return self

    def _freed(self) -> "ExceptionsModel":
        """This model with neither its rules nor its exception rules constraining a feature of
        one training code when the rules' settings call for it
        (:meth:`findrs.RuleSetModel._freed`, docs/semantics.md §2.1); the exceptions of each
        rule, which the training counts decide, stay, and so do the settings and the
        cross-validation record."""
        rules = self.rules_model._freed()
        if rules is self.rules_model:
            return self
        exc = self.exception_model._freed(self.rules_model.params)
        out = ExceptionsModel(rules, exc, self.exceptions_of)
        out.params, out._cv, out._plain_cv = self.params, self._cv, self._plain_cv
        return out

    # ----------------------------------------------------------------- what it is
    @property
    def cv_results(self) -> pl.DataFrame | None:
        """The cross-validation that chose this model (``None`` when ``exceptions=True`` asked
        for it): :attr:`findrs.RuleSetModel.cv_results`' table of every candidate the default fit
        tried, with one more row for this model (``exceptions`` true, ``chosen``; its settings
        are its rules', the exception rules' are ``params["exception_settings"]``) and an
        ``exceptions`` column (docs/semantics.md §9.6).

        Example:
            >>> import findrs
            >>> m = findrs.fit(findrs.datasets.tic_tac_toe(), "class", "positive", auto=False, settings=dict(exceptions=True))
            >>> m.cv_results is None
            True
        """
        return None if self._cv is None else auto_table(self._cv)

    @property
    def positive(self) -> Any:
        """The positive label (the one the rules describe)."""
        return self.target.positive

    @property
    def classes(self) -> None:
        """``None``: the model is binary (as :attr:`findrs.RuleSetModel.classes` of a binary
        model)."""
        return None

    @property
    def features(self) -> list[str]:
        """The feature columns, in model order."""
        return [e.name for e in self.encoders]

    @property
    def n_rules(self) -> int:
        """Voting rules: the rules plus the exception rules that override one of them (the
        others never change a prediction)."""
        used = {s for e in self.exceptions_of for s in e}
        return self.rules_model.n_rules + len(used)

    @property
    def contradictions(self) -> int:
        """Training rows that are contradictions (identical features, both labels)."""
        return self.rules_model.contradictions

    @property
    def rules(self) -> pl.DataFrame:
        """The rules and the exception rules that override one of them, as one table: the
        columns of every model kind (:data:`findrs.models.base.RULES_COLUMNS`: ``id``, a rule's or an
        exception rule's own id; ``text``; ``label``, the label it describes; ``kind``,
        ``"rule"`` / ``"exception"``; ``constraints``; ``weight``, 1; ``train_positives`` /
        ``train_negatives``, training rows of its label / of the other it covers; ``kept``),
        then ``precision`` (``train_positives / covers``) and ``exceptions`` (a rule's exception
        ids; empty for an exception).

        Example:
            >>> import findrs
            >>> df = findrs.datasets.tic_tac_toe()
            >>> m = findrs.fit(df, "class", "positive", random_state=0, auto=False, settings=dict(exceptions=True))
            >>> m.rules["kind"].unique().sort().to_list()[-1]
            'rule'
        """
        used = sorted({s for e in self.exceptions_of for s in e})
        r = self.rules_model.rules.select(RULES_COLUMNS)
        s = self.exception_model.rules.select(RULES_COLUMNS)[used].with_columns(pl.lit("exception").alias("kind"))
        if s.schema["label"] != r.schema["label"]:
            s = s.with_columns(pl.col("label").cast(r.schema["label"]))
        exc = pl.Series("exceptions", [list(e) for e in self.exceptions_of], dtype=pl.List(pl.UInt32))
        out = pl.concat([r.with_columns(exc),
                         s.with_columns(pl.Series("exceptions", [[]] * s.height, dtype=pl.List(pl.UInt32)))])
        covers = pl.col("train_positives") + pl.col("train_negatives")
        return out.select(*RULES_COLUMNS, (pl.col("train_positives") / covers).alias("precision"), "exceptions")

    # ----------------------------------------------------------------- prediction
    def _proba_expr(self) -> pl.Expr:
        # The deciding rule's or overriding exception's precision (docs/semantics.md §6).
        return proba.exceptions_expr(self)

    def _mask_plugin(self) -> pl.Expr:
        fired_r = self.rules_model._plugin("findrs_fired")
        fired_s = self.exception_model._plugin("findrs_fired")
        n_s = len(self._rank)
        key_r = fired_r.list.eval(pl.element().replace_strict(
            pl.Series(range(len(self._count)), dtype=pl.UInt32), pl.Series(self._count, dtype=pl.UInt32),
            return_dtype=pl.UInt32)).list.min()
        if n_s:
            key_s = fired_s.list.eval(pl.element().replace_strict(
                pl.Series(range(n_s), dtype=pl.UInt32), pl.Series(self._rank, dtype=pl.UInt32),
                return_dtype=pl.UInt32)).list.min().fill_null(n_s)
        else:
            key_s = pl.lit(0, pl.UInt32)
        return key_r.is_not_null() & (key_r <= key_s)

    def _mask_compiled(self) -> pl.Expr:
        rules = expressions._rule_exprs(self.rules_model.vote, self.encoders)
        excs = expressions._rule_exprs(self.exception_model.vote, self.encoders)
        terms = [
            r & ~pl.any_horizontal([excs[s] for s in e]).fill_null(False) if e else r
            for r, e in zip(rules, self.exceptions_of)
        ]
        holds = pl.any_horizontal(terms).fill_null(False) if terms else expressions._always(self.encoders, False)
        return expressions._checked(holds, self.encoders)

    def predict_expr(self, *, labels: bool = True, engine: expressions.Engine = "auto") -> pl.Expr:
        """The prediction as a Polars expression (DataFrames and LazyFrames): the labels (named
        ``<target>_predicted``), or with ``labels=False`` a Boolean mask named
        ``<target>_is_positive``. ``engine``: ``"auto"`` / ``"plugin"`` (the Rust plugin's
        fired rules of both sets) or ``"compiled"`` (plain Polars).

        Raises:
            FindRSInputError: an unknown engine.

        Example:
            >>> import findrs
            >>> df = findrs.datasets.tic_tac_toe()
            >>> m = findrs.fit(df, "class", "positive", random_state=0, auto=False, settings=dict(exceptions=True))
            >>> df.lazy().with_columns(m.predict_expr()).collect()["class_predicted"][0]
            'positive'
        """
        mask = self._mask_plugin() if expressions.check_engine(engine) else self._mask_compiled()
        return prediction_expr(mask, self.target, labels)

    def to_expr(self) -> pl.Expr:
        """The prediction mask (``<target>_is_positive``) in plain Polars, no plugin: each rule
        ``r`` as ``r & ~(s1 | s2 | ...)`` over its exceptions, any of them.

        Example:
            >>> import findrs
            >>> df = findrs.datasets.tic_tac_toe()
            >>> m = findrs.fit(df, "class", "positive", random_state=0, auto=False, settings=dict(exceptions=True))
            >>> df.head(2).select(m.to_expr()).to_series().to_list()
            [True, True]
        """
        return self.predict_expr(labels=False, engine="compiled")

    def predict(self, data: Any, *, labels: bool = True) -> pl.Series:
        """Predictions, named after the target column (``labels=False``: a Boolean mask).

        Raises:
            FindRSInputError: a feature column is missing or changed dtype.

        Example:
            >>> import findrs
            >>> df = findrs.datasets.tic_tac_toe()
            >>> m = findrs.fit(df, "class", "positive", random_state=0, auto=False, settings=dict(exceptions=True))
            >>> m.predict(df.head(1), labels=False).to_list()
            [True]
        """
        df = self._frame(data)
        with expressions.input_schema(df.schema):
            return df.select(self.predict_expr(labels=labels)).to_series().alias(self.target.name)

    def decision_function(self, data: Any) -> pl.Series:
        """``0.5`` where the prediction is positive, else ``-0.5`` (``Float64``, named
        ``decision``), as a FIND-RS model's.

        Raises:
            FindRSInputError: a feature column is missing or changed dtype.

        Example:
            >>> import findrs
            >>> df = findrs.datasets.tic_tac_toe()
            >>> m = findrs.fit(df, "class", "positive", random_state=0, auto=False, settings=dict(exceptions=True))
            >>> m.decision_function(df.head(1)).to_list()
            [0.5]
        """
        mask = self.predict(data, labels=False)
        return (mask.cast(pl.Float64) - 0.5).alias("decision")

    def explain(self, data: Any) -> pl.DataFrame:
        """Per row: the prediction, the rules that hold (``fired_rules``), the exception rules
        that hold (``fired_exceptions``), the rule that decided a positive row
        (``deciding_rule``: of the holding rules none of whose exceptions holds, the one with
        the fewest exceptions, then the lowest id) and, on a row where rules hold but the
        prediction is negative, the exception that overrode them (``overriding_exception``:
        the most precise holding exception rule, an exception of every holding rule); with
        their texts.

        Raises:
            FindRSInputError: a feature column is missing or changed dtype.

        Example:
            >>> import findrs
            >>> df = findrs.datasets.tic_tac_toe()
            >>> m = findrs.fit(df, "class", "positive", random_state=0, auto=False, settings=dict(exceptions=True))
            >>> m.explain(df.head(1))["deciding_rule"].to_list()[0] is not None
            True
        """
        return self._explained(self._frame(data), None, keep=False)

    def _explained(self, frame: Any, top: int | None, *, keep: bool) -> Any:
        """``frame`` (a DataFrame or LazyFrame) with the explanation columns (``top`` is
        refused: every holding rule and exception is listed)."""
        if top is not None:
            raise FindRSInputError("top applies to RuleSetModel explanations; a rules-with-exceptions explanation "
                                   "lists every holding rule and exception: leave top=None")
        schema = frame.collect_schema() if isinstance(frame, pl.LazyFrame) else frame.schema
        with expressions.input_schema(schema):
            exprs = [self.predict_expr(),
                     self.rules_model._plugin("findrs_fired").alias("fired_rules"),
                     self.exception_model._plugin("findrs_fired").alias("fired_exceptions")]
        count = pl.Series(self._count, dtype=pl.Int64)
        rank = pl.Series(self._rank, dtype=pl.Int64)
        n_s = len(self._rank)
        r_ids = pl.Series(range(len(self._count)), dtype=pl.UInt32)
        s_ids = pl.Series(range(n_s), dtype=pl.UInt32)
        # The key of each fired rule (count * (rules + 1) + id: fewest exceptions, then lowest id)
        # and of each fired exception (rank * (exceptions + 1) + id: the most precise).
        width = len(self._count) + 1
        key_r = pl.col("fired_rules").list.eval(
            pl.element().replace_strict(r_ids, count, return_dtype=pl.Int64) * width + pl.element().cast(pl.Int64))
        best_s_rank = pl.col("fired_exceptions").list.eval(
            pl.element().replace_strict(s_ids, rank, return_dtype=pl.Int64)).list.min() if n_s else pl.lit(None, pl.Int64)
        order = pl.Series(sorted(range(n_s), key=lambda j: self._rank[j]), dtype=pl.UInt32)
        min_r = key_r.list.min()
        flag = "__findrs_exceptions_positive"
        positive = pl.col(flag)
        deciding = pl.when(positive).then((min_r % width).cast(pl.UInt32))
        overriding = pl.when(~positive & min_r.is_not_null()).then(
            best_s_rank.cast(pl.UInt32).replace_strict(pl.Series(range(n_s), dtype=pl.UInt32), order,
                                                       return_dtype=pl.UInt32) if n_s else pl.lit(None, pl.UInt32))
        texts_r = self.rules_model.rules["text"]
        texts_s = self.exception_model.rules["text"]
        with expressions.input_schema(schema):
            exprs.append(self.predict_expr(labels=False).alias(flag))
        out = frame.with_columns(exprs) if keep else frame.select(exprs)
        out = out.with_columns(deciding.alias("deciding_rule"), overriding.alias("overriding_exception"))
        return out.with_columns(
            pl.col("deciding_rule").replace_strict(r_ids, texts_r, default=None, return_dtype=pl.String)
            .alias("deciding_text"),
            pl.col("overriding_exception").replace_strict(s_ids, texts_s, default=None, return_dtype=pl.String)
            .alias("overriding_text") if n_s else pl.lit(None, pl.String).alias("overriding_text"),
        ).drop(flag)

    # ----------------------------------------------------------------- export
    def to_sql(self, *, table: str | Sequence[str] | None = None, dialect: str = "duckdb") -> str:
        """SQL computing :meth:`predict` from the raw feature columns: ``CASE WHEN r0 AND NOT
        COALESCE(s1 OR s2, FALSE) THEN <positive> ... ELSE <negative> END`` (a null test of an
        exception counts as "does not hold", as in findrs). ``table``: a whole ``SELECT *,
        ... AS "<target>_predicted" FROM table``. Dialects: ``"duckdb"``, ``"sqlite"``.

        Raises:
            FindRSInputError: an unknown dialect, or column names the dialect confuses (see
                :meth:`findrs.RuleSetModel.to_sql`).

        Example:
            >>> import findrs
            >>> df = findrs.datasets.tic_tac_toe()
            >>> m = findrs.fit(df, "class", "positive", random_state=0, auto=False, settings=dict(exceptions=True))
            >>> m.to_sql().splitlines()[0]
            'CASE'
        """
        d = _dialect(dialect)
        _check_names([e.name for e in self.encoders], self.target.name, d)
        vr, vs = self.rules_model.vote, self.exception_model.vote
        excs = {s: _rule_sql(self.encoders, vs.rule(s), d) for e in self.exceptions_of for s in e}
        whens = []
        for i, e in enumerate(self.exceptions_of):
            r = _rule_sql(self.encoders, vr.rule(i), d)
            if e:
                unless = " OR ".join(excs[s] for s in e)
                r = f"({r} AND NOT COALESCE(({unless}), {_sql_bool(False, d)}))"
            whens.append(f"\n  WHEN {r} THEN {_literal(self.target.positive, d)}")
        expr = f"CASE{''.join(whens)}\n  ELSE {_literal(self.target.negative, d)} END" if whens \
            else _literal(self.target.negative, d)
        if table is None:
            return expr
        return f"SELECT *,\n{expr} AS {quote_identifier(self.target.name + '_predicted')}\nFROM {_table_name(table)}"

    def to_json(self, path: str | os.PathLike[str] | None = None) -> str:
        """The model as JSON (``format`` ``"findrs-exceptions"``): the two rule sets' own
        documents and each rule's exceptions; also written to ``path`` when given.

        Raises:
            OSError: ``path`` cannot be written.

        Example:
            >>> import findrs
            >>> df = findrs.datasets.tic_tac_toe()
            >>> m = findrs.fit(df, "class", "positive", random_state=0, auto=False, settings=dict(exceptions=True))
            >>> findrs.ExceptionsModel.from_json(m.to_json()).exceptions_of == m.exceptions_of
            True
        """
        doc = {"format": FORMAT, "version": FORMAT_VERSION,
               "rules": json.loads(self.rules_model.to_json()),
               "exceptions": json.loads(self.exception_model.to_json()),
               "exceptions_of": [list(e) for e in self.exceptions_of]}
        if self._cv is not None:
            doc["chosen"] = {"auto": self.params["auto"], "cv": self._cv, "plain_cv": self._plain_cv}
        text = json.dumps(doc, indent=1)
        if path is not None:
            Path(path).write_text(text)
        return text

    @classmethod
    def from_json(cls, source: str | os.PathLike[str]) -> "ExceptionsModel":
        """Loads a model :meth:`to_json` wrote (JSON text or a file path). Each rule set is
        checked as :meth:`findrs.RuleSetModel.from_json` checks a model, then the two against
        each other (FIND-RS, one encoder, the same target with the labels swapped) and every
        rule's exceptions against its training counts.

        Raises:
            FindRSInputError: not a rules-with-exceptions model, an unsupported version, or
                inconsistent content (the message names it).
            OSError: the file cannot be read.

        Example:
            >>> import findrs
            >>> df = findrs.datasets.tic_tac_toe()
            >>> m = findrs.fit(df, "class", "positive", random_state=0, auto=False, settings=dict(exceptions=True))
            >>> findrs.ExceptionsModel.from_json(m.to_json()).n_rules == m.n_rules
            True
        """
        try:
            doc = json.loads(source_text(source))
        except json.JSONDecodeError as e:
            raise FindRSInputError(f"rules-with-exceptions JSON: not JSON ({e})") from None
        if not isinstance(doc, dict) or doc.get("format") != FORMAT:
            raise FindRSInputError(
                f"not a rules-with-exceptions model (its format is not {FORMAT!r}); a plain model loads with "
                f"findrs.RuleSetModel.from_json")
        if doc.get("version") != FORMAT_VERSION:
            raise FindRSInputError(f"rules-with-exceptions JSON version {doc.get('version')!r} is not supported "
                                   f"(this findrs reads version {FORMAT_VERSION})")
        extra = sorted(set(doc) - {"format", "version", "rules", "exceptions", "exceptions_of", "chosen"})
        if extra or not all(k in doc for k in ("rules", "exceptions", "exceptions_of")):
            raise FindRSInputError("rules-with-exceptions JSON: the keys must be format, version, rules, exceptions "
                                   f"and exceptions_of; " + (f"unknown {extra}" if extra else "one is missing"))
        parts = []
        for key in ("rules", "exceptions"):
            try:
                parts.append(RuleSetModel.from_json(json.dumps(doc[key])))
            except FindRSInputError as e:
                raise FindRSInputError(f"rules-with-exceptions JSON, its {key!r}: {e}") from None
        exc = doc["exceptions_of"]
        if not isinstance(exc, list) or not all(isinstance(e, list) and all(isinstance(i, int) and not
                                                                            isinstance(i, bool) for i in e) for e in exc):
            raise FindRSInputError("rules-with-exceptions JSON: exceptions_of must be a list of lists of rule ids")
        model = cls(parts[0], parts[1], exc)
        if "chosen" in doc:
            problem = _check_choice(doc["chosen"], model)
            if problem:
                raise FindRSInputError(f"rules-with-exceptions JSON, its 'chosen' (the cross-validation that chose the "
                                       f"model, docs/semantics.md §9.6): {problem}")
            c = doc["chosen"]
            model._chosen_by_cv(c["auto"], c["cv"], c["plain_cv"])
        return model

    # ----------------------------------------------------------------- reading
    def _layout(self, max_rules: int | None | EllipsisType) -> tuple[list[str], list[tuple[list[dict], list[dict], int]], list[str]]:
        """What :meth:`to_text` and :meth:`to_markdown` show: the heading lines, the groups of
        rules that share their exceptions (each rule's row, its exception rules' rows, how many
        rules sharing them are hidden; groups in the order of their first rule id, a rule's
        exceptions printed under it so that no id needs looking up), and the closing notes.
        At most ``max_rules`` rules are shown, and at most that many exceptions per group."""
        if max_rules is ...:
            max_rules = Config.max_rules
        if max_rules is not None and (not isinstance(max_rules, int) or isinstance(max_rules, bool) or max_rules < 1):
            raise FindRSInputError(f"max_rules must be None or at least 1, got {max_rules!r}")
        t = self.rules
        rules, excs = t.filter(pl.col("kind") == "rule"), t.filter(pl.col("kind") == "exception")
        by_id = {row["id"]: row for row in excs.iter_rows(named=True)}
        enc = self.rules_model.encoding.upper()
        head = [f"FIND-RS with exceptions ({enc}): {self.target.name} = {self.target.positive!r}"]
        if self._cv is not None:
            head.append(self._cv_line())
        ex = self.params["exception_settings"]
        head.append(f"rules: tolerance={self.rules_model.params['tolerance']!r}, "
                    f"min_support={self.rules_model.params['min_support']!r}, "
                    f"simplify={self.rules_model.params['simplify']!r}; exception rules: "
                    + ", ".join(f"{k}={v!r}" for k, v in ex.items()))
        head.append(f"{self.target.positive!r} when one of these {rules.height} rules holds and none of its "
                    f"exceptions ({excs.height} rules of {self.target.negative!r}, under the rules they override) "
                    f"holds, else {self.target.negative!r}:")
        groups: dict[tuple[int, ...], list[dict]] = {}
        for row in rules.iter_rows(named=True):
            groups.setdefault(tuple(row["exceptions"]), []).append(row)
        limit = rules.height if max_rules is None else max_rules
        shown, out, hidden = 0, [], False
        for exc, members in groups.items():
            take = members[:max(limit - shown, 0)]
            if not take:
                break
            shown += len(take)
            excs_shown = [by_id[e] for e in (exc if max_rules is None else exc[:max_rules])]
            hidden = hidden or len(excs_shown) < len(exc)
            out.append((take, excs_shown, len(exc) - len(excs_shown)))
        notes = []
        if shown < rules.height:
            notes.append(f"… {rules.height - shown} rules hidden …")
        notes.append("(covers: training rows where the rule holds; precision: the share of them of the rule's own label;"
                     " a rule's exceptions are the exception rules at least as precise as it, read with the prior:"
                     " docs/semantics.md §9.6)")
        counted = self.rules_model._training.get("all_rows")
        if counted is not None:  # docs/semantics.md §13
            notes.append(f"({report.sample_note(counted, self.rules_model._training['rows'])})")
        if shown < rules.height or hidden:
            notes.append("(show all with model.to_text(max_rules=None), or more with findrs.Config.set_max_rules(n))")
        return head, out, notes

    @staticmethod
    def _unless(n_rules: int) -> str:
        return "unless one of these holds:" if n_rules == 1 else f"unless one of these holds (for the {n_rules} rules above):"

    def to_text(self, *, max_rules: int | None | EllipsisType = ...) -> str:
        """The model for reading (what ``print(model)`` shows): the rules, each with training
        coverage and precision, and under the rules that share them their exception rules, so
        that a rule reads with its exceptions and no id needs looking up. ``max_rules``: show at
        most that many rules, and that many exceptions under each group (``None``: all; default
        :attr:`findrs.Config.max_rules`).

        Raises:
            FindRSInputError: ``max_rules`` below 1.

        Example:
            >>> import findrs
            >>> df = findrs.datasets.tic_tac_toe()
            >>> m = findrs.fit(df, "class", "positive", random_state=0, auto=False, settings=dict(exceptions=True))
            >>> print(m.to_text().splitlines()[0])
            FIND-RS with exceptions (AV): class = 'positive'
        """
        head, groups, notes = self._layout(max_rules)
        lines = [*head, "  id  covers  precision  rule"]
        for members, excs, hidden in groups:
            for row in members:
                covers = row["train_positives"] + row["train_negatives"]
                lines.append(f"  {row['id']:>2}  {covers:>6}  {row['precision']:>9.3f}  {row['text']}")
            if excs:
                lines.append(f"        {self._unless(len(members))}")
            for row in excs:
                covers = row["train_positives"] + row["train_negatives"]
                lines.append(f"    e{row['id']:<3} {covers:>6}  {row['precision']:>9.3f}    {row['text']}")
            if hidden:
                lines.append(f"        … {hidden} exceptions hidden …")
        return "\n".join([*lines, *notes])

    def _cv_line(self) -> str:
        """What the default fit's cross-validation chose (docs/semantics.md §9.6)."""
        rec = self._cv
        assert rec is not None
        rows = sum(rec["candidates"][rec["chosen"]]["rows"])
        won = sum(rec["candidates"][rec["chosen"]]["correct"])
        chosen = ", ".join(f"{k}={self.rules_model.params[k]!r}" for k in self.params["auto"] if k not in ("exceptions", "n_rules", "method")
                           and k in self.rules_model.params)
        return (f"settings chosen by {rec['folds']}-fold cross-validation on {rec['sampled']} training rows "
                f"(auto=False fits the paper's): {chosen}; rules with exceptions won it, {won / rows:.4f} of the "
                f"held-out rows right against {(self._plain_cv or 0) / rows:.4f} for the best model without "
                f"(exceptions=False fits that one)")

    def to_markdown(self, *, max_rules: int | None | EllipsisType = ...) -> str:
        """The model as Markdown, for a report: :meth:`to_text`'s content, its settings as
        paragraphs, each group of rules that share their exceptions as a table followed by the
        table of those exception rules (each rule a code span, ``|`` escaped).

        Raises:
            FindRSInputError: ``max_rules`` below 1.

        Example:
            >>> import findrs
            >>> df = findrs.datasets.tic_tac_toe()
            >>> m = findrs.fit(df, "class", "positive", random_state=0, auto=False, settings=dict(exceptions=True))
            >>> m.to_markdown().splitlines()[0]
            "**FIND-RS with exceptions (AV): class = 'positive'**"
        """
        head, groups, notes = self._layout(max_rules)
        out = [f"**{_md_text(head[0])}**", *(_md_text(line) for line in head[1:])]
        row_of = lambda r, name: (f"| {name} | {r['train_positives'] + r['train_negatives']} | {r['precision']:.3f} | "  # noqa: E731
                                  f"`{_md_code(r['text'])}` |")
        for members, excs, hidden in groups:
            out.append("| id | covers | precision | rule |\n|---|---|---|---|\n" + "\n".join(row_of(r, r["id"]) for r in members))
            if excs:
                out.append(f"*{_md_text(self._unless(len(members)))}*\n\n| exception | covers | precision | rule |\n"
                           "|---|---|---|---|\n" + "\n".join(row_of(r, f"e{r['id']}") for r in excs))
            if hidden:
                out.append(f"*… {hidden} exceptions hidden …*")
        out += [f"*{_md_text(n)}*" if n.startswith("…") else _md_text(n) for n in notes]
        return "\n\n".join(out)

    def _repr_html_(self) -> str:
        """The notebook view: :meth:`to_text`'s content, escaped, as preformatted text."""
        return f"<pre>{html.escape(self.to_text())}</pre>"

    def __str__(self) -> str:
        return self.to_text()

    def __repr__(self) -> str:
        return (f"ExceptionsModel(rules={self.rules_model.n_rules}, exception_rules="
                f"{self.n_rules - self.rules_model.n_rules}, target={self.target.name!r}, "
                f"positive={self.target.positive!r})")


def _check_choice(doc: Any, model: ExceptionsModel) -> str | None:
    """What is wrong with a file's record of the automatic choice (``None``: nothing): its
    fields, the folds and counts of every candidate, one candidate with exceptions (the chosen,
    the last, with the rules' settings), and the best model without scored strictly lower."""
    if not isinstance(doc, dict) or sorted(doc) != ["auto", "cv", "plain_cv"]:
        return "must be an object with the fields ['auto', 'cv', 'plain_cv']"
    auto, rec, plain = doc["auto"], doc["cv"], doc["plain_cv"]
    if not (isinstance(auto, list) and auto and auto[-1] == "exceptions" and all(isinstance(a, str) for a in auto)):
        return "auto must list the settings chosen, 'exceptions' last"
    if not (isinstance(rec, dict) and sorted(rec) == ["candidates", "chosen", "folds", "sampled"]
            and isinstance(rec["candidates"], list) and rec["candidates"]):
        return "cv must be an object with the fields ['candidates', 'chosen', 'folds', 'sampled'] and candidates"
    cands, folds = rec["candidates"], rec["folds"]
    if folds != model.rules_model.params.get("cv") or rec["chosen"] != len(cands) - 1:
        return f"cv must have the rules' {model.rules_model.params.get('cv')!r} folds and choose its last candidate"
    rows = None
    for i, c in enumerate(cands):
        if not isinstance(c, dict) or c.get("exceptions") is not (i == len(cands) - 1):
            return f"candidate {i}: exceptions must be true for the last candidate alone"
        counts = [c.get(k) for k in ("correct", "rows", "rules", "conditions")]
        if not all(isinstance(x, list) and len(x) == folds and all(isinstance(v, int) and not isinstance(v, bool)
                                                                   and v >= 0 for v in x) for x in counts):
            return f"candidate {i}: correct, rows, rules and conditions must be {folds} counts each"
        if any(a > b for a, b in zip(c["correct"], c["rows"])) or (rows is not None and c["rows"] != rows):
            return f"candidate {i}: its held-out rows differ from candidate 0's, or it has more right than held out"
        rows = c["rows"]
    if sum(rows) != rec["sampled"]:  # type: ignore[arg-type]
        return f"its folds hold {sum(rows)} rows, but it says it used {rec['sampled']!r}"  # type: ignore[arg-type]
    won = cands[-1]
    if any(won.get(k) != model.rules_model.params.get(k) for k in ("encoding", "tolerance", "simplify", "direction")):
        return "the chosen candidate's settings are not the rules'"
    if not (isinstance(plain, int) and plain in {sum(c["correct"]) for c in cands[:-1]} and plain < sum(won["correct"])):
        return "plain_cv must be a candidate's held-out rows right, fewer than the chosen one's"
    return None


def _md_code(text: str) -> str:
    """A rule's text inside a Markdown table's code span."""
    return text.replace("|", "\\|").replace("`", "'")


def _md_text(text: str) -> str:
    """Plain text escaped for Markdown."""
    return "".join("\\" + ch if ch in "\\`*_[]<>|#" else ch for ch in text)


def _check_parts(rules: RuleSetModel, exceptions: RuleSetModel) -> list[str]:
    """What makes ``rules`` and ``exceptions`` not a rules-with-exceptions model."""
    problems = []
    for what, m, direction in (("the rules", rules, "positive"), ("the exception rules", exceptions, "negative")):
        if m.target.classes is not None or m.target.negative is None:
            problems.append(f"{what} must be a model of a two-class target")
        if m.method != "find-rs":
            problems.append(f"{what} must be a FIND-RS model, got method {m.method!r}")
        if m.params.get("direction") != direction:
            problems.append(f"{what} must describe the {direction} direction")
    if problems:
        return problems
    if rules.encoders != exceptions.encoders:
        problems.append("the two rule sets must share one encoder (the same features, values, bins and intervals)")
    if (rules.target.name, rules.target.positive, rules.target.negative) != (
            exceptions.target.name, exceptions.target.negative, exceptions.target.positive):
        problems.append("the exception rules must describe the rules' other label of the same target column")
    counts = ("rows", "positives", "contradictions")  # the rules' record may add a choice of runs (§5.3)
    r, e = rules._training, exceptions._training
    if [r[k] for k in counts] != [e["rows"], e["rows"] - e["positives"], e["contradictions"]]:
        problems.append("the two rule sets must be fitted on the same training rows")
    return problems
