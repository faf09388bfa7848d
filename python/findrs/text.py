"""Readable text of constraints and rules (docs/semantics.md §2, "Readable text").

Every text says exactly what the constraint admits, values never seen in training included
(whether an unseen value passes comes from the model's view, :attr:`findrs.view.Constraint.unseen_passes`,
not from a rule of this module's own):

- a categorical constraint reads ``a = v`` or ``a in {...}`` when no unseen value passes it;
  when unseen values pass, the shorter of ``a not in {excluded}`` and
  ``(a in {allowed} or a is unseen)`` (``not in`` on a tie);
- a binned constraint reads as intervals of its allowed bins, adjacent bins (and the empty bins
  between them, when unseen values pass) merged: ``lo <= x < hi``, ``x < hi``, ``x >= lo``; when
  unseen values pass, the shorter of that and ``x not in [lo, hi)`` (the excluded bins); a null
  passes ``not in``, never a comparison, and ``or x is null`` appears only for a column that
  held nulls in training (a null in a column without any is an unseen value);
- an interval constraint (an ordered feature, the core's interval kind, whose codes are the gap
  codes of the training values) reads ``lo <= x <= hi``, ``x <= hi``, ``x >= lo`` or ``x = v``.

Numbers are rounded for reading (:func:`findrs.encode.edge_texts`); ``exact=True`` prints each
bin boundary as the least number that falls above it (:attr:`FeatureEncoder.bin_starts`), so
that the text, read with the ordinary meaning of ``<`` and ``>=``, is exactly the constraint.
"""

from __future__ import annotations

from typing import Sequence

from .encode import FeatureEncoder, edge_texts, format_number
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


def _interval_text(enc: FeatureEncoder, c: Constraint) -> str:
    """An interval constraint: gap codes ``2r + 1`` of the training values of ranks ``r`` it
    admits (a contiguous range), then null's code ``2d + 1`` when null passes; open below when
    the range reaches the smallest training value, above when it reaches the largest (see the
    core's ``interval`` module)."""
    name = enc.name
    values = [v for v in enc.values if v is not None]
    d = len(values)
    ranks = [(k - 1) // 2 for k in c.codes if k % 2 == 1 and k < 2 * d + 1]
    null_ok = 2 * d + 1 in c.codes

    def num(v: object) -> str:
        return format_number(v, None) if isinstance(v, float) else str(v)

    parts = []
    if ranks:
        lo, hi = min(ranks), max(ranks)
        if lo == 0 and hi == d - 1:
            parts.append(f"{name} is not null")
        elif lo == 0:
            parts.append(f"{name} <= {num(values[hi])}")
        elif hi == d - 1:
            parts.append(f"{name} >= {num(values[lo])}")
        elif lo == hi:
            parts.append(f"{name} = {num(values[lo])}")
        else:
            parts.append(f"{num(values[lo])} <= {name} <= {num(values[hi])}")
    if null_ok:
        parts.append(f"{name} is null")
    if parts == [f"{name} is not null", f"{name} is null"]:
        return "TRUE"
    return parts[0] if len(parts) == 1 else "(" + " or ".join(parts) + ")"
