"""Graded probabilities (docs/semantics.md §6, "Probabilities"): ``Model.predict_proba`` and
``predict_proba_expr`` on every kind, consistent with ``predict``, graded where a 0/1 prediction
is not, and ranking noisy rows better than the prediction does."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings

import findrs
from findrs.models.proba import HALF_UP, laplace, uncovered_counts

from strategies import frames


def noisy_frame(n: int = 600, seed: int = 0) -> pl.DataFrame:
    """Three-valued features; the class is true with probability 0.95 where ``a == 'x'``, 0.7
    where ``b == 'y'`` (and not ``a == 'x'``) and 0.1 elsewhere: regions of different
    precision, which a 0/1 prediction cannot rank."""
    rng = np.random.default_rng(seed)
    cols = {c: rng.choice(["x", "y", "z"], n) for c in "abcd"}
    rate = np.where(cols["a"] == "x", 0.95, np.where(cols["b"] == "y", 0.7, 0.1))
    return pl.DataFrame({**cols, "y": rng.random(n) < rate})


def check_consistent(model: findrs.Model, df: pl.DataFrame) -> np.ndarray:
    """The probabilities of a binary model on ``df``: in (0, 1), above 1/2 exactly where
    ``predict`` says positive, and the lazy expression gives the same numbers."""
    p = model.predict_proba(df)
    assert p.name == "probability" and p.dtype == pl.Float64 and p.len() == df.height
    a = p.to_numpy()
    assert ((a > 0) & (a < 1)).all()
    np.testing.assert_array_equal(a > 0.5, model.predict(df, labels=False).to_numpy())
    lazy = df.lazy().select(model.predict_proba_expr()).collect().to_series()
    np.testing.assert_array_equal(lazy.to_numpy(), a)
    return a


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(df=frames(min_rows=8, max_rows=60, allow_float=True))
def test_probabilities_agree_with_predict_on_generated_frames(df: pl.DataFrame) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for kw in (dict(auto=False), dict(auto=False, method="bp", settings=dict(T=5, tolerance=1)),
                   dict(auto=False, method="bo", settings=dict(T=4)), dict(),
                   dict(auto=False, settings=dict(exceptions=True, tolerance=1))):
            check_consistent(findrs.fit(df, "y", True, random_state=0, **kw), df)


def test_a_noisy_frame_is_graded_and_ranked_better_than_by_the_prediction() -> None:
    from sklearn.calibration import calibration_curve
    from sklearn.metrics import roc_auc_score

    train, test = noisy_frame(seed=0), noisy_frame(seed=1)
    y = test["y"].to_numpy()
    for model in (findrs.fit(train, "y", True, random_state=0, max_rules=None),
                  findrs.fit(train, "y", True, random_state=0, auto=False, settings=dict(tolerance=0.2)),
                  findrs.fit(train, "y", True, random_state=0, auto=False, method="bp", settings=dict(T=20, tolerance=5))):
        p = check_consistent(model, test)
        if model.positive is not True:
            p = 1 - p
        pred = (model.predict(test).to_numpy() == True).astype(float)  # noqa: E712
        assert len(np.unique(p)) > 2, model.params
        assert roc_auc_score(y, p) > roc_auc_score(y, pred), model.params
        frac, mean = calibration_curve(y, p, n_bins=5)
        assert len(frac) == len(mean) >= 2


def test_the_score_is_the_best_firing_rule_or_the_uncovered_rate() -> None:
    train = noisy_frame()
    m = findrs.fit(train, "y", True, random_state=0, auto=False, settings=dict(tolerance=0.2))
    rules = m.rules
    q = laplace(rules["train_positives"].to_numpy(), rules["train_negatives"].to_numpy())
    positives = int(train["y"].sum())
    p0, n0 = uncovered_counts(positives, train.height - positives, rules["train_positives"].to_numpy(),
                              rules["train_negatives"].to_numpy())
    q0 = (p0 + 1) / (p0 + n0 + 2)
    fired = m.explain(train)["fired_rules"].to_list()
    want = np.array([max(max((q[i] for i in ids)), HALF_UP) if ids else min(q0, 0.5) for ids in fired])
    np.testing.assert_array_equal(m.predict_proba(train).to_numpy(), want)


def test_uncovered_counts_are_exact_for_the_papers_fit() -> None:
    # Tolerance 0, no contradictions: every positive covered, no negative covered.
    df = findrs.datasets.tic_tac_toe()
    m = findrs.fit(df, "class", "positive", random_state=0, auto=False)
    r = m.rules
    positives = int((df["class"] == "positive").sum())
    assert uncovered_counts(positives, df.height - positives, r["train_positives"].to_numpy(),
                            r["train_negatives"].to_numpy()) == (0, df.height - positives)
    p = m.predict_proba(df.filter(pl.col("class") == "negative"))
    assert p.max() == pytest.approx(1 / (df.height - positives + 2))


def test_multiclass_probabilities_sum_to_one_and_peak_at_the_prediction() -> None:
    df = findrs.datasets.monks(1)
    for comb in ("frequent-first", "rarest-first", "one-vs-rest"):
        m = findrs.fit(df, "a5", random_state=0, auto=False, settings=dict(multiclass=comb, tolerance=2))
        p = m.predict_proba(df)
        assert p.columns == [str(c) for c in m.classes]
        a = p.to_numpy()
        np.testing.assert_allclose(a.sum(axis=1), 1.0)
        assert ((a > 0) & (a < 1)).all()
        pred = m.predict(df).to_numpy()
        assert (np.asarray(m.classes)[a.argmax(axis=1)] == pred).all(), comb
        assert len(np.unique(a.round(12))) > len(m.classes)
        lazy = df.lazy().select(m.predict_proba_expr()).collect().unnest("a5_probability")
        np.testing.assert_array_equal(lazy.to_numpy(), a)


def _uci(data_dir: Path, name: str) -> pl.DataFrame:
    from experiments.uci import load_uci

    return load_uci(name, data_dir)


@pytest.mark.parametrize("name", ["car", "banknote"])
def test_default_fits_of_uci_sets_are_graded(data_dir: Path, name: str) -> None:
    train, test = findrs.datasets.train_test_split(_uci(data_dir, name))
    m = findrs.fit(train, "class", True, random_state=0, max_rules=None)  # accuracy first: more rules
    p = check_consistent(m, test)
    assert len(np.unique(p)) > 2


def test_kr_vs_kp_default_stays_graded_through_the_wrapper(data_dir: Path) -> None:
    from findrs.sklearn import FindRSClassifier

    train, test = findrs.datasets.train_test_split(_uci(data_dir, "kr-vs-kp"))
    clf = FindRSClassifier(random_state=0, max_rules=None).fit(train.drop("class"), train["class"])
    p = clf.predict_proba(test.drop("class"))
    assert len(np.unique(p[:, 1])) > 10
    np.testing.assert_array_equal(p[:, 1] > 0.5, clf.predict(test.drop("class")) == clf.classes_[1])


def test_the_auc_script_at_smoke_size(data_dir: Path, tmp_path: Path) -> None:
    # experiments/auc.py (results/auc.md) on two small sets: a row per set, AUCs in [0, 1],
    # the report carrying the command without the data directory.
    from experiments import auc

    out = tmp_path / "auc.md"
    assert auc.main(["--data-dir", str(data_dir), "--datasets", "monk-1", "vote", "--out", str(out)]) == 0
    text = out.read_text()
    assert "python -m experiments.auc --data-dir \"$FINDRS_DATA_DIR\"" in text and str(data_dir) not in text
    rows = [line for line in text.splitlines() if line.startswith("| monk-1") or line.startswith("| vote")]
    assert len(rows) == 2
    for line in rows:
        cells = [c.strip() for c in line.strip("|").split("|")]
        assert all(0.0 <= float(cells[i]) <= 1.0 for i in (2, 3, 5, 7))


def test_a_bag_of_default_fits_on_noisy_rows() -> None:
    # Members chosen by their own cross-validation may describe either label (direction) and
    # carry exceptions: the bag's probabilities and importance still follow its own vote.
    from findrs.models import importance

    train, test = noisy_frame(300, seed=2), noisy_frame(300, seed=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        bag = findrs.fit_bagged(train, "y", True, n_estimators=5, random_state=0)
    p = check_consistent(bag, test)
    assert len(np.unique(p)) > 2
    assert (importance.predictions(bag, test) == bag.predict(test, labels=False).to_numpy()).all()
    imp = bag.importance(test)
    assert imp.filter(pl.col("kind") == "feature").height == 4 and imp["decides"].max() > 0
