"""Property tests of simplification (``simplify=True``) and of the rule budget (``max_rules``)."""

from __future__ import annotations

import copy
import json

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import findrs
from strategies import frames, labels_of

pytestmark = pytest.mark.filterwarnings("ignore::findrs.ContradictionWarning")

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _conditions(model) -> list[dict[str, tuple]]:
    """Each rule's constraints as {feature: allowed values}."""
    return [
        {c["feature"]: tuple(c["values"]) for c in rule}
        for rule in model.rules["constraints"].to_list()
    ]


# With tolerance 0 and no contradictions a simplified FIND-RS model is still consistent: it
# covers every training positive and no training negative.
@SETTINGS
@given(df=frames(consistent=True), seed=st.integers(0, 2**32), encoding=st.sampled_from(["av", "oh"]))
def test_simplified_tau0_model_is_consistent(df: pl.DataFrame, seed: int, encoding: str) -> None:
    model = findrs.fit(df, "y", random_state=seed, auto=False, settings=dict(encoding=encoding, simplify=True))
    np.testing.assert_array_equal(model.predict(df, labels=False).to_numpy(), labels_of(df))
    assert (model.rules["train_negatives"] == 0).all()


# Any tolerance, contradictions allowed: every training positive stays covered; without
# contradictions every rule covers at most `tolerance` training negatives and a training positive
# no other rule covers; no rule is longer than the longest of the run, and the
# model has no more rules and conditions than the unsimplified one (docs/semantics.md §8). A
# re-grown rule may use conditions the original rules did not have.
@SETTINGS
@given(
    df=frames(allow_float=True, other_dtypes=True),
    tau=st.integers(0, 3),
    seed=st.integers(0, 2**32),
    encoding=st.sampled_from(["av", "oh"]),
)
def test_simplified_rules_keep_the_guarantees(df: pl.DataFrame, tau: int, seed: int, encoding: str) -> None:
    y = labels_of(df)
    kw = dict(encoding=encoding, tolerance=tau, random_state=seed)
    plain = findrs.fit(df, "y", **findrs.settings.fit_keywords(dict(**kw, auto=False)))
    model = findrs.fit(df, "y", **findrs.settings.fit_keywords(dict(**kw, auto=False, settings=dict(simplify=True))))
    assert model.predict(df, labels=False).to_numpy()[y].all()
    if model.contradictions == 0:
        assert (model.rules["train_negatives"] <= tau).all()
    originals = _conditions(plain)
    rules = _conditions(model)
    assert max(map(len, rules)) <= max(map(len, originals))
    if model.contradictions == 0:
        # Each rule covers a training positive that no other rule covers.
        fired = model.explain(df)["fired_rules"].to_list()
        alone = {f[0] for f, positive in zip(fired, y) if positive and len(f) == 1}
        assert alone == set(range(model.n_rules))
    assert model.n_rules <= plain.n_rules
    assert sum(map(len, _conditions(model))) <= sum(map(len, originals))


# A column with one value in training excludes no training row: no simplified rule keeps it.
@SETTINGS
@given(df=frames(), seed=st.integers(0, 2**32), method=st.sampled_from(["find-rs", "bp"]))
def test_constant_columns_never_survive(df: pl.DataFrame, seed: int, method: str) -> None:
    df = df.with_columns(pl.lit("same").alias("constant"))
    model = findrs.fit(df, "y", method=method, random_state=seed, auto=False, settings=dict(T=5, simplify=True))
    assert all("constant" not in rule for rule in _conditions(model))


# Simplification and the budget depend on the data and random_state only, not on threads.
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(df=frames(), seed=st.integers(0, 2**32), max_rules=st.sampled_from([None, 1, 3]))
def test_simplified_bp_and_budget_are_deterministic(df: pl.DataFrame, seed: int, max_rules) -> None:
    kw = dict(method="bp", T=8, random_state=seed, simplify=True, max_rules=max_rules)
    a = findrs.fit(df, "y", **findrs.settings.fit_keywords(dict(n_jobs=1, **kw, auto=False)))
    b = findrs.fit(df, "y", **findrs.settings.fit_keywords(dict(n_jobs=2, **kw, auto=False)))
    assert a.rules["text"].to_list() == b.rules["text"].to_list()
    assert a.rules["weight"].to_list() == b.rules["weight"].to_list()


# The budget: at most N voting rules, and on the training data at least as accurate as the
# top-N vote of the BP model it comes from.
@SETTINGS
@given(df=frames(min_rows=20), seed=st.integers(0, 2**32), n=st.integers(1, 4), simplify=st.booleans())
def test_budget_beats_the_top_n_vote_on_training_data(df: pl.DataFrame, seed: int, n: int, simplify: bool) -> None:
    kw = dict(method="bp", T=10, random_state=seed, simplify=simplify)
    full = findrs.fit(df, "y", **findrs.settings.fit_keywords(dict(**kw, auto=False)))
    budget = findrs.fit(df, "y", **findrs.settings.fit_keywords(dict(max_rules=n, **kw, auto=False)))
    assert budget.n_rules <= n
    if full.n_rules > n:
        assert budget.score(df) >= full.with_n_rules(n).score(df)
    else:
        assert budget.rules["text"].to_list() == full.rules["text"].to_list()


# A budget model keeps the method and T it was fit with, and its params say how it was made; a
# budget's DNF of BO or BP rules votes as FIND-RS does (any rule), survives JSON, and refuses
# what only a top-K vote can do.
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(df=frames(min_rows=20), seed=st.integers(0, 2**32), n=st.integers(1, 3), method=st.sampled_from(["find-rs", "bo", "bp"]))
def test_a_budget_model_is_what_its_params_say(df: pl.DataFrame, seed: int, n: int, method: str) -> None:
    kw = dict(method=method, T=6, random_state=seed)
    full = findrs.fit(df, "y", **findrs.settings.fit_keywords(dict(**kw, auto=False)))
    model = findrs.fit(df, "y", **findrs.settings.fit_keywords(dict(max_rules=n, **kw, auto=False)))
    assert (model.method, model.T) == (method, full.T)
    assert (model.params["method"], model.params["T"], model.params["max_rules"]) == (method, model.T, n)
    assert model.n_rules <= n
    again = findrs.RuleSetModel.from_json(model.to_json())
    assert str(again) == str(model) and again.params == model.params
    assert again.predict(df).to_list() == model.predict(df).to_list()
    assert again.decision_function(df).to_list() == model.decision_function(df).to_list()
    if full.n_rules <= n:
        assert model.rules.equals(full.rules) and "rule budget" not in str(model)
        return
    assert "rule budget: training accuracy" in str(model)
    top_vote = False
    if method == "bp":
        try:
            model.with_n_rules(1)
            top_vote = True
        except findrs.FindRSInputError as e:
            assert "rule budget" in str(e)
    if top_vote:
        # BP's top-n vote beat the DNF: every rule found, n of them voting.
        assert (model.n_rules, model.n_rules_found) == (n, full.n_rules_found)
        assert model.with_n_rules(model.n_rules_found).params["max_rules"] is None
        return
    # A DNF: positive exactly where one of its rules fires.
    v = model.vote
    assert (v.threshold, v.max_votes, v.groups) == (0, 1, (tuple(range(model.n_rules)),))
    fired = model.explain(df)["fired_rules"].to_list()
    np.testing.assert_array_equal(model.predict(df, labels=False).to_numpy(), [len(f) > 0 for f in fired])
    assert model.n_rules == model.n_rules_found
    if method == "bp":
        with pytest.raises(findrs.FindRSInputError, match="rule budget"):
            model.pruning_curve(df)


def test_budget_params_are_checked_on_load() -> None:
    df = findrs.datasets.tic_tac_toe()
    model = findrs.fit(df, "class", "positive", method="bp", random_state=0, max_rules=2, auto=False, settings=dict(T=10))
    assert "positive when any of these 2 rules holds (rule budget" in str(model)
    doc = json.loads(model.to_json())
    for max_rules, needle in ((None, "max_rules = None"), (1, "max_rules = 1 but 2 rules vote")):
        bad = copy.deepcopy(doc)
        bad["params"]["max_rules"] = max_rules
        with pytest.raises(findrs.FindRSInputError, match=needle):
            findrs.RuleSetModel.from_json(json.dumps(bad))
    bad = copy.deepcopy(doc)
    bad["training"]["budget"]["correct"] = 10**6
    with pytest.raises(findrs.FindRSInputError, match="budget"):
        findrs.RuleSetModel.from_json(json.dumps(bad))


def test_files_without_the_new_parameters_load_as_fits_without_them() -> None:
    df = findrs.datasets.tic_tac_toe()
    model = findrs.fit(df, "class", "positive", method="bp", random_state=0, auto=False, settings=dict(T=5))
    doc = json.loads(model.to_json())
    del doc["params"]["simplify"], doc["params"]["max_rules"]
    back = findrs.RuleSetModel.from_json(json.dumps(doc))
    assert back.params == model.params
    assert (back.params["simplify"], back.params["max_rules"]) == (False, None)


def test_the_classifier_takes_simplify_and_max_rules() -> None:
    from findrs.sklearn import FindRSClassifier

    df = findrs.datasets.tic_tac_toe()
    X, y = df.drop("class"), df["class"].to_numpy()
    clf = FindRSClassifier(random_state=0, max_rules=3, auto=False, settings=dict(T=10, simplify=True)).fit(X, y)
    assert clf.get_params()["settings"]["simplify"] is True and clf.get_params()["max_rules"] == 3
    assert clf.model_.params["simplify"] and clf.model_.n_rules <= 3
    proba = clf.predict_proba(X)[:, 1]
    np.testing.assert_array_equal(proba > 0.5, clf.predict(X) == clf.classes_[1])


def test_bad_simplify_and_max_rules_are_refused() -> None:
    df = findrs.datasets.tic_tac_toe()
    with pytest.raises(findrs.FindRSInputError, match="simplify"):
        findrs.fit(df, "class", "positive", auto=False, settings=dict(simplify="yes"))
    with pytest.raises(findrs.FindRSInputError, match="max_rules"):
        findrs.fit(df, "class", "positive", max_rules=0, auto=False)


def test_tic_tac_toe_stays_the_eight_lines() -> None:
    df = findrs.datasets.tic_tac_toe()
    plain = findrs.fit(df, "class", "positive", auto=False, settings=dict(shuffle=False))
    model = findrs.fit(df, "class", "positive", auto=False, settings=dict(shuffle=False, simplify=True))
    assert model.rules["text"].to_list() == plain.rules["text"].to_list()
    assert model.n_rules == 8 and all(len(r) == 3 for r in _conditions(model))
