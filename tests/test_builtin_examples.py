"""Worked examples with known answers: tic-tac-toe, binned numeric columns, null as a value."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

import findrs
import reference
from findrs.datasets import tic_tac_toe, train_test_split
from strategies import codes_of, domains_of

SQUARES = [
    "top_left", "top_middle", "top_right",
    "middle_left", "middle_middle", "middle_right",
    "bottom_left", "bottom_middle", "bottom_right",
]
LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]


def _line_of(text: str) -> frozenset[str]:
    parts = text.split(" and ")
    assert len(parts) == 3, text
    squares = []
    for p in parts:
        name, value = p.split(" = ")
        assert value == "x", text
        squares.append(name)
    return frozenset(squares)


# docs/semantics.md §3: one run in row order on tic-tac-toe finds exactly the 8 winning lines for x.
def test_tic_tac_toe_finds_the_eight_lines() -> None:
    df = tic_tac_toe()
    model = findrs.fit(df, "class", "positive", auto=False, settings=dict(shuffle=False))
    assert model.n_rules == 8
    found = {_line_of(t) for t in model.rules["text"]}
    assert found == {frozenset(SQUARES[i] for i in line) for line in LINES}
    assert model.score(df) == 1.0
    assert model.predict(df).to_list() == df["class"].to_list()
    # The constraints column says the same thing.
    for cons in model.rules["constraints"].to_list():
        assert len(cons) == 3 and all(c["values"] == ["x"] for c in cons)


# semantics §2: with OH, a rule may allow a set of values ({x, b} reads `not in {o}`), still one rule
# per winning line.
def test_tic_tac_toe_oh_rules_are_the_eight_lines() -> None:
    df = tic_tac_toe()
    model = findrs.fit(df, "class", "positive", auto=False, settings=dict(shuffle=False, encoding="oh"))
    assert model.score(df) == 1.0
    lines = set()
    for cons in model.rules["constraints"].to_list():
        assert all("x" in c["values"] and "o" not in c["values"] for c in cons)
        lines.add(frozenset(c["feature"] for c in cons))
    assert lines == {frozenset(SQUARES[i] for i in line) for line in LINES}
    assert model.n_rules == 8


def test_tic_tac_toe_any_order_finds_the_eight_lines() -> None:
    df = tic_tac_toe()
    for seed in range(3):
        model = findrs.fit(df, "class", "positive", random_state=seed, auto=False)
        assert {_line_of(t) for t in model.rules["text"]} == {frozenset(SQUARES[i] for i in line) for line in LINES}


def test_tic_tac_toe_generalizes_to_the_test_half() -> None:
    train, test = train_test_split(tic_tac_toe())
    assert (train.height, test.height) == (479, 479)
    model = findrs.fit(train, "class", "positive", auto=False, settings=dict(shuffle=False))
    assert {_line_of(t) for t in model.rules["text"]} == {frozenset(SQUARES[i] for i in line) for line in LINES}
    assert model.score(test) == 1.0
    assert model.score(train) == 1.0


def test_tic_tac_toe_ensembles() -> None:
    train, test = train_test_split(tic_tac_toe())
    for method in ("bo", "bp"):
        model = findrs.fit(train, "class", "positive", method=method, random_state=0, auto=False, settings=dict(T=10))
        assert model.score(test) == 1.0
    bp = findrs.fit(train, "class", "positive", method="bp", random_state=0, auto=False, settings=dict(T=10))
    # Every run finds the 8 lines, so each has weight T and they are the top 8.
    assert bp.rules["weight"].to_list()[:8] == [10] * 8
    assert {_line_of(t) for t in bp.rules["text"][:8]} == {frozenset(SQUARES[i] for i in line) for line in LINES}


def test_str_of_tic_tac_toe_model() -> None:
    model = findrs.fit(tic_tac_toe(), "class", "positive", auto=False, settings=dict(shuffle=False))
    lines = str(model).splitlines()
    assert lines[0] == "FIND-RS (AV, tolerance 0): class = 'positive'"
    assert lines[1] == "positive when any of these 8 rules holds:"
    assert lines[2].split() == ["id", "covers", "precision", "rule"]
    assert lines[3].split(None, 3) == ["0", "78", "1.000", "top_left = x and top_middle = x and top_right = x"]
    assert len(lines) == 3 + 8 + 2  # every rule, then the notes on covers and precision and on the path
    assert lines[-1].startswith("(path (rules: training accuracy): 1: ")


# --------------------------------------------------------------------------- #
# docs/semantics.md §1: numeric columns are binned
# --------------------------------------------------------------------------- #


def _threshold_frame() -> pl.DataFrame:
    x = np.arange(0, 10.01, 0.25)  # 0 .. 10: equal-width bins of width 1
    return pl.DataFrame({"x": x, "y": x >= 5.0})


# semantics §1: a Float column is cut into `bins` equal-width bins learned on the training data.
def test_float_column_is_binned() -> None:
    df = _threshold_frame()
    model = findrs.fit(df, "y", auto=False, settings=dict(encoding="oh", shuffle=False))
    (enc,) = model.encoders
    assert enc.kind == "binned"
    np.testing.assert_allclose(enc.edges, np.linspace(0.0, 10.0, 11))
    assert enc.values == tuple(range(10))
    # semantics §2: a null never seen in training passes a multi-value constraint, and the text
    # says so by the excluded bins: `not in` admits null and unseen values, without an
    # `or x is null` clause for a column that held no null.
    assert model.rules["text"].to_list() == ["x not in (-inf, 5)"]
    assert model.score(df) == 1.0
    # New data is binned with the training edges; values outside fall into the end bins.
    new = pl.DataFrame({"x": [7.3, 4.99, 5.01, 100.0, -5.0]})
    assert model.predict(new, labels=False).to_numpy().tolist() == [True, False, True, True, False]


# semantics §2: null never occurred in training, so it is an unseen value: it passes the OH constraint
# "x not in {bins 0-4}". The text must then say so: text.py reads a binned constraint as an
# interval only "where that says exactly the same thing", and "x >= 5" rejects a null x.
def test_interval_text_is_exact_for_an_unseen_null() -> None:
    df = _threshold_frame()
    model = findrs.fit(df, "y", auto=False, settings=dict(encoding="oh", shuffle=False))
    null_row = pl.DataFrame({"x": [None]}, schema={"x": pl.Float64})
    assert model.predict(null_row, labels=False).to_numpy().tolist() == [True]  # docs/semantics.md §2
    (text,) = model.rules["text"].to_list()
    assert "null" in text or " not in " in text, f"{text!r} reads as if a null x failed the rule"


def test_float_column_is_binned_av() -> None:
    df = _threshold_frame()
    model = findrs.fit(df, "y", auto=False, settings=dict(encoding="av", shuffle=False))
    # AV cannot merge bins: one `lo <= x < hi` rule per positive bin (the last one open).
    assert model.rules["text"].to_list() == [
        "5 <= x < 6", "6 <= x < 7", "7 <= x < 8", "8 <= x < 9", "x >= 9",
    ]
    assert model.score(df) == 1.0


@pytest.mark.parametrize("bins", [2, 10, 20])
def test_bins_parameter(bins: int) -> None:
    df = _threshold_frame()
    model = findrs.fit(df, "y", auto=False, settings=dict(encoding="oh", shuffle=False, bins=bins))
    assert len(model.encoders[0].edges) == bins + 1
    assert model.encoders[0].domain_size == bins


def test_many_valued_int_column_is_binned_few_valued_is_not() -> None:
    df = pl.DataFrame({"n": list(range(100)), "k": [i % 3 for i in range(100)], "y": [i >= 50 for i in range(100)]})
    model = findrs.fit(df, "y", auto=False, settings=dict(encoding="oh", shuffle=False))
    assert [e.kind for e in model.encoders] == ["binned", "categorical"]
    # semantics §1: an integer column's edges are whole numbers (the paper's 49.5 bins 50 up);
    # semantics §2: an unseen null passes, as `not in` says.
    assert model.encoders[0].edges == (0.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 99.0)
    assert model.rules["text"].to_list() == ["n not in (-inf, 50)"]
    assert model.predict(pl.DataFrame({"n": [1000, 10], "k": [7, 7]}), labels=False).to_numpy().tolist() == [True, False]


def test_float_column_with_nulls_and_nan() -> None:
    x = [0.0, 1.0, 2.0, 3.0, None, float("nan"), 8.0, 9.0, 10.0]
    y = [False, False, False, False, True, True, True, True, True]
    df = pl.DataFrame({"x": x, "y": y})
    model = findrs.fit(df, "y", auto=False, settings=dict(encoding="oh", shuffle=False))
    (enc,) = model.encoders
    assert enc.values[-1] is None  # NaN and null are the same value: null
    assert model.score(df) == 1.0
    assert model.predict(pl.DataFrame({"x": [None, float("nan"), 9.5, 0.5]}), labels=False).to_numpy().tolist() == [True, True, True, False]


# --------------------------------------------------------------------------- #
# docs/semantics.md §1: null is a value of its own
# --------------------------------------------------------------------------- #


def _null_frame() -> pl.DataFrame:
    a = ["p", None, "q", None, "p", None, "q", "q"]
    b = [1, 1, 2, 2, 3, 3, 1, 3]
    return pl.DataFrame({"a": a, "b": b, "y": [v is None for v in a]})


# docs/semantics.md §1: nulls in features are a value: a rule can say `a = null`.
@pytest.mark.parametrize("encoding", ["av", "oh"])
def test_rule_can_say_a_equals_null(encoding: str) -> None:
    df = _null_frame()
    model = findrs.fit(df, "y", auto=False, settings=dict(encoding=encoding, shuffle=False))
    assert model.rules["text"].to_list() == ["a = null"]
    assert model.rules["constraints"].to_list() == [[{"feature": "a", "values": ["null"]}]]
    assert model.encoders[0].values == ("p", "q", None)
    np.testing.assert_array_equal(model.predict(df, labels=False).to_numpy(), df["y"].to_numpy())
    new = pl.DataFrame({"a": [None, "p", "unseen", None], "b": [2, 2, 2, 99]})
    assert model.predict(new, labels=False).to_numpy().tolist() == [True, False, False, True]
    # The reference agrees on the rule (null has the last code).
    rows = codes_of(df, model)
    assert reference.find_rs(rows, df["y"].to_list(), domains_of(model), encoding, 0) == [[(0, [2])]]


@pytest.mark.parametrize("encoding", ["av", "oh"])
def test_null_in_int_and_string_features(encoding: str) -> None:
    df = pl.DataFrame(
        {
            "a": ["u", "u", "v", "v", None, None],
            "n": [None, None, 1, 2, 1, 2],
            "y": [True, True, False, False, False, False],
        }
    )
    model = findrs.fit(df, "y", auto=False, settings=dict(encoding=encoding, shuffle=False))
    assert model.rules["text"].to_list() == ["a = u and n = null"]
    assert model.predict(pl.DataFrame({"a": ["u", "u"], "n": [None, 1]}), labels=False).to_numpy().tolist() == [True, False]


def test_null_excluded_by_oh_set() -> None:
    # OH: S = {p, q} of the domain {p, q, null}: `a not in {null}`, read `a is not null`.
    df = pl.DataFrame({"a": ["p", "q", None], "y": [True, True, False]})
    model = findrs.fit(df, "y", auto=False, settings=dict(encoding="oh", shuffle=False))
    assert model.rules["text"].to_list() == ["a is not null"]
    assert model.predict(pl.DataFrame({"a": ["p", None, "new"]}), labels=False).to_numpy().tolist() == [True, False, True]


# The docstring examples of the package are user-facing documentation: they must be true.
def _package_modules() -> list[str]:
    """Every module of the installed package (sub-packages included), found, not listed."""
    import pkgutil

    return ["findrs", *sorted(m.name for m in pkgutil.walk_packages(findrs.__path__, "findrs.")
                              if not m.name.endswith("._core"))]


@pytest.mark.parametrize("module", _package_modules())
def test_docstring_examples(module: str, tmp_path, monkeypatch) -> None:
    import doctest
    import importlib

    if module == "findrs.sklearn":
        pytest.importorskip("sklearn")
    if module == "findrs.plot":
        pytest.importorskip("matplotlib")
    monkeypatch.chdir(tmp_path)  # examples that write files write them there

    result = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS, verbose=False)
    assert result.failed == 0, f"{result.failed} failing docstring example(s) in {module}"


# semantics §1, §6: a real null and the string "null" are different values; the readable rule
# text and the constraints column must not render them the same way.
def test_null_and_the_string_null_read_differently() -> None:
    df = pl.DataFrame({"a": ["null", None, "x", "null", None, "x"], "y": [True, False, False, True, False, False]})
    model = findrs.fit(df, "y", auto=False, settings=dict(shuffle=False))
    assert model.encoders[0].values == ("null", "x", None)
    (text,) = model.rules["text"].to_list()
    assert reference.rules_of(model) == [[(0, [0])]]  # the string "null"
    df2 = pl.DataFrame({"a": [None, "x", "null", None], "y": [True, False, False, True]})
    model2 = findrs.fit(df2, "y", auto=False, settings=dict(shuffle=False))
    assert reference.rules_of(model2) == [[(0, [2])]]  # the real null
    (text2,) = model2.rules["text"].to_list()
    assert text != text2, f"both rules read {text!r}"
    assert model.rules["constraints"].to_list() != model2.rules["constraints"].to_list()
