"""Successive halving of the automatic settings' cross-validation (docs/semantics.md §9.4,
"Successive halving").

Candidates that differ only in ``min_support``, ``simplify`` or ``n_rules`` share their runs (a
*run group*: the same encoding, tolerance and class direction), so a candidate costs what its
run group costs. On a large sample most run groups are clearly worse than the best few, and a
smaller sample tells which: every run group is first scored on a stratified sample of
``sample / FACTOR**k`` rows, the best ``1 / FACTOR`` of the groups of each stratum (the same
encoding and direction) go on to ``FACTOR`` times the rows, and so on; only the last stage's
groups are scored on the whole sample, and the record of the cross-validation is that stage's.

Invariants:
- the schedule (:func:`stages`) depends on the sample size, the class counts and the groups
  only, and a stage's ranking on integer scores (held-out rows right, then fewer conditions,
  then the earlier group), so the survivors depend on the data, the settings and
  ``random_state`` only, never on threads or timing;
- after the first stage the encodings race (:func:`race_groups`): AV and OH (under each
  encoding of the numeric columns) go on only when close enough to the best; both directions of
  an encoding go on together, and every stratum (encoding x direction) that goes on keeps at
  least :data:`MIN_KEEP` groups, so the best candidate of each direction of every encoding that
  goes on is still scored on the whole sample (the rules with exceptions of §9.6 pair the best
  positive and negative candidates of one encoding);
- a stage's candidates are the whole grid's candidates of its groups, each ``min_support``
  scaled to the stage's sample (:func:`stage_candidates`).

Example (Adult's 12,000-row sample: one stage of 4,000 rows; 8,000 rows: none):
    >>> stages(12_000, n_smaller=2_900, folds=3, group_sizes=[9, 9, 9, 9])
    [4000]
    >>> stages(36_000, n_smaller=9_000, folds=3, group_sizes=[9, 9, 9, 9])
    [4000, 12000]
    >>> stages(8_000, n_smaller=2_000, folds=5, group_sizes=[5, 5])
    []
"""

from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

FACTOR = 3
"""Each stage scores a ``FACTOR``-th of the previous stage's groups (per stratum) on ``FACTOR``
times its rows (scikit-learn's ``HalvingGridSearchCV`` default)."""

MIN_ROWS = 3_000
"""The smallest stage sample. On Adult (six seeds) a first stage of 1,333 rows kept the whole
grid's chosen candidate on two seeds of six, a first stage of 4,000 rows on four (the
criterion reads training rows only); as a check on adult.test, the first lost .0033 of
accuracy on average, the second none (``results/defaults-time.md``). So with the default sample
(8,000 rows up to 16,000 training rows, 12,000 above) only frames of more than 16,000 rows are
halved."""


MIN_KEEP = 2
"""The groups every stratum keeps at each stage, however many it had."""

MIN_SMALLER_PER_FOLD = 20
"""A stage needs at least this many rows of the smaller class per fold."""

RACE_Z = 1.0
"""How far behind, in standard errors, an encoding's best first-stage candidate may score and
still go on (:func:`race`)."""


def kept(n: int) -> int:
    """How many of a stratum's ``n`` groups go on from a stage: ``ceil(n / FACTOR)``, at least
    :data:`MIN_KEEP`, at most ``n``.

    Example:
        >>> [kept(n) for n in (1, 2, 5, 9)]
        [1, 2, 2, 3]
    """
    return min(n, max(MIN_KEEP, math.ceil(n / FACTOR)))


def group(c: Mapping[str, Any]) -> tuple[Any, ...]:
    """A candidate's run group: its encoding, tolerance (a count and a share apart: ``0`` is
    not ``0.0``) and class direction.

    Example:
        >>> group({"encoding": "av", "tolerance": 0.2, "direction": "positive", "min_support": 5})
        ('av', 'float', 0.2, 'positive')
    """
    t = c["tolerance"]
    return (c["encoding"], type(t).__name__, t, c["direction"])


def _stratum(g: tuple[Any, ...]) -> tuple[Any, ...]:
    return (g[0], g[3])


def stages(sample: int, *, n_smaller: int, folds: int, group_sizes: Sequence[int]) -> list[int]:
    """The stage samples before the last (ascending; the last stage is ``sample`` itself):
    ``sample // FACTOR**k`` for ``k`` down to 1, each at least :data:`MIN_ROWS` rows with at
    least :data:`MIN_SMALLER_PER_FOLD` rows of the smaller class (``n_smaller`` in the sample)
    per fold, and no more stages than would leave the largest stratum (``group_sizes``: the
    groups per stratum) at :data:`MIN_KEEP` groups."""
    n, useful = max(group_sizes, default=0), 0
    while kept(n) < n:
        n, useful = kept(n), useful + 1
    out = []
    for k in range(1, useful + 1):
        r = sample // FACTOR**k
        if r < MIN_ROWS or n_smaller * r // max(sample, 1) < MIN_SMALLER_PER_FOLD * folds:
            break
        out.append(r)
    return out[::-1]


def stage_candidates(cands: Sequence[Mapping[str, Any]], alive: set[tuple[Any, ...]], rows: int,
                     sample: int) -> list[dict[str, Any]]:
    """The candidates of the groups ``alive``, in grid order, each ``min_support`` scaled from
    the whole sample (``sample`` rows) to the stage's ``rows`` (rounded half up, at least 0).

    Example:
        >>> c = [{"encoding": "av", "tolerance": 0, "direction": "positive", "min_support": 50}]
        >>> stage_candidates(c, {group(c[0])}, 4_000, 12_000)[0]["min_support"]
        17
    """
    return [{**c, "min_support": (int(c["min_support"]) * rows + sample // 2) // sample}
            for c in cands if group(c) in alive]


def survivors(cands: Sequence[Mapping[str, Any]], rows: Sequence[Sequence[Sequence[int]]],
              order: Sequence[tuple[Any, ...]]) -> set[tuple[Any, ...]]:
    """The groups that go on from a stage: per stratum, the best ``ceil(n / FACTOR)`` of its
    ``n`` groups (at least :data:`MIN_KEEP`), a group ranked by its best candidate (most
    held-out rows right, then fewest conditions, summed over the folds), a tie to the group
    earlier in ``order`` (the grid's order). ``rows``: each candidate's per-fold counts
    (correct, rows, rules, conditions), as the core returns them.

    Example:
        >>> cs = [{"encoding": "av", "tolerance": t, "direction": "positive"} for t in (0, 0.1, 0.2, 0.3)]
        >>> counts = [([5], [9], [1], [c]) for c in (4, 3, 2, 1)]
        >>> counts[2] = ([7], [9], [1], [2])
        >>> sorted(g[2] for g in survivors(cs, counts, [group(c) for c in cs]))
        [0.2, 0.3]
    """
    best: dict[tuple[Any, ...], tuple[int, int]] = {}
    for c, r in zip(cands, rows):
        g = group(c)
        s = (sum(r[0]), -sum(r[3]))
        if g not in best or s > best[g]:
            best[g] = s
    rank = {g: i for i, g in enumerate(order)}
    by_stratum: dict[tuple[Any, ...], list[tuple[Any, ...]]] = {}
    for g in best:
        by_stratum.setdefault(_stratum(g), []).append(g)
    out: set[tuple[Any, ...]] = set()
    for gs in by_stratum.values():
        gs.sort(key=lambda g: (-best[g][0], -best[g][1], rank[g]))
        out.update(gs[:kept(len(gs))])
    return out


def strata_sizes(order: Sequence[tuple[Any, ...]]) -> list[int]:
    """The number of groups of each stratum (encoding x direction) among ``order``.

    Example:
        >>> strata_sizes([("av", "int", 0, "positive"), ("av", "float", 0.1, "positive"), ("oh", "int", 0, "negative")])
        [2, 1]
    """
    sizes: dict[tuple[Any, ...], int] = {}
    for g in order:
        sizes[_stratum(g)] = sizes.get(_stratum(g), 0) + 1
    return list(sizes.values())


def stage_groups(sizes: Sequence[int], n_stages: int) -> list[int]:
    """The groups each of ``n_stages`` stages and the last one score, given the groups per
    stratum (``sizes``): each stage keeps ``ceil(n / FACTOR)`` (at least :data:`MIN_KEEP`, at
    most ``n``) of each stratum's ``n`` groups.

    Example:
        >>> stage_groups([9, 9, 7, 7], 2)
        [32, 12, 8]
    """
    out = [sum(sizes)]
    sizes = list(sizes)
    for _ in range(n_stages):
        sizes = [kept(n) for n in sizes]
        out.append(sum(sizes))
    return out


def best_by_encoding(cands: Sequence[Mapping[str, Any]], rows: Sequence[Sequence[Sequence[int]]]) -> dict[str, int]:
    """The most held-out rows a stage's candidates of each ``encoding`` (``"av"``, ``"oh"``)
    got right, in the order the encodings first appear.

    Example:
        >>> best_by_encoding([{"encoding": "av"}, {"encoding": "oh"}, {"encoding": "av"}],
        ...                  [([5], [9], [1], [2]), ([6], [9], [1], [3]), ([7], [9], [1], [1])])
        {'av': 7, 'oh': 6}
    """
    out: dict[str, int] = {}
    for c, r in zip(cands, rows):
        out[c["encoding"]] = max(out.get(c["encoding"], 0), sum(r[0]))
    return out


def race_groups(firsts: Sequence[Mapping[str, Any]], z: float | None = None) -> list[set[tuple[Any, ...]]]:
    """The run groups of each cross-validation that go on after the race (:func:`race`): the
    first stages ``firsts`` (one per encoding of the numeric columns, each with its ``alive``
    groups, its ``best`` rows right per ``encoding`` and its ``rows``, the same for all) race
    as one field of (numeric encoding, AV/OH) entries; a cross-validation keeps its groups of
    the AV/OH encodings that go on (none: the whole cross-validation is left behind).

    Example:
        >>> f = {"alive": {("av", "int", 0, "positive"), ("oh", "int", 0, "positive")}, "rows": 4_000,
        ...      "best": {"av": 3440, "oh": 3400}}
        >>> [sorted(g[0] for g in a) for a in race_groups([f, {**f, "best": {"av": 3300, "oh": 3430}}])]
        [['av'], ['oh']]
    """
    entries = [(i, e, b) for i, f in enumerate(firsts) for e, b in f["best"].items()]
    go = race([b for _, _, b in entries], firsts[0]["rows"], z)
    kept = [{e for (j, e, _), g in zip(entries, go) if g and j == i} for i in range(len(firsts))]
    return [{g for g in f["alive"] if g[0] in k} for f, k in zip(firsts, kept)]


def race(best: Sequence[int], rows: int, z: float | None = None) -> list[bool]:
    """Which entries go on after the first stage (docs/semantics.md §9.4, "Successive
    halving"; an entry is an encoding: AV or OH under one encoding of the numeric columns):
    every entry was scored on the same ``rows`` held-out rows, and ``best`` holds each one's
    best candidate's rows right. An entry goes on unless it is behind the leader
    by more than ``z`` (default :data:`RACE_Z`) standard errors of the difference of two accuracies near the leader's
    (``sqrt(2 a (1 - a) / rows)``, ``a`` the leader's accuracy; the folds' pairing of the rows
    would only shrink it). The leader always goes on.

    Example (4,000 rows, leader at 86%: a margin of 31 rows):
        >>> race([3330, 3440, 3400], 4_000)
        [False, True, False]
        >>> race([3330, 3440, 3410], 4_000)
        [False, True, True]
    """
    z = RACE_Z if z is None else z
    top = max(best)
    a = top / max(rows, 1)
    margin = z * math.sqrt(2.0 * a * (1.0 - a) * rows)
    return [b == top or top - b <= margin for b in best]
