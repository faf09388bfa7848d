"""Automatic settings of a multiclass fit (docs/semantics.md §10): one stratified
cross-validation of the whole multiclass model chooses the settings every class set shares
(share tolerance, ``min_support``, ``simplify``) with the combination and the numeric kind, by
the held-out rows the model classifies correctly; the best is then fitted on every row. The
candidates, their order and the record are :mod:`findrs.select.multiclass`'s.

Example:
    >>> import findrs, polars as pl
    >>> df = pl.DataFrame({"a": ["x", "y", "z"] * 4, "b": ["u", "v"] * 6, "c": ["p", "q", "r"] * 4})
    >>> m = df.findrs.fit("c", random_state=0)
    >>> m.cv_results.filter("chosen").select("tolerance", "multiclass").row(0)
    ('0', 'frequent-first')
"""

from __future__ import annotations

import warnings
from typing import Any, Sequence

import numpy as np
import polars as pl

from ..data.encode import encode_frame, fit_encoders
from ..errors import ContradictionWarning, FindRSInputError
from ..models.model import RuleSetModel
from ..models.multiclass import COMBINATIONS, stratified_folds
from ..models.rule_set_path import held_out_path
from ..select import multiclass as grid
from ..select import size
from ..select.auto import scaled_support
from .progress import stage


def cv_sample(classes: np.ndarray, rows: int | None, seed: int) -> np.ndarray:
    """The training rows the cross-validation uses (sorted indices): every row, or, with
    ``rows`` below their number, a stratified sample of about that many (each class
    ``round(count * rows / n)`` rows, at least 2 where it has them, drawn by NumPy's PCG64
    seeded with ``seed``).

    Example:
        >>> import numpy as np
        >>> classes = np.array([0] * 90 + [1] * 10)
        >>> s = cv_sample(classes, 20, 0)
        >>> len(s), int((classes[s] == 1).sum())
        (20, 2)
    """
    n = len(classes)
    if rows is None or rows >= n:
        return np.arange(n)
    rng = np.random.default_rng(seed)
    parts = []
    for c in np.unique(classes):
        members = np.flatnonzero(classes == c)
        take = min(len(members), max(2, (len(members) * rows + n // 2) // n))
        parts.append(rng.permutation(members)[:take])
    return np.sort(np.concatenate(parts))


def class_indices_of(model: RuleSetModel, codes: list[np.ndarray]) -> np.ndarray:
    """Each row's class index (into ``model.classes``) as ``model.predict`` decides it
    (docs/semantics.md §10), from rows already encoded with the model's encoders (``codes``):
    each set's votes are the weights of its vote groups with a covering rule, then a decision
    list takes the first set whose votes exceed its threshold (else the default) and one-vs-rest
    the first set of highest ``votes / theta``. The cross-validation reads its held-out rows so,
    without a Polars query per fold (a test checks it equals ``predict``)."""
    comb = model.combination
    votes = []
    for m in model.class_models:
        offsets, ids = m._core.fired([np.ascontiguousarray(c, dtype=np.uint32) for c in codes])
        n = len(offsets) - 1
        rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(offsets).astype(np.int64))
        groups, weights = m._core.vote_groups()
        pairs = [(r, g) for g, members in enumerate(groups) for r in members]
        rule = np.array([r for r, _ in pairs], dtype=np.int64)
        group = np.array([g for _, g in pairs], dtype=np.int64)
        order = np.argsort(rule, kind="stable")
        rule, group = rule[order], group[order]
        ids = ids.astype(np.int64)
        # Every (row, group) pair with a covering rule of the group, once.
        if len(rule) and bool(np.all(np.diff(rule) > 0)):  # each rule in one group
            lookup = np.full(int(rule.max()) + 1, -1, dtype=np.int64)
            lookup[rule] = group
            g = lookup[ids[ids <= rule.max()]]
            r = rows[ids <= rule.max()]
            hit_rows, hit_groups = r[g >= 0], g[g >= 0]
        else:
            start, stop = np.searchsorted(rule, ids, side="left"), np.searchsorted(rule, ids, side="right")
            hit_rows = np.repeat(rows, stop - start)
            hit_groups = group[np.concatenate([np.arange(a, b) for a, b in zip(start, stop)] or [np.arange(0)])]
        key = np.unique(hit_rows * max(len(groups), 1) + hit_groups)
        w = np.asarray(weights, dtype=np.int64)
        votes.append(np.bincount(key // max(len(groups), 1), weights=w[key % max(len(groups), 1)], minlength=n)
                     .astype(np.int64))
    if comb.default is None:
        ids_ = np.asarray(comb.set_classes, dtype=np.int64)
        scores = np.column_stack([v.astype(np.float64) / t for v, t in zip(votes, comb.thetas)])
        return ids_[scores.argmax(axis=1)]
    out = np.full(len(votes[0]), comb.default, dtype=np.int64)
    for v, t, c in reversed(list(zip(votes, comb.thresholds, comb.set_classes))):
        out = np.where(v > t, c, out)
    return out


def _kinds(df: pl.DataFrame, features: Sequence[str], classes: np.ndarray, params: dict[str, Any], encoders: Any,
           codes: list[np.ndarray], numeric_auto: bool) -> dict[str, tuple[dict[str, Any], Any, list[np.ndarray]]]:
    """The encodings to try: the given one (bins unless ``numeric`` was given), and intervals
    when ``numeric`` was not given and a column is binned (a column intervals cannot take, an
    infinity, leaves bins alone)."""
    out = {params["numeric"]: (params, encoders, codes)}
    if numeric_auto and any(e.kind == "binned" for e in encoders):
        p = {**params, "numeric": "interval"}
        try:
            enc = fit_encoders(df, features, p["bins"], numeric="interval", interval_ends=p["interval_ends"],
                               bin_edges=p["bin_edges"], labels=classes)
            out["interval"] = (p, enc, encode_frame(df, enc))
        except FindRSInputError:
            pass
    return out


def fit_auto(
    df: pl.DataFrame,
    features: Sequence[str],
    classes: np.ndarray,
    tgt: Any,
    params: dict[str, Any],
    axes: Sequence[str],
    cv_rows: int | None,
    encoders: Any,
    codes: list[np.ndarray],
    combine: str,
    numeric_auto: bool,
    n_jobs: int | None,
    progress: Any = None,
    max_rules: int | str | None = None,
) -> RuleSetModel | None:
    """The multiclass model of automatic settings (docs/semantics.md §10): ``axes`` (of
    :data:`findrs.select.multiclass.AXES`) are chosen, the others stay ``params``' values; the
    combination too when ``combine`` is ``"auto"``, and bins or intervals when ``numeric_auto``.
    Every fold fit is FIND-RS (one run) with the fit's other settings; the best candidate is
    fitted on every row with the fit's method, its ``min_support`` scaled to every row when the
    folds used a sample of ``cv_rows`` rows (:func:`cv_sample`; ``None``: every row).
    ``None`` when a class has fewer than 2 rows (no cross-validation), or when no candidate can
    be fitted (the caller then fits the paper's settings, which say what is wrong).
    ``max_rules`` (``"auto"`` or a number of rules): every fold model is also scored along its
    accuracy-size path, and the candidate and the cut of its path are chosen together
    (:func:`findrs.select.size.choose`, docs/semantics.md §10.1); the final model is cut the same
    way on its own path (a number: to the chosen budget of all its sets' rules).

    Raises:
        FindRSInputError: a number of rules below every candidate's number of class sets."""
    seed = params["random_state"]
    sized = max_rules is not None
    sample = cv_sample(classes, cv_rows, seed)
    folds = stratified_folds(classes[sample], seed, grid.FOLDS)
    if folds is None:
        return None
    k = int(folds.max()) + 1
    kinds = _kinds(df, features, classes, params, encoders, codes, numeric_auto)
    combinations = COMBINATIONS if combine == "auto" else (combine,)
    wanted = {**params, **{a: "auto" for a in axes}}
    first = grid.first_stage(wanted, combinations, list(kinds))
    total = k * (len(first) + len(grid.second_stage(wanted, first[0])))
    report = stage(progress, "cross-validation: multiclass settings")
    parts = [(sample[folds != f], sample[folds == f]) for f in range(k)]
    done = [0]

    def n_sets(c: dict[str, Any]) -> int:
        """The class sets of candidate ``c``'s models: a decision list has none for its default."""
        return len(tgt.classes) - (c["multiclass"] != "one-vs-rest")

    def score(c: dict[str, Any]) -> dict[str, Any] | None:
        p, enc, cd = kinds[c["numeric"]]
        q = {**p, "method": "find-rs", "T": 1, "n_rules": None, "tolerance": c["tolerance"],
             "min_support": c["min_support"], "simplify": c["simplify"]}
        counts: dict[str, list[int]] = {n: [] for n in (*grid.COUNTS, *(size.PATHS if sized else ()))}
        failed = False
        for fit_rows, held in parts:
            done[0] += 1
            if report is not None:
                report(done[0], total)
            if failed:
                continue
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", ContradictionWarning)
                    m = RuleSetModel._fit_multiclass([np.ascontiguousarray(x[fit_rows]) for x in cd],
                                                     np.ascontiguousarray(classes[fit_rows]), enc, tgt, q,
                                                     c["multiclass"], n_jobs, None, path=sized)
            except FindRSInputError:  # a support or share that leaves a class set no rule
                failed = True
                continue
            held_codes = [x[held] for x in cd]
            if sized:  # the path's last point is the whole model
                _score_path(m, held_codes, classes[held], counts)
            else:
                counts["correct"].append(int(np.sum(class_indices_of(m, held_codes) == classes[held])))
            counts["rows"].append(len(held))
            sets = m._core.class_models()
            counts["rules"].append(sum(int(s.n_rules) for s in sets))
            counts["conditions"].append(sum(int(s.rule_constraints()[0][-1]) for s in sets))
        if failed:
            return None
        return {**c, **counts, "path_base": n_sets(c) - 1} if sized else {**c, **counts}

    cands = [s for s in map(score, first) if s is not None]
    if not cands:
        return None
    cands += [s for s in map(score, grid.second_stage(wanted, cands[grid.best(cands)])) if s is not None]
    while cands:
        rec = {"folds": k, "sampled": len(sample), "chosen": grid.best(cands), "candidates": cands}
        if sized:
            try:
                pick = size.choose(rec, max_rules)
            except ValueError:
                raise FindRSInputError(_too_few(max_rules, min(c["path_base"] + 1 for c in cands))) from None
            chosen = cands[pick["candidate"]]
            rec = {**size.without_paths(rec), "chosen": pick["candidate"],
                   "size": {**pick, **{n: chosen[n] for n in size.PATHS}}}
        c = cands[rec["chosen"]]
        p, enc, cd = kinds[c["numeric"]]
        q = {**p, "tolerance": c["tolerance"], "simplify": c["simplify"],
             "min_support": scaled_support(c["min_support"], len(classes), len(sample))}
        try:
            model = RuleSetModel._fit_multiclass(
                cd, classes, enc, tgt, q, c["multiclass"], n_jobs, stage(progress, f"fit of {n_sets(c)} class rule sets"),
                grid.combination_counts(rec, COMBINATIONS) if combine == "auto" else None,
                grid.numeric_counts(rec) if len(kinds) > 1 else None, settings_cv=rec)
        except FindRSInputError:  # its support leaves a class set of every row no rule: the next
            cands = [x for x in cands if x is not c]
            continue
        if sized and model._training.get("path") is not None:
            base, pick = c["path_base"], rec["size"]
            if pick["rules"] is not None:  # a budget
                return budget_cut(model, pick["rules"])
            train = model._training["path"]["correct"]
            return model.at(base + size.cut(train[base - 1:], len(classes), pick["gain"]))
        return model
    return None


def _too_few(max_rules: int, sets: int) -> str:
    return (f"max_rules={max_rules} counts the rules of every class set, and a multiclass model keeps at least one rule "
            f"per set ({sets} here): pass max_rules={sets} or more, or None")


def budget_cut(model: RuleSetModel, max_rules: int) -> RuleSetModel:
    """A multiclass FIND-RS ``model`` cut to at most ``max_rules`` rules of all its sets on its
    path (docs/semantics.md §10.1), with ``params["max_rules"]`` saying so.

    Raises:
        FindRSInputError: ``max_rules`` is below the model's number of class sets."""
    sets = len(model._core.set_classes)
    if max_rules < sets:
        raise FindRSInputError(_too_few(max_rules, sets))
    cut = model.at(max_rules)
    return RuleSetModel(cut._core, cut.encoders, cut.target, {**cut.params, "max_rules": max_rules}, cut._training,
                        cut._cv)


def _score_path(model: RuleSetModel, codes: list[np.ndarray], classes: np.ndarray, counts: dict[str, list[Any]]) -> None:
    """Appends a fold model's held-out rows right (``codes``, ``classes``: its path's last point)
    and its path counts (docs/semantics.md §10.1) to ``counts``: from its first model (a rule
    per set) on, the held-out rows right and the conditions of each prefix, and the training
    rows right from the prefix before it."""
    path = model._training["path"]
    base = len(model._core.set_classes) - 1
    held = held_out_path(model._core, path["order"], codes, classes)
    counts["correct"].append(int(held[-1]))
    conditions = np.cumsum(model._rule_conditions()[np.asarray(path["order"], dtype=np.int64)])
    counts["path_correct"].append([int(x) for x in held[base:]])
    counts["path_conditions"].append([int(x) for x in conditions[base:]])
    counts["path_train"].append([int(x) for x in path["correct"][base - 1:]])

