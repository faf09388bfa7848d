"""The counts on all training rows of a model learned on a stratified sample
(docs/semantics.md §13; ``findrs.learning.sample`` makes them): the record
``training["all_rows"]`` and what a model file must hold for it.

Invariant: a record holds ``rows`` (every training row, at least those learned on) and
``correct`` (the rows the model gets right); a binary FIND-RS model's also holds
``rule_positives`` / ``rule_negatives`` (each voting rule's covered rows of each label) and
``path_correct`` (the rows right at each budget of the path, the last the model's own
``correct``). A model derived with other rules (a budget of its path) gets the record of its
own rules or none.
"""

from __future__ import annotations

from typing import Any

RULE_KEYS = ("rule_positives", "rule_negatives", "path_correct")


def holder(model: Any) -> Any:
    """The model whose ``training`` holds the record: a rules-with-exceptions model's rules
    model, any other model itself."""
    return getattr(model, "rules_model", model)


def record(model: Any) -> dict[str, Any] | None:
    """``model``'s counts on all rows, ``None`` for a model that learned on every row."""
    training = getattr(holder(model), "_training", None)
    return None if training is None else training.get("all_rows")


def _count(x: Any, n: int) -> bool:
    return isinstance(x, int) and not isinstance(x, bool) and 0 <= x <= n


def problems(rec: Any, rows: int, n_voting: int, path: dict[str, list[int]] | None) -> list[str]:
    """What is wrong with a model file's ``training.all_rows`` for a model learned on ``rows``
    rows with ``n_voting`` voting rules and the accuracy-size path ``path``."""
    if rec is None:
        return []
    keys = {"rows", "correct", "positives", "class_counts", *RULE_KEYS}
    if not isinstance(rec, dict) or not {"rows", "correct"} <= set(rec) or set(rec) - keys:
        return [f"training's 'all_rows' must hold 'rows' and 'correct' (and the class and rule counts), got {rec!r}"]
    n = rec["rows"]
    if not _count(n, 2**63) or n < rows:
        return [f"training's 'all_rows' must count at least the {rows:,} rows learned on, got {n!r}"]
    counts = [rec["correct"], rec.get("positives", 0), *rec.get("class_counts", [])]
    counts += [x for k in RULE_KEYS for x in (rec[k] if isinstance(rec.get(k), list) else [])]
    if not all(_count(x, n) for x in counts) or sum(rec.get("class_counts", [])) not in (0, n):
        return [f"training's 'all_rows' counts must be integers from 0 to its {n:,} rows (the classes' summing to them)"]
    given = [k for k in RULE_KEYS if k in rec]
    if not given:
        return []
    lists = [rec.get(k) for k in RULE_KEYS]
    if (len(given) < 3 or not all(isinstance(v, list) for v in lists) or len(lists[0]) != n_voting
            or len(lists[1]) != n_voting or path is None or len(lists[2]) != len(path["order"])
            or lists[2][-1] != rec["correct"]):
        return [f"training's 'all_rows' must count each of the {n_voting} voting rules and every budget of the "
                f"path, the last the model's rows right"]
    # The path's first model is its first rule alone: its covered positives and uncovered negatives.
    r, negatives = path["order"][0], n - rec.get("positives", 0)
    if "positives" not in rec or lists[2][0] != lists[0][r] + negatives - lists[1][r]:
        return ["training's 'all_rows' path does not start with its first rule's counts"]
    return []


def cut(rec: dict[str, Any] | None, order: list[int], k: int) -> dict[str, Any] | None:
    """The record of the path's model of ``k`` rules (the first ``k`` of ``order``, numbered
    0..k-1 in that order): its rules' counts and the path's first ``k`` budgets; ``None``
    without rule counts (they are needed to know the smaller model's rows right)."""
    if rec is None or "path_correct" not in rec:
        return None
    out = {key: v for key, v in rec.items() if key not in RULE_KEYS}
    out["correct"] = rec["path_correct"][k - 1]
    out["path_correct"] = rec["path_correct"][:k]
    out["rule_positives"] = [rec["rule_positives"][r] for r in order[:k]]
    out["rule_negatives"] = [rec["rule_negatives"][r] for r in order[:k]]
    return out
