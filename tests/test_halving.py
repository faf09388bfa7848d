"""Successive halving of the automatic cross-validation (docs/semantics.md §9.4, "Successive
halving"): the stages' arithmetic, and the composition checked against plain
cross-validations of the same candidates (the oracle: each stage is exactly the
cross-validation of its candidates on its sample, and the record is the last stage's)."""

from __future__ import annotations

import math
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


@pytest.mark.parametrize("n, seed", [(900, 0), (700, 1), (1_200, 2)])
def test_the_record_is_the_plain_cross_validation_of_the_survivors(small_stages: None, n: int, seed: int) -> None:
    _, y, enc, codes, params = _setup(n, seed)
    grid = auto.candidates(params, n_positives=int(y.sum()), n_negatives=int((~y).sum()))
    order = list(dict.fromkeys(halving.group(c) for c in grid))
    plan = halving.stages(len(y), n_smaller=int(min(y.sum(), (~y).sum())), folds=5,
                          group_sizes=halving.strata_sizes(order))
    assert plan, "the fixture's sizes must give at least one stage"
    halved = RuleSetModel._cross_validate(codes, y, enc, params, None, None)
    # The oracle: the same stages made by hand from plain cross-validations of candidate lists.
    alive = set(order)
    for r in plan:
        stage = halving.stage_candidates(grid, alive, r, len(y))
        rec = RuleSetModel._cross_validate(codes, y, enc, {**params, "cv_rows": r, "cv": 5}, None, None, cands=stage)
        assert rec["sampled"] <= r + 2  # a stratified sample of about r rows
        rows = [tuple(c[k] for k in ("correct", "rows", "rules", "conditions")) for c in rec["candidates"]]
        alive = halving.survivors(stage, rows, order)
    survivors = [c for c in grid if halving.group(c) in alive]
    assert _settings(halved) == [{k: c[k] for k in auto.AUTOMATIC} for c in survivors]
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
