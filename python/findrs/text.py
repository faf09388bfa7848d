"""Readable text of constraints and rules (docs/semantics.md §2).

A constraint allowing one value reads ``a = v``; one an unseen value passes (a one-hot set of
two or more values) reads ``a not in {domain - S}``; binned numeric features read as intervals
where that says exactly the same thing. Whether an unseen value passes comes from the model's
view (:attr:`findrs.view.Constraint.unseen_passes`), not from a rule of this module's own.
"""

from __future__ import annotations

from typing import Sequence

from .encode import FeatureEncoder
from .view import Constraint


def constraint_text(enc: FeatureEncoder, c: Constraint) -> str:
    """Text of constraint ``c`` on feature ``enc``.

    Example:
        >>> import polars as pl
        >>> enc = FeatureEncoder.fit(pl.Series("a", ["x", "y", "z"]), bins=10)
        >>> constraint_text(enc, Constraint(0, (0, 2), True))
        'a not in {y}'
    """
    codes = sorted(c.codes)
    if enc.kind == "binned":
        interval = _interval_text(enc, codes, c.unseen_passes)
        if interval is not None:
            return interval
    if len(codes) == 1 and not c.unseen_passes:
        return f"{enc.name} = {enc.label(codes[0])}"
    if c.unseen_passes:
        excluded = [k for k in range(enc.domain_size) if k not in set(codes)]
        return f"{enc.name} not in {{{', '.join(enc.label(k) for k in excluded)}}}"
    return f"{enc.name} in {{{', '.join(enc.label(k) for k in codes)}}}"


def _interval_text(enc: FeatureEncoder, codes: list[int], unseen_passes: bool) -> str | None:
    """``lo <= a < hi`` when the allowed bins are contiguous and that reading is exact."""
    bins = [enc.values[c] for c in codes]
    if any(b is None for b in bins):
        return None
    first, last = min(bins), max(bins)
    occupied = {b for b in enc.values if b is not None}
    n_bins = len(enc.edges or ()) - 1
    between = [b for b in range(first, last + 1) if b in occupied]
    if sorted(bins) != between:
        return None
    # An empty (unseen) bin outside the range would pass a constraint unseen values pass.
    if unseen_passes and any(b not in occupied for b in list(range(0, first)) + list(range(last + 1, n_bins))):
        return None
    lo, _ = enc.bin_bounds(first)
    _, hi = enc.bin_bounds(last)
    if lo is None and hi is None:
        return None
    if lo is None:
        text = f"{enc.name} < {hi:.4g}"
    elif hi is None:
        text = f"{enc.name} >= {lo:.4g}"
    else:
        text = f"{lo:.4g} <= {enc.name} < {hi:.4g}"
    # A null never seen in training is an unseen value.
    if unseen_passes and not enc.has_null:
        text = f"({text} or {enc.name} is null)"
    return text


def rule_text(encoders: Sequence[FeatureEncoder], constraints: Sequence[Constraint]) -> str:
    """Text of a rule: its constraints joined by ``and`` (``TRUE`` when it has none)."""
    if not constraints:
        return "TRUE"
    return " and ".join(constraint_text(encoders[c.feature], c) for c in constraints)
