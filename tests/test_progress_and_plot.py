"""verbose=True progress bar, and the pruning-curve plot (matplotlib is an optional extra)."""

from __future__ import annotations

import pytest

import findrs


def test_verbose_shows_finished_runs(capsys) -> None:
    df = findrs.datasets.monks(2)
    findrs.fit(df, "class", method="bp", random_state=0, verbose=True, auto=False, settings=dict(T=30, tolerance=1))
    err = capsys.readouterr().err
    assert "30/30" in err and err.count("\n") == 1  # one line, ended once (tqdm or plain)
    findrs.fit(df, "class", method="bp", random_state=0, auto=False, settings=dict(T=30, tolerance=1))
    assert capsys.readouterr().err == ""  # quiet by default


def test_pruning_curve_plot_marks_the_automatic_k() -> None:
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    import findrs.plot

    train, test = findrs.datasets.train_test_split(findrs.datasets.monks(2), 0.5, 0)
    model = train.findrs.fit("class", method="bp", random_state=0, auto=False, settings=dict(T=20, tolerance=1))
    ax = findrs.plot.pruning_curve(model, train, test)
    labels = [line.get_label() for line in ax.get_lines()]
    assert labels == ["train", "test", f"K = {model.n_rules}"]
    xs = ax.get_lines()[0].get_xdata()
    assert len(xs) == model.n_rules_found
    with pytest.raises(findrs.FindRSInputError, match="BP"):
        findrs.plot.pruning_curve(train.findrs.fit("class", auto=False, settings=dict(tolerance=1)), train)


def test_the_path_plot_draws_the_path_and_the_cross_validation() -> None:
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    import findrs.plot

    model = findrs.datasets.credit().findrs.fit("default", random_state=0, max_rules="auto")
    ax = findrs.plot.path(model)
    train, cv = ax.get_lines()[:2]
    assert list(train.get_xdata()) == model.path["conditions"].to_list()
    assert list(cv.get_ydata()) == model.path["cv_accuracy"].to_list()
    paper = findrs.datasets.tic_tac_toe().findrs.fit("class", "positive", random_state=0, auto=False)
    assert [line.get_label() for line in findrs.plot.path(paper).get_lines()][:2] == ["train", "8 rules"]
    with pytest.raises(findrs.FindRSInputError, match="no accuracy-size path"):
        findrs.plot.path(_no_path(paper))


def _no_path(model):
    import json

    doc = json.loads(model.to_json())
    del doc["training"]["path"]
    return findrs.load(json.dumps(doc))
