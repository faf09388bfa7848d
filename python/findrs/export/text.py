"""Readable text of constraints and rules (docs/semantics.md §2, "Readable text").

Every text says exactly what the constraint admits, values never seen in training included
(whether an unseen value passes comes from the model's view, :attr:`findrs.export.view.Constraint.unseen_passes`,
not from a rule of this module's own):

- a categorical constraint reads ``a = v`` or ``a in {...}`` when no unseen value passes it;
  when unseen values pass, the shorter of ``a not in {excluded}`` and
  ``(a in {allowed} or a is unseen)`` (``not in`` on a tie);
- a binned constraint reads as intervals of its allowed bins, adjacent bins (and the empty bins
  between them, when unseen values pass) merged: ``lo <= x < hi``, ``x < hi``, ``x >= lo``; when
  unseen values pass, the shorter of that and ``x not in [lo, hi)`` (the excluded bins); a null
  passes ``not in``, never a comparison, and ``or x is null`` appears only for a column that
  held nulls in training (a null in a column without any is an unseen value);
- an interval constraint (``numeric="interval"``, docs/semantics.md §11; the view lists the
  indices of its training values) reads ``lo <= x <= hi``, ``x <= hi``, ``x >= lo`` or
  ``x = v`` with ``interval_ends="tight"``, ``lo <= x < hi`` with cuts, its ends printed
  exactly, and ``or x is null`` when null passes.

Numbers are rounded for reading (:func:`findrs.data.encode.edge_texts`); ``exact=True`` prints each
bin boundary as the least number that falls above it (:attr:`FeatureEncoder.bin_starts`), so
that the text, read with the ordinary meaning of ``<`` and ``>=``, is exactly the constraint.
"""

from __future__ import annotations

from typing import Sequence

from ..data.encode import FeatureEncoder, edge_texts

from ..data.edges import format_number
from .view import Constraint


def constraint_text(enc: FeatureEncoder, c: Constraint, *, exact: bool = False) -> str:
    """Text of constraint ``c`` on feature ``enc``.

    Args:
        enc: the feature's encoder.
        c: the constraint (from the model's view).
        exact: print bin boundaries exactly instead of rounded to 4 significant digits.

    Example:
        >>> import polars as pl
        >>> enc = FeatureEncoder.fit(pl.Series("a", ["x", "y", "z"]), bins=10)
        >>> constraint_text(enc, Constraint(0, (0, 2), True))
        'a not in {y}'
        >>> constraint_text(enc, Constraint(0, (1,), False))
        'a = y'
    """
    if enc.kind == "binned":
        return _binned_text(enc, c, exact)
    if enc.kind == "interval":
        return _interval_text(enc, c)
    return _categorical_text(enc, c)


def rule_text(encoders: Sequence[FeatureEncoder], constraints: Sequence[Constraint], *, exact: bool = False) -> str:
    """Text of a rule: its constraints joined by ``and`` (``TRUE`` when it has none)."""
    if not constraints:
        return "TRUE"
    return " and ".join(constraint_text(encoders[c.feature], c, exact=exact) for c in constraints)


def _braces(items: Sequence[str]) -> str:
    return "{" + ", ".join(items) + "}"


def _categorical_text(enc: FeatureEncoder, c: Constraint) -> str:
    name = enc.name
    allowed = sorted(set(c.codes))
    if not c.unseen_passes:
        if len(allowed) == 1:
            return f"{name} = {enc.label(allowed[0])}"
        return f"{name} in {_braces([enc.label(k) for k in allowed])}"
    taken = set(allowed)
    excluded = [k for k in range(enc.domain_size) if k not in taken]
    if excluded == [enc.domain_size - 1] and enc.has_null:
        return f"{name} is not null"
    out = f"{name} not in {_braces([enc.label(k) for k in excluded])}"
    inside = f"({name} in {_braces([enc.label(k) for k in allowed])} or {name} is unseen)"
    return inside if len(inside) < len(out) else out


def _bin_allowed(enc: FeatureEncoder, c: Constraint) -> tuple[list[bool], bool]:
    """Per bin whether the constraint admits its values (an empty bin's values are unseen), and
    whether it admits null."""
    assert enc.edges is not None
    n_bins = len(enc.edges) - 1
    allowed = set(c.codes)
    code_of = {b: code for code, b in enumerate(enc.values) if b is not None}
    bins = [(code_of[b] in allowed) if b in code_of else c.unseen_passes for b in range(n_bins)]
    null_ok = (enc.domain_size - 1 in allowed) if enc.has_null else c.unseen_passes
    return bins, null_ok


def _runs(flags: Sequence[bool]) -> list[tuple[int, int]]:
    """Maximal runs ``(first, last)`` of consecutive true flags."""
    out: list[tuple[int, int]] = []
    for b, f in enumerate(flags):
        if f and out and out[-1][1] == b - 1:
            out[-1] = (out[-1][0], b)
        elif f:
            out.append((b, b))
    return out


def _binned_text(enc: FeatureEncoder, c: Constraint, exact: bool) -> str:
    name = enc.name
    bins, null_ok = _bin_allowed(enc, c)
    n_bins = len(bins)
    if exact:
        texts = ("", *(format_number(t, None) for t in enc.bin_starts), "")
    else:
        texts = edge_texts(enc)

    def interval(first: int, last: int) -> str:
        if first == 0 and last == n_bins - 1:
            return f"{name} is not null"
        if first == 0:
            return f"{name} < {texts[last + 1]}"
        if last == n_bins - 1:
            return f"{name} >= {texts[first]}"
        return f"{texts[first]} <= {name} < {texts[last + 1]}"

    def bracket(first: int, last: int) -> str:
        lo = "(-inf" if first == 0 else f"[{texts[first]}"
        hi = "inf)" if last == n_bins - 1 else f"{texts[last + 1]})"
        return f"{lo}, {hi}"

    # In-form: the allowed bins as intervals, `or x is null` when null passes (only where
    # training held nulls: a null in a column without any is unseen, written by `not in`).
    inside: str | None = None
    if not null_ok or enc.has_null:
        parts = [interval(a, b) for a, b in _runs(bins)]
        if null_ok:
            # Null alone reads as a categorical value does (`a = null`).
            parts.append(f"{name} is null" if parts else f"{name} = null")
        if not parts:  # cannot happen: a constraint admits some training value
            parts = ["FALSE"]
        inside = parts[0] if len(parts) == 1 else "(" + " or ".join(parts) + ")"
    if not c.unseen_passes:
        assert inside is not None
        return inside
    # Not-in form: the excluded bins (and null when training held it and it is excluded).
    excluded = [bracket(a, b) for a, b in _runs([not f for f in bins])]
    if enc.has_null and not null_ok:
        excluded.append("null")
    if not excluded:
        out = "TRUE"
    elif len(excluded) == 1 and excluded[0] != "null":
        out = f"{name} not in {excluded[0]}"
    elif excluded == ["null"]:
        out = f"{name} is not null"
    else:
        out = f"{name} not in {_braces(excluded)}"
    if inside is not None and len(inside) <= len(out):
        return inside
    return out


def interval_span(enc: FeatureEncoder, codes: Sequence[int]) -> tuple[tuple[int, int] | None, bool]:
    """An interval constraint's allowed values as ``((lo, hi), null)``: the indices of its
    first and last training values (``None`` when it allows null only) and whether null passes.
    The view lists ``lo`` and ``hi`` (once when equal), then ``d``, null's index, when null
    passes."""
    d = enc.domain_size
    null = d in codes
    known = [k for k in codes if k != d]
    return ((min(known), max(known)) if known else None), null


def _interval_text(enc: FeatureEncoder, c: Constraint) -> str:
    """``2.31 <= x <= 5.07``, ``x < 5.1``, ``x >= 2.3``, ``x = 4``, ``x is not null``, ``x is
    null``, with ``or x is null`` when null passes; the ends as :meth:`FeatureEncoder.interval_bounds`
    gives them (docs/semantics.md §11), printed exactly."""
    span, null = interval_span(enc, c.codes)
    name = enc.name
    if span is None:
        return f"{name} is null"
    lower, lower_closed, upper, upper_closed = enc.interval_bounds(*span)

    def num(v: float) -> str:
        return format_number(v, None)

    if lower is None and upper is None:
        return "TRUE" if null else f"{name} is not null"
    if lower is not None and upper is not None and lower == upper and lower_closed and upper_closed:
        text = f"{name} = {num(lower)}"
    elif upper is None:
        text = f"{name} {'>=' if lower_closed else '>'} {num(lower)}"
    elif lower is None:
        text = f"{name} {'<=' if upper_closed else '<'} {num(upper)}"
    else:
        text = f"{num(lower)} {'<=' if lower_closed else '<'} {name} {'<=' if upper_closed else '<'} {num(upper)}"
    return f"({text} or {name} is null)" if null else text


def constraint_labels(enc: FeatureEncoder, c: Constraint) -> list[str]:
    """The values a constraint allows, as text (the rules table's ``values``): one label per
    training code; an interval constraint as one interval (``[2.31, 5.07]``), then ``null`` if
    null passes."""
    if enc.kind != "interval":
        return [enc.label(v) for v in c.codes]
    span, null = interval_span(enc, c.codes)
    return ([enc.interval_label(*span)] if span is not None else []) + (["null"] if null else [])
