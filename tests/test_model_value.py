"""The model value at its edges (issue 10 items 5, 6, 7, 9, 10): big vote sums, a rule with no
constraint, absurd weights, a single bin, all-null features; and the deprecated names."""

from __future__ import annotations

import json
import pickle
import warnings

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal, assert_series_equal

import findrs
from findrs import FindRSInputError, RuleSetModel


def _bp_model() -> RuleSetModel:
    df = findrs.datasets.monks(1)
    return df.findrs.fit("class", method="bp", random_state=0, auto=False, settings=dict(T=10, n_rules=None))


def test_votes_beyond_32_bits_are_exact_everywhere() -> None:
    # issue 10 item 5: votes are u64 sums. 2,200 copies of a rule weighing T = 1,000,000 sum
    # to 2.2e9 > 2**31 (and weights are at most T, checked at load).
    m = _bp_model()
    d = json.loads(m.to_json())
    t, n = 1_000_000, 2_200
    (rule_set,) = d["model"]["rule_sets"]
    rule = dict(rule_set["rules"][0], weight=t)
    rule_set.update(rules=[rule] * n, n_rules=n)
    rule_set.pop("curve", None)
    d["training"].pop("path", None)  # the path of the rules this document replaced
    d["model"]["T"] = d["params"]["T"] = t
    big = RuleSetModel.from_json(json.dumps(d))
    assert big.vote.max_votes == t * n and big.vote.threshold == t // 2
    df = findrs.datasets.monks(1)
    fired = big.explain(df)["fired_rules"].to_list()
    covered = np.array([bool(f) for f in fired])
    assert covered.any() and not covered.all()
    np.testing.assert_array_equal(big.predict(df, labels=False).to_numpy(), covered)
    np.testing.assert_array_equal(big.decision_function(df).to_numpy(), np.where(covered, n - 0.5, -0.5))
    np.testing.assert_array_equal(df.select(big.to_expr()).to_series().to_numpy(), covered)
    duckdb = pytest.importorskip("duckdb")
    votes = duckdb.sql(big.to_sql(table="df", output="votes")).fetchnumpy()
    got = votes[list(votes)[-1]]
    np.testing.assert_array_equal(np.asarray(got, dtype=np.int64), np.where(covered, t * n, 0))


def _empty_rule_model() -> tuple[RuleSetModel, pl.DataFrame]:
    # Two positives with different values and tolerance 1: the first rule generalizes to TRUE.
    df = pl.DataFrame({"a": ["x", "y", "z"], "y": [True, True, False]})
    model = findrs.fit(df, "y", auto=False, settings=dict(tolerance=1, shuffle=False))
    assert model.rules["text"].to_list() == ["TRUE"]
    return model, df


def test_a_rule_with_no_constraint_gives_one_value_per_row() -> None:
    # issue 10 item 6: the expressions of a TRUE rule were a literal (one row for the frame).
    model, df = _empty_rule_model()
    new = pl.DataFrame({"a": ["x", "q", None, "z"]})
    for engine in ("plugin", "compiled"):
        assert new.select(model.predict_expr(labels=False, engine=engine)).to_series().to_list() == [True] * 4
        assert new.select(model.decision_expr(engine=engine)).to_series().to_list() == [0.5] * 4
    assert new.select(model.to_expr()).height == 4
    assert model.predict(new, labels=False).to_list() == [True] * 4
    # The plugin reads every feature: a frame without them is refused, as by predict.
    with pytest.raises(FindRSInputError, match="'a'"):
        model.predict(pl.DataFrame({"b": [1]}))
    with pytest.raises(Exception, match="a"):
        pl.DataFrame({"b": [1]}).select(model.predict_expr())


@pytest.mark.filterwarnings("ignore::findrs.ContradictionWarning")
@pytest.mark.parametrize("bins", [1, 0, 2**31])
def test_bins_out_of_range_are_refused(bins: int) -> None:
    # issue 10 item 9: bins=1 made every text unprintable; 2**31 ran out of memory.
    df = pl.DataFrame({"x": [0.5, 1.5, 2.5, 3.5], "y": [True, False, True, False]})
    with pytest.raises(FindRSInputError, match="bins"):
        findrs.fit(df, "y", auto=False, settings=dict(bins=bins))
    assert findrs.fit(df, "y", auto=False, settings=dict(bins=2)).to_json()


@pytest.mark.parametrize(
    "column",
    [
        pl.Series("n", [None] * 4, dtype=pl.String),
        pl.Series("n", [None] * 4, dtype=pl.Categorical),
        pl.Series("n", [None] * 4, dtype=pl.Enum(["p", "q"])),
        pl.Series("n", [None] * 4, dtype=pl.Boolean),
        pl.Series("n", [None] * 4, dtype=pl.Int32),
    ],
    ids=lambda s: str(s.dtype),
)
def test_all_null_features_round_trip(column: pl.Series) -> None:
    # issue 10 item 10: a feature's value family is stored, so an all-null column reads back.
    df = pl.DataFrame({"a": ["x", "y", "x", "z"], "y": [True, False, True, False]}).with_columns(column)
    model = findrs.fit(df, "y", auto=False, settings=dict(shuffle=False))
    back = RuleSetModel.from_json(model.to_json())
    assert back.encoders == model.encoders
    assert [e.family for e in back.encoders] == [e.family for e in model.encoders]
    assert_series_equal(back.predict(df), model.predict(df))
    assert_frame_equal(back.rules, model.rules)


def test_pickle_is_the_json_form() -> None:
    m = _bp_model()
    back = pickle.loads(pickle.dumps(m))
    assert back.to_json() == m.to_json()
    df = findrs.datasets.monks(1)
    assert_series_equal(back.predict(df), m.predict(df))


def test_deprecated_names_still_work_and_warn() -> None:
    df = findrs.datasets.monks(1)
    m = _bp_model().with_n_rules(3)
    with pytest.warns(DeprecationWarning, match="predict"):
        mask = m.predict_mask(df)
    np.testing.assert_array_equal(mask, m.predict(df, labels=False).to_numpy())
    with pytest.warns(DeprecationWarning, match="decision_expr"):
        e = m.score_expr()
    assert df.select(e).columns == ["class_score"]
    assert_series_equal(df.select(e).to_series(), m.decision_function(df).alias("class_score"))
    with pytest.warns(DeprecationWarning, match="votes"):
        assert m.to_sql(output="score") == m.to_sql(output="votes")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        m.predict(df), m.decision_function(df), m.to_sql(output="votes")


def test_the_vote_view_is_what_predict_computes() -> None:
    # Votes recomputed from the view's groups and the fired rules decide like predict, and the
    # decision value is votes / scale - offset.
    df = findrs.datasets.monks(2)
    for method in ("find-rs", "bo", "bp"):
        m = df.findrs.fit("class", method=method, random_state=1, auto=False, settings=dict(T=9, encoding="oh"))
        v = m.vote
        fired = m.explain(df)["fired_rules"].to_list()
        votes = np.array([sum(w for g, w in zip(v.groups, v.group_weights) if set(g) & set(f)) for f in fired])
        np.testing.assert_array_equal(votes > v.threshold, m.predict(df, labels=False).to_numpy())
        np.testing.assert_array_equal(votes / v.scale - v.offset, m.decision_function(df).to_numpy())
        assert votes.max() <= v.max_votes


def test_categorical_targets_predict_the_same_dtype_eagerly_and_lazily() -> None:
    # issue 10 ("Also"): one prediction path, so one dtype.
    df = findrs.datasets.tic_tac_toe().with_columns(pl.col("class").cast(pl.Categorical))
    m = df.findrs.fit("class", "positive", auto=False, settings=dict(shuffle=False))
    eager = m.predict(df)
    lazy = df.lazy().select(m.predict_expr()).collect(engine="streaming").to_series()
    assert eager.dtype == lazy.dtype == pl.Categorical
    assert (eager.cast(pl.String) == lazy.cast(pl.String)).all()
