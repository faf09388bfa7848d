"""The bagged vote (docs/semantics.md §12): the majority of its members, on every surface."""

from __future__ import annotations

import json
import sqlite3

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import findrs
from findrs import BaggedModel, FindRSInputError
from strategies import frames, perturbed

duckdb = pytest.importorskip("duckdb")

pytestmark = [pytest.mark.filterwarnings("ignore::findrs.ContradictionWarning"),
              pytest.mark.filterwarnings("ignore::findrs.IdentifierWarning")]


def _member_votes(bag: BaggedModel, frame: pl.DataFrame) -> np.ndarray:
    """Plainly: each member's predicted label compared with the vote's positive label."""
    return np.sum([np.array(m.predict(frame).to_list(), dtype=object) == bag.positive for m in bag.members], axis=0)


def _sql_column(sql: str, frame: pl.DataFrame) -> list:
    con = duckdb.connect()
    try:
        con.register("test_frame", frame)
        return [row[-1] for row in con.execute(sql).fetchall()]
    finally:
        con.close()


def _check_surfaces(bag: BaggedModel, frame: pl.DataFrame) -> None:
    votes = _member_votes(bag, frame)
    assert bag.votes(frame).to_list() == votes.tolist()
    mask = (votes * 2 > bag.n_estimators).tolist()
    assert bag.predict(frame, labels=False).to_list() == mask
    expected = [bag.positive if m else bag.target.negative for m in mask]
    assert bag.predict(frame).to_list() == expected
    assert frame.select(bag.to_expr()).to_series().to_list() == mask
    assert frame.lazy().select(bag.predict_expr(engine="compiled")).collect().to_series().to_list() == expected
    assert frame.lazy().findrs.predict(bag).collect()[f"{bag.target.name}_predicted"].to_list() == expected
    assert _sql_column(bag.to_sql(table="test_frame"), frame) == expected
    assert bag.decision_function(frame).to_list() == [(2 * v - bag.n_estimators) / (2 * bag.n_estimators) for v in votes.tolist()]


@settings(max_examples=25)
@given(frames(max_rows=40, allow_float=True), st.integers(1, 5), st.sampled_from(["find-rs", "bo", "bp"]),
       st.sampled_from(["positive", "negative"]), st.integers(0, 3))
def test_the_vote_is_the_members_majority_on_every_surface(df, n, method, direction, seed) -> None:
    """Plugin, compiled expression, SQL, votes and decision all count the members' own
    predictions of the positive label (members describing the negative label included), on
    the training rows and on rows with unseen values and nulls."""
    bag = findrs.fit_bagged(
        df, "y", n_estimators=n, random_state=seed, auto=False, method=method,
        settings=dict(T=5, direction=direction),
    )
    assert bag.n_estimators == n and len(bag.members) == n
    _check_surfaces(bag, df)
    _check_surfaces(bag, perturbed(df, seed))


def test_automatic_members_exceptions_and_json_round_trip() -> None:
    """With automatic settings (members may be rules with exceptions or describe either label)
    the surfaces agree, and the JSON round trip gives the same model and predictions."""
    df = findrs.datasets.tic_tac_toe()
    bag = findrs.fit_bagged(df, "class", "positive", n_estimators=3, random_state=4)
    _check_surfaces(bag, df)
    again = BaggedModel.from_json(bag.to_json())
    assert again.to_json() == bag.to_json()
    assert again.predict(df).to_list() == bag.predict(df).to_list()


def test_exceptions_members_vote_for_their_rules() -> None:
    df = findrs.datasets.tic_tac_toe()
    bag = findrs.fit_bagged(df, "class", "positive", n_estimators=3, random_state=0, auto=False, settings=dict(exceptions=True))
    assert all(isinstance(m, findrs.ExceptionsModel) for m in bag.members)
    _check_surfaces(bag, df)
    ex = bag.explain(df)
    labels = dict(zip(bag.rules["text"], bag.rules["label"]))
    for fors in ex["rules_for"].to_list():
        for item in fors:
            assert labels[item.rsplit(" (", 1)[0]] == "positive"


def test_samples_are_stratified_bootstraps_with_their_own_seeds(monkeypatch) -> None:
    """Each member sees as many rows of each class as the frame has, drawn from its rows with
    replacement, and its own seed."""
    import findrs.learning.bagging

    df = findrs.datasets.tic_tac_toe().with_row_index("row_id")
    seen: list[tuple[pl.DataFrame, int]] = []
    real = findrs.learning.bagging.fit

    def spy(data, target, positive=None, **kw):
        seen.append((data, kw["random_state"]))
        return real(data.drop("row_id"), target, positive, **kw)

    monkeypatch.setattr(findrs.learning.bagging, "fit", spy)
    bag = findrs.fit_bagged(df, "class", "positive", n_estimators=4, random_state=1, auto=False)
    assert "row_id" not in bag.features
    assert len(seen) == 4
    counts = df["class"].value_counts().sort("class")
    for sample, _ in seen:
        assert sample["class"].value_counts().sort("class").equals(counts)
        assert sample["row_id"].is_in(df["row_id"].implode()).all()
        joined = sample.join(df, on="row_id", suffix="_orig")
        assert (joined["class"] == joined["class_orig"]).all()
    assert any(s["row_id"].n_unique() < df.height for s, _ in seen)  # with replacement
    assert len({seed for _, seed in seen}) == 4


def test_same_seed_same_model_whatever_the_threads() -> None:
    df = findrs.datasets.tic_tac_toe()
    a = findrs.fit_bagged(df, "class", "positive", n_estimators=3, random_state=7, n_jobs=1)
    b = findrs.fit_bagged(df, "class", "positive", n_estimators=3, random_state=7, n_jobs=2)
    assert a.to_json() == b.to_json()
    assert df.findrs.fit_bagged("class", "positive", n_estimators=3, random_state=7).to_json() == a.to_json()
    c = findrs.fit_bagged(df, "class", "positive", n_estimators=3, random_state=8)
    assert c.to_json() != a.to_json()
    drawn = findrs.fit_bagged(df, "class", "positive", n_estimators=1)
    assert isinstance(drawn.params["random_state"], int)
    assert findrs.fit_bagged(df, "class", "positive", n_estimators=1,
                             random_state=drawn.params["random_state"]).to_json() == drawn.to_json()


def test_explain_counts_the_rules_behind_the_votes() -> None:
    df = findrs.datasets.tic_tac_toe()
    bag = findrs.fit_bagged(
        df, "class", "positive", n_estimators=4, random_state=2, auto=False,
        settings=dict(direction="negative"),
    )
    ex = bag.explain(df)
    assert ex.columns == ["class_predicted", "class_votes", "rules_for", "rules_against"]
    assert ex["class_votes"].to_list() == bag.votes(df).to_list()
    rules = bag.rules
    assert set(rules["label"]) == {"negative"}
    assert rules["members"].max() <= 4 and bag.n_rules == rules.height
    known = set(rules["text"])
    for fors, againsts, votes in zip(ex["rules_for"].to_list(), ex["rules_against"].to_list(), ex["class_votes"]):
        assert fors == []  # every member describes the negative label
        total = 0
        for item in againsts:
            text, k = item.rsplit(" (", 1)
            assert text in known
            total = max(total, int(k[:-1]))
        assert total <= 4 - votes
    lazy = df.lazy().findrs.explain(bag).collect()
    assert lazy.select(ex.columns).equals(ex)
    with pytest.raises(FindRSInputError, match="top"):
        df.findrs.explain(bag, top=1)


def test_text_lists_the_shared_rules_first() -> None:
    df = findrs.datasets.tic_tac_toe()
    bag = findrs.fit_bagged(df, "class", "positive", n_estimators=3, random_state=0, auto=False)
    text = bag.to_text(max_rules=None)
    assert text.splitlines()[0].startswith("Bagged vote of 3 findrs models")
    assert "more than 1 of the 3 members" in text
    assert all(t in text for t in bag.rules["text"])
    assert list(bag.rules["members"]) == sorted(bag.rules["members"], reverse=True)
    assert str(bag) == bag.to_text()


@pytest.mark.parametrize("bad", [0, 1001, 2.5, True, "3"])
def test_bad_n_estimators(bad) -> None:
    with pytest.raises(FindRSInputError, match="n_estimators must be an integer from 1 to 1000"):
        findrs.fit_bagged(findrs.datasets.tic_tac_toe(), "class", "positive", n_estimators=bad)


def test_bad_calls_name_the_fix() -> None:
    df = findrs.datasets.tic_tac_toe()
    with pytest.raises(FindRSInputError, match="random_state"):
        findrs.fit_bagged(df, "class", "positive", random_state=-1)
    with pytest.raises(FindRSInputError, match="pair"):
        findrs.fit_bagged(df, "class", "positive", n_estimators=1, method="bo+bp", auto=False)
    three = pl.DataFrame({"a": ["x", "y", "z"] * 4, "c": ["p", "q", "r"] * 4})
    with pytest.raises(FindRSInputError, match="positive=<label>"):
        findrs.fit_bagged(three, "c", n_estimators=1)
    with pytest.raises(FindRSInputError, match="not found"):
        findrs.fit_bagged(df, "nope", n_estimators=1)
    bag = findrs.fit_bagged(df, "class", "positive", n_estimators=1, random_state=0, auto=False)
    with pytest.raises(FindRSInputError, match="top_left"):
        bag.predict(df.drop("top_left"))


def test_damaged_files_are_refused() -> None:
    df = findrs.datasets.tic_tac_toe()
    bag = findrs.fit_bagged(df, "class", "positive", n_estimators=2, random_state=0, auto=False)
    doc = json.loads(bag.to_json())
    with pytest.raises(FindRSInputError, match="not a bagged model"):
        BaggedModel.from_json(json.dumps({**doc, "format": "x"}))
    with pytest.raises(FindRSInputError, match="version"):
        BaggedModel.from_json(json.dumps({**doc, "version": 99}))
    with pytest.raises(FindRSInputError, match="params say 3 members"):
        BaggedModel.from_json(json.dumps({**doc, "params": {**doc["params"], "n_estimators": 3}}))
    with pytest.raises(FindRSInputError, match="member 1"):
        BaggedModel.from_json(json.dumps({**doc, "members": [doc["members"][0], {"nonsense": 1}]}))
    other = findrs.fit(df.rename({"class": "label"}), "label", "positive", auto=False)
    with pytest.raises(FindRSInputError, match="member 1 predicts 'label'"):
        BaggedModel.from_json(json.dumps({**doc, "members": [doc["members"][0], json.loads(other.to_json())]}))
    with pytest.raises(FindRSInputError, match="not JSON"):
        BaggedModel.from_json("{")


def test_sqlite_agrees_with_predict() -> None:
    df = findrs.datasets.tic_tac_toe()
    bag = findrs.fit_bagged(df, "class", "positive", n_estimators=3, random_state=0, auto=False)
    con = sqlite3.connect(":memory:")
    con.execute("CREATE TABLE t (" + ", ".join(f'"{c}" TEXT' for c in df.columns) + ")")
    con.executemany(f"INSERT INTO t VALUES ({', '.join('?' * df.width)})", df.rows())
    got = [r[-1] for r in con.execute(bag.to_sql(table="t", dialect="sqlite")).fetchall()]
    assert got == bag.predict(df).to_list()


def test_command_line_fits_predicts_explains_and_lists_a_bagged_vote(tmp_path, capsys) -> None:
    from findrs.cli import main

    df = findrs.datasets.tic_tac_toe()
    csv, out, pred = tmp_path / "t.csv", tmp_path / "bag.json", tmp_path / "p.csv"
    df.write_csv(csv)
    assert main(["fit", str(csv), "--target", "class", "--positive", "positive", "--bagged", "3", "--random-state",
                 "0", "--paper", "-o", str(out)]) == 0
    assert capsys.readouterr().out.startswith("Bagged vote of 3 findrs models")
    bag = BaggedModel.from_json(out)
    assert bag.to_json() == findrs.fit_bagged(df, "class", "positive", n_estimators=3, random_state=0,
                                              auto=False).to_json()
    assert main(["predict", str(out), str(csv), "-o", str(pred)]) == 0
    assert pl.read_csv(pred)["class_predicted"].to_list() == bag.predict(df).to_list()
    capsys.readouterr()
    assert main(["explain", str(out), str(csv)]) == 0
    text = capsys.readouterr().out
    assert text.startswith("row 0: class = 'positive'  (3 of 3 members vote 'positive')")
    assert main(["rules", str(out)]) == 0
    listed = capsys.readouterr().out
    assert all(t in listed for t in bag.rules["text"])


def test_a_numeric_column_named_like_a_pattern_is_bagged() -> None:
    # The generated-frame battery's case: fit_bagged checked the finite values of a numeric
    # column through a Series method, which Polars runs on pl.col('^a.*$') (a pattern, no
    # column): an IndexError where findrs.fit accepts the frame.
    df = pl.DataFrame({"^a.*$": pl.Series([0, 1, 0, 1], dtype=pl.Int8), "a": [True, False, True, False]})
    m = findrs.fit_bagged(df, "a", n_estimators=2, random_state=0, auto=False)
    assert m.predict(df).to_list() == findrs.load(m.to_json()).predict(df).to_list()
