"""What a reader of a :class:`~findrs.RuleSetModel` sees: its rules table (the columns
every model kind shares) and the text ``print`` shows (docs/semantics.md §6).

Invariant: the table and the text are built from the core's public view of the rules (their
constraints, weights and counts), the same view every exporter prints.
"""
from __future__ import annotations

from types import EllipsisType
from typing import Any, Sequence

import numpy as np
import polars as pl

from ..export import report
from ..export.text import constraint_labels
from . import multiclass
from .rule_set_parts import _parse_dtype

_SMALL_TABLE = 2_000
"""Up to this many rules, :attr:`RuleSetModel.rules` builds its list columns in Python
(:meth:`RuleSetModel._rule_columns_small`), beyond it with Polars' list expressions."""


class _Reading:
    """The explanation half of :class:`~findrs.RuleSetModel` (a mixin of it)."""

    @property
    def rules(self) -> pl.DataFrame:
        """The rules as a table, heaviest first for BO/BP (docs/semantics.md §6).

        Columns (those of every model kind, :data:`findrs.models.base.RULES_COLUMNS`): ``id``,
        ``text``, ``label`` (the label the rule describes: :attr:`positive`, or a multiclass
        model's class), ``kind`` (``"rule"``), ``constraints`` (list of ``{feature, values}``
        structs, values as text), ``weight`` (alpha: how many runs found the rule; 1 for
        FIND-RS), ``train_positives`` / ``train_negatives`` (training rows of the label / of the
        others covered; all training rows when a FIND-RS fit learned on a sample of them,
        docs/semantics.md §13), ``kept`` (whether the rule votes: BP's top K; always true otherwise). A
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
                    "train_positives": pl.Series(self._shown_counts[0], dtype=pl.UInt32),
                    "train_negatives": pl.Series(self._shown_counts[1], dtype=pl.UInt32),
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
        weights, (pos, neg) = core.weights, self._shown_counts
        rows = []
        for r in ids:
            conditions = [texts[j] for j in cids[offsets[r] : offsets[r + 1]]]
            text, cut = report.cut_text(conditions, width)
            rows.append(report.Row(int(r), int(weights[r]), int(pos[r]) + int(neg[r]), int(pos[r]), text, cut))
        return rows

    @property
    def _shown_counts(self) -> tuple[list[int], list[int]]:
        """Each rule's covered training rows of the described label and of the other, as
        :attr:`rules` and ``print`` show them: counted on all training rows when the rules were
        learned on a sample of them (docs/semantics.md §13), else the fit's own counts."""
        rec = self._all_rows
        if rec is not None and len(rec.get("rule_positives", ())) == self._core.n_rules_found:
            return list(rec["rule_positives"]), list(rec["rule_negatives"])
        return list(self._core.train_positives), list(self._core.train_negatives)

    @property
    def _all_rows(self) -> dict[str, Any] | None:
        """The counts on all training rows of a model learned on a sample of them
        (docs/semantics.md §13; ``None`` otherwise)."""
        return self._training.get("all_rows")

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
            (path (rules: training accuracy): 1: 0.441, 2: 0.533, 3: 0.613, 5: 0.771, 8: 1.000; model.at(k) is the model of k rules, model.path the table)
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
