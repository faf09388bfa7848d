"""One model type: the same script runs unchanged on every kind a fit returns (binary,
multiclass, rules with exceptions, a bagged vote), and ``findrs.load`` reads each back."""

from __future__ import annotations

import duckdb
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
