"""Numeric columns' bin edges and interval cuts: equal-width, quantile and supervised
(entropy/MDL) edges, the empty bins merged, the short cuts between neighbouring training values,
and how edges print.

Invariant: every edge and cut is a pure function of the training values (and, for supervised
edges, their labels), so the same column gives the same edges in a fit, its folds and a loaded
model.

Example:
    >>> import numpy as np
    >>> cut_between(5.07, 5.13), supervised_cuts(np.array([1.0, 2.0, 3.0, 4.0]), np.array([0, 0, 1, 1]), 3)
    (5.1, [2.5])
"""

from __future__ import annotations

import math
import struct
import sys
from typing import Any, Sequence

import numpy as np
import polars as pl

from ..errors import FindRSInputError

# scikit-learn's KBinsDiscretizer nudges values by this before digitizing (numeric stability
# at bin edges); doing the same keeps our bins identical to the paper's.
_RTOL, _ATOL = 1.0e-5, 1.0e-8


def cut_between(a: float, b: float) -> float:
    """A cut between neighbouring training values ``a < b`` (see :func:`cuts_between`).

    Example:
        >>> cut_between(5.07, 5.13), cut_between(30, 32), cut_between(30, 31), cut_between(0.11, 0.9)
        (5.1, 31.0, 30.5, 0.5)
    """
    return float(cuts_between(np.array([a, b], dtype=np.float64))[0])


def cuts_between(values: np.ndarray) -> np.ndarray:
    """The cuts between neighbouring values of an ascending array (``len(values) - 1`` of them):
    in each gap ``(a, b)``, the number with the fewest significant digits in the middle half
    of the gap, ``[m - (b - a)/4, m + (b - a)/4]`` with ``m`` the midpoint (of those, the
    midpoint rounded to that many digits, which is the nearest to ``m``), so a rule's printed
    end is short and exact; ``m`` itself when no shorter number lies there; ``b`` when ``a``
    and ``b`` are neighbouring doubles. Always ``a < cut <= b``. Vectorized: one pass per
    number of digits (1 to 17)."""
    v = np.asarray(values, dtype=np.float64)
    a, b = v[:-1], v[1:]
    mid = a / 2 + b / 2
    quarter = b / 4 - a / 4
    lo, hi = mid - quarter, mid + quarter
    out = np.where((a < mid) & (mid <= b), mid, b)
    todo = np.arange(len(mid))
    with np.errstate(all="ignore"):
        exp = np.floor(np.log10(np.abs(np.where(mid == 0, 1.0, mid)))).astype(np.int64)
        for digits in range(1, 18):
            m, k = mid[todo], exp[todo] - digits + 1  # m rounded to a multiple of 10^k
            up = np.power(10.0, np.abs(k).astype(np.float64))
            c = np.where(k >= 0, np.round(m / up) * up, np.round(m * up) / up)
            # Beyond 10^22 powers of ten are inexact: round those (rare) through text.
            for i in np.flatnonzero(np.abs(k) > 22):
                c[i] = float(f"{m[i]:.{digits - 1}e}")
            ok = np.isfinite(c) & (lo[todo] <= c) & (c <= hi[todo]) & (a[todo] < c) & (c <= b[todo])
            out[todo[ok]] = c[ok]
            todo = todo[~ok]
            if len(todo) == 0:
                break
    return out


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_finite_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def nudged(x: float) -> float:
    """KBinsDiscretizer's nudged value ``x + (1e-8 + 1e-5 |x|)`` in double precision, as the
    encoder's Polars expression computes it."""
    return x + (_ATOL + _RTOL * abs(x))


def _order_key(x: float) -> int:
    """An integer key with the order of the doubles (finite, -0.0 as 0.0)."""
    (bits,) = struct.unpack("<q", struct.pack("<d", x + 0.0))
    return bits if bits >= 0 else -(bits & 0x7FFF_FFFF_FFFF_FFFF)


def _from_key(k: int) -> float:
    bits = k if k >= 0 else (-k) | -0x8000_0000_0000_0000
    return struct.unpack("<d", struct.pack("<q", bits))[0]


def nudged_threshold(edge: float) -> float:
    """The least double ``t`` with ``nudged(t) >= edge``: a finite value is at or above the edge
    after the nudge exactly when it is at least ``t`` (``nudged`` is non-decreasing)."""
    edge = float(edge)
    least = -sys.float_info.max
    if nudged(least) >= edge:
        return least  # every finite value reaches the edge (an edge within 1e-5 of -1.8e308)
    lo = _order_key(max(edge - (2.0e-5 * abs(edge) + 1.0e-7), least))  # nudged(lo) < edge
    hi = _order_key(edge)  # nudged(edge) >= edge
    assert nudged(_from_key(lo)) < edge <= nudged(_from_key(hi))
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if nudged(_from_key(mid)) >= edge:
            hi = mid
        else:
            lo = mid
    return _from_key(hi)


def whole_edge(edge: float) -> float:
    """The least whole number whose nudged value reaches ``edge``: the integers the paper's
    binning puts at or above ``edge`` are exactly those at least this one."""
    return float(math.ceil(nudged_threshold(edge)))


def format_number(x: float, digits: int | None = 4) -> str:
    """``x`` for reading: a whole number as an integer; otherwise ``digits`` significant digits
    (``None``: the shortest text that reads back as ``x``), without an exponent unless the number
    is very small or very large."""
    x = float(x)
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    if x.is_integer() and abs(x) < 1e16:
        return str(int(x))
    if digits is None:
        return repr(x)
    if x != 0 and not 1e-4 <= abs(x) < 1e15:
        return f"{x:.{digits}g}"
    return np.format_float_positional(x, precision=digits, unique=False, fractional=False, trim="-")


def _edge_texts(edges: tuple[float, ...], whole: bool) -> tuple[str, ...]:
    if whole:
        return tuple(format_number(e) for e in edges)
    for digits in range(4, 18):
        texts = tuple(format_number(e, digits) for e in edges)
        inner = texts[1:-1]
        if all(a != b for a, b, x, y in zip(inner, inner[1:], edges[1:-1], edges[2:-1]) if x != y):
            return texts
    return tuple(format_number(e, None) for e in edges)


def occupied_bins(edges: Sequence[float], occupied: Sequence[int]) -> tuple[tuple[float, ...], list[int]]:
    """``edges`` without the inner edges between two bins no training value occupies, and the
    occupied bins' indices among the bins left: every value falls in an occupied bin exactly as
    before, and any other value in a bin none occupies (an unseen value, as before), so the
    codes are the same, but bins beyond the column's distinct values cost nothing (1,000,000
    bins over 20 rows made to_sql take 25 s and to_json 19 MB).

    Example:
        >>> occupied_bins((0.0, 1.0, 2.0, 3.0, 4.0, 5.0), [0, 4])
        ((0.0, 1.0, 4.0, 5.0), [0, 2])
    """
    taken = set(occupied)
    kept = [0] + [i for i in range(1, len(edges) - 1) if i - 1 in taken or i in taken] + [len(edges) - 1]
    bin_of = {b: j for j, b in enumerate(kept[:-1])}  # an occupied bin starts at a kept edge
    return tuple(edges[i] for i in kept), [bin_of[b] for b in occupied]


def _edges(lo: float, hi: float, bins: int) -> tuple[float, ...]:
    """``bins + 1`` equal-width edges from ``lo`` to ``hi``: NumPy's ``linspace``, as
    KBinsDiscretizer computes them. When ``hi - lo`` overflows a double (values near +-1e308)
    they are computed from the halves and doubled, which is exact (a power of two) and gives
    ``linspace``'s own values wherever ``linspace`` does not overflow."""
    # (linspace may overflow on its way to the last edge, which it then sets to its stop.)
    with np.errstate(over="ignore", invalid="ignore"):
        edges = np.linspace(lo, hi, bins + 1)
        if not (math.isfinite(hi - lo) and np.isfinite(edges).all()):
            edges = np.linspace(lo / 2.0, hi / 2.0, bins + 1) * 2.0
    return tuple(float(e) for e in edges)


def supervised_cuts(x: np.ndarray, y: np.ndarray, max_cuts: int) -> list[float]:
    """Fayyad and Irani's entropy cuts of one numeric column, at most ``max_cuts`` of them
    (docs/semantics.md §1.1): ``x`` the finite training values, ``y`` their class codes
    (``0..k-1``). A segment is split at the boundary between two distinct values that minimizes
    the weighted class entropy of its halves, when the split passes the MDL test of Fayyad and
    Irani (1993); of the accepted splits, those that lower the total entropy most are made
    first (best first), until ``max_cuts`` cuts. A cut is the midpoint of the two values it
    separates. Returns the cuts ascending (none when no split passes the test).

    Example:
        >>> x = np.array([1.0, 2, 3, 4, 10, 11, 12, 13])
        >>> y = np.array([0, 0, 0, 0, 1, 1, 1, 1])
        >>> supervised_cuts(x, y, 5)
        [7.0]

    Raises:
        ValueError: ``x`` and ``y`` differ in length.
    """
    if len(x) != len(y):
        raise ValueError(f"x has {len(x)} values and y {len(y)}")
    if max_cuts < 1 or len(x) < 2:
        return []
    order = np.argsort(x, kind="stable")
    xs = np.asarray(x, dtype=np.float64)[order]
    _, yc = np.unique(np.asarray(y)[order], return_inverse=True)
    k = int(yc.max()) + 1 if len(yc) else 1
    onehot = np.zeros((len(xs), k), dtype=np.float64)
    onehot[np.arange(len(xs)), yc] = 1.0
    cum = np.vstack([np.zeros((1, k)), np.cumsum(onehot, axis=0)])  # cum[i]: counts of xs[:i]

    def entropy(counts: np.ndarray) -> np.ndarray:
        n = counts.sum(axis=-1, keepdims=True)
        with np.errstate(divide="ignore", invalid="ignore"):
            p = np.where(n > 0, counts / np.where(n > 0, n, 1), 0.0)
            logs = np.where(p > 0, np.log2(np.where(p > 0, p, 1)), 0.0)
        return -(p * logs).sum(axis=-1)

    def best_split(a: int, b: int) -> tuple[float, int] | None:
        # Rows a..b-1; candidate split positions i (a < i < b) where the value changes.
        pos = np.nonzero(xs[a + 1 : b] != xs[a : b - 1])[0] + a + 1
        if len(pos) == 0:
            return None
        total = cum[b] - cum[a]
        n = b - a
        left = cum[pos] - cum[a]
        right = total - left
        nl, nr = pos - a, b - pos
        e_left, e_right = entropy(left), entropy(right)
        weighted = (nl * e_left + nr * e_right) / n
        j = int(np.argmin(weighted))  # first minimum: deterministic
        i = int(pos[j])
        ent = float(entropy(total))
        gain = ent - float(weighted[j])
        kk = int((total > 0).sum())
        k1, k2 = int((left[j] > 0).sum()), int((right[j] > 0).sum())
        delta = math.log2(3**kk - 2) - (kk * ent - k1 * float(e_left[j]) - k2 * float(e_right[j]))
        if gain <= (math.log2(n - 1) + delta) / n:
            return None
        return gain * n, i

    import heapq

    heap: list[tuple[float, int, int, int]] = []
    first = best_split(0, len(xs))
    if first is not None:
        heap.append((-first[0], 0, len(xs), first[1]))
    cuts: list[float] = []
    while heap and len(cuts) < max_cuts:
        _, a, b, i = heapq.heappop(heap)
        cuts.append(float(xs[i - 1] / 2 + xs[i] / 2))
        for lo, hi in ((a, i), (i, b)):
            found = best_split(lo, hi)
            if found is not None:
                heapq.heappush(heap, (-found[0], lo, hi, found[1]))
    return sorted(cuts)


def _data_edges(
    df: pl.DataFrame, name: str, family: str, lo: float, hi: float, bins: int, how: str, labels: np.ndarray | None
) -> tuple[float, ...]:
    """Edges ``(lo, inner..., hi)`` that follow the training values of one column
    (``bin_edges="quantile"`` or ``"supervised"``, docs/semantics.md §1.1): distinct inner edges
    strictly inside ``(lo, hi]``, placed so that each training value falls on the side it was
    meant to after the binning's nudge; whole numbers for an integer column."""
    return data_edges_of(df.get_column(name).cast(pl.Float64).to_numpy(), family, lo, hi, bins, how, labels)


def data_edges_of(
    x: np.ndarray, family: str, lo: float, hi: float, bins: int, how: str, labels: np.ndarray | None
) -> tuple[float, ...]:
    """:func:`_data_edges` of one column's values ``x`` (as doubles, null as NaN; ``labels`` one
    per value)."""
    finite = np.isfinite(x)
    values = x[finite]
    if how == "quantile":
        at = np.arange(1, bins) / bins
        with np.errstate(over="ignore", invalid="ignore"):
            qs = np.quantile(values, at, method="linear")
        if not np.isfinite(qs).all():
            # Values spanning more than the largest double (e.g. +-1.79e308): the interpolation's
            # difference overflowed. The quantiles of the halves, doubled, within the values.
            with np.errstate(over="ignore"):
                halves = np.quantile(values / 2, at, method="linear") * 2
            qs = np.where(np.isfinite(qs), qs, np.clip(halves, values.min(), values.max()))
        inner = [float(q) for q in qs]
    else:
        if labels is None or len(labels) != len(x):
            raise FindRSInputError("bin_edges='supervised' needs the training labels of every row")
        inner = supervised_cuts(values, np.asarray(labels)[finite], bins - 1)
    out: list[float] = []
    distinct = np.unique(values)
    for e in inner:
        if family == "integer":
            e = float(math.ceil(e))
        else:
            # The least training value at or above the edge must stay there after the nudge, and
            # the greatest below it below: the edge moves to just above the lower one's nudge.
            j = int(np.searchsorted(distinct, e, side="left"))
            if 0 < j < len(distinct) and nudged(float(distinct[j - 1])) >= e:
                e = max(e, float(np.nextafter(nudged(float(distinct[j - 1])), np.inf)))
                if nudged(float(distinct[j])) < e:
                    # The two values are closer than the nudge (e.g. 0 and 5e-244): after it no
                    # edge separates them, so the cut is dropped (kept, it would only mark the
                    # bin above the upper value, and where that lies would depend on `hi`).
                    continue
        if lo < e <= hi and (not out or e > out[-1]):
            out.append(e)
    return (float(lo), *out, float(hi))
