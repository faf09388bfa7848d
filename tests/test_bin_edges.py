"""Bin edges that follow the data (``bin_edges="quantile"`` / ``"supervised"``, docs/semantics.md
§1.1): the cuts are those of the stated criterion, every training value lands on the side of each
cut it was meant to, and predictions, expressions, SQL and model files agree as for equal-width
bins."""

from __future__ import annotations

import json
import math

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import findrs
from findrs.select.auto import scaled_support
from findrs.data.encode import encode_frame, fit_encoders
from findrs.data.edges import supervised_cuts
from findrs.errors import FindRSInputError
from findrs.data.fold_codes import fold_coder
from findrs.models.model import RuleSetModel
from findrs.models.rule_set_parts import _described

from strategies import frames, perturbed
from test_expressions import _all_forms_agree
from test_sql import check_sqlite


def _entropy(y: np.ndarray) -> float:
    if len(y) == 0:
        return 0.0
    p = np.bincount(y) / len(y)
    p = p[p > 0]
    return float(-(p * np.log2(p)).sum())


def _naive_first_cut(x: np.ndarray, y: np.ndarray) -> float | None:
    """Fayyad-Irani's first cut, written out plainly: every boundary between distinct values,
    the least weighted entropy (first of equals), then the MDL test."""
    order = np.argsort(x, kind="stable")
    x, y = x[order], y[order]
    n = len(x)
    best = None
    for i in range(1, n):
        if x[i] == x[i - 1]:
            continue
        w = (i * _entropy(y[:i]) + (n - i) * _entropy(y[i:])) / n
        if best is None or w < best[0]:
            best = (w, i)
    if best is None:
        return None
    w, i = best
    ent = _entropy(y)
    k, k1, k2 = len(set(y)), len(set(y[:i])), len(set(y[i:]))
    delta = math.log2(3**k - 2) - (k * ent - k1 * _entropy(y[:i]) - k2 * _entropy(y[i:]))
    if ent - w <= (math.log2(n - 1) + delta) / n:
        return None
    return x[i - 1] / 2 + x[i] / 2


@settings(max_examples=200, deadline=None)
@given(
    x=st.lists(st.integers(-20, 20), min_size=2, max_size=60),
    seed=st.integers(0, 2**32 - 1),
    classes=st.integers(2, 3),
)
def test_one_cut_is_fayyad_iranis_first_cut(x: list[int], seed: int, classes: int) -> None:
    xa = np.array(x, dtype=np.float64)
    rng = np.random.default_rng(seed)
    # Labels that depend on x with some noise, so that both outcomes of the MDL test occur.
    y = ((xa > rng.integers(-20, 20)) ^ (rng.random(len(xa)) < 0.1)).astype(np.int64)
    if classes == 3:
        y = np.where(rng.random(len(xa)) < 0.2, 2, y)
    want = _naive_first_cut(xa, y)
    got = supervised_cuts(xa, y, 1)
    assert got == ([] if want is None else [want])


@settings(max_examples=100, deadline=None)
@given(x=st.lists(st.floats(-1e6, 1e6), min_size=2, max_size=60), max_cuts=st.integers(1, 9), seed=st.integers(0, 99))
def test_cuts_are_few_distinct_and_between_training_values(x: list[float], max_cuts: int, seed: int) -> None:
    xa = np.array(x)
    y = (np.random.default_rng(seed).random(len(xa)) < 0.5).astype(np.int64)
    cuts = supervised_cuts(xa, y, max_cuts)
    assert len(cuts) <= max_cuts and cuts == sorted(set(cuts))
    for c in cuts:
        assert xa.min() < c <= xa.max()


def test_a_pure_threshold_is_found_and_noise_alone_is_not_cut() -> None:
    x = np.arange(200, dtype=np.float64)
    assert supervised_cuts(x, (x >= 137).astype(int), 9) == [136.5]
    rng = np.random.default_rng(0)
    assert supervised_cuts(x, (rng.random(200) < 0.5).astype(int), 9) == []


@settings(max_examples=60, deadline=None)
@given(
    values=st.lists(st.one_of(st.floats(-1e3, 1e3), st.integers(-10**6, 10**6).map(float)), min_size=12, max_size=80),
    how=st.sampled_from(["quantile", "supervised"]),
    integer=st.booleans(),
    bins=st.integers(2, 12),
    seed=st.integers(0, 99),
)
def test_training_values_fall_on_the_intended_side(values, how, integer, bins, seed) -> None:
    """Each supervised cut separates the two training values it lies between after the nudge (or
    exactly, for an integer column); quantile edges are distinct and inside the range."""
    if integer:
        s = pl.Series("x", [int(v) for v in values], dtype=pl.Int64)
    else:
        s = pl.Series("x", values, dtype=pl.Float64)
    if s.n_unique() <= bins:
        return  # categorical, no edges
    y = (np.random.default_rng(seed).random(len(s)) < 0.5).astype(np.int64)
    y[np.argsort(s.to_numpy())[len(s) // 2 :]] ^= 1  # a signal for the cuts to find
    (enc,) = fit_encoders(s.to_frame(), ["x"], bins, bin_edges=how, labels=y)
    assert enc.kind == "binned"
    edges = enc.edges
    assert len(edges) - 1 <= bins and all(a < b for a, b in zip(edges[1:-1], edges[2:-1]))
    x = s.to_numpy().astype(np.float64)
    codes = enc.encode(s)
    b = np.array([enc.values[c] for c in codes])
    distinct = np.unique(x)
    if how == "supervised":
        for cut in edges[1:-1]:
            j = int(np.searchsorted(distinct, cut))
            below, above = distinct[:j], distinct[j:]
            # Every value below a cut is in a lower bin than every value above it.
            if len(below) and len(above):
                assert b[x <= below[-1]].max() < b[x >= above[0]].min()
    # The binning is monotone in the value.
    order = np.argsort(x, kind="stable")
    assert (np.diff(b[order]) >= 0).all()


def _frame(n: int = 300, seed: int = 0) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    gain = np.where(rng.random(n) < 0.8, 0, rng.integers(100, 20_000, n))
    hours = rng.normal(40, 10, n)
    hours[rng.random(n) < 0.05] = np.nan
    y = (gain > 7_300) | ((hours > 45) & (rng.random(n) < 0.7))
    return pl.DataFrame({"gain": gain, "hours": hours, "kind": rng.choice(["a", "b"], n), "y": y})


@pytest.mark.parametrize("how", ["uniform", "quantile", "supervised"])
@pytest.mark.parametrize("method", ["find-rs", "bp"])
def test_predictions_expressions_sql_and_files_agree(how: str, method: str) -> None:
    train, test = _frame(300, 0), _frame(200, 1)
    model = findrs.fit(train, "y", method=method, random_state=0, settings=dict(bin_edges=how, T=10, tolerance=0.1))
    assert model.params["bin_edges"] == how
    _all_forms_agree(model, test)
    check_sqlite(model, test)
    loaded = RuleSetModel.from_json(model.to_json())
    assert loaded.params["bin_edges"] == how and loaded.encoders == model.encoders
    assert loaded.predict(test).equals(model.predict(test))
    assert loaded.to_sql() == model.to_sql()


def test_supervised_finds_the_threshold_equal_width_bins_miss() -> None:
    train = _frame(2000, 0)
    (enc,) = [e for e in fit_encoders(train, ["gain"], 10, bin_edges="supervised", labels=train["y"].to_numpy()) if e.name == "gain"]
    # The class changes at 7,300 (the gain values are integers, so the cut is a whole number).
    assert any(7_200 <= e <= 7_400 for e in enc.edges[1:-1]), enc.edges
    (uni,) = fit_encoders(train, ["gain"], 10)
    assert not any(7_200 <= e <= 7_400 for e in uni.edges[1:-1])


def test_older_files_and_default_read_as_equal_width() -> None:
    model = findrs.fit(_frame(), "y", random_state=0, auto=False)
    assert model.params["bin_edges"] == "uniform"
    data = json.loads(model.to_json())
    data["params"].pop("bin_edges")
    loaded = RuleSetModel.from_json(json.dumps(data))
    assert loaded.params["bin_edges"] == "uniform"
    assert loaded.predict(_frame(50, 3)).equals(model.predict(_frame(50, 3)))


def test_bad_bin_edges_is_refused() -> None:
    with pytest.raises(FindRSInputError, match="bin_edges"):
        findrs.fit(_frame(), "y", settings=dict(bin_edges="kmeans"))


@settings(max_examples=25, deadline=None)
@given(df=frames(allow_float=True, other_dtypes=True, max_rows=40))
def test_forms_agree_on_random_frames(df: pl.DataFrame) -> None:
    for how in ("quantile", "supervised"):
        model = findrs.fit(df, "y", random_state=1, auto=False, settings=dict(bin_edges=how))
        _all_forms_agree(model, pl.concat([df, perturbed(df, 3)]))
        codes = encode_frame(df, model.encoders)
        assert all(len(c) == df.height for c in codes)


# --------------------------------------------------------------------------- bin edges by CV
# With numeric="bins" given: the bin edge axis alone (numeric=None adds bins against intervals,
# tests/test_intervals.py).
def test_default_cross_validates_the_bin_edges_and_records_them() -> None:
    train = _frame(400, 0)
    model = findrs.fit(train, "y", random_state=0, method="find-rs", max_rules=None,  # no vote (§9.5), no size (§8.1)
                       settings=dict(numeric="bins"))
    assert model.params["auto"][-1] == "bin_edges"
    table = model.cv_results
    assert set(table["bin_edges"]) == {"uniform", "supervised"}
    chosen = table.filter(pl.col("chosen"))
    assert chosen.height == 1 and chosen["bin_edges"][0] == model.params["bin_edges"]
    assert f"bin_edges={model.params['bin_edges']!r}" in str(model)
    # The winner has the most held-out rows right of all candidates of both placements.
    assert chosen["cv_accuracy"][0] == table["cv_accuracy"].max()
    # It is the model a fit with that placement and the chosen settings given gives.
    how = model.params["bin_edges"]
    chosen_settings = {k: model.params[k] for k in ("encoding", "tolerance", "min_support", "direction", "simplify")}
    fixed = findrs.fit(train, "y", **findrs.settings.fit_keywords(dict(random_state=0, method="find-rs", auto=False, **chosen_settings, settings=dict(bin_edges=how, numeric="bins"))))
    assert fixed.rules.equals(model.rules) and fixed.encoders == model.encoders
    # Its candidates are those of the placement's own cross-validation: every row's codes for
    # uniform bins, each fold's own supervised edges (tests/test_fold_edges.py).
    y = train["y"].to_numpy()
    enc = fit_encoders(train, ["gain", "hours", "kind"], 10, bin_edges=how, labels=y)
    params = {**model.params, "bin_edges": how, **{k: "auto" for k in model.params["auto"] if k != "bin_edges"}}
    codes = encode_frame(train, enc)
    coder = fold_coder(train, enc, codes, y, 10) if how == "supervised" else None
    own = RuleSetModel._cross_validate(codes, y, enc, params, None, None, fold_codes=coder)
    part = table.filter(pl.col("bin_edges") == how).drop("bin_edges")
    assert part["cv_accuracy"].to_list() == [sum(c["correct"]) / sum(c["rows"]) for c in own["candidates"]]
    # Both placements were scored on the same folds.
    loaded = RuleSetModel.from_json(model.to_json())
    assert loaded.cv_results.equals(table) and loaded.params == model.params


@pytest.mark.parametrize("how", ["uniform", "supervised"])
def test_cross_validation_without_a_final_fit_is_the_fits_record(how: str) -> None:
    # The placements that lose are only cross-validated (no fit on all rows): their record must
    # be the one a fit would have made, or the comparison would not be the fit's.
    train = _frame(400, 1)
    y = train["y"].to_numpy()
    enc = fit_encoders(train, ["gain", "hours", "kind"], 10, bin_edges=how, labels=y)
    codes = encode_frame(train, enc)
    model = findrs.fit(train, "y", random_state=3, method="find-rs", max_rules=None, settings=dict(bin_edges=how, numeric="bins"))
    # A supervised placement, given too, is scored on each fold's own cuts (docs/semantics.md §9.4).
    coder = fold_coder(train, enc, codes, y, 10) if how == "supervised" else None
    rec = RuleSetModel._cross_validate(codes, y, enc, {**model.params, "auto": model.params["auto"],
                                       **{k: "auto" for k in model.params["auto"]}}, None, None, fold_codes=coder)
    assert rec == model._cv


@pytest.mark.parametrize("how", ["uniform", "supervised"])
@pytest.mark.parametrize("cv_rows", [None, 150])
def test_the_final_fit_from_the_record_is_the_fit_that_cross_validates_again(how: str, cv_rows: int | None) -> None:
    # The encoding axes fit their winner from the record its cross-validation made (no second
    # cross-validation, docs/semantics.md §9.4): the same model and record as a fit that runs it
    # again, with a sample (support scaled) too; and the core fits down the given scores.
    train = _frame(400, 4)
    y = train["y"].to_numpy()
    enc = fit_encoders(train, ["gain", "hours", "kind"], 10, bin_edges=how, labels=y)
    codes = encode_frame(train, enc)
    coder = fold_coder(train, enc, codes, y, 10) if how == "supervised" else None
    model = findrs.fit(
        train, "y", random_state=2, method="find-rs", max_rules=None,
        settings=dict(bin_edges=how, numeric="bins", cv_rows=cv_rows, exceptions=False),
    )  # the FIND-RS model of the record (rules with exceptions may win here)
    params = {**model.params, **{k: "auto" for k in model.params["auto"]}}
    rec = RuleSetModel._cross_validate(codes, y, enc, params, None, None, fold_codes=coder)
    target = _described(model.target, model.params["direction"] == "negative")  # the fit's own
    again = RuleSetModel._fit_auto(codes, y, enc, target, params, None, None, coder)
    reused = RuleSetModel._fit_auto(codes, y, enc, target, params, None, None, coder, record=rec)
    assert reused.to_json() == again.to_json()
    assert again.to_json() == model.to_json()  # a given placement, supervised too, is cross-validated so
    # Scores that rank another candidate first: that one is fitted (the scores are the core's
    # ranking, not a cross-validation run again), its support scaled as after a sampled CV.
    other = next(i for i, c in enumerate(rec["candidates"]) if i != rec["chosen"] and c["min_support"] > 0)
    tweaked = {**rec, "candidates": [dict(c) for c in rec["candidates"]]}
    tweaked["candidates"][other]["correct"] = list(tweaked["candidates"][other]["rows"])
    forced = RuleSetModel._fit_auto(codes, y, enc, target, params, None, None, coder, record=tweaked)
    assert forced._cv["chosen"] == other and forced._cv["candidates"] == tweaked["candidates"]
    c = rec["candidates"][other]
    fixed = findrs.fit(
        train, "y", random_state=2, method="find-rs", auto=False,
        settings=dict(bin_edges=how, numeric="bins", encoding=c["encoding"], tolerance=c["tolerance"], direction=c["direction"], simplify=c["simplify"], min_support=scaled_support(c["min_support"], train.height, rec["sampled"])),
    )
    assert fixed.rules.equals(forced.rules)


def test_edges_choice_does_not_depend_on_threads() -> None:
    train = _frame(300, 2)
    one = findrs.fit(train, "y", random_state=5, n_jobs=1, settings=dict(numeric="bins"))
    two = findrs.fit(train, "y", random_state=5, n_jobs=2, settings=dict(numeric="bins"))
    assert one.params == two.params and one.rules.equals(two.rules) and one.cv_results.equals(two.cv_results)


def test_no_binned_column_or_paper_settings_means_uniform_and_no_extra_cv() -> None:
    df = findrs.datasets.monks(1)
    model = findrs.fit(df, "class", random_state=0)
    assert "bin_edges" not in model.params["auto"] and "bin_edges" not in model.cv_results.columns
    assert model.params["bin_edges"] == "uniform"
    paper = findrs.fit(_frame(), "y", random_state=0, auto=False)
    assert paper.params["bin_edges"] == "uniform" and paper.cv_results is None


def test_a_file_whose_chosen_edges_disagree_is_refused() -> None:
    model = findrs.fit(_frame(400, 0), "y", random_state=0, settings=dict(numeric="bins"))
    data = json.loads(model.to_json())
    other = "uniform" if model.params["bin_edges"] == "supervised" else "supervised"
    data["params"]["bin_edges"] = other
    with pytest.raises(FindRSInputError, match="bin_edges"):
        RuleSetModel.from_json(json.dumps(data))
    data = json.loads(model.to_json())
    data["cv"]["candidates"][0]["bin_edges"] = "kmeans"
    with pytest.raises(FindRSInputError, match="bin_edges"):
        RuleSetModel.from_json(json.dumps(data))
