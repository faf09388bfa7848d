"""Multiclass models: one rule set per class and how they combine (docs/semantics.md §10).

A target with more than two classes and no ``positive`` gives a multiclass model. Each class
set is an ordinary binary model of its class against the rest of its training rows
(:attr:`RuleSetModel.class_models <findrs.RuleSetModel.class_models>`), and the sets combine in
one of three ways (``fit(..., settings=dict(multiclass=...))``; ``"auto"``, the default, is chosen
by cross-validation on the training rows: with automatic settings jointly with the tolerance,
support and simplification every set shares, by the whole model's held-out accuracy,
:mod:`findrs.select.multiclass`; with ``auto=False`` the one whose FIND-RS classifies the most
held-out rows):

- ``"one-vs-rest"``: a set per class, each learned on every row; a row gets the class whose set
  scores highest, the score being the set's votes over its real threshold
  (``votes / theta``, above 1 exactly where the set alone says "this class"); ties go to the
  more frequent class, so a row no rule covers gets the most frequent class;
- two *decision lists*: ``"frequent-first"`` (the classes from the most frequent to the rarest,
  which is the default and has no rules) and ``"rarest-first"`` (as RIPPER: from the rarest to
  the most frequent, the default); set ``i`` is learned on the rows of its class and of the
  classes after it; a row gets the class of the first set that says so, else the default.

The Rust core fits the sets and decides every row (the expression plugin); this module holds
the public view of the combination (:class:`Combination`, ``model.combination``) and prints it
(the library's own helpers, not part of the API): as plain Polars (``model.to_expr()``), as SQL
(``model.to_sql()``) and for people (``print(model)``, ``model.to_markdown()``, HTML). Each class set is printed through its own binary view (:attr:`RuleSetModel.vote <findrs.RuleSetModel.vote>`).

Example:
    >>> import findrs, polars as pl
    >>> df = pl.DataFrame({"a": ["x", "y", "z", "x", "y", "z"], "c": ["p", "q", "r", "p", "q", "r"]})
    >>> m = df.findrs.fit("c", random_state=0, settings=dict(multiclass="frequent-first", shuffle=False))
    >>> m.classes, m.multiclass, m.predict(df).to_list()
    (['p', 'q', 'r'], 'frequent-first', ['p', 'q', 'r', 'p', 'q', 'r'])
"""

from __future__ import annotations

import dataclasses
import html
from dataclasses import dataclass
from types import EllipsisType
from typing import Any, Literal, Sequence

import polars as pl

from ..export import report
from ..errors import FindRSInputError
from ..export.sql import _dialect, _double, _literal, _table_name, quote_identifier
from ..data.target import Target

__all__ = ["COMBINATIONS", "DEFAULT", "Combination", "Multiclass"]

Multiclass = Literal["auto", "frequent-first", "rarest-first", "one-vs-rest"]
COMBINATIONS: tuple[str, ...] = ("frequent-first", "rarest-first", "one-vs-rest")
"""The combinations, in the order ``"auto"`` breaks ties in."""
DEFAULT: Multiclass = "auto"
"""The default: chosen by cross-validation; measured in ``results/multiclass.md``
(``experiments/multiclass.py``, the paper's settings) and ``results/multiclass-auto.md``
(``experiments/multiclass_auto.py``, automatic settings)."""
CV_FOLDS = 3


def check_combination(value: Any) -> str:
    """``value`` if it names a combination or is ``"auto"``.

    Raises:
        FindRSInputError: anything else.
    """
    if not isinstance(value, str) or value not in ("auto", *COMBINATIONS):
        shown = ", ".join(map(repr, ("auto", *COMBINATIONS)))
        raise FindRSInputError(f"multiclass must be one of {shown}, got {value!r}")
    return value


def stratified_folds(classes: Any, seed: int, folds: int = CV_FOLDS) -> Any:
    """Each row's fold (``numpy`` ints) for ``multiclass="auto"``: within each class the rows are
    shuffled (NumPy's PCG64 seeded by ``seed``) and dealt round-robin into ``min(folds, rows of the
    smallest class)`` folds; ``None`` when a class has fewer than 2 rows."""
    import numpy as np

    classes = np.asarray(classes)
    k = min(folds, int(np.bincount(classes).min()))
    if k < 2:
        return None
    rng = np.random.default_rng(seed)
    out = np.empty(len(classes), dtype=np.int64)
    for c in np.unique(classes):
        rows = np.flatnonzero(classes == c)
        out[rng.permutation(rows)] = np.arange(len(rows)) % k
    return out


@dataclass(frozen=True)
class Combination:
    """How a multiclass model's class sets decide a row (docs/semantics.md §10); each set's own
    vote is ``model.class_models[i].vote``.

    Attributes:
        rule: ``"one-vs-rest"``, ``"frequent-first"`` or ``"rarest-first"``.
        classes: the class labels, sorted (``model.classes``).
        set_classes: for each class set, in the order the rule reads them, the index of its
            class in ``classes``.
        default: a decision list's class (an index) when no set fires; ``None`` for
            one-vs-rest.
        thetas: one-vs-rest: each set's real threshold; a row's score for the set is
            ``votes / theta`` in double precision.
        thresholds: each set's integer threshold: the set says "this class" when its votes
            exceed it.

    Example:
        >>> import findrs, polars as pl
        >>> df = pl.DataFrame({"a": ["x", "y", "z", "x", "y", "x"], "c": ["p", "q", "r", "p", "q", "p"]})
        >>> comb = df.findrs.fit("c", random_state=0, settings=dict(multiclass="frequent-first", shuffle=False)).combination
        >>> comb.rule, comb.classes, comb.set_classes, comb.default
        ('frequent-first', ('p', 'q', 'r'), (0, 1), 2)
    """

    rule: str
    classes: tuple[Any, ...]
    set_classes: tuple[int, ...]
    default: int | None
    thetas: tuple[float, ...]
    thresholds: tuple[int, ...]

    def class_order(self) -> tuple[int, ...]:
        """The class indices in the order the rule reads them (the default last).

        Example:
            >>> import findrs, polars as pl
            >>> df = pl.DataFrame({"a": ["x", "y", "z", "x", "y", "x"], "c": ["p", "q", "r", "p", "q", "p"]})
            >>> df.findrs.fit("c", random_state=0, settings=dict(multiclass="rarest-first", shuffle=False)).combination.class_order()
            (2, 1, 0)
        """
        return self.set_classes + ((self.default,) if self.default is not None else ())


# --------------------------------------------------------------------------- Polars
def compiled_index(comb: Combination, votes: Sequence[pl.Expr]) -> pl.Expr:
    """The class index (``UInt32``) from each set's votes (``UInt64`` expressions, in set order),
    as plain Polars."""
    ids = [pl.lit(c, pl.UInt32) for c in comb.set_classes]
    if comb.default is None:
        # The first maximum: list.arg_max gives the first index of the largest value, so each
        # set's votes are evaluated once.
        scores = [v.cast(pl.Float64) / theta for v, theta in zip(votes, comb.thetas)]
        best = pl.concat_list(scores).list.arg_max()
        positions = pl.Series(range(len(ids)), dtype=pl.UInt32)
        return best.cast(pl.UInt32).replace_strict(positions, pl.Series(comb.set_classes, dtype=pl.UInt32))
    out = pl.when(votes[0] > comb.thresholds[0]).then(ids[0])
    for v, t, i in zip(votes[1:], comb.thresholds[1:], ids[1:]):
        out = out.when(v > t).then(i)
    return out.otherwise(pl.lit(comb.default, pl.UInt32))


def labels_expr(index: pl.Expr, target: Target, dtype: pl.DataType | None) -> pl.Expr:
    """The labels of class indices (in the target's dtype when known)."""
    assert target.classes is not None
    labels = pl.Series(list(target.classes))
    if dtype is not None:
        labels = labels.cast(dtype)
    return index.replace_strict(pl.Series(range(len(labels)), dtype=pl.UInt32), labels, return_dtype=labels.dtype)


# --------------------------------------------------------------------------- SQL
def combination_sql(
    comb: Combination,
    votes: Sequence[str],
    target: Target,
    *,
    table: str | Sequence[str] | None = None,
    dialect: str = "duckdb",
) -> str:
    """SQL computing the predicted label from each set's votes (SQL expressions, in set order,
    as ``model_to_sql(..., output="votes")`` prints them).

    One-vs-rest picks the set of highest score with a scalar subquery over one row per set
    (each set's votes appear once): ``ORDER BY score DESC, position LIMIT 1``. A decision list
    is a ``CASE`` over the sets in order.
    """
    d = _dialect(dialect)
    labels = [_literal(target.classes[c], d) for c in comb.set_classes]  # type: ignore[index]
    if comb.default is None:
        rows = "\n    UNION ALL ".join(
            f"SELECT {label} AS findrs_class, {i} AS findrs_position, "
            f"CAST({v} AS {d.double}) / {_double(theta, d)} AS findrs_score"
            for i, (label, v, theta) in enumerate(zip(labels, votes, comb.thetas))
        )
        expr = (
            f"(SELECT findrs_class FROM (\n    {rows}\n  ) AS findrs_sets\n"
            "  ORDER BY findrs_score DESC, findrs_position LIMIT 1)"
        )
    else:
        default = _literal(target.classes[comb.default], d)  # type: ignore[index]
        whens = "".join(f"\n  WHEN {v}\n  > {int(t)} THEN {label}" for v, t, label in zip(votes, comb.thresholds, labels))
        expr = f"CASE{whens}\n  ELSE {default} END"
    if table is None:
        return expr
    alias = quote_identifier(f"{target.name}_predicted")
    return f"SELECT *,\n{expr} AS {alias}\nFROM {_table_name(table)}"


# --------------------------------------------------------------------------- text
def _summaries(
    model: Any, max_rules: int | None | EllipsisType, rule_width: int | None | EllipsisType
) -> tuple[str, list[str], list[report.Summary], list[str], str | None]:
    """What a display of a multiclass model shows: its title, the combination in plain words,
    each class set's summary (titled by its class, as :func:`findrs.export.report.summary` gives it),
    the notes once for all sets, and the closing line of a decision list."""
    comb: Combination = model.combination
    sets = model.class_models
    name = report._METHOD_NAMES[model.method]
    title = f"{name} ({model.encoding.upper()}, tolerance {model.params['tolerance']}"
    if model.method != "find-rs":
        title += f", T={model.T}"
    if model.params.get("simplify"):
        title += ", simplified"
    if model.params.get("max_rules") is not None:
        title += f", max_rules={model.params['max_rules']}"
    title += f"), multiclass {comb.rule}: {model.target.name} in {list(comb.classes)!r}"
    if comb.default is None:
        lines = [
            "the class whose rules score highest (votes over the set's threshold), ties to the class "
            f"listed first; a row no rule covers: {sets[0].positive!r}:"
        ]
        closing = None
    else:
        default = comb.classes[comb.default]
        lines = [f"the first class below whose rules say so; a row none says: {default!r}:"]
        closing = f"else: class {default!r}"
    cv = model._training.get("numeric_cv")
    if cv is not None:
        bins, intervals = cv["correct"]
        lines.insert(0, f"numeric={model.params['numeric']!r} chosen by {cv['folds']}-fold cross-validation (held-out rows "
                        f"right: bins {bins}, intervals {intervals}; docs/semantics.md §10)")
    settings_cv = model._training.get("settings_cv")
    if settings_cv is not None:  # findrs.select.multiclass
        from ..select.multiclass import summary

        lines.insert(0, summary(settings_cv, model._training["rows"]))
    summaries, notes, at = [], [], 0
    for m in sets:
        s = report.summary(m, max_rules, rule_width)
        k = m.n_rules
        label = f"class {m.positive!r} ({k:,} rule{'s' if k != 1 else ''}), {s.lines[0]}"
        # Ids as in the multiclass model's rules table: the sets' rules one set after the other.
        head, tail = ([dataclasses.replace(r, id=r.id + at) for r in rows] for rows in (s.head, s.tail))
        summaries.append(dataclasses.replace(s, title=label, lines=s.lines[1:], notes=(), head=tuple(head), tail=tuple(tail)))
        at += m.n_rules_found
        notes += [n for n in s.notes if n not in notes and "contradictory" not in n]
    if model.contradictions:
        notes.append(f"{model.contradictions:,} training rows identical to a row of another class")
    notes += model._path_notes  # docs/semantics.md §10.1
    if model._training.get("all_rows") is not None:  # docs/semantics.md §13
        notes.append(report.sample_note(model._training["all_rows"], model._training["rows"]))
    return title, lines, summaries, notes, closing


def as_text(model: Any, max_rules: int | None | EllipsisType = ..., rule_width: int | None | EllipsisType = ...) -> str:
    """A multiclass model for reading (``print(model)``): the title, the combination, each class
    set as :meth:`RuleSetModel.to_text <findrs.RuleSetModel.to_text>` shows a binary model."""
    title, lines, summaries, notes, closing = _summaries(model, max_rules, rule_width)
    out = [title, *lines]
    for s in summaries:
        out += [report.as_text(s)]
    out += [closing] if closing else []
    out += [f"({n})" for n in notes]
    return "\n".join(out)


def as_markdown(model: Any, max_rules: int | None | EllipsisType = ..., rule_width: int | None | EllipsisType = ...) -> str:
    """:func:`as_text`'s content as Markdown, one table per class set."""
    title, lines, summaries, notes, closing = _summaries(model, max_rules, rule_width)
    out = [f"**{report.md_escape(title)}**", "", *[report.md_escape(x) + "  " for x in lines], ""]
    for s in summaries:
        out += [report.as_markdown(s)]
    out += [report.md_escape(closing) + "  "] if closing else []
    out += [report.md_escape(n) + "  " for n in notes]
    return "\n".join(out).rstrip() + "\n"


def as_html(model: Any) -> str:
    """:func:`as_text`'s content as HTML (the notebook view), everything escaped."""
    title, lines, summaries, notes, closing = _summaries(model, ..., ...)
    e = html.escape
    parts = ["<div class=\"findrs-multiclass\">", f"<p><b>{e(title)}</b><br>" + "<br>".join(e(x) for x in lines) + "</p>"]
    parts += [report.as_html(s) for s in summaries]
    tail = ([closing] if closing else []) + notes
    if tail:
        parts.append("<p>" + "<br>".join(e(x) for x in tail) + "</p>")
    parts.append("</div>")
    return "\n".join(parts)
