"""The pairs of candidates the default fit scores as rules with exceptions (docs/semantics.md
§9.6, ``findrs.learning.exceptions_cv``): which pairs, their fold counts against a plain re-count through
the public model (Polars prediction of :class:`~findrs.ExceptionsModel`), the matrix of fired
rules against the reference evaluation of each rule, the exceptions rule against Python's
integers, and a fit where a pair other than the first wins."""

from __future__ import annotations

import warnings

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import findrs
from findrs import ExceptionsModel, _core
from findrs.learning import exceptions_cv
from findrs.models.exceptions import exception_matrix
from findrs.models.rule_set_parts import UNSAMPLED
import reference
from strategies import codes_of, domains_of, frames, labels_of
from test_exceptions_auto import _fit, _pair_counts, _train, _variant

pytestmark = pytest.mark.filterwarnings("ignore::findrs.ContradictionWarning")


def _conditions(m: ExceptionsModel) -> int:
    """The conditions of a model's voting rules, read from its public rule tables: its rules'
    and those of the exception rules that are an exception of one."""
    used = sorted({s for e in m.exceptions_of for s in e})
    rules, excs = m.rules_model.rules, m.exception_model.rules
    return int(rules.filter(pl.col("kept"))["constraints"].list.len().sum()) + int(excs["constraints"][used].list.len().sum())


@settings(max_examples=60, deadline=None)
@given(df=frames(max_rows=40), encoding=st.sampled_from(["av", "oh"]), tolerance=st.integers(0, 2))
def test_fired_matrix_is_each_rules_cover(df: pl.DataFrame, encoding: str, tolerance: int) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = findrs.fit(
            df, "y", True, auto=False, method="find-rs", random_state=0,
            settings=dict(encoding=encoding, tolerance=tolerance),
        )
    rows = codes_of(df, m)
    fired = m._fired_matrix([np.array(c, dtype=np.uint32) for c in zip(*rows)])
    domains = domains_of(m)
    want = np.array([[reference.rule_covers(r, row, domains, encoding) for r in reference.rules_of(m)]
                     for row in rows], dtype=bool).reshape(len(rows), m.n_rules)
    assert np.array_equal(fired, want)
    # A FIND-RS model is positive exactly where some rule fires; the columns count the training rows.
    assert np.array_equal(fired.any(axis=1), m.predict(df, labels=False).to_numpy())
    y = labels_of(df)
    assert fired[y].sum(axis=0).tolist() == m.rules["train_positives"].to_list()
    assert fired[~y].sum(axis=0).tolist() == m.rules["train_negatives"].to_list()


big = st.integers(0, 2**40)


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 2**40), st.integers(1, 2**40),
       st.lists(st.tuples(big, big), min_size=0, max_size=4), st.lists(st.tuples(big, big), min_size=0, max_size=4),
       st.booleans())
def test_exception_matrix_is_the_integer_rule(P: int, N: int, r: list, s: list, small: bool) -> None:
    if small:  # the int64 path
        P, N, r, s = P % 1000 + 1, N % 1000 + 1, [(a % 1000, b % 1000) for a, b in r], [(a % 1000, b % 1000) for a, b in s]
    got = exception_matrix(P, N, [a for a, _ in r], [b for _, b in r], [a for a, _ in s], [b for _, b in s])
    want = [[(a_s + 1) * P * (b_r + 1) >= (a_r + 1) * (b_s + 1) * N for a_s, b_s in s] for a_r, b_r in r]
    assert got.shape == (len(r), len(s)) and got.tolist() == want


def test_pairs_are_the_top_candidates_of_each_direction_on_one_encoding() -> None:
    df = _train("tic-tac-toe", 0.1)
    rec = _fit(df, 0, exceptions=False)._cv
    cands = rec["candidates"]
    pairs = exceptions_cv.exception_pairs(rec, 5)
    assert pairs[0] == exceptions_cv.exceptions_pick(rec) and len(pairs) == 25
    assert exceptions_cv.exception_pairs(rec) == [pairs[0]]  # the default: the first pair alone
    rank = lambda i: (sum(cands[i]["correct"]), -sum(cands[i]["conditions"]), -i)  # noqa: E731
    positives = sorted((i for i, c in enumerate(cands) if c["direction"] == "positive"), key=rank, reverse=True)
    assert [r for r, _ in pairs[::5]] == positives[:5]
    for r, s in pairs:
        assert cands[r]["direction"] == "positive" and cands[s]["direction"] == "negative"
        assert all(cands[r].get(k) == cands[s].get(k) for k in exceptions_cv.ENCODING_KEYS)
    assert exceptions_cv.exception_pairs(rec, 1) == [pairs[0]]


def test_pair_counts_are_the_exceptions_models_on_each_fold() -> None:
    # Oracle: for every pair and fold, the two FIND-RS fits of the candidates' settings on the
    # fold's training rows (the public fit, the fold's seed) combined by ExceptionsModel and
    # predicted through Polars.
    df, seed = _train("tic-tac-toe", 0.1), 0
    plain = _fit(df, seed, exceptions=False)
    counts = _pair_counts(df, plain, 5)
    rec = plain._cv
    y = df["class"].to_numpy()
    fold_of = _core.cv_folds(y, rec["folds"], seed, plain.params["cv_rows"])
    keys = ("encoding", "tolerance", "min_support", "direction", "simplify")
    for f in range(rec["folds"]):
        part = df.filter(pl.Series((fold_of != f) & (fold_of != UNSAMPLED)))
        held = df.filter(pl.Series(fold_of == f))
        fits = {i: _fit(part, _core.fold_seed(seed, f), auto=False, method="find-rs",
                        **{k: rec["candidates"][i][k] for k in keys}) for i in {i for p in counts for i in p}}
        for (r, s), per_fold in counts.items():
            m = ExceptionsModel(fits[r], fits[s])
            pred = m.predict(held, labels=False)
            conds = _conditions(m)
            assert per_fold[f] == [int((pred == held["class"]).sum()), held.height, m.n_rules, conds], (r, s, f)


def test_a_pair_other_than_the_first_can_win(monkeypatch) -> None:
    # With the top 5 x 5 pairs (not the default), and not vacuous: on this training half the
    # best pair is not the best of each direction, and it scores more held-out rows than that
    # first pair (the model exceptions=True fits), which the default keeps.
    df, seed = _train("tic-tac-toe", 0.1), 0
    plain = _fit(df, seed, exceptions=False)
    default = _fit(df, seed)
    monkeypatch.setattr(exceptions_cv, "EXCEPTION_PAIRS", 5)
    rec = plain._cv
    counts = _pair_counts(df, plain)
    best, first = exceptions_cv.best_pair(counts), exceptions_cv.exceptions_pick(rec)
    score = {p: sum(c[0] for c in v) for p, v in counts.items()}
    plain_cv = sum(rec["candidates"][rec["chosen"]]["correct"])
    assert best != first and score[best] > score[first] and score[best] > plain_cv
    m = _fit(df, seed)
    assert isinstance(m, ExceptionsModel)
    keys = ("encoding", "tolerance", "min_support", "simplify")
    assert {k: m.rules_model.params[k] for k in keys} == {k: rec["candidates"][best[0]][k] for k in keys}
    assert {k: m.exception_model.params[k] for k in keys} == {k: rec["candidates"][best[1]][k] for k in keys}
    assert isinstance(default, ExceptionsModel)
    for part, i in ((default.rules_model, first[0]), (default.exception_model, first[1])):
        assert {k: part.params[k] for k in keys} == {k: rec["candidates"][i][k] for k in keys}


def test_a_winner_over_the_rule_budget_keeps_the_model_without(monkeypatch) -> None:
    df, seed = _train("tic-tac-toe", 0.1), 0
    m = _fit(df, seed)
    assert isinstance(m, ExceptionsModel) and m.n_rules <= exceptions_cv.MAX_VOTING_RULES
    monkeypatch.setattr(exceptions_cv, "MAX_VOTING_RULES", m.n_rules)  # at the budget: kept
    assert _fit(df, seed).to_json() == m.to_json()
    monkeypatch.setattr(exceptions_cv, "MAX_VOTING_RULES", m.n_rules - 1)  # over it: the model without
    assert _fit(df, seed).to_json() == _fit(df, seed, exceptions=False).to_json()


def test_pair_counts_do_not_depend_on_the_threads() -> None:
    # The fold fits run on n_jobs threads; each has its own seed, so the counts are the same.
    df, seed = _train("tic-tac-toe", 0.1), 0
    plain = _fit(df, seed, exceptions=False)
    y, tgt, variant = _variant(df, plain)
    pairs = exceptions_cv.exception_pairs(plain._cv, 3)
    one, two = (exceptions_cv.pair_counts(y, tgt, plain._cv, plain.params, pairs, variant, n) for n in (1, 2))
    assert one == two and len(one) == 9
