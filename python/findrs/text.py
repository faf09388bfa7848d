"""Readable text of constraints and rules (docs/semantics.md §2).

A constraint allowing one value reads ``a = v``; one allowing a set S of two or more values reads
``a not in {domain - S}`` (what a one-hot rule says: an unseen value passes it); binned numeric
features read as intervals where that says exactly the same thing.
"""

from __future__ import annotations

from typing import Sequence

from .encode import FeatureEncoder


def constraint_text(enc: FeatureEncoder, codes: Sequence[int]) -> str:
    """Text of one constraint of feature ``enc`` allowing the training codes ``codes``."""
    codes = sorted(codes)
    if enc.kind == "binned":
        interval = _interval_text(enc, codes)
        if interval is not None:
            return interval
    if len(codes) == 1:
        return f"{enc.name} = {enc.label(codes[0])}"
    excluded = [c for c in range(enc.domain_size) if c not in set(codes)]
    return f"{enc.name} not in {{{', '.join(enc.label(c) for c in excluded)}}}"


def _interval_text(enc: FeatureEncoder, codes: list[int]) -> str | None:
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
    # An empty (unseen) bin outside the range would pass a multi-value constraint (semantics §2).
    if len(bins) > 1 and any(b not in occupied for b in list(range(0, first)) + list(range(last + 1, n_bins))):
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
    # A null never seen in training is an unseen value: it passes a multi-value constraint.
    if len(bins) > 1 and not enc.has_null:
        text = f"({text} or {enc.name} is null)"
    return text


def rule_text(encoders: Sequence[FeatureEncoder], constraints: Sequence[tuple[int, Sequence[int]]]) -> str:
    """Text of a rule: its constraints joined by ``and`` (``TRUE`` when it has none)."""
    if not constraints:
        return "TRUE"
    return " and ".join(constraint_text(encoders[f], codes) for f, codes in constraints)
