"""Successive halving of the automatic cross-validation (docs/semantics.md §9.4, "Successive
halving"): the stages' arithmetic, and the composition checked against plain
cross-validations of the same candidates (the oracle: each stage is exactly the
cross-validation of its candidates on its sample, and the record is the last stage's)."""

from __future__ import annotations

import math
import re
import warnings

import numpy as np
import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st

import findrs
from findrs.data.encode import encode_frame, fit_encoders
from findrs.models.model import RuleSetModel
from findrs.select import auto, halving

FEATURES = ["a", "b", "c", "x"]


def _frame(n: int, seed: int) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 4, n)
    b = rng.integers(0, 3, n)
    c = rng.choice(["p", "q", "r"], n)
    x = rng.integers(0, 6, n)
    y = ((a == 1) & (b != 2)) | ((c == "q") & (x > 3))
    y ^= rng.random(n) < 0.12
    return pl.DataFrame({"a": a, "b": b, "c": c, "x": x, "y": y})


@pytest.fixture
def small_stages(monkeypatch: pytest.MonkeyPatch) -> None:
    """Halving on a few hundred rows (the defaults start at thousands), so the tests are quick."""
    monkeypatch.setattr(halving, "MIN_ROWS", 60)
    monkeypatch.setattr(halving, "MIN_SMALLER_PER_FOLD", 4)


def _setup(n: int = 900, seed: int = 0) -> tuple:
    df = _frame(n, seed)
    y = df["y"].to_numpy()
    enc = fit_encoders(df, FEATURES, 10)
    codes = encode_frame(df, enc)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # binned rows that contradict: the data are noisy on purpose
        model = findrs.fit(df, "y", random_state=seed, method="find-rs", settings=dict(numeric="bins", bin_edges="uniform"))
    params = {**model.params, **{k: "auto" for k in auto.AUTOMATIC if k != "n_rules"}, "cv": None, "min_support": "auto"}
    params["auto"] = [k for k in auto.AUTOMATIC if k != "n_rules"]
    return df, y, enc, codes, params


def _settings(rec: dict) -> list[dict]:
    return [{k: c[k] for k in auto.AUTOMATIC} for c in rec["candidates"]]


def _counts(rec: dict) -> list[tuple]:
    return [tuple(tuple(c[k]) for k in ("correct", "rows", "rules", "conditions")) for c in rec["candidates"]]


@pytest.mark.parametrize("n, seed, z", [(900, 0, None), (700, 1, None), (1_200, 2, None), (900, 0, 0.0), (1_200, 2, 0.0)])
def test_the_record_is_the_plain_cross_validation_of_the_survivors(small_stages: None, monkeypatch: pytest.MonkeyPatch,
                                                                   n: int, seed: int, z: float | None) -> None:
    if z is not None:  # only the leader's encoding goes on: the race leaves one behind
        monkeypatch.setattr(halving, "RACE_Z", z)
    _, y, enc, codes, params = _setup(n, seed)
    grid = auto.candidates(params, n_positives=int(y.sum()), n_negatives=int((~y).sum()))
    order = list(dict.fromkeys(halving.group(c) for c in grid))
    plan = halving.stages(len(y), n_smaller=int(min(y.sum(), (~y).sum())), folds=5,
                          group_sizes=halving.strata_sizes(order))
    assert plan, "the fixture's sizes must give at least one stage"
    halved = RuleSetModel._cross_validate(codes, y, enc, params, None, None)
    # The oracle: the same stages made by hand from plain cross-validations of candidate lists.
    alive = set(order)
    for k, r in enumerate(plan):
        stage = halving.stage_candidates(grid, alive, r, len(y))
        rec = RuleSetModel._cross_validate(codes, y, enc, {**params, "cv_rows": r, "cv": 5}, None, None, cands=stage)
        assert rec["sampled"] <= r + 2  # a stratified sample of about r rows
        rows = [tuple(c[k] for k in ("correct", "rows", "rules", "conditions")) for c in rec["candidates"]]
        alive = halving.survivors(stage, rows, order)
        if k == 0:  # AV and OH race: an encoding too far behind the best leaves
            best = {e: max(sum(c["correct"]) for c in rec["candidates"] if c["encoding"] == e) for e in ("av", "oh")}
            a = max(best.values()) / rec["sampled"]
            margin = halving.RACE_Z * math.sqrt(2 * a * (1 - a) * rec["sampled"])
            alive = {g for g in alive if max(best.values()) - best[g[0]] <= margin}
    survivors = [c for c in grid if halving.group(c) in alive]
    assert _settings(halved) == [{k: c[k] for k in auto.AUTOMATIC} for c in survivors]
    assert z is None or len({c["encoding"] for c in survivors}) == 1
    assert len(survivors) < len(grid)
    plain = RuleSetModel._cross_validate(codes, y, enc, {**params, "cv": 5}, None, None, cands=survivors)
    assert _counts(halved) == _counts(plain) and halved["chosen"] == plain["chosen"]


def test_without_stages_the_grid_is_cross_validated_whole() -> None:
    _, y, enc, codes, params = _setup(400)
    grid = auto.candidates(params, n_positives=int(y.sum()), n_negatives=int((~y).sum()))
    assert len(_settings(RuleSetModel._cross_validate(codes, y, enc, params, None, None))) == len(grid)


def test_a_halved_fit_does_not_depend_on_threads(small_stages: None) -> None:
    df = _frame(900, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        one, two = (findrs.fit(df, "y", random_state=3, n_jobs=j) for j in (1, 2))
    assert one.to_json() == two.to_json()
    assert one.cv_results.height < 0.75 * len(auto.candidates(
        {**one.params, **{k: "auto" for k in auto.AUTOMATIC if k != "n_rules"}},
        n_positives=int(df["y"].sum()), n_negatives=int((~df["y"]).sum())))


def test_progress_runs_on_over_the_stages_with_one_total(small_stages: None) -> None:
    _, y, enc, codes, params = _setup()
    seen: list[tuple[int, int]] = []
    RuleSetModel._cross_validate(codes, y, enc, params, None, lambda d, t: seen.append((d, t)))
    assert len({t for _, t in seen}) == 1, seen
    assert [d for d, _ in seen] == sorted(d for d, _ in seen) and seen[-1][0] == seen[-1][1]


GROUPS = st.lists(st.tuples(st.sampled_from(["av", "oh"]), st.sampled_from(["positive", "negative"]),
                            st.integers(0, 8)), min_size=1, max_size=30, unique=True)


@given(GROUPS, st.data())
def test_survivors_keep_each_strata_best_and_the_planned_count(groups: list, data: st.DataObject) -> None:
    cands = [{"encoding": e, "direction": d, "tolerance": t, "min_support": s} for e, d, t in groups for s in (0, 2)]
    rows = [([data.draw(st.integers(0, 20))], [20], [1], [data.draw(st.integers(0, 5))]) for _ in cands]
    order = list(dict.fromkeys(halving.group(c) for c in cands))
    alive = halving.survivors(cands, rows, order)
    sizes = halving.strata_sizes(order)
    assert len(alive) == halving.stage_groups(sizes, 1)[1]
    for stratum in {(e, d) for e, d, _ in groups}:
        scored = [((sum(r[0]), -sum(r[3])), -order.index(halving.group(c)), halving.group(c))
                  for c, r in zip(cands, rows) if (c["encoding"], c["direction"]) == stratum]
        assert max(scored)[2] in alive  # the stratum's best group goes on
        kept = sum(1 for g in alive if (g[0], g[3]) == stratum)
        n = len({s[2] for s in scored})
        assert kept == min(n, max(halving.MIN_KEEP, math.ceil(n / halving.FACTOR)))


@given(st.integers(0, 200_000), st.integers(0, 100_000), st.integers(2, 10),
       st.lists(st.integers(1, 40), min_size=1, max_size=6))
def test_stages_are_ascending_and_large_enough(sample: int, smaller: int, folds: int, sizes: list[int]) -> None:
    plan = halving.stages(sample, n_smaller=min(smaller, sample), folds=folds, group_sizes=sizes)
    assert plan == sorted(plan) and all(r >= halving.MIN_ROWS for r in plan) and all(r < sample for r in plan)
    assert len(plan) <= len(halving.stage_groups(sizes, len(plan))) - 1


def test_a_cross_validation_goes_on_from_its_first_stage_as_if_run_alone(small_stages: None) -> None:
    _, y, enc, codes, params = _setup(900, 4)
    first = RuleSetModel._first_stage(codes, y, enc, params, None, lambda: None)
    assert first is not None
    whole = RuleSetModel._cross_validate(codes, y, enc, params, None, None)
    raced = {**first, "alive": halving.race_groups([first])[0]}
    assert RuleSetModel._cross_validate(codes, y, enc, params, None, None, first=raced) == whole
    # Its best is the plain cross-validation of the whole grid's candidates on the first stage's sample.
    grid = auto.candidates(params, n_positives=int(y.sum()), n_negatives=int((~y).sum()))
    r = halving.stages(len(y), n_smaller=int(min(y.sum(), (~y).sum())), folds=5,
                       group_sizes=halving.strata_sizes(list(dict.fromkeys(halving.group(c) for c in grid))))[0]
    stage = halving.stage_candidates(grid, {halving.group(c) for c in grid}, r, len(y))
    plain = RuleSetModel._cross_validate(codes, y, enc, {**params, "cv_rows": r, "cv": 5}, None, None, cands=stage)
    assert first["rows"] == plain["sampled"]
    assert first["best"] == {e: max(sum(c["correct"]) for c in plain["candidates"] if c["encoding"] == e)
                             for e in ("av", "oh")}


def test_without_a_stage_there_is_no_first_stage() -> None:
    _, y, enc, codes, params = _setup(400)
    assert RuleSetModel._first_stage(codes, y, enc, params, None, lambda: None) is None


@given(st.lists(st.integers(0, 4_000), min_size=1, max_size=6), st.floats(0, 5), st.floats(0, 5))
def test_the_race_keeps_the_leader_and_whoever_is_within_the_margin(best: list[int], z: float, w: float) -> None:
    rows = 4_000
    go = halving.race(best, rows, z)
    top = max(best)
    assert go[best.index(top)]
    a = top / rows
    for b, g in zip(best, go):
        assert g == (top - b <= z * math.sqrt(2 * a * (1 - a) * rows))
    if w >= z:  # a wider margin keeps at least the same encodings
        assert all(h for g, h in zip(go, halving.race(best, rows, w)) if g)


def _mixed(n: int, seed: int) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    x = rng.gamma(2.0, 3.0, n)  # skewed: equal-width bins put most rows in the first bins
    z = rng.normal(0.0, 1.0, n)
    c = rng.choice(["p", "q", "r"], n)
    y = ((x > 4.1) & (x < 5.3)) | ((c == "q") & (z > 0.8))
    y ^= rng.random(n) < 0.08
    return pl.DataFrame({"x": x, "z": z, "c": c, "y": y})


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_raced_fit_is_the_unraced_one_restricted_to_the_encodings_that_go_on(
        small_stages: None, monkeypatch: pytest.MonkeyPatch, seed: int) -> None:
    df = _mixed(1_200, seed)
    seen: list[list[set]] = []
    race = halving.race_groups
    monkeypatch.setattr(halving, "race_groups", lambda firsts, z=None: seen.append(race(firsts, z)) or seen[-1])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        raced = findrs.fit(df, "y", random_state=seed, max_rules=None, settings=dict(exceptions=False))
        monkeypatch.setattr(halving, "RACE_Z", 1e9)
        whole = findrs.fit(df, "y", random_state=seed, max_rules=None, settings=dict(exceptions=False))
    assert len(seen) == 2 and len(seen[0]) == 3
    assert [{g[0] for g in a} for a in seen[1]] == [{"av", "oh"}] * 3
    cols = ["bin_edges", "numeric", "encoding"]
    numeric = [("uniform", "bins"), ("supervised", "bins"), ("uniform", "interval")]
    kept = [(*n, e) for n, a in zip(numeric, seen[0]) for e in ("av", "oh") if e in {g[0] for g in a}]
    assert len(kept) < 6  # the race left something behind
    cv, full = raced.cv_results, whole.cv_results
    assert sorted(cv.select(cols).unique().rows()) == sorted(kept)
    restricted = full.filter(pl.struct(cols).is_in([dict(zip(cols, e)) for e in kept]))
    assert restricted.drop("chosen").equals(cv.drop("chosen"))
    # The model is the best of the encodings that go on: the unraced one when its winner went on.
    won = tuple(full.filter(pl.col("chosen")).select(cols).row(0))
    if won in kept:
        assert raced.rules.equals(whole.rules) and raced.params == whole.params
        assert raced.predict(df).equals(whole.predict(df))
        assert cv.filter(pl.col("chosen")).drop("chosen").equals(full.filter(pl.col("chosen")).drop("chosen"))
    else:
        best = restricted.sort(["cv_accuracy", "conditions"], descending=[True, False]).row(0, named=True)
        assert raced.cv_results.filter(pl.col("chosen")).row(0, named=True)["cv_accuracy"] == best["cv_accuracy"]


def test_the_progress_line_names_every_first_stage_before_the_later_ones(small_stages: None, capsys) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = findrs.fit(_mixed(1_200, 0), "y", random_state=0, n_jobs=1, verbose=True,
                           settings=dict(exceptions=False))
    states = [s.rstrip() for s in capsys.readouterr().err.split("\r")[1:]]
    names = list(dict.fromkeys(s.split(" [")[0].split(" |")[0].split("  ")[0] for s in states))
    firsts = [f"findrs: cross-validation {i} of 3: {w}, first stage"
              for i, w in enumerate(["equal-width bins", "supervised bins", "intervals"], 1)]
    assert names[:3] == firsts
    later = [n for n in names[3:] if re.match(r"findrs: cross-validation \d", n)]
    kept = {(r[0], r[1]) for r in model.cv_results.select("bin_edges", "numeric").unique().rows()}
    words = {("uniform", "bins"): "1 of 3: equal-width bins", ("supervised", "bins"): "2 of 3: supervised bins",
             ("uniform", "interval"): "3 of 3: intervals"}
    assert later == [f"findrs: cross-validation {words[k]}" for k in words if k in kept]
