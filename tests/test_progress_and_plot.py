"""verbose=True progress line (its stages, timer and end), and the pruning-curve plot
(matplotlib is an optional extra)."""

from __future__ import annotations

import io
import re
import sys
import threading

import pytest

import findrs
from findrs.learning.progress import PlainProgress, TqdmProgress, progress_bar


def test_verbose_shows_finished_runs(capsys) -> None:
    df = findrs.datasets.monks(2)
    findrs.fit(df, "class", method="bp", random_state=0, verbose=True, auto=False, settings=dict(T=30, tolerance=1))
    err = capsys.readouterr().err
    assert "30/30" in err and err.count("\n") == 1  # one line, ended once (tqdm or plain)
    findrs.fit(df, "class", method="bp", random_state=0, auto=False, settings=dict(T=30, tolerance=1))
    assert capsys.readouterr().err == ""  # quiet by default


def _without_tqdm(monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "tqdm", None)
    monkeypatch.setitem(sys.modules, "tqdm.auto", None)
    assert isinstance(progress_bar(), PlainProgress)


def _states(err: str) -> list[str]:
    return [s.rstrip() for s in err.split("\r")[1:]]


@pytest.mark.filterwarnings("ignore::findrs.ContradictionWarning")
@pytest.mark.parametrize("tqdm", [False, True])
def test_verbose_default_fit_shows_each_stage_with_counts_and_an_estimate(tqdm, monkeypatch, capsys) -> None:
    if tqdm:
        pytest.importorskip("tqdm")
        assert isinstance(progress_bar(), TqdmProgress)
    else:
        _without_tqdm(monkeypatch)
    df = findrs.datasets.credit()
    model = findrs.fit(df, "default", random_state=0, n_jobs=1, verbose=True)
    err = capsys.readouterr().err
    assert {"bin_edges", "numeric"} <= set(model.params["auto"])  # the encodings were cross-validated
    assert err.count("\n") == 1 and err.endswith("\n")  # one line, ended once
    states = _states(err)
    assert re.fullmatch(r"findrs: done in \d+:\d\d", states[-1])
    stages = [re.match(r"findrs: (.*?)(?: [\[|]| {2}\d+:\d\d elapsed)", s).group(1) for s in states[:-1]]
    order = list(dict.fromkeys(stages))
    assert order[:4] == ["cross-validation 1 of 3: equal-width bins", "cross-validation 2 of 3: supervised bins",
                         "cross-validation 3 of 3: intervals", "final fit (best of 20 runs)"]
    cv = [s for s in states if s.startswith("findrs: cross-validation 1 of 3")]
    assert any(re.search(r" \d+/\d+ runs  \d+:\d\d elapsed$", s) for s in cv)  # its runs counted
    # an estimate of the stage's remaining time while a cross-validation runs
    assert any(re.search(r"^findrs: cross-validation.* (\d+)/(\d+) runs  \d+:\d\d elapsed, stage ~\d+:\d\d left$", s)
               for s in states)
    assert not any(t.name == "findrs-progress" for t in threading.enumerate())  # the timer stopped
    findrs.fit(df, "default", random_state=0, n_jobs=1)
    assert capsys.readouterr().err == ""  # quiet by default


def test_the_timer_draws_the_line_again_without_a_report() -> None:
    out, now, drawn = io.StringIO(), [0.0], threading.Event()

    class Stream(io.StringIO):
        def write(self, s: str) -> int:
            n = out.write(s)
            if "0:07 elapsed" in s:
                drawn.set()
            return n

    line = PlainProgress(Stream(), clock=lambda: now[0], tick=0.01)
    report = line.stage("final fit (best of 20 runs)", best_of=20)
    now[0] = 2.0
    report(1, 1)  # the first of the 20 runs ended
    now[0] = 7.0  # no report since: the timer draws the elapsed time and the estimate again
    assert drawn.wait(30)
    line.finish()
    states = _states(out.getvalue())
    assert "findrs: final fit (best of 20 runs) [..........] 1/20 runs  0:07 elapsed, stage ~2:13 left" in states
    assert states[-1] == "findrs: done in 0:07" and out.getvalue().count("\n") == 1
    written = out.getvalue()
    now[0] = 9.0
    line.refresh()  # the line ended: nothing more, from the timer or anyone
    assert out.getvalue() == written and not any(t.name == "findrs-progress" for t in threading.enumerate())


@pytest.mark.filterwarnings("ignore::findrs.ContradictionWarning")
def test_a_stopped_fit_ends_the_line_where_it_stopped(monkeypatch, capsys) -> None:
    _without_tqdm(monkeypatch)
    from findrs.models.model import RuleSetModel

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(RuleSetModel, "_fit_auto", interrupted)
    with pytest.raises(KeyboardInterrupt):
        findrs.fit(findrs.datasets.credit(), "default", random_state=0, verbose=True)
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.endswith("\n")
    assert re.fullmatch(r"findrs: final fit \(best of 20 runs\)  \d+:\d\d elapsed, stopped", _states(err)[-1])
    assert not any(t.name == "findrs-progress" for t in threading.enumerate())  # nothing writes after it


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
    # A multiclass model's path: every class set's rules, from a rule per set (§10.1).
    import polars as pl

    three = findrs.datasets.monks(1).with_columns(y=pl.col("a1").cast(pl.String)).drop("a1")
    with pytest.warns(findrs.ContradictionWarning):
        multi = three.findrs.fit("y", random_state=0)
    train, cv = findrs.plot.path(multi).get_lines()[:2]
    assert list(train.get_xdata()) == multi.path["conditions"].to_list()
    assert multi.path["rules"][0] == len(multi.combination.set_classes)
    assert list(cv.get_ydata()) == multi.path["cv_accuracy"].to_list()


def _no_path(model):
    import json

    doc = json.loads(model.to_json())
    del doc["training"]["path"]
    return findrs.load(json.dumps(doc))
