"""Automatic settings of multiclass models (docs/semantics.md §10, "Automatic settings"): one
stratified cross-validation of the whole multiclass model chooses the share tolerance,
``min_support`` and ``simplify`` every class set shares, with the combination and numeric kind."""

from __future__ import annotations

import importlib.util
import json
from typing import Any
import warnings

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import findrs
from findrs import FindRSInputError, RuleSetModel
from findrs.models import multiclass
from findrs.select import multiclass as grid
from strategies import perturbed
from test_multiclass import check_every_path, multiclass_frames

pytestmark = pytest.mark.filterwarnings("ignore::findrs.ContradictionWarning")


def noisy_frame(seed: int = 3, n: int = 180, noise: float = 0.15) -> pl.DataFrame:
    """String features, four classes nested as a decision list, ``noise`` of the labels moved."""
    rng = np.random.default_rng(seed)
    df = pl.DataFrame({
        "a": rng.choice(["p", "q", "r", "s"], n), "b": rng.choice(["u", "v", "w"], n), "c": rng.choice(["x", "y"], n),
    }).with_columns(
        y=pl.when(pl.col("a") == "p").then(pl.lit("A")).when(pl.col("b") == "u").then(pl.lit("B"))
        .when(pl.col("c") == "x").then(pl.lit("C")).otherwise(pl.lit("D"))
    )
    moved = rng.random(n) < noise
    other = pl.Series(rng.choice(["A", "B", "C", "D"], n))
    return df.with_columns(y=pl.when(pl.Series(moved)).then(other).otherwise(pl.col("y")))


def _settings(c: dict) -> dict:
    return {k: c[k] for k in ("tolerance", "min_support", "simplify", "multiclass", "numeric")}


def test_the_chosen_candidate_is_the_argmax_of_plain_fold_fits() -> None:
    # AV on string features: a fit on a fold's rows (its own encoders) classifies the held-out
    # rows as the cross-validation's fit does, so every candidate's counts can be rebuilt
    # through the public API with auto=False and the candidate's settings given.
    # max_rules=None: the accuracy-first end, the argmax itself (the default cuts it, §10.1).
    df = noisy_frame()
    m = findrs.fit(df, "y", random_state=11, n_jobs=1, max_rules=None)
    rec = m._training["settings_cv"]
    assert rec["folds"] == 3 and rec["sampled"] == df.height
    classes = np.searchsorted(np.array(m.classes), df["y"].to_numpy())
    folds = multiclass.stratified_folds(classes, 11)
    wanted = {"tolerance": "auto", "min_support": "auto", "simplify": "auto"}
    first = grid.first_stage(wanted, multiclass.COMBINATIONS, ["bins"])

    def plain(c: dict) -> list[int] | None:
        right = []
        for f in range(3):
            part, held = df.filter(pl.Series(folds != f)), df.filter(pl.Series(folds == f))
            s = {k: v for k, v in _settings(c).items() if k != "numeric"}
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", findrs.ContradictionWarning)
                    fm = findrs.fit(part, "y", random_state=11, auto=False, settings=s)
            except FindRSInputError:
                return None
            right.append(int((fm.predict(held) == held["y"]).sum()))
        return right

    scored = [(c, r) for c in first if (r := plain(c)) is not None]
    recorded = rec["candidates"]
    assert [_settings(c) for c, _ in scored] == [_settings(c) for c in recorded[:len(scored)]]
    assert [r for _, r in scored] == [c["correct"] for c in recorded[:len(scored)]]
    # The second stage: the first stage's best (most right, then fewest conditions, then first)
    # with every support and simplification.
    top = max(range(len(scored)), key=lambda i: (sum(recorded[i]["correct"]), -sum(recorded[i]["conditions"]), -i))
    second = [c for c in grid.second_stage(wanted, recorded[top]) if plain(c) is not None]
    assert [_settings(c) for c in recorded[len(scored):]] == [_settings(c) for c in second]
    for c in recorded[len(scored):]:
        assert plain(c) == c["correct"]
    assert len({c["tolerance"] for c in recorded}) == len(grid.TOLERANCES)
    # The chosen one is the argmax; the model is the plain fit of its settings on every row.
    best = max(range(len(recorded)), key=lambda i: (sum(recorded[i]["correct"]), -sum(recorded[i]["conditions"]), -i))
    assert rec["chosen"] == best and m.cv_results["chosen"].arg_max() == best
    chosen = recorded[best]
    assert m.cv_results["cv_accuracy"][best] == pytest.approx(sum(chosen["correct"]) / df.height)
    again = findrs.fit(df, "y", random_state=11, auto=False,
                       settings={k: v for k, v in _settings(chosen).items() if k != "numeric"})
    assert m.rules["text"].to_list() == again.rules["text"].to_list()
    assert m.predict(df).to_list() == again.predict(df).to_list()
    assert m.multiclass == chosen["multiclass"] and m.params["tolerance"] == chosen["tolerance"]
    assert "settings chosen by 3-fold cross-validation of the whole multiclass model" in str(m)
    assert m.combination_cv["correct"].max() == sum(chosen["correct"])


def test_the_choice_is_deterministic_and_kept_by_the_model_file() -> None:
    df = noisy_frame(seed=4)
    one = findrs.fit(df, "y", random_state=5, n_jobs=1)
    assert findrs.fit(df, "y", random_state=5, n_jobs=2).to_json() == one.to_json()
    bp = [findrs.fit(df, "y", method="bp", random_state=5, n_jobs=j, settings=dict(T=5)).to_json() for j in (1, 2)]
    assert bp[0] == bp[1]
    back = RuleSetModel.from_json(one.to_json())
    assert back.to_json() == one.to_json() and back.cv_results.equals(one.cv_results)
    d = json.loads(one.to_json())
    rec = d["training"]["settings_cv"]
    rec["chosen"] = (rec["chosen"] + 1) % len(rec["candidates"])
    with pytest.raises(FindRSInputError, match="settings_cv"):
        RuleSetModel.from_json(json.dumps(d))
    d = json.loads(one.to_json())
    d["training"]["settings_cv"]["candidates"][0]["correct"] = [1]
    with pytest.raises(FindRSInputError, match="settings_cv"):
        RuleSetModel.from_json(json.dumps(d))


def test_auto_false_keeps_the_papers_settings_and_given_settings_stay() -> None:
    df = noisy_frame(seed=6)
    paper = findrs.fit(df, "y", random_state=1, auto=False)
    assert (paper.params["tolerance"], paper.params["min_support"], paper.params["simplify"]) == (0, 0, False)
    assert "settings_cv" not in paper._training and paper.cv_results is None
    given = findrs.fit(df, "y", random_state=1, settings=dict(tolerance=0.1, multiclass="one-vs-rest"))
    table = given.cv_results
    assert set(table["tolerance"]) == {"0.1"} and set(table["multiclass"]) == {"one-vs-rest"}
    assert given.combination_cv is None and given.params["tolerance"] == 0.1
    # auto=False with a setting given as "auto": that one is chosen, the rest are the paper's.
    one = findrs.fit(df, "y", random_state=1, auto=False, settings=dict(tolerance="auto"))
    assert set(one.cv_results["min_support"]) == {0} and set(one.cv_results["simplify"]) == {False}
    assert len(set(one.cv_results["tolerance"])) == len(grid.TOLERANCES) and one.numeric_cv is None
    with pytest.raises(FindRSInputError, match="encoding"):
        findrs.fit(df, "y", random_state=1, auto=False, settings=dict(encoding="auto"))
    # A class of one row: no cross-validation, the paper's settings and the first combination.
    tiny = pl.concat([df, pl.DataFrame({"a": ["s"], "b": ["w"], "c": ["y"], "y": ["E"]})])
    m = findrs.fit(tiny, "y", random_state=0)
    assert m.cv_results is None and m.multiclass == multiclass.COMBINATIONS[0] and m.params["tolerance"] == 0


def test_a_sample_scales_the_support_to_every_row() -> None:
    df = pl.concat([noisy_frame(seed=s, n=200) for s in (7, 8)])
    m = findrs.fit(df, "y", random_state=3, settings=dict(cv_rows=150, min_support=5))
    rec = m._training["settings_cv"]
    assert 148 <= rec["sampled"] <= 152 and {c["min_support"] for c in rec["candidates"]} == {5}
    assert m.params["min_support"] == round(5 * df.height / rec["sampled"])
    assert "sample" in str(m)


@given(df=multiclass_frames(), seed=st.integers(0, 2**32))
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_default_fits_predict_training_classes_on_every_path(df: pl.DataFrame, seed: int) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", findrs.ContradictionWarning)
        model = findrs.fit(df, "y", random_state=seed, n_jobs=1)
    classes = sorted(set(df["y"].to_list()))
    assert model.classes == classes
    probe = pl.concat([df, perturbed(df, seed % 1000)]).drop("y")
    assert set(check_every_path(model, probe)) <= set(classes)
    table = model.cv_results
    if table is not None:
        assert table.filter("chosen").height == 1


def test_the_measurement_script_moves_training_labels_and_keeps_other_rows(tmp_path) -> None:
    # experiments/multiclass_auto.py: noisy variants move round(rate * rows) training labels, each
    # to another class, the same ones for a split; a run replaces only its own (dataset, method) rows.
    from experiments import multiclass_auto as script

    df = pl.DataFrame({"x": range(200), "class": ["a", "b", "c", "d"] * 50})
    moved = script.move_labels(df, 0.2, 3)
    changed = moved["class"] != df["class"]
    assert int(changed.sum()) == 40 and moved.equals(script.move_labels(df, 0.2, 3))
    assert not script.move_labels(df, 0.2, 4).equals(moved) and script.move_labels(df, 0.0, 3).equals(df)
    raw = tmp_path / "raw.csv"
    pl.DataFrame({"dataset": ["car"], "split": [0], "method": ["findrs before"], "accuracy": [0.9], "n_rules": [3],
                  "n_conditions": [4], "wall_seconds": [0.1], "cpu_seconds": [0.1], "note": [""]}).write_csv(raw)
    out = tmp_path / "out.md"
    assert script.main(["--datasets", "iris", "--splits", "1", "--skip-baselines", "--raw", str(raw),
                        "--out", str(out), "--tag", "t"]) == 0
    rows = pl.read_csv(raw)
    assert sorted(zip(rows["dataset"], rows["method"])) == [("car", "findrs before"), ("iris", "findrs t")]
    text = out.read_text()
    assert "| `iris` | 1 |" in text and "findrs t" in text and "tolerance=" in text
    # The accuracy-first fit and the slower anchors (EBM when interpret is installed).
    extra = ["RIPPER ovr", *(["EBM"] if importlib.util.find_spec("interpret") else [])]
    assert script.main(["--datasets", "iris", "--splits", "1", "--skip-baselines", "--raw", str(raw), "--out", str(out),
                        "--tag", "a", "--accurate", "--extra-baselines", *extra]) == 0
    rows = pl.read_csv(raw).filter(pl.col("dataset") == "iris")
    assert sorted(rows["method"]) == sorted(["findrs t", "findrs a", *extra])
    assert rows.filter(pl.col("method") == "RIPPER ovr")["n_rules"][0] > 0


@given(df=multiclass_frames(), method=st.sampled_from(["find-rs", "bo", "bp"]),
       combine=st.sampled_from(multiclass.COMBINATIONS), tolerance=st.sampled_from([0, 1, 0.2]),
       numeric=st.sampled_from(["bins", "interval"]), seed=st.integers(0, 2**32))
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_the_cross_validation_reads_held_out_codes_as_predict(df: pl.DataFrame, method: str, combine: str,
                                                              tolerance: Any, numeric: str, seed: int) -> None:
    # learning/multiclass_cv.class_indices_of, which scores the held-out rows of every fold from
    # their codes, decides each row as predict does (votes, thresholds, thetas, ties, default).
    from findrs.data.encode import encode_frame
    from findrs.learning.multiclass_cv import class_indices_of

    try:
        model = findrs.fit(df, "y", method=method, random_state=seed, n_jobs=1, auto=False,
                           settings=dict(T=5, multiclass=combine, tolerance=tolerance, numeric=numeric))
    except FindRSInputError:  # a share that leaves a class set no rule
        return
    probe = pl.concat([df, perturbed(df, seed % 1000)])
    got = class_indices_of(model, encode_frame(probe, model.encoders))
    assert [model.classes[i] for i in got] == model.predict(probe).to_list()
