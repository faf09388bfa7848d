"""A model for people: ``print(model)``, :meth:`RuleSetModel.to_markdown` and the notebook view.

All three show the same thing (:func:`summary`): a title (method, encoding, tolerance, support,
T, the target), the settings a cross-validation chose (docs/semantics.md §9.4), how the rules
decide in plain words, then the voting rules with their training coverage
(``covers``: training rows the rule holds on) and precision (the share of those rows that are
positive, rounded down), heaviest first for BO and BP. A model with more rules than
``max_rules`` shows the first and the last ones around a line counting the hidden rules, as
Polars shows a long table; a rule longer than ``rule_width`` characters is cut at a condition
boundary, with the count of the conditions cut (:class:`findrs.Config` holds the defaults).
Only the rules shown are rendered, so a model of any size prints in milliseconds.

Markdown escapes its text (rules are code spans, ``|`` escaped); HTML escapes everything.
"""

from __future__ import annotations

import html
import math
import re
from dataclasses import dataclass, field
from types import EllipsisType
from typing import Any, Protocol, Sequence

from ..config import Config, check_limit

_METHOD_NAMES = {"find-rs": "FIND-RS", "bo": "FIND-RS-BO", "bp": "FIND-RS-BP"}


@dataclass(frozen=True)
class Row:
    """One rule as shown: its id (a row of ``model.rules``), weight, training rows covered and
    of those positive, its text (cut to the width) and how many conditions were cut."""

    id: int
    weight: int
    covers: int
    positives: int
    text: str
    cut: int = 0

    @property
    def precision(self) -> str:
        """The share of covered training rows that are positive, rounded down to 3 decimals
        (``-`` when the rule covers no training row)."""
        if self.covers == 0:
            return "-"
        return f"{math.floor(self.positives / self.covers * 1000) / 1000:.3f}"


@dataclass(frozen=True)
class Summary:
    """What a display shows of a model (see the module docs)."""

    title: str
    lines: tuple[str, ...]
    weighted: bool
    head: tuple[Row, ...]
    hidden: int
    tail: tuple[Row, ...]
    notes: tuple[str, ...] = field(default=())

    @property
    def rows(self) -> tuple[Row, ...]:
        return self.head + self.tail


class Displayed(Protocol):
    """What a display reads of a model (:class:`findrs.RuleSetModel` has it)."""

    method: str
    encoding: str
    params: dict[str, Any]
    T: int
    n_rules: int
    n_rules_found: int
    target: Any
    contradictions: int
    _threshold: int
    _dnf: bool
    _budget: dict[str, int] | None
    _best_of: list[int] | None
    _training_rows: int
    _path_notes: list[str]
    _all_rows: dict[str, Any] | None

    def _display_rows(self, ids: Sequence[int], width: int | None) -> list["Row"]: ...


def sample_note(rec: dict[str, Any], learned: int) -> str:
    """What ``print`` says of a model learned on a sample of ``learned`` rows, with the counts
    ``rec`` on all training rows (docs/semantics.md §13).

    Example:
        >>> sample_note({"rows": 1_000_000, "correct": 850_000}, 200_000)
        'rules learned on a stratified sample of 200,000 of the 1,000,000 training rows; the training accuracy counts all 1,000,000: 0.8500 (covers, precision and the path count the sample)'
    """
    n = rec["rows"]
    if "rule_positives" in rec:
        return (f"rules learned on a stratified sample of {learned:,} of the {n:,} training rows; covers, precision, "
                f"the path and the training accuracy count all {n:,}: {rec['correct'] / max(n, 1):.4f}")
    return (f"rules learned on a stratified sample of {learned:,} of the {n:,} training rows; the training accuracy "
            f"counts all {n:,}: {rec['correct'] / max(n, 1):.4f} (covers, precision and the path count the sample)")


def summary(
    model: Displayed, max_rules: int | None | EllipsisType = ..., rule_width: int | None | EllipsisType = ...
) -> Summary:
    """The title, plain-language lines and rows a display of ``model`` shows.

    Args:
        model: the model.
        max_rules: most rules shown (``None``: all; default :attr:`Config.max_rules`).
        rule_width: most characters of a rule's text (``None``: all; default
            :attr:`Config.rule_width`).

    Raises:
        FindRSInputError: a limit out of range.
    """
    limit = Config.max_rules if max_rules is ... else check_limit("max_rules", max_rules, 2)
    width = Config.rule_width if rule_width is ... else check_limit("rule_width", rule_width, 20)
    k, found, T = model.n_rules, model.n_rules_found, model.T
    threshold = model._threshold
    method = model.method
    name = _METHOD_NAMES[method]
    title = f"{name} ({model.encoding.upper()}, tolerance {model.params['tolerance']}"
    if model.params.get("min_support", 0) > 1:
        title += f", min_support {model.params['min_support']}"
    if method != "find-rs":
        title += f", T={T}"
    if any(e.kind == "interval" for e in model.encoders):
        title += f", intervals ({model.params['interval_ends']} ends)"
    if model.params.get("simplify"):
        title += ", simplified"
    if model.params.get("max_rules") is not None and "max_rules" not in model.params.get("auto", ()):
        title += f", max_rules={model.params['max_rules']}"  # a size chosen by CV: the settings line says it
    title += f"): {model.target.name} = {model.target.positive!r}"
    # The described label: "positive", or with direction='negative' the label the rules
    # describe, as the title names it (the other label is predicted where the vote fails).
    negative = model.params.get("direction") == "negative"
    said = f"{model.target.name} = {model.target.positive!r}" if negative else "positive"
    any_rule = "this rule holds" if k == 1 else f"any of these {k:,} rules holds"
    if method == "find-rs":
        lines = [f"{said} when {any_rule}"]
    elif model._dnf:
        lines = [
            f"{said} when {any_rule} (rule budget: at most {model.params['max_rules']} of "
            f"the {name} rules, those that together classify the most training rows correctly; a rule's weight "
            f"is the number of the {T:,} runs that found it)"
        ]
    elif method == "bo":
        lines = [
            f"{said} when more than {threshold:,} of the {T:,} runs have a rule that holds; "
            f"a rule's weight is the number of runs that found it; rules are listed heaviest first"
        ]
    else:
        lines = [
            f"{said} when the weights of the rules that hold sum above {threshold:,}; a rule's "
            f"weight is the number of the {T:,} runs that found it; rules are listed heaviest first"
        ]
        if k < found:
            lines.append(f"the top {k:,} of the {found:,} rules found vote; model.rules lists them all")
    runs = model._best_of
    if runs:
        t, rows_ = model.params["run"], model._training_rows
        lines.insert(0, f"run {t} of best_of={len(runs)} kept: the first with the most training rows right, "
                        f"{runs[t]:,} of {rows_:,} (run 0: {runs[0]:,}); run={t} refits it alone" if t else
                        f"run 0 of best_of={len(runs)} kept: no other run has more training rows right "
                        f"({runs[0]:,} of {rows_:,})")
    if negative:
        otherwise = "where none holds" if method == "find-rs" or model._dnf else "where the vote falls short"
        lines.insert(
            0,
            f"the rules describe {model.target.positive!r}, the other label (direction='negative'): "
            f"{model.target.negative!r} is predicted {otherwise}",
        )
    chosen = model.params.get("auto")
    if chosen:
        settings = ", ".join(f"{k}={model.params[k]!r}" for k in chosen)
        sampled = model._cv["sampled"] if model._cv is not None else model._training_rows
        on = f" on {sampled:,} of the {model._training_rows:,} training rows" if sampled < model._training_rows else ""
        lines.insert(0, f"settings chosen by {model.params['cv']}-fold cross-validation{on} "
                        f"(auto=False fits the paper's): {settings}")
    lines[-1] += ":"
    if limit is None or k <= limit:
        head_ids, tail_ids = list(range(k)), []
    else:
        h = (limit + 1) // 2
        head_ids, tail_ids = list(range(h)), list(range(k - (limit - h), k))
    rows = model._display_rows(head_ids + tail_ids, width)
    share = f"where {said}" if negative else "that are positive"
    notes = [f"covers: training rows where the rule holds; precision: the share of them {share}"]
    sampled = model._all_rows
    if sampled is not None:
        notes.append(sample_note(sampled, model._training_rows))
    if any(" is unseen" in r.text for r in rows):
        notes.append("x is unseen: x holds a value not seen in training (null too, where training had no null)")
    budget = model._budget
    if budget is not None:
        rows_ = max(model._training_rows, 1)
        on = " on the sample" if sampled is not None else ""
        notes.append(
            f"rule budget: training accuracy{on} {budget['correct'] / rows_:.4f}; "
            f"{budget['correct_before'] / rows_:.4f} before the budget"
        )
    if model.contradictions:
        notes.append(f"{model.contradictions:,} contradictory training rows")
    notes += model._path_notes
    if len(rows) < k:
        notes.append("show more rules with findrs.Config.set_max_rules(n), or all with model.to_text(max_rules=None)")
    return Summary(
        title=title,
        lines=tuple(lines),
        weighted=method != "find-rs",
        head=tuple(rows[: len(head_ids)]),
        hidden=k - len(rows),
        tail=tuple(rows[len(head_ids) :]),
        notes=tuple(notes),
    )


def cut_text(conditions: Sequence[str], width: int | None) -> tuple[str, int]:
    """The conditions joined by ``and``, cut at a condition boundary to at most ``width``
    characters (at least one condition is kept), and the number of conditions cut."""
    if not conditions:
        return "TRUE", 0
    full = " and ".join(conditions)
    if width is None or len(full) <= width:
        return full, 0
    kept: list[str] = []
    length = 0
    for c in conditions:
        rest = len(conditions) - len(kept) - 1
        suffix = len(f" and … (+{rest} conditions)") if rest else 0
        add = len(c) + (5 if kept else 0)
        if kept and length + add + suffix > width:
            break
        kept.append(c)
        length += add
    cut = len(conditions) - len(kept)
    if not cut:
        return full, 0
    return " and ".join(kept) + f" and … (+{cut} condition{'s' if cut > 1 else ''})", cut


# --------------------------------------------------------------------------- text
def _cells(s: Summary, row: Row) -> list[str]:
    cells = [str(row.id)]
    if s.weighted:
        cells.append(f"{row.weight:,}")
    return cells + [f"{row.covers:,}", row.precision, row.text]


def _header(s: Summary) -> list[str]:
    return ["id"] + (["weight"] if s.weighted else []) + ["covers", "precision", "rule"]


def as_text(s: Summary) -> str:
    """The summary as plain text (``print(model)``)."""
    header = _header(s)
    rows = [_cells(s, r) for r in s.rows]
    widths = [max([len(header[j])] + [len(r[j]) for r in rows]) for j in range(len(header) - 1)]

    def line(cells: list[str]) -> str:
        return "  " + "  ".join(c.rjust(w) for c, w in zip(cells, widths)) + "  " + cells[-1]

    out = [s.title, *s.lines, line(header)]
    out += [line(r) for r in rows[: len(s.head)]]
    if s.hidden:
        out.append(" " * (2 + widths[0]) + f"… {s.hidden:,} rule{'s' if s.hidden > 1 else ''} hidden …")
    out += [line(r) for r in rows[len(s.head) :]]
    out += [f"({n})" for n in s.notes]
    return "\n".join(out)


# --------------------------------------------------------------------------- Markdown
_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>|~])")


def md_escape(text: str) -> str:
    """``text`` with the characters that mean something inside a Markdown line (emphasis,
    code, links, HTML, table cells) backslash-escaped."""
    return _MD_SPECIAL.sub(r"\\\1", text)


def md_code(text: str) -> str:
    """``text`` as a Markdown code span usable in a table cell (fence longer than any run of
    backticks inside, ``|`` escaped as GitHub-flavoured tables require)."""
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or not text.strip() else ""
    return f"{fence}{pad}{text.replace('|', chr(92) + '|')}{pad}{fence}"


def as_markdown(s: Summary) -> str:
    """The summary as Markdown: the title in bold, the plain-language lines, a table."""
    header = _header(s)
    out = [f"**{md_escape(s.title)}**", ""]
    out += [md_escape(x) + "  " for x in s.lines]
    out += ["", "| " + " | ".join(header) + " |", "|" + "---:|" * (len(header) - 1) + ":---|"]

    def line(r: Row) -> str:
        cells = _cells(s, r)
        return "| " + " | ".join([md_escape(c) for c in cells[:-1]] + [md_code(cells[-1])]) + " |"

    out += [line(r) for r in s.head]
    if s.hidden:
        out.append("| " + " | ".join(["…"] * (len(header) - 1)) + f" | … {s.hidden:,} rules hidden … |")
    out += [line(r) for r in s.tail]
    if s.notes:
        out += [""] + [md_escape(n) + "  " for n in s.notes]
    return "\n".join(out).rstrip() + "\n"


# --------------------------------------------------------------------------- HTML
def as_html(s: Summary) -> str:
    """The summary as an HTML fragment (a notebook's rich display), everything escaped."""
    e = html.escape
    header = _header(s)
    parts = [
        "<div class=\"findrs-model\">",
        f"<p><b>{e(s.title)}</b><br>" + "<br>".join(e(x) for x in s.lines) + "</p>",
        "<table><thead><tr>" + "".join(f"<th>{e(h)}</th>" for h in header) + "</tr></thead><tbody>",
    ]

    def line(r: Row) -> str:
        cells = _cells(s, r)
        nums = "".join(f"<td style=\"text-align:right\">{e(c)}</td>" for c in cells[:-1])
        return f"<tr>{nums}<td style=\"text-align:left\"><code>{e(cells[-1])}</code></td></tr>"

    parts += [line(r) for r in s.head]
    if s.hidden:
        parts.append(
            "<tr>" + "<td>…</td>" * (len(header) - 1) + f"<td style=\"text-align:left\">… {s.hidden:,} rules hidden …</td></tr>"
        )
    parts += [line(r) for r in s.tail]
    parts.append("</tbody></table>")
    if s.notes:
        parts.append("<p>" + "<br>".join(e(n) for n in s.notes) + "</p>")
    parts.append("</div>")
    return "\n".join(parts)
