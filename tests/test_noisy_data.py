"""Tolerance as a share, minimum support, class direction and automatic settings
(docs/semantics.md §9): their guarantees as properties of fitted models, their parameters and
their model files."""

from __future__ import annotations

import json
import math

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import findrs
from findrs import FindRSInputError
from strategies import frames, labels_of

pytestmark = pytest.mark.filterwarnings("ignore::findrs.ContradictionWarning")

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
METHODS = ("find-rs", "bo", "bp")


# semantics §9.1: under a share every rule has training precision at least 1 - epsilon or covers no
# negative, a rule of one positive included (a positive whose identical rows fail the test makes no
# rule); a fit where every positive's identical rows fail it has no rule and says so.
@SETTINGS
@given(df=frames(max_rows=80), eps=st.sampled_from([0.05, 0.1, 0.2, 0.3, 0.5, 0.9]),
       method=st.sampled_from(METHODS), encoding=st.sampled_from(["av", "oh"]), seed=st.integers(0, 2**32))
def test_share_tolerance_bounds_each_rule_precision(df: pl.DataFrame, eps: float, method: str, encoding: str,
                                                   seed: int) -> None:
    try:
        model = findrs.fit(
            df, "y", method=method, random_state=seed, auto=False,
            settings=dict(T=5, encoding=encoding, tolerance=eps, n_rules=None),
        )
    except FindRSInputError as e:
        assert f"tolerance = {eps} leaves no rule" in str(e)
        features = [c for c in df.columns if c != "y"]
        own = df.group_by(features).agg(n=(~pl.col("y")).sum(), p=pl.col("y").sum()).filter(pl.col("p") > 0)
        # The share test in the core's exact arithmetic (docs/semantics.md §9.1): n * 2^32 <= e (n + p),
        # e = floor(epsilon * 2^32); a float product would pass a group at exactly the share.
        e = math.floor(eps * 2**32)
        assert all(n * 2**32 > e * (n + p) for n, p in zip(own["n"].to_list(), own["p"].to_list()))
        return
    rules = model.rules
    for i, (p, n) in enumerate(zip(rules["train_positives"], rules["train_negatives"])):
        assert n == 0 or n / (n + p) <= eps, f"rule {i}: {p} positives, {n} negatives, epsilon {eps}"


# semantics §9.1: a positive whose identical training rows are mostly negative is left out under a
# share (the paper's absolute tolerance still makes it a rule of its own).
def test_share_leaves_out_a_positive_whose_own_rows_fail() -> None:
    df = pl.DataFrame({"a": ["x", "x", "x", "x", "y", "y", "z"], "b": ["u", "u", "u", "u", "v", "w", "v"],
                       "y": [True, False, False, False, True, True, False]})
    kw = dict(method="find-rs", shuffle=False, auto=False, encoding="av")
    share = findrs.fit(df, "y", **findrs.settings.fit_keywords(dict(**kw, settings=dict(tolerance=0.2))))
    assert share.predict(df.filter(pl.col("a") == "x").head(1), labels=False).to_list() == [False]
    assert (share.rules["train_negatives"] == 0).all()
    paper = findrs.fit(df, "y", **findrs.settings.fit_keywords(dict(**kw, settings=dict(tolerance=0))))
    assert paper.predict(df.filter(pl.col("a") == "x").head(1), labels=False).to_list() == [True]


# semantics §9.1: tolerance 0, 0.0 and the paper's tau = 0 are one and the same algorithm.
@SETTINGS
@given(df=frames(), seed=st.integers(0, 2**32), method=st.sampled_from(METHODS))
def test_zero_share_is_the_paper(df: pl.DataFrame, seed: int, method: str) -> None:
    a = findrs.fit(df, "y", method=method, random_state=seed, auto=False, settings=dict(T=5, tolerance=0))
    b = findrs.fit(df, "y", method=method, random_state=seed, auto=False, settings=dict(T=5, tolerance=0.0))
    assert a.rules.drop("id").equals(b.rules.drop("id"))
    assert a.params["tolerance"] == b.params["tolerance"] == 0


# semantics §9.2: with min_support = s every rule covers at least s training positives; s <= 1
# changes nothing; a support that leaves no rule at all is an error saying so.
@SETTINGS
@given(df=frames(max_rows=80), s=st.integers(0, 6), method=st.sampled_from(METHODS),
       tol=st.sampled_from([0, 1, 0.2]), seed=st.integers(0, 2**32))
def test_min_support(df: pl.DataFrame, s: int, method: str, tol, seed: int) -> None:
    kw = dict(method=method, T=5, tolerance=tol, random_state=seed, n_rules=None)
    try:
        model = findrs.fit(df, "y", **findrs.settings.fit_keywords(dict(**kw, auto=False, settings=dict(min_support=s))))
    except FindRSInputError as e:
        # Or, under a share, every positive's own rows fail it and no rule is made (§9.1).
        share = isinstance(tol, float) and s <= 1 and f"tolerance = {tol} leaves no rule" in str(e)
        assert share or (s > 1 and f"min_support = {s} leaves no rule" in str(e))
        return
    assert (model.rules["train_positives"] >= s).all()
    if s <= 1:
        plain = findrs.fit(df, "y", **findrs.settings.fit_keywords(dict(**kw, auto=False)))
        assert model.rules.equals(plain.rules)


# semantics §9.2: a supported FIND-RS model still covers every training positive that a kept rule of
# the plain run (the same run, pruned without the filter) with support >= s covered.
@SETTINGS
@given(df=frames(max_rows=80), s=st.integers(2, 5), shuffle=st.booleans(), seed=st.integers(0, 2**32))
def test_min_support_keeps_supported_coverage(df: pl.DataFrame, s: int, shuffle: bool, seed: int) -> None:
    plain = findrs.fit(df, "y", random_state=seed, auto=False, settings=dict(shuffle=shuffle))
    try:
        supported = findrs.fit(df, "y", random_state=seed, auto=False, settings=dict(shuffle=shuffle, min_support=s))
    except FindRSInputError:
        return
    y = labels_of(df)
    covered_after = supported.predict(df, labels=False).to_numpy()
    # The plain model's rules are the run's rules after prune; those with support >= s are among the
    # run's supported rules, whose positives stay covered.
    strong = [i for i, p in enumerate(plain.rules["train_positives"]) if p >= s]
    if strong:
        strong_mask = np.zeros(df.height, dtype=bool)
        for i in strong:
            strong_mask |= np.asarray(plain.explain(df)["fired_rules"].list.contains(i))
        assert covered_after[y & strong_mask].all()


# semantics §9.3: direction="negative" learns the rules of the other class: the same model as
# positive=<the other label>, predicting the same labels.
@SETTINGS
@given(df=frames(), method=st.sampled_from(METHODS), seed=st.integers(0, 2**32))
def test_negative_direction_is_the_other_class(df: pl.DataFrame, method: str, seed: int) -> None:
    d = df.with_columns(pl.when(pl.col("y")).then(pl.lit("yes")).otherwise(pl.lit("no")).alias("y"))
    neg = findrs.fit(d, "y", "yes", method=method, random_state=seed, auto=False, settings=dict(direction="negative", T=5))
    other = findrs.fit(d, "y", "no", method=method, random_state=seed, auto=False, settings=dict(T=5))
    assert neg.target.positive == "no" and neg.target.negative == "yes"
    assert neg.rules.equals(other.rules)
    assert neg.predict(d).to_list() == other.predict(d).to_list()
    assert neg.params["direction"] == "negative"


def test_direction_needs_two_classes() -> None:
    df = pl.DataFrame({"a": ["x", "y", "z", "x"], "y": ["p", "q", "r", "p"]})
    with pytest.raises(FindRSInputError, match="exactly two classes"):
        findrs.fit(df, "y", "p", auto=False, settings=dict(direction="negative"))
    with pytest.raises(FindRSInputError, match="direction must be"):
        findrs.fit(df, "y", "p", auto=False, settings=dict(direction="up"))


@pytest.mark.parametrize("bad", [1.0, -0.1, 1.5, float("nan"), "0.1", True, None])
def test_bad_tolerance_is_refused(bad) -> None:
    df = findrs.datasets.tic_tac_toe()
    with pytest.raises(FindRSInputError, match="tolerance"):
        findrs.fit(df, "class", "positive", auto=False, settings=dict(tolerance=bad))


# --------------------------------------------------------------------------- #
# automatic settings
# --------------------------------------------------------------------------- #


AUTO = dict(tolerance="auto", min_support="auto", direction="auto", encoding="auto")


# The CV table lists every candidate once, exactly one is chosen, it has the best CV accuracy, and
# the model was fitted with its settings.
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(df=frames(min_rows=20, max_rows=80), method=st.sampled_from(METHODS), seed=st.integers(0, 2**32))
def test_auto_table_and_choice(df: pl.DataFrame, method: str, seed: int) -> None:
    y = labels_of(df)
    if min(y.sum(), (~y).sum()) < 2:
        with pytest.raises(FindRSInputError, match="cross-validation"):
            findrs.fit(df, "y", **findrs.settings.fit_keywords(dict(method=method, random_state=seed, **AUTO, auto=False, settings=dict(T=5))))
        return
    kw = dict(n_rules="cv") if method == "bp" else {}
    model = findrs.fit(df, "y", **findrs.settings.fit_keywords(dict(method=method, random_state=seed, **AUTO, **kw, auto=False, settings=dict(T=5))))
    table = model.cv_results
    params = {**AUTO, "simplify": False, "n_rules": "cv" if kw else None}
    cands = findrs.select.auto.candidates(params, n_positives=int(y.sum()), n_negatives=int((~y).sum()))
    assert table.height == len(cands)
    assert table["chosen"].sum() == 1
    chosen = int(table["chosen"].arg_max())
    best = table.row(chosen, named=True)
    for key in ("encoding", "min_support", "direction"):
        assert model.params[key] == best[key]
    assert str(model.params["tolerance"]) == best["tolerance"]
    assert model.params["auto"] == ["encoding", "tolerance", "min_support", "direction"] + (["n_rules"] if kw else [])

    def fixed(c: dict) -> findrs.RuleSetModel:
        return findrs.fit(
            df, "y", method=method, random_state=seed, auto=False,
            settings=dict(T=5, encoding=c["encoding"], tolerance=c["tolerance"], min_support=c["min_support"], direction=c["direction"], n_rules=c["n_rules"], best_of=model.params["best_of"]),
        )

    # The chosen candidate is the best by held-out rows right, then fewer conditions, then order,
    # among those whose fit on all rows keeps a rule: every better one leaves none.
    rec = model._cv["candidates"]
    key = [(sum(c["correct"]), -sum(c["conditions"]), -i) for i, c in enumerate(rec)]
    for i, c in enumerate(cands):
        if key[i] > key[chosen]:
            with pytest.raises(FindRSInputError, match="leaves no rule"):
                fixed(c)
    # Fitting with the chosen settings fixed gives the same model, once its features of one
    # training code are free as the automatic model's are (docs/semantics.md §2.1).
    assert fixed(cands[chosen])._freed(model.params).rules.equals(model.rules)


# Same data, parameters and random_state: the same automatic model for any number of threads.
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(df=frames(min_rows=20, max_rows=80), seed=st.integers(0, 2**32))
def test_auto_is_deterministic_for_any_thread_count(df: pl.DataFrame, seed: int) -> None:
    y = labels_of(df)
    if min(y.sum(), (~y).sum()) < 2:
        return
    a = findrs.fit(df, "y", **findrs.settings.fit_keywords(dict(method="bp", random_state=seed, n_jobs=1, **AUTO, auto=False, settings=dict(T=6, n_rules="cv"))))
    b = findrs.fit(df, "y", **findrs.settings.fit_keywords(dict(method="bp", random_state=seed, n_jobs=3, **AUTO, auto=False, settings=dict(T=6, n_rules="cv"))))
    assert a.to_json() == b.to_json()
    assert a.cv_results.equals(b.cv_results)


def test_auto_model_prints_and_round_trips() -> None:
    df = findrs.datasets.monks(3)
    model = findrs.fit(df, "class", **findrs.settings.fit_keywords(dict(method="bp", random_state=0, **AUTO, auto=False, settings=dict(T=10, n_rules="cv"))))
    text = str(model)
    assert "chosen by 5-fold cross-validation" in text
    back = findrs.RuleSetModel.from_json(model.to_json())
    assert back.cv_results.equals(model.cv_results)
    assert back.params == model.params
    assert back.predict(df).to_list() == model.predict(df).to_list()


def test_auto_parameters_are_checked() -> None:
    df = findrs.datasets.tic_tac_toe()
    with pytest.raises(FindRSInputError, match="needs method='bp'"):
        findrs.fit(df, "class", "positive", auto=False, settings=dict(n_rules="cv"))
    with pytest.raises(FindRSInputError, match="cv must be"):
        findrs.fit(df, "class", "positive", auto=False, settings=dict(tolerance="auto", cv=1))
    with pytest.raises(FindRSInputError, match="encoding must be"):
        findrs.fit(df, "class", "positive", auto=False, settings=dict(encoding="best"))


def test_auto_true_means_every_unset_setting_is_auto() -> None:
    df = findrs.datasets.monks(2)
    a = findrs.fit(df, "class", auto=True, max_rules=None, random_state=3, method="find-rs")
    b = findrs.fit(df, "class", **findrs.settings.fit_keywords(dict(random_state=3, **AUTO, auto=False, max_rules=None, settings=dict(simplify="auto"))))
    assert a.to_json() == b.to_json() and "method" not in b.params["auto"]  # the vote needs auto=True (§9.5)
    # auto=True is the default.
    assert findrs.fit(df, "class", max_rules=None, random_state=3, method="find-rs").to_json() == a.to_json()
    assert findrs.fit(df, "class", random_state=3).to_json() == findrs.fit(df, "class", auto=True, random_state=3).to_json()
    # An explicit value stays fixed.
    c = findrs.fit(df, "class", auto=True, max_rules=None, random_state=3, settings=dict(encoding="oh"))
    assert c.encoding == "oh" and "encoding" not in c.params["auto"]
    # Without auto, the defaults are the paper's.
    d = findrs.fit(df, "class", random_state=3, auto=False)
    assert (d.params["encoding"], d.params["tolerance"], d.params["min_support"], d.params["direction"]) == (
        "av", 0, 0, "positive")
    assert (d.params["auto"], d.params["cv"], d.params["cv_T"], d.cv_results) == ([], None, None, None)
    with pytest.raises(FindRSInputError, match="auto must be"):
        findrs.fit(df, "class", auto="yes")


def test_auto_true_on_one_class_against_the_rest_keeps_the_direction() -> None:
    df = pl.DataFrame({"a": ["x", "y", "z", "x", "y", "z"] * 5, "b": [1, 2, 3, 3, 2, 1] * 5,
                       "y": ["p", "q", "r", "p", "q", "r"] * 5})
    model = findrs.fit(df, "y", "p", auto=True, random_state=0)
    assert model.params["direction"] == "positive" and "direction" not in model.params["auto"]
    with pytest.raises(FindRSInputError, match="exactly two classes"):
        findrs.fit(df, "y", "p", auto=False, settings=dict(direction="auto"))


# --------------------------------------------------------------------------- #
# model files (JSON format version 2)
# --------------------------------------------------------------------------- #


@pytest.fixture(scope="module")
def auto_model() -> findrs.RuleSetModel:
    return findrs.fit(findrs.datasets.monks(2), "class", **findrs.settings.fit_keywords(dict(method="bp", random_state=1, **AUTO, auto=False, settings=dict(T=6, n_rules="cv", cv=3))))


def test_model_file_records_the_new_parameters_and_the_cross_validation(auto_model) -> None:
    d = json.loads(auto_model.to_json())
    assert set(d) == {"format", "version", "target", "features", "params", "training", "cv", "model"}
    p = d["params"]
    assert p["auto"] == ["encoding", "tolerance", "min_support", "direction", "n_rules"]
    assert (p["cv"], p["cv_T"]) == (3, 6)
    assert {"min_support", "direction"} <= set(p)
    rec = d["cv"]
    assert rec["folds"] == 3 and len(rec["candidates"]) == auto_model.cv_results.height
    assert sum(rec["candidates"][0]["rows"]) == d["training"]["rows"]
    back = findrs.RuleSetModel.from_json(auto_model.to_json())
    assert back.params == auto_model.params and back.cv_results.equals(auto_model.cv_results)
    # A model moved to another K keeps its record and still loads.
    moved = auto_model.with_n_rules(1)
    assert findrs.RuleSetModel.from_json(moved.to_json()).cv_results.equals(auto_model.cv_results)
    # A share tolerance stays a float, a count an int.
    share = findrs.fit(findrs.datasets.monks(2), "class", random_state=0, auto=False, settings=dict(tolerance=0.25, min_support=2))
    loaded = findrs.RuleSetModel.from_json(share.to_json())
    assert loaded.params["tolerance"] == 0.25 and isinstance(loaded.params["tolerance"], float)
    assert loaded.params["min_support"] == 2 and loaded.cv_results is None


def test_files_written_before_the_new_parameters_load_with_the_papers_values() -> None:
    m = findrs.fit(findrs.datasets.monks(1), "class", random_state=0, auto=False)
    d = json.loads(m.to_json())
    for k in ("min_support", "direction", "auto", "cv", "cv_T"):
        del d["params"][k]
    back = findrs.RuleSetModel.from_json(json.dumps(d))
    assert back.params == m.params


def _edited(d: dict, path: str, value) -> dict:
    d = json.loads(json.dumps(d))
    *parents, last = path.split(".")
    node = d
    for key in parents:
        node = node[int(key)] if isinstance(node, list) else node[key]
    node[int(last) if isinstance(node, list) else last] = value
    return d


def _other(rec: dict, key: str):
    chosen = rec["candidates"][rec["chosen"]][key]
    return next(c[key] for c in rec["candidates"] if c[key] != chosen or type(c[key]) is not type(chosen))


@pytest.mark.parametrize(
    ("field", "value", "fragment"),
    [
        ("cv.folds", 4, "folds"),
        ("cv.chosen", 10**6, "chosen"),
        ("cv.chosen", True, "chosen"),
        ("cv.candidates", [], "no candidate"),
        ("cv.candidates.0.rows", [1, 2, 3], "rows"),
        ("cv.candidates.0.correct", [10**6, 0, 0], "more held-out rows right"),
        ("cv.candidates.0.rules", [1, -1, 0], "counts"),
        ("cv.candidates.0.tolerance", 2.5, "tolerance"),
        ("cv.candidates.0.n_rules", 0, "n_rules"),
        ("cv.candidates.0.encoding", "xx", "encoding"),
        ("cv.extra", 1, "fields"),
        ("cv.candidates.0.extra", 1, "fields"),
        ("params.cv", 4, "folds"),
        ("params.cv", None, "cv and cv_T"),
        ("params.auto", [], "auto lists no setting"),
    ],
)
def test_bad_cross_validation_records_are_refused(auto_model, field: str, value, fragment: str) -> None:
    d = json.loads(auto_model.to_json())
    with pytest.raises(FindRSInputError, match="findrs model JSON") as e:
        findrs.RuleSetModel.from_json(json.dumps(_edited(d, field, value)))
    assert fragment in str(e.value)


@pytest.mark.parametrize("key", ["encoding", "tolerance", "min_support", "direction"])
def test_a_record_that_contradicts_the_params_is_refused(auto_model, key: str) -> None:
    d = json.loads(auto_model.to_json())
    rec = d["cv"]
    bad = _edited(d, f"cv.candidates.{rec['chosen']}.{key}", _other(rec, key))
    with pytest.raises(FindRSInputError, match=f"chosen candidate has {key}"):
        findrs.RuleSetModel.from_json(json.dumps(bad))
    # A fixed setting must be the same in every candidate.
    fixed = findrs.fit(findrs.datasets.monks(2), "class", random_state=1, auto=False, settings=dict(tolerance="auto", cv=3))
    d = json.loads(fixed.to_json())
    bad = _edited(d, "cv.candidates.0.encoding", "oh")
    with pytest.raises(FindRSInputError, match="fixed at 'av'"):
        findrs.RuleSetModel.from_json(json.dumps(bad))


# --------------------------------------------------------------------------- #
# scikit-learn and the command line
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize("method", METHODS)
def test_classifier_with_the_other_direction_refers_to_classes_1(method: str) -> None:
    pytest.importorskip("sklearn")
    from findrs.sklearn import FindRSClassifier

    df = findrs.datasets.monks(2)
    X, y = df.drop("class").to_numpy(), df["class"].to_numpy()
    neg = FindRSClassifier(method=method, random_state=0, auto=False, settings=dict(T=6, direction="negative")).fit(X, y)
    pos = FindRSClassifier(method=method, random_state=0, auto=False, settings=dict(T=6)).fit(X, y)
    assert neg.model_.positive == neg.classes_[0] and pos.model_.positive == pos.classes_[1]
    pred, d, p = neg.predict(X), neg.decision_function(X), neg.predict_proba(X)[:, 1]
    assert ((pred == neg.classes_[1]) == (d > 0)).all() and ((d > 0) == (p > 0.5)).all()
    # The model's own prediction, as labels, is the classifier's.
    assert pred.tolist() == neg.model_.predict(pl.DataFrame(X, schema=[f"x{i}" for i in range(6)], orient="row")).to_list()
    assert np.allclose(neg.predict_proba(X).sum(axis=1), 1.0)


def test_classifier_auto() -> None:
    pytest.importorskip("sklearn")
    from sklearn.base import clone

    from findrs.sklearn import FindRSClassifier

    df = findrs.datasets.monks(3)
    X, y = df.drop("class").to_numpy(), df["class"].to_numpy()
    clf = FindRSClassifier(method="find-rs", auto=True, random_state=0, settings=dict(encoding="av")).fit(X, y)
    assert clf.model_.params["auto"] == ["tolerance", "min_support", "direction", "simplify", "max_rules"]
    assert clf.model_.encoding == "av"
    twin = clone(clf).fit(X, y)
    assert twin.predict(X).tolist() == clf.predict(X).tolist()
    plain = FindRSClassifier(method="find-rs", random_state=0, auto=False).fit(X, y)
    assert plain.model_.params["auto"] == [] and plain.model_.params["tolerance"] == 0


def test_cli_fit_auto(tmp_path) -> None:
    from findrs.cli import main

    data = tmp_path / "monks.csv"
    findrs.datasets.monks(3).write_csv(data)
    out = tmp_path / "m.json"
    assert main(["fit", str(data), "--target", "class", "--auto", "--tolerance", "0.1", "--random-state", "0",
                 "-o", str(out)]) == 0
    m = findrs.RuleSetModel.from_json(out)
    assert m.params["tolerance"] == 0.1 and m.params["auto"] == ["encoding", "min_support", "direction", "simplify", "max_rules"]
    # --auto is the default.
    assert main(["fit", str(data), "--target", "class", "--tolerance", "0.1", "--random-state", "0",
                 "-o", str(tmp_path / "d.json")]) == 0
    assert findrs.RuleSetModel.from_json(tmp_path / "d.json").to_json() == m.to_json()
    assert main(["fit", str(data), "--target", "class", "--min-support", "3", "--direction", "negative",
                 "--paper", "-o", str(out)]) == 0
    m = findrs.RuleSetModel.from_json(out)
    assert (m.params["min_support"], m.params["direction"], m.params["auto"]) == (3, "negative", [])


# docs/semantics.md §8 with §9: simplification uses the run's test, a share included, and is
# cross-validated as it is fitted; a rule budget is not combined with automatic settings.
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(df=frames(min_rows=20, max_rows=80), method=st.sampled_from(METHODS), seed=st.integers(0, 2**32))
def test_auto_with_simplify_fits_what_it_cross_validated(df: pl.DataFrame, method: str, seed: int) -> None:
    y = labels_of(df)
    if min(y.sum(), (~y).sum()) < 2:
        return
    model = findrs.fit(df, "y", **findrs.settings.fit_keywords(dict(method=method, random_state=seed, **AUTO, auto=False, settings=dict(T=5, simplify=True))))
    p = model.params
    fixed = findrs.fit(
        df, "y", method=method, random_state=seed, auto=False,
        settings=dict(T=5, simplify=True, encoding=p["encoding"], tolerance=p["tolerance"], min_support=p["min_support"], direction=p["direction"], best_of=p["best_of"]),
    )  # the final fit keeps the best of best_of runs (§5.3)
    assert fixed.rules.equals(model.rules)
    # Each simplified voting rule still passes the acceptance test on the training rows, unless it was
    # made from a contradictory positive: then it covers training rows of one feature vector only.
    eps = p["tolerance"] if isinstance(p["tolerance"], float) else 0.0
    fired = model.explain(df)["fired_rules"]
    features = df.drop("y")
    voting = model.rules.filter("kept")
    for i, (pos, neg) in enumerate(zip(voting["train_positives"], voting["train_negatives"])):
        if neg > 0 and neg / (neg + pos) > eps:
            covered = features.filter(fired.list.contains(i))
            assert covered.unique().height == 1, f"rule {i}: {pos} positives, {neg} negatives, {p['tolerance']}"


def test_auto_takes_a_rule_budget_for_find_rs_only() -> None:
    df = findrs.datasets.monks(2)
    # docs/semantics.md §8.1: the budget is chosen with the settings.
    assert findrs.fit(df, "class", auto=True, max_rules=3, random_state=0).n_rules <= 3
    with pytest.raises(FindRSInputError, match="chooses among FIND-RS models"):
        findrs.fit(df, "class", method="bp", auto=True, max_rules=3)
    with pytest.raises(FindRSInputError, match="max_rules"):
        findrs.fit(df, "class", method="bp", max_rules=3, auto=False, settings=dict(T=5, n_rules="cv"))
    # Fixed settings and a budget are fine.
    m1 = findrs.datasets.monks(1)
    assert findrs.fit(m1, "class", max_rules=2, random_state=0, auto=False, settings=dict(tolerance=0.1, min_support=2)).n_rules <= 2
    # On monk-2 no generalization keeps 80% precision (AV): every rule is one positive's.
    with pytest.raises(FindRSInputError, match="min_support = 2 leaves no rule"):
        findrs.fit(df, "class", random_state=0, auto=False, settings=dict(tolerance=0.2, min_support=2))


# docs/semantics.md §9.4: the defaults are automatic settings, on a sample above cv_rows rows.
def test_defaults_on_a_sample_fit_every_row_with_the_support_scaled() -> None:
    df = findrs.datasets.monks(2)
    a = findrs.fit(df, "class", max_rules=None, random_state=5, n_jobs=1, settings=dict(cv_rows=120))
    b = findrs.fit(df, "class", max_rules=None, random_state=5, n_jobs=2, settings=dict(cv_rows=120))
    assert a.to_json() == b.to_json()  # any thread count, the same model
    rec = a._cv
    assert abs(rec["sampled"] - 120) <= 1 and sum(rec["candidates"][0]["rows"]) == rec["sampled"]
    assert a.params["cv_rows"] == 120
    chosen = rec["candidates"][rec["chosen"]]
    s = chosen["min_support"]
    assert a.params["min_support"] == findrs.select.auto.scaled_support(s, df.height, rec["sampled"])
    # The supports tried are those of the sample's positives.
    assert max(c["min_support"] for c in rec["candidates"]) <= max(2, 120 // 20)
    fixed = findrs.fit(df, "class", **findrs.settings.fit_keywords(dict(random_state=5, auto=False, **{
        k: a.params[k] for k in ("encoding", "tolerance", "min_support", "direction", "simplify", "best_of")})))
    assert fixed.rules.equals(a.rules)
    text = str(a)
    assert f"on {rec['sampled']:,} of the {df.height:,} training rows" in text and "auto=False" in text
    again = findrs.RuleSetModel.from_json(a.to_json())
    assert again.to_json() == a.to_json() and again.cv_results.equals(a.cv_results)
    # Every row: no sample, and the candidates' support is the fitted one.
    c = findrs.fit(df, "class", max_rules=None, random_state=5, settings=dict(cv_rows=None))
    assert c._cv["sampled"] == df.height and c.params["cv_rows"] is None
    assert c.params["min_support"] == c._cv["candidates"][c._cv["chosen"]]["min_support"]


# docs/semantics.md §9.4: the default folds follow the rows the cross-validation uses.
def test_default_folds_follow_the_rows_the_cross_validation_uses() -> None:
    assert [findrs.select.auto.default_folds(n) for n in (10, 10_000, 10_001, 20_001)] == [5, 5, 3, 3]
    rng = np.random.default_rng(0)
    n = 10_001  # more than 10,000 training rows
    df = pl.DataFrame({"a": rng.integers(0, 3, n), "b": rng.integers(0, 2, n)}).with_columns(
        y=(pl.col("a") == 0) ^ pl.Series(rng.random(n) < 0.1))
    sampled = findrs.fit(df, "y", True, auto=False, random_state=0, settings=dict(tolerance="auto", cv_rows=200))
    assert sampled._cv["folds"] == 5 and sampled._cv["sampled"] <= 201
    every = findrs.fit(df, "y", True, auto=False, random_state=0, settings=dict(tolerance="auto", cv_rows=None))
    assert every._cv["folds"] == 3 and every._cv["sampled"] == n
    given = findrs.fit(df, "y", True, auto=False, random_state=0, settings=dict(tolerance="auto", cv_rows=200, cv=4))
    assert given._cv["folds"] == 4
    assert findrs.fit(df.head(100), "y", True, random_state=0).params["cv_rows"] == 8_000  # the default


# docs/semantics.md §9.4: cv_rows="auto" (the default) is 8,000 rows up to 16,000 training rows,
# 12,000 (in 3 folds) above.
def test_the_default_sample_grows_above_16000_rows() -> None:
    from findrs.select.params import CV_ROWS, CV_ROWS_LARGE, DEFAULTS, auto_cv_rows

    assert DEFAULTS["cv_rows"] == "auto" and (CV_ROWS, CV_ROWS_LARGE) == (8_000, 12_000)
    assert [auto_cv_rows(n) for n in (1, 16_000, 16_001, 20_000, 32_561, 67_557)] == [
        8_000, 8_000, 12_000, 12_000, 12_000, 12_000]
    rng = np.random.default_rng(1)
    n = 20_000
    df = pl.DataFrame({"a": rng.integers(0, 3, n), "b": rng.integers(0, 2, n)}).with_columns(
        y=(pl.col("a") == 0) ^ pl.Series(rng.random(n) < 0.1))
    grown = findrs.fit(df, "y", True, auto=False, random_state=0, settings=dict(tolerance="auto"))
    assert grown.params["cv_rows"] == 12_000 and abs(grown._cv["sampled"] - 12_000) <= 1
    assert grown._cv["folds"] == 3
    given = findrs.fit(df, "y", True, auto=False, random_state=0, settings=dict(tolerance="auto", cv_rows=8_000))
    assert given.params["cv_rows"] == 8_000 and abs(given._cv["sampled"] - 8_000) <= 1  # a number is kept
    small = findrs.fit(df.head(16_000), "y", True, auto=False, random_state=0, settings=dict(tolerance="auto"))
    assert small.params["cv_rows"] == 8_000
    same = findrs.fit(df.head(16_000), "y", True, auto=False, random_state=0, settings=dict(tolerance="auto", cv_rows=8_000))
    assert small.to_json() == same.to_json()  # up to 16,000 rows the default is the 8,000 of before
    assert findrs.fit(df, "y", True, auto=False).params["cv_rows"] is None  # nothing cross-validated


# docs/semantics.md §9.4: share tolerances 0.05 apart when the cross-validation uses more than
# 10,000 rows (the 12,000-row sample of a frame of over 16,000 rows), 0.1 apart otherwise.
def test_the_tolerance_grid_is_finer_when_the_cross_validation_has_the_rows(monkeypatch: pytest.MonkeyPatch) -> None:
    from findrs.select import halving
    from findrs.select.auto import LARGE_ROWS, TOLERANCES, TOLERANCES_LARGE, tolerances

    # The grid itself: the record of a halved cross-validation lists its last stage only
    # (docs/semantics.md §9.4, tests/test_halving.py), so no stage here.
    monkeypatch.setattr(halving, "MIN_ROWS", 10**9)

    assert TOLERANCES == (0, 0.1, 0.2, 0.3, 0.4)
    assert TOLERANCES_LARGE == (0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4)
    assert tolerances(LARGE_ROWS) == TOLERANCES and tolerances(LARGE_ROWS + 1) == TOLERANCES_LARGE
    rng = np.random.default_rng(2)
    n = 20_000
    df = pl.DataFrame({"a": rng.integers(0, 3, n), "b": rng.integers(0, 2, n)}).with_columns(
        y=(pl.col("a") == 0) ^ pl.Series(rng.random(n) < 0.1))

    def tried(frame: pl.DataFrame, **kw) -> list:
        m = findrs.fit(frame, "y", True, **findrs.settings.fit_keywords(dict(auto=False, random_state=0, **kw, settings=dict(tolerance="auto"))))
        return sorted({float(t) for t in m.cv_results["tolerance"].to_list()})  # the table shows them as text

    assert tried(df) == [0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4]  # a 12,000-row sample
    assert tried(df, cv_rows=8_000) == [0, 0.1, 0.2, 0.3, 0.4]
    assert tried(df.head(16_000)) == [0, 0.1, 0.2, 0.3, 0.4]  # its 8,000-row sample
    assert tried(df.head(12_000), cv_rows=None) == [0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4]


@pytest.mark.parametrize("value", ["AUTO", "all", ""])
def test_a_cv_rows_word_other_than_auto_names_the_choices(value: str) -> None:
    with pytest.raises(findrs.FindRSInputError, match=r'cv_rows must be .*None \(every row\) or "auto"') as e:
        findrs.fit(findrs.datasets.monks(2), "class", settings=dict(cv_rows=value))
    assert repr(value) in str(e.value)


def test_a_support_given_with_a_sample_is_used_as_given() -> None:
    df = findrs.datasets.monks(2)
    m = findrs.fit(df, "class", random_state=1, settings=dict(cv_rows=100, min_support=3))
    assert m.params["min_support"] == 3 and "min_support" not in m.params["auto"]


def test_the_simplify_axis_is_cross_validated() -> None:
    df = findrs.datasets.monks(1)
    m = findrs.fit(df, "class", random_state=0)
    t = m.cv_results
    assert set(t["simplify"].to_list()) == {False, True} and "simplify" in m.params["auto"]
    assert m.params["simplify"] == t.filter("chosen")["simplify"][0]


def test_defaults_with_too_few_rows_of_a_class_are_the_papers() -> None:
    df = pl.DataFrame({"a": ["x", "y", "z", "x"], "y": [True, False, False, False]})
    m = findrs.fit(df, "y")
    assert m.params["auto"] == [] and m.params["tolerance"] == 0 and m.cv_results is None
    with pytest.raises(FindRSInputError, match="cross-validation"):
        findrs.fit(df, "y", settings=dict(tolerance="auto"))


def test_defaults_keep_tic_tac_toe_the_eight_winning_lines() -> None:
    df = findrs.datasets.tic_tac_toe()
    for seed in range(3):
        m = findrs.fit(df, "class", "positive", random_state=seed)
        rules = m.rules.filter("kept")
        assert rules.height == 8 and all(len(c) == 3 for c in rules["constraints"].to_list()), seed


# semantics §9.5: the budgeted vote against the FIND-RS winner.
def _noisy_games(rate: float = 0.2, seed: int = 0) -> tuple[pl.DataFrame, pl.DataFrame]:
    df = findrs.datasets.tic_tac_toe()
    train, test = findrs.datasets.train_test_split(df, test_fraction=0.5, seed=0)
    flip = np.random.default_rng(seed).random(train.height) < rate
    y = train["class"] == "positive"
    return train.with_columns(pl.Series("y", y.to_numpy() ^ flip)).drop("class"), test


def test_the_vote_wins_only_by_cross_validation_and_is_the_fit_of_its_settings() -> None:
    train, _ = _noisy_games()
    model = findrs.fit(train, "y", max_rules=None, random_state=0)
    assert model.params["auto"][-1] == "method"
    table = model.cv_results
    assert set(table["method"]) == {"find-rs", "bp"}
    chosen = table.filter(pl.col("chosen"))
    assert chosen["method"][0] == model.method
    best_rs = table.filter(pl.col("method") == "find-rs")["cv_accuracy"].max()
    best_bp = table.filter(pl.col("method") == "bp")["cv_accuracy"].max()
    assert model.method == "bp" and best_bp > best_rs  # this noisy set: the vote wins on training folds
    assert model.T == 20 and model.params["cv_T"] == 20 and model.n_rules <= 100
    # cv_T: the runs of each fold's fit, 1 for FIND-RS, the vote's T for BP.
    runs = dict(table.group_by("method").agg(pl.col("cv_T").unique()).iter_rows())
    assert runs == {"find-rs": [1], "bp": [findrs.select.auto.VOTE_T]}
    assert model.params["n_rules"] in findrs.select.auto.VOTE_RULES and "n_rules" in model.params["auto"]
    given = {k: model.params[k] for k in ("encoding", "tolerance", "min_support", "direction", "simplify",
                                          "bin_edges", "numeric")}
    fixed = findrs.fit(train, "y", **findrs.settings.fit_keywords(dict(random_state=0, method="bp", auto=False, **given, settings=dict(T=20, n_rules=model.params["n_rules"]))))
    assert fixed.rules.equals(model.rules)
    assert f"method='bp'" in str(model)
    loaded = findrs.RuleSetModel.from_json(model.to_json())
    assert loaded.cv_results.equals(table) and loaded.params == model.params and loaded.rules.equals(model.rules)
    two = findrs.fit(train, "y", max_rules=None, random_state=0, n_jobs=2)
    one = findrs.fit(train, "y", max_rules=None, random_state=0, n_jobs=1)
    assert one.rules.equals(two.rules) and one.cv_results.equals(two.cv_results) and one.params == two.params


def test_the_vote_loses_to_find_rs_on_clean_rules_and_keeps_its_model() -> None:
    df = findrs.datasets.tic_tac_toe()
    model = findrs.fit(df, "class", "positive", random_state=0, max_rules=None)  # the vote is tried without a size
    alone = findrs.fit(df, "class", "positive", random_state=0, method="find-rs", max_rules=None)
    assert model.method == "find-rs" and model.params["auto"][-1] == "method"
    assert model.rules.equals(alone.rules) and "method" not in alone.params["auto"]
    # The FIND-RS part of the record is the fit's own.
    assert model.cv_results.filter(pl.col("method") == "find-rs").drop("method", "cv_T").equals(alone.cv_results)
    assert findrs.RuleSetModel.from_json(model.to_json()).params == model.params
    # The record says how many runs the losing vote made per fold, though the model's cv_T is FIND-RS's 1.
    assert model.params["cv_T"] == 1
    assert model.cv_results.filter(pl.col("method") == "bp")["cv_T"].to_list() == [findrs.select.auto.VOTE_T] * 4


def test_the_vote_falls_back_to_find_rs_when_its_support_leaves_no_rule(monkeypatch) -> None:
    # The vote wins the cross-validation on this set (the test above); a final support over every
    # positive (as a support scaled from a sample could be) leaves no rule on all rows, so the
    # FIND-RS winner stays, unchanged, and the record marks it chosen (docs/semantics.md §9.5).
    train, _ = _noisy_games()
    monkeypatch.setattr(findrs.select.auto, "scaled_support", lambda s, n, k: n + 1)
    model = findrs.fit(train, "y", max_rules=None, random_state=0)
    monkeypatch.undo()
    alone = findrs.fit(train, "y", max_rules=None, random_state=0, method="find-rs")
    assert model.method == "find-rs" and model.rules.equals(alone.rules)
    assert model.params == {**alone.params, "auto": [*alone.params["auto"], "method"]}
    table = model.cv_results
    assert table.filter(pl.col("chosen"))["method"].to_list() == ["find-rs"]
    assert table.filter(pl.col("method") == "bp")["cv_accuracy"].max() > table.filter(
        pl.col("method") == "find-rs")["cv_accuracy"].max()  # the vote had won the cross-validation
    assert findrs.RuleSetModel.from_json(model.to_json()).cv_results.equals(table)


def test_a_vote_record_without_cv_T_loads_and_a_wrong_cv_T_is_refused() -> None:
    train, _ = _noisy_games()
    model = findrs.fit(train, "y", max_rules=None, random_state=0)
    d = json.loads(model.to_json())
    for c in d["cv"]["candidates"]:
        del c["cv_T"]  # a file written before the record kept it: the vote always made 20 runs
    assert findrs.RuleSetModel.from_json(json.dumps(d)).cv_results.equals(model.cv_results)
    bp = next(i for i, c in enumerate(d["cv"]["candidates"]) if c["method"] == "bp")
    for i, runs, match in ((0, 20, "cv_T must be 1 for FIND-RS"), (bp, 0, "at least 1 for BP"),
                           (d["cv"]["chosen"], 19, "chosen candidate has cv_T = 19")):
        e = json.loads(json.dumps(d))
        for c in e["cv"]["candidates"]:
            c["cv_T"] = 1 if c["method"] == "find-rs" else 20
        e["cv"]["candidates"][i]["cv_T"] = runs
        with pytest.raises(FindRSInputError, match=match):
            findrs.RuleSetModel.from_json(json.dumps(e))


def test_no_vote_above_its_row_budget_or_with_a_method_given(monkeypatch) -> None:
    train, _ = _noisy_games()
    monkeypatch.setattr(findrs.select.auto, "VOTE_MAX_ROWS", train.height - 1)
    model = findrs.fit(train, "y", max_rules=None, random_state=0)
    assert model.method == "find-rs" and "method" not in model.params["auto"] and "method" not in model.cv_results.columns
    monkeypatch.undo()
    given = findrs.fit(train, "y", max_rules=None, random_state=0, method="find-rs")
    assert given.rules.equals(model.rules) and given.params == model.params


def test_a_record_naming_a_bad_method_is_refused() -> None:
    train, _ = _noisy_games()
    d = json.loads(findrs.fit(train, "y", max_rules=None, random_state=0).to_json())
    d["cv"]["candidates"][0]["method"] = "bo"
    with pytest.raises(FindRSInputError, match="method must be"):
        findrs.RuleSetModel.from_json(json.dumps(d))
