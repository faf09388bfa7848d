"""Prediction and explanation as Polars expressions: the Rust plugin, the compiled plain-Polars
form and ``model.predict`` must agree everywhere, eagerly, lazily and in the streaming engine."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal, assert_series_equal

import findrs
from experiments.uci import UCI_NAMES, load_uci
from findrs.datasets import train_test_split

import reference
from reference import rule_covers
from strategies import codes_of, domains_of, frames, perturbed

TOLERANCE = {"monk-2": 1, "monk-3": 1, "vote": 1}
METHODS = [("find-rs", {}), ("bo", {"T": 15}), ("bp", {"T": 15})]


def _all_forms_agree(model: findrs.RuleSetModel, df: pl.DataFrame) -> None:
    truth = model.predict(df, labels=False).to_numpy()
    for engine in ("plugin", "compiled"):
        mask = df.select(model.predict_expr(labels=False, engine=engine)).to_series().to_numpy()
        np.testing.assert_array_equal(mask, truth, err_msg=f"{engine} mask")
        decision = df.select(model.decision_expr(engine=engine)).to_series()
        np.testing.assert_allclose(decision.to_numpy(), model.decision_function(df).to_numpy(), err_msg=f"{engine} decision")
    np.testing.assert_array_equal(df.select(model.to_expr()).to_series().to_numpy(), truth)
    labels = df.select(model.predict_expr()).to_series()
    assert_series_equal(labels, model.predict(df).alias(labels.name))


@pytest.mark.parametrize("name", UCI_NAMES)
@pytest.mark.parametrize("method,extra", METHODS)
def test_plugin_compiled_and_predict_agree_on_the_paper_datasets(data_dir, name, method, extra) -> None:
    train, test = train_test_split(load_uci(name, data_dir), 0.5, 0)
    if name == "connect-4":
        train, test = train.head(3000), test.head(3000)
        extra = {**extra, "T": min(extra.get("T", 1), 5)}
    model = findrs.fit(train, "class", **findrs.settings.fit_keywords(dict(method=method, random_state=0, **extra, auto=False, settings=dict(tolerance=TOLERANCE.get(name, 0)))))
    _all_forms_agree(model, test)


@settings(max_examples=40, deadline=None)
@given(df=frames(allow_float=True, other_dtypes=True, max_rows=40))
def test_forms_agree_on_random_frames_with_unseen_values(df: pl.DataFrame) -> None:
    for method, extra in METHODS:
        for encoding in ("av", "oh"):
            model = findrs.fit(df, "y", **findrs.settings.fit_keywords(dict(method=method, random_state=1, **extra, auto=False, settings=dict(encoding=encoding))))
            _all_forms_agree(model, pl.concat([df, perturbed(df, 3)]))


def test_streaming_equals_eager_and_group_by_works() -> None:
    df = findrs.datasets.monks(2)
    model = df.findrs.fit("class", method="bp", random_state=0, auto=False, settings=dict(T=20, tolerance=1))
    big = pl.concat([df] * 50).with_row_index("i")
    for engine in ("plugin", "compiled"):
        lazy = big.lazy().with_columns(model.predict_expr(engine=engine), model.decision_expr(engine=engine))
        assert_frame_equal(lazy.collect(engine="streaming"), lazy.collect())
    by = (
        big.lazy()
        .group_by("a1")
        .agg(pl.col("class").mean().alias("truth"), model.predict_expr(labels=False).cast(pl.Float64).mean().alias("rate"))
        .sort("a1")
        .collect(engine="streaming")
    )
    expected = (
        big.with_columns(rate=pl.Series(model.predict(big, labels=False).to_numpy()).cast(pl.Float64)).group_by("a1").agg(pl.col("rate").mean()).sort("a1")
    )
    np.testing.assert_allclose(by["rate"].to_numpy(), expected["rate"].to_numpy())
    # filter with the expression
    assert big.filter(model.predict_expr(labels=False)).height == int(model.predict(big, labels=False).to_numpy().sum())


def test_the_vote_view_holds_the_voting_rules_only() -> None:
    # Exporters print model.vote: the voting rules only (a big BP model keeps every rule
    # found), with their weights, in rule order.
    df = findrs.datasets.monks(2)
    full = df.findrs.fit("class", method="bp", random_state=0, auto=False, settings=dict(T=20, n_rules=None))
    model = full.with_n_rules(5)
    everything = reference.rules_of(full)
    assert len(everything) > 5 == len(model.vote.rules)
    assert [[(c.feature, list(c.codes)) for c in model.vote.rule(i)] for i in range(5)] == everything[:5]
    assert list(model.vote.weights) == full.rules["weight"].head(5).to_list()
    assert model.vote.groups == tuple((i,) for i in range(5))


def test_namespaces_on_dataframe_and_lazyframe() -> None:
    df = findrs.datasets.tic_tac_toe()
    model = df.findrs.fit("class", "positive", auto=False, settings=dict(shuffle=False))
    eager = df.findrs.predict(model)
    lazy = df.lazy().findrs.predict(model).collect(engine="streaming")
    assert_frame_equal(eager, lazy)
    assert (eager["class_predicted"] == df["class"]).all()
    ex = df.lazy().findrs.explain(model, top=1).collect()
    columns = [
        "class_predicted", "class_decision", "class_strength", "fired_rules", "fired_texts", "nearest_rule",
        "failed_conditions",
    ]
    assert ex.columns[-7:] == columns
    assert_frame_equal(ex.select(columns), model.explain(df, top=1))
    assert_frame_equal(df.findrs.explain(model, top=1), ex)


@settings(max_examples=40, deadline=None)
@given(df=frames(allow_float=True, max_rows=40))
def test_explain_lists_exactly_the_rules_that_cover_the_row(df: pl.DataFrame) -> None:
    for method, extra in METHODS:
        for encoding in ("av", "oh"):
            model = findrs.fit(df, "y", **findrs.settings.fit_keywords(dict(method=method, random_state=2, **extra, auto=False, settings=dict(encoding=encoding))))
            data = pl.concat([df, perturbed(df, 5)])
            ex = model.explain(data)
            rules = reference.rules_of(model)[: model.n_rules]
            domains = domains_of(model)
            weights = model.rules["weight"].to_list()
            threshold = model.vote.threshold
            for row, fired, pred in zip(codes_of(data, model), ex["fired_rules"].to_list(), model.predict(data, labels=False).to_numpy()):
                expected = [i for i, r in enumerate(rules) if rule_covers(r, row, domains, encoding)]
                assert fired == expected
                if method == "bp" and pred:
                    # A positive BP prediction: the fired rules' weights exceed the threshold.
                    assert sum(weights[i] for i in fired) > threshold
            texts = ex["fired_texts"].to_list()
            all_texts = model.rules["text"].to_list()
            for ids, ts in zip(ex["fired_rules"].to_list(), texts):
                assert ts == [all_texts[i] for i in ids]


def test_explain_top_keeps_the_heaviest() -> None:
    df = findrs.datasets.monks(2)
    model = df.findrs.fit("class", method="bp", random_state=0, auto=False, settings=dict(T=20, tolerance=1))
    full = model.explain(df)["fired_rules"].to_list()
    top = model.explain(df, top=2)["fired_rules"].to_list()
    assert top == [f[:2] for f in full]
    weights = model.rules["weight"].to_list()
    assert all(weights[a] >= weights[b] for f in full for a, b in zip(f, f[1:]))


def test_expression_errors_are_clear() -> None:
    df = findrs.datasets.tic_tac_toe()
    model = df.findrs.fit("class", "positive", auto=False, settings=dict(shuffle=False))
    with pytest.raises(findrs.FindRSInputError, match="top_left"):
        df.drop("top_left").lazy().findrs.predict(model)
    with pytest.raises(findrs.FindRSInputError, match="engine"):
        model.predict_expr(engine="gpu")  # type: ignore[arg-type]


# Training draws from the first five: the empty string, strings of 1, 2 (non-ASCII), 12 (the
# longest an Arrow view holds inline) and 30 bytes. Prediction frames add values never seen: one
# of 13 bytes, and one of the long value's length and first bytes that differs at its end.
_VALUES = ["a", "", "é", "twelve bytes", "a long value past twelve bytes", "b", "thirteen byte", "a long value past twelve bytez"]
_TRAINING_VALUES = _VALUES[:5]


@st.composite
def _string_frames(draw: st.DrawFn) -> tuple[pl.DataFrame, pl.DataFrame, list[str]]:
    """A training frame of string features (nulls included) and a prediction frame that also
    holds values never seen in training, with the categories an Enum of it would list, in a
    drawn order with extra categories that never occur."""
    n_cols = draw(st.integers(1, 4))
    n = draw(st.integers(4, 30))
    value = st.one_of(st.none(), st.sampled_from(_TRAINING_VALUES))
    cols = {f"f{j}": draw(st.lists(value, min_size=n, max_size=n)) for j in range(n_cols)}
    y = [True, False] + draw(st.lists(st.booleans(), min_size=n - 2, max_size=n - 2))
    train = pl.DataFrame({**cols, "y": y}, schema={**{c: pl.String for c in cols}, "y": pl.Boolean})
    m = draw(st.integers(1, 30))
    seen_or_not = st.one_of(st.none(), st.sampled_from(_VALUES))
    test = pl.DataFrame({c: draw(st.lists(seen_or_not, min_size=m, max_size=m)) for c in cols}, schema={c: pl.String for c in cols})
    cut = draw(st.integers(0, m))  # the prediction frame in two chunks (the plugin reads each)
    test = pl.concat([test.head(cut), test.tail(m - cut)], rechunk=False)
    categories = draw(st.permutations(_VALUES + ["never"]))
    return train, test, list(categories)


@pytest.mark.filterwarnings("ignore::findrs.ContradictionWarning")
@settings(max_examples=40, deadline=None)
@given(case=_string_frames(), method=st.sampled_from(METHODS), encoding=st.sampled_from(["av", "oh"]))
def test_string_enum_and_categorical_inputs_predict_the_same(case, method, encoding) -> None:
    """A string feature's values predict the same whether the frame holds them as String, Enum
    (any order of categories, unused and unseen ones included) or Categorical, nulls and values
    never seen in training included (docs/semantics.md §2), eagerly and in the streaming engine."""
    train, test, categories = case
    name, extra = method
    model = findrs.fit(train, "y", **findrs.settings.fit_keywords(dict(method=name, random_state=0, **extra, auto=False, settings=dict(encoding=encoding))))
    truth = test.select(model.predict_expr(labels=False, engine="compiled")).to_series()
    fired = test.select(model.explain_expr()).to_series() if hasattr(model, "explain_expr") else None
    # Polars 1.32 on: a Categorical of its own categories too (eager prediction reads its codes).
    named = [pl.Categorical(pl.Categories("findrs-test"))] if hasattr(pl, "Categories") else []
    for dtype in (pl.String, pl.Enum(categories), pl.Categorical, *named):
        df = test.cast({c: dtype for c in test.columns})
        assert_series_equal(model.predict(df, labels=False), truth.alias("y"), check_names=False)
        assert_series_equal(model.decision_function(df), test.select(model.decision_expr(engine="compiled")).to_series(), check_names=False)
        lazy = df.lazy().select(model.predict_expr(labels=False), model.decision_expr().alias("d")).collect(engine="streaming")
        assert_series_equal(lazy.to_series(0), truth, check_names=False)
        assert_series_equal(lazy["d"], test.select(model.decision_expr(engine="compiled")).to_series(), check_names=False)
        if fired is not None:
            assert_series_equal(df.select(model.explain_expr()).to_series(), fired)


def test_plugin_errors_reach_python_as_polars_errors() -> None:
    """The plugin's entry points (rust/python/src/plugin_abi.rs) return an error, never crash:
    a model that does not parse, kwargs of the wrong shape and a column of the wrong type each
    raise a Polars error that says what is wrong."""
    from polars.plugins import register_plugin_function

    df = findrs.datasets.tic_tac_toe()
    model = df.findrs.fit("class", "positive", auto=False, settings=dict(shuffle=False))
    lib = Path(findrs.__file__).parent

    def run(args, kwargs) -> None:
        expr = register_plugin_function(plugin_path=lib, function_name="findrs_predict", args=args, kwargs=kwargs, is_elementwise=True)
        df.select(expr)

    codes = [enc.expr() for enc in model.encoders]
    with pytest.raises(pl.exceptions.ComputeError, match="findrs: "):
        run(codes, {"key": "corrupt-model-test", "model": "{not json"})
    with pytest.raises(pl.exceptions.PolarsError, match="kwargs"):
        run(codes, {"key": 1})
    good = model._plugin("findrs_predict").meta.root_names()  # the model's kwargs are built
    assert good
    with pytest.raises(pl.exceptions.ComputeError, match="top_left"):
        run([pl.col(e.name) for e in model.encoders], model._kwargs)


@pytest.mark.parametrize("rows", [0, 1, 50])
def test_plugin_outputs_have_the_dtypes_their_fields_declare(rows: int) -> None:
    """The plugin builds its outputs as Arrow arrays and writes the export itself
    (rust/python/src/plugin_abi.rs, no polars-core): each function's declared field (the lazy
    schema) and the series it returns, eagerly and streaming, have one dtype: Boolean, Float64,
    List(UInt32) and, for a multiclass model's class, UInt32, with the values of
    ``model.predict``, ``model.decision_function`` and the multiclass ``predict``, empty frames
    included."""
    df = findrs.datasets.tic_tac_toe()
    model = df.findrs.fit("class", "positive", auto=False, settings=dict(shuffle=False))
    three = df.with_columns(
        pl.when(pl.col("top_left") == "b").then(pl.lit("blank")).otherwise(pl.col("class")).alias("class")
    )
    multi = three.findrs.fit("class", method="find-rs", random_state=0, auto=False)
    assert multi.classes is not None and len(multi.classes) == 3
    head = df.head(rows)
    classes = [multi.classes.index(c) for c in multi.predict(head).to_list()]
    cases = [
        (model.predict_expr(labels=False, engine="plugin").alias("p"), pl.Boolean, model.predict(head, labels=False).to_list()),
        (model.decision_expr(engine="plugin").alias("d"), pl.Float64, model.decision_function(head).to_list()),
        (model.explain_expr().alias("f"), pl.List(pl.UInt32), None),
        (multi._class_index_expr("plugin").alias("c"), pl.UInt32, classes),
    ]
    for expr, dtype, want in cases:
        lazy = head.lazy().select(expr)
        assert lazy.collect_schema().dtypes() == [dtype]
        eager, streaming = head.select(expr), lazy.collect(engine="streaming")
        for got in (eager, streaming):
            assert got.dtypes == [dtype] and got.height == rows
        assert_frame_equal(eager, streaming)
        if want is not None:
            assert eager.to_series().to_list() == want
