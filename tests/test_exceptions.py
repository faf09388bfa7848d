"""Rules with exceptions (docs/semantics.md §9.6, ``findrs.fit(..., exceptions=True)``): every
surface computes "positive where some rule holds and none of its exceptions holds", the
exceptions are the documented ones, and bad input is refused with a message naming the fix."""

from __future__ import annotations

import json
import math
import warnings

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import findrs
from findrs import ExceptionsModel, FindRSInputError
from findrs.cli import main
from findrs.models.exceptions import exception_sets
from strategies import frames, perturbed
from test_sql import sqlite_table

duckdb = pytest.importorskip("duckdb")

pytestmark = pytest.mark.filterwarnings("ignore::findrs.ContradictionWarning")


@pytest.fixture(scope="module")
def noisy() -> tuple[pl.DataFrame, pl.DataFrame]:
    """Tic-tac-toe with 15% of the training labels flipped: rules of both labels hold on some
    rows, so the rules have exceptions."""
    from experiments.noisy import flip_labels

    train, test = findrs.datasets.train_test_split(findrs.datasets.tic_tac_toe(), 0.5, seed=0)
    flipped = flip_labels(train.with_columns(pl.col("class") == "positive"), 0.15, seed=0)
    words = pl.when(pl.col("class")).then(pl.lit("positive")).otherwise(pl.lit("negative")).alias("class")
    return flipped.with_columns(words), test


@pytest.fixture(scope="module")
def model(noisy) -> ExceptionsModel:
    m = findrs.fit(noisy[0], "class", "positive", random_state=0, auto=False, settings=dict(exceptions=True, tolerance=0.2))
    assert isinstance(m, ExceptionsModel)
    assert any(m.exceptions_of), "the fixture must have exceptions to test them"
    return m


def explicit(m: ExceptionsModel, frame: pl.DataFrame) -> np.ndarray:
    """The definition, row by row from the fired rules: some rule holds and none of its
    exceptions holds."""
    fired_r = m.rules_model.explain(frame)["fired_rules"].to_list()
    fired_s = [set(f) for f in m.exception_model.explain(frame)["fired_rules"].to_list()]
    return np.array([any(not fired_s[i].intersection(m.exceptions_of[r]) for r in f) for i, f in enumerate(fired_r)],
                    dtype=bool)


def test_exceptions_are_the_more_precise_rules_of_the_other_label(model) -> None:
    # docs/semantics.md §9.6 in floats: logit(p_s) >= logit(p_r) - logit(prior), p Laplace-smoothed.
    def logit(a: int, b: int) -> float:
        p = (a + 1) / (a + b + 2)
        return math.log(p / (1 - p))

    t = model.rules_model._training
    prior = math.log(t["positives"] / (t["rows"] - t["positives"]))
    r, s = model.rules_model.rules, model.exception_model.rules
    for i, (a, b) in enumerate(zip(r["train_positives"], r["train_negatives"])):
        want = [j for j, (c, d) in enumerate(zip(s["train_positives"], s["train_negatives"]))
                if logit(c, d) >= logit(a, b) - prior - 1e-12]
        assert list(model.exceptions_of[i]) == want
    assert model.exception_model.positive == "negative" and model.exception_model.params["direction"] == "negative"
    assert model.exception_model.encoders == model.rules_model.encoders


def test_every_surface_predicts_the_definition(model, noisy) -> None:
    test = noisy[1]
    want = explicit(model, test)
    rules_only = model.rules_model.predict(test, labels=False).to_numpy()
    assert (rules_only & ~want).any(), "some exception must override a rule on these rows"
    assert not (want & ~rules_only).any()  # exceptions only take positives away
    np.testing.assert_array_equal(model.predict(test, labels=False).to_numpy(), want)
    np.testing.assert_array_equal(test.select(model.to_expr()).to_series().to_numpy(), want)
    lazy = test.lazy().with_columns(model.predict_expr()).collect()["class_predicted"]
    assert lazy.to_list() == ["positive" if w else "negative" for w in want]
    assert test.findrs.predict(model)["class_predicted"].to_list() == lazy.to_list()
    assert test.lazy().findrs.predict(model).collect()["class_predicted"].to_list() == lazy.to_list()
    np.testing.assert_array_equal(model.decision_function(test).to_numpy() > 0, want)
    assert model.score(test) == pytest.approx(float(np.mean(want == (test["class"] == "positive").to_numpy())))


def test_explain_names_the_deciding_rule_and_the_overriding_exception(model, noisy) -> None:
    test = noisy[1]
    ex = model.explain(test)
    assert ex.columns == ["class_predicted", "fired_rules", "fired_exceptions", "deciding_rule",
                          "overriding_exception", "deciding_text", "overriding_text"]
    overridden = 0
    for row in ex.iter_rows(named=True):
        fired, exc = row["fired_rules"], set(row["fired_exceptions"])
        if row["class_predicted"] == "positive":
            r = row["deciding_rule"]
            assert r in fired and not exc.intersection(model.exceptions_of[r])
            assert row["deciding_text"] == model.rules_model.rules["text"][r]
            assert row["overriding_exception"] is None
        else:
            assert row["deciding_rule"] is None
            if fired:
                s = row["overriding_exception"]
                assert s in exc and all(s in model.exceptions_of[r] for r in fired)
                assert row["overriding_text"] == model.exception_model.rules["text"][s]
                overridden += 1
            else:
                assert row["overriding_exception"] is None
    assert overridden > 0
    lazy = test.lazy().findrs.explain(model).collect()
    assert lazy.select(ex.columns).equals(ex)
    with pytest.raises(FindRSInputError, match="leave top=None"):
        test.findrs.explain(model, top=2)


def test_sql_computes_predict(model, noisy) -> None:
    test = perturbed(noisy[1], 0)
    want = model.predict(test).to_list()
    con = duckdb.connect()
    con.register("t", test)
    assert [r[-1] for r in con.execute(model.to_sql(table="t")).fetchall()] == want
    lite = sqlite_table(test)
    got = [r[-1] for r in lite.execute(model.to_sql(table="t", dialect="sqlite")).fetchall()]
    assert got == want


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(df=frames(min_rows=8, max_rows=60, allow_float=True), tolerance=st.sampled_from([0, 1, 0.3]),
       seed=st.integers(0, 3))
def test_sql_and_expressions_agree_with_predict(df: pl.DataFrame, tolerance, seed: int) -> None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            m = findrs.fit(df, "y", True, random_state=seed, auto=False, settings=dict(exceptions=True, tolerance=tolerance))
    except FindRSInputError as e:
        assume("leaves no rule" not in str(e) and "no rule" not in str(e))
        raise
    if not isinstance(m, ExceptionsModel):  # no rule has an exception: the fit is the rules alone
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            plain = findrs.fit(df, "y", True, random_state=seed, auto=False, settings=dict(tolerance=tolerance))
        assert m.to_json() == plain.to_json()
        return
    assert any(m.exceptions_of)
    test = pl.concat([df, perturbed(df, seed)])
    want = explicit(m, test)
    got = m.predict(test, labels=False).to_numpy()
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(test.select(m.to_expr()).to_series().to_numpy(), want)
    labels = m.predict(test).to_list()
    con = duckdb.connect()
    con.register("t", test)
    assert [r[-1] for r in con.execute(m.to_sql(table="t")).fetchall()] == labels
    assert [bool(r[-1]) for r in sqlite_table(test).execute(m.to_sql(table="t", dialect="sqlite")).fetchall()] == labels
    with_no_exceptions = [i for i, e in enumerate(m.exceptions_of) if not e]
    rules_only = m.rules_model.predict(test, labels=False).to_numpy()
    assert not (got & ~rules_only).any()
    # Rules without exceptions decide as in the rules' FIND-RS model.
    holds = m.rules_model.explain(test)["fired_rules"].to_list()
    assert all(got[i] for i, f in enumerate(holds) if any(r in with_no_exceptions for r in f))


def test_json_round_trip_and_load_checks(model, noisy, tmp_path) -> None:
    test = noisy[1]
    path = tmp_path / "m.json"
    model.to_json(path)
    back = ExceptionsModel.from_json(path)
    assert back.exceptions_of == model.exceptions_of
    assert back.predict(test).equals(model.predict(test))
    assert str(back) == str(model)
    doc = json.loads(model.to_json())
    with pytest.raises(FindRSInputError, match="ExceptionsModel.from_json"):
        findrs.RuleSetModel.from_json(model.to_json())
    edited = {**doc, "exceptions_of": [e[1:] if e else [0] for e in doc["exceptions_of"]]}
    with pytest.raises(FindRSInputError, match="not those the rules' training counts give"):
        ExceptionsModel.from_json(json.dumps(edited))
    with pytest.raises(FindRSInputError, match="exception rules must describe the negative direction"):
        ExceptionsModel.from_json(json.dumps({**doc, "exceptions": doc["rules"]}))
    with pytest.raises(FindRSInputError, match="version"):
        ExceptionsModel.from_json(json.dumps({**doc, "version": 2}))
    with pytest.raises(FindRSInputError, match="not a rules-with-exceptions model"):
        ExceptionsModel.from_json(doc["rules"] and json.dumps(doc["rules"]))
    with pytest.raises(FindRSInputError, match="its 'rules'"):
        ExceptionsModel.from_json(json.dumps({**doc, "rules": {**doc["rules"], "model": 3}}))
    with pytest.raises(FindRSInputError, match="lists of rule ids"):
        ExceptionsModel.from_json(json.dumps({**doc, "exceptions_of": "all"}))


def test_print_lists_rules_with_their_exceptions(model) -> None:
    text = model.to_text(max_rules=None)
    assert str(model) == model.to_text() and str(model).splitlines()[:3] == text.splitlines()[:3]
    with findrs.Config(max_rules=2):
        short = str(model)
    assert "rules hidden" in short and "model.to_text(max_rules=None)" in short
    with pytest.raises(FindRSInputError, match="max_rules"):
        model.to_text(max_rules=0)
    lines = text.splitlines()
    assert lines[0] == "FIND-RS with exceptions (AV): class = 'positive'"
    assert "when one of these" in lines[2] and "none of its exceptions (" in lines[2]
    used = sorted({s for e in model.exceptions_of for s in e})
    assert f"exceptions ({len(used)} rules of 'negative', under the rules they override)" in text
    for s in used:
        assert f"  e{s} " in text
    assert model.n_rules == model.rules_model.n_rules + len(used)
    assert model.rules.filter(pl.col("kind") == "exception")["id"].to_list() == used
    # Each rule reads with its own exceptions: the exception lines under its group are exactly them.
    body = [ln for ln in lines if ln.startswith("  ") and not ln.strip().startswith("id ")]
    rule_of = lambda ln: int(ln.split()[0]) if ln.split()[0].isdigit() else None  # noqa: E731
    shown: dict[int, list[int]] = {}
    group: list[int] = []
    for ln in body:
        if rule_of(ln) is not None:
            if group and shown.get(group[-1]) is not None:
                group = []
            group.append(rule_of(ln))
            shown.setdefault(group[-1], None)
        elif ln.strip().startswith("e"):
            for r in group:
                shown[r] = (shown[r] or []) + [int(ln.split()[0][1:])]
    assert {r: list(e) for r, e in enumerate(model.exceptions_of)} == {r: e or [] for r, e in shown.items()}
    md = model.to_markdown(max_rules=None)
    assert "| exception | covers | precision | rule |" in md and all(f"| e{s} |" in md for s in used)


def test_automatic_settings_choose_the_exception_rules_own(noisy) -> None:
    m = findrs.fit(noisy[0], "class", "positive", random_state=0, settings=dict(exceptions=True))
    plain = findrs.fit(noisy[0], "class", "positive", random_state=0, max_rules=None, settings=dict(direction="positive"))
    # The rules are the model the same fit gives without exceptions.
    assert m.rules_model.rules["text"].to_list() == plain.rules["text"].to_list()
    assert m.exception_model.cv_results is not None
    assert set(m.exception_model.params["auto"]) == {"tolerance", "min_support", "simplify"}
    assert m.exception_model.encoders == m.rules_model.encoders
    assert m.params["exceptions"] is True and set(m.params["exception_settings"]) == {"tolerance", "min_support", "simplify"}


def test_bad_input_names_the_fix(noisy) -> None:
    train = noisy[0]
    three = train.with_columns(pl.when(pl.col("top_left") == "b").then(pl.lit("draw")).otherwise("class").alias("class"))
    cases = [
        (dict(data=three, positive=None), "two-class targets"),
        (dict(data=three, positive="positive"), "exactly two classes"),
        (dict(method="bp"), "method='bp'"),
        (dict(direction="negative"), "direction='negative' cannot combine"),
        (dict(max_rules=5), "max_rules=5 cannot combine"),
        (dict(exceptions="yes"), "exceptions must be True, False or 'auto'"),
        (dict(exceptions="auto"), "exceptions='auto' is chosen by the cross-validation"),
    ]
    for kw, message in cases:
        data = kw.pop("data", train)
        positive = kw.pop("positive", "positive")
        with pytest.raises(FindRSInputError, match=message):
            findrs.fit(data, "class", positive, **findrs.settings.fit_keywords(dict(**{"exceptions": True, "auto": False, **kw})))
    with pytest.raises(FindRSInputError, match="exceptions must be True, False or 'auto'"):
        findrs.fit(train, "class", "positive", auto=False, settings=dict(exceptions=1))


def test_sklearn_classifier(noisy) -> None:
    from findrs.sklearn import FindRSClassifier

    train, test = noisy
    X, y = train.drop("class"), train["class"]
    clf = FindRSClassifier(auto=False, random_state=0, settings=dict(exceptions=True, tolerance=0.2)).fit(X, y)
    assert isinstance(clf.model_, ExceptionsModel) and clf.get_params()["settings"]["exceptions"] is True
    pred = clf.predict(test.drop("class"))
    proba = clf.predict_proba(test.drop("class"))
    assert ((proba[:, 1] > 0.5) == (pred == "positive")).all()
    assert ((proba > 0) & (proba < 1)).all() and len(np.unique(proba[:, 1])) > 2  # graded (docs/semantics.md §6)
    assert (pred == clf.model_.predict(test).to_numpy()).all()


def test_cli_fit_predict_explain_rules(noisy, tmp_path, capsys) -> None:
    train, test = noisy
    train.write_csv(tmp_path / "train.csv")
    test.write_csv(tmp_path / "test.csv")
    out = tmp_path / "m.json"
    assert main(["fit", str(tmp_path / "train.csv"), "--target", "class", "--positive", "positive", "--paper",
                 "--tolerance", "0.2", "--random-state", "0", "--exceptions", "-o", str(out)]) == 0
    text = capsys.readouterr().out
    assert "FIND-RS with exceptions (AV)" in text
    model = ExceptionsModel.from_json(out)
    assert main(["predict", str(out), str(tmp_path / "test.csv"), "-o", str(tmp_path / "p.csv")]) == 0
    got = pl.read_csv(tmp_path / "p.csv")["class_predicted"].to_list()
    assert got == model.predict(test).to_list()
    capsys.readouterr()
    assert main(["explain", str(out), str(tmp_path / "test.csv")]) == 0
    lines = capsys.readouterr().out
    assert "overridden by exception e" in lines and "and none of its exceptions" in lines
    assert main(["rules", str(out)]) == 0
    assert "exceptions (" in capsys.readouterr().out


def test_cli_no_exceptions_keeps_the_rules_the_default_would_give_exceptions_to(tmp_path, capsys) -> None:
    # Without the flag the CLI takes fit's default (exceptions chosen by cross-validation, §9.6, with max_rules=None);
    # --no-exceptions is exceptions=False: the rules alone.
    from test_exceptions_auto import _train

    df = _train("tic-tac-toe", 0.2, 1).with_columns(pl.when(pl.col("class")).then(pl.lit("yes")).otherwise(pl.lit("no"))
                                                   .alias("class"))
    df.write_csv(tmp_path / "train.csv")
    common = ["fit", str(tmp_path / "train.csv"), "--target", "class", "--positive", "yes", "--random-state", "1",
              "--max-rules", "none"]  # the accuracy-first end, where exceptions are tried
    assert main([*common, "-o", str(tmp_path / "auto.json")]) == 0
    assert main([*common, "--no-exceptions", "-o", str(tmp_path / "plain.json")]) == 0
    capsys.readouterr()
    chosen = ExceptionsModel.from_json(tmp_path / "auto.json")
    assert chosen.cv_results is not None and chosen.cv_results["exceptions"].any()
    plain = findrs.RuleSetModel.from_json(tmp_path / "plain.json")
    assert plain.params["auto"] and "exceptions" not in plain.params["auto"]
