"""The mistakes a new user makes get findrs' own message, naming the column or parameter and the
fix (issue 15): scikit-learn's fit(X, y) form, a continuous target, a column missing at
prediction in the lazy path, the command line in its own terms (--positive, --no-header, the
positive class of a one-against-the-rest model), n_rules on FIND-RS; the estimator's target name
and verbose; the progress line."""

from __future__ import annotations

import io
import sys
import warnings
from pathlib import Path

import numpy as np
import polars as pl
import pytest

import findrs
from findrs import RuleSetModel
from findrs.cli import main
from findrs.learning.progress import PlainProgress, progress_bar


def _message(call) -> str:
    with pytest.raises(findrs.FindRSInputError) as info:
        call()
    return str(info.value)


# --------------------------------------------------------------------------- fit(X, y)
@pytest.mark.parametrize("kind", ["polars", "pandas", "numpy"])
def test_fit_x_y_points_to_the_target_column_and_the_estimator(kind: str) -> None:
    df = findrs.datasets.tic_tac_toe()
    X, y = df.drop("class"), df.get_column("class")
    if kind == "pandas":
        X, y = X.to_pandas(), y.to_pandas()
    elif kind == "numpy":
        y = y.to_numpy()
    msg = _message(lambda: findrs.fit(X, y, auto=False))
    assert "target must be the name of the label column" in msg
    assert "FindRSClassifier().fit(X, y)" in msg
    # a named Series: the fix uses its name
    assert ("'class'" in msg) == (kind != "numpy"), msg
    assert "with_columns(y.alias(" in msg
    msg = _message(lambda: pl.DataFrame(X).findrs.fit(y, auto=False) if kind != "pandas" else findrs.fit(X, y, auto=False))
    assert "FindRSClassifier" in msg


# --------------------------------------------------------------------------- continuous target
def test_a_float_target_suggests_a_threshold() -> None:
    rng = np.random.default_rng(0)
    df = pl.DataFrame({"a": rng.integers(0, 3, 400), "charges": rng.normal(100.0, 10.0, 400)})
    msg = _message(lambda: findrs.fit(df, "charges", auto=False))
    median = df["charges"].median()
    assert "target column 'charges'" in msg and "400 distinct numbers" in msg
    assert f"pl.col('charges') > {median:g}" in msg
    assert "positive=<value>" in msg


def test_a_many_valued_integer_target_suggests_a_threshold_but_a_few_classes_are_multiclass() -> None:
    rng = np.random.default_rng(1)
    df = pl.DataFrame({"a": rng.integers(0, 3, 300), "age": rng.integers(18, 90, 300)})
    msg = _message(lambda: findrs.fit(df, "age", auto=False))
    assert f"pl.col('age') > {int(df['age'].median())}" in msg
    # Up to 20 numbers are classes: a multiclass model (docs/semantics.md §10), no threshold.
    few = pl.DataFrame({"a": [0, 1, 2, 0, 1, 2], "grade": [1, 2, 3, 1, 2, 3]})
    model = findrs.fit(few, "grade", method="find-rs", auto=False)
    assert model.classes == [1, 2, 3]
    assert model.predict(few).to_list() == few["grade"].to_list()
    # scikit-learn's form with more than 20 integer classes is classes too (sklearn refused a
    # continuous y before): no quantity message.
    from findrs.sklearn import FindRSClassifier

    y = np.arange(60) % 25
    X = pl.DataFrame({"a": [f"v{v}" for v in y]})
    clf = FindRSClassifier(method="find-rs", random_state=0, auto=False).fit(X, y)
    assert clf.classes_.tolist() == list(range(25)) and clf.predict(X).tolist() == y.tolist()


# --------------------------------------------------------------------------- lazy prediction
def test_a_missing_column_has_the_same_message_lazily_as_eagerly() -> None:
    df = findrs.datasets.tic_tac_toe()
    model = df.findrs.fit("class", "positive", random_state=0, auto=False)
    short = df.drop("middle_middle")
    eager = _message(lambda: model.predict(short))
    assert "'middle_middle'" in eager and "add the column" in eager
    lazy_calls = [
        lambda: model.predict(short.lazy()),
        lambda: model.decision_function(short.lazy()),
        lambda: model.explain(short.lazy()),
        lambda: short.lazy().findrs.predict(model),
        lambda: short.lazy().findrs.explain(model),
        lambda: short.findrs.predict(model),
    ]
    for call in lazy_calls:
        assert _message(call) == eager


# --------------------------------------------------------------------------- n_rules on FIND-RS
@pytest.mark.parametrize("method", ["find-rs", "bo"])
def test_n_rules_without_bp_warns_and_names_the_fix(method: str) -> None:
    df = findrs.datasets.tic_tac_toe()
    with pytest.warns(UserWarning, match=rf"n_rules=3 is ignored by method='{method}'") as rec:
        model = findrs.fit(df, "class", "positive", method=method, random_state=0, auto=False, settings=dict(T=3, n_rules=3))
    assert "method='bp'" in str(rec[0].message) and "max_rules=3" in str(rec[0].message)
    assert model.n_rules == 8 if method == "find-rs" else True
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        findrs.fit(df, "class", "positive", random_state=0, auto=False)  # the default says nothing
        findrs.fit(df, "class", "positive", method="bp", random_state=0, auto=False, settings=dict(T=3, n_rules=3))


# --------------------------------------------------------------------------- the command line
@pytest.fixture()
def car_like(tmp_path: Path) -> Path:
    """A headerless comma-separated file with a four-class last column, as UCI's car.data."""
    rng = np.random.default_rng(0)
    n = 300
    a = rng.choice(["low", "med", "high"], n)
    b = rng.choice(["2", "4", "more"], n)
    label = np.where(a == "low", "unacc", np.where(b == "2", "acc", np.where(a == "med", "good", "vgood")))
    path = tmp_path / "car.data"
    pl.DataFrame({"a": a, "b": b, "label": label}).write_csv(path, include_header=False)
    return path


def _cli(capsys, argv: list[str]) -> tuple[int, str, str]:
    code = main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_cli_headerless_file_needs_no_header_and_says_so(car_like: Path, tmp_path: Path, capsys) -> None:
    model = str(tmp_path / "m.json")
    code, _, err = _cli(capsys, ["fit", str(car_like), "--target", "class", "-o", model])
    assert code == 2 and "--target 'class' is not a column" in err and "--no-header" in err
    assert "column_1 ... column_3" in err
    code, out, err = _cli(
        capsys, ["fit", str(car_like), "--no-header", "--target", "column_3", "--positive", "unacc", "-o", model]
    )
    assert code == 0, err
    assert "column_3 = 'unacc'" in out and "column_1 = low" in out


def test_cli_messages_use_option_names(car_like: Path, tmp_path: Path, capsys) -> None:
    model = str(tmp_path / "m.json")
    # A target of more than two classes fits a multiclass model; a binary-only setting on it is
    # refused in --option terms.
    code, _, err = _cli(
        capsys, ["fit", str(car_like), "--no-header", "--target", "column_3", "--direction", "negative", "-o", model]
    )
    assert code == 2
    assert "--direction 'negative'" in err and "pass --positive <label>" in err
    assert "positive=" not in err and "direction=" not in err
    code, _, err = _cli(
        capsys,
        ["fit", str(car_like), "--no-header", "--target", "column_3", "--positive", "unacc", "--n-rules", "2", "-o", model],
    )
    assert code == 0
    assert "findrs: warning: --n-rules 2 is ignored by --method 'find-rs'" in err
    assert "--method 'bp'" in err and "--max-rules 2" in err and "n_rules=" not in err


def test_cli_explain_names_the_positive_class_of_one_against_the_rest(car_like: Path, tmp_path: Path, capsys) -> None:
    model = str(tmp_path / "m.json")
    argv = ["fit", str(car_like), "--no-header", "--target", "column_3", "--positive", "unacc", "-o", model]
    assert _cli(capsys, argv)[0] == 0
    code, out, err = _cli(capsys, ["explain", model, str(car_like), "--no-header", "--top", "1"])
    assert code == 0, err
    rows = [line for line in out.splitlines() if line.startswith("row ")]
    assert len(rows) == 300
    assert "True" not in out and "False" not in out
    truth = pl.read_csv(car_like, has_header=False)[:, 2].to_list()
    for line, label in zip(rows, truth):
        # the model is exact on its training rows: each row is said to be 'unacc' or not
        expected = "column_3 = 'unacc'" if label == "unacc" else "column_3 != 'unacc'"
        assert expected in line, (line, label)
    code, out, err = _cli(capsys, ["predict", model, str(car_like), "--no-header", "-o", str(tmp_path / "p.csv")])
    assert code == 0, err
    predicted = pl.read_csv(tmp_path / "p.csv")
    assert predicted.columns == ["column_1", "column_2", "column_3", "column_3_predicted"]


def test_cli_explain_names_the_class_of_a_multiclass_model(car_like: Path, tmp_path: Path, capsys) -> None:
    model = str(tmp_path / "m.json")
    argv = ["fit", str(car_like), "--no-header", "--target", "column_3", "--multiclass", "frequent-first", "-o", model]
    assert _cli(capsys, argv)[0] == 0
    code, out, err = _cli(capsys, ["explain", model, str(car_like), "--no-header", "--top", "1"])
    assert code == 0, err
    rows = [line for line in out.splitlines() if line.startswith("row ")]
    fired = [line for line in out.splitlines() if line.startswith("    #")]
    frame = pl.read_csv(car_like, has_header=False, new_columns=["column_1", "column_2", "column_3"])
    predicted = RuleSetModel.from_json(Path(model)).predict(frame).to_list()
    assert len(rows) == 300 and set(predicted) <= {"unacc", "acc", "good", "vgood"}
    for i, (line, label) in enumerate(zip(rows, predicted)):
        # each row is said to be its predicted class; no decision value (there is none per class)
        assert line == f"row {i}: column_3 = {label!r}", line
    # each fired rule names the class whose set it belongs to
    assert fired and all(any(f"class {c!r}" in f for c in ("unacc", "acc", "good", "vgood")) for f in fired)


def test_cli_no_header_is_refused_for_a_parquet_file(tmp_path: Path, capsys) -> None:
    path = tmp_path / "d.parquet"
    findrs.datasets.tic_tac_toe().write_parquet(path)
    code, _, err = _cli(capsys, ["fit", str(path), "--no-header", "--target", "class", "-o", str(tmp_path / "m.json")])
    assert code == 2 and "--no-header applies to CSV files" in err


# --------------------------------------------------------------------------- the estimator
def test_estimator_names_the_target_after_a_named_series_and_has_verbose(capsys) -> None:
    pytest.importorskip("sklearn")
    from findrs.sklearn import FindRSClassifier

    df = findrs.datasets.tic_tac_toe()
    X, y = df.drop("class"), df.get_column("class")
    for Xi, yi, name in [(X, y, "class"), (X.to_pandas(), y.to_pandas(), "class"), (X, y.to_numpy(), "y"),
                         (X, y.alias("top_left"), "y")]:
        clf = FindRSClassifier(method="find-rs", random_state=0, auto=False).fit(Xi, yi)
        assert str(clf.model_).splitlines()[0] == f"FIND-RS (AV, tolerance 0): {name} = 'positive'"
        assert clf.model_.target.name == name
    assert capsys.readouterr().err == ""
    FindRSClassifier(method="bp", random_state=0, verbose=True, auto=False, settings=dict(T=20)).fit(X, y)
    assert "20/20" in capsys.readouterr().err


# --------------------------------------------------------------------------- progress
def test_plain_progress_is_one_updating_line_with_elapsed_and_remaining_time() -> None:
    out, now = io.StringIO(), [0.0]
    bar = PlainProgress(out, clock=lambda: now[0], tick=None)
    report = bar.stage("cross-validation 1 of 1: equal-width bins")
    for t, done in enumerate((1, 2, 3, 3, 4, 4), 1):  # the core reports the last count twice
        now[0] = float(t)
        report(done, 4)
    bar.finish()
    text = out.getvalue()
    assert text.count("\n") == 1 and text.endswith("\n")
    states = text.rstrip("\n").split("\r")[1:]
    assert len(states) == 6  # the stage, 4 counts, the end
    assert states[1].startswith("findrs: cross-validation 1 of 1: equal-width bins [##")
    assert "1/4 runs  0:01 elapsed, stage ~0:03 left" in states[1]
    assert states[4].rstrip() == "findrs: cross-validation 1 of 1: equal-width bins [" + "#" * 10 + "] 4/4 runs  0:05 elapsed"
    assert states[5].rstrip() == "findrs: done in 0:06"
    # each state overwrites the longer ones before it
    assert all(len(s) >= len(states[i - 1].rstrip()) for i, s in enumerate(states) if i)


def test_progress_line_ends_when_the_fit_stops_early() -> None:
    out = io.StringIO()
    bar = PlainProgress(out, clock=iter([0.0, 1.0, 2.0, 3.0]).__next__, tick=None)
    bar(1, 4)
    bar.close()
    bar.close()
    bar.finish()
    bar(2, 4)  # nothing after the line ended
    assert out.getvalue().count("\n") == 1 and "1/4 runs" in out.getvalue()
    assert out.getvalue().split("\r")[-1].strip() == "findrs: fit [##........] 1/4 runs  0:03 elapsed, stopped"
    quiet = io.StringIO()
    PlainProgress(quiet, tick=None).close()  # nothing reported: nothing printed
    assert quiet.getvalue() == ""


def test_verbose_fit_prints_one_final_line_without_tqdm(monkeypatch, capsys) -> None:
    monkeypatch.setitem(sys.modules, "tqdm", None)
    monkeypatch.setitem(sys.modules, "tqdm.auto", None)
    assert isinstance(progress_bar(), PlainProgress)
    findrs.fit(findrs.datasets.monks(2), "class", method="bp", random_state=0, verbose=True, auto=False, settings=dict(T=30, tolerance=1))
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "fit (30 BP runs) [##########] 30/30 runs" in err and "elapsed" in err
    assert err.split("\r")[-1].startswith("findrs: done in ")


def test_verbose_fit_uses_tqdm_when_installed(capsys) -> None:
    pytest.importorskip("tqdm")
    from findrs.learning.progress import TqdmProgress

    assert isinstance(progress_bar(), TqdmProgress)
    findrs.fit(findrs.datasets.monks(2), "class", method="bp", random_state=0, verbose=True, auto=False, settings=dict(T=30, tolerance=1))
    err = capsys.readouterr().err
    assert "30/30" in err and err.count("\n") == 1
