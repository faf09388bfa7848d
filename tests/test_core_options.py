"""The settings dict that crosses into the core (``findrs.models.model._core_options``, read by
rust/python/src/options.rs): a wrong, missing or mistyped key is a ``TypeError`` naming it, an
unknown method a ``ValueError``; never a panic, never a setting silently ignored."""

from __future__ import annotations

import numpy as np
import pytest

from findrs import _core

CODES = [np.array([0, 1, 0, 1, 2, 2], dtype=np.uint32), np.array([1, 1, 0, 0, 1, 0], dtype=np.uint32)]
SCHEMA = ([3, 2], ["av", "av"], [False, False])
LABELS = np.array([True, False, True, False, True, False])
FIT = {"method": "bo", "n_runs": 3, "seed": 0, "shuffle": True, "tolerance": 0, "n_rules": None,
       "accuracy_ratio": None, "best_of": 1}


def _fit(options: dict) -> list:
    return _core.fit(CODES, *SCHEMA, LABELS, options)


def test_a_full_dict_and_its_defaults_give_the_same_model() -> None:
    (short, *_), = _fit(FIT)
    full = {**FIT, "widen": "no", "n_jobs": None, "epsilon": 0.0, "min_support": 0, "simplify": False,
            "max_rules": None, "run": 0}
    (long, *_), = _fit(full)
    texts = [str(c) for c in short.constraint_table()]
    assert short.dump([], texts) == long.dump([], texts)


@pytest.mark.parametrize(
    "options, words",
    [
        ({**FIT, "tolernce": 1}, ["unknown option 'tolernce'"]),
        ({k: v for k, v in FIT.items() if k != "tolerance"}, ["missing option", "'tolerance'"]),
        ({**FIT, "tolerance": "one"}, ["option 'tolerance'"]),
        ({**FIT, "seed": -1}, ["option 'seed'"]),
        ({**FIT, 3: 1}, ["keys must be strings"]),
        ([("method", "bo")], ["must be a dict"]),
        ({**FIT, "combine": "one-vs-rest"}, ["unknown option 'combine'"]),  # fit_multiclass's key
    ],
)
def test_a_wrong_key_is_a_type_error_naming_it(options: object, words: list[str]) -> None:
    with pytest.raises(TypeError) as e:
        _fit(options)  # type: ignore[arg-type]
    assert all(w in str(e.value) for w in words), str(e.value)


def test_a_wrong_value_is_the_cores_value_error() -> None:
    with pytest.raises(ValueError, match="method"):
        _fit({**FIT, "method": "bogus"})
    with pytest.raises(ValueError, match="widen"):
        _fit({**FIT, "widen": "far"})


def test_each_function_reads_its_own_keys() -> None:
    runs = {k: FIT[k] for k in ("method", "n_runs", "seed", "shuffle", "tolerance")}
    words, lengths = _core.fit_runs(CODES, *SCHEMA, LABELS, runs, 0, 3)
    assert len(lengths) == 3
    with pytest.raises(TypeError, match="unknown option 'best_of'"):
        _core.fit_runs(CODES, *SCHEMA, LABELS, {**runs, "best_of": 1}, 0, 3)
    classes = np.array([0, 1, 2, 0, 1, 2], dtype=np.uint32)
    multi = {**{k: v for k, v in FIT.items() if k != "best_of"}, "combine": "one-vs-rest"}
    model, _, per_set = _core.fit_multiclass(CODES, *SCHEMA, classes, 3, multi)
    assert len(per_set) == 3
    with pytest.raises(TypeError, match="missing option 'combine'"):
        _core.fit_multiclass(CODES, *SCHEMA, classes, 3, {k: v for k, v in multi.items() if k != "combine"})
    with pytest.raises(TypeError, match="unknown option 'tolerance'"):
        _core.fit_auto(CODES, *SCHEMA, LABELS, [], {**runs, "folds": 2, "cv_n_runs": 1, "best_of": 1})
