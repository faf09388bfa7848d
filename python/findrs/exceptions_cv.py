"""Rules with exceptions as one more candidate of the automatic cross-validation
(docs/semantics.md §9.6).

The default fit's cross-validation (docs/semantics.md §9.4) already scores, on one set of folds,
every FIND-RS candidate of both directions under every encoding it tries. The rules-with-
exceptions model that ``exceptions=True`` fits is made of two of them: its *rules* are the
best-ranked FIND-RS candidate of the positive direction (every encoding tried), its *exception
rules* the best-ranked FIND-RS candidate of the negative direction with the same encoding
(``encoding``, ``bin_edges``, ``numeric``). So that model is scored on the same folds without a
cross-validation of its own: on each fold, the two candidates' FIND-RS models (each exactly the
fold model the cross-validation scored: the fold's training rows, its per-fold seed and codes)
are combined as §9.6 combines them and scored on the fold's held-out rows.

Invariant: :func:`exceptions_pick` names the candidates of the record whose models
``exceptions=True`` fits, and :func:`fold_counts` gives, per fold, the held-out rows that
combination gets right, as the record gives them for its candidates (each FIND-RS fold model's
own held-out count is checked against the record's).

Example:
    >>> rec = {"folds": 1, "sampled": 4, "chosen": 0, "candidates": [
    ...     {"encoding": "av", "direction": "positive", "correct": [3], "rows": [4], "rules": [1], "conditions": [2]},
    ...     {"encoding": "av", "direction": "negative", "correct": [2], "rows": [4], "rules": [1], "conditions": [1]}]}
    >>> exceptions_pick(rec)
    (0, 1)
"""

from __future__ import annotations

import warnings
from typing import Any, Callable, Mapping

import numpy as np
import polars as pl

from .errors import ContradictionWarning, FindRSInputError

ENCODING_KEYS = ("encoding", "bin_edges", "numeric")
"""What a candidate's encoding is made of: the rules and the exception rules share all three."""

SETTING_KEYS = ("encoding", "tolerance", "min_support", "direction", "simplify")


def _rank(rec: Mapping[str, Any], i: int) -> tuple[int, int, int]:
    """The core's ranking of candidate ``i`` (docs/semantics.md §9.4): most held-out rows right,
    then fewer conditions, then the earlier."""
    c = rec["candidates"][i]
    return sum(c["correct"]), -sum(c["conditions"]), -i


def _is_find_rs(c: Mapping[str, Any]) -> bool:
    return c.get("method", "find-rs") == "find-rs"


def exceptions_pick(rec: Mapping[str, Any]) -> tuple[int, int] | None:
    """The indices in ``rec`` of the rules (the best-ranked FIND-RS candidate of the positive
    direction) and of the exception rules (the best-ranked FIND-RS candidate of the negative
    direction with the rules' encoding), or ``None`` when the record has no such pair (a
    ``direction`` that was not cross-validated)."""
    cands = rec["candidates"]
    pos = [i for i, c in enumerate(cands) if _is_find_rs(c) and c["direction"] == "positive"]
    if not pos:
        return None
    r = max(pos, key=lambda i: _rank(rec, i))
    enc = tuple(cands[r].get(k) for k in ENCODING_KEYS)
    neg = [i for i, c in enumerate(cands) if _is_find_rs(c) and c["direction"] == "negative"
           and tuple(c.get(k) for k in ENCODING_KEYS) == enc]
    if not neg:
        return None
    return r, max(neg, key=lambda i: _rank(rec, i))


def _fold_model(codes: list[np.ndarray], y: np.ndarray, encoders: Any, tgt: Any, params: Mapping[str, Any],
                c: Mapping[str, Any], seed: int) -> Any:
    """The FIND-RS model of candidate ``c`` on these (fold-training) rows with ``seed`` (one run,
    run 0's order, as the cross-validation scores every candidate; docs/semantics.md §5.3); ``None``
    when its support leaves no rule (the cross-validation then scores the fold's model as
    predicting the other label everywhere)."""
    from .model import RuleSetModel

    p = {**params, **{k: c[k] for k in SETTING_KEYS}, "method": "find-rs", "T": 1, "n_rules": None,
         "max_rules": None, "auto": [], "random_state": seed, "run": 0, "best_of": 1}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ContradictionWarning)
            return RuleSetModel._fit_many(codes, y, encoders, tgt, [p], 1, None)[0]
    except FindRSInputError:
        return None


def fold_counts(df: pl.DataFrame, y: np.ndarray, tgt: Any, rec: Mapping[str, Any], params: Mapping[str, Any],
                pick: tuple[int, int], variant: Callable[[Mapping[str, Any]], tuple[Any, ...]]) -> list[list[int]]:
    """Per fold of ``rec`` (the cross-validation of ``params`` on ``df``'s rows and labels ``y``):
    ``[correct, rows, rules, conditions]`` of the rules-with-exceptions model of ``pick``'s two
    candidates (:func:`exceptions_pick`), as the record counts its candidates: held-out rows right
    and held-out rows, the voting rules (the rules and the exception rules that are an exception
    of one) and their conditions. ``variant(candidate)``: the candidate's encoding as
    ``(params, encoders, codes, fold_coder)`` (``learn._encode_variant``).

    Raises:
        AssertionError: a fold model does not reproduce the record's count (a bug).
    """
    from .exceptions import ExceptionsModel
    from .model import UNSAMPLED, cv_folds, fold_seed

    r, s = (rec["candidates"][i] for i in pick)
    p, encoders, codes, coder = variant(r)
    seed = int(params["random_state"])
    fold_of = cv_folds(y, int(rec["folds"]), seed, params["cv_rows"])
    out = []
    for f in range(int(rec["folds"])):
        enc_f, codes_f = coder(fold_of != f) if coder is not None else (encoders, codes)
        train = (fold_of != f) & (fold_of != UNSAMPLED)
        held = fold_of == f
        part = [np.ascontiguousarray(col[train]) for col in codes_f]
        models = [_fold_model(part, y[train], enc_f, tgt, p, c, fold_seed(seed, f)) for c in (r, s)]
        frame, truth = df.filter(pl.Series(held)), y[held]
        for c, m in zip((r, s), models):  # each fold model is the one the record scored
            pred = m.predict(frame, labels=False).to_numpy() if m is not None else np.zeros(len(truth), bool)
            right = int((pred == (truth if c["direction"] == "positive" else ~truth)).sum())
            if right != c["correct"][f]:
                raise AssertionError(f"fold {f}: a fold model gets {right} held-out rows right, the record {c['correct'][f]}")
        rules, excs = models
        if rules is None:
            pred, used = np.zeros(len(truth), bool), []
        elif excs is None:
            pred, used = rules.predict(frame, labels=False).to_numpy(), [rules]
        else:
            m = ExceptionsModel(rules, excs)
            pred, used = m.predict(frame, labels=False).to_numpy(), [m]
        n_rules = sum(x.n_rules for x in used)
        conds = sum(_conditions(x) for x in used)
        out.append([int((pred == truth).sum()), int(held.sum()), n_rules, conds])
    return out


def _conditions(m: Any) -> int:
    """The conditions of a model's voting rules (an :class:`~findrs.ExceptionsModel`: of its
    rules and of the exception rules that are an exception of one)."""
    from .exceptions import ExceptionsModel

    if isinstance(m, ExceptionsModel):
        used = sorted({s for e in m.exceptions_of for s in e})
        return _conditions(m.rules_model) + int(m.exception_model.rules["constraints"][used].list.len().sum())
    return int(m.rules.filter(pl.col("kept"))["constraints"].list.len().sum())


def _best(rec: Mapping[str, Any], ids: list[int]) -> int:
    return max(ids, key=lambda i: _rank(rec, i))


def _sub_record(rec: Mapping[str, Any], ids: list[int]) -> dict[str, Any]:
    """The record of ``rec``'s candidates ``ids`` alone (their settings of
    :data:`~findrs.params.AUTOMATIC` and counts, the tags of the other CV axes dropped), for a
    final fit from their scores (``RuleSetModel._fit_auto(record=...)``)."""
    from .auto import _COUNTS
    from .params import AUTOMATIC

    cands = [{k: rec["candidates"][i][k] for k in (*AUTOMATIC, *_COUNTS)} for i in ids]
    best = ids.index(_best(rec, ids))
    return {"folds": rec["folds"], "sampled": rec["sampled"], "chosen": best, "candidates": cands}


def _final(variant: tuple[Any, ...], y: np.ndarray, tgt: Any, rec: Mapping[str, Any], ids: list[int],
           auto: list[str], n_jobs: int | None) -> Any:
    """The FIND-RS model fitted on every row from the scores of ``rec``'s candidates ``ids`` (the
    best-ranked whose support leaves a rule, its support scaled as in docs/semantics.md §9.4),
    as a fit cross-validating those candidates alone gives it."""
    from .model import RuleSetModel

    p, encoders, codes, coder = variant
    params = {**p, "method": "find-rs", "T": 1, "n_rules": None, "max_rules": None, "cv_T": 1, "auto": auto}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ContradictionWarning)  # the caller warns once
        return RuleSetModel._fit_auto(codes, y, encoders, tgt, params, n_jobs, None, coder,
                                      record=_sub_record(rec, ids))


def choose(df: pl.DataFrame, y: np.ndarray, tgt: Any, model: Any,
           variant: Callable[[Mapping[str, Any]], tuple[Any, ...]], n_jobs: int | None, best_of: int = 1) -> Any:
    """``exceptions="auto"`` (docs/semantics.md §9.6): ``model`` (the default fit's winner, its
    record the cross-validation of every candidate), or the rules-with-exceptions model of the
    record's candidates (:func:`exceptions_pick`) when its held-out rows right
    (:func:`fold_counts`) are strictly more than those of ``model``'s chosen candidate. That
    model is fitted from the record's scores (no cross-validation again) and carries the record
    with itself as one more candidate (``exceptions`` true), chosen; if none of its rules has an
    exception on every row, ``model`` is returned. The rules, when fitted again, keep the best of
    ``best_of`` runs (docs/semantics.md §5.3), as ``exceptions=True``'s do; the exception rules
    are one run."""
    from .exceptions import ExceptionsModel
    from .params import AUTOMATIC

    rec = model._cv
    pick = exceptions_pick(rec) if rec is not None else None
    if pick is None:
        return model
    counts = fold_counts(df, y, tgt, rec, model.params, pick, variant)
    plain = sum(rec["candidates"][rec["chosen"]]["correct"])
    if sum(c[0] for c in counts) <= plain:
        return model
    cands = rec["candidates"]
    r = cands[pick[0]]
    enc = tuple(r.get(k) for k in ENCODING_KEYS)
    same = [i for i, c in enumerate(cands) if _is_find_rs(c) and tuple(c.get(k) for k in ENCODING_KEYS[1:]) == enc[1:]]
    auto = [k for k in AUTOMATIC if k in model.params["auto"] and k != "n_rules"]
    v = variant(r)
    if rec["chosen"] == pick[0] and model.method == "find-rs":  # the default's model is these rules already
        rules = model
    else:
        rules = _final(({**v[0], "run": 0, "best_of": best_of}, *v[1:]), y, tgt, rec, [i for i in same if cands[i]["direction"] == "positive"], auto, n_jobs)
    # The exception rules are one run (run 0's order), as exceptions=True fits them (§5.3, §9.6).
    excs = _final(({**v[0], "run": 0, "best_of": 1}, *v[1:]), y, tgt, rec, [i for i in same if cands[i]["direction"] == "negative"
                                   and cands[i]["encoding"] == rules.params["encoding"]], auto, n_jobs)
    out = ExceptionsModel(rules, excs)
    if not any(out.exceptions_of):
        return model
    entry = {**r, **dict(zip(("correct", "rows", "rules", "conditions"), map(list, zip(*counts)))), "exceptions": True}
    record = {**rec, "chosen": len(cands),
              "candidates": [*({**c, "exceptions": False} for c in cands), entry]}
    return out._chosen_by_cv([*model.params["auto"], "exceptions"], record, plain)
