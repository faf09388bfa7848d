"""Bad input gives a clear FindRSInputError naming the column / value, and nothing else.

Every case here must raise ``findrs.FindRSInputError`` (a ValueError) -- not a plain ValueError,
TypeError, KeyError, OverflowError or a Rust panic -- and its message must carry the fragments
listed with the case.
"""

from __future__ import annotations

import datetime as dt
import json
from typing import Any, Callable

import numpy as np
import polars as pl
import pytest

import findrs
from findrs import FindRSInputError, RuleSetModel

MONKS = findrs.datasets.monks(2)
SMALL = pl.DataFrame(
    {
        "a": ["x", "y", "x", "z", "y", "z"],
        "b": [1, 2, 3, 1, 2, 3],
        "c": [0.5, 1.5, 2.5, 3.5, 4.5, 5.5],
        "label": ["yes", "no", "yes", "no", "yes", "no"],
    }
)


def _expect(call: Callable[[], Any], *fragments: str) -> FindRSInputError:
    """``call`` raises FindRSInputError (and nothing else) whose message has every fragment."""
    try:
        call()
    except FindRSInputError as e:
        msg = str(e)
        for frag in fragments:
            assert frag in msg, f"{frag!r} not in message {msg!r}"
        return e
    except BaseException as e:  # noqa: BLE001 - anything else is the failure we look for
        pytest.fail(f"expected FindRSInputError, got {type(e).__module__}.{type(e).__name__}: {e}")
    pytest.fail("expected FindRSInputError, nothing was raised")


def fit(df: pl.DataFrame = MONKS, target: str = "class", positive: Any = None, **kw: Any) -> Callable[[], Any]:
    return lambda: findrs.fit(df, target, positive, **findrs.settings.fit_keywords(dict(**{"auto": False, **kw})))


def test_error_is_a_value_error() -> None:
    assert issubclass(FindRSInputError, ValueError)


# --------------------------------------------------------------------------- #
# The target column
# --------------------------------------------------------------------------- #

TARGET_CASES = {
    "missing target column": (fit(target="klass"), ["'klass'", "not found"]),
    "positive label absent (int)": (fit(positive=7), ["7", "'class'", "not found"]),
    "positive label absent (str)": (lambda: findrs.fit(SMALL, "label", "maybe", auto=False), ["'maybe'", "'label'"]),
    "positive label of the wrong type": (lambda: findrs.fit(SMALL, "label", 1, auto=False), ["1", "'label'"]),
    "one class only": (fit(MONKS.filter(pl.col("class") == 0)), ["'class'", "single class", "0"]),
    "one class only, positive given": (fit(MONKS.filter(pl.col("class") == 0), positive=1), ["1", "'class'"]),
    "all rows positive": (fit(MONKS.filter(pl.col("class") == 1), positive=1), ["'class'", "every row", "1"]),
    "all rows positive (bool)": (
        lambda: findrs.fit(pl.DataFrame({"a": [1, 2], "y": [True, True]}), "y", auto=False),
        ["'y'", "True"],
    ),
    "all rows negative (bool)": (
        lambda: findrs.fit(pl.DataFrame({"a": [1, 2], "y": [False, False]}), "y", auto=False),
        ["'y'"],
    ),
    "an unknown multiclass combination": (
        lambda: findrs.fit(pl.DataFrame({"a": [1, 2, 3], "y": ["r", "g", "b"]}), "y", auto=False, settings=dict(multiclass="vote")),
        ["multiclass", "'vote'", "'frequent-first'"],
    ),
    "target with nulls": (
        fit(MONKS.with_columns(pl.when(pl.col("a1") == 1).then(None).otherwise(pl.col("class")).alias("class"))),
        ["'class'", "null"],
    ),
    "target with nulls (string)": (
        lambda: findrs.fit(SMALL.with_columns(pl.when(pl.col("b") == 2).then(None).otherwise(pl.col("label")).alias("label")), "label", "yes", auto=False),
        ["'label'", "null"],
    ),
    "list target": (
        lambda: findrs.fit(SMALL.with_columns(label=pl.concat_list("b", "b")), "label", auto=False),
        ["'label'", "List"],
    ),
    "empty frame": (fit(MONKS.head(0)), ["no rows"]),
    "no feature columns": (lambda: findrs.fit(SMALL.select("label"), "label", "yes", auto=False), ["no feature columns", "'label'"]),
}


@pytest.mark.parametrize("case", list(TARGET_CASES))
def test_target_errors(case: str) -> None:
    call, fragments = TARGET_CASES[case]
    _expect(call, *fragments)


# --------------------------------------------------------------------------- #
# Feature columns
# --------------------------------------------------------------------------- #

FEATURE_CASES = {
    "list feature": (fit(MONKS.with_columns(pairs=pl.concat_list("a1", "a2"))), ["'pairs'", "List"]),
    "struct feature": (fit(MONKS.with_columns(both=pl.struct("a1", "a2"))), ["'both'", "Struct"]),
    "array feature": (
        fit(MONKS.with_columns(arr=pl.concat_list("a1", "a2").list.to_array(2))),
        ["'arr'", "Array"],
    ),
    "binary feature": (fit(MONKS.with_columns(raw=pl.lit(b"\x00"))), ["'raw'", "Binary"]),
    "null-dtype feature": (fit(MONKS.with_columns(nothing=pl.lit(None))), ["'nothing'"]),
    "object feature": (
        fit(MONKS.with_columns(pl.Series("obj", [object()] * MONKS.height, dtype=pl.Object))),
        ["'obj'", "Object"],
    ),
    "date feature": (fit(MONKS.with_columns(when=pl.lit(dt.date(2020, 1, 1)))), ["'when'", "temporal", "Date"]),
    "datetime feature": (fit(MONKS.with_columns(when=pl.lit(dt.datetime(2020, 1, 1, 12)))), ["'when'", "temporal"]),
    "duration feature": (fit(MONKS.with_columns(when=pl.lit(dt.timedelta(days=1)))), ["'when'", "temporal"]),
    "time feature": (fit(MONKS.with_columns(when=pl.lit(dt.time(12, 30)))), ["'when'", "temporal"]),
    "features names a missing column": (fit(features=["a1", "a9"]), ["'a9'", "not found"]),
    "features names the target": (fit(features=["a1", "class"]), ["'class'"]),
    "features is empty": (fit(features=[]), ["no feature columns"]),
    "all-NaN float feature": (
        lambda: findrs.fit(SMALL.with_columns(c=pl.lit(float("nan"))), "label", "yes", auto=False),
        ["'c'", "finite"],
    ),
    "not a frame": (lambda: findrs.fit([[1, 2], [3, 4]], "y", auto=False), ["list"]),
}


@pytest.mark.parametrize("case", list(FEATURE_CASES))
def test_feature_errors(case: str) -> None:
    call, fragments = FEATURE_CASES[case]
    _expect(call, *fragments)


# --------------------------------------------------------------------------- #
# Parameters
# --------------------------------------------------------------------------- #

PARAM_CASES: list[tuple[dict[str, Any], list[str]]] = [
    ({"method": "xx"}, ["method", "'xx'"]),
    ({"method": "BO"}, ["method", "'BO'"]),
    ({"encoding": "onehot"}, ["encoding", "'onehot'"]),
    ({"encoding": "AV"}, ["encoding", "'AV'"]),
    ({"encoding": None}, ["encoding"]),
    ({"tolerance": -1}, ["tolerance", "-1"]),
    ({"tolerance": 1.5}, ["tolerance", "1.5"]),
    ({"tolerance": "0"}, ["tolerance", "'0'"]),
    ({"tolerance": True}, ["tolerance", "True"]),
    ({"tolerance": None}, ["tolerance", "None"]),
    ({"tolerance": 2**32}, ["tolerance", str(2**32)]),
    ({"method": "bo", "T": 0}, ["T", "0"]),
    ({"method": "bp", "T": -3}, ["T", "-3"]),
    ({"method": "bo", "T": 2.5}, ["T", "2.5"]),
    ({"method": "bo", "T": "10"}, ["T", "'10'"]),
    ({"method": "bp", "T": None}, ["T", "None"]),
    ({"method": "bo", "T": 2**32}, ["T", str(2**32)]),
    ({"method": "bp", "n_rules": 0}, ["n_rules", "0"]),
    ({"method": "bp", "n_rules": -1}, ["n_rules", "-1"]),
    ({"method": "bp", "n_rules": "all"}, ["n_rules", "'all'"]),
    ({"method": "bp", "n_rules": 1.5}, ["n_rules", "1.5"]),
    ({"method": "bp", "n_rules": 2**64}, ["n_rules", str(2**64)]),
    ({"method": "bp", "accuracy_ratio": 0}, ["accuracy_ratio", "0"]),
    ({"method": "bp", "accuracy_ratio": 1.5}, ["accuracy_ratio", "1.5"]),
    ({"method": "bp", "accuracy_ratio": float("nan")}, ["accuracy_ratio", "nan"]),
    ({"method": "bp", "accuracy_ratio": "high"}, ["accuracy_ratio", "'high'"]),
    ({"method": "bp", "accuracy_ratio": None}, ["accuracy_ratio", "None"]),
    ({"bins": 0}, ["bins", "0"]),
    ({"n_jobs": 0}, ["n_jobs", "0"]),
    ({"n_jobs": -2}, ["n_jobs", "-2"]),
    ({"method": "bo", "n_jobs": 2**64}, ["n_jobs", str(2**64)]),
    ({"random_state": -1}, ["random_state", "-1"]),
    ({"random_state": "seed"}, ["random_state", "'seed'"]),
    ({"random_state": 2**64}, ["random_state", str(2**64)]),
    # docs/semantics.md §9: the noisy-data parameters.
    ({"tolerance": 1.0}, ["tolerance", "1.0", "[0, 1)"]),
    ({"tolerance": float("nan")}, ["tolerance", "nan"]),
    ({"tolerance": "best"}, ["tolerance", "'best'"]),
    ({"min_support": -1}, ["min_support", "-1"]),
    ({"min_support": 1.5}, ["min_support", "1.5"]),
    ({"min_support": None}, ["min_support", "None"]),
    ({"direction": "up"}, ["direction", "'up'"]),
    ({"direction": None}, ["direction", "None"]),
    ({"auto": "yes"}, ["auto", "'yes'"]),
    ({"n_rules": "cv"}, ["n_rules='cv'", "method='bp'"]),
    ({"tolerance": "auto", "cv": 1}, ["cv", "1"]),
    ({"auto": True, "cv": True}, ["cv", "True"]),
    ({"method": "bp", "T": 5, "auto": True, "cv_T": 6}, ["cv_T", "6", "T = 5"]),
    ({"method": "bp", "T": 5, "auto": True, "cv_T": 0}, ["cv_T", "0"]),
]


@pytest.mark.parametrize(("kwargs", "fragments"), PARAM_CASES, ids=[repr(k) for k, _ in PARAM_CASES])
def test_parameter_errors(kwargs: dict[str, Any], fragments: list[str]) -> None:
    _expect(fit(**kwargs), *fragments)


@pytest.mark.parametrize(("kwargs", "fragments"), PARAM_CASES[:11], ids=[repr(k) for k, _ in PARAM_CASES[:11]])
def test_parameter_errors_through_namespaces(kwargs: dict[str, Any], fragments: list[str]) -> None:
    _expect(lambda: MONKS.findrs.fit("class", **findrs.settings.fit_keywords(dict(**kwargs, auto=False))), *fragments)
    _expect(lambda: MONKS.lazy().findrs.fit("class", **findrs.settings.fit_keywords(dict(**kwargs, auto=False))), *fragments)


# --------------------------------------------------------------------------- #
# Prediction frames and model methods
# --------------------------------------------------------------------------- #


@pytest.fixture(scope="module")
def small_model() -> RuleSetModel:
    return findrs.fit(SMALL, "label", "yes", auto=False, settings=dict(shuffle=False))


@pytest.fixture(scope="module")
def bp_model() -> RuleSetModel:
    return findrs.fit(MONKS, "class", method="bp", random_state=0, auto=False, settings=dict(T=5))


@pytest.mark.parametrize("method", ["predict", "decision_function", "explain"])
def test_predict_missing_feature(small_model: RuleSetModel, method: str) -> None:
    _expect(lambda: getattr(small_model, method)(SMALL.drop("b")), "'b'", "missing")


@pytest.mark.parametrize("method", ["predict", "decision_function", "explain"])
def test_predict_string_feature_became_int(small_model: RuleSetModel, method: str) -> None:
    changed = SMALL.with_columns(a=pl.Series([1, 2, 1, 3, 2, 3]))
    _expect(lambda: getattr(small_model, method)(changed), "'a'", "String", "Int64")


def test_predict_int_feature_became_string(small_model: RuleSetModel) -> None:
    changed = SMALL.with_columns(pl.col("b").cast(pl.String))
    _expect(lambda: small_model.predict(changed), "'b'", "Int64", "String")


def test_predict_numeric_feature_became_string(small_model: RuleSetModel) -> None:
    changed = SMALL.with_columns(pl.col("c").cast(pl.String))
    _expect(lambda: small_model.predict(changed), "'c'", "String")


def test_predict_on_lazyframe_missing_feature(small_model: RuleSetModel) -> None:
    _expect(lambda: small_model.predict(SMALL.lazy().drop("a")), "'a'")


def test_predict_not_a_frame(small_model: RuleSetModel) -> None:
    _expect(lambda: small_model.predict({"a": ["x"]}), "dict")


def test_score_missing_target(small_model: RuleSetModel) -> None:
    _expect(lambda: small_model.score(SMALL.drop("label")), "'label'", "not found")


def test_predict_on_empty_frame_is_fine(small_model: RuleSetModel) -> None:
    assert small_model.predict(SMALL.head(0)).len() == 0
    assert small_model.predict(SMALL.head(0), labels=False).to_numpy().shape == (0,)


def test_with_n_rules_errors(small_model: RuleSetModel, bp_model: RuleSetModel) -> None:
    _expect(lambda: small_model.with_n_rules(1), "BP", "'find-rs'")
    n = bp_model.n_rules_found
    _expect(lambda: bp_model.with_n_rules(0), "n_rules", str(n), "0")
    _expect(lambda: bp_model.with_n_rules(n + 1), "n_rules", str(n + 1))


@pytest.mark.parametrize("k", [-1, 2**70])
def test_with_n_rules_out_of_range_integers(bp_model: RuleSetModel, k: int) -> None:
    _expect(lambda: bp_model.with_n_rules(k), "n_rules", str(k))


def test_pruning_curve_errors(small_model: RuleSetModel, bp_model: RuleSetModel) -> None:
    _expect(lambda: small_model.pruning_curve(SMALL), "BP")
    _expect(lambda: bp_model.pruning_curve(MONKS.drop("class")), "'class'", "not found")
    _expect(lambda: bp_model.pruning_curve(MONKS, MONKS.drop("class")), "'class'", "test")
    _expect(lambda: bp_model.pruning_curve(MONKS.drop("a4")), "'a4'")


# --------------------------------------------------------------------------- #
# from_json
# --------------------------------------------------------------------------- #


@pytest.fixture(scope="module")
def model_dict() -> dict[str, Any]:
    m = findrs.fit(MONKS, "class", method="bo", random_state=0, auto=False, settings=dict(T=3))
    return json.loads(m.to_json())


@pytest.mark.parametrize(
    "text",
    ["{not json", '{"format": "findrs-model", "version": 1,', "{}}", "{" + "\x00"],
    ids=["garbage", "truncated", "trailing", "nul"],
)
def test_from_json_corrupt_text(text: str) -> None:
    _expect(lambda: RuleSetModel.from_json(text), "not a findrs model")


def test_from_json_truncated_model(model_dict: dict[str, Any]) -> None:
    text = json.dumps(model_dict)
    _expect(lambda: RuleSetModel.from_json(text[: len(text) // 2]), "invalid JSON")


# A JSON document that is not an object is JSON text of the wrong format, not a file path.
@pytest.mark.parametrize("text", ["[1, 2]", "[]", '"findrs-model"', "", "   "])
def test_from_json_not_an_object(text: str) -> None:
    _expect(lambda: RuleSetModel.from_json(text), "findrs model")


def test_from_json_corrupt_file(tmp_path) -> None:
    path = tmp_path / "model.json"
    path.write_text("{ this is not json")
    _expect(lambda: RuleSetModel.from_json(path), "invalid JSON")
    _expect(lambda: RuleSetModel.from_json(str(path)), "invalid JSON")


@pytest.mark.parametrize("fmt", ["findrs", "sklearn-model", None, 1])
def test_from_json_wrong_format(model_dict: dict[str, Any], fmt: Any) -> None:
    d = {**model_dict, "format": fmt}
    _expect(lambda: RuleSetModel.from_json(json.dumps(d)), "format", "findrs-model")
    d.pop("format")
    _expect(lambda: RuleSetModel.from_json(json.dumps(d)), "format")


@pytest.mark.parametrize("version", [0, 3, 99, "2", None, 2.5])
def test_from_json_wrong_version(model_dict: dict[str, Any], version: Any) -> None:
    d = {**model_dict, "version": version}
    _expect(lambda: RuleSetModel.from_json(json.dumps(d)), "version", json.dumps(version))


def test_from_json_missing_version(model_dict: dict[str, Any]) -> None:
    d = dict(model_dict)
    d.pop("version")
    _expect(lambda: RuleSetModel.from_json(json.dumps(d)), "version")


def _edited(d: Any, path: str, value: Any = ..., *, drop: bool = False) -> Any:
    """A deep copy of ``d`` with the field at ``path`` (dotted, list indices as numbers) set to
    ``value`` or dropped."""
    d = json.loads(json.dumps(d))
    *parents, last = path.split(".")
    node = d
    for key in parents:
        node = node[int(key)] if isinstance(node, list) else node[key]
    key = int(last) if isinstance(node, list) else last
    if drop:
        del node[key]
    else:
        node[key] = value
    return d


REQUIRED_FIELDS = [
    "target", "features", "params", "training", "model", "model.method", "model.T", "model.schema",
    "model.constraints", "model.rule_sets", "model.rule_sets.0.rules", "model.rule_sets.0.n_rules",
    "model.rule_sets.0.rules.0.weight", "model.schema.kinds", "params.tolerance", "target.positive",
    "features.0.family",
]


@pytest.mark.parametrize("field", REQUIRED_FIELDS)
def test_from_json_missing_field(model_dict: dict[str, Any], field: str) -> None:
    d = _edited(model_dict, field, drop=True)
    _expect(lambda: RuleSetModel.from_json(json.dumps(d)), field.split(".")[-1])


BAD_FIELDS = [
    ("model.method", "zz"),
    ("params.encoding", "zz"),
    ("model.T", 0),
    ("model.T", -1),
    ("model.T", "many"),
    ("model.T", None),
    ("model.rule_sets.0.n_rules", -1),
    ("model.rule_sets.0.n_rules", 10**6),
    ("target", None),
    ("target", {}),
    ("params", None),
    ("training", None),
    ("features", None),
    ("model.rule_sets.0.rules", None),
    ("model.rule_sets.0.rules.0.weight", -1),
    ("model.rule_sets.0.rules.0.weight", 2**32 - 1),
    ("model.constraints.0.codes", [99]),
    ("model.constraints.0.feature", 99),
    ("model.rule_sets.0.runs.0", [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10**6]),
    ("params.tolerance", 1.5),
    ("params.min_support", -1),
    ("params.direction", "up"),
    ("params.auto", ["encoding"]),  # chosen by a cross-validation the file does not record
    ("params.auto", ["bins"]),
    ("params.auto", "encoding"),
    ("params.cv", 5),  # a cross-validation that chose nothing
]


@pytest.mark.parametrize(("field", "value"), BAD_FIELDS, ids=[f"{f}={v!r}"[:40] for f, v in BAD_FIELDS])
def test_from_json_malformed_field(model_dict: dict[str, Any], field: str, value: Any) -> None:
    d = _edited(model_dict, field, value)
    _expect(lambda: RuleSetModel.from_json(json.dumps(d)), "findrs model")


@pytest.fixture(scope="module")
def v1_dicts() -> dict[str, dict[str, Any]]:
    """Version-1 files of the 11 UCI data sets' fixtures: a FIND-RS one and a binned BP one."""
    import gzip
    from pathlib import Path

    here = Path(__file__).parent / "data" / "v1"
    return {
        name: json.loads(gzip.decompress((here / f"{name}.json.gz").read_bytes()))
        for name in ("car-find-rs-av", "wine-bp-av-T5")
    }


# issue 10 item 13: corrupt files that used to load and fail later (KeyError, IndexError,
# AttributeError) are refused at load, saying what is wrong; in both format versions.
CORRUPT = [
    ("empty params", "params", {}, ["params", "missing"]),
    ("n_rules 0 on FIND-RS", "model.rule_sets.0.n_rules", 0, ["K", "0"]),
    ("unknown kind", "features.0.kind", "ordinal", ["kind", "'ordinal'"]),
    ("mixed-type values", "features.0.values", ["high", 3, "low", "med"], ["string", "3"]),
    ("duplicate values", "features.0.values", ["high", "high", "low", "med"], ["repeat"]),
    ("duplicate feature names", "features.1.name", "buying", ["'buying'", "repeat"]),
    ("contradicting encoding", "params.encoding", "oh", ["encoding", "'oh'"]),
    ("positive null", "target.positive", None, ["positive", "null"]),
    ("weight above T", "model.rule_sets.0.rules.0.weight", 2**32 - 1, ["weighs", "T = 1"]),
]
CORRUPT_V1 = [
    ("empty params", "params", {}, ["params", "missing"]),
    ("n_rules 0 on FIND-RS", "n_rules", 0, ["K", "0"]),
    ("unknown kind", "features.0.kind", "ordinal", ["kind", "'ordinal'"]),
    ("mixed-type values", "features.0.values", ["high", 3, "low", "med"], ["3"]),
    ("duplicate values", "features.0.values", ["high", "high", "low", "med"], ["repeat"]),
    ("duplicate feature names", "features.1.name", "buying", ["repeat"]),
    ("contradicting encoding", "encoding", "oh", ["encoding"]),
    ("positive null", "target.positive", None, ["positive", "null"]),
    ("weight above T", "rules.0.weight", 2**32 - 1, ["total_weight"]),
]


@pytest.mark.parametrize(("what", "field", "value", "fragments"), CORRUPT, ids=[c[0] for c in CORRUPT])
def test_corrupt_v2_models_are_refused_at_load(v1_dicts, what: str, field: str, value: Any, fragments: list[str]) -> None:
    v2 = json.loads(RuleSetModel.from_json(json.dumps(v1_dicts["car-find-rs-av"])).to_json())
    d = _edited(v2, field, value)
    _expect(lambda: RuleSetModel.from_json(json.dumps(d)), "findrs model", *fragments)


@pytest.mark.parametrize(("what", "field", "value", "fragments"), CORRUPT_V1, ids=[c[0] for c in CORRUPT_V1])
def test_corrupt_v1_models_are_refused_at_load(v1_dicts, what: str, field: str, value: Any, fragments: list[str]) -> None:
    d = _edited(v1_dicts["car-find-rs-av"], field, value)
    _expect(lambda: RuleSetModel.from_json(json.dumps(d)), "findrs model", *fragments)


@pytest.mark.parametrize("version", [1, 2])
def test_string_bin_edges_are_refused(v1_dicts, version: int) -> None:
    d = v1_dicts["wine-bp-av-T5"]
    if version == 2:
        d = json.loads(RuleSetModel.from_json(json.dumps(d)).to_json())
    edges = d["features"][0]["edges"]
    d = _edited(d, "features.0.edges", [str(e) for e in edges])
    _expect(lambda: RuleSetModel.from_json(json.dumps(d)), "findrs model", "edges", "finite numbers")


def test_json_io_leaves_the_garbage_collector_as_it_was(v1_dicts) -> None:
    # Loading a version-1 file pauses the cyclic GC (speed); errors must not leave it off, nor
    # must they turn it on for a caller who had it off.
    import gc

    text = json.dumps(v1_dicts["car-find-rs-av"])
    for enabled in (True, False):
        (gc.enable if enabled else gc.disable)()
        try:
            RuleSetModel.from_json(text).to_json()
            with pytest.raises(FindRSInputError):
                RuleSetModel.from_json(text[: len(text) // 2])
            with pytest.raises(FindRSInputError):
                RuleSetModel.from_json(json.dumps({**v1_dicts["car-find-rs-av"], "rules": 5}))
            assert gc.isenabled() is enabled
        finally:
            gc.enable()


def test_from_json_round_trip_of_the_fixture_works(model_dict: dict[str, Any]) -> None:
    # The fixture itself is a valid model (the cases above really are the corruption).
    m = RuleSetModel.from_json(json.dumps(model_dict))
    assert m.predict(MONKS, labels=False).to_numpy().dtype == np.bool_


def test_infinities_fall_into_the_end_bins() -> None:
    # Bin edges span the finite values; +inf lands in the last bin, -inf in the first.
    df = SMALL.with_columns(c=pl.Series([1.0, float("inf"), 2.0, 3.0, float("-inf"), 5.0]))
    model = findrs.fit(df, "label", "yes", auto=False)
    (enc,) = [e for e in model.encoders if e.name == "c"]
    assert enc.edges[0] == 1.0 and enc.edges[-1] == 5.0
    codes = findrs.data.encode.encode_frame(df, model.encoders)[model.features.index("c")]
    bins = [enc.values[c] for c in codes]
    finite = [b for b in enc.values if isinstance(b, int)]  # the occupied bins, empty ones merged
    assert bins[1] == max(finite) and bins[4] == 0 == min(finite)
