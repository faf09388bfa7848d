"""Honest cross-validation of supervised bin edges (docs/semantics.md §9.4): when the automatic
cross-validation scores the supervised placement, each fold's edges are placed on that fold's
training rows only, and its held-out rows are encoded with them. So each fold score is exactly
what a fit with ``bin_edges="supervised"`` on the fold's training rows scores on its held-out
rows, a placement given as ``bin_edges="supervised"`` too; ``auto=False`` is as before."""

from __future__ import annotations

import warnings

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import findrs
from findrs import _core
from findrs.data.encode import encode_frame, fit_encoders
from findrs.data.fold_codes import fold_coder, refit_edges
from findrs.models.rule_set_parts import UNSAMPLED
from findrs.models.model import RuleSetModel

from test_bin_edges import _frame

FEATURES = ["gain", "hours", "kind"]


def _fit_quietly(df: pl.DataFrame, **kw: object) -> RuleSetModel:
    """A fit of ``y``, accuracy-first (``max_rules=None``: the fold edges are the subject here,
    not the size) unless ``kw`` gives a size."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return findrs.fit(df, "y", **findrs.settings.fit_keywords({"max_rules": None, **kw}))


def _supervised_candidates(model: RuleSetModel) -> list[dict]:
    return [c for c in model._cv["candidates"] if c["bin_edges"] == "supervised"]


@pytest.mark.parametrize("seed", [0, 1])
def test_each_fold_score_is_a_fit_on_the_folds_training_rows(seed: int) -> None:
    train = _frame(300, seed)
    model = _fit_quietly(train, random_state=seed, numeric="bins", method="find-rs")
    assert "bin_edges" in model.params["auto"]
    y = train["y"].to_numpy()
    k = model._cv["folds"]
    fold_of = _core.cv_folds(y, k, seed, model.params["cv_rows"])
    cands = _supervised_candidates(model)
    assert cands
    for c in cands[:: max(1, len(cands) // 12)]:
        for f in range(k):
            held = train.filter(pl.Series(fold_of == f))
            part = train.filter(pl.Series((fold_of != f) & (fold_of != UNSAMPLED)))
            settings = {key: c[key] for key in ("encoding", "tolerance", "min_support", "direction", "simplify")}
            try:
                m = _fit_quietly(part, random_state=_core.fold_seed(seed, f), auto=False, method="find-rs",
                                 bin_edges="supervised", numeric="bins", **settings)
                pred = m.predict(held)
            except findrs.FindRSInputError:  # the support leaves no rule: every row predicted negative
                pred = pl.Series([settings["direction"] == "negative"] * held.height)
            assert c["correct"][f] == int((pred == held["y"]).sum()), (c, f)
    # Not vacuous: the folds' edges are their own, not every row's.
    enc = fit_encoders(train, FEATURES, 10, bin_edges="supervised", labels=y)
    own = [refit_edges(train, enc, (fold_of != f) & (fold_of != UNSAMPLED), y, 10) for f in range(k)]
    assert any(a.edges != b.edges for fold in own for a, b in zip(enc, fold) if a.kind == "binned")


@settings(max_examples=60, deadline=None)
@given(
    floats=st.lists(st.one_of(st.none(), st.sampled_from([float("nan"), float("inf"), -float("inf")]),
                              st.floats(-1e3, 1e3, allow_nan=False)), min_size=12, max_size=40),
    seed=st.integers(0, 2**16),
)
def test_fold_codes_match_the_binnings_own_encoding(floats: list, seed: int) -> None:
    # The fold's codes (a numpy binning by the exact bin starts) are encode_frame's under the
    # fold's encoders, for every value: finite, infinite, NaN, null, in a bin the fold's rows
    # leave empty; for a float and an integer column; and the encoders are fit_encoders' on
    # the fold's rows.
    rng = np.random.default_rng(seed)
    n = len(floats)
    ints = [None if rng.random() < 0.1 else int(v) for v in rng.integers(-50, 50, n)]
    df = pl.DataFrame({"f": floats, "i": ints}, schema={"f": pl.Float64, "i": pl.Int64})
    y = rng.random(n) < 0.5
    x = df["f"].cast(pl.Float64).to_numpy()
    if not np.isfinite(x).any() or df["i"].drop_nulls().n_unique() <= 3:
        return
    enc = fit_encoders(df, ["f", "i"], 3, bin_edges="supervised", labels=y)
    rows = rng.random(n) < 0.7
    fold_enc, codes = fold_coder(df, enc, encode_frame(df, enc), y, 3)(rows)
    assert all((c == w).all() for c, w in zip(codes, encode_frame(df, fold_enc)))
    part = df.filter(pl.Series(rows))
    if not np.isfinite(part["f"].cast(pl.Float64).to_numpy()).any():
        return
    own = fit_encoders(part, ["f", "i"], 3, bin_edges="supervised", labels=y[rows])
    for a, b in zip(fold_enc, own):
        if a.kind == b.kind == "binned":
            assert a.values == b.values and a.edges[1:-1] == b.edges[1:-1]


def test_fold_codes_are_those_of_encoders_fitted_on_the_fold() -> None:
    train = _frame(300, 3)
    y = train["y"].to_numpy()
    enc = fit_encoders(train, FEATURES, 10, bin_edges="supervised", labels=y)
    rows = np.arange(train.height) % 4 != 0
    fold_enc, codes = fold_coder(train, enc, encode_frame(train, enc), y, 10)(rows)
    own = fit_encoders(train.filter(pl.Series(rows)), FEATURES, 10, bin_edges="supervised", labels=y[rows])
    for a, b in zip(fold_enc, own):
        assert a.kind == b.kind and a.values == b.values
        if a.kind == "binned":
            assert a.edges[1:-1] == b.edges[1:-1]  # the outer edges are every row's range
    want = encode_frame(train, own)  # every row, held-out ones included, as a fit on the fold encodes them
    assert all((x == w).all() for x, w in zip(codes, want))
    # Uniform bins and categorical columns keep their encoders.
    assert refit_edges(train, fit_encoders(train, ["kind"], 10), rows, y, 10) == fit_encoders(train, ["kind"], 10)
    with pytest.raises(ValueError, match="one value per row"):
        refit_edges(train, enc, rows[:-1], y, 10)


def test_the_chosen_supervised_model_is_the_fit_of_its_settings() -> None:
    # Chosen automatically, the supervised placement's model is the fit on all rows (edges of
    # every training row) of the candidate the honest cross-validation chose.
    for seed in range(6):
        train = _frame(300, seed)
        model = _fit_quietly(train, random_state=seed, numeric="bins", method="find-rs")
        if model.params["bin_edges"] != "supervised":
            continue
        c = model._cv["candidates"][model._cv["chosen"]]
        settings = {key: model.params[key] for key in ("encoding", "tolerance", "min_support", "direction", "simplify")}
        fixed = _fit_quietly(train, random_state=seed, auto=False, method="find-rs", bin_edges="supervised",
                             numeric="bins", **settings)
        assert fixed.rules.equals(model.rules) and fixed.encoders == model.encoders
        assert c["bin_edges"] == "supervised"
        return
    pytest.fail("no seed chose the supervised placement")


@pytest.mark.parametrize("numeric", ["bins", None])
def test_a_given_supervised_placement_is_scored_on_each_folds_own_edges(numeric: str | None) -> None:
    # Given as bin_edges (no bin edge axis), the supervised placement's cross-validation still
    # places each fold's cuts on that fold's training rows (docs/semantics.md §9.4); with
    # numeric=None the bins-or-intervals axis reads the same bins record.
    train = _frame(300, 4)
    y = train["y"].to_numpy()
    enc = fit_encoders(train, FEATURES, 10, bin_edges="supervised", labels=y)
    codes = encode_frame(train, enc)
    given = _fit_quietly(train, random_state=4, bin_edges="supervised", numeric=numeric, method="find-rs")
    params = {**given.params, "numeric": "bins", **{k: "auto" for k in given.params["auto"] if k != "numeric"}}
    honest = RuleSetModel._cross_validate(codes, y, enc, params, None, None, fold_codes=fold_coder(train, enc, codes, y, 10))
    bins_rec = given._cv if numeric == "bins" else {
        **given._cv, "candidates": [c for c in given._cv["candidates"] if c.get("numeric", "bins") == "bins"]}
    strip = lambda r: [{k: v for k, v in c.items() if k not in ("numeric", "bin_edges")} for c in r["candidates"]]
    assert strip(honest) == strip(bins_rec)
    shared = RuleSetModel._cross_validate(codes, y, enc, params, None, None)
    assert strip(shared) != strip(honest)  # every row's cuts score differently: the test can fail


def test_per_fold_edges_do_not_depend_on_threads() -> None:
    train = _frame(300, 5)
    one = _fit_quietly(train, random_state=5, n_jobs=1, numeric="bins")
    two = _fit_quietly(train, random_state=5, n_jobs=2, numeric="bins")
    assert one.params == two.params and one.rules.equals(two.rules) and one.cv_results.equals(two.cv_results)


def test_with_a_sample_each_fold_learns_its_edges_from_every_row_but_its_held_out_ones() -> None:
    # The rows outside the cross-validation's sample are held out by no fold: each fold's cuts
    # see them, as the final fit's cuts see every row; never a row of the fold's held-out part.
    train = _frame(400, 6)
    y = train["y"].to_numpy()
    enc = fit_encoders(train, FEATURES, 10, bin_edges="supervised", labels=y)
    coder = fold_coder(train, enc, encode_frame(train, enc), y, 10)
    asked: list[np.ndarray] = []

    def spy(rows: np.ndarray):
        asked.append(rows.copy())
        return coder(rows)

    params = {**findrs.fit(train, "y", random_state=6, auto=False, settings=dict(numeric="bins")).params, "cv_rows": 150,
              "auto": ["tolerance"], "tolerance": "auto", "cv": 3, "cv_T": 1, "bin_edges": "supervised"}
    rec = RuleSetModel._cross_validate(encode_frame(train, enc), y, enc, params, None, None, fold_codes=spy)
    assert rec["sampled"] < train.height
    fold_of = _core.cv_folds(y, 3, 6, 150)
    assert (fold_of == UNSAMPLED).sum() == train.height - rec["sampled"]
    assert [a.tolist() for a in asked] == [(fold_of != f).tolist() for f in range(3)]


def test_the_votes_fold_scores_use_the_folds_own_edges_too() -> None:
    # method=None (docs/semantics.md §9.5): after the supervised placement won, each vote
    # candidate's fold score is a BP fit (T = 20, its K) with bin_edges="supervised" on the
    # fold's training rows, scored on its held-out rows.
    seed = 1
    train = _frame(300, seed)
    model = _fit_quietly(train, random_state=seed, numeric="bins")
    assert model.params["bin_edges"] == "supervised"
    y = train["y"].to_numpy()
    fold_of = _core.cv_folds(y, model._cv["folds"], seed, model.params["cv_rows"])
    votes = [c for c in model._cv["candidates"] if c.get("method") == "bp"]
    assert votes
    for c in votes[:3]:
        for f in range(model._cv["folds"]):
            held = train.filter(pl.Series(fold_of == f))
            part = train.filter(pl.Series(fold_of != f))
            settings = {key: c[key] for key in ("encoding", "tolerance", "min_support", "direction", "simplify")}
            m = _fit_quietly(part, random_state=_core.fold_seed(seed, f), auto=False, method="bp", T=20,
                             n_rules=c["n_rules"], bin_edges="supervised", numeric="bins", **settings)
            assert c["correct"][f] == int((m.predict(held) == held["y"]).sum()), (c, f)


def test_a_cut_between_values_closer_than_the_nudge_is_dropped() -> None:
    # Found by the random Hypothesis profile: 0 and 5e-244 are closer than the binning's nudge
    # (1e-8), so no edge separates them after it; the supervised cut between them used to be
    # moved to 1.0000000000000002e-08 and kept when a larger value set `hi` above it, so a
    # fold's edges (outer edges of every row) and the fold's own fit (outer edges of its rows)
    # differed. Dropped, both agree, and every value keeps its side.
    from findrs.data.edges import data_edges_of

    x = np.array([0.0, 5.055323843035702e-244, 1.0])
    y = np.array([True, False, False])
    for hi in (5.055323843035702e-244, 1.0):
        edges = data_edges_of(x[x <= hi], "float", 0.0, hi, 3, "supervised", y[x <= hi])
        assert edges == (0.0, hi)
    x = np.array([0.0, 0.0, 5.055323843035702e-244, 5.055323843035702e-244, 1.0, 1.0, 1.0, 1.0])
    y = np.array([True, True, True, True, False, False, False, False])
    assert data_edges_of(x, "float", 0.0, 1.0, 3, "supervised", y) == (0.0, 0.5, 1.0)
