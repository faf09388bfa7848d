"""Rules with exceptions as more candidates of the automatic cross-validation
(docs/semantics.md §9.6).

The default fit's cross-validation (docs/semantics.md §9.4) already scores, on one set of folds,
every FIND-RS candidate of both directions under every encoding it tries. A rules-with-
exceptions model is made of two of them: its *rules* are a FIND-RS candidate of the positive
direction, its *exception rules* a FIND-RS candidate of the negative direction with the same
encoding (``encoding``, ``bin_edges``, ``numeric``). The choice pairs each of the
:data:`EXCEPTION_PAIRS` best-ranked positive candidates with each of the
:data:`EXCEPTION_PAIRS` best-ranked negative candidates of its encoding
(:func:`exception_pairs`; by default 1: the best of each direction) and scores every pair on the same folds without a cross-validation of
its own: on each fold, the two candidates' FIND-RS models (each exactly the fold model the
cross-validation scored: the fold's training rows, its per-fold seed and codes; each fitted once
per fold however many pairs it is in) are combined as §9.6 combines them and scored on the
fold's held-out rows.

Invariant: :func:`pair_counts` gives, per pair and fold, the held-out rows that combination gets
right, as the record gives them for its candidates (each FIND-RS fold model's own held-out count
is checked against the record's); :func:`best_pair` ranks pairs as the core ranks candidates
(most rows right, then fewer conditions, then the earlier).

Example:
    >>> rec = {"folds": 1, "sampled": 4, "chosen": 0, "candidates": [
    ...     {"encoding": "av", "direction": "positive", "correct": [3], "rows": [4], "rules": [1], "conditions": [2]},
    ...     {"encoding": "av", "direction": "negative", "correct": [2], "rows": [4], "rules": [1], "conditions": [1]}]}
    >>> exceptions_pick(rec), exception_pairs(rec)
    ((0, 1), [(0, 1)])
"""

from __future__ import annotations

import contextlib
import os
import threading
import warnings
from concurrent.futures import Future, ThreadPoolExecutor, wait
from typing import Any, Callable, Iterator, Mapping

import numpy as np

from ..select.auto import VOTE_RULES
from .progress import fit_stage, stage
from ..errors import ContradictionWarning, FindRSInputError

ENCODING_KEYS = ("encoding", "bin_edges", "numeric")
"""What a candidate's encoding is made of: the rules and the exception rules share all three."""

SETTING_KEYS = ("encoding", "tolerance", "min_support", "direction", "simplify")

EXCEPTION_PAIRS = 1
"""How many best-ranked candidates of each direction the choice pairs (docs/semantics.md §9.6):
each of the top positive FIND-RS candidates with each of the top negative ones of its encoding.
1 (the best of each direction, the model ``exceptions=True`` fits): 5 (25 pairs) measured +.0014
on Adult's training halves but -.0003 on adult.test, at +60% CPU on Adult, and is not the
default (``results/adult-holdout.md``, "Pairs of candidates")."""

MAX_VOTING_RULES = max(VOTE_RULES)
"""Rules with exceptions replace the default's model only with at most this many voting rules
(the rules and the exception rules that override one): the default's budget of 100, the vote's
largest K (:data:`findrs.select.auto.VOTE_RULES`; docs/semantics.md §9.6)."""


def _rank(rec: Mapping[str, Any], i: int) -> tuple[int, int, int]:
    """The core's ranking of candidate ``i`` (docs/semantics.md §9.4): most held-out rows right,
    then fewer conditions, then the earlier."""
    c = rec["candidates"][i]
    return sum(c["correct"]), -sum(c["conditions"]), -i


def _is_find_rs(c: Mapping[str, Any]) -> bool:
    return c.get("method", "find-rs") == "find-rs"


def _encoding(c: Mapping[str, Any]) -> tuple[Any, ...]:
    return tuple(c.get(k) for k in ENCODING_KEYS)


def _ranked(rec: Mapping[str, Any], direction: str, encoding: tuple[Any, ...] | None = None) -> list[int]:
    """The record's FIND-RS candidates of ``direction`` (of ``encoding`` when given), best-ranked
    first."""
    ids = [i for i, c in enumerate(rec["candidates"]) if _is_find_rs(c) and c["direction"] == direction
           and (encoding is None or _encoding(c) == encoding)]
    return sorted(ids, key=lambda i: _rank(rec, i), reverse=True)


def exception_pairs(rec: Mapping[str, Any], k: int | None = None) -> list[tuple[int, int]]:
    """The ``(rules, exception rules)`` candidate pairs of ``rec`` the choice scores, in order:
    each of the ``k`` (default :data:`EXCEPTION_PAIRS`) best-ranked positive FIND-RS candidates
    (best first) with each of the ``k`` best-ranked negative FIND-RS candidates of its encoding
    (best first). Empty when the record has no such pair (a ``direction`` that was not
    cross-validated)."""
    k = EXCEPTION_PAIRS if k is None else k
    return [(r, s) for r in _ranked(rec, "positive")[:k] for s in _ranked(rec, "negative", _encoding(rec["candidates"][r]))[:k]]


def exceptions_pick(rec: Mapping[str, Any]) -> tuple[int, int] | None:
    """The first of :func:`exception_pairs`: the best-ranked positive FIND-RS candidate of the
    record and the best-ranked negative one with its encoding (the pair ``exceptions=True``'s
    own cross-validations choose); ``None`` when the record has no pair."""
    pairs = exception_pairs(rec, 1)
    return pairs[0] if pairs else None


def _fold_model(codes: list[np.ndarray], y: np.ndarray, encoders: Any, tgt: Any, params: Mapping[str, Any],
                c: Mapping[str, Any], seed: int) -> Any:
    """The FIND-RS model of candidate ``c`` on these (fold-training) rows with ``seed`` (one run,
    run 0's order, as the cross-validation scores every candidate; docs/semantics.md §5.3); ``None``
    when its support leaves no rule (the cross-validation then scores the fold's model as
    predicting the other label everywhere)."""
    from ..models.model import RuleSetModel

    p = {**params, **{k: c[k] for k in SETTING_KEYS}, "method": "find-rs", "T": 1, "n_rules": None,
         "max_rules": None, "auto": [], "random_state": seed, "run": 0, "best_of": 1}
    try:
        return RuleSetModel._fit_many(codes, y, encoders, tgt, [p], 1, None)[0]
    except FindRSInputError:
        return None


class _FoldRules:
    """One candidate's FIND-RS model on one fold, as the pairs need it: which of its rules cover
    each held-out row (``fired``, rows x rules), its rules' training counts of their own / the
    other class (``own`` / ``other``), their conditions, and the fold's training positives and
    negatives. A model whose support left no rule has no rules (it predicts the other label)."""

    def __init__(self, model: Any, held_codes: list[np.ndarray], n_held: int, P: int, N: int) -> None:
        self.P, self.N = P, N
        if model is None:
            self.fired = np.zeros((n_held, 0), dtype=bool)
            self.own = self.other = self.conditions = np.zeros(0, dtype=np.int64)
            return
        self.fired = model._fired_matrix(held_codes)
        self.own, self.other, self.conditions = model._rule_counts()

    def covers(self) -> np.ndarray:
        """Held-out rows this model alone predicts as its direction's label."""
        return self.fired.any(axis=1)


def _combine(rules: _FoldRules, excs: _FoldRules) -> tuple[np.ndarray, int, int]:
    """The rules-with-exceptions model of two fold models on the held-out rows: positive where
    some rule fires and none of its exceptions (docs/semantics.md §9.6); with its voting rules
    (the rules and the exception rules that are an exception of one) and their conditions."""
    from ..models.exceptions import exception_matrix

    if rules.fired.shape[1] == 0:
        return np.zeros(rules.fired.shape[0], dtype=bool), 0, 0
    e = exception_matrix(rules.P, rules.N, rules.own, rules.other, excs.own, excs.other)
    overridden = (excs.fired.astype(np.float32) @ e.T.astype(np.float32)) > 0  # exact: counts < 2**24
    pred = (rules.fired & ~overridden).any(axis=1)
    used = e.any(axis=0)
    return pred, len(rules.own) + int(used.sum()), int(rules.conditions.sum() + excs.conditions[used].sum())


def _workers(n_jobs: int | None) -> int:
    """Threads for the fold fits: ``n_jobs`` as the fit's (``None``: every core)."""
    return max(1, os.cpu_count() or 1) if n_jobs is None or n_jobs < 1 else n_jobs


_POOLS: dict[tuple[int, int], ThreadPoolExecutor] = {}
_POOLS_LOCK = threading.Lock()


def _pool(n_jobs: int | None) -> ThreadPoolExecutor:
    """The threads of the fold fits, one pool per thread count kept for the process, as the
    core keeps its rayon pools: starting a pool's threads for each default fit cost more than
    that fit's fold fits on the small data sets (wine: 4 of 9 ms). Keyed by the process id
    too: a forked child, whose copy of a pool has no threads, makes its own."""
    key = (os.getpid(), _workers(n_jobs))
    with _POOLS_LOCK:
        if key not in _POOLS:
            _POOLS[key] = ThreadPoolExecutor(key[1], thread_name_prefix="findrs-folds")
        return _POOLS[key]


@contextlib.contextmanager
def _settled(futures: list[Future[Any]]) -> Iterator[None]:
    """On an error inside, cancels those of ``futures`` (as the list then is) not started and
    waits for the running ones."""
    try:
        yield
    except BaseException:
        for fut in futures:
            fut.cancel()
        wait(futures)
        raise


def pair_counts(y: np.ndarray, tgt: Any, rec: Mapping[str, Any], params: Mapping[str, Any],
                pairs: list[tuple[int, int]], variant: Callable[[Mapping[str, Any]], tuple[Any, ...]],
                n_jobs: int | None = None, report: Callable[[int, int], None] | None = None,
                ) -> dict[tuple[int, int], list[list[int]]]:
    """Per pair of ``pairs`` (candidate indices of ``rec``, the cross-validation of ``params`` on
    the rows with labels ``y``, read as the codes ``variant`` gives) and per fold: ``[correct, rows, rules, conditions]`` of the
    rules-with-exceptions model of the pair's two candidates, as the record counts its
    candidates: held-out rows right and held-out rows, the voting rules (the rules and the
    exception rules that are an exception of one) and their conditions. Each candidate is
    fitted once per fold. ``variant(candidate)``: the candidate's encoding as ``(params,
    encoders, codes, fold_coder)`` (``learn._encode_variant``), asked once per encoding.
    ``n_jobs``: threads for the fold fits (``None``: every core); the counts do not depend on it.
    ``report``: told ``(fits read, fits)`` as the fold fits are read (a stage of the progress line).

    Raises:
        AssertionError: a fold model does not reproduce the record's count (a bug).
    """
    from ..models.rule_set_parts import UNSAMPLED, cv_folds, fold_seed

    cands = rec["candidates"]
    seed = int(params["random_state"])
    fold_of = cv_folds(y, int(rec["folds"]), seed, params["cv_rows"])
    variants: dict[tuple[Any, ...], tuple[Any, ...]] = {}
    for r, _ in pairs:
        variants.setdefault(_encoding(cands[r]), variant(cands[r]))
    out: dict[tuple[int, int], list[list[int]]] = {pair: [] for pair in pairs}
    submitted: list[Future[Any]] = []

    def submit(pool: ThreadPoolExecutor, f: int) -> list[tuple[list[int], list[np.ndarray], list[Future[Any]]]]:
        """Fold ``f``'s fits put on the pool: per encoding its candidates, held-out codes and
        fits (the fold's training rows and seed: the same models whenever they run)."""
        train = (fold_of != f) & (fold_of != UNSAMPLED)
        jobs = []
        for enc, (p, encoders, codes, coder) in variants.items():
            ids = sorted({i for pair in pairs for i in pair if _encoding(cands[i]) == enc})
            enc_f, codes_f = coder(fold_of != f) if coder is not None else (encoders, codes)
            part = [np.ascontiguousarray(col[train]) for col in codes_f]
            held_codes = [np.ascontiguousarray(col[fold_of == f]) for col in codes_f]
            fits = [pool.submit(_fold_model, part, y[train], enc_f, tgt, p, cands[i], fold_seed(seed, f))
                    for i in ids]
            submitted.extend(fits)
            jobs.append((ids, held_codes, fits))
        return jobs

    folds = int(rec["folds"])
    n_fits, read = folds * len({i for pair in pairs for i in pair}), 0
    # One pool for every fold, one core thread per fit; the next fold's fits run while this
    # fold's models are read (at most two folds' rows held at once). The core releases the GIL
    # while it fits. The fits' ContradictionWarning is dropped (the caller warns once). On an
    # error, the fits not started are dropped and the running ones waited for: none outlives
    # this call.
    pool = _pool(n_jobs)
    with warnings.catch_warnings(), _settled(submitted):
        warnings.simplefilter("ignore", ContradictionWarning)
        pending = submit(pool, 0)
        for f in range(folds):
            jobs, pending = pending, (submit(pool, f + 1) if f + 1 < folds else [])
            train = (fold_of != f) & (fold_of != UNSAMPLED)
            held = fold_of == f
            truth = y[held]
            P = int(y[train].sum())
            fits: dict[int, _FoldRules] = {}
            for ids, held_codes, futures in jobs:
                for i, future in zip(ids, futures):
                    c = cands[i]
                    fit = _FoldRules(future.result(), held_codes, int(held.sum()), P, int(train.sum()) - P)
                    right = int((fit.covers() == (truth if c["direction"] == "positive" else ~truth)).sum())
                    if right != c["correct"][f]:  # each fold model is the one the record scored
                        raise AssertionError(f"fold {f}: candidate {i}'s fold model gets {right} held-out rows right, "
                                             f"the record {c['correct'][f]}")
                    fits[i] = fit
                    read += 1
                    if report is not None:
                        report(read, n_fits)
            for r, s in pairs:
                pred, n_rules, conds = _combine(fits[r], fits[s])
                out[(r, s)].append([int((pred == truth).sum()), int(held.sum()), n_rules, conds])
    return out


def fold_counts(y: np.ndarray, tgt: Any, rec: Mapping[str, Any], params: Mapping[str, Any],
                pick: tuple[int, int], variant: Callable[[Mapping[str, Any]], tuple[Any, ...]]) -> list[list[int]]:
    """:func:`pair_counts` of the one pair ``pick``: per fold ``[correct, rows, rules,
    conditions]`` of its rules-with-exceptions model."""
    return pair_counts(y, tgt, rec, params, [pick], variant)[pick]


def best_pair(counts: Mapping[tuple[int, int], list[list[int]]]) -> tuple[int, int]:
    """The pair of ``counts`` (:func:`pair_counts`, in :func:`exception_pairs`' order) the
    choice keeps: most held-out rows right, then fewer conditions, then the earlier."""
    order = list(counts)
    return max(order, key=lambda p: (sum(c[0] for c in counts[p]), -sum(c[3] for c in counts[p]), -order.index(p)))


def _best(rec: Mapping[str, Any], ids: list[int]) -> int:
    return max(ids, key=lambda i: _rank(rec, i))


def _sub_record(rec: Mapping[str, Any], ids: list[int]) -> dict[str, Any]:
    """The record of ``rec``'s candidates ``ids`` alone (their settings of
    :data:`~findrs.select.params.AUTOMATIC` and counts, the tags of the other CV axes dropped), for a
    final fit from their scores (``RuleSetModel._fit_auto(record=...)``)."""
    from ..select.auto import _COUNTS
    from ..select.params import AUTOMATIC

    cands = [{k: rec["candidates"][i][k] for k in (*AUTOMATIC, *_COUNTS)} for i in ids]
    best = ids.index(_best(rec, ids))
    return {"folds": rec["folds"], "sampled": rec["sampled"], "chosen": best, "candidates": cands}


def _final(variant: tuple[Any, ...], y: np.ndarray, tgt: Any, rec: Mapping[str, Any], ids: list[int],
           auto: list[str], n_jobs: int | None, report: Callable[[int, int], None] | None = None) -> Any:
    """The FIND-RS model fitted on every row from the scores of ``rec``'s candidates ``ids`` (the
    best-ranked whose support leaves a rule, its support scaled as in docs/semantics.md §9.4),
    as a fit cross-validating those candidates alone gives it. ``report``: the progress line's
    stage the core reports its runs to."""
    from ..models.model import RuleSetModel

    p, encoders, codes, coder = variant
    params = {**p, "method": "find-rs", "T": 1, "n_rules": None, "max_rules": None, "cv_T": 1, "auto": auto}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ContradictionWarning)  # the caller warns once
        return RuleSetModel._fit_auto(codes, y, encoders, tgt, params, n_jobs, report, coder,
                                      record=_sub_record(rec, ids))


def choose(y: np.ndarray, tgt: Any, model: Any,
           variant: Callable[[Mapping[str, Any]], tuple[Any, ...]], n_jobs: int | None, best_of: int = 1,
           progress: Any = None) -> Any:
    """``exceptions="auto"`` (docs/semantics.md §9.6): ``model`` (the default fit's winner, its
    record the cross-validation of every candidate), or the rules-with-exceptions model of the
    best pair of the record's candidates (:func:`exception_pairs`, :func:`best_pair`) when its
    held-out rows right (:func:`pair_counts`) are strictly more than those of ``model``'s chosen
    candidate. That model is fitted from the record's scores (no cross-validation again: the
    rules are the pair's positive candidate fitted on every row, the exception rules its
    negative one, each falling back to the next-ranked candidate of its direction and encoding
    when its support leaves no rule) and carries the record with itself as one more candidate
    (``exceptions`` true, chosen); if none of its rules has an exception on every row, or it
    has more than :data:`MAX_VOTING_RULES` voting rules, ``model`` is returned. The rules,
    when fitted again, keep the best of ``best_of`` runs (docs/semantics.md §5.3), as
    ``exceptions=True``'s do; the exception rules are one run. ``progress``: the progress line
    (:mod:`findrs.learning.progress`) the stages are shown on, or ``None``."""
    from ..models.exceptions import ExceptionsModel
    from ..select.params import AUTOMATIC

    rec = model._cv
    pairs = exception_pairs(rec) if rec is not None else []
    if not pairs:
        return model
    plain = sum(rec["candidates"][rec["chosen"]]["correct"])
    if plain >= sum(rec["candidates"][rec["chosen"]]["rows"]):
        # Every held-out row right already: no pair (the same folds' rows) can score strictly more.
        return model
    counts = pair_counts(y, tgt, rec, model.params, pairs, variant, n_jobs,
                         stage(progress, "cross-validation of rules with exceptions"))
    pick = best_pair(counts)
    if sum(c[0] for c in counts[pick]) <= plain:
        return model
    cands = rec["candidates"]
    r = cands[pick[0]]
    auto = [k for k in AUTOMATIC if k in model.params["auto"] and k != "n_rules"]
    v = variant(r)

    def from_pick(i: int, encoding: Any) -> list[int]:
        """The candidates of ``cands[i]``'s direction, bin edges and numeric handling (and
        ``encoding`` when given) ranked at or below it: ``_final`` fits the best of them whose
        support leaves a rule, ``cands[i]`` first."""
        c = cands[i]
        return [j for j in range(len(cands)) if _is_find_rs(cands[j]) and cands[j]["direction"] == c["direction"]
                and _encoding(cands[j])[1:] == _encoding(c)[1:] and (encoding is None or cands[j]["encoding"] == encoding)
                and _rank(rec, j) <= _rank(rec, i)]

    if rec["chosen"] == pick[0] and model.method == "find-rs":  # the default's model is these rules already
        rules = model
    else:
        rules = _final(({**v[0], "run": 0, "best_of": best_of}, *v[1:]), y, tgt, rec, from_pick(pick[0], None), auto, n_jobs,
                       fit_stage(progress, {**v[0], "method": "find-rs", "best_of": best_of}, "final fit", "the rules"))
    if rules.n_rules > MAX_VOTING_RULES:
        # Over the cap before any exception rule (they only add voting rules): ``model``, as the
        # test below would decide, without fitting the exception rules (on connect-4 one run of
        # about 10 CPU-s).
        return model
    # The exception rules are one run (run 0's order), as exceptions=True fits them (§5.3, §9.6).
    excs = _final(({**v[0], "run": 0, "best_of": 1}, *v[1:]), y, tgt, rec,
                  from_pick(pick[1], rules.params["encoding"]), auto, n_jobs,
                  stage(progress, "final fit of the exception rules"))
    out = ExceptionsModel(rules, excs)
    if not any(out.exceptions_of) or out.n_rules > MAX_VOTING_RULES:
        return model
    if rules is not model and rules._cv is not None:
        # The settings the rules were fitted with: the pick's, or the next-ranked candidate's when
        # the pick's support left no rule (what the loader checks against the rules' params).
        sub = rules._cv
        r = {**r, **{k: v for k, v in sub["candidates"][sub["chosen"]].items() if k in AUTOMATIC and k in r}}
    entry = {**r, **dict(zip(("correct", "rows", "rules", "conditions"), map(list, zip(*counts[pick])))),
             "exceptions": True}
    record = {**rec, "chosen": len(cands),
              "candidates": [*({**c, "exceptions": False} for c in cands), entry]}
    return out._chosen_by_cv([*model.params["auto"], "exceptions"], record, plain)
