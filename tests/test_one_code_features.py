"""Features of one training code (docs/semantics.md §2.1): with automatic settings or bin edges
other than equal-width, no rule of the final model constrains a feature whose training column
encodes to a single non-null code with no null (a constant column, a numeric column with no
supervised cut). The model is the one the fit made before, minus those constraints: the
cross-validation, settings, weights and training counts are the same; every row holding a
training value there is predicted as before, in every form (eager, plugin, compiled expression,
SQL, model file); a null or a value never seen there now passes. The paper's algorithm keeps the
constraint (§2), and model files written before load and predict as they did."""

from __future__ import annotations

import json

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import findrs
from findrs.errors import ContradictionWarning
from findrs.models.exceptions import ExceptionsModel
from findrs.models.model import RuleSetModel, one_code_features

from test_expressions import _all_forms_agree
from test_sql import check_sqlite

pytestmark = pytest.mark.filterwarnings("ignore", category=ContradictionWarning)

FREE = ("k", "z")
"""The one-code columns of :func:`frame`: a constant string and a constant float."""


def frame(n: int = 240, seed: int = 0, classes: int = 2) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 4, n)
    x = np.round(rng.normal(size=n), 2)
    w = rng.integers(0, 3, n)
    if classes == 2:
        y = ((x > 0.3) & (a != 0)) | ((a == 2) & (w == 1))
        y = y ^ (rng.uniform(size=n) < 0.05)
    else:
        y = np.where(x > 0.5, "hi", np.where(a == 2, "mid", "lo"))
    return pl.DataFrame({"x": x, "a": [f"v{i}" for i in a], "k": ["const"] * n, "z": [2.5] * n, "w": w,
                         "y": y})


def holes(df: pl.DataFrame) -> pl.DataFrame:
    """``df`` with a null or a value never seen in the one-code columns of every other row."""
    i = pl.int_range(pl.len())
    return df.with_columns(
        pl.when(i % 4 == 1).then(None).when(i % 4 == 3).then(pl.lit("other")).otherwise(pl.col("k")).alias("k"),
        pl.when(i % 4 == 1).then(pl.lit(-7.0)).when(i % 2 == 0).then(pl.col("z")).otherwise(None).alias("z"),
    )


def _unfreed(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fit as it was before §2.1: the final model keeps its one-code constraints."""
    monkeypatch.setattr(RuleSetModel, "_freed", lambda self, settings=None: self)
    monkeypatch.setattr(ExceptionsModel, "_freed", lambda self: self)


def fit_both(monkeypatch: pytest.MonkeyPatch, df: pl.DataFrame, **kw) -> tuple:
    new = findrs.fit(df, "y", **findrs.settings.fit_keywords(dict(**kw)))
    with monkeypatch.context() as m:
        _unfreed(m)
        old = findrs.fit(df, "y", **findrs.settings.fit_keywords(dict(**kw)))
    return old, new


def rule_sets(model) -> list[RuleSetModel]:
    if isinstance(model, ExceptionsModel):
        return [model.rules_model, model.exception_model]
    if model.classes is not None:
        return list(model.class_models)
    return [model]


def _texts(m: RuleSetModel) -> list[str]:
    if m.method == "bp":
        m = m.with_n_rules(m.n_rules_found)  # every rule found, voting or not
    return m.rules["text"].to_list()


def without(text: str, names: tuple[str, ...]) -> str:
    kept = [c for c in text.split(" and ") if not any(c.startswith(f"{n} ") for n in names)]
    return " and ".join(kept) or "TRUE"


def check_only_the_constraints_went(old, new, df: pl.DataFrame) -> None:
    """``new`` is ``old`` without its constraints on :data:`FREE`, decided the same on every
    row holding training values there, and every null or unseen value there passes."""
    assert type(new) is type(old)
    assert new.params == old.params
    assert (old.cv_results is None) == (new.cv_results is None)
    if old.cv_results is not None:
        assert new.cv_results.equals(old.cv_results)
    free = [new.encoders[i].name for i in one_code_features(new.encoders)]
    assert set(FREE) <= set(free)
    for o, n in zip(rule_sets(old), rule_sets(new)):
        assert n.rules.drop("text", "constraints").equals(o.rules.drop("text", "constraints"))
        assert _texts(n) == [without(t, tuple(free)) for t in _texts(o)]
        assert not any(c.startswith(f"{f} ") for t in _texts(n) for c in t.split(" and ") for f in free)
    # rows with training values there: as before, in every form
    assert new.predict(df).equals(old.predict(df))
    # a null or an unseen value there passes: the row is decided as with the training values
    odd = holes(df)
    assert new.predict(odd).equals(new.predict(df))
    for m, rows in ((new, odd), (new, df), (old, odd)):
        truth = m.predict(rows)
        assert rows.select(m.predict_expr()).to_series().to_list() == truth.to_list()
        back = type(m).from_json(m.to_json())
        assert back.to_json() == m.to_json()
        assert back.predict(rows).equals(truth)
        if isinstance(m, RuleSetModel) and m.classes is None:
            _all_forms_agree(m, rows)
            check_sqlite(m, rows)
        else:
            assert rows.select(m.to_expr()).to_series().to_list() == truth.to_list()


@pytest.mark.parametrize(
    "kw",
    [
        # automatic settings, FIND-RS, unsimplified (the Adult default's choice)
        dict(method="find-rs", simplify=False, exceptions=False, bin_edges="supervised", numeric="bins"),
        dict(method="find-rs", simplify=False, exceptions=False, encoding="oh", numeric="bins"),
        # a BP vote with automatic settings (every rule found, voting or not)
        dict(method="bp", T=5, simplify=False, numeric="bins"),
        # rules with exceptions: both rule sets
        dict(exceptions=True, simplify=False, numeric="bins"),
        # the default's choices, whatever they are
        dict(simplify=False),
        dict(),
        # the paper's settings with supervised bin edges (§1.1's promise)
        dict(auto=False, bin_edges="supervised"),
        dict(auto=False, bin_edges="quantile", method="bo", T=3),
    ],
    ids=["findrs-av", "findrs-oh", "bp", "exceptions", "default-unsimplified", "default", "paper-supervised",
         "paper-quantile-bo"],
)
def test_one_code_constraints_go_and_nothing_else_changes(monkeypatch, kw) -> None:
    df = frame()
    old, new = fit_both(monkeypatch, df, random_state=0, **kw)
    if kw.get("exceptions") is True:
        assert isinstance(new, ExceptionsModel)
    check_only_the_constraints_went(old, new, df)
    for m in rule_sets(old):
        if m.params["simplify"] is False:  # unsimplified: the old rules carried the constraints
            assert all(" and k = const" in t or t.startswith("k = const") for t in _texts(m))


def test_the_vote_keeps_its_curve_and_every_k(monkeypatch) -> None:
    df = frame(seed=3)
    old, new = fit_both(monkeypatch, df, method="bp", T=7, random_state=1, simplify=False, numeric="bins")
    assert new.params["auto"] and new.n_rules_found == old.n_rules_found
    for k in range(1, new.n_rules_found + 1):
        assert new.with_n_rules(k).predict(df).equals(old.with_n_rules(k).predict(df))
    assert new.pruning_curve(df).equals(old.pruning_curve(df))


@pytest.mark.parametrize("kw", [dict(bin_edges="supervised"), dict(bin_edges="supervised", method="bo", T=3)])
def test_multiclass(monkeypatch, kw) -> None:
    df = frame(classes=3)
    old, new = fit_both(monkeypatch, df, random_state=0, numeric="bins", **kw)
    assert new.classes is not None
    check_only_the_constraints_went(old, new, df)


def test_the_papers_algorithm_keeps_them() -> None:
    """auto=False with equal-width bins is the paper's algorithm (docs/semantics.md §2): a
    constant column stays constrained, so a null there fails every rule; a multiclass model with
    equal-width bins too, with the paper's settings or with its own automatic ones (§10; without
    simplification, which may drop the constraint)."""
    df = frame()
    for model in (findrs.fit(df, "y", random_state=0, auto=False),
                  findrs.fit(frame(classes=3), "y", random_state=0, auto=False),
                  findrs.fit(frame(classes=3), "y", random_state=0, settings=dict(numeric="bins", simplify=False))):
        for m in rule_sets(model):
            assert all("k = const" in t for t in _texts(m))
    m = findrs.fit(df, "y", random_state=0, auto=False)
    assert not holes(df).filter(pl.col("k").is_null()).pipe(m.predict, labels=False).any()


def test_the_cross_validation_is_unchanged(monkeypatch) -> None:
    """The choice is made before the constraints go: the same record, settings and cuts."""
    df = frame(seed=5)
    old, new = fit_both(monkeypatch, df, random_state=2, simplify=False)
    assert new.cv_results.equals(old.cv_results)
    assert new.params == old.params
    assert [e.to_dict() for e in new.encoders] == [e.to_dict() for e in old.encoders]


def test_any_thread_count_gives_the_same_model() -> None:
    df = frame(seed=1)
    texts = {findrs.fit(df, "y", random_state=0, method="bp", n_jobs=j, settings=dict(simplify=False, T=5)).to_json()
             for j in (1, 2, 3)}
    assert len(texts) == 1


def test_a_file_written_before_loads_and_predicts_as_before(monkeypatch) -> None:
    """A model fitted before §2.1 (its rules constrain the constant column) is read as it is:
    loading frees nothing, so a null there still fails every rule, as it did."""
    df = frame()
    with monkeypatch.context() as m:
        _unfreed(m)
        old = findrs.fit(df, "y", random_state=0, method="find-rs", settings=dict(simplify=False, exceptions=False))
    text = old.to_json()
    back = findrs.RuleSetModel.from_json(text)
    assert back.to_json() == text
    assert back.rules["text"].to_list() == old.rules["text"].to_list()
    odd = holes(df)
    assert back.predict(odd).equals(old.predict(odd))
    nulls = odd.filter(pl.col("k").is_null())
    assert not back.predict(nulls, labels=False).any()  # no rule holds: the rules' label is not predicted
    # the loaded model is a final model: a round trip keeps it byte for byte
    assert json.loads(findrs.RuleSetModel.from_json(back.to_json()).to_json()) == json.loads(text)


def test_a_cut_less_numeric_column_is_free() -> None:
    """The Adult case: a numeric column without nulls whose supervised cuts are all rejected
    is one bin, and no rule reads ``... is not null`` on it."""
    rng = np.random.default_rng(4)
    n = 400
    x = rng.normal(size=n)
    df = pl.DataFrame({"x": x, "noise": rng.uniform(size=n) * 1000, "y": x > 0.2})
    model = findrs.fit(
        df, "y", random_state=0, method="find-rs",
        settings=dict(simplify=False, bin_edges="supervised", numeric="bins", exceptions=False),
    )
    enc = model.encoders[1]
    assert (enc.kind, enc.domain_size, enc.has_null) == ("binned", 1, False)
    assert not any("noise" in t for t in model.rules["text"].to_list())
    with_null = df.with_columns(pl.lit(None, dtype=pl.Float64).alias("noise"))
    assert model.predict(with_null).equals(model.predict(df))


def test_interval_features_of_one_value_were_free_already(monkeypatch) -> None:
    """numeric="interval": a column of one value without null is free in every rule anyway
    (the whole range, §11), so nothing changes there; the constant string still goes."""
    df = frame()
    old, new = fit_both(monkeypatch, df, random_state=0, numeric="interval", simplify=False, exceptions=False,
                        method="find-rs")
    assert new.encoders[3].kind == "interval"
    assert not any(c.startswith("z ") for t in _texts(old) for c in t.split(" and "))
    check_only_the_constraints_went(old, new, df)


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(30, 120), simplify=st.booleans(),
       encoding=st.sampled_from(["av", "oh"]))
def test_random_frames(seed: int, n: int, simplify: bool, encoding: str) -> None:
    """On random frames (the labels from the other columns or random): the final model never
    constrains a one-code column, and predicts as its constrained twin on rows holding the
    training values (the twin is the same rules with the constraint put back: every such row
    satisfies it)."""
    df = frame(n=n, seed=seed)
    if seed % 3 == 0:
        df = df.with_columns(pl.Series("y", np.random.default_rng(seed).uniform(size=n) < 0.4))
    if df["y"].n_unique() < 2 or min(df["y"].sum(), n - df["y"].sum()) < 2:
        return
    model = findrs.fit(
        df, "y", random_state=seed,
        settings=dict(encoding=encoding, simplify=simplify, numeric="bins", bin_edges="supervised", exceptions=False),
    )
    for m in rule_sets(model):
        assert not any(c.startswith(("k ", "z ")) for t in _texts(m) for c in t.split(" and "))
    odd = holes(df)
    assert model.predict(odd).equals(model.predict(df))
    _all_forms_agree(model, odd)
    check_sqlite(model, odd)


def test_bo_bp_pair_is_two_separate_fits() -> None:
    """method="bo+bp" (§5.1) frees both models as separate fits do, and each equals its
    separate fit byte for byte."""
    df = frame(seed=2)
    kw = dict(random_state=0, T=3, auto=False, bin_edges="supervised")
    bo, bp = findrs.fit(df, "y", **findrs.settings.fit_keywords(dict(method="bo+bp", **kw)))
    for pair, method in ((bo, "bo"), (bp, "bp")):
        alone = findrs.fit(df, "y", **findrs.settings.fit_keywords(dict(method=method, **kw)))
        assert pair.to_json() == alone.to_json()
        assert not any(c.startswith(("k ", "z ")) for t in _texts(pair) for c in t.split(" and "))
