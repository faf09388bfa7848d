"""The research combinations of experiments/adult_holdout.py that fit rules for both classes
(``ovr-own``, ``both-nb``, ``both-nb-sum``, ``ovr``): each predicts what its docstring says,
recomputed here from the two fitted models' public views (``predict``, ``explain``, ``rules``)."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest

import findrs


@pytest.fixture(scope="module")
def frames() -> tuple[pl.DataFrame, pl.DataFrame]:
    from experiments.noisy import flip_labels

    df = findrs.datasets.tic_tac_toe().with_columns(pl.col("class") == "positive")
    train, test = findrs.datasets.train_test_split(df, 0.5, seed=0)
    # Flipped labels make rules of both classes hold on some rows (the conflict cell).
    return flip_labels(train, 0.15, seed=0), test


def _evidence(model: findrs.RuleSetModel, frame: pl.DataFrame, shift: float, agg) -> np.ndarray:
    """Per row, ``agg`` (max: of ``logit(q)``; sum: of ``max(logit(q) + shift, 0)``) over the
    holding rules, ``q`` a rule's smoothed training precision; -1 where none holds."""
    rules = model.rules
    logits = {}
    for i, p, n in zip(rules["id"], rules["train_positives"], rules["train_negatives"]):
        q = (p + 1) / (p + n + 2)
        logits[i] = math.log(q / (1 - q)) + shift
        if agg is sum:
            logits[i] = max(logits[i], 0.0)
    return np.array([agg(logits[i] for i in f) if f else -1.0 for f in model.explain(frame)["fired_rules"].to_list()])


def test_both_class_combinations_decide_as_documented(frames: tuple[pl.DataFrame, pl.DataFrame]) -> None:
    from experiments.adult_holdout import VARIANTS, _Both

    train, test = frames
    ovr, nb, nb_sum, shared = (VARIANTS[v](train, 0) for v in ("ovr-own", "both-nb", "both-nb-sum", "ovr"))
    assert all(isinstance(m, _Both) for m in (ovr, nb, nb_sum, shared))
    assert nb.pos is ovr.pos and nb.neg is ovr.neg  # one pair of fits per seed
    assert ovr.pos.positive is True and ovr.neg.positive is False
    assert shared.pos is ovr.pos and shared.neg.params["tolerance"] == ovr.pos.params["tolerance"]
    pos = ovr.pos.predict(test, labels=False).to_numpy()
    neg = ovr.neg.predict(test, labels=False).to_numpy()
    conflict = pos & neg
    assert conflict.any() and (pos & ~neg).any() and (~pos & neg).any()
    np.testing.assert_array_equal(ovr.predict(test), pos & ~neg)
    prior = float(train["class"].mean())
    lp = math.log(prior / (1 - prior))
    # Where one class's rules hold, or none, both evidence rules agree with the rules that hold.
    for m in (nb, nb_sum):
        got = m.predict(test)
        np.testing.assert_array_equal(got[~conflict], pos[~conflict])
    ep, en = _evidence(ovr.pos, test, 0.0, max), _evidence(ovr.neg, test, 0.0, max)
    np.testing.assert_array_equal(nb.predict(test)[conflict], (ep - en > lp)[conflict])
    sp, sn = _evidence(ovr.pos, test, 0.0, sum), _evidence(ovr.neg, test, lp, sum)
    np.testing.assert_array_equal(nb_sum.predict(test)[conflict], (sp > sn)[conflict])
    assert nb.score(test) == pytest.approx(float(np.mean(nb.predict(test) == test["class"].to_numpy())))


def test_exceptions_with_the_best_run_predict_as_the_model_of_that_run(
        frames: tuple[pl.DataFrame, pl.DataFrame], monkeypatch: pytest.MonkeyPatch) -> None:
    """``exc-best10`` / ``exc-bestx10``: the kept run's rules with §9.6's exceptions predict as an
    ``ExceptionsModel`` built from the refit of that run (``run=t``) and the exception rules;
    ``exc-best10`` keeps ``best10``'s run, ``exc-bestx10`` the run whose exceptions model has
    the most training rows right (the first of those)."""
    import findrs.select.auto
    from experiments.adult_holdout import SETTINGS, VARIANTS, _ExcRuns

    monkeypatch.setattr(findrs.select.auto, "VOTE_MAX_ROWS", 0)  # FIND-RS defaults, as on Adult
    train, test = frames
    best, by_rules, by_model = (VARIANTS[v](train, 0) for v in ("best10", "exc-best10", "exc-bestx10"))
    assert isinstance(by_rules, _ExcRuns) and by_rules.pick == best.pick
    truth = train["class"].to_numpy()
    right = (by_model._cover(train) == truth[:, None]).sum(axis=0)
    assert by_model.pick == int(np.flatnonzero(right == right.max())[0])
    for m in (by_rules, by_model):
        kw = {k: m.base.params[k] for k in SETTINGS}
        rules = findrs.fit(train, "class", True, **findrs.settings.fit_keywords(dict(random_state=0, auto=False, **kw, settings=dict(run=m.pick, min_support=m.base.params["min_support"]))))
        built = findrs.ExceptionsModel(rules, m.exc.exception_model)
        for frame in (train, test):
            np.testing.assert_array_equal(m.predict(frame), built.predict(frame, labels=False).to_numpy())


def test_second_stage_scores_its_contenders_as_fits_on_the_sample(monkeypatch: pytest.MonkeyPatch) -> None:
    """``rescore3`` (issue 12, branch rescore35) on tic-tac-toe with a 400-row sample: each plain
    contender's rows right outside the sample are those of a public ``auto=False`` fit of its
    settings on the sample's rows (one run, the seed of the stage's fold, the sample-scale
    support), its cross-validation count the record's; the winner has the most rows right over
    both; with no row outside the sample the fit is the defaults'."""
    import warnings

    import findrs.select.auto
    from experiments.adult_holdout import STAGE2, _second_stage
    from findrs.models.rule_set_parts import UNSAMPLED, cv_folds, fold_seed

    monkeypatch.setattr(findrs.select.auto, "VOTE_MAX_ROWS", 0)  # FIND-RS defaults, as on Adult
    df = findrs.datasets.tic_tac_toe().with_columns(pl.col("class") == "positive")
    y = df["class"].to_numpy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", findrs.ContradictionWarning)
        model = _second_stage(3, None, cv_rows=400)(df, 0)
        stage, folds = STAGE2["stage"], STAGE2["folds"]
        fold_of = cv_folds(y, folds, 0, 400)
        sample, outside = df.filter(fold_of != UNSAMPLED), df.filter(fold_of == UNSAMPLED)
        assert STAGE2["outside"] == outside.height == df.height - 400 and len(stage) == 3
        plain = [s for s in stage if s[0][0] == "plain"]
        assert plain
        for what, right, cv_right, _ in plain:
            c = STAGE2["candidates"][what[1]]
            assert cv_right == sum(c["correct"])
            m = findrs.fit(sample, "class", True, **findrs.settings.fit_keywords(dict(auto=False, method="find-rs", random_state=fold_seed(0, folds), **{k: c[k] for k in ("encoding", "tolerance", "min_support", "direction", "simplify")})))
            assert int((m.predict(outside) == outside["class"]).sum()) == right
        # The winner: no contender has more rows right but a pair that left no model with exceptions.
        won = next(s for s in stage if str(s[0]) == STAGE2["winner"])
        assert all(w[0] == "pair" for w, r, cv, _ in stage if r + cv > won[1] + won[2])
        assert model.n_rules >= 1
        # No row outside the sample: the defaults' model.
        same = _second_stage(3)(df, 0)
        default = findrs.fit(df, "class", True, random_state=0, max_rules=None)
    assert type(same) is type(default) and same.to_json() == default.to_json()
