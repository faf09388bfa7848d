"""Size in the choice of the automatic settings (docs/semantics.md §8.1). Every FIND-RS
candidate of the cross-validation is scored on its fold models' accuracy-size paths, and the
choice is a pair of a candidate and a cut of its path:

- ``max_rules="auto"``: the cut is a *gain* ``g`` (a share of the training rows): a path keeps its
  leading rules each of which adds more than ``g`` times the training rows to those right
  before it (at least one rule), the analogue of CART's cost-complexity ``alpha``, which scales
  with the rows where a number of rules does not (a fold model learned on 4/5 of the rows has
  fewer rules than the final fit). The gains of :data:`GAINS` and the whole model compete; the
  choice is CART's one-standard-error rule with half of it (:data:`SE_MULTIPLE`): of the pairs
  whose cross-validated accuracy is at least the most accurate pair's minus half a standard
  error of it, the one whose models have the
  fewest conditions (summed over the folds; ties: more held-out rows right, then the larger
  gain, then the earlier candidate; gains that cut every fold model alike count as the largest). The standard error is CART's, of a cross-validated error
  rate ``R`` over ``N`` held-out rows: ``sqrt(R (1 - R) / N)`` (Breiman et al., 1984, §11.5);
- ``max_rules=N``: the cut is a number of rules: the most accurate pair of a candidate and a
  budget ``k <= N`` (ties: fewer conditions, then the earlier candidate), the fold models cut to
  their first ``k`` rules (or whole, when shorter).

Invariant: the choice is a function of the record's counts alone, so the same cross-validation
gives the same choice; the final model is cut the same way on its own path (:func:`cut`).
"""

from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

import numpy as np

from ..errors import FindRSInputError

GAINS: tuple[float, ...] = (0.0, 0.0005, 0.001, 0.002, 0.003, 0.005, 0.0075, 0.01, 0.015, 0.02, 0.03, 0.05, 0.075,
                            0.1, 0.15, 0.2)
"""The gains ``max_rules="auto"`` tries (shares of the training rows a rule must add), besides
the whole model: from any gain at all to a fifth of the rows."""

SE_MULTIPLE = 0.5
"""How many standard errors below the most accurate pair ``max_rules="auto"`` accepts: half of
CART's one (docs/semantics.md §8.1 says what each measured)."""

SE_RULES = {"1se": 1.0, "0.5se": 0.5}
"""The record's ``rule`` of ``max_rules="auto"`` and its multiple: ``"1se"`` in files of an
earlier version, whose choice took CART's one standard error."""

PATHS = ("path_correct", "path_conditions", "path_train")
"""A candidate's per-fold path counts in a record made during a fit (not kept in model files
but for the candidate fitted: :func:`choose`'s ``size`` entry). A path's first point is its
model of ``path_base + 1`` rules (a candidate's ``path_base``: 0, or for a multiclass model
its sets less one, docs/semantics.md §10.1), and ``path_train`` starts one point before it."""


def cut(train: Sequence[int], rows: int, gain: float | None) -> int:
    """The rules a path keeps at ``gain``: its leading rules each of which adds more than
    ``gain * rows`` training rows right (``train``: the rows right by each prefix, the empty
    model first), at least one; every rule with ``gain`` ``None``.

    Example:
        >>> cut([50, 80, 90, 91, 90], 100, 0.05), cut([50, 80, 90, 91, 90], 100, 0.0)
        (2, 3)
        >>> cut([50, 80, 90, 91, 90], 100, None), cut([50, 51], 100, 0.5)
        (4, 1)
    """
    n = len(train) - 1
    if gain is None:
        return n
    k = 0
    while k < n and train[k + 1] - train[k] > gain * rows:
        k += 1
    return max(k, 1)


def _fold_cuts(c: Mapping[str, Any], f: int, k: int) -> tuple[int, int]:
    """Fold ``f``'s held-out rows right and conditions of candidate ``c``'s model cut to its first
    ``k`` rules (whole when shorter; a fold without a rule: the empty model)."""
    p = c["path_correct"][f] if c.get("path_correct") else []
    if not p:
        return c["correct"][f], c["conditions"][f]
    j = min(k, len(p)) - 1
    return p[j], c["path_conditions"][f][j]


def budget_points(cand: Mapping[str, Any]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A candidate's held-out rows right, conditions and rules per fold (rows) for each budget
    ``k = 1, 2, ...`` (columns), up to its longest fold path. A fold without a rule keeps its
    whole-model counts at every budget; a candidate without paths (a BP vote) has one column,
    its whole models.

    Example:
        >>> c = {"correct": [5, 6], "conditions": [4, 2], "rules": [2, 1],
        ...      "path_correct": [[4, 5], [6]], "path_conditions": [[2, 4], [2]]}
        >>> right, conditions, rules = budget_points(c)
        >>> right.tolist(), conditions.tolist(), rules.tolist()
        ([[4, 5], [6, 6]], [[2, 4], [2, 2]], [[1, 2], [1, 1]])
    """
    paths = cand.get("path_correct")
    if not paths or not any(paths):
        return tuple(np.asarray(cand[k], dtype=np.int64)[:, None] for k in ("correct", "conditions", "rules"))
    width = max(len(p) for p in paths)
    counts = [[_fold_cuts(cand, f, k) for k in range(1, width + 1)] for f in range(len(paths))]
    right = np.asarray([[r for r, _ in fold] for fold in counts], dtype=np.int64)
    conditions = np.asarray([[c for _, c in fold] for fold in counts], dtype=np.int64)
    rules = np.asarray([np.minimum(np.arange(1, width + 1), len(p)) for p in paths], dtype=np.int64)
    return right, conditions, rules + cand.get("path_base", 0)


def _gain_pairs(c: Mapping[str, Any], i: int) -> list[tuple[int, Any, np.ndarray, np.ndarray, float]]:
    """Candidate ``c``'s (index ``i``) pairs for ``max_rules="auto"``: each gain of
    :data:`GAINS` and the whole model (``None``), with the per-fold held-out rows right,
    conditions and the mean rules kept; of gains that cut every fold alike only the largest (the
    one that cuts the final model the most) is a pair."""
    folds = len(c["correct"])
    if not c.get("path_correct"):
        return [(i, None, np.asarray(c["correct"]), np.asarray(c["conditions"]), float(np.mean(c["rules"])))]
    sampled = sum(c["rows"])
    out, seen = [], set()
    for gain in (*reversed(GAINS), None):
        ks = [cut(c["path_train"][f], sampled - c["rows"][f], gain) if c["path_train"][f] else 0 for f in range(folds)]
        if tuple(ks) in seen:
            continue  # the same fold models as a larger gain
        seen.add(tuple(ks))
        counts = [_fold_cuts(c, f, k) for f, k in enumerate(ks)]
        out.append((i, gain, np.asarray([r for r, _ in counts]), np.asarray([q for _, q in counts]),
                    float(np.mean(ks)) + c.get("path_base", 0)))
    return out


def choose(rec: Mapping[str, Any], max_rules: int | str) -> dict[str, Any]:
    """The pair of a candidate of the record ``rec`` and a cut of its path that ``max_rules``
    (``"auto"`` or a number of rules) chooses (see the module docs), as the record's ``size``
    entry: ``rule`` (``"0.5se"``: :data:`SE_MULTIPLE` standard errors, files of an earlier version
    ``"1se"``; or ``"budget"``), ``candidate`` (its index), ``gain`` (``"auto"``:
    the gain, ``None`` for the whole model) or ``rules`` (a budget's ``k``), the pair's per-fold
    ``correct`` and ``conditions``, ``best`` (the most accurate pair: ``candidate``, ``correct``)
    and ``se`` (the standard error of its accuracy, a share of the rows).

    Raises:
        ValueError: no pair fits the budget (every candidate is a vote of more rules).

    Example:
        >>> small = {"correct": [88, 88], "rows": [100, 100], "rules": [1, 1], "conditions": [1, 1],
        ...          "path_correct": [[88], [88]], "path_conditions": [[1], [1]], "path_train": [[40, 80], [40, 80]]}
        >>> big = {"correct": [90, 88], "rows": [100, 100], "rules": [3, 3], "conditions": [9, 9],
        ...        "path_correct": [[80, 85, 90], [80, 85, 88]], "path_conditions": [[3, 6, 9], [3, 6, 9]],
        ...        "path_train": [[40, 70, 90, 100], [40, 70, 90, 100]]}
        >>> pick = choose({"candidates": [small, big]}, "auto")
        >>> pick["candidate"], pick["gain"], pick["best"]["candidate"]
        (0, 0.2, 1)
        >>> pick = choose({"candidates": [small, big]}, 2)
        >>> pick["candidate"], pick["rules"]
        (0, 1)
    """
    cands = rec["candidates"]
    rows = np.asarray(cands[0]["rows"], dtype=np.int64)
    total = max(int(rows.sum()), 1)
    # (candidate, cut, per-fold right, per-fold conditions, mean rules) of every pair allowed.
    pairs: list[tuple[int, Any, np.ndarray, np.ndarray, float]] = []
    for i, c in enumerate(cands):
        if max_rules == "auto":
            pairs += _gain_pairs(c, i)
            continue
        right, conditions, rules = budget_points(c)
        for j in range(right.shape[1]):
            if int(rules[:, j].max()) <= int(max_rules):
                k = j + 1 + c.get("path_base", 0) if c.get("path_correct") else max(int(rules[:, j].max()), 1)
                pairs.append((i, k, right[:, j], conditions[:, j], float(rules[:, j].mean())))
    if not pairs:
        raise ValueError(f"no candidate of the cross-validation has a model of at most {max_rules} rules")
    best = max(pairs, key=lambda p: (int(p[2].sum()), -int(p[3].sum()), -p[0]))
    accuracy = int(best[2].sum()) / total
    se = math.sqrt(accuracy * (1.0 - accuracy) / total)
    if max_rules == "auto":
        bar = int(best[2].sum()) - SE_MULTIPLE * se * total  # pairs with at least this many held-out rows right
        eligible = [p for p in pairs if int(p[2].sum()) >= bar - 1e-9 * total]
        pick = min(eligible, key=lambda p: (int(p[3].sum()), -int(p[2].sum()), -(p[1] if p[1] is not None else -1), p[0]))
    else:
        pick = best
    return {
        "rule": f"{SE_MULTIPLE:g}se" if max_rules == "auto" else "budget",
        "candidate": pick[0],
        "gain": pick[1] if max_rules == "auto" else None,
        "rules": None if max_rules == "auto" else pick[1],
        "correct": [int(x) for x in pick[2]],
        "conditions": [int(x) for x in pick[3]],
        "best": {"candidate": best[0], "correct": [int(x) for x in best[2]]},
        "se": se,
    }


def without_paths(rec: Mapping[str, Any]) -> dict[str, Any]:
    """``rec`` without its candidates' path counts (what a model file keeps)."""
    return {**rec, "candidates": [{k: v for k, v in c.items() if k not in PATHS} for c in rec["candidates"]]}


def check_size(size: Any, folds: int, n_cands: int) -> dict[str, Any]:
    """A model file's record ``size`` entry (:func:`choose`'s, with the fitted candidate's path
    counts), checked for its form.

    Raises:
        FindRSInputError: what is wrong.
    """
    fields = sorted(["best", "candidate", "conditions", "correct", "gain", "rule", "rules", "se", *PATHS])

    def counts(x: Any, n: int | None = folds) -> bool:
        return isinstance(x, list) and (n is None or len(x) == n) and all(
            isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in x)

    def number(x: Any) -> bool:
        return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) and x >= 0

    ok = isinstance(size, dict) and sorted(size) == fields and size["rule"] in (*SE_RULES, "budget")
    ok = ok and isinstance(size["candidate"], int) and not isinstance(size["candidate"], bool)
    ok = ok and 0 <= size["candidate"] < n_cands and number(size["se"])
    ok = ok and (size["gain"] is None or number(size["gain"])) and (
        size["rules"] is None or (isinstance(size["rules"], int) and size["rules"] >= 1))
    ok = ok and (size["rules"] is None) == (size["rule"] in SE_RULES)
    ok = ok and counts(size["correct"]) and counts(size["conditions"])
    ok = ok and all(isinstance(size[k], list) and len(size[k]) == folds and all(counts(p, None) for p in size[k])
                    for k in PATHS)
    best = size.get("best") if isinstance(size, dict) else None
    ok = ok and isinstance(best, dict) and sorted(best) == ["candidate", "correct"] and counts(best["correct"])
    if not ok:
        raise FindRSInputError(f"its 'size' must hold the choice of the model's size ({fields}), got {size!r}")
    return size
