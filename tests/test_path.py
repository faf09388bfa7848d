"""The accuracy-size path and the choice of a model's size (docs/semantics.md §8.1).

Checked against plain re-computations: the path's order is the greedy order of the training
rows each rule adds (every step the plain best), its counts are the prefixes' training rows
right, ``model.at(k)`` has at most ``k`` rules, predicts as the DNF of the path's first ``k``
rules on every path (``predict``, expressions, SQL, JSON) and its own path is the prefix of the
path (nested models); the choice of the size (``max_rules`` with automatic settings) picks the
pair :func:`findrs.select.size.choose` describes, computed here plainly from the fold counts.
"""

from __future__ import annotations

import functools

import warnings

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import findrs
from findrs import FindRSInputError
from findrs.select import size
from paths import assert_paths_agree
from strategies import frames


def _fit(df: pl.DataFrame, **kw) -> findrs.RuleSetModel:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return findrs.fit(df, "y", True, **kw)


def _dnf_right(model: findrs.RuleSetModel, df: pl.DataFrame, ids: list[int]) -> int:
    """Training rows right by the DNF of the model's rules ``ids``, evaluated by each rule's own
    ``explain`` firing (plainly, row by row)."""
    fired = model.explain(df)["fired_rules"].to_list()
    y = df["y"].to_list()
    wanted = set(ids)
    positive = model.positive
    right = 0
    for rules, label in zip(fired, y):
        covered = bool(wanted & set(rules or []))
        right += (covered == (label == positive))
    return right


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(df=frames(min_rows=8, max_rows=50), method=st.sampled_from(["find-rs", "bo", "bp"]),
       tau=st.integers(0, 2), seed=st.integers(0, 3))
def test_the_path_is_the_greedy_order_and_its_models_are_nested(df: pl.DataFrame, method: str, tau: int, seed: int) -> None:
    try:
        m = _fit(df, method=method, auto=False, random_state=seed, settings=dict(tolerance=tau, T=7, n_rules=None))
    except FindRSInputError:
        return
    path = m.path
    assert path is not None and path.height == m.n_rules
    order = m._training["path"]["order"]
    assert sorted(order) == list(range(m.n_rules))
    dnf = method == "find-rs" or m._dnf
    for k in range(1, m.n_rules + 1):
        # Each next rule is the plain best of those left (ties: the lowest id).
        left = [r for r in range(m.n_rules) if r not in order[: k - 1]]
        best = max(left, key=lambda r: (_dnf_right(m, df, order[: k - 1] + [r]), -r))
        assert order[k - 1] == best
        if k < m.n_rules or dnf:
            assert path["train_correct"][k - 1] == _dnf_right(m, df, order[:k])
        small = m.at(k)
        assert small.n_rules <= k
        assert small.path.equals(path.head(small.n_rules))
        if k < m.n_rules:
            assert small.score(df) == pytest.approx(path["train_accuracy"][k - 1])
            assert small.rules["text"].to_list() == [m.rules["text"][r] for r in order[:k]]
    # The last point is the model itself (a vote counts as it votes).
    assert path["train_accuracy"][-1] == pytest.approx(m.score(df))


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(df=frames(min_rows=10, max_rows=40, allow_float=True), k=st.integers(1, 3))
def test_a_model_of_the_path_predicts_the_same_on_every_path(df: pl.DataFrame, k: int) -> None:
    try:
        m = _fit(df, method="bp", auto=False, random_state=0, settings=dict(T=5, n_rules=None))
    except FindRSInputError:
        return
    small = m.at(k)
    assert_paths_agree(small, df)
    again = findrs.load(small.to_json())
    assert again.path.equals(small.path) and again.params["max_rules"] == small.params["max_rules"]


def test_at_refuses_what_it_cannot_do() -> None:
    df = findrs.datasets.tic_tac_toe()
    m = _fit_ttt(df)
    for bad in (0, -1, 1.5, True, "2"):
        with pytest.raises(FindRSInputError, match="at least 1"):
            m.at(bad)
    assert m.at(10**9) is m
    bp = findrs.fit(df, "class", "positive", method="bp", auto=False, random_state=0, settings=dict(T=5, n_rules=None))
    moved = bp.with_n_rules(2)
    assert moved.path is None
    with pytest.raises(FindRSInputError, match="no accuracy-size path"):
        moved.at(1)


def _fit_ttt(df: pl.DataFrame) -> findrs.RuleSetModel:
    return findrs.fit(df, "class", "positive", auto=False, random_state=0)


def test_a_file_whose_path_does_not_list_the_rules_is_refused() -> None:
    import json

    m = _fit_ttt(findrs.datasets.tic_tac_toe())
    doc = json.loads(m.to_json())
    doc["training"]["path"]["order"][0] = doc["training"]["path"]["order"][1]
    with pytest.raises(FindRSInputError, match="path"):
        findrs.load(json.dumps(doc))
    doc = json.loads(m.to_json())
    doc["training"]["path"]["correct"] = doc["training"]["path"]["correct"][:-1]
    with pytest.raises(FindRSInputError, match="path"):
        findrs.load(json.dumps(doc))


def _plain_choice(rec: dict, max_rules) -> tuple[int, object]:
    """The (candidate, cut) pair of §8.1, by plain loops over every candidate and cut: a gain
    for "auto", a number of rules for a budget."""
    rows = sum(rec["candidates"][0]["rows"])

    def fold_counts(c: dict, f: int, k: int) -> tuple[int, int]:
        p = (c.get("path_correct") or [[]] * len(c["correct"]))[f]
        if not p:
            return c["correct"][f], c["conditions"][f]
        j = min(k, len(p)) - 1
        return p[j], c["path_conditions"][f][j]

    def kept(train: list[int], n: int, gain) -> int:
        if gain is None:
            return len(train) - 1
        k = 0
        while k < len(train) - 1 and train[k + 1] - train[k] > gain * n:
            k += 1
        return max(k, 1)

    pairs = []
    for i, c in enumerate(rec["candidates"]):
        folds = range(len(c["correct"]))
        if max_rules == "auto":
            if not c.get("path_correct"):
                pairs.append((i, None, c["correct"], sum(c["conditions"])))
                continue
            seen = set()
            for gain in [*sorted(size.GAINS, reverse=True), None]:
                ks = tuple(kept(c["path_train"][f], rows - c["rows"][f], gain) if c["path_train"][f] else 0
                           for f in folds)
                if ks not in seen:
                    seen.add(ks)
                    counts = [fold_counts(c, f, k) for f, k in zip(folds, ks)]
                    pairs.append((i, gain, [r for r, _ in counts], sum(q for _, q in counts)))
        else:
            width = max([len(p) for p in c.get("path_correct") or []] + [1])
            for k in range(1, width + 1):
                counts = [fold_counts(c, f, k) for f in folds]
                n_rules = [min(k, len(c["path_correct"][f])) if c.get("path_correct") and c["path_correct"][f]
                           else c["rules"][f] for f in folds]
                if max(n_rules) <= max_rules:
                    pairs.append((i, k, [r for r, _ in counts], sum(q for _, q in counts)))
    best = max(pairs, key=lambda p: (sum(p[2]), -p[3], -p[0]))
    if max_rules != "auto":
        return best[0], best[1]
    accuracy = sum(best[2]) / rows
    bar = sum(best[2]) - 0.5 * (accuracy * (1 - accuracy) / rows) ** 0.5 * rows  # half CART's standard error
    ok = [p for p in pairs if sum(p[2]) >= bar - 1e-9 * rows]
    pick = min(ok, key=lambda p: (p[3], -sum(p[2]), -(p[1] if p[1] is not None else -1), p[0]))
    return pick[0], pick[1]


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(df=frames(min_rows=30, max_rows=80, allow_float=True), budget=st.sampled_from(["auto", 1, 2, 4]),
       seed=st.integers(0, 5))
def test_the_size_is_chosen_with_the_settings(df: pl.DataFrame, budget, seed: int) -> None:
    captured: dict = {}
    original = size.choose

    def spy(rec, max_rules):
        captured["rec"] = rec
        return original(rec, max_rules)

    import findrs.learning.sized as sized

    sized.size.choose = spy
    try:
        m = _fit(df, random_state=seed, max_rules=budget)
    except FindRSInputError:
        return
    finally:
        sized.size.choose = original
    if "rec" not in captured:  # too few rows of a class to cross-validate: the paper's settings
        return
    rec = captured["rec"]
    s = m._cv["size"]
    assert (s["candidate"], s["gain"] if budget == "auto" else s["rules"]) == _plain_choice(rec, budget)
    k = m.params["max_rules"]
    if budget != "auto":
        assert k == s["rules"] <= budget
    else:  # the final model's path cut at the chosen gain, as the folds' were
        t = m._training
        assert k == size.cut([t["rows"] - t["positives"], *t["path"]["correct"]], t["rows"], s["gain"])
    assert m.n_rules <= k
    assert ("max_rules" in m.params["auto"]) == (budget == "auto")
    # The model is the chosen candidate's fit, cut to the budget on its own path.
    c = m._cv["candidates"][m._cv["chosen"]]
    given_settings = {k: c[k] for k in ("encoding", "tolerance", "direction", "simplify")}
    given_settings.update(min_support=m.params["min_support"], numeric=m.params["numeric"],
                          bin_edges=m.params["bin_edges"], best_of=m.params["best_of"])
    plain = _fit(df, auto=False, random_state=seed, settings=given_settings).at(k)
    # The same rules; a feature of one training code is free in the automatic fit (§2.1), so
    # the predictions agree on the training rows.
    assert plain.n_rules == m.n_rules
    assert plain.predict(df).equals(m.predict(df))
    again = findrs.load(m.to_json())
    assert again._cv["size"] == s and again.path.equals(m.path)


def test_a_budget_with_automatic_settings_on_adult_like_noise_is_small() -> None:
    # A noisy frame whose best model is large: max_rules='auto' gives a smaller one, within the
    # bound of the most accurate; max_rules=None keeps the accuracy-first choice.
    rng = np.random.default_rng(0)
    n = 3000
    x = rng.integers(0, 6, size=(n, 6))
    y = ((x[:, 0] >= 3) & (x[:, 1] <= 2)) | ((x[:, 2] == 5) & (x[:, 3] == 0)) | (x[:, 4] + x[:, 5] == 3)
    flip = rng.random(n) < 0.15
    df = pl.DataFrame({f"a{j}": [f"v{v}" for v in x[:, j]] for j in range(6)}).with_columns(y=pl.Series(y ^ flip))
    small = _fit(df, random_state=0, max_rules="auto")
    big = _fit(df, random_state=0, max_rules=None)
    s = small._cv["size"]
    rows = sum(small._cv["candidates"][0]["rows"])
    assert sum(s["correct"]) >= sum(s["best"]["correct"]) - 0.5 * s["se"] * rows - 1e-6 and s["rule"] == "0.5se"
    conditions = lambda m: int(m.rules.filter("kept")["constraints"].list.len().sum())  # noqa: E731
    assert conditions(small) < conditions(big)
    assert "size chosen" in small.to_text()


def test_max_rules_auto_needs_the_cross_validation() -> None:
    df = findrs.datasets.tic_tac_toe()
    with pytest.raises(FindRSInputError, match="max_rules='auto'"):
        findrs.fit(df, "class", "positive", auto=False, max_rules="auto")
    with pytest.raises(FindRSInputError, match="chooses among FIND-RS models"):
        findrs.fit(df, "class", "positive", method="bp", max_rules=3)


def test_the_default_chooses_the_size_where_it_can_and_none_is_the_accuracy_first_fit() -> None:
    # docs/semantics.md §8.1, "The default": "auto" for a binary FIND-RS fit with automatic
    # settings, no budget where no size can be chosen; None is the fit of any size.
    from findrs.sklearn import FindRSClassifier

    df = findrs.datasets.tic_tac_toe()
    noisy = findrs.datasets.credit()
    credit = functools.partial(findrs.fit, noisy, "default", True, random_state=0)
    default = credit()
    assert default.to_json() == credit(max_rules="auto").to_json()
    assert "max_rules" in default.params["auto"] and default.params["max_rules"] == default.n_rules
    assert "half a standard error" in default.to_text() and "max_rules=" not in default.to_text().splitlines()[0]
    accurate = credit(max_rules=None)
    assert accurate.params["max_rules"] is None and "max_rules" not in accurate.params["auto"]
    # A multiclass target's size is chosen by its own cross-validation (§10.1): params say no budget.
    multi = findrs.datasets.monks(1).with_columns(y=pl.col("a1").cast(pl.String))
    mc = findrs.fit(multi.drop("a1"), "y", random_state=0)
    assert mc.params["max_rules"] is None and "size" in mc._training["settings_cv"]
    for m in (findrs.fit(df, "class", "positive", auto=False, random_state=0),
              findrs.fit(df, "class", "positive", method="bp", random_state=0, settings=dict(T=5)),
              findrs.fit(df, "class", "positive", random_state=0, settings=dict(
                  encoding="av", tolerance=0, min_support=0, direction="positive", simplify=False))):
        assert m.params["max_rules"] is None and "max_rules" not in m.params["auto"], m
    exc = credit(settings=dict(exceptions=True))
    assert exc.params["max_rules"] is None  # rules with exceptions are not sized (no error either)
    bag = findrs.fit_bagged(df, "class", "positive", n_estimators=1, random_state=0)
    assert bag.members[0].params["max_rules"] is None
    # The estimator's "auto" is fit's default.
    clf = FindRSClassifier(random_state=0).fit(noisy.drop("default"), noisy["default"])
    assert clf.max_rules == "auto" and "max_rules" in clf.model_.params["auto"]
    assert FindRSClassifier(random_state=0, auto=False).fit(df.drop("class"), df["class"]).model_.params["max_rules"] is None


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(df=frames(min_rows=8, max_rows=60, allow_float=True), seed=st.integers(0, 3),
       given_settings=st.sampled_from([{}, {"settings": {"tolerance": 0}}, {"method": "bp", "settings": {"T": 3}}, {"auto": False}]))
def test_the_default_size_is_auto_where_the_cross_validation_chooses_settings_else_none(
        df: pl.DataFrame, seed: int, given_settings: dict) -> None:
    # docs/semantics.md §8.1, "The default": max_rules not given is the fit with "auto" when the
    # fit is FIND-RS with settings to choose, else the fit with None (no budget).
    def fit(**kw):
        try:
            return _fit(df, random_state=seed, **given_settings, **kw)
        except FindRSInputError as e:
            return type(e)
    default = fit()
    chooses = isinstance(default, findrs.RuleSetModel) and "max_rules" in default.params["auto"]
    event("the size chosen" if chooses else "no size")
    other = fit(max_rules="auto" if chooses else None)
    assert type(default) is type(other)
    if isinstance(default, type):
        return  # the same refusal either way
    assert default.to_json() == other.to_json()
    if not chooses:
        assert default.params["max_rules"] is None


def test_the_size_experiment_at_smoke_size(data_dir, tmp_path) -> None:
    # experiments/small.py (results/small.md) on one small set: one row per method and split,
    # the report carrying the command without the data directory, findrs' size choice no larger
    # than its accuracy-first fit.
    from experiments import small

    out = tmp_path / "small.md"
    assert small.main(["--data-dir", str(data_dir), "--datasets", "vote", "--seeds", "0",
                       "--methods", "findrs-small", "findrs-accurate", "--out", str(out)]) == 0
    text = out.read_text()
    assert 'python -m experiments.small --data-dir "$FINDRS_DATA_DIR"' in text and str(data_dir) not in text
    raw = pl.read_csv(out.with_suffix(".raw.csv"))
    assert raw.height == 2 and raw["acc"].is_between(0, 1).all()
    by = dict(zip(raw["method"], raw["conditions"]))
    assert by["findrs-small"] <= by["findrs-accurate"]
    assert out.with_suffix(".png").stat().st_size > 0  # accuracy against conditions
    again = tmp_path / "again.md"
    assert small.main(["--from-raw", str(out.with_suffix(".raw.csv")), "--out", str(again)]) == 0
    assert pl.read_csv(again.with_suffix(".raw.csv")).equals(raw)
    assert text.split("Mean per data set")[1] == again.read_text().split("Mean per data set")[1]


@pytest.mark.parametrize("value", ["foo", "AUTO", 0, 2.5])
def test_a_bad_max_rules_names_every_value_it_takes(value: object) -> None:
    with pytest.raises(findrs.FindRSInputError, match=r'max_rules must be an integer from 1 to \d+, "auto" .* or None') as e:
        findrs.fit(findrs.datasets.monks(2), "class", max_rules=value)
    assert repr(value) in str(e.value)


@pytest.mark.parametrize("max_rules", ["auto", 2])
def test_a_budgeted_model_file_reads_back_byte_for_byte(max_rules: object) -> None:
    # The training record's budget was written (correct_before, correct) and read back sorted.
    model = findrs.fit(findrs.datasets.credit(), "default", random_state=0, max_rules=max_rules)
    text = model.to_json()
    assert "correct_before" in text and findrs.load(text).to_json() == text
