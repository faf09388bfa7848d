"""Rules with exceptions chosen by the default fit's cross-validation (docs/semantics.md §9.6,
``exceptions="auto"``, the default with automatic settings): the rules-with-exceptions model of
the record's own candidates is scored on the same folds and chosen only on strictly more
held-out rows right; otherwise the fit is byte for byte the model without exceptions."""

from __future__ import annotations

import json
import warnings

import numpy as np
import polars as pl
import pytest

import findrs
from findrs import ExceptionsModel, FindRSInputError, RuleSetModel, _core
from findrs.learning import exceptions_cv
from findrs.learning.learn import _encode_variant
from findrs.models.rule_set_parts import UNSAMPLED
from findrs.data.target import binarize

pytestmark = pytest.mark.filterwarnings("ignore::findrs.ContradictionWarning")


def _train(name: str, noise: float, seed: int = 0) -> pl.DataFrame:
    from experiments.noisy import flip_labels

    df = findrs.datasets.tic_tac_toe() if name == "tic-tac-toe" else findrs.datasets.monks(2)
    positive = "positive" if name == "tic-tac-toe" else 1
    train, _ = findrs.datasets.train_test_split(df, 0.5, seed=seed)
    return flip_labels(train.with_columns(pl.col("class") == positive), noise, seed)


def _fit(df: pl.DataFrame, seed: int, **kw: object) -> RuleSetModel | ExceptionsModel:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # max_rules=None: the exceptions are tried at the accuracy-first end (docs/semantics.md §9.6).
        return findrs.fit(df, "class", True, **findrs.settings.fit_keywords(dict(random_state=seed, max_rules=None, **kw)))


def _variant(df: pl.DataFrame, plain: RuleSetModel):
    y, tgt = binarize(df, "class", True)
    features = [c for c in df.columns if c != "class"]
    p = plain.params

    def variant(c: dict) -> tuple:
        return _encode_variant(df, features, y, {**p, "bin_edges": c.get("bin_edges", p["bin_edges"]),
                                                 "numeric": c.get("numeric", p["numeric"])})

    return y, tgt, variant


def _counts(df: pl.DataFrame, plain: RuleSetModel) -> tuple[tuple[int, int], list[list[int]]]:
    """The pick and per-fold counts of the first rules-with-exceptions pair of ``plain``'s record."""
    y, tgt, variant = _variant(df, plain)
    pick = exceptions_cv.exceptions_pick(plain._cv)
    assert pick is not None
    return pick, exceptions_cv.fold_counts(y, tgt, plain._cv, plain.params, pick, variant)


def _pair_counts(df: pl.DataFrame, plain: RuleSetModel, k: int | None = None) -> dict[tuple[int, int], list[list[int]]]:
    """Per-fold counts of every pair the choice scores (of the top ``k`` of each direction)."""
    y, tgt, variant = _variant(df, plain)
    pairs = exceptions_cv.exception_pairs(plain._cv, k)
    return exceptions_cv.pair_counts(y, tgt, plain._cv, plain.params, pairs, variant)


CASES = [("tic-tac-toe", 0.1, 0), ("tic-tac-toe", 0.0, 0), ("monk-2", 0.0, 0), ("monk-2", 0.1, 1)]


@pytest.mark.parametrize("name,noise,seed", CASES)
def test_the_choice_follows_the_cv_scores(name: str, noise: float, seed: int) -> None:
    df = _train(name, noise, seed)
    plain = _fit(df, seed, exceptions=False)
    default = _fit(df, seed)
    counts = _pair_counts(df, plain)
    rec = plain._cv
    assert list(counts) == exceptions_cv.exception_pairs(rec) == [exceptions_cv.exceptions_pick(rec)]
    best = exceptions_cv.best_pair(counts)
    score = {p: sum(c[0] for c in v) for p, v in counts.items()}
    assert score[best] == max(score.values())
    plain_cv = sum(rec["candidates"][rec["chosen"]]["correct"])
    exc_cv = score[best]
    if exc_cv <= plain_cv:  # a tie too: the plain model, byte for byte
        assert isinstance(default, RuleSetModel)
        assert default.to_json() == plain.to_json()
        return
    assert isinstance(default, ExceptionsModel)
    # The two rule sets are the pair's candidates (their support left rules here) fitted on every row.
    keys = ("encoding", "tolerance", "min_support", "simplify")
    for part, i in ((default.rules_model, best[0]), (default.exception_model, best[1])):
        assert {k: part.params[k] for k in keys} == {k: rec["candidates"][i][k] for k in keys}
    if best == exceptions_cv.exceptions_pick(rec):
        # The first pair is the model exceptions=True fits (its own cross-validations).
        explicit = _fit(df, seed, exceptions=True)
        assert isinstance(explicit, ExceptionsModel)
        assert default.rules_model.rules["text"].to_list() == explicit.rules_model.rules["text"].to_list()
        assert default.exception_model.rules["text"].to_list() == explicit.exception_model.rules["text"].to_list()
        assert default.exceptions_of == explicit.exceptions_of
    # cv_results: every candidate of the plain fit, then the chosen rules-with-exceptions one.
    table = default.cv_results
    assert table.filter("exceptions").height == 1 and table.filter("chosen")["exceptions"].to_list() == [True]
    chosen = table.filter("chosen")
    assert chosen["cv_accuracy"][0] == pytest.approx(exc_cv / sum(c[1] for c in counts[best]))
    assert table.filter(~pl.col("exceptions")).drop("exceptions", "chosen").equals(
        plain.cv_results.drop("chosen"))
    assert chosen["cv_accuracy"][0] > table.filter(~pl.col("exceptions"))["cv_accuracy"].max() - 1e-12 or \
        exc_cv > plain_cv
    assert default.params["auto"][-1] == "exceptions"
    assert chosen["tolerance"][0] == str(default.rules_model.params["tolerance"])


def test_both_outcomes_occur_in_the_cases() -> None:
    # Not vacuous: the cases above include a fit that chooses exceptions and one that does not.
    kinds = {type(_fit(_train(n, z, s), s)).__name__ for n, z, s in CASES}
    assert kinds == {"ExceptionsModel", "RuleSetModel"}


def test_a_fold_count_is_a_fit_on_the_folds_training_rows() -> None:
    # Fold f's count is what the two FIND-RS fits of the candidates' settings on f's training
    # rows (the fold's seed), combined, get right on f's held-out rows.
    df, seed = _train("tic-tac-toe", 0.1), 0
    plain = _fit(df, seed, exceptions=False)
    pick, counts = _counts(df, plain)
    y = df["class"].to_numpy()
    rec = plain._cv
    fold_of = _core.cv_folds(y, rec["folds"], seed, plain.params["cv_rows"])
    r, s = (rec["candidates"][i] for i in pick)
    keys = ("encoding", "tolerance", "min_support", "direction", "simplify")
    for f in range(rec["folds"]):
        part = df.filter(pl.Series((fold_of != f) & (fold_of != UNSAMPLED)))
        held = df.filter(pl.Series(fold_of == f))
        rules, excs = (_fit(part, _core.fold_seed(seed, f), auto=False, method="find-rs",
                            **{k: c[k] for k in keys}) for c in (r, s))
        pred = ExceptionsModel(rules, excs).predict(held, labels=False)
        assert counts[f][0] == int((pred == held["class"]).sum())
        assert counts[f][1] == held.height


def test_a_tie_keeps_the_plain_model(monkeypatch) -> None:
    df, seed = _train("tic-tac-toe", 0.1), 0
    plain = _fit(df, seed, exceptions=False)
    rec = plain._cv
    best = rec["candidates"][rec["chosen"]]
    tie = [[a, b, 1, 1] for a, b in zip(best["correct"], best["rows"])]
    monkeypatch.setattr(exceptions_cv, "pair_counts",
                        lambda *a, **k: {p: [list(c) for c in tie] for p in exceptions_cv.exception_pairs(rec)})
    assert _fit(df, seed).to_json() == plain.to_json()
    tie[0][0] += 1  # one held-out row more: the exceptions model
    assert isinstance(_fit(df, seed), ExceptionsModel)


def test_a_perfect_cv_score_skips_the_pairs_and_keeps_the_plain_model(monkeypatch) -> None:
    # Every held-out row right: no pair can score strictly more, so the choice returns the
    # plain model without counting pairs, byte for byte the model the full path gives.
    df, seed = _train("tic-tac-toe", 0.0), 0
    plain = _fit(df, seed, exceptions=False)
    best = plain._cv["candidates"][plain._cv["chosen"]]
    assert sum(best["correct"]) == sum(best["rows"])
    counted = []
    real = exceptions_cv.pair_counts
    monkeypatch.setattr(exceptions_cv, "pair_counts", lambda *a, **k: counted.append(1) or real(*a, **k))
    assert _fit(df, seed).to_json() == plain.to_json() and not counted
    # The pairs the shortcut skips score at most every held-out row (so never strictly more).
    counts = _pair_counts(df, plain, 3)
    assert counts and max(sum(c[0] for c in v) for v in counts.values()) <= sum(best["rows"])
    counted.clear()
    _fit(_train("tic-tac-toe", 0.1), seed)
    assert counted  # an imperfect score counts the pairs


def test_the_paper_settings_never_choose_exceptions() -> None:
    df = _train("tic-tac-toe", 0.1)
    assert isinstance(_fit(df, 0, auto=False), RuleSetModel)
    with pytest.raises(FindRSInputError, match="exceptions='auto' is chosen by the cross-validation"):
        _fit(df, 0, auto=False, exceptions="auto")
    # A method other than FIND-RS and a direction given leave nothing to choose.
    assert isinstance(_fit(df, 0, method="bp", T=5), RuleSetModel)
    assert isinstance(_fit(df, 0, direction="positive"), RuleSetModel)


def _no_exception_frame(n_neg: int) -> pl.DataFrame:
    """20 positives ``x = a``; negatives each with a value of its own: every negative rule covers
    one row and is less precise than the rule ``x = a``."""
    xs = ["a"] * 20 + [f"n{i}" for i in range(n_neg)]
    return pl.DataFrame({"x": xs, "class": [True] * 20 + [False] * n_neg})


def test_exceptions_true_falls_back_to_the_rules() -> None:
    df = _no_exception_frame(3)
    plain = _fit(df, 0, auto=False, min_support=5)
    # The exception rules' support leaves none: the rules alone (before, this raised).
    m = _fit(df, 0, auto=False, min_support=5, exceptions=True)
    assert isinstance(m, RuleSetModel) and m.to_json() == plain.to_json()
    # Exception rules, but none as precise as a rule: the rules alone.
    m = _fit(df, 0, auto=False, exceptions=True)
    assert isinstance(m, RuleSetModel) and m.to_json() == _fit(df, 0, auto=False).to_json()


@pytest.fixture(scope="module")
def chosen() -> ExceptionsModel:
    m = _fit(_train("tic-tac-toe", 0.1), 0)
    assert isinstance(m, ExceptionsModel)
    return m


def test_print_markdown_and_notebook_say_exceptions_won(chosen) -> None:
    for text in (str(chosen), chosen.to_markdown(), chosen._repr_html_()):
        assert "rules with exceptions won it" in text
        assert "exceptions=False fits that one" in text
    assert "tolerance=0.2" in str(chosen).splitlines()[1]


def test_a_chosen_exceptions_model_lists_no_method_it_cannot_run(chosen) -> None:
    # One model type (findrs.Model): a kind that lacks a capability does not list it.
    for name in ("decision_expr", "score_expr", "strength_expr", "explain_expr", "why_not_expr", "with_n_rules",
                 "pruning_curve"):
        assert not hasattr(chosen, name), name
    assert isinstance(chosen, findrs.Model)


def test_the_choice_survives_json_and_is_checked_on_load(chosen) -> None:
    back = ExceptionsModel.from_json(chosen.to_json())
    assert back.cv_results.equals(chosen.cv_results)
    assert back.params["auto"] == chosen.params["auto"] and str(back) == str(chosen)
    doc = json.loads(chosen.to_json())
    won = sum(doc["chosen"]["cv"]["candidates"][-1]["correct"])
    for damage, message in [
        (lambda d: d["chosen"].update(plain_cv=won), "plain_cv"),
        (lambda d: d["chosen"]["cv"]["candidates"][-1].update(exceptions=False), "exceptions must be true"),
        (lambda d: d["chosen"]["cv"]["candidates"][-1].update(tolerance=0.4), "settings are not the rules'"),
        (lambda d: d["chosen"].update(auto=["tolerance"]), "'exceptions' last"),
    ]:
        d = json.loads(chosen.to_json())
        damage(d)
        with pytest.raises(FindRSInputError, match=message):
            ExceptionsModel.from_json(json.dumps(d))
    # A file of exceptions=True (no choice recorded) has no table.
    explicit = _fit(_train("tic-tac-toe", 0.1), 0, exceptions=True)
    assert explicit.cv_results is None and "chosen" not in json.loads(explicit.to_json())
    assert np.array_equal(back.predict(_train("tic-tac-toe", 0.0), labels=False).to_numpy(),
                          chosen.predict(_train("tic-tac-toe", 0.0), labels=False).to_numpy())


def test_chosen_exceptions_keep_the_best_run_as_exceptions_true_does() -> None:
    # Here the default's winner is not the exceptions' rules candidate, so the rules are fitted
    # again: they keep the best of the final fit's runs (docs/semantics.md §5.3) as
    # exceptions=True's do (run 6 here, not run 0), and the exception rules are one run.
    df = _train("tic-tac-toe", 0.2, 1)
    m, explicit = _fit(df, 1), _fit(df, 1, exceptions=True)
    assert isinstance(m, ExceptionsModel) and isinstance(explicit, ExceptionsModel)
    assert m.rules_model.params["run"] == explicit.rules_model.params["run"] != 0
    assert m.rules_model.rules.equals(explicit.rules_model.rules)
    assert m.exception_model.params["best_of"] == 1
    assert m.exception_model.rules.equals(explicit.exception_model.rules)


def test_the_fold_pool_is_kept_and_a_failed_fit_leaves_no_fit_running(monkeypatch) -> None:
    # exceptions_cv keeps one fold pool per (process, thread count); an error in one fold fit
    # propagates, the fits not started are dropped and the running ones finish before the call
    # returns, and the kept pool serves the next call with the same counts.
    import threading
    import time

    df = _train("tic-tac-toe", 0.1)
    plain = _fit(df, 0, exceptions=False)
    first = _pair_counts(df, plain, 3)
    assert exceptions_cv._pool(None) is exceptions_cv._pool(None)
    real, lock = exceptions_cv._fold_model, threading.Lock()
    state = {"calls": 0, "running": 0}

    def flaky(*args: object):
        with lock:
            state["calls"] += 1
            state["running"] += 1
            call = state["calls"]
        try:
            if call == 3:
                raise RuntimeError("fold fit failed")
            time.sleep(0.01)
            return real(*args)
        finally:
            with lock:
                state["running"] -= 1

    monkeypatch.setattr(exceptions_cv, "_fold_model", flaky)
    with pytest.raises(RuntimeError, match="fold fit failed"):
        _pair_counts(df, plain, 3)
    assert state["running"] == 0
    monkeypatch.setattr(exceptions_cv, "_fold_model", real)
    assert _pair_counts(df, plain, 3) == first


def test_rules_over_the_cap_keep_the_plain_model_without_fitting_the_exception_rules(monkeypatch) -> None:
    # The voting rules of rules with exceptions are the rules plus the exception rules that
    # override one: rules already over MAX_VOTING_RULES can only give the plain model, so the
    # exception rules are not fitted; the model is the one the full path returns.
    df, seed = _train("tic-tac-toe", 0.1), 0
    assert isinstance(_fit(df, seed), ExceptionsModel)  # under the cap: exceptions win here
    plain = _fit(df, seed, exceptions=False)
    monkeypatch.setattr(exceptions_cv, "MAX_VOTING_RULES", 0)  # every rule set is over it
    fitted: list[str] = []  # the direction of each final fit: the rules', then the exception rules'
    real = exceptions_cv._final

    def final(variant, y, tgt, rec, ids, *a, **k):
        fitted.append(rec["candidates"][ids[0]]["direction"])
        return real(variant, y, tgt, rec, ids, *a, **k)

    monkeypatch.setattr(exceptions_cv, "_final", final)
    assert _fit(df, seed).to_json() == plain.to_json()
    assert len(fitted) <= 1 and fitted.count("negative") == 0  # never the exception rules
    # Under the cap the exception rules are fitted (their final fit is the last one).
    monkeypatch.setattr(exceptions_cv, "MAX_VOTING_RULES", 10**6)
    fitted.clear()
    assert isinstance(_fit(df, seed), ExceptionsModel) and fitted[-1] == "negative"
