"""Fits on more rows than the rules need (docs/semantics.md §13): the rules are learned on a
stratified sample, and the counts the model states are made on every row in streaming passes.

Checked against plain re-computations on the collected frame: the sample is per class the rows
of smallest draw (a plain loop over the rows), in the frame's order, the same from a DataFrame,
a LazyFrame and a Parquet scan and on any thread count; the counts on all rows (rows, rows right,
each rule's covered rows of each label, the rows right at every budget of the path) equal those
``explain`` and ``predict`` give row by row; the record survives files and budgets of the path;
a bad label outside the sample is refused.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import findrs
from findrs import FindRSInputError
from findrs.learning import sample
from strategies import frames


@pytest.fixture
def small_sample(monkeypatch: pytest.MonkeyPatch) -> None:
    """Samples of 30 rows (at least 3 of a class): the small frames below are "large"."""
    monkeypatch.setattr(sample, "LEARN_CELLS", 30)
    monkeypatch.setattr(sample, "MIN_LEARN_ROWS", 30)
    monkeypatch.setattr(sample, "MIN_CLASS_ROWS", 3)


def _fit(data, target: str = "y", positive=True, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return findrs.fit(data, target, positive, **kw)


def _plain_sample(df: pl.DataFrame, target: str, seed: int) -> pl.DataFrame:
    """The sample as the module docstring states it, plainly: per class the quota rows of
    smallest draw, in frame order."""
    d = sample.draws(np.arange(df.height, dtype=np.uint64), seed)
    labels = df[target].to_list()
    counts: dict = {}
    for v in labels:
        counts[v] = counts.get(v, 0) + 1
    want = sample.quotas(counts, df.height, 30)
    keep = set()
    for k, q in want.items():
        rows = sorted((int(d[i]), i) for i in range(df.height) if labels[i] == k)
        keep |= {i for _, i in rows[:q]}
    return df[sorted(keep)]


def _plain_counts(model: findrs.RuleSetModel, df: pl.DataFrame) -> dict:
    """The all-rows record of a binary FIND-RS model, row by row from ``explain``."""
    fired = model.explain(df)["fired_rules"].to_list()
    y = [v == model.positive for v in df["y"].to_list()]
    order = model._training["path"]["order"]
    k = model.n_rules
    pos, neg = [0] * k, [0] * k
    path = [0] * k
    for rules, label in zip(fired, y):
        rules = set(rules or [])
        for r in rules:
            (pos if label else neg)[r] += 1
        for j in range(1, k + 1):
            path[j - 1] += (bool(rules & set(order[:j])) == label)
    return {"rows": df.height, "positives": sum(y), "correct": path[-1], "path_correct": path,
            "rule_positives": pos, "rule_negatives": neg}


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much,
                                                                  HealthCheck.function_scoped_fixture])
@given(df=frames(min_rows=31, max_rows=90, allow_float=True), seed=st.integers(0, 3), lazy=st.booleans())
def test_the_counts_on_all_rows_are_those_of_every_row(small_sample, df: pl.DataFrame, seed: int, lazy: bool) -> None:
    try:
        m = _fit(df.lazy() if lazy else df, random_state=seed)
    except FindRSInputError:
        return
    assert m._training["rows"] <= min(30 + 3, df.height)
    rec = m._training["all_rows"]
    if m.method != "find-rs":  # only the rows right are counted for a vote
        assert rec == {"rows": df.height, "positives": int(df["y"].sum()), "correct": round(m.score(df) * df.height)}
        return
    assert rec == _plain_counts(m, df)
    assert rec["correct"] == round(m.score(df) * df.height)
    # What the model shows is counted on all rows.
    assert m.rules["train_positives"].to_list() == rec["rule_positives"]
    assert m.path["train_correct"].to_list() == rec["path_correct"]
    assert "rules learned on a stratified sample" in str(m)
    # The file keeps the record; a budget of the path gets its own rules' counts.
    assert findrs.RuleSetModel.from_json(m.to_json()).to_json() == m.to_json()
    for k in range(1, m.n_rules):
        assert m.at(k)._training["all_rows"] == _plain_counts(m.at(k), df)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(n=st.integers(31, 400), rare=st.integers(1, 12), seed=st.integers(0, 2**63 - 1))
def test_the_sample_is_each_class_smallest_draws_in_frame_order(small_sample, n: int, rare: int, seed: int) -> None:
    rng = np.random.default_rng(seed % 1000)
    labels = np.where(np.arange(n) < rare, "r", rng.choice(["a", "b"], n))
    rng.shuffle(labels)
    df = pl.DataFrame({"id": np.arange(n), "y": labels})
    src, _ = sample.source(df, "y", None)
    got = sample.sample(src, "y", seed)
    want = _plain_sample(df, "y", seed)
    assert got.equals(want)
    assert got["id"].is_sorted()
    # A rare class keeps min(its rows, MIN_CLASS_ROWS) rows at least.
    assert (got["y"] == "r").sum() >= min(rare, 3)


def test_the_same_model_from_a_frame_a_lazy_frame_a_parquet_scan_and_any_threads(small_sample, tmp_path: Path) -> None:
    df = pl.concat([findrs.datasets.tic_tac_toe()] * 2)
    path = tmp_path / "ttt.parquet"
    df.write_parquet(path, row_group_size=97)  # many small row groups: batches never matter
    models = [_fit(df, "class", "positive", random_state=3),
              _fit(df.lazy(), "class", "positive", random_state=3),
              _fit(pl.scan_parquet(path), "class", "positive", random_state=3, n_jobs=1)]
    assert len({m.to_json() for m in models}) == 1
    assert models[0]._training["rows"] < df.height == models[0]._training["all_rows"]["rows"]


def test_a_seed_is_drawn_and_recorded_so_the_fit_can_be_repeated(small_sample) -> None:
    df = pl.concat([findrs.datasets.tic_tac_toe()] * 2)
    m = _fit(df, "class", "positive")
    again = _fit(df, "class", "positive", random_state=m.params["random_state"])
    assert again.to_json() == m.to_json()


def test_the_papers_algorithm_and_small_frames_learn_on_every_row(small_sample) -> None:
    df = findrs.datasets.tic_tac_toe()
    m = _fit(df.lazy(), "class", "positive", auto=False)
    assert m._training["rows"] == df.height and "all_rows" not in m._training
    sample.MIN_LEARN_ROWS = df.height
    m = _fit(df, "class", "positive", random_state=0)
    assert m._training["rows"] == df.height and "all_rows" not in m._training


def test_multiclass_and_exceptions_count_the_rows_right(small_sample) -> None:
    rng = np.random.default_rng(0)
    a, b = rng.integers(0, 3, 300), rng.integers(0, 3, 300)
    df = pl.DataFrame({"a": a, "b": b, "y": np.where(a == 0, "x", np.where(b == 0, "y", "z"))})
    m = _fit(df.lazy(), "y", None, random_state=0)
    rec = m._training["all_rows"]
    assert rec == {"rows": 300, "class_counts": [int((df["y"] == c).sum()) for c in m.classes],
                   "correct": round(m.score(df) * 300)}
    assert "the training accuracy counts all 300" in str(m)
    assert findrs.RuleSetModel.from_json(m.to_json()).to_json() == m.to_json()
    ttt = pl.concat([findrs.datasets.tic_tac_toe()] * 2)
    e = _fit(ttt, "class", "positive", random_state=0, settings=dict(exceptions=True))
    assert isinstance(e, findrs.ExceptionsModel)
    assert e.rules_model._training["all_rows"]["correct"] == round(e.score(ttt) * ttt.height)
    assert "rules learned on a stratified sample" in str(e)


def test_a_bad_label_outside_the_sample_is_refused(small_sample) -> None:
    df = pl.concat([findrs.datasets.tic_tac_toe()] * 2)
    with_null = df.with_columns(pl.when(pl.int_range(pl.len()) == df.height - 1).then(None)
                                .otherwise(pl.col("class")).alias("class"))
    with pytest.raises(FindRSInputError, match=r"target column 'class' has 1 null value\(s\); drop those rows"):
        _fit(with_null.lazy(), "class", "positive")
    scores = pl.DataFrame({"a": np.arange(200) % 3, "y": np.where(np.arange(200) < 199, np.arange(200) % 2, np.nan)})
    with pytest.raises(FindRSInputError, match=r"target column 'y' has 1 NaN or infinite value\(s\)"):
        _fit(scores.lazy(), "y", 1.0)
    with pytest.raises(FindRSInputError, match="target column 'klass' not found"):
        _fit(df.lazy(), "klass", "positive")
    with pytest.raises(FindRSInputError, match=r"feature column\(s\) \['nope'\] not found"):
        _fit(df.lazy(), "class", "positive", features=["top_left", "nope"])


def test_a_file_whose_counts_do_not_fit_the_rules_is_refused(small_sample) -> None:
    m = _fit(pl.concat([findrs.datasets.tic_tac_toe()] * 2), "class", "positive", random_state=0)
    for change in ({"rule_positives": [1]}, {"rows": 3}, {"correct": -1}, {"path_correct": [0]}):
        doc = json.loads(m.to_json())
        doc["training"]["all_rows"].update(change)
        with pytest.raises(FindRSInputError, match="all_rows"):
            findrs.RuleSetModel.from_json(json.dumps(doc))


def test_the_command_line_fits_a_parquet_file_lazily(small_sample, tmp_path: Path, capsys) -> None:
    from findrs.cli import main

    df = pl.concat([findrs.datasets.tic_tac_toe()] * 2)
    df.write_parquet(tmp_path / "games.parquet")
    out = tmp_path / "m.json"
    assert main(["fit", str(tmp_path / "games.parquet"), "--target", "class", "--positive", "positive",
                 "--random-state", "0", "-o", str(out)]) == 0
    m = findrs.load(out)
    rec = m._training["all_rows"]
    assert m._training["rows"] < rec["rows"] == df.height
    assert f"fitted on {df.height} rows" in capsys.readouterr().out
    assert rec["correct"] == round(m.score(df) * df.height)


def test_a_dask_frame_fits_on_its_workers_and_gives_the_local_model(small_sample) -> None:
    distributed = pytest.importorskip("dask.distributed", reason="pip install 'findrs[distributed]'")
    import dask.dataframe as dd

    df = pl.concat([findrs.datasets.tic_tac_toe()] * 2)
    local = _fit(df, "class", "positive", random_state=0)
    ddf = dd.from_pandas(df.to_pandas(), npartitions=5)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        with distributed.Client(cluster) as client, distributed.get_task_stream(client) as stream:
            remote = _fit(ddf, "class", "positive", random_state=0)
    assert remote.to_json() == local.to_json()
    # The queries ran on the partitions, on the workers.
    ran = [t for t in stream.data if "_part" in str(t.get("key"))]
    assert len(ran) >= 5 and all(t.get("worker") for t in ran), stream.data
    with pytest.raises(FindRSInputError, match="a Dask DataFrame is fitted with automatic settings"):
        _fit(ddf, "class", "positive", auto=False)


def test_verbose_shows_the_sample_and_the_counts(small_sample, capsys) -> None:
    df = pl.concat([findrs.datasets.tic_tac_toe()] * 2)
    _fit(df.lazy(), "class", "positive", random_state=0, verbose=True)
    err = capsys.readouterr().err
    assert f"stratified sample of 30 of the {df.height:,} rows" in err
    assert f"counting the model on all {df.height:,} rows" in err


def test_a_dask_fit_brings_back_no_more_rows_than_the_sample(small_sample, monkeypatch: pytest.MonkeyPatch) -> None:
    dd = pytest.importorskip("dask.dataframe", reason="pip install 'findrs[distributed]'")
    df = pl.concat([findrs.datasets.tic_tac_toe()] * 4)
    sent: list[int] = []
    part = sample._part

    def counted(*args):
        out = part(*args)
        sent.append(out.height)
        return out

    monkeypatch.setattr(sample, "_part", counted)
    ddf = dd.from_pandas(df.to_pandas(), npartitions=6)
    # Dask's threaded scheduler, in this process (a cluster would run a copy of the counter).
    m = _fit(ddf, "class", "positive", random_state=0)
    # Three passes of six partitions: class counts (which give the offsets), the sample, the
    # counts on all rows; what came back is at most the sample drawn with its margin, never the
    # frame.
    assert len(sent) == 18
    assert sum(sent) < 3 * 30 + 3 * (2 * 5 * 30**0.5 + 40) < df.height
    assert m._training["all_rows"]["rows"] == df.height
