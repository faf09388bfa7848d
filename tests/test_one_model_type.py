"""One model type: the same script runs unchanged on every kind a fit returns (binary,
multiclass, rules with exceptions, a bagged vote), and ``findrs.load`` reads each back."""

from __future__ import annotations

import duckdb
import numpy as np
import polars as pl
import pytest
from polars.testing import assert_series_equal

import findrs
from findrs import FindRSInputError
from findrs.models.base import RULES_COLUMNS

TTT = findrs.datasets.tic_tac_toe()
MONK = findrs.datasets.monks(2)
THREE = pl.DataFrame({"a": ["x", "y", "z", "x"] * 12, "b": ["p", "q", "p", "r"] * 12,
                      "c": ["r", "s", "t", "r"] * 12})

KINDS = {
    "binary": lambda: findrs.fit(TTT, "class", "positive", random_state=0),
    "bp": lambda: findrs.fit(MONK, "class", 1, method="bp", random_state=0, auto=False, settings={"T": 5}),
    "multiclass": lambda: findrs.fit(THREE, "c", random_state=0),
    "exceptions": lambda: findrs.fit(TTT, "class", "positive", random_state=0, auto=False,
                                     settings={"exceptions": True, "tolerance": 3}),
    "bagged": lambda: findrs.fit_bagged(TTT, "class", "positive", n_estimators=3, random_state=0),
}
DATA = {"binary": TTT, "bp": MONK, "multiclass": THREE, "exceptions": TTT, "bagged": TTT}


def the_script(model: findrs.Model, df: pl.DataFrame) -> dict:
    """What a user does with a model, written once for every kind."""
    target = model.target.name
    features = df.drop(target)
    out = {"predict": model.predict(features)}
    out["lazy"] = features.lazy().with_columns(model.predict_expr()).collect().to_series(-1)
    out["explained"] = model.explain(features).height
    out["rules"] = model.rules
    t = features  # noqa: F841  (DuckDB reads the frame by its name)
    out["sql"] = duckdb.sql(model.to_sql(table="t")).pl().to_series(-1)
    out["loaded"] = findrs.load(model.to_json()).predict(features)
    out["text"] = str(model)
    out["score"] = model.score(df)
    out["decision"] = model.decision_function(features)
    out["to_expr"] = features.select(model.to_expr()).to_series()
    out["proba"] = model.predict_proba(features)
    out["lazy_proba"] = features.lazy().select(model.predict_proba_expr()).collect()
    out["loaded_proba"] = findrs.load(model.to_json()).predict_proba(features)
    out["importance"] = model.importance(df)
    out["html"] = model._repr_html_()
    return out


@pytest.mark.parametrize("kind", list(KINDS))
def test_the_same_script_runs_on_every_kind(kind: str) -> None:
    model = KINDS[kind]()
    assert isinstance(model, findrs.Model)
    got = the_script(model, DATA[kind])
    pred = got["predict"]
    assert_series_equal(got["lazy"], pred, check_names=False)
    assert_series_equal(got["loaded"], pred, check_names=False)
    mask = got["to_expr"].dtype == pl.Boolean and pred.dtype != pl.Boolean
    want = model.predict(DATA[kind].drop(model.target.name), labels=False) if mask else pred
    assert_series_equal(got["to_expr"], want, check_names=False)
    assert got["sql"].to_list() == pred.to_list()
    assert got["explained"] == DATA[kind].height
    assert got["rules"].columns[: len(RULES_COLUMNS)] == list(RULES_COLUMNS)
    assert got["rules"].height >= 1 and got["text"].strip()
    assert 0.0 <= got["score"] <= 1.0
    check_proba(model, got, pred)
    check_importance(model, DATA[kind], got["importance"])
    html = got["html"]
    assert html.startswith("<") and model.target.name in html and "<script" not in html


def check_proba(model: findrs.Model, got: dict, pred: pl.Series) -> None:
    """Graded probabilities (docs/semantics.md §6): in (0, 1), on predict's side of 1/2 (binary)
    or summing to 1 and largest at predict's class (multiclass); the expression and a loaded
    model give the same numbers."""
    proba = got["proba"]
    if model.target.classes is None:
        assert isinstance(proba, pl.Series) and proba.name == "probability"
        a = proba.to_numpy()
        assert (a > 0).all() and (a < 1).all()
        assert ((a > 0.5) == (pred == model.target.positive).to_numpy()).all()
        np.testing.assert_array_equal(got["lazy_proba"].to_series().to_numpy(), a)
        np.testing.assert_array_equal(got["loaded_proba"].to_numpy(), a)
    else:
        assert isinstance(proba, pl.DataFrame) and proba.columns == [str(c) for c in model.classes]
        a = proba.to_numpy()
        np.testing.assert_allclose(a.sum(axis=1), 1.0)
        assert (np.asarray([str(c) for c in model.classes])[a.argmax(axis=1)] == pred.cast(pl.String).to_numpy()).all()
        np.testing.assert_array_equal(got["lazy_proba"].unnest(got["lazy_proba"].columns[0]).to_numpy(), a)
        np.testing.assert_array_equal(got["loaded_proba"].to_numpy(), a)


def check_importance(model: findrs.Model, df: pl.DataFrame, imp: pl.DataFrame) -> None:
    """One row per voting rule and per feature, most important first, each accuracy drop the
    one of the model with the rule (or the feature's conditions) taken out, recomputed here by
    brute force for the first rows of the table."""
    assert imp.columns == ["kind", "id", "name", "decides", "accuracy_drop"]
    features = imp.filter(pl.col("kind") == "feature")
    assert sorted(features["name"].to_list()) == sorted(model.features)
    rules = imp.filter(pl.col("kind") != "feature")
    table = model.rules.filter("kept")
    assert rules.height <= table.height and rules.height >= 1
    drops = imp["accuracy_drop"].to_list()
    assert drops == sorted(drops, reverse=True)
    assert (imp["decides"] <= df.height).all()
    # Something decides: the model is better than predicting one label everywhere.
    assert imp["decides"].max() > 0 and imp["accuracy_drop"].max() > 0
    # With nothing taken out, the module's predictions are the model's own.
    from findrs.models import importance

    mine = importance.predictions(model, df)
    if model.target.classes is None:
        assert (mine == model.predict(df, labels=False).to_numpy()).all()
    else:
        index = {str(c): i for i, c in enumerate(model.classes)}
        assert (mine == np.array([index[str(x)] for x in model.predict(df).to_list()])).all()


def test_rules_tables_share_their_columns_and_types() -> None:
    schemas = {k: KINDS[k]().rules.select(RULES_COLUMNS).schema for k in KINDS}
    first = schemas["binary"]
    for kind, schema in schemas.items():
        assert list(schema) == list(RULES_COLUMNS), kind
        for col in ("id", "text", "kind", "weight", "train_positives", "train_negatives", "kept"):
            assert schema[col] == first[col], (kind, col)


def test_no_kind_lists_a_method_that_only_raises() -> None:
    m = KINDS["exceptions"]()
    for name in ("decision_expr", "score_expr", "strength_expr", "explain_expr", "why_not_expr", "with_n_rules",
                 "pruning_curve"):
        assert not hasattr(m, name), name


def test_load_says_what_is_wrong(tmp_path) -> None:
    with pytest.raises(FindRSInputError, match="no such findrs model file"):
        findrs.load(tmp_path / "missing.json")
    with pytest.raises(FindRSInputError, match="no such findrs model file"):
        findrs.load("missing.json")
    with pytest.raises(FindRSInputError, match="read from a path or its JSON text"):
        findrs.load(3)  # type: ignore[arg-type]
    path = tmp_path / "m.json"
    model = KINDS["bagged"]()
    model.to_json(path)
    assert isinstance(findrs.load(path), findrs.BaggedModel) and isinstance(findrs.load(str(path)), findrs.BaggedModel)


def test_importance_needs_the_labels_and_names_the_fix() -> None:
    model = KINDS["binary"]()
    with pytest.raises(FindRSInputError, match="target column 'class'"):
        model.importance(TTT.drop("class"))
    imp = model.importance(TTT.rename({"class": "truth"}), target="truth")
    assert imp.height == model.n_rules + len(model.features)


def test_a_rule_taken_out_drops_accuracy_as_a_refit_without_it_would_predict() -> None:
    # FIND-RS: without rule r a row is positive iff another rule holds; recomputed from explain.
    model = findrs.fit(TTT, "class", "positive", random_state=0, auto=False)
    fired = model.explain(TTT)["fired_rules"].to_list()
    truth = (TTT["class"] == "positive").to_numpy()
    base = np.mean(np.array([bool(f) for f in fired]) == truth)
    imp = model.importance(TTT).filter(pl.col("kind") == "rule")
    for r in imp.iter_rows(named=True):
        without = np.array([any(i != r["id"] for i in f) for f in fired])
        assert r["decides"] == int(np.sum(without != np.array([bool(f) for f in fired])))
        assert r["accuracy_drop"] == pytest.approx(base - np.mean(without == truth))
