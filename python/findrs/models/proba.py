"""Graded probabilities from the rules that fire (docs/semantics.md §6, "Probabilities").

Every model kind scores a row from the training counts of its rules, the way RIPPER
implementations do: a rule's score is its Laplace-corrected training precision
``(p + 1) / (p + n + 2)`` (``p`` / ``n``: training rows of its label / of the others it covers);
a row no voting rule covers gets the Laplace rate of the positive label among the training
rows the voting rules leave uncovered (:func:`uncovered_counts`). A vote mixes the two by the
share of the vote that covers the row, and the result is then moved, if needed, to the side of
1/2 the prediction is on (:func:`agreeing`), so the probability never contradicts ``predict``.

Invariant this module keeps: it reads models only through their public members and the
expressions they already build (fired rules, decision values, predictions); it imports no
model module (each kind calls it).

Example:
    >>> import findrs
    >>> df = findrs.datasets.tic_tac_toe()
    >>> m = findrs.fit(df, "class", "positive", random_state=0, auto=False)
    >>> p = m.predict_proba(df)
    >>> bool(((p > 0.5) == m.predict(df, labels=False)).all())
    True
"""

from __future__ import annotations

from typing import Any

import numpy as np
import polars as pl

HALF_UP = float(np.nextafter(0.5, 1.0))
"""The least double above 1/2: the lowest probability of a row predicted positive."""


def laplace(p: Any, n: Any) -> np.ndarray:
    """The Laplace-corrected precision ``(p + 1) / (p + n + 2)``, element-wise.

    Example:
        >>> laplace([9, 0], [0, 0]).tolist()
        [0.9090909090909091, 0.5]
    """
    p, n = np.asarray(p, dtype=np.float64), np.asarray(n, dtype=np.float64)
    return (p + 1.0) / (p + n + 2.0)


def uncovered_counts(positives: int, negatives: int, p: np.ndarray, n: np.ndarray) -> tuple[int, int]:
    """The training positives and negatives that no voting rule covers, as far as the rules'
    counts tell without the training rows: ``P0 = max(0, P - sum p_r)`` (the fewest positives
    the rules can leave uncovered) and ``N0 = N - max n_r`` (the most negatives they can leave
    uncovered). Exact for a FIND-RS model with tolerance 0 on data without contradictions
    (every positive covered, no negative covered: ``P0 = 0``, ``N0 = N``).

    Example:
        >>> uncovered_counts(10, 20, np.array([6, 5]), np.array([0, 2]))
        (0, 18)
    """
    p0 = max(0, int(positives) - int(np.sum(p)))
    n0 = int(negatives) - (int(np.max(n)) if len(n) else 0)
    return p0, max(n0, 0)


def agreeing(raw: np.ndarray, positive: np.ndarray) -> np.ndarray:
    """``raw`` moved to the side of 1/2 the prediction is on: at least :data:`HALF_UP` where
    ``positive``, at most 1/2 elsewhere (so ``> 1/2`` exactly where ``predict`` says positive).

    Example:
        >>> agreeing(np.array([0.3, 0.9, 0.7]), np.array([True, False, False])).tolist()
        [0.5000000000000001, 0.5, 0.5]
    """
    return np.where(positive, np.maximum(raw, HALF_UP), np.minimum(raw, 0.5))


def best_fired(fired: pl.Series, scores: np.ndarray) -> np.ndarray:
    """Per row, the largest of ``scores[id]`` over the ids in the list ``fired`` (NaN when
    none fires)."""
    lengths = fired.list.len().fill_null(0).to_numpy().astype(np.int64)
    out = np.full(len(lengths), np.nan)
    if not len(scores) or not lengths.sum():
        return out
    ids = fired.explode().drop_nulls().to_numpy().astype(np.int64)
    rows = np.repeat(np.arange(len(lengths)), lengths)
    np.fmax.at(out, rows, scores[ids])
    return out


def _batch(fields: list[pl.Expr], fn: Any) -> pl.Expr:
    """``fn`` (NumPy) over the batch's ``fields`` (named ``f0``, ``f1`` ...), each expression
    evaluated once per batch; elementwise, so streaming queries run it batch by batch."""
    packed = pl.struct([f.alias(f"f{i}") for i, f in enumerate(fields)])
    return packed.map_batches(lambda s: fn([s.struct.field(f"f{i}") for i in range(len(fields))]),
                              return_dtype=pl.Float64, is_elementwise=True)


def rule_set_parts(model: Any) -> tuple[np.ndarray, float]:
    """A binary :class:`~findrs.RuleSetModel`'s rule scores (every rule found, by id) and its
    uncovered rate (over its voting rules)."""
    p, n, _ = model._rule_counts()
    k = model._core.n_rules
    positives = int(model._training["positives"])
    negatives = int(model._training["rows"]) - positives
    p0, n0 = uncovered_counts(positives, negatives, p[:k], n[:k])
    return laplace(p, n), float(laplace(p0, n0))


def rule_set_expr(model: Any) -> pl.Expr:
    """A binary rule set's probability of its positive label: ``s * q_best + (1 - s) * q_0``
    moved to the prediction's side (:func:`agreeing`), ``q_best`` the best firing voting rule's
    score (``q_0`` if none fires), ``q_0`` the uncovered rate, ``s = min(1, u / (2 theta))`` the
    share of the vote that covers the row on the runs' scale (FIND-RS: 1 or 0; BO: the runs
    covering it over T; BP: the covering weight over ``gamma_K T``, the weight at which the
    vote is certain)."""
    q, q0 = rule_set_parts(model)
    theta = float(model._core.decision_scale[1])

    def fn(cols: list[pl.Series]) -> pl.Series:
        fired, d, positive = cols
        best = best_fired(fired, q)
        best = np.where(np.isnan(best), q0, best)
        u = d.to_numpy().astype(np.float64)
        share = np.clip((u + theta) / (2.0 * theta), 0.0, 1.0) if theta > 0 else np.ones(len(u))
        raw = share * best + (1.0 - share) * q0
        return pl.Series(agreeing(raw, positive.to_numpy().astype(bool)), dtype=pl.Float64)

    return _batch([model._plugin("findrs_fired"), model._plugin("findrs_decision"), model._plugin("findrs_predict")], fn)


def multiclass_expr(model: Any) -> pl.Expr:
    """A multiclass model's probabilities, a struct of one ``Float64`` field per class (named by
    the label as text), summing to 1: each class set's binary probability ``a_c``
    (:func:`rule_set_expr`), a decision list's default class ``1 - max a_c``; the predicted
    class's score raised to ``max_other * (1 + 1e-12)`` if it is not above every other; then
    each row divided by its sum."""
    classes = list(model.target.classes)
    k = len(classes)
    set_classes = list(model._core.set_classes)
    default = model._core.default_class
    fields = [rule_set_expr(m) for m in model.class_models] + [model._class_index_expr("plugin")]
    names = [str(c) for c in classes]

    def fn(s: pl.Series) -> pl.Series:
        cols = [s.struct.field(f"f{i}").to_numpy() for i in range(len(fields))]
        a = np.zeros((s.len(), k))
        for c, col in zip(set_classes, cols[:-1]):
            a[:, c] = col
        if default is not None:
            a[:, default] = 1.0 - a[:, set_classes].max(axis=1)
        index = cols[-1].astype(np.int64)
        rows = np.arange(s.len())
        others = a.copy()
        others[rows, index] = -np.inf
        top = others.max(axis=1) if k > 1 else a[rows, index]
        a[rows, index] = np.where(a[rows, index] > top, a[rows, index], top * (1.0 + 1e-12))
        a = a / a.sum(axis=1, keepdims=True)
        return pl.DataFrame({n: a[:, i] for i, n in enumerate(names)}).to_struct()

    packed = pl.struct([f.alias(f"f{i}") for i, f in enumerate(fields)])
    dtype = pl.Struct({n: pl.Float64 for n in names})
    return packed.map_batches(fn, return_dtype=dtype, is_elementwise=True)


def exceptions_expr(model: Any) -> pl.Expr:
    """Rules with exceptions: a row predicted positive gets the best firing rule's score (the
    most precise rule has the fewest exceptions, so it decides the row); a row some rule covers
    but an exception overrides gets ``1 -`` the best firing exception rule's score (for the
    negative label); a row no rule covers the rules' uncovered rate; then :func:`agreeing`."""
    rules, excs = model.rules_model, model.exception_model
    q, q0 = rule_set_parts(rules)
    qs, _ = rule_set_parts(excs)

    def fn(cols: list[pl.Series]) -> pl.Series:
        fired_r, fired_s, positive = cols
        pos = positive.to_numpy().astype(bool)
        best_r, best_s = best_fired(fired_r, q), best_fired(fired_s, qs)
        raw = np.where(pos, best_r, np.where(np.isnan(best_r), q0, 1.0 - np.where(np.isnan(best_s), 1.0 - q0, best_s)))
        return pl.Series(agreeing(np.where(np.isnan(raw), q0, raw), pos), dtype=pl.Float64)

    return _batch([rules._plugin("findrs_fired"), excs._plugin("findrs_fired"), model.predict_expr(labels=False)], fn)


def bagged_expr(model: Any) -> pl.Expr:
    """A bagged vote: the mean of its members' probabilities of the bag's positive label (a
    member that describes the other label contributes ``1 - p``), moved to the side of the
    bag's prediction (:func:`agreeing`)."""
    flips = list(model._flip)

    def fn(cols: list[pl.Series]) -> pl.Series:
        ps = [1.0 - c.to_numpy() if f else c.to_numpy() for c, f in zip(cols[:-1], flips)]
        return pl.Series(agreeing(np.mean(ps, axis=0), cols[-1].to_numpy().astype(bool)), dtype=pl.Float64)

    return _batch([m.predict_proba_expr() for m in model.members] + [model.predict_expr(labels=False)], fn)
