"""Why a row is not positive: the nearest voting rule and the conditions the row fails.

For a row, a voting rule's *failures* are its constraints the row does not satisfy
(docs/semantics.md §2, unseen values included: the model's view says whether an unseen value
passes each constraint). The *nearest rule* of a row predicted negative is the voting rule with
the fewest failures among those that do not hold on the row (at least one failure); ties go to
the lower id, i.e. the heavier rule for BO and BP (docs/semantics.md §6). Its failed conditions
are exactly the constraints of that rule the row fails, in feature order.

The work is NumPy on the encoder's codes: a table per feature says which constraints each code
satisfies (an interval feature's constraints are ranges of its gap codes, docs/semantics.md §11,
compared directly), and the failures of every rule are one matrix product of the rows' failed
constraints with a dense 0/1 constraints x rules matrix, in blocks of rules (and of rows) so
memory stays bounded whatever the model's size; the counts are small integers, exact in
float32.
"""

from __future__ import annotations

from typing import Iterator, Mapping, Sequence

import numpy as np

from .view import Constraint

# Cells of a dense constraints x rules block, and of a rows x rules block of failure counts.
_BLOCK_CELLS = 1 << 22
# Blocks of at most this many bytes in all are kept between batches.
_CACHE_BYTES = 1 << 27


class Nearest:
    """The nearest-rule search of one model (built once, used for every batch).

    Args:
        domains: per feature, its number of training codes (the unseen code is this number).
        constraints: the model's distinct constraints (ids index them).
        offsets: the voting rules as CSR: rule ``r``'s constraint ids are
            ``ids[offsets[r]:offsets[r + 1]]``.
        ids: see ``offsets``.
        intervals: the interval features, each with its number of training values ``d``: their
            codes are gap codes, and a constraint (values ``lo..hi``, the view listing the
            ends, then ``d`` for null) passes the gap codes from ``2 lo + 1`` (0 when ``lo = 0``) to
            ``2 hi + 1`` (``2d`` when ``hi = d - 1``), and null's ``2d + 1`` when it allows null.

    Example:
        >>> import numpy as np
        >>> from findrs.export.view import Constraint
        >>> cons = (Constraint(0, (0,), False), Constraint(1, (1,), False))
        >>> nn = Nearest([2, 2], cons, np.array([0, 2]), np.array([0, 1]))
        >>> rule, failed = nn.search([np.array([0, 1]), np.array([0, 0])], np.array([True, True]))
        >>> rule.tolist(), failed
        ([0, 0], [[1], [0, 1]])
    """

    def __init__(
        self,
        domains: Sequence[int],
        constraints: Sequence[Constraint],
        offsets: np.ndarray,
        ids: np.ndarray,
        intervals: Mapping[int, int] | None = None,
    ) -> None:
        self.offsets = np.asarray(offsets, dtype=np.int64)
        self.ids = np.asarray(ids, dtype=np.int64)
        self.n_rules = len(self.offsets) - 1
        self.lengths = np.diff(self.offsets)
        # Per feature: the constraint ids on it and a (codes + 1) x those table of "passes".
        by_feature: dict[int, list[int]] = {}
        for j, c in enumerate(constraints):
            by_feature.setdefault(c.feature, []).append(j)
        self.tables: list[tuple[int, np.ndarray, np.ndarray]] = []
        self.ranges: list[tuple[int, np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]] = []
        intervals = intervals or {}
        for f, cols in sorted(by_feature.items()):
            if f in intervals:
                d = intervals[f]
                bounds = []
                for j in cols:
                    known = [k for k in constraints[j].codes if k != d]
                    if known:
                        a, b = min(known), max(known)
                        bounds.append((0 if a == 0 else 2 * a + 1, 2 * d if b == d - 1 else 2 * b + 1, d in constraints[j].codes))
                    else:
                        bounds.append((1, 0, True))  # null only
                lo, hi, null = (np.asarray(v) for v in zip(*bounds))
                self.ranges.append((f, np.asarray(cols, dtype=np.int64), lo, hi, null, 2 * d + 1))
                continue
            table = np.zeros((domains[f] + 1, len(cols)), dtype=bool)
            for i, j in enumerate(cols):
                c = constraints[j]
                table[list(c.codes), i] = True
                table[domains[f], i] = c.unseen_passes
            self.tables.append((f, np.asarray(cols, dtype=np.int64), table))
        self.n_constraints = len(constraints)
        self._cache: list[tuple[int, np.ndarray]] | None = None

    def fails(self, codes: Sequence[np.ndarray], rows: np.ndarray) -> np.ndarray:
        """Which constraints each of the given rows fails (rows x constraints, Boolean)."""
        out = np.ones((len(rows), self.n_constraints), dtype=bool)
        for f, cols, table in self.tables:
            out[:, cols] = ~table[np.asarray(codes[f])[rows]]
        for f, cols, lo, hi, null, null_code in self.ranges:
            x = np.asarray(codes[f])[rows][:, None].astype(np.int64)
            out[:, cols] = ~(((x >= lo) & (x <= hi)) | (null & (x == null_code)))
        return out

    def _blocks(self) -> Iterator[tuple[int, np.ndarray]]:
        """The voting rules in blocks, each a dense constraints x rules 0/1 matrix (float32, so
        a matrix product counts failures exactly), with the id of its first rule. Kept when
        they fit in ``_CACHE_BYTES``, rebuilt otherwise."""
        if self._cache is not None:
            yield from self._cache
            return
        width = max(1, _BLOCK_CELLS // max(1, self.n_constraints))
        blocks = []
        total = 0
        for first in range(0, self.n_rules, width):
            last = min(first + width, self.n_rules)
            a, b = self.offsets[first], self.offsets[last]
            block = np.zeros((self.n_constraints, last - first), dtype=np.float32)
            local = np.repeat(np.arange(last - first), self.lengths[first:last])
            block[self.ids[a:b], local] = 1.0
            total += block.nbytes
            blocks.append((first, block))
            yield first, block
        if total <= _CACHE_BYTES:
            self._cache = blocks

    def search(self, codes: Sequence[np.ndarray], wanted: np.ndarray) -> tuple[np.ndarray, list[list[int] | None]]:
        """For each row with ``wanted`` true: the nearest voting rule (``-1`` when every voting
        rule holds) and the ids of the constraints of that rule the row fails (feature order);
        other rows get ``-1`` and ``None``."""
        n = len(wanted)
        nearest = np.full(n, -1, dtype=np.int64)
        failed: list[list[int] | None] = [None] * n
        todo = np.flatnonzero(wanted)
        step = max(1, min(256, _BLOCK_CELLS // max(1, self.n_rules)))
        for s in range(0, len(todo), step):
            rows = todo[s : s + step]
            fails = self.fails(codes, rows)
            f32 = fails.astype(np.float32)
            best = np.full(len(rows), -1, dtype=np.int64)
            best_count = np.full(len(rows), np.inf)
            for first, block in self._blocks():
                counts = f32 @ block  # failures per rule: exact small integers
                counts[counts == 0] = np.inf  # a rule that holds is no candidate
                arg = np.argmin(counts, axis=1)
                low = counts[np.arange(len(rows)), arg]
                better = low < best_count  # strictly: a tie keeps the earlier (heavier) rule
                best[better] = first + arg[better]
                best_count[better] = low[better]
            for k, (i, r) in enumerate(zip(rows, best)):
                if r < 0:
                    failed[i] = []
                    continue
                nearest[i] = r
                cs = self.ids[self.offsets[r] : self.offsets[r + 1]]
                failed[i] = [int(j) for j in cs if fails[k, j]]
        return nearest, failed
