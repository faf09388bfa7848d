"""The accuracy-size path of a multiclass model and the choice of its size (docs/semantics.md
§10.1).

Checked against plain re-computations through the public API: the path's order is the greedy
merge of the class sets' own rankings (every step, of the sets' next rules, the one whose model
classifies the most training rows right, by ``predict`` of that model; first a rule per set),
its counts are those models' training rows right, ``model.at(k)`` has ``k`` rules, predicts as
that model on every path (``predict``, expressions, SQL, JSON) and is nested in ``at(k + 1)``;
the held-out path counts the cross-validation scores equal ``predict`` of the fold model cut;
the default's size is the pair :func:`findrs.select.size.choose` picks, and ``max_rules=None``
is the accuracy-first fit of any size.
"""

from __future__ import annotations

import json
import warnings

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import findrs
from findrs import FindRSInputError, RuleSetModel
from findrs.data.encode import encode_frame
from findrs.models.rule_set_path import held_out_path
from findrs.select import multiclass as grid
from findrs.select import size
from paths import assert_paths_agree
from test_multiclass import COMBOS, multiclass_frames
from test_multiclass_auto import noisy_frame

pytestmark = pytest.mark.filterwarnings("ignore::findrs.ContradictionWarning")


def _fit(df: pl.DataFrame, **kw) -> RuleSetModel:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return findrs.fit(df, "y", **kw)


def _codes(model: RuleSetModel, df: pl.DataFrame) -> tuple[list[np.ndarray], np.ndarray]:
    codes = encode_frame(df.select([e.name for e in model.encoders]), model.encoders)
    labels = df["y"].cast(pl.String).to_list()
    names = [str(c) for c in model.classes]
    return codes, np.array([names.index(v) for v in labels], dtype=np.int64)


def _model_of(model: RuleSetModel, picked: list[list[int]]) -> RuleSetModel:
    return RuleSetModel(model._core.with_rules(picked), model.encoders, model.target, model.params,
                        {k: v for k, v in model._training.items() if k != "path"})


def _right(model: RuleSetModel, df: pl.DataFrame) -> int:
    return int((model.predict(df).cast(pl.String) == df["y"].cast(pl.String)).sum())


def _set_training_rows(comb, classes: np.ndarray) -> list[np.ndarray]:
    """Each set's training rows: every row for one-vs-rest; for a decision list, the rows of the
    set's class and of the classes after it (docs/semantics.md §10)."""
    if comb.default is None:
        return [np.arange(len(classes)) for _ in comb.set_classes]
    return [np.flatnonzero(~np.isin(classes, comb.set_classes[:i])) for i in range(len(comb.set_classes))]


def _plain_path(model: RuleSetModel, df: pl.DataFrame) -> tuple[list[tuple[int, int]], list[int]]:
    """The path's order as (set, rule) pairs and the rows right of each model of at least one
    rule per set, by a plain loop over ``predict``: each set's own ranking is its binary
    path's order on its training rows; every step tries each set's next rule."""
    comb = model.combination
    codes, classes = _codes(model, df)
    sets = model._core.class_models()
    ranked = []
    for s, c, rows in zip(sets, comb.set_classes, _set_training_rows(comb, classes)):
        order, _ = s.path([np.ascontiguousarray(x[rows], dtype=np.uint32) for x in codes],
                          np.ascontiguousarray(classes[rows] == c))
        ranked.append(list(order))
    picked: list[list[int]] = [[] for _ in sets]
    steps: list[tuple[int, int]] = []
    right: list[int] = []

    def score(trial: list[list[int]]) -> int:
        if any(not p for p in trial):  # a set without a rule never fires: only the gain order matters
            return -1
        return _right(_model_of(model, trial), df)

    while any(len(p) < len(r) for p, r in zip(picked, ranked)):
        empty = [i for i, p in enumerate(picked) if not p]
        pool = empty or [i for i, (p, r) in enumerate(zip(picked, ranked)) if len(p) < len(r)]
        if empty and len(empty) > 1:
            # The first rules: the plain gain of each, with the other empty sets firing nowhere.
            best = pool[0]
            best_gain = None
            for i in pool:
                gain = _empty_gain(model, df, picked, i, ranked[i][0])
                if best_gain is None or gain > best_gain:
                    best, best_gain = i, gain
        else:
            trials = []
            for i in pool:
                t = [list(p) for p in picked]
                t[i].append(ranked[i][len(picked[i])])
                trials.append(score(t))
            best = pool[int(np.argmax(trials))]
        picked[best].append(ranked[best][len(picked[best])])
        steps.append((best, picked[best][-1]))
        if all(picked):
            right.append(_right(_model_of(model, picked), df))
    return steps, right


def _empty_gain(model: RuleSetModel, df: pl.DataFrame, picked: list[list[int]], i: int, rule: int) -> int:
    """Rows right gained by set ``i``'s ``rule`` when some sets have no rule yet (they fire
    nowhere), computed row by row from each rule's coverage (``explain`` of the class sets)."""
    comb = model.combination
    _, classes = _codes(model, df)
    fired = [set_model.explain(df)["fired_rules"].to_list() for set_model in model.class_models]

    def decide(p: list[list[int]]) -> np.ndarray:
        covered = np.array([[bool(set(fr[r] or []) & set(p[s])) for s, fr in enumerate(fired)] for r in range(df.height)])
        out = []
        for row in covered:
            if comb.default is None:
                scores = [row[s] / t for s, t in enumerate(comb.thetas)]
                out.append(comb.set_classes[int(np.argmax(scores))])
            else:
                hit = [s for s in range(len(row)) if row[s]]
                out.append(comb.set_classes[hit[0]] if hit else comb.default)
        return np.array(out)

    after = [list(x) for x in picked]
    after[i].append(rule)
    return int((decide(after) == classes).sum()) - int((decide(picked) == classes).sum())


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(df=multiclass_frames(), combine=st.sampled_from(COMBOS), seed=st.integers(0, 3), tau=st.integers(0, 1))
def test_the_path_is_the_plain_greedy_merge_and_its_models_are_nested(df: pl.DataFrame, combine: str, seed: int,
                                                                      tau: int) -> None:
    try:
        m = _fit(df, auto=False, random_state=seed, settings=dict(multiclass=combine, tolerance=tau))
    except FindRSInputError:
        return
    record = m._training["path"]
    sizes = [s.n_rules for s in m._core.class_models()]
    first = len(sizes)
    assert sorted(record["order"]) == list(range(sum(sizes)))
    assert record["correct"][-1] == _right(m, df)  # the last point is the model
    steps, right = _plain_path(m, df)
    offsets = np.cumsum([0, *sizes])
    assert [int(offsets[s]) + r for s, r in steps] == record["order"]
    assert right == record["correct"][first - 1:]
    path = m.path
    assert path["rules"].to_list() == list(range(first, sum(sizes) + 1))
    assert path["train_correct"].to_list() == right
    previous = None
    for k in range(first, sum(sizes) + 1):
        small = m.at(k)
        assert small.n_rules == k and _right(small, df) == record["correct"][k - 1]
        assert small.path["train_correct"].to_list() == right[: k - first + 1]
        texts = [set(s.rules["text"].to_list()) for s in small.class_models]
        if previous is not None:
            assert all(a <= b for a, b in zip(previous, texts))  # nested
        previous = texts
    if first > 1:
        with pytest.raises(FindRSInputError, match="at least one rule per class set"):
            m.at(first - 1)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(df=multiclass_frames(), combine=st.sampled_from(COMBOS), extra=st.integers(0, 3))
def test_a_model_of_the_path_predicts_the_same_on_every_path(df: pl.DataFrame, combine: str, extra: int) -> None:
    try:
        m = _fit(df, auto=False, random_state=0, settings=dict(multiclass=combine))
    except FindRSInputError:
        return
    small = m.at(len(m.combination.set_classes) + extra)
    assert_paths_agree(small, df)
    again = findrs.load(small.to_json())
    assert again.path.equals(small.path) and again.to_json() == small.to_json()


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(df=multiclass_frames(), combine=st.sampled_from(COMBOS), seed=st.integers(0, 3))
def test_held_out_path_counts_are_predict_of_the_model_cut(df: pl.DataFrame, combine: str, seed: int) -> None:
    train, held = df.head(df.height * 2 // 3), df.tail(df.height - df.height * 2 // 3)
    try:
        m = _fit(train, auto=False, random_state=seed, settings=dict(multiclass=combine))
    except FindRSInputError:
        return
    if m.target.classes is None:  # the first two thirds hold two classes: a binary model
        return
    labels = [str(c) for c in m.classes]
    held = held.filter(pl.col("y").cast(pl.String).is_in(labels))
    if held.height == 0:
        return
    codes, classes = _codes(m, held)
    order = m._training["path"]["order"]
    counts = held_out_path(m._core, order, codes, classes)
    first = len(m.combination.set_classes)
    assert counts[first - 1:] == [_right(m.at(k), held) for k in range(first, len(order) + 1)]


def test_the_default_chooses_the_size_and_none_is_the_accuracy_first_fit() -> None:
    df = noisy_frame(seed=3, n=400, noise=0.2)
    small = findrs.fit(df, "y", random_state=2, n_jobs=1)
    accurate = findrs.fit(df, "y", random_state=2, n_jobs=1, max_rules=None)
    explicit = findrs.fit(df, "y", random_state=2, n_jobs=1, max_rules="auto")
    assert explicit.to_json() == small.to_json()
    rec = small._training["settings_cv"]
    assert "size" in rec and "size" not in accurate._training["settings_cv"]
    pick = rec["size"]
    assert pick["rule"] == "0.5se" and rec["chosen"] == pick["candidate"]
    # The pair is the plain choice: the fewest conditions within half an SE of the most accurate.
    c = rec["candidates"][rec["chosen"]]
    held_out = sum(c["rows"])
    best = sum(pick["best"]["correct"])
    se = np.sqrt(best / held_out * (1 - best / held_out) / held_out)
    assert sum(pick["correct"]) >= best - 0.5 * se * held_out - 1e-9
    assert pick["se"] == pytest.approx(se)
    # The model is its candidate's fit on every row, cut at the chosen gain on its own path.
    whole = findrs.fit(df, "y", random_state=2, n_jobs=1, auto=False,
                       settings={k: c[k] for k in ("tolerance", "min_support", "simplify", "multiclass")})
    base = c["path_base"]
    k = base + size.cut(whole._training["path"]["correct"][base - 1:], df.height, pick["gain"])
    assert small.n_rules == k
    assert small.predict(df).to_list() == whole.at(k).predict(df).to_list()
    assert "size chosen by cross-validation" in str(small) and "model.at(k)" in str(small)
    assert small.path["cv_accuracy"].null_count() == 0
    # The accuracy-first fit is the earlier default: the best ranked candidate, whole.
    arec = accurate._training["settings_cv"]
    assert arec["chosen"] == grid.best(arec["candidates"])
    assert accurate.path is not None and accurate.path["cv_accuracy"].null_count() == accurate.path.height
    back = findrs.load(small.to_json())
    assert back.to_json() == small.to_json() and back.path.equals(small.path)


def test_a_file_with_a_wrong_path_or_size_is_refused() -> None:
    m = findrs.fit(noisy_frame(seed=4, n=200), "y", random_state=1, n_jobs=1)
    doc = json.loads(m.to_json())
    doc["training"]["path"]["order"][0] = doc["training"]["path"]["order"][1]
    with pytest.raises(FindRSInputError, match="path"):
        findrs.load(json.dumps(doc))
    doc = json.loads(m.to_json())
    rec = doc["training"]["settings_cv"]
    rec["chosen"] = (rec["chosen"] + 1) % len(rec["candidates"])
    with pytest.raises(FindRSInputError, match="size"):
        findrs.load(json.dumps(doc))
    doc = json.loads(m.to_json())
    del doc["training"]["settings_cv"]["candidates"][0]["path_base"]
    with pytest.raises(FindRSInputError, match="settings_cv"):
        findrs.load(json.dumps(doc))
    # A file of an earlier version, without a path (nor a size): it loads and predicts; at refuses.
    old = findrs.fit(noisy_frame(seed=4, n=200), "y", random_state=1, n_jobs=1, max_rules=None)
    doc = json.loads(old.to_json())
    del doc["training"]["path"]
    back = findrs.load(json.dumps(doc))
    assert back.path is None and back.predict(noisy_frame(seed=4, n=200)).equals(old.predict(noisy_frame(seed=4, n=200)))
    with pytest.raises(FindRSInputError, match="before multiclass paths"):
        back.at(3)


def test_bo_and_bp_multiclass_models_have_no_path() -> None:
    df = noisy_frame(seed=5, n=120)
    m = findrs.fit(df, "y", method="bp", random_state=0, auto=False, settings=dict(T=5))
    assert m.path is None
    with pytest.raises(FindRSInputError, match="BO or BP"):
        m.at(5)
    auto_bp = findrs.fit(df, "y", method="bp", random_state=0, settings=dict(T=5))
    assert "size" not in auto_bp._training["settings_cv"]


def test_a_budget_counts_every_class_sets_rules() -> None:
    # docs/semantics.md §10.1: max_rules=N of a multiclass FIND-RS fit is at most N rules in all.
    df = noisy_frame(seed=3, n=400, noise=0.2)
    for n in (3, 5, 8):
        m = findrs.fit(df, "y", random_state=2, n_jobs=1, max_rules=n)
        rec = m._training["settings_cv"]
        pick = rec["size"]
        assert m.n_rules <= n and m.params["max_rules"] == n and pick["rule"] == "budget"
        # A pair of a candidate and k <= n rules of its path (at least a rule per set).
        c = rec["candidates"][pick["candidate"]]
        assert c["path_base"] + 1 <= pick["rules"] <= n
        whole = findrs.fit(df, "y", random_state=2, n_jobs=1, auto=False,
                           settings={k: c[k] for k in ("tolerance", "min_support", "simplify", "multiclass")})
        assert m.predict(df).to_list() == whole.at(pick["rules"]).predict(df).to_list()
        assert f"max_rules={n}" in str(m).splitlines()[0] and "the most accurate of at most" in str(m)
        assert findrs.load(m.to_json()).to_json() == m.to_json()
    # auto=False: the paper's fit cut on its path; BO and BP keep a budget per class set.
    paper = findrs.fit(df, "y", random_state=2, auto=False, max_rules=5)
    whole = findrs.fit(df, "y", random_state=2, auto=False)
    assert paper.n_rules == 5 and paper.predict(df).to_list() == whole.at(5).predict(df).to_list()
    bp = findrs.fit(df, "y", method="bp", random_state=2, auto=False, max_rules=2, settings=dict(T=5))
    assert bp.n_rules > 2 and all(s.n_rules <= 2 for s in bp.class_models)
    for auto in (True, False):
        with pytest.raises(FindRSInputError, match="at least one rule per set"):
            findrs.fit(df, "y", random_state=2, auto=auto, max_rules=2)
