"""A user's first hour, round two: a fit never runs away on numbers read as text or on an
identifier (refused or left out before any run, with the cast to apply), contradictions told
apart as the data's and the binning's, messages that name the file and the column
(docs/semantics.md §1)."""

from __future__ import annotations

import time
import warnings

import numpy as np
import polars as pl
import pytest

import findrs
from findrs.data.columns import NUMBER_TEXT_MAX_VALUES


def _message(call) -> str:
    with pytest.raises(findrs.FindRSInputError) as info:
        call()
    return str(info.value)


def adult_as_strings(n: int = 32_000) -> pl.DataFrame:
    """Adult's shape as `pl.read_csv` leaves it without casting: numeric columns as text with a
    leading space (fnlwgt with ~20,000 distinct values), categorical text, a binary target."""
    rng = np.random.default_rng(0)
    return pl.DataFrame({
        "age": [f" {v}" for v in rng.integers(17, 90, n)],
        "workclass": rng.choice([" Private", " Self-emp", " ?", " State-gov"], n).tolist(),
        "fnlwgt": [f" {v}" for v in rng.integers(12_000, 32_000, n)],
        "education-num": [f" {v}" for v in rng.integers(1, 17, n)],
        "capital-gain": [f" {v}" for v in rng.choice([0, 0, 0, 0, 2174, 14084, 5178, 7688], n)],
        "sex": rng.choice([" Male", " Female"], n).tolist(),
        "hours-per-week": [f" {v}.5" if v % 2 else f" {v}" for v in rng.integers(1, 99, n)],
        "income": rng.choice([" <=50K", " >50K"], n).tolist(),
    })


# --------------------------------------------------------------------------- numbers as text
def test_numbers_as_text_with_many_values_are_refused_before_any_run_with_the_cast() -> None:
    df = adult_as_strings()
    assert df["fnlwgt"].n_unique() > NUMBER_TEXT_MAX_VALUES
    start = time.perf_counter()
    msg = _message(lambda: findrs.fit(df, "income", random_state=0, verbose=True))
    assert time.perf_counter() - start < 60  # only a bound against a runaway fit: it stops before the runs
    assert "feature column 'fnlwgt' holds numbers as text" in msg
    assert "(e.g. ' " in msg  # a sample value, leading space and all
    assert "pl.col('fnlwgt').str.strip_chars().cast(pl.Int64)" in msg
    # every column of numbers as text, in one with_columns; decimals cast to Float64
    assert "pl.col('age').str.strip_chars().cast(pl.Int64)" in msg
    assert "pl.col('hours-per-week').str.strip_chars().cast(pl.Float64)" in msg
    assert "workclass" not in msg and "'sex'" not in msg
    # the fix the message gives works: the cast frame fits without a word about text
    casts = [pl.col(c).str.strip_chars().cast(pl.Float64 if c == "hours-per-week" else pl.Int64)
             for c in ("age", "fnlwgt", "education-num", "capital-gain", "hours-per-week")]
    fixed = df.head(600).with_columns(casts)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.simplefilter("ignore", findrs.ContradictionWarning)
        model = findrs.fit(fixed, "income", random_state=0, auto=False)
    assert {e.kind for e in model.encoders if e.name == "fnlwgt"} == {"binned"}


def test_numbers_as_text_with_fewer_values_warn_with_the_cast_and_codes_are_left_alone() -> None:
    rng = np.random.default_rng(1)
    n = 300
    df = pl.DataFrame({
        "age": [f" {v}" for v in rng.integers(17, 90, n)],  # 73 values > bins: a warning
        "grade": rng.choice(["1", "2", "3"], n).tolist(),  # at most `bins` values: a category, no word
        "zip": rng.choice([f"0{v}" for v in range(2100, 2400)], n).tolist(),  # leading zeros: codes
        "y": rng.choice([True, False], n).tolist(),
    })
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.simplefilter("ignore", findrs.ContradictionWarning)
        findrs.fit(df, "y", random_state=0, auto=False)
    texts = [str(w.message) for w in caught]
    assert len(texts) == 1, texts
    assert "'age' holds numbers as text" in texts[0] and "pl.col('age').str.strip_chars().cast(pl.Int64)" in texts[0]
    assert "pl.Categorical" in texts[0]
    # a Categorical column is a category by choice: no word, however many values
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.simplefilter("ignore", findrs.ContradictionWarning)
        findrs.fit(df.with_columns(pl.col("age").cast(pl.Categorical)), "y", random_state=0, auto=False)


@pytest.mark.filterwarnings("ignore::findrs.ContradictionWarning")
def test_a_text_identifier_is_left_out_of_the_default_features_before_the_runs() -> None:
    rng = np.random.default_rng(2)
    n = 2_000
    df = pl.DataFrame({"name": [f"user{i:05d}x" for i in rng.permutation(n)], "g": rng.choice(["a", "b"], n).tolist(),
                       "y": rng.choice([True, False], n).tolist()})
    with pytest.warns(findrs.IdentifierWarning, match="'name' holds 2,000 distinct values in 2,000 rows.*left out"):
        model = findrs.fit(df, "y", random_state=0, auto=False)
    assert model.features == ["g"]
    with pytest.warns(findrs.IdentifierWarning, match="'name'.*left out"):  # a Categorical one too
        assert findrs.fit(df.with_columns(pl.col("name").cast(pl.Categorical)), "y", auto=False).features == ["g"]
    # named in features=[...], it is kept (the user asked for it)
    with pytest.warns(findrs.IdentifierWarning):
        kept = findrs.fit(df.head(100), "y", random_state=0, auto=False, features=["name", "g"])
    assert kept.features == ["name", "g"]
    # a bagged vote leaves it out once, on the whole frame
    with pytest.warns(findrs.IdentifierWarning, match="left out"):
        bag = findrs.fit_bagged(df, "y", n_estimators=1, random_state=0, auto=False)
    assert bag.features == ["g"]
    # an identifier alone: nothing left to fit, and the message says so
    with pytest.warns(findrs.IdentifierWarning):
        msg = _message(lambda: findrs.fit(df.drop("g"), "y", auto=False))
    assert "identifier" in msg and "'name'" in msg


# --------------------------------------------------------------------------- contradictions
def test_contradictions_made_by_binning_are_told_apart_from_the_data_with_the_fix() -> None:
    rng = np.random.default_rng(3)
    x = rng.permutation(np.arange(400) * 0.25)  # every value distinct: no contradiction in the data
    df = pl.DataFrame({"x": x, "y": (x.astype(int) % 2 == 0).tolist()})
    with pytest.warns(findrs.ContradictionWarning) as caught:
        model = findrs.fit(df, "y", random_state=0, auto=False)
    msg = str(caught[0].message)
    assert model.contradictions > 0
    assert f"{model.contradictions:,} training rows are contradictions" in msg
    assert f"none in the data itself, {model.contradictions:,} made by binning" in msg
    assert "bin_edges='supervised'" in msg and "numeric='interval'" in msg and "bins=" in msg
    # real contradictions are counted as the data's: two identical rows with both labels
    both = pl.concat([df, pl.DataFrame({"x": [1000.0, 1000.0], "y": [True, False]})])
    with pytest.warns(findrs.ContradictionWarning) as caught:
        model = findrs.fit(both, "y", random_state=0, auto=False)
    assert f"2 in the data itself, {model.contradictions - 2:,} made by binning" in str(caught[0].message)
    # intervals keep every value: only the data's contradictions remain, told plainly
    with pytest.warns(findrs.ContradictionWarning) as caught:
        model = findrs.fit(both, "y", random_state=0, auto=False, settings=dict(numeric="interval"))
    assert model.contradictions == 2
    assert str(caught[0].message).startswith("2 training rows are contradictions") and "binning" not in str(caught[0].message)


# --------------------------------------------------------------------------- messages
@pytest.mark.parametrize("read", [findrs.load, findrs.RuleSetModel.from_json, findrs.ExceptionsModel.from_json,
                                  findrs.BaggedModel.from_json], ids=["load", "RuleSetModel", "ExceptionsModel", "BaggedModel"])
@pytest.mark.parametrize("name", ["missing.json", "models/missing.json", "missing"])
def test_a_missing_model_file_says_no_such_file(read, name: str, tmp_path) -> None:
    for source in (name, tmp_path / name):
        msg = _message(lambda: read(source))
        assert msg.startswith("no such findrs model file") and name in msg


def test_a_pandas_column_of_mixed_types_is_named_with_the_fix() -> None:
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({"n": [1, 2, 3, 4], "zip": [2139, "10001", 94105, "N/A"], "y": [True, False, True, False]})
    msg = _message(lambda: findrs.fit(df, "y", auto=False))
    assert "column 'zip' mixes values of types int, str" in msg
    assert "df['zip'] = df['zip'].astype(str)" in msg
    model = findrs.fit(df.assign(zip=df["zip"].astype(str)), "y", auto=False)  # the fix works
    assert "zip" in model.features
    # prediction reads a pandas frame the same way
    msg = _message(lambda: model.predict(df))
    assert "column 'zip' mixes values" in msg


# --------------------------------------------------------------------------- the header
def _header(model) -> list[str]:
    return [line for line in str(model).splitlines() if not line.startswith(" ")]


@pytest.mark.filterwarnings("ignore::findrs.ContradictionWarning")
def test_the_header_of_one_rule_and_of_a_negative_direction_reads_consistently() -> None:
    df = pl.DataFrame({"a": ["x", "x", "y", "y", "z"], "y": [True, True, False, False, False]})
    one = findrs.fit(df, "y", auto=False, settings=dict(shuffle=False))
    assert one.n_rules == 1 and _header(one)[1] == "positive when this rule holds:"
    rng = np.random.default_rng(4)
    x, z = rng.uniform(0, 10, 300), rng.uniform(0, 10, 300)
    frame = pl.DataFrame({"variance": x, "skew": z, "class": ((x > 5) & (z > 3)).astype(int)})
    for method, decides in [("bp", "class = 0 when the weights of the rules that hold sum above"),
                            ("bo", "class = 0 when more than"), ("find-rs", "class = 0 when any of these")]:
        model = findrs.fit(frame, "class", method=method, auto=False, random_state=0,
                           settings=dict(direction="negative", T=10) if method != "find-rs" else dict(direction="negative"))
        lines = _header(model)
        assert lines[0].endswith("): class = 0"), lines
        otherwise = "where none holds" if method == "find-rs" else "where the vote falls short"
        assert lines[1] == f"the rules describe 0, the other label (direction='negative'): 1 is predicted {otherwise}"
        assert lines[2].startswith(decides), lines
        assert not any(line.startswith("positive when") for line in lines), lines
        assert "precision: the share of them where class = 0" in str(model)


# --------------------------------------------------------------------------- pytest without the data
def test_pytest_without_the_uci_files_says_so_in_one_short_line() -> None:
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    env = {k: v for k, v in os.environ.items() if k != "FINDRS_DATA_DIR"}
    out = subprocess.run([sys.executable, "-m", "pytest", "tests/test_datasets.py", "-p", "no:cacheprovider",
                          "-k", "uci or monks"], cwd=root, env=env, capture_output=True, text=True, timeout=300).stdout
    skipped = [line for line in out.splitlines() if line.startswith("SKIPPED")]
    assert len(skipped) == 1, skipped
    assert "FINDRS_DATA_DIR is not set" in skipped[0] and "docs/development.md" in skipped[0]
    assert len(skipped[0]) < 200 and "archive.ics.uci.edu" not in out
