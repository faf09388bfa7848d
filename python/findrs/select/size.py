"""Size in the choice of the automatic settings (docs/semantics.md §8.1): every FIND-RS candidate
of the cross-validation is scored at each budget ``k`` of its fold models' accuracy-size paths
(the fold model cut to the first ``k`` rules of its path, or the whole fold model when it has
fewer), and the choice is a (candidate, budget) pair:

- ``max_rules="auto"``: the one-standard-error rule of CART's cost-complexity pruning: of the
  pairs whose cross-validated accuracy is at least the best pair's minus one standard error of
  it, the one whose models have the fewest conditions (summed over the folds; ties: the more
  accurate, then fewer rules, then the earlier candidate). The standard error is CART's, of a
  cross-validated error rate ``R`` over ``N`` held-out rows: ``sqrt(R (1 - R) / N)`` (Breiman
  et al., 1984, §11.5); it depends on the accuracy and the rows alone, where the spread of 3 to
  5 fold scores is itself too noisy to bound by (on Adult it moved from 0.0008 to 0.0038 with
  ``random_state``);
- ``max_rules=N``: the most accurate pair of at most ``N`` rules (ties: fewer conditions, then
  the earlier candidate).

Invariant: the choice is a function of the record's counts alone (integers; no floating-point
tie decides a choice but the standard error's bound, computed the same way every time), so the
same cross-validation gives the same choice.
"""

from __future__ import annotations

import math
from typing import Any, Mapping

import numpy as np

from ..errors import FindRSInputError

PATHS = ("path_correct", "path_conditions")
"""A candidate's per-fold path counts in a record made during a fit (not kept in model files
but for the candidate fitted: :func:`summary`)."""


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
    folds = len(paths)
    right, conditions, rules = (np.zeros((folds, width), dtype=np.int64) for _ in range(3))
    for f, (p, q) in enumerate(zip(paths, cand["path_conditions"])):
        if not p:
            right[f] = cand["correct"][f]
            continue
        n = len(p)
        right[f, :n], right[f, n:] = p, p[-1]
        conditions[f, :n], conditions[f, n:] = q, q[-1]
        rules[f] = np.minimum(np.arange(1, width + 1), n)
    return right, conditions, rules


def choose(rec: Mapping[str, Any], max_rules: int | str) -> dict[str, Any]:
    """The (candidate, budget) pair of the record ``rec`` that ``max_rules`` (``"auto"`` or a
    number of rules) chooses (see the module docs), as the record's ``size`` entry:
    ``candidate`` (its index), ``rules`` (the budget ``k``), its per-fold ``correct`` and
    ``conditions``, and ``best`` (the most accurate pair: ``candidate``, ``rules``,
    ``correct``) with ``se`` (the standard error of its accuracy, a share of the rows).

    Raises:
        ValueError: no pair fits the budget (every candidate is a vote of more rules).

    Example:
        >>> small = {"correct": [8, 8], "rows": [10, 10], "rules": [1, 1], "conditions": [1, 1],
        ...          "path_correct": [[8], [8]], "path_conditions": [[1], [1]]}
        >>> big = {"correct": [9, 8], "rows": [10, 10], "rules": [3, 3], "conditions": [9, 9],
        ...        "path_correct": [[7, 8, 9], [7, 8, 8]], "path_conditions": [[3, 6, 9], [3, 6, 9]]}
        >>> pick = choose({"candidates": [small, big]}, "auto")
        >>> pick["candidate"], pick["rules"], pick["best"]["candidate"], pick["best"]["rules"]
        (0, 1, 1, 3)
        >>> choose({"candidates": [small, big]}, 2)["candidate"]
        0
    """
    cands = rec["candidates"]
    rows = np.asarray(cands[0]["rows"], dtype=np.int64)
    total = max(int(rows.sum()), 1)
    # (candidate, k, per-fold right, per-fold conditions, mean rules) of every pair the budget allows.
    pairs: list[tuple[int, int, np.ndarray, np.ndarray, float]] = []
    for i, c in enumerate(cands):
        right, conditions, rules = budget_points(c)
        for j in range(right.shape[1]):
            if max_rules != "auto" and int(rules[:, j].max()) > int(max_rules):
                continue
            k = j + 1 if c.get("path_correct") and any(c["path_correct"]) else int(rules[:, j].max())
            pairs.append((i, max(k, 1), right[:, j], conditions[:, j], float(rules[:, j].mean())))
    if not pairs:
        raise ValueError(f"no candidate of the cross-validation has a model of at most {max_rules} rules")
    best = max(pairs, key=lambda p: (int(p[2].sum()), -int(p[3].sum()), -p[0]))
    accuracy = int(best[2].sum()) / total
    se = math.sqrt(accuracy * (1.0 - accuracy) / total)
    if max_rules == "auto":
        bar = int(best[2].sum()) - se * total  # pairs with at least this many held-out rows right
        eligible = [p for p in pairs if int(p[2].sum()) >= bar - 1e-9 * total]
        pick = min(eligible, key=lambda p: (int(p[3].sum()), -int(p[2].sum()), p[4], p[0]))
    else:
        pick = best
    return {
        "rule": "1se" if max_rules == "auto" else "budget",
        "candidate": pick[0],
        "rules": pick[1],
        "correct": [int(x) for x in pick[2]],
        "conditions": [int(x) for x in pick[3]],
        "best": {"candidate": best[0], "rules": best[1], "correct": [int(x) for x in best[2]]},
        "se": se,
    }


def without_paths(rec: Mapping[str, Any]) -> dict[str, Any]:
    """``rec`` without its candidates' path counts (what a model file keeps)."""
    return {**rec, "candidates": [{k: v for k, v in c.items() if k not in PATHS} for c in rec["candidates"]]}


def check_size(size: Any, folds: int, n_cands: int) -> dict[str, Any]:
    """A model file's record ``size`` entry (:func:`choose`'s, with the fitted candidate's
    ``path_correct`` and ``path_conditions``), checked for its form.

    Raises:
        FindRSInputError: what is wrong.
    """
    fields = ["best", "candidate", "conditions", "correct", "path_conditions", "path_correct", "rule", "rules", "se"]

    def counts(x: Any, n: int | None = folds) -> bool:
        return isinstance(x, list) and (n is None or len(x) == n) and all(
            isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in x)

    ok = isinstance(size, dict) and sorted(size) == fields and size["rule"] in ("1se", "budget")
    ok = ok and all(isinstance(size[k], int) and not isinstance(size[k], bool) for k in ("candidate", "rules"))
    ok = ok and 0 <= size["candidate"] < n_cands and size["rules"] >= 1 and isinstance(size["se"], float)
    ok = ok and counts(size["correct"]) and counts(size["conditions"])
    ok = ok and all(isinstance(size[k], list) and len(size[k]) == folds and all(counts(p, None) for p in size[k])
                    for k in PATHS)
    best = size.get("best") if isinstance(size, dict) else None
    ok = ok and isinstance(best, dict) and sorted(best) == ["candidate", "correct", "rules"] and counts(best["correct"])
    if not ok:
        raise FindRSInputError(f"its 'size' must hold the choice of the model's size ({fields}), got {size!r}")
    return size
