"""The generated-frame battery (issue 10): Hypothesis draws frames over dtypes, names (regex-
looking and case-folding ones), nulls and sizes (tests/battery_strategies.py), fits models on
them, and compares every prediction path on every model (tests/paths.py: predict, predict_expr
eager and streaming, to_expr, explain, JSON, pickle, PyArrow, to_sql on DuckDB and SQLite), on the
training frame and on a frame of unseen values and other accepted dtypes. Every model kind takes
part (issue 42): binary rule sets, and, one test each (battery_strategies.MODEL_KINDS),
multiclass models, numeric intervals (NaN, infinities, extremes), rules with exceptions, bagged
votes, both models of a BO+BP pair, rule budgets (``max_rules``, checked per rule set),
``chunks`` (joblib workers) and the automatic settings. Fits and loads may raise
``FindRSInputError`` only, for a documented refusal; bad inputs (unusable dtypes, bad
parameters and labels, re-typed or missing columns) and corrupted model files must raise
``FindRSInputError`` and nothing else (a ``ContradictionWarning`` is documented). The totals
count the models of each kind, the path comparisons, the refusals, the aborts (a worker process
that died), the unexpected exceptions and the disagreements.

In CI (the conftest's default ``ci`` profile: derandomized) each test runs a fixed number of
examples; ``pytest tests/test_battery.py --hypothesis-profile=battery`` runs the long battery
(over 10,000 cases; ``FINDRS_BATTERY_EXAMPLES=N`` scales it, ``FINDRS_BATTERY_TOTALS=FILE``
writes the totals so far every 30 s) and prints its totals.
"""

from __future__ import annotations

import json
import re
import warnings
from typing import Any

import polars as pl
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import findrs
from findrs import ContradictionWarning, FindRSInputError, RuleSetModel

from battery_strategies import (MODEL_KINDS, TOTALS, bad_fits, checkpoint, fit_params, kind_case, prediction_frame,
                                training_frames)
from paths import Paths, assert_paths_agree, is_binary

BATTERY = "battery"


def _examples(ci: int, share: float) -> int:
    """``ci`` examples, or ``share`` of the battery profile's budget when it is loaded."""
    get = getattr(settings, "get_current_profile_name", None)
    name = get() if get is not None else getattr(settings, "_current_profile", None)
    if name == BATTERY:
        return int(settings.get_profile(BATTERY).max_examples * share)
    return ci


def _settings(ci: int, share: float) -> settings:
    return settings(
        max_examples=_examples(ci, share),
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much,
                               HealthCheck.large_base_example],
    )


# A generated frame findrs may refuse although nothing is wrong with the test: a numeric
# column whose rows hold no finite value (docs/semantics.md §1), a min_support no rule meets
# (§9.2); under intervals, a numeric column holding an infinity (§1).
FINE_REFUSALS = ("has no finite value to bin", "leaves no rule", "holds an infinity",
                 "keeps at least one rule per set")

# The totals every run prints, zero or not: a child process that died (a chunks fit's joblib
# worker), an exception other than FindRSInputError, paths that disagree.
ABORTS, UNEXPECTED, DISAGREEMENTS = "aborts (a child process died)", "unexpected exceptions", "disagreements"
for _key in (ABORTS, UNEXPECTED, DISAGREEMENTS, "path comparisons"):
    TOTALS[_key] += 0


def _is_abort(e: BaseException) -> bool:
    """A worker process that died under a fit (joblib's loky, concurrent.futures)."""
    names = {t.__name__ for t in type(e).__mro__}
    return bool(names & {"TerminatedWorkerError", "BrokenProcessPool", "BrokenExecutor"})


def _kind(model: findrs.Model) -> str:
    return f"{type(model).__name__} {'binary' if is_binary(model) else 'multiclass'}"


def _fit_models(df: pl.DataFrame, target: str, params: dict[str, Any]) -> list[findrs.Model]:
    """The models of one fit (a ModelPair's two), or none when findrs refuses the frame with a
    documented FindRSInputError; any other exception is counted and fails the test.
    ``params["fit_bagged"]``: findrs.fit_bagged with that many estimators."""
    params = dict(params)
    bagged = params.pop("fit_bagged", None)
    kw = findrs.settings.fit_keywords(dict(n_jobs=1, **params))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.simplefilter("ignore", ContradictionWarning)
        try:
            if bagged is not None:
                fitted: Any = findrs.fit_bagged(df, target, n_estimators=bagged, **kw)
            else:
                fitted = findrs.fit(df, target, **kw)
        except FindRSInputError as e:
            reason = next((r for r in FINE_REFUSALS if r in str(e)), None)
            assert reason is not None, e
            TOTALS[f"fits refused ({reason})"] += 1
            return []
        except BaseException as e:
            TOTALS[ABORTS if _is_abort(e) else UNEXPECTED] += 1
            raise
    models = list(fitted) if isinstance(fitted, findrs.ModelPair) else [fitted]
    for m in models:
        assert isinstance(m, findrs.Model)
        TOTALS[f"models: {_kind(m)}"] += 1
    return models


def _fit(df: pl.DataFrame, target: str, params: dict[str, Any], **kw: Any) -> RuleSetModel | None:
    models = _fit_models(df, target, dict(**params, **kw, auto=False))
    if not models:
        return None
    model = models[0]
    TOTALS[f"models {model.method} {model.encoding}"] += 1
    return model


def _agree(model: findrs.Model, df: pl.DataFrame) -> Paths:
    """assert_paths_agree, counted: its comparisons, its refusals, a disagreement."""
    try:
        p = assert_paths_agree(model, df)
    except AssertionError:
        TOTALS[DISAGREEMENTS] += 1
        raise
    except FindRSInputError:
        raise
    except BaseException:
        TOTALS[UNEXPECTED] += 1
        raise
    for name in p.refused:
        TOTALS[f"paths refused: {name}: {p.refused[name][:50]}"] += 1
    TOTALS["path comparisons"] += len(p.masks) + len(p.votes) + len(p.decisions)
    return p


@_settings(ci=45, share=0.35)
@given(data=st.data())
def test_every_path_agrees_on_every_generated_model(data) -> None:
    checkpoint()
    df, target = data.draw(training_frames())
    params = data.draw(fit_params())
    model = _fit(df, target, params)
    if model is None:
        return
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _agree(model, df)
        _agree(model, data.draw(prediction_frame(df, model.features)))
    if params["method"] != "find-rs" and data.draw(st.integers(0, 3)) == 0:
        # Determinism: the thread count never changes the model.
        again = findrs.fit(df, target, **findrs.settings.fit_keywords(dict(n_jobs=2, **params, auto=False)))
        assert again.to_json() == model.to_json()
        TOTALS["thread-count comparisons"] += 1


@pytest.mark.parametrize("kind", MODEL_KINDS)
@_settings(ci=3, share=0.04)
@given(data=st.data())
def test_every_path_agrees_on_every_model_kind(kind, data) -> None:
    """Every kind added after the binary rule set (MODEL_KINDS: multiclass, numeric intervals,
    exceptions, bagged votes, BO+BP pairs, rule budgets, chunks, automatic settings): each model
    of the fit, on its training frame and on a frame of unseen values, through every path."""
    checkpoint()
    df, target, params = data.draw(kind_case(kind))
    TOTALS[f"cases: {kind}"] += 1
    for model in _fit_models(df, target, params):
        if params.get("max_rules") is not None:
            _check_budget(model, params["max_rules"])
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            _agree(model, df)
            _agree(model, data.draw(prediction_frame(df, model.features)))


def _check_budget(model: findrs.Model, k: int) -> None:
    """A rule budget holds: at most ``k`` voting rules in a rule set's vote; in a multiclass
    FIND-RS model, summed over its class sets (docs/semantics.md §10.1), in each class set of a
    BO or BP one (§10); a bagged vote's members are checked by their own fits."""
    if not is_binary(model) and hasattr(model, "class_models") and model.method == "find-rs":
        assert model.n_rules <= k, f"max_rules={k} but a multiclass FIND-RS model of {model.n_rules} rules"
        sets = []
    elif not is_binary(model) and hasattr(model, "class_models"):
        sets = list(model.class_models)
    elif hasattr(model, "vote"):
        sets = [model]
    else:
        return
    for m in sets:
        assert m.n_rules <= k, f"max_rules={k} but a rule set of {m.n_rules} rules"
    TOTALS["rule budgets checked"] += 1


@_settings(ci=40, share=0.15)
@given(data=st.data())
def test_bad_inputs_raise_only_findrs_input_errors(data) -> None:
    checkpoint()
    df, target, kw, what = data.draw(bad_fits())
    params = {"n_jobs": 1, **kw}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            warnings.simplefilter("ignore", ContradictionWarning)
            # Documented: n_rules with a method that votes with every rule warns, not raises.
            warnings.filterwarnings("ignore", r"n_rules=\S+ is ignored by method=", UserWarning)
            model = findrs.fit(df, target, **findrs.settings.fit_keywords(dict(**params, auto=False)))
    except FindRSInputError as e:
        TOTALS[f"bad inputs refused ({type(e).__name__})"] += 1
        TOTALS[f"refused: {what.split(' ')[0]}"] += 1
        assert str(e), what
        return
    # Some drawn "bad" inputs are fine (e.g. a positive label that happens to exist): then the
    # model must work.
    TOTALS["bad inputs that were fine"] += 1
    assert_paths_agree(model, df)


@_settings(ci=25, share=0.05)
@given(data=st.data())
def test_bad_prediction_frames_raise_only_findrs_input_errors(data) -> None:
    checkpoint()
    df, target = data.draw(training_frames(max_rows=20))
    model = _fit(df, target, data.draw(fit_params()))
    if model is None:
        return
    feature = data.draw(st.sampled_from(model.features))
    enc = model.encoders[model.features.index(feature)]
    kind = data.draw(st.sampled_from(["missing", "retyped"]))
    if kind == "missing":
        # (df.drop and df.select read '^a.*$' as a pattern: the columns one by one.)
        bad = pl.DataFrame({c: df.get_column(c) for c in df.columns if c != feature})
    else:
        replacement = {
            "string": pl.Series(feature, [1.5] * df.height),
            "boolean": pl.Series(feature, ["x"] * df.height),
            "integer": pl.Series(feature, ["1"] * df.height),
            "float": pl.Series(feature, [True] * df.height),
        }[enc.family]
        bad = df.with_columns(replacement)
    with pytest.raises(FindRSInputError, match=re.escape(repr(feature))):
        model.predict(bad)
    # In a query the frame is not known when the expression is built: Polars refuses it.
    with pytest.raises(pl.exceptions.PolarsError):
        bad.lazy().select(model.predict_expr()).collect(engine="streaming")
    TOTALS[f"bad prediction frames refused ({kind})"] += 1


def _paths(doc: Any, prefix: tuple = ()) -> list[tuple]:
    out = [prefix]
    if isinstance(doc, dict):
        for k, v in doc.items():
            out += _paths(v, prefix + (k,))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            out += _paths(v, prefix + (i,))
    return out


JSON_VALUES = st.one_of(
    st.none(), st.booleans(), st.sampled_from([0, 1, -1, 2, 3, 2**31, 2**32 - 1, 2**32, 2**53 + 1, 2**63, 2**64, 10**30]),
    st.integers(-5, 40), st.sampled_from([0.5, -0.0, 1e308, -1e308, 1.5, 3.0]),
    st.sampled_from(["", "x", "av", "oh", "bo", "bp", "find-rs", "categorical", "binned", "string", "integer", "float",
                     "boolean", "String", "Int64", "Boolean", "auto", "null"]),
    st.lists(st.integers(-2, 12), max_size=4), st.just({}), st.just([]),
)


@_settings(ci=40, share=0.15)
@given(data=st.data())
def test_corrupted_model_files_are_refused_at_load_or_work(data) -> None:
    checkpoint()
    df, target = data.draw(training_frames(max_rows=30))
    model = _fit(df, target, data.draw(fit_params()))
    if model is None:
        return
    doc = json.loads(model.to_json())
    for _ in range(data.draw(st.integers(1, 3))):
        path = data.draw(st.sampled_from([p for p in _paths(doc) if p]))
        parent = doc
        for k in path[:-1]:
            parent = parent[k]
        op = data.draw(st.sampled_from(["set", "set", "delete", "duplicate"]))
        if op == "set":
            parent[path[-1]] = data.draw(JSON_VALUES)
        elif op == "delete":
            del parent[path[-1]]
        elif isinstance(parent, list):
            parent.insert(path[-1], parent[path[-1]])
        else:
            parent[path[-1]] = [parent[path[-1]]]
    TOTALS["corrupted model files"] += 1
    try:
        loaded = RuleSetModel.from_json(json.dumps(doc))
    except FindRSInputError as e:
        TOTALS[f"corrupted files refused at load ({type(e).__name__})"] += 1
        return
    TOTALS["corrupted files that loaded"] += 1
    # A file that loads is a consistent model: every path works and agrees, or refuses the
    # frame (a feature renamed or re-typed by the edit) with a FindRSInputError.
    try:
        str(loaded), repr(loaded), loaded.rules
        assert_paths_agree(loaded, df)
    except FindRSInputError as e:
        assert "feature column" in str(e), e
        TOTALS["loaded files that refuse the frame"] += 1
    if loaded.method == "bp" and target in df.columns:
        try:
            loaded.pruning_curve(df)
        except FindRSInputError as e:
            # A frame the model cannot read, or a rule budget's DNF (no top-K vote to prune).
            assert any(m in str(e) for m in ("feature column", "target column", "rule budget")), e
