"""One set of runs, several models or several places (docs/semantics.md §5.1, §5.2).

``method="bo+bp"`` returns the BO and the BP model of one set of ``T`` runs: each must be
exactly the model of a separate fit with the same ``random_state``, on every prediction
surface. ``chunks`` computes the runs in chunks dispatched through joblib: the model must be
that of a local fit, whatever the chunks and the backend (a local Dask cluster when Dask is
installed).
"""

from __future__ import annotations

import warnings

import numpy as np
import polars as pl
import pytest

import findrs
from findrs import FindRSInputError, ModelPair

from paths import prediction_paths


def _frames() -> dict[str, pl.DataFrame]:
    ttt = findrs.datasets.tic_tac_toe()
    monks = findrs.datasets.monks(2)
    rng = np.random.default_rng(5)
    noisy = pl.DataFrame({
        "x": rng.normal(size=300),
        "k": rng.integers(0, 7, 300),
        "c": pl.Series(rng.choice(["a", "b", "c", "d"], 300)).replace("d", None),
    }).with_columns(y=(pl.col("x") > 0.2) ^ pl.Series(rng.random(300) < 0.1))
    # Interval features (numeric="interval"): x and z with nulls (their null flags are learned),
    # k an integer of seven values.
    intervals = noisy.with_columns(
        x=pl.when(pl.Series(rng.random(300) < 0.08)).then(None).otherwise(pl.col("x")),
        z=pl.Series(rng.normal(size=300).round(2)).replace(0.0, None),
    )
    return {"tic-tac-toe": ttt, "monks-2": monks, "noisy": noisy, "intervals": intervals}


TARGETS = {
    "tic-tac-toe": ("class", "positive"), "monks-2": ("class", None), "noisy": ("y", True), "intervals": ("y", True),
}

# numeric="interval" with each placement of the ends (two of them widen each run's intervals
# in the core: the chunked and the shared runs must widen exactly as a local fit does).
ENDS = ["tight", "midpoint", "open", "widened"]

SETTINGS = [
    dict(),
    dict(encoding="oh", tolerance=1),
    dict(tolerance=0.1, min_support=2, simplify=True),
    dict(max_rules=4),
    dict(direction="negative", n_rules=7),
    dict(n_rules=None, shuffle=False),
]


def _fit(df: pl.DataFrame, name: str, **kw):
    target, positive = TARGETS[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", findrs.ContradictionWarning)
        return findrs.fit(df, target, positive, **findrs.settings.fit_keywords(dict(random_state=11, n_jobs=2, **{"auto": False, **kw}, settings=dict(T=9))))


def _same_everywhere(a: findrs.RuleSetModel, b: findrs.RuleSetModel, df: pl.DataFrame) -> None:
    assert a.to_json() == b.to_json()
    assert a.params == b.params
    assert (a.n_rules, a.n_rules_found, a.contradictions) == (b.n_rules, b.n_rules_found, b.contradictions)
    assert a.rules.equals(b.rules)
    pa, pb = prediction_paths(a, df), prediction_paths(b, df)
    assert pa.masks == pb.masks
    assert pa.votes == pb.votes
    assert pa.refused == pb.refused
    assert a.decision_function(df).equals(b.decision_function(df))


@pytest.mark.parametrize("name", list(TARGETS))
@pytest.mark.parametrize("setting", range(len(SETTINGS)))
def test_bo_bp_pair_equals_separate_fits(name: str, setting: int) -> None:
    df = _frames()[name]
    kw = SETTINGS[setting]
    bo_kw = {k: v for k, v in kw.items() if k != "n_rules"}
    try:
        pair = _fit(df, name, method="bo+bp", **kw)
    except FindRSInputError as e:
        # A setting that leaves no rule fails the same way alone.
        for method, k in (("bo", bo_kw), ("bp", kw)):
            with pytest.raises(FindRSInputError) as alone:
                _fit(df, name, method=method, **k)
            assert str(alone.value) == str(e)
        return
    assert isinstance(pair, ModelPair)
    bo, bp = pair
    assert (bo.method, bp.method) == ("bo", "bp")
    _same_everywhere(bo, _fit(df, name, method="bo", **bo_kw), df)
    _same_everywhere(bp, _fit(df, name, method="bp", **kw), df)


@pytest.mark.parametrize("ends", ENDS)
@pytest.mark.parametrize("setting", [0, 2, 3, 4])
def test_bo_bp_pair_equals_separate_fits_over_intervals(ends: str, setting: int) -> None:
    df = _frames()["intervals"]
    kw = {**SETTINGS[setting], "numeric": "interval", "interval_ends": ends}
    pair = _fit(df, "intervals", method="bo+bp", **kw)
    bo, bp = pair
    assert any(e.kind == "interval" and e.has_null for e in bp.encoders)
    bo_kw = {k: v for k, v in kw.items() if k != "n_rules"}
    _same_everywhere(bo, _fit(df, "intervals", method="bo", **bo_kw), df)
    _same_everywhere(bp, _fit(df, "intervals", method="bp", **kw), df)


def test_bo_bp_pair_shares_a_drawn_seed_and_refuses_automatic_settings() -> None:
    df = findrs.datasets.tic_tac_toe()
    bo, bp = findrs.fit(df, "class", "positive", method="bo+bp", auto=False, settings=dict(T=4))
    assert bo.params["random_state"] == bp.params["random_state"]
    again = findrs.fit(df, "class", "positive", method="bp", random_state=bp.params["random_state"], auto=False, settings=dict(T=4))
    assert again.to_json() == bp.to_json()
    with pytest.raises(FindRSInputError, match="bo\\+bp.*auto=False"):
        findrs.fit(df, "class", "positive", method="bo+bp", settings=dict(T=4))  # auto=True, the default
    for kw in (dict(auto=True), dict(auto=False, tolerance="auto"), dict(auto=False, n_rules="cv")):
        with pytest.raises(FindRSInputError, match="bo\\+bp"):
            findrs.fit(df, "class", "positive", **findrs.settings.fit_keywords(dict(method="bo+bp", **kw, settings=dict(T=4))))


@pytest.mark.parametrize("method", ["find-rs", "bo", "bp", "bo+bp"])
@pytest.mark.parametrize("chunks", [1, 2, 4, 9, 20])
def test_runs_in_chunks_give_the_local_model(method: str, chunks: int) -> None:
    joblib = pytest.importorskip("joblib", reason="chunks dispatches through joblib: pip install 'findrs[distributed]'")
    df = _frames()["noisy"]
    local = _fit(df, "noisy", method=method, tolerance=1, simplify=True)
    with joblib.parallel_backend("threading", n_jobs=2):
        chunked = _fit(df, "noisy", method=method, tolerance=1, simplify=True, chunks=chunks)
    for a, b in zip(*(m if isinstance(m, ModelPair) else (m,) for m in (local, chunked))):
        assert a.to_json() == b.to_json()
        assert a.predict(df).equals(b.predict(df))


@pytest.mark.parametrize("method", ["find-rs", "bo", "bp", "bo+bp"])
@pytest.mark.parametrize("ends", ENDS)
def test_runs_in_chunks_give_the_local_model_over_intervals(method: str, ends: str) -> None:
    joblib = pytest.importorskip("joblib", reason="chunks dispatches through joblib: pip install 'findrs[distributed]'")
    df = _frames()["intervals"]
    kw = dict(method=method, tolerance=1, simplify=True, numeric="interval", interval_ends=ends)
    local = _fit(df, "intervals", **kw)
    with joblib.parallel_backend("threading", n_jobs=2):
        chunked = _fit(df, "intervals", chunks=4, **kw)
    for a, b in zip(*(m if isinstance(m, ModelPair) else (m,) for m in (local, chunked))):
        assert any(e.kind == "interval" and e.has_null for e in a.encoders)
        assert a.to_json() == b.to_json()
        assert a.predict(df).equals(b.predict(df))


def test_pair_and_chunks_refuse_a_multiclass_target() -> None:
    # A multiclass model fits one set per class; its runs are not shared nor chunked (yet):
    # both are refused, naming the parameter and the fixes.
    df = findrs.datasets.tic_tac_toe().with_columns(
        c=pl.when(pl.col("top_left") == "x").then(pl.lit("p")).otherwise(pl.col("class"))
    ).drop("class")
    assert df.get_column("c").n_unique() == 3
    with pytest.raises(FindRSInputError, match=r"method='bo\+bp'.*3 classes.*method='bo' and method='bp' separately.*positive="):
        findrs.fit(df, "c", method="bo+bp", random_state=0, auto=False, settings=dict(T=4))
    with pytest.raises(FindRSInputError, match=r"chunks=2.*3 classes.*chunks=None.*positive="):
        findrs.fit(df, "c", method="bp", random_state=0, auto=False, settings=dict(T=4, chunks=2))
    # One class against the rest is a binary fit: both work there, equal to separate fits.
    bo, bp = findrs.fit(df, "c", "p", method="bo+bp", random_state=0, auto=False, settings=dict(T=4))
    assert bp.to_json() == findrs.fit(df, "c", "p", method="bp", random_state=0, auto=False, settings=dict(T=4)).to_json()
    assert bo.to_json() == findrs.fit(df, "c", "p", method="bo", random_state=0, auto=False, settings=dict(T=4)).to_json()


def test_chunks_is_checked_and_refuses_automatic_settings() -> None:
    df = findrs.datasets.tic_tac_toe()
    for bad in (0, -1, 1.5, "2"):
        with pytest.raises(FindRSInputError, match="chunks"):
            findrs.fit(df, "class", "positive", method="bp", settings=dict(T=4, chunks=bad))
    for kw in (dict(), dict(auto=False, tolerance="auto")):
        with pytest.raises(FindRSInputError, match="chunks.*auto=False"):
            findrs.fit(df, "class", "positive", **findrs.settings.fit_keywords(dict(method="bp", **kw, settings=dict(T=4, chunks=2))))


def test_runs_on_a_local_dask_cluster_give_the_local_model() -> None:
    pytest.importorskip("joblib", reason="the Dask test needs joblib: pip install 'findrs[distributed]'")
    distributed = pytest.importorskip(
        "dask.distributed", reason="dask.distributed is not installed (pip install 'findrs[distributed]'); the "
        "joblib path itself is tested with the threading backend"
    )
    import joblib

    df = _frames()["tic-tac-toe"]
    local = _fit(df, "tic-tac-toe", method="bo+bp", encoding="oh")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        with distributed.Client(cluster) as client:
            with distributed.get_task_stream(client) as stream, joblib.parallel_backend("dask"):
                remote = _fit(df, "tic-tac-toe", method="bo+bp", encoding="oh", chunks=3)
    # The chunks ran as tasks of the cluster's workers.
    ran = [t for t in stream.data if "fit_runs" in str(t.get("key"))]
    assert len(ran) >= 1 and all(t.get("worker") for t in ran), stream.data
    for a, b in zip(local, remote):
        assert a.to_json() == b.to_json()
        assert a.predict(df).equals(b.predict(df))
