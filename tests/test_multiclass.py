"""Multiclass models (docs/semantics.md §10): one rule set per class, combined one-vs-rest or as
a decision list (frequent-first, rarest-first).

Every prediction path is compared with a plain re-implementation of §10 over the class sets'
public views (each rule's constraints read as §2 says, the votes as §6 says, the combination as
§10 says): the plugin (eager, lazy, streaming), the compiled expression, DuckDB and SQLite, the
JSON round trip, pickle, ``explain``, scikit-learn and the command line; on Hypothesis frames and
on car, connect-4 and wine with all their classes.
"""

from __future__ import annotations

import math
import pickle
import sqlite3
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import findrs
from experiments.uci import load_uci
from findrs import FindRSInputError, RuleSetModel
from findrs.models import multiclass
from findrs.cli import main as cli_main
from findrs.datasets import train_test_split
from strategies import codes_of, feature_specs, perturbed
from test_intervals import ENDS, interval_frames, probe_frame
from test_intervals import _passes as passes_raw

duckdb = pytest.importorskip("duckdb")

pytestmark = pytest.mark.filterwarnings("ignore::findrs.ContradictionWarning")

COMBOS = ("frequent-first", "rarest-first", "one-vs-rest")


# --------------------------------------------------------------------------- the plain reading
def plain_votes(model: RuleSetModel, rows: list[tuple[int, ...]]) -> list[int]:
    """Votes of a binary model on code rows: a rule covers a row when every constraint allows the
    row's code (an unseen code, ``domain_size``, when the constraint lets unseen values pass);
    the votes are the weights of the groups with a covering rule (docs/semantics.md §2, §6)."""
    v = model.vote
    sizes = [e.domain_size for e in model.encoders]
    out = []
    for r in rows:
        covers = [
            all(r[c.feature] in c.codes or (c.unseen_passes and r[c.feature] == sizes[c.feature]) for c in v.rule(i))
            for i in range(len(v.rules))
        ]
        out.append(sum(w for g, w in zip(v.groups, v.group_weights) if any(covers[i] for i in g)))
    return out


def plain_votes_raw(model: RuleSetModel, df: pl.DataFrame) -> list[int]:
    """:func:`plain_votes` read on the raw values, as a model with interval features needs
    (docs/semantics.md §11: an interval constraint is its ends and whether null passes; the
    view's codes of it are value indices, not the gap codes the encoder gives)."""
    v = model.vote
    rows = df.select(model.features).rows()
    out = []
    for row in rows:
        covers = [
            all(passes_raw(model, c.feature, c.codes, c.unseen_passes, row[c.feature]) for c in v.rule(i))
            for i in range(len(v.rules))
        ]
        out.append(sum(w for g, w in zip(v.groups, v.group_weights) if any(covers[i] for i in g)))
    return out


def plain_classes(model: RuleSetModel, df: pl.DataFrame) -> list[Any]:
    """The class of every row as docs/semantics.md §10 says, from each class set's votes."""
    comb = model.combination
    if any(e.kind == "interval" for e in model.encoders):
        votes = [plain_votes_raw(m, df) for m in model.class_models]
    else:
        rows = codes_of(df, model)
        votes = [plain_votes(m, rows) for m in model.class_models]
    out = []
    for r in range(df.height):
        if comb.default is not None:
            fired = [i for i, (v, t) in enumerate(zip(votes, comb.thresholds)) if v[r] > t]
            c = comb.set_classes[fired[0]] if fired else comb.default
        else:
            scores = [v[r] / theta for v, theta in zip(votes, comb.thetas)]
            c = comb.set_classes[scores.index(max(scores))]  # the first maximum
        out.append(comb.classes[c])
    return out


def sqlite_table(df: pl.DataFrame) -> sqlite3.Connection:
    con = sqlite3.connect(":memory:")
    types = {c: "REAL" if t.is_float() else "INTEGER" if t.is_integer() or t == pl.Boolean else "TEXT" for c, t in df.schema.items()}
    con.execute(f"CREATE TABLE t ({', '.join(f'{chr(34)}{c}{chr(34)} {t}' for c, t in types.items())})")
    rows = [tuple(None if isinstance(v, float) and math.isnan(v) else v for v in r) for r in df.rows()]
    con.executemany(f"INSERT INTO t VALUES ({', '.join('?' * df.width)})", rows)
    return con


def sql_predictions(model: RuleSetModel, df: pl.DataFrame) -> tuple[list, list]:
    """The model's SQL run by DuckDB and by SQLite over ``df``."""
    con = duckdb.connect()
    con.execute("SET threads = 1")
    con.register("frame", df)
    got_duckdb = [r[-1] for r in con.execute(model.to_sql(table="frame")).fetchall()]
    con.close()
    lite = sqlite_table(df)
    got_sqlite = [r[-1] for r in lite.execute(model.to_sql(table="t", dialect="sqlite")).fetchall()]
    lite.close()
    return got_duckdb, got_sqlite


def check_every_path(model: RuleSetModel, df: pl.DataFrame, sql: bool = True) -> list[Any]:
    """Every prediction path of ``model`` on ``df`` equals the plain reading; returns it."""
    want = plain_classes(model, df)
    pred = model.predict(df)
    assert pred.to_list() == want
    assert set(want) <= set(model.classes or ())
    assert df.select(model.predict_expr(engine="plugin")).to_series().to_list() == want
    assert df.select(model.to_expr()).to_series().to_list() == want
    lazy = df.lazy().select(model.predict_expr()).collect(engine="streaming")
    assert lazy.to_series().to_list() == want
    assert RuleSetModel.from_json(model.to_json()).predict(df).to_list() == want
    assert pickle.loads(pickle.dumps(model)).predict(df).to_list() == want
    if sql:
        got_duckdb, got_sqlite = sql_predictions(model, df)
        assert got_duckdb == want
        assert got_sqlite == want
    return want


def check_explain(model: RuleSetModel, df: pl.DataFrame) -> None:
    """explain lists each class set's firing rules (ids into ``model.rules``) with their class;
    the decision of a class is positive exactly where its set says "this class"."""
    table = model.explain(df)
    rules = model.rules
    name = model.target.name
    assert table[f"{name}_predicted"].to_list() == model.predict(df).to_list()
    rows = codes_of(df, model)
    at = 0
    expected: list[list[int]] = [[] for _ in rows]
    for m in model.class_models:
        v = m.vote
        sizes = [e.domain_size for e in m.encoders]
        for r, row in enumerate(rows):
            expected[r] += [
                at + i
                for i in range(len(v.rules))
                if all(row[c.feature] in c.codes or (c.unseen_passes and row[c.feature] == sizes[c.feature]) for c in v.rule(i))
            ]
        at += m.n_rules_found
    assert table["fired_rules"].to_list() == expected
    classes = rules["label"].to_list()
    texts = rules["text"].to_list()
    assert table["fired_classes"].to_list() == [[classes[i] for i in ids] for ids in expected]
    assert table["fired_texts"].to_list() == [[texts[i] for i in ids] for ids in expected]
    decisions = model.decision_function(df)
    assert decisions.columns == [str(c) for c in model.classes or ()]
    for m in model.class_models:
        says = m.predict(df, labels=False).to_numpy()
        assert ((decisions[str(m.positive)].to_numpy() > 0) == says).all()
    if model.combination.default is not None:
        assert decisions[str(model.classes[model.combination.default])].null_count() == df.height


# --------------------------------------------------------------------------- Hypothesis
@st.composite
def multiclass_frames(draw) -> pl.DataFrame:
    """A random frame of small-domain features (nulls, NaN and binned floats included) and a
    target ``y`` of 3 to 5 classes (strings or integers)."""
    specs = draw(feature_specs(2, 5, 4, allow_float=True))
    k = draw(st.integers(3, 5))
    n = draw(st.integers(6, 60))
    rows = draw(st.lists(st.tuples(*[st.sampled_from(pool) for _, _, pool in specs]), min_size=n, max_size=n))
    ids = draw(st.lists(st.integers(0, k - 1), min_size=n, max_size=n))
    assume(len(set(ids)) >= 3)
    for c, (_, dtype, _) in enumerate(specs):
        if dtype == pl.Float64:
            assume(any(isinstance(r[c], float) and math.isfinite(r[c]) for r in rows))
    if draw(st.booleans()):
        labels: list[Any] = [f"class {i}" for i in ids]
    else:
        labels = [(7 - 3 * i) for i in ids]
    data = {name: pl.Series(name, [r[c] for r in rows], dtype=dtype) for c, (name, dtype, _) in enumerate(specs)}
    data["y"] = pl.Series("y", labels)
    return pl.DataFrame(data)


@given(
    df=multiclass_frames(),
    method=st.sampled_from(["find-rs", "bo", "bp"]),
    combine=st.sampled_from(COMBOS),
    encoding=st.sampled_from(["av", "oh"]),
    tolerance=st.integers(0, 2),
    seed=st.integers(0, 2**32),
)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_predictions_are_training_classes_and_every_path_agrees(
    df: pl.DataFrame, method: str, combine: str, encoding: str, tolerance: int, seed: int
) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", findrs.ContradictionWarning)
        model = findrs.fit(
            df, "y", method=method, random_state=seed, n_jobs=1, auto=False,
            settings=dict(T=5, encoding=encoding, tolerance=tolerance, multiclass=combine),
        )
    classes = sorted(set(df["y"].to_list()))
    assert model.classes == classes and model.multiclass == combine
    probe = pl.concat([df, perturbed(df, seed % 1000)]).drop("y")
    want = check_every_path(model, probe)
    assert set(want) <= set(classes)
    check_explain(model, probe)
    # Each class set describes its class; the sets are ordered by training frequency.
    counts = df["y"].value_counts()
    freq = dict(zip(counts["y"].to_list(), counts["count"].to_list()))
    order = [freq[m.positive] for m in model.class_models]
    assert order == sorted(order, reverse=combine != "rarest-first")


@given(df=multiclass_frames(), combine=st.sampled_from(COMBOS))
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_tolerance_zero_decision_lists_are_right_on_consistent_training_rows(df: pl.DataFrame, combine: str) -> None:
    # FIND-RS with tau = 0 covers every positive of a set and no negative, so a decision list
    # classifies every training row without an identical row of another class correctly; so
    # does one-vs-rest, where no other set covers the row (docs/semantics.md §10).
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", findrs.ContradictionWarning)
        model = findrs.fit(df, "y", random_state=0, auto=False, settings=dict(multiclass=combine))
    # Contradictions are on codes (docs/semantics.md §1): two numbers in one bin are equal.
    rows = codes_of(df, model)
    classes_of: dict[tuple[int, ...], set] = {}
    for r, y in zip(rows, df["y"].to_list()):
        classes_of.setdefault(r, set()).add(y)
    clean = [len(classes_of[r]) == 1 for r in rows]
    assert (sum(not c for c in clean) > 0) == (model.contradictions > 0)
    pred = model.predict(df).to_list()
    assert all(p == y for p, y, c in zip(pred, df["y"].to_list(), clean) if c)


@st.composite
def interval_multiclass_frames(draw) -> pl.DataFrame:
    """:func:`test_intervals.interval_frames` (floats with NaN and null, integers with many
    values, strings; fit with ``bins=2`` every numeric column of more than two values is an
    interval feature) with a target ``y`` of 3 or 4 string classes instead of Booleans."""
    df = draw(interval_frames())
    ids = draw(st.lists(st.integers(0, 3), min_size=df.height, max_size=df.height))
    assume(len(set(ids)) >= 3)
    return df.with_columns(pl.Series("y", [f"c{i}" for i in ids]))


@given(
    df=interval_multiclass_frames(),
    method=st.sampled_from(["find-rs", "bp"]),
    combine=st.sampled_from(COMBOS),
    ends=st.sampled_from(ENDS),
    tolerance=st.integers(0, 1),
)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_multiclass_over_interval_features(df: pl.DataFrame, method: str, combine: str, ends: str, tolerance: int) -> None:
    # Multiclass (§10) and interval features (§11) together: every class set is a binary model
    # over the same interval features, its ends widened toward its own negatives (for a
    # decision list, the rows of the classes after it). Every path (predict, the plugin eager
    # and streaming, to_expr, DuckDB, SQLite, JSON, pickle) equals the plain reading of each
    # set's intervals on the raw values, combined as §10 says, on training values, gaps, cuts,
    # beyond both ends, NaN, null and infinities; explain fires what the sets' rules say.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", findrs.ContradictionWarning)
        warnings.simplefilter("ignore", findrs.IdentifierWarning)
        model = findrs.fit(
            df, "y", method=method, random_state=1, n_jobs=1, auto=False,
            settings=dict(T=5, tolerance=tolerance, bins=2, numeric="interval", interval_ends=ends, multiclass=combine),
        )
    assert model.classes == sorted(set(df["y"].to_list())) and model.multiclass == combine
    assert all(m.encoders == model.encoders for m in model.class_models)
    probe = probe_frame(df.with_columns(y=pl.lit(False)), model, 5).drop("y")
    want = check_every_path(model, probe)
    assert set(want) <= set(model.classes or ())
    fired = model.explain(probe)["fired_classes"].to_list()
    at = 0
    expected: list[list[Any]] = [[] for _ in range(probe.height)]
    for m in model.class_models:
        rows = probe.select(m.features).rows()
        v = m.vote
        for r, row in enumerate(rows):
            expected[r] += [
                m.positive
                for i in range(len(v.rules))
                if all(passes_raw(m, c.feature, c.codes, c.unseen_passes, row[c.feature]) for c in v.rule(i))
            ]
        at += m.n_rules_found
    assert fired == expected
    if tolerance == 0 and method == "find-rs":
        # FIND-RS with tau = 0 covers no negative of its set, and widening keeps it so: a row
        # without an identical row of another class (raw values, NaN as null) is classified
        # right, as in test_tolerance_zero_decision_lists_are_right_on_consistent_training_rows.
        keys = [tuple(None if isinstance(x, float) and math.isnan(x) else x for x in r) for r in df.drop("y").rows()]
        classes_of: dict[tuple, set] = {}
        for k, y in zip(keys, df["y"].to_list()):
            classes_of.setdefault(k, set()).add(y)
        pred = model.predict(df).to_list()
        assert all(p == y for p, y, k in zip(pred, df["y"].to_list(), keys) if len(classes_of[k]) == 1)


# --------------------------------------------------------------------------- semantics by hand
def test_uncovered_rows_and_ties_follow_the_combination() -> None:
    # Classes by frequency: a (4 rows), b (3), c (2). Feature x names the class; z is noise.
    df = pl.DataFrame({
        "x": ["a", "a", "a", "a", "b", "b", "b", "c", "c"],
        "z": ["p", "q", "p", "q", "p", "q", "p", "q", "p"],
        "y": ["a", "a", "a", "a", "b", "b", "b", "c", "c"],
    })
    unseen = pl.DataFrame({"x": ["new"], "z": ["p"]})
    got = {c: findrs.fit(df, "y", auto=False, settings=dict(multiclass=c, shuffle=False)).predict(unseen).item() for c in COMBOS}
    # No rule covers an unseen x: one-vs-rest gives the most frequent class, a decision list its
    # default (the rarest class for frequent-first, the most frequent for rarest-first).
    assert got == {"one-vs-rest": "a", "frequent-first": "c", "rarest-first": "a"}
    # OH rules of one-vs-rest: x not in {...} lets the unseen value pass every set's rule: a tie of
    # equal scores, won by the most frequent class.
    m = findrs.fit(df, "y", auto=False, settings=dict(multiclass="one-vs-rest", encoding="oh", shuffle=False))
    assert m.predict(unseen).item() == plain_classes(m, unseen)[0]


def test_positive_keeps_one_against_the_rest() -> None:
    df = pl.DataFrame({"x": ["a", "b", "c", "a"], "y": ["r", "g", "b", "r"]})
    m = findrs.fit(df, "y", "r", auto=False, settings=dict(shuffle=False))
    assert m.classes is None and m.multiclass is None and m.positive == "r"
    assert m.predict(df).to_list() == [True, False, False, True]
    assert "classes" not in m.to_json() and "combine" not in m.to_json()


def test_binary_only_and_multiclass_only_members_say_so() -> None:
    df = pl.DataFrame({"x": ["a", "b", "c", "a"], "y": ["r", "g", "b", "r"]})
    m = findrs.fit(df, "y", method="bp", random_state=0, auto=False, settings=dict(T=3))
    for call in (
        lambda: m.vote,
        lambda: m.predict(df, labels=False),
        lambda: m.predict_expr(labels=False),
        lambda: m.to_sql(output="votes"),
        lambda: m.with_n_rules(1),
        lambda: m.pruning_curve(df),
    ):
        with pytest.raises(FindRSInputError, match="multiclass"):
            call()
    binary = findrs.fit(df, "y", "r", auto=False)
    for call in (lambda: binary.class_models, lambda: binary.combination):
        with pytest.raises(FindRSInputError, match="binary"):
            call()
    assert m.n_rules == sum(c.n_rules for c in m.class_models)
    assert m.rules["id"].to_list() == list(range(m.n_rules_found))
    assert "class 'r'" in str(m) and "multiclass" in repr(m)
    assert m.score(df) == 1.0


def test_model_files_are_checked() -> None:
    import json

    df = pl.DataFrame({"x": ["a", "b", "c", "a"], "y": ["r", "g", "b", "r"]})
    m = findrs.fit(df, "y", random_state=0, auto=False, settings=dict(multiclass="frequent-first"))
    d = json.loads(m.to_json())
    assert d["target"]["classes"] == ["b", "g", "r"] and d["model"]["combine"]["rule"] == "frequent-first"
    assert [s["class"] for s in d["model"]["rule_sets"]] == [2, 0]
    bad = [
        ("target", lambda d: d["target"].update(classes=["b", "g", "r", "x"]), "classes"),
        ("target", lambda d: d["target"].update(positive="r"), "no positive"),
        ("training", lambda d: d["training"].update(class_counts=[1, 1]), "class counts"),
        ("model", lambda d: d["model"]["combine"].update(rule="vote"), "multiclass must be"),
        ("model", lambda d: d["model"]["rule_sets"][0].update({"class": 7}), "out of range"),
        ("model", lambda d: d["model"].pop("combine"), "no \"combine\""),
    ]
    for _, edit, needle in bad:
        e = json.loads(m.to_json())
        edit(e)
        with pytest.raises(FindRSInputError, match=needle):
            RuleSetModel.from_json(json.dumps(e))


# --------------------------------------------------------------------------- UCI data
# connect-4 (67,557 rows, 42 features): the fits use a seeded 900-row sample of the training
# half and the test half's first 300 rows, so that the compiled expression and the SQL (one node
# per constraint, hundreds of rules) stay quick.
_SAMPLE = {"connect-4": (900, 300)}


@pytest.mark.parametrize("name", ["car", "connect-4", "wine"])
def test_uci_every_surface_with_all_classes(data_dir, name: str, tmp_path: Path, capsys) -> None:
    df = load_uci(name, data_dir, labels=True)
    train, test = train_test_split(df, 0.5, seed=0)
    if name in _SAMPLE:
        n_train, n_test = _SAMPLE[name]
        train, test = train.sample(n_train, seed=0), test.head(n_test)
    classes = sorted(df["class"].unique().to_list())
    X_test = test.drop("class")
    for method in ("find-rs", "bp"):
        for combine in COMBOS:
            model = train.findrs.fit("class", method=method, random_state=0, n_jobs=1, auto=False, settings=dict(T=10, multiclass=combine))
            assert model.classes == classes and len(model.class_models) == len(classes) - (combine != "one-vs-rest")
            want = check_every_path(model, X_test, sql=method == "find-rs" or name != "connect-4")
            if name != "connect-4":
                # Every class is predicted somewhere (connect-4's rare draws may not be).
                assert set(want) == set(classes)
            check_explain(model, X_test.head(200))
            assert 0.5 < model.score(test) <= 1.0
    # The default: the combination chosen by cross-validation on the training rows.
    chosen = train.findrs.fit("class", random_state=0, n_jobs=1, auto=False)
    table = chosen.combination_cv
    assert table is not None and table.filter("chosen")["multiclass"].item() == chosen.multiclass
    assert table.filter("chosen")["correct"].item() == table["correct"].max()
    # scikit-learn: classes_ and predict_proba over every class.
    from findrs.sklearn import FindRSClassifier

    clf = FindRSClassifier(random_state=0, n_jobs=1, auto=False, settings=dict(T=10)).fit(train.drop("class").to_pandas(), train["class"].to_numpy())
    assert clf.classes_.tolist() == classes
    proba = clf.predict_proba(X_test.to_pandas())
    assert proba.shape == (test.height, len(classes)) and np.allclose(proba.sum(axis=1), 1.0)
    pred = clf.predict(X_test.to_pandas())
    assert (clf.classes_[proba.argmax(axis=1)] == pred).all()
    # The estimator's model learns the class indices of classes_.
    assert pred.tolist() == clf.classes_[clf.model_.predict(X_test).to_numpy()].tolist()
    # The command line: fit, predict, explain and rules with every class.
    data = tmp_path / "train.parquet"
    train.write_parquet(data)
    new = tmp_path / "test.parquet"
    test.write_parquet(new)
    out = tmp_path / "scored.parquet"
    model_file = tmp_path / "model.json"
    assert cli_main(["fit", str(data), "--target", "class", "-o", str(model_file), "--random-state", "0"]) == 0
    assert cli_main(["predict", str(model_file), str(new), "-o", str(out)]) == 0
    saved = RuleSetModel.from_json(model_file)
    assert pl.read_parquet(out)["class_predicted"].to_list() == saved.predict(test).to_list()
    assert cli_main(["explain", str(model_file), str(new), "--top", "2"]) == 0
    assert cli_main(["rules", str(model_file)]) == 0
    text = capsys.readouterr().out
    assert saved.multiclass in text and " class " in text
    for c in saved.predict(test).unique().to_list():
        assert f"class = {c!r}" in text


@pytest.mark.parametrize("ends", ENDS)
def test_wine_with_interval_features_on_every_surface(data_dir, ends: str) -> None:
    # wine's 13 measurements as interval features (docs/semantics.md §11) in a multiclass model
    # of its 3 classes: every surface agrees with the plain reading, every class is predicted,
    # and the rules read as intervals.
    df = load_uci("wine", data_dir, labels=True)
    train, test = train_test_split(df, 0.5, seed=0)
    X_test = test.drop("class")
    for method, combine in (("find-rs", "frequent-first"), ("bp", "one-vs-rest"), ("bp", "rarest-first")):
        model = train.findrs.fit(
            "class", method=method, random_state=0, n_jobs=1, auto=False,
            settings=dict(T=10, multiclass=combine, numeric="interval", interval_ends=ends),
        )
        assert all(e.kind == "interval" for e in model.encoders)
        want = check_every_path(model, X_test)
        assert set(want) == set(model.classes or ())
        assert 0.7 < model.score(test) <= 1.0
        assert " <= " in " ".join(model.rules["text"].to_list()) or " < " in " ".join(model.rules["text"].to_list())


def test_namespaces_explain_and_print_with_classes() -> None:
    df = pl.DataFrame({"x": ["a", "b", "c", "a", "b"], "z": [1, 2, 1, 2, 1], "y": ["r", "g", "b", "r", "g"]})
    for combine in COMBOS:
        m = df.findrs.fit("y", auto=False, settings=dict(multiclass=combine, shuffle=False))
        lazy = df.lazy().findrs.predict(m).collect(engine="streaming")
        assert lazy["y_predicted"].to_list() == m.predict(df).to_list() == ["r", "g", "b", "r", "g"]
        explained = df.findrs.explain(m, top=1)
        assert explained.columns[-3:] == ["fired_rules", "fired_texts", "fired_classes"]
        classes = m.rules["label"].to_list()
        assert all(len(ids) <= 1 for ids in explained["fired_rules"].to_list())
        assert explained["fired_classes"].to_list() == [[classes[i] for i in ids] for ids in explained["fired_rules"].to_list()]
        # Here every row is covered by its own class's rules (a decision list's default has none).
        default = None if m.combination.default is None else m.classes[m.combination.default]
        assert explained["fired_classes"].to_list() == [[] if p == default else [p] for p in m.predict(df).to_list()]
        text = str(m)
        assert text.splitlines()[0].endswith(f"{combine}: y in ['b', 'g', 'r']")
        for c in m.class_models:
            assert f"class {c.positive!r}" in text
        if combine != "one-vs-rest":
            assert f"else: class {m.classes[m.combination.default]!r}" in text.splitlines()
        # The ids shown are those of model.rules.
        shown = [line.split()[0] for line in text.splitlines() if line.startswith("  ") and line.split()[0].isdigit()]
        assert shown == [str(i) for i in m.rules["id"].to_list()]
        assert m.to_markdown().count("| id |") == len(m.class_models)
        assert m._repr_html_().count("<table>") == len(m.class_models)


def test_auto_picks_the_combination_with_the_most_held_out_rows_right() -> None:
    # AV on string features: a FIND-RS fit on a fold's rows (its own encoders) classifies the
    # held-out rows as the cross-validation's fit does (encoders of all rows), so the counts can
    # be recomputed through the public API.
    rng = np.random.default_rng(3)
    n = 150
    df = pl.DataFrame({
        "a": rng.choice(["p", "q", "r", "s"], n), "b": rng.choice(["u", "v", "w"], n), "c": rng.choice(["x", "y"], n),
    }).with_columns(
        y=pl.when(pl.col("a") == "p").then(pl.lit("A")).when(pl.col("b") == "u").then(pl.lit("B"))
        .when(pl.col("c") == "x").then(pl.lit("C")).otherwise(pl.lit("D"))
    )
    m = findrs.fit(df, "y", random_state=11, auto=False)
    table = m.combination_cv
    assert table is not None and table["folds"][0] == 3
    classes = np.searchsorted(np.array(m.classes), df["y"].to_numpy())
    folds = multiclass.stratified_folds(classes, 11)
    for combine, correct in zip(table["multiclass"], table["correct"]):
        right = 0
        for f in range(3):
            part, held = df.filter(pl.Series(folds != f)), df.filter(pl.Series(folds == f))
            fold_model = findrs.fit(part, "y", random_state=11, auto=False, settings=dict(multiclass=combine))
            right += int((fold_model.predict(held) == held["y"]).sum())
        assert right == correct, combine
    best = table.sort("correct", descending=True, maintain_order=True)["multiclass"][0]
    assert m.multiclass == best == table.filter("chosen")["multiclass"].item()
    # Deterministic, and kept by the model file.
    assert findrs.fit(df, "y", random_state=11, auto=False).to_json() == m.to_json()
    assert RuleSetModel.from_json(m.to_json()).combination_cv.equals(table)
    # A class of one row: no cross-validation, the first combination.
    tiny = pl.concat([df, pl.DataFrame({"a": ["s"], "b": ["w"], "c": ["y"], "y": ["E"]})])
    m = findrs.fit(tiny, "y", random_state=0, auto=False)
    assert m.combination_cv is None and m.multiclass == multiclass.COMBINATIONS[0]
    # Given combinations record no cross-validation.
    assert findrs.fit(df, "y", auto=False, settings=dict(multiclass="one-vs-rest")).combination_cv is None


def test_numeric_none_chooses_bins_or_intervals_by_the_settings_cv() -> None:
    # docs/semantics.md §10: on a multiclass target with auto=True, numeric=None adds the kind
    # to the first stage of the settings' cross-validation (same folds); numeric_cv holds each
    # kind's most held-out rows right, and the model is the explicit fit of the winning kind
    # (whose own cross-validation tries exactly the winner's candidates); a tie goes to bins.
    rng = np.random.default_rng(5)
    n = 240
    x, z = rng.normal(size=n), rng.normal(size=n)
    # Class edges at cuts no equal-width bin edge meets: intervals describe them exactly.
    y = np.where(x < -0.37, "lo", np.where(x < 0.41, "mid", "hi"))
    df = pl.DataFrame({"x": x, "z": z, "y": y})
    m = findrs.fit(df, "y", random_state=2)
    table = m.numeric_cv
    assert table is not None and table["folds"].to_list() == [3, 3]
    cv = m.cv_results.with_columns(right=(pl.col("cv_accuracy") * n).round(0).cast(pl.UInt32))
    assert table["correct"].to_list() == [cv.filter(pl.col("numeric") == k)["right"].max() for k in ("bins", "interval")]
    explicit = {k: findrs.fit(df, "y", random_state=2, settings=dict(numeric=k)) for k in ("bins", "interval")}
    counts = dict(zip(table["numeric"], table["correct"]))
    winner = "interval" if counts["interval"] > counts["bins"] else "bins"
    assert winner == "interval" and m.params["numeric"] == winner == table.filter("chosen")["numeric"].item()
    assert m.multiclass == explicit[winner].multiclass and m.combination_cv.equals(explicit[winner].combination_cv)
    assert m.predict(df).to_list() == explicit[winner].predict(df).to_list()
    assert m.rules["text"].to_list() == explicit[winner].rules["text"].to_list()
    assert cv.filter(pl.col("numeric") == winner).drop("chosen", "right").equals(explicit[winner].cv_results.drop("chosen"))
    assert f"numeric='interval' chosen by 3-fold cross-validation (held-out rows right: bins {counts['bins']}, " \
        f"intervals {counts['interval']}" in str(m)
    numeric_line = "chosen by 3-fold cross-validation (held-out rows right"  # not the size's note (§10.1)
    assert numeric_line not in str(explicit["interval"]) and numeric_line in m.to_markdown()
    # Kept by the model file, deterministic; a given combination tries only itself.
    assert RuleSetModel.from_json(m.to_json()).numeric_cv.equals(table)
    assert findrs.fit(df, "y", random_state=2).to_json() == m.to_json()
    assert findrs.fit(df, "y", random_state=2, method="bp", n_jobs=1, settings=dict(T=5)).to_json() == findrs.fit(
        df, "y", random_state=2, method="bp", n_jobs=2, settings=dict(T=5),
    ).to_json()
    ovr = findrs.fit(df, "y", random_state=2, settings=dict(multiclass="one-vs-rest"))
    assert ovr.combination_cv is None and ovr.numeric_cv is not None
    assert set(ovr.cv_results["multiclass"]) == {"one-vs-rest"}
    # A tie goes to the smaller model: 11 float values, each a bin of its own, classes cut
    # between them; both kinds are always right, bins with a rule per bin, intervals with fewer.
    x = np.repeat(np.arange(11.0), 9) + 0.5
    cut = pl.DataFrame({"x": x, "y": np.where(x < 3, "a", np.where(x < 7, "b", "c"))})
    tie = findrs.fit(cut, "y", random_state=0)
    assert tie.numeric_cv["correct"].to_list() == [99, 99] and tie.params["numeric"] == "interval"
    right = tie.cv_results.filter(pl.col("cv_accuracy") == 1)
    assert tie.cv_results.filter("chosen")["conditions"].item() == right["conditions"].min()
    assert right.filter(pl.col("numeric") == "bins")["conditions"].min() > right["conditions"].min()
    assert tie.encoders[0].kind == "interval"
    # The paper's settings, a given numeric and no binned column choose nothing.
    assert findrs.fit(df, "y", random_state=2, auto=False).numeric_cv is None
    assert findrs.fit(df, "y", random_state=2, auto=False).params["numeric"] == "bins"
    assert explicit["bins"].numeric_cv is None and explicit["interval"].numeric_cv is None
    assert findrs.fit(df.with_columns(pl.col("x").round(0).cast(pl.String)).drop("z"), "y", random_state=2).numeric_cv is None
    # A bad record in a file is refused.
    import json

    d = json.loads(m.to_json())
    d["training"]["numeric_cv"]["correct"] = [1]
    with pytest.raises(FindRSInputError, match="numeric_cv"):
        RuleSetModel.from_json(json.dumps(d))


def test_stratified_folds_deal_each_class_round_robin() -> None:
    classes = np.array([0] * 7 + [1] * 3 + [2] * 5)
    folds = multiclass.stratified_folds(classes, 5)
    assert folds is not None and sorted(set(folds.tolist())) == [0, 1, 2]
    for c in range(3):
        counts = np.bincount(folds[classes == c], minlength=3)
        assert counts.max() - counts.min() <= 1
    assert (multiclass.stratified_folds(classes, 5) == folds).all()
    assert multiclass.stratified_folds(np.array([0, 0, 1, 1, 2]), 0) is None
    assert multiclass.stratified_folds(np.array([0, 0, 1, 1, 2, 2]), 0).max() == 1  # 2 folds


def test_the_multiclass_script_keeps_the_rows_it_does_not_rerun(tmp_path: Path) -> None:
    # experiments/multiclass.py --datasets iris keeps car's rows of an earlier file (written
    # before the numeric column existed) and records the numeric each default fit chose.
    from experiments import multiclass as script

    raw = tmp_path / "raw"
    raw.mkdir()
    old = {k: [None] for k in script.RAW_COLUMNS if k != "numeric"}
    old.update(dataset=["car"], split=[0], method=["FIND-RS ff"], status=["ok"], accuracy=[0.97], n_rules=[34],
               n_conditions=[112], fit_seconds=[0.01], T=[1], note=[""])
    pl.DataFrame(old).write_csv(raw / "multiclass.csv")
    (raw / "multiclass_info.txt").write_text("python -m experiments.multiclass --out results/\n- Run earlier")
    argv = ["--out", str(tmp_path), "--datasets", "iris", "--splits", "1", "--T", "3", "--skip-baselines"]
    assert script.main(argv) == 0
    rows = pl.read_csv(raw / "multiclass.csv")
    assert rows.filter(pl.col("dataset") == "car")["accuracy"].to_list() == [0.97]
    iris = rows.filter(pl.col("dataset") == "iris")
    assert iris.height == 8 and set(iris["numeric"]) <= {"bins", "interval"}
    text = (tmp_path / "multiclass.md").read_text()
    assert "- Rows of car: kept from the earlier run (`python -m experiments.multiclass --out results/`): Run earlier" in text
    table = text.split("## Bins or intervals")[1].split("## Against")[0]
    assert "| `car` | – |" in table and "| `iris` | " in table and "/1 |" in table


def test_a_multiclass_target_named_like_a_pattern_is_fitted() -> None:
    # The generated-frame battery's case: the combination's cross-validation compared labels
    # through Series methods, which Polars runs on pl.col('^a.*$') (a pattern, no column): an
    # IndexError.
    import warnings as _warnings
    df = pl.DataFrame({"x": [0, 1, 2] * 4, "^a.*$": ["p", "q", "r"] * 4})
    with _warnings.catch_warnings():
        _warnings.simplefilter("ignore")
        m = findrs.fit(df, "^a.*$", random_state=0, auto=False)
    assert m.predict(df).to_list() == df.get_column("^a.*$").to_list()
