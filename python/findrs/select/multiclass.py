"""Automatic settings of a multiclass model (docs/semantics.md §10): the candidates its one
cross-validation tries, how they rank, and the record a model keeps of it.

Every candidate sets the share tolerance (``tolerance``), ``min_support`` and ``simplify`` of
*every* class set alike, with a combination (``multiclass``) and a numeric kind (``numeric``);
it is scored by the held-out rows the whole multiclass model classifies correctly. The search
has two stages on the same folds: first each tolerance with each combination (and numeric
kind), with no support filter and the paper's rules; then, for the first stage's best, each
support with and without simplification. The best candidate has the most held-out rows right,
ties to fewer conditions (the smaller model), then to the earlier candidate (simpler first).

Example:
    >>> from findrs.select.multiclass import first_stage
    >>> cands = first_stage({"tolerance": "auto", "min_support": "auto", "simplify": "auto"},
    ...                     ["frequent-first", "one-vs-rest"], ["bins"])
    >>> [(c["tolerance"], c["multiclass"]) for c in cands][:3], len(cands)
    ([(0, 'frequent-first'), (0, 'one-vs-rest'), (0.1, 'frequent-first')], 8)
"""

from __future__ import annotations

import numbers
from typing import Any, Mapping, Sequence

import polars as pl

from ..errors import FindRSInputError
from . import size
from .auto import scaled_support

AXES: tuple[str, ...] = ("tolerance", "min_support", "simplify")
"""The settings shared by every class set that the cross-validation chooses when not given."""

TOLERANCES: tuple[int | float, ...] = (0, 0.1, 0.2, 0.3)
"""Tolerance candidates: the paper's ``0`` and the shares the binary default chooses most
(``results/grid-winners.md``: 0.2, 0, 0.1, then 0.3). Each won here too on 27 default fits
with a wider second stage (``results/multiclass-auto.md``): 0 on 7 (clean car, wine, iris,
digits), 0.1 on 6, 0.2 on 9 (10% noise), 0.3 on 5 (20% noise)."""

SUPPORTS: tuple[int, ...] = (0, 2, 5, 10)
"""Support candidates of the second stage (each class set drops rules of fewer training
positives); one whose class set keeps no rule on a fold is left out. Of 0, 2, 3, 5, 10, 20 on
the same 27 fits: 0 won 13, 2 6, 3 and 5 3 each, 10 once, 20 never."""

FOLDS = 3
"""Stratified folds (:func:`findrs.models.multiclass.stratified_folds`)."""

COUNTS = ("correct", "rows", "rules", "conditions")
_SETTINGS = ("tolerance", "min_support", "simplify", "multiclass", "numeric")


def _values(params: Mapping[str, Any], name: str, auto: Sequence[Any]) -> list[Any]:
    value = params[name]
    return list(auto) if isinstance(value, str) and value == "auto" else [value]


def first_stage(params: Mapping[str, Any], combinations: Sequence[str], kinds: Sequence[str]) -> list[dict[str, Any]]:
    """The first stage's candidates: each numeric kind, tolerance (:data:`TOLERANCES` when
    ``params["tolerance"]`` is ``"auto"``, else the given one) and combination, with the
    smallest support and no simplification of those to try."""
    support = _values(params, "min_support", SUPPORTS)[0]
    simplify = _values(params, "simplify", (False, True))[0]
    return [{"tolerance": t, "min_support": support, "simplify": simplify, "multiclass": c, "numeric": k}
            for k in kinds for t in _values(params, "tolerance", TOLERANCES) for c in combinations]


def second_stage(params: Mapping[str, Any], best: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The second stage's candidates: the first stage's ``best`` with each support and
    simplification to try (``best`` itself left out: it is scored)."""
    out = []
    for s in _values(params, "min_support", SUPPORTS):
        for f in _values(params, "simplify", (False, True)):
            c = {**{k: best[k] for k in _SETTINGS}, "min_support": s, "simplify": f}
            if (s, f) != (best["min_support"], best["simplify"]):
                out.append(c)
    return out


def rank_key(c: Mapping[str, Any], index: int) -> tuple[int, int, int]:
    """What the best candidate maximises: held-out rows right, then fewer conditions, then the
    earlier candidate."""
    return sum(c["correct"]), -sum(c["conditions"]), -index


def best(cands: Sequence[Mapping[str, Any]]) -> int:
    """The index of the best scored candidate (:func:`rank_key`)."""
    return max(range(len(cands)), key=lambda i: rank_key(cands[i], i))


def combination_counts(rec: Mapping[str, Any], combinations: Sequence[str]) -> dict[str, Any]:
    """``model.combination_cv``'s record from the joint one: per combination the most held-out
    rows right of its candidates of the chosen numeric kind (0 for a combination not tried)."""
    kind = rec["candidates"][rec["chosen"]]["numeric"]
    correct = [max((sum(c["correct"]) for c in rec["candidates"] if c["multiclass"] == m and c["numeric"] == kind),
                   default=0) for m in combinations]
    return {"folds": rec["folds"], "correct": correct}


def numeric_counts(rec: Mapping[str, Any]) -> dict[str, Any]:
    """``model.numeric_cv``'s record from the joint one: the most held-out rows right with bins,
    then with intervals."""
    correct = [max((sum(c["correct"]) for c in rec["candidates"] if c["numeric"] == k), default=0)
               for k in ("bins", "interval")]
    return {"folds": rec["folds"], "correct": correct}


def check_record(rec: Any, params: Mapping[str, Any], combine: str, n_rows: int) -> dict[str, Any]:
    """A model file's ``training.settings_cv``, checked against the model: the counts per
    fold, the chosen candidate the best ranked and equal to the model's settings (its support
    scaled to every row when the folds used a sample).

    Raises:
        FindRSInputError: what is wrong.
    """
    keys = ["candidates", "chosen", "folds", "sampled"]
    if not isinstance(rec, dict) or sorted(set(rec) - {"size"}) != keys:
        raise FindRSInputError(f"'settings_cv' must be an object with the fields {keys} (and 'size' after a "
                               "choice of the size)")
    folds, chosen, cands, sampled = (rec[k] for k in ("folds", "chosen", "candidates", "sampled"))
    if not (_count(folds) and folds >= 2 and _count(sampled) and 2 <= sampled <= n_rows):
        raise FindRSInputError(f"'settings_cv' needs 2 or more folds and 2 to {n_rows} rows, got {folds!r}, {sampled!r}")
    if not isinstance(cands, list) or not cands or not _count(chosen) or chosen >= len(cands):
        raise FindRSInputError("'settings_cv' must list candidates and the index of the chosen one")
    fields = sorted([*_SETTINGS, *COUNTS, *(["path_base"] if "size" in rec else [])])
    for i, c in enumerate(cands):
        if not isinstance(c, dict) or sorted(c) != fields:
            raise FindRSInputError(f"'settings_cv' candidate {i} must have the fields {fields}")
        if "size" in rec and not (_count(c["path_base"]) and c["path_base"] >= 1):
            raise FindRSInputError(f"'settings_cv' candidate {i}: path_base must be a count of at least 1")
        if not all(isinstance(c[k], list) and len(c[k]) == folds and all(map(_count, c[k])) for k in COUNTS):
            raise FindRSInputError(f"'settings_cv' candidate {i}: {list(COUNTS)} must be {folds} counts each")
        if sum(c["rows"]) != sampled or any(a > b for a, b in zip(c["correct"], c["rows"])):
            raise FindRSInputError(f"'settings_cv' candidate {i}: its folds do not hold the {sampled} rows it used")
    if "size" in rec:
        size.check_size(rec["size"], folds, len(cands))
        if rec["size"]["candidate"] != chosen:
            raise FindRSInputError("'settings_cv' chose a candidate other than its choice of the size")
        if (rec["size"]["rule"] == "budget") != (params["max_rules"] is not None):
            raise FindRSInputError("'settings_cv' chose a budget, but params say max_rules = None, or the reverse")
    elif best(cands) != chosen:
        raise FindRSInputError("'settings_cv' chose a candidate that is not the best ranked")
    c = cands[chosen]
    want = {**c, "min_support": scaled_support(c["min_support"], n_rows, sampled)}
    got = {**{k: params[k] for k in ("tolerance", "min_support", "simplify", "numeric")}, "multiclass": combine}
    if any(want[k] != got[k] or isinstance(want[k], float) != isinstance(got[k], float) for k in got):
        raise FindRSInputError(f"'settings_cv' chose {({k: want[k] for k in got})} but the model has {got}")
    return {k: rec[k] for k in ("folds", "sampled", "chosen", "candidates", "size") if k in rec}


def _count(x: Any) -> bool:
    return isinstance(x, numbers.Integral) and not isinstance(x, bool) and x >= 0


def table(rec: Mapping[str, Any]) -> pl.DataFrame:
    """The record as ``model.cv_results`` shows it: one row per candidate with its settings
    (``tolerance`` as text: ``"0"`` a count, ``"0.1"`` a share), ``cv_accuracy`` (held-out rows
    right over all folds), its standard deviation over the folds, the mean ``rules`` and
    ``conditions`` per fold (summed over the class sets), and ``chosen``.

    Example:
        >>> rec = {"folds": 2, "sampled": 4, "chosen": 0, "candidates": [{"tolerance": 0.1, "min_support": 0,
        ...        "simplify": False, "multiclass": "one-vs-rest", "numeric": "bins", "correct": [2, 1],
        ...        "rows": [2, 2], "rules": [3, 3], "conditions": [5, 7]}]}
        >>> table(rec).select("tolerance", "cv_accuracy", "conditions").row(0)
        ('0.1', 0.75, 6.0)
    """
    cands = rec["candidates"]
    acc, std = [], []
    for c in cands:
        per_fold = [a / max(r, 1) for a, r in zip(c["correct"], c["rows"])]
        mean = sum(per_fold) / len(per_fold)
        acc.append(sum(c["correct"]) / max(sum(c["rows"]), 1))
        std.append((sum((a - mean) ** 2 for a in per_fold) / len(per_fold)) ** 0.5)
    return pl.DataFrame({
        "tolerance": pl.Series([str(c["tolerance"]) for c in cands], dtype=pl.String),
        "min_support": pl.Series([c["min_support"] for c in cands], dtype=pl.UInt32),
        "simplify": pl.Series([c["simplify"] for c in cands], dtype=pl.Boolean),
        "multiclass": pl.Series([c["multiclass"] for c in cands], dtype=pl.String),
        "numeric": pl.Series([c["numeric"] for c in cands], dtype=pl.String),
        "cv_accuracy": acc,
        "cv_accuracy_std": std,
        "rules": [sum(c["rules"]) / len(c["rules"]) for c in cands],
        "conditions": [sum(c["conditions"]) / len(c["conditions"]) for c in cands],
        "chosen": [i == rec["chosen"] for i in range(len(cands))],
    })


def summary(rec: Mapping[str, Any], n_rows: int) -> str:
    """One line for ``print(model)`` of a model fitted on ``n_rows`` rows: what was chosen, from
    how many candidates, and its held-out accuracy."""
    c = rec["candidates"][rec["chosen"]]
    acc = sum(c["correct"]) / max(sum(c["rows"]), 1)
    simplified = ", simplified" if c["simplify"] else ""
    sample = f" on a {rec['sampled']:,}-row sample" if rec["sampled"] < n_rows else ""
    return (f"settings chosen by {rec['folds']}-fold cross-validation{sample} of the whole multiclass model: "
            f"tolerance {c['tolerance']}, min_support {c['min_support']}{simplified}, {c['multiclass']}, "
            f"numeric {c['numeric']!r} (held-out accuracy {acc:.4f}, best of {len(rec['candidates'])} candidates; "
            "docs/semantics.md §10)")
