"""A majority vote of findrs models, each fitted on a bootstrap sample of the training rows
(docs/semantics.md §12).

Invariants this module keeps:

* a member is whatever :func:`findrs.fit` returns for a binary target (a FIND-RS or BP/BO
  :class:`~findrs.RuleSetModel`, or an :class:`~findrs.ExceptionsModel`), fitted with the
  caller's settings on the member's own stratified bootstrap sample; members may describe either
  label (``direction``), and every surface reads each member's vote for the *bag's* positive
  label, never a member's own "is positive" mask;
* the bag predicts the positive label exactly where more than half of the members do: the
  plugin and compiled expressions, :meth:`BaggedModel.predict`, and :meth:`BaggedModel.to_sql`
  are the members' own predictions summed, so they agree wherever the members' do;
* the samples and the members' seeds are drawn from ``random_state`` alone, and each member's
  fit is deterministic for any thread count, so the same data, settings and ``random_state``
  give the same model (and the same JSON) whatever ``n_jobs``.
"""

from __future__ import annotations

import json
from collections import Counter
import os
from pathlib import Path
from types import EllipsisType
from typing import Any, Callable, Sequence

import numpy as np
import polars as pl

from ..export import expressions
from .base import Model
from ..config import Config, check_limit
from ..errors import FindRSInputError
from .exceptions import ExceptionsModel, is_exceptions_document
from . import proba
from .model import RuleSetModel, prediction_expr
from .rule_set_files import source_text
from ..export.sql import _check_names, _dialect, _literal, _sql_bool, _table_name, quote_identifier
from ..data.target import Target

FORMAT, FORMAT_VERSION = "findrs-bagged", 1
Member = RuleSetModel | ExceptionsModel


class BaggedModel(Model):
    """The majority vote of findrs models fitted on bootstrap samples (docs/semantics.md
    §12): the positive label where more than half of :attr:`members` predict it. Build one
    with :func:`findrs.fit_bagged`.

    Attributes:
        members: the fitted models, in the order their samples were drawn.
        target: the target (the positive label is the one the vote counts).
        params: ``n_estimators``, ``random_state`` (the seed used) and ``bootstrap``
            (``"stratified"``).

    Example:
        >>> import findrs
        >>> df = findrs.datasets.tic_tac_toe()
        >>> bag = findrs.fit_bagged(df, "class", "positive", n_estimators=3, random_state=0)
        >>> bag.votes(df.head(2)).to_list()
        [3, 3]
    """

    def __init__(self, members: Sequence[Member], target: Target, params: dict[str, Any]) -> None:
        if not members:
            raise FindRSInputError("a bagged model needs at least one member")
        if target.classes is not None:
            raise FindRSInputError("a bagged model votes on one label: its target is binary (or one-vs-rest)")
        self.members: tuple[Member, ...] = tuple(members)
        self.target = target
        labels = {target.positive, target.negative}
        names = None
        for i, m in enumerate(self.members):
            if not isinstance(m, (RuleSetModel, ExceptionsModel)) or m.classes is not None:
                raise FindRSInputError(f"member {i}: a bagged model's members are binary findrs models (RuleSetModel "
                                       f"or ExceptionsModel), got {type(m).__name__}")
            t = m.target
            if t.name != target.name or {t.positive, t.negative} != labels:
                raise FindRSInputError(f"member {i} predicts {t.name!r} with labels {t.positive!r}/{t.negative!r}, the "
                                       f"vote {target.name!r} with {target.positive!r}/{target.negative!r}: the members "
                                       f"of one vote predict its target")
            if names is None:
                names = m.features
            elif m.features != names:
                raise FindRSInputError(f"member {i} reads the columns {m.features}, member 0 {names}: the members of "
                                       f"one vote read the same columns")
        self.params: dict[str, Any] = dict(params)
        if self.params.get("n_estimators") != len(self.members):
            raise FindRSInputError(f"params say {self.params.get('n_estimators')!r} members, the vote has "
                                   f"{len(self.members)}")
        # A member that describes the other label (direction="negative") votes for the
        # positive label where its own "is positive" mask is false.
        self._flip = [m.target.positive != target.positive for m in self.members]

    # ----------------------------------------------------------------- what it is
    @property
    def n_estimators(self) -> int:
        """Members in the vote."""
        return len(self.members)

    @property
    def positive(self) -> Any:
        """The label the vote counts."""
        return self.target.positive

    @property
    def classes(self) -> None:
        """``None``: the vote is binary."""
        return None

    @property
    def encoders(self) -> tuple[Any, ...]:
        """Every member's encoders, member after member: a frame the vote reads passes each
        member's column checks (``df.findrs.predict`` checks them)."""
        return tuple(e for m in self.members for e in m.encoders)

    @property
    def features(self) -> list[str]:
        """The feature columns, in model order (every member reads the same)."""
        return list(self.members[0].features)

    @property
    def rules(self) -> pl.DataFrame:
        """The distinct voting rules of the members, most shared first, then by text: the
        columns of every model kind (:data:`findrs.models.base.RULES_COLUMNS`: ``id``, ``text``,
        ``label`` (the label the rule argues for), ``kind`` (``"rule"``, or ``"exception"`` for
        a member's exception rule), ``constraints``, ``weight`` (how many members hold a rule
        with this text and label), ``train_positives`` / ``train_negatives`` (null: each member
        counts its own bootstrap sample), ``kept`` (true)), then ``members`` (the same count as
        ``weight``).

        Example:
            >>> import findrs
            >>> df = findrs.datasets.tic_tac_toe()
            >>> bag = findrs.fit_bagged(df, "class", "positive", n_estimators=3, random_state=0)
            >>> bag.rules.columns[:4], bag.rules["kind"].unique().to_list()
            (['id', 'text', 'label', 'kind'], ['rule'])
        """
        tables = [m.rules.filter(pl.col("kept")).select("text", "label", "kind", "constraints") for m in self.members]
        rules = pl.concat(tables).unique(["text", "label"], keep="first", maintain_order=True)
        # A text a member holds twice counts once.
        counts = (pl.concat([t.select("text", "label").unique() for t in tables])
                  .group_by("text", "label").agg(pl.len().cast(pl.UInt32).alias("members")))
        out = (rules.join(counts, on=["text", "label"], nulls_equal=True)
               .sort(["members", "text", "label"], descending=[True, False, False]))
        n = out.height
        return out.select(
            pl.Series("id", range(n), dtype=pl.UInt32), "text", "label", "kind", "constraints",
            pl.col("members").alias("weight"), pl.lit(None, pl.UInt32).alias("train_positives"),
            pl.lit(None, pl.UInt32).alias("train_negatives"), pl.lit(True).alias("kept"), "members")

    @property
    def n_rules(self) -> int:
        """Distinct voting rules over the members (a rule shared by several members counts
        once): what a reader of :attr:`rules` reads."""
        return self.rules.height

    # ----------------------------------------------------------------- prediction
    def _column(self, data: Any, expr: Callable[[], pl.Expr]) -> pl.Series:
        """``expr()`` (built for ``data``'s schema, as the plugin needs) evaluated on ``data``."""
        df = self._frame(data)
        with expressions.input_schema(df.schema):
            return df.select(expr()).to_series()

    def votes_expr(self, *, engine: expressions.Engine = "auto") -> pl.Expr:
        """The members predicting the positive label, per row, as a ``UInt32`` Polars
        expression named ``<target>_votes`` (``engine`` as :meth:`predict_expr`).

        Raises:
            FindRSInputError: an unknown engine.

        Example:
            >>> import findrs
            >>> df = findrs.datasets.tic_tac_toe()
            >>> bag = findrs.fit_bagged(df, "class", "positive", n_estimators=3, random_state=0)
            >>> df.head(1).select(bag.votes_expr()).item()
            3
        """
        expressions.check_engine(engine)
        terms = []
        for m, flip in zip(self.members, self._flip):
            mask = m.predict_expr(labels=False, engine=engine)
            terms.append((~mask if flip else mask).cast(pl.UInt32))
        return pl.sum_horizontal(terms).cast(pl.UInt32).alias(f"{self.target.name}_votes")

    def predict_expr(self, *, labels: bool = True, engine: expressions.Engine = "auto") -> pl.Expr:
        """The prediction as a Polars expression (DataFrames and LazyFrames): the labels (named
        ``<target>_predicted``), or with ``labels=False`` a Boolean mask named
        ``<target>_is_positive``: more than half of the members predict the positive label.
        ``engine``: ``"auto"`` / ``"plugin"`` (each member through the Rust plugin) or
        ``"compiled"`` (plain Polars).

        Raises:
            FindRSInputError: an unknown engine.

        Example:
            >>> import findrs
            >>> df = findrs.datasets.tic_tac_toe()
            >>> bag = findrs.fit_bagged(df, "class", "positive", n_estimators=3, random_state=0)
            >>> df.lazy().with_columns(bag.predict_expr()).collect()["class_predicted"][0]
            'positive'
        """
        return prediction_expr(self.votes_expr(engine=engine) * 2 > self.n_estimators, self.target, labels)

    def _proba_expr(self) -> pl.Expr:
        # The members' mean probability, on the vote's side of 1/2 (docs/semantics.md §6).
        return proba.bagged_expr(self)

    def to_expr(self) -> pl.Expr:
        """The prediction mask (``<target>_is_positive``) in plain Polars, no plugin.

        Example:
            >>> import findrs
            >>> df = findrs.datasets.tic_tac_toe()
            >>> bag = findrs.fit_bagged(df, "class", "positive", n_estimators=3, random_state=0)
            >>> df.head(1).select(bag.to_expr()).item()
            True
        """
        return self.predict_expr(labels=False, engine="compiled")

    def predict(self, data: Any, *, labels: bool = True) -> pl.Series:
        """Predictions, named after the target column (``labels=False``: a Boolean mask).

        Raises:
            FindRSInputError: a feature column is missing or changed dtype.

        Example:
            >>> import findrs
            >>> df = findrs.datasets.tic_tac_toe()
            >>> bag = findrs.fit_bagged(df, "class", "positive", n_estimators=3, random_state=0)
            >>> bag.predict(df.head(1), labels=False).to_list()
            [True]
        """
        return self._column(data, lambda: self.predict_expr(labels=labels)).alias(self.target.name)

    def votes(self, data: Any) -> pl.Series:
        """Per row, how many members predict the positive label (``UInt32``, named ``votes``).

        Raises:
            FindRSInputError: a feature column is missing or changed dtype.

        Example:
            >>> import findrs
            >>> df = findrs.datasets.tic_tac_toe()
            >>> bag = findrs.fit_bagged(df, "class", "positive", n_estimators=3, random_state=0)
            >>> bag.votes(df.head(1)).to_list()
            [3]
        """
        return self._column(data, self.votes_expr).alias("votes")

    def decision_function(self, data: Any) -> pl.Series:
        """The share of members predicting the positive label, minus 1/2 (``Float64``, named
        ``decision``): positive exactly where :meth:`predict` says the positive label.

        Raises:
            FindRSInputError: a feature column is missing or changed dtype.

        Example:
            >>> import findrs
            >>> df = findrs.datasets.tic_tac_toe()
            >>> bag = findrs.fit_bagged(df, "class", "positive", n_estimators=4, random_state=0)
            >>> bag.decision_function(df.head(1)).to_list()
            [0.5]
        """
        v = self.votes(data).to_numpy().astype(np.int64)
        # (2 votes - n) / 2n in one IEEE division: the nearest double to the share minus 1/2.
        return pl.Series("decision", (2 * v - self.n_estimators) / (2.0 * self.n_estimators), dtype=pl.Float64)

    def explain(self, data: Any) -> pl.DataFrame:
        """Per row: the prediction (``<target>_predicted``), the members predicting the positive
        label (``<target>_votes``, of :attr:`n_estimators`), and the rules behind the votes:
        ``rules_for`` / ``rules_against`` list, as ``"<text> (k)"``, each distinct rule text
        that decided some member's vote for / against the positive label on that row (``k``:
        how many members it decided), most members first. A member's deciding rules are the
        rules of its vote that hold (for a rules-with-exceptions member: its deciding rule, or
        the exception that overrode its rules); a member that describes the negative label and
        predicts positive because none of its rules holds has none.

        Raises:
            FindRSInputError: a feature column is missing or changed dtype.

        Example:
            >>> import findrs
            >>> df = findrs.datasets.tic_tac_toe()
            >>> bag = findrs.fit_bagged(df, "class", "positive", n_estimators=3, random_state=0)
            >>> ex = bag.explain(df.head(1))
            >>> ex.columns
            ['class_predicted', 'class_votes', 'rules_for', 'rules_against']
        """
        return self._explained(self._frame(data), None, keep=False)

    def _explained(self, frame: Any, top: int | None, *, keep: bool) -> Any:
        """``frame`` with :meth:`explain`'s columns (only them when not ``keep``). A LazyFrame
        is collected to count the members' rules and given back lazy."""
        if top is not None:
            raise FindRSInputError("top applies to RuleSetModel explanations; a bagged explanation lists every rule "
                                   "behind the votes: leave top=None")
        lazy = isinstance(frame, pl.LazyFrame)
        df = frame.collect() if lazy else frame
        with expressions.input_schema(df.schema):
            out = df.with_columns(self.predict_expr(), self.votes_expr()) if keep else \
                df.select(self.predict_expr(), self.votes_expr())
        fors, againsts = [], []
        for i, (m, flip) in enumerate(zip(self.members, self._flip)):
            ex = m.explain(df)
            if isinstance(m, ExceptionsModel):
                one = ex.select(pl.concat_list(pl.col("deciding_text")).list.drop_nulls().alias("f"),
                                pl.concat_list(pl.col("overriding_text")).list.drop_nulls().alias("a"))
                f, a = one["f"], one["a"]
            else:
                texts = ex["fired_texts"].cast(pl.List(pl.String))
                empty = pl.Series([[]] * df.height, dtype=pl.List(pl.String))
                f, a = (empty, texts) if flip else (texts, empty)
            fors.append(f.alias(f"f{i}"))
            againsts.append(a.alias(f"a{i}"))
        out = out.with_columns(_counted(pl.DataFrame(fors)).alias("rules_for"),
                               _counted(pl.DataFrame(againsts)).alias("rules_against"))
        return out.lazy() if lazy else out

    # ----------------------------------------------------------------- SQL and files
    def to_sql(self, *, table: str | Sequence[str] | None = None, dialect: str = "duckdb") -> str:
        """SQL computing :meth:`predict` from the raw feature columns: each member's own SQL
        (its ``to_sql``) compared with the positive label, the matches summed, and the
        positive label where the sum exceeds half the members. ``table``: a whole ``SELECT *,
        ... AS "<target>_predicted" FROM table``. Dialects: ``"duckdb"``, ``"sqlite"``.

        Raises:
            FindRSInputError: an unknown dialect, or column names the dialect confuses (see
                :meth:`findrs.RuleSetModel.to_sql`).

        Example:
            >>> import findrs
            >>> df = findrs.datasets.tic_tac_toe()
            >>> bag = findrs.fit_bagged(df, "class", "positive", n_estimators=3, random_state=0)
            >>> bag.to_sql().splitlines()[0]
            'CASE WHEN ('
        """
        d = _dialect(dialect)
        _check_names(self.features, self.target.name, d)
        if self.target.negative is None:
            pos, neg = _sql_bool(True, d), _sql_bool(False, d)
        else:
            pos, neg = _literal(self.target.positive, d), _literal(self.target.negative, d)
        terms = []
        for m in self.members:
            # The member's SQL as it is: indenting its lines would put spaces inside a string
            # literal or a quoted column name that holds a newline.
            member = m.to_sql(dialect=dialect)
            terms.append(f"  CASE WHEN (\n{member}\n  ) = {pos} THEN 1 ELSE 0 END")
        expr = "CASE WHEN (\n" + "\n  +\n".join(terms) + f"\n) * 2 > {self.n_estimators}\nTHEN {pos} ELSE {neg} END"
        if table is None:
            return expr
        return f"SELECT *,\n{expr} AS {quote_identifier(self.target.name + '_predicted')}\nFROM {_table_name(table)}"

    def to_json(self, path: str | os.PathLike[str] | None = None) -> str:
        """The model as JSON (``format`` ``"findrs-bagged"``): the params and each member's own
        document; also written to ``path`` when given.

        Raises:
            OSError: ``path`` cannot be written.

        Example:
            >>> import findrs
            >>> df = findrs.datasets.tic_tac_toe()
            >>> bag = findrs.fit_bagged(df, "class", "positive", n_estimators=3, random_state=0)
            >>> findrs.BaggedModel.from_json(bag.to_json()).to_json() == bag.to_json()
            True
        """
        doc = {"format": FORMAT, "version": FORMAT_VERSION, "target": self.target.to_dict(), "params": self.params,
               "members": [json.loads(m.to_json()) for m in self.members]}
        text = json.dumps(doc, indent=1)
        if path is not None:
            Path(path).write_text(text)
        return text

    @classmethod
    def from_json(cls, source: str | os.PathLike[str]) -> "BaggedModel":
        """Loads a model :meth:`to_json` wrote (JSON text or a file path); each member is
        checked as its own kind's ``from_json`` checks it, then the members against each other
        (one target, the same columns) and against ``params``.

        Raises:
            FindRSInputError: not a bagged model, an unsupported version, or inconsistent
                content (the message names it).
            OSError: the file cannot be read.

        Example:
            >>> import findrs
            >>> df = findrs.datasets.tic_tac_toe()
            >>> bag = findrs.fit_bagged(df, "class", "positive", n_estimators=3, random_state=0)
            >>> findrs.BaggedModel.from_json(bag.to_json()).n_estimators
            3
        """
        try:
            doc = json.loads(source_text(source))
        except json.JSONDecodeError as e:
            raise FindRSInputError(f"bagged model JSON: not JSON ({e})") from None
        if not isinstance(doc, dict) or doc.get("format") != FORMAT:
            raise FindRSInputError(f"not a bagged model (its format is not {FORMAT!r}); a plain model loads with "
                                   f"findrs.RuleSetModel.from_json, rules with exceptions with "
                                   f"findrs.ExceptionsModel.from_json")
        if doc.get("version") != FORMAT_VERSION:
            raise FindRSInputError(f"bagged model JSON version {doc.get('version')!r} is not supported (this findrs "
                                   f"reads version {FORMAT_VERSION})")
        if sorted(doc) != ["format", "members", "params", "target", "version"]:
            raise FindRSInputError("bagged model JSON: the keys must be format, version, target, params and members")
        params, docs = doc["params"], doc["members"]
        try:
            target = Target.from_dict(doc["target"])
        except FindRSInputError as e:
            raise FindRSInputError(f"bagged model JSON, its target: {e}") from None
        if not isinstance(params, dict) or not isinstance(docs, list) or not docs:
            raise FindRSInputError("bagged model JSON: params must be an object and members a non-empty list")
        members: list[Member] = []
        for i, d in enumerate(docs):
            member_text = json.dumps(d)
            try:
                members.append(ExceptionsModel.from_json(member_text) if is_exceptions_document(member_text)
                               else RuleSetModel.from_json(member_text))
            except FindRSInputError as e:
                raise FindRSInputError(f"bagged model JSON, member {i}: {e}") from None
        return cls(members, target, params)

    # ----------------------------------------------------------------- reading
    def to_text(self, *, max_rules: int | None | EllipsisType = ...) -> str:
        """The model for reading (what ``print(model)`` shows): how the vote decides, the
        members' settings, and the distinct voting rules, most shared first (at most
        ``max_rules``; default :attr:`findrs.Config.max_rules`, ``None``: all).

        Raises:
            FindRSInputError: ``max_rules`` out of range.

        Example:
            >>> import findrs
            >>> df = findrs.datasets.tic_tac_toe()
            >>> bag = findrs.fit_bagged(df, "class", "positive", n_estimators=3, random_state=0)
            >>> print(bag.to_text(max_rules=2).splitlines()[0])
            Bagged vote of 3 findrs models (stratified bootstrap samples, random_state=0): class = 'positive'
        """
        limit = Config.max_rules if max_rules is ... else check_limit("max_rules", max_rules, 2)
        n, t = self.n_estimators, self.target
        rules = self.rules
        lines = [
            f"Bagged vote of {n} findrs models (stratified bootstrap samples, random_state="
            f"{self.params.get('random_state')}): {t.name} = {t.positive!r}",
            f"{t.positive!r} when more than {n // 2} of the {n} members predict it"
            + (f", else {t.negative!r}" if t.negative is not None else ""),
            "members: " + _settings_summary(self.members),
            f"{rules.height} distinct voting rules over the members, most shared first:",
            "  members  label  rule",
        ]
        shown = rules if limit is None else rules.head(limit)
        width = max([len(str(x)) for x in rules["label"].to_list()] + [5])
        lines[-1] = f"  members  {'label'.ljust(width)}  rule"
        for r in shown.iter_rows(named=True):
            lines.append(f"  {r['members']:>7}  {str(r['label']).ljust(width)}  {r['text']}")
        if limit is not None and rules.height > limit:
            lines.append(f"  … {rules.height - limit} more rules (show all with model.to_text(max_rules=None)) …")
        lines.append("(members: how many members vote with the rule; label: the label it argues for)")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.to_text()

    def __repr__(self) -> str:
        return (f"BaggedModel(n_estimators={self.n_estimators}, n_rules={self.n_rules}, target={self.target.name!r}, "
                f"positive={self.target.positive!r})")


def _settings_summary(members: Sequence[Member]) -> str:
    """How often each setting value was chosen among the members (``numeric``, ``method``,
    ``direction``, ``exceptions``)."""
    parts = []
    for key in ("method", "numeric", "direction", "exceptions"):
        counts = Counter(str(m.params.get(key, False)) for m in members)
        parts.append(f"{key} " + ", ".join(f"{v} {c}" for v, c in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))))
    return "; ".join(parts)


def _counted(lists: pl.DataFrame) -> pl.Series:
    """Per row of ``lists`` (list-of-text columns), its texts joined, each distinct one once as
    ``"<text> (k)"`` (``k``: the columns holding it on that row), most first, then by text."""
    n = lists.height
    long = (lists.with_row_index("row")
            .unpivot(index="row", value_name="texts")
            .explode("texts").drop_nulls("texts")
            .unique(["row", "variable", "texts"])
            .group_by("row", "texts").agg(pl.len().alias("k"))
            .sort(["row", "k", "texts"], descending=[False, True, False])
            .group_by("row", maintain_order=True)
            .agg(pl.format("{} ({})", pl.col("texts"), pl.col("k")).alias("out")))
    full = pl.DataFrame({"row": pl.arange(0, n, eager=True, dtype=pl.UInt32)})
    out = full.join(long, on="row", how="left").sort("row")
    return out.select(pl.col("out").fill_null(pl.lit([], dtype=pl.List(pl.String))))["out"]
