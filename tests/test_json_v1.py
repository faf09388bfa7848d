"""Models saved in the JSON format version 1 still load and predict as they did.

``tests/data/v1/`` holds version-1 files written by the findrs of that format
(``tests/data/v1/make_fixtures.py``): FIND-RS on each of the paper's 11 UCI data sets, BP with a
small T on each, OH and BO on a few, each fitted on the seed-0 50/50 training half. Fits are
deterministic, so fitting again with the file's parameters gives the same model: the loaded
model must have the same rules (text, constraints, weights, coverage, which vote) and predict
the same labels and decision values on the whole data set.
"""

from __future__ import annotations

import gzip
import json
import warnings
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal, assert_series_equal

import findrs
from experiments.uci import load_uci

V1 = Path(__file__).parent / "data" / "v1"
FILES = sorted(p.name for p in V1.glob("*.json.gz"))


def test_every_data_set_has_a_v1_file() -> None:
    from experiments.uci import UCI_NAMES

    for name in UCI_NAMES:
        assert any(f.startswith(f"{name}-find-rs-") for f in FILES), name
        assert any(f.startswith(f"{name}-bp-") for f in FILES), name


@pytest.mark.parametrize("file", FILES)
def test_v1_file_loads_and_predicts_as_a_fresh_fit(file: str, data_dir: Path) -> None:
    text = gzip.decompress((V1 / file).read_bytes()).decode()
    v1 = json.loads(text)
    assert v1["version"] == 1
    loaded = findrs.RuleSetModel.from_json(text)
    # The rules read as version 1 wrote them (text, weights, coverage, which vote). The text of
    # OH sets changed since (docs/semantics.md §2, "Readable text": the shorter of `in` and
    # `not in`, merged bins, no `or x is null` for a column without nulls); AV text did not.
    rules = loaded.rules
    if v1["encoding"] == "av":
        assert rules["text"].to_list() == [r["text"] for r in v1["rules"]]
    assert rules["weight"].to_list() == [r["weight"] for r in v1["rules"]]
    assert rules["train_positives"].to_list() == v1["training"]["rule_positives"]
    assert rules["train_negatives"].to_list() == v1["training"]["rule_negatives"]
    assert rules["kept"].sum() == v1["n_rules"]
    name = file.split("-find-rs-")[0].split("-bp-")[0].split("-bo-")[0]
    df = load_uci(name, data_dir)
    train, _ = findrs.datasets.train_test_split(df, test_fraction=0.5, seed=0)
    p = loaded.params
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", findrs.ContradictionWarning)
        fresh = findrs.fit(
            train, "class", method=p["method"], random_state=p["random_state"], auto=False,
            settings=dict(encoding=p["encoding"], tolerance=p["tolerance"], shuffle=p["shuffle"], bins=p["bins"], T=p["T"], n_rules=p["n_rules"] if p["method"] == "bp" else "auto", accuracy_ratio=p["accuracy_ratio"]),
        )
    assert (loaded.method, loaded.T, loaded.n_rules, loaded.n_rules_found) == (
        fresh.method, fresh.T, fresh.n_rules, fresh.n_rules_found
    )
    assert_frame_equal(loaded.rules, fresh.rules)
    # A version-1 file has no accuracy-size path (docs/semantics.md §8.1): print has no path line.
    assert str(loaded) == "\n".join(line for line in str(fresh).splitlines() if not line.startswith("(path "))
    assert_series_equal(loaded.predict(df), fresh.predict(df))
    assert_series_equal(loaded.decision_function(df), fresh.decision_function(df))
    assert loaded.score(df) == fresh.score(df)
    # Saved again (in the current format), it is still the same model.
    again = findrs.RuleSetModel.from_json(loaded.to_json())
    assert_frame_equal(again.rules, fresh.rules)
    assert_series_equal(again.predict(df), fresh.predict(df))
