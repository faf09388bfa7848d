"""Numeric features as intervals (``numeric="interval"``, docs/semantics.md §11), through the
public API only.

- One FIND-RS run over interval features equals a plain Algorithm 1 written on the raw values
  (a rule is, per feature, the values' [min, max] box plus a null flag; AV or OH sets for the
  other columns), consistent on consistent data with tolerance 0.
- Every prediction path (eager ``predict``, lazy and streaming ``predict_expr``, the compiled
  ``to_expr``, DuckDB and SQLite SQL, a JSON round trip) agrees with ``predict`` row for row, on
  training values, values between and beyond them, the cuts themselves, NaN, null and
  infinities; and ``explain`` fires exactly the rules a plain reading of the stated semantics
  (the rule's interval ends as ``encoder.interval_bounds`` gives them, null passing only where
  the constraint says so) fires.
- The rules read as the issue asks (``2.31 <= x <= 5.07``), model files with interval features
  are checked on load, and numeric columns are read as a user means them (0/1 floats and
  integers with few values are categorical, an ID column draws a warning).
"""

from __future__ import annotations

import json
import math
import warnings
from typing import Any

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import findrs
from findrs import FindRSInputError, IdentifierWarning, RuleSetModel
from findrs.data.edges import cut_between

from test_sql import check_duckdb, check_sqlite

duckdb = pytest.importorskip("duckdb")
pytestmark = pytest.mark.filterwarnings("ignore::findrs.ContradictionWarning", "ignore::findrs.IdentifierWarning")

ENDS = ["tight", "midpoint", "open", "widened"]


# --------------------------------------------------------------------------- frames
@st.composite
def interval_frames(draw, consistent: bool = False, max_rows: int = 40) -> pl.DataFrame:
    """A frame of 1-4 features (floats with NaN and null, integers with many values, strings)
    and a Boolean target ``y`` with both classes; fit with ``bins=2`` so every numeric column
    with more than two values is an interval feature."""
    n_features = draw(st.integers(1, 4))
    n = draw(st.integers(4, max_rows))
    cols: dict[str, pl.Series] = {}
    for j in range(n_features):
        kind = draw(st.sampled_from(["float", "float", "int", "str"]))
        if kind == "float":
            pool: list[Any] = draw(st.lists(st.floats(-50, 50, allow_nan=False, width=32), min_size=1, max_size=8, unique=True))
            if draw(st.booleans()):
                pool.append(float("nan"))
            dtype: Any = pl.Float64
        elif kind == "int":
            pool = draw(st.lists(st.integers(-1000, 1000), min_size=1, max_size=8, unique=True))
            dtype = pl.Int64
        else:
            pool = draw(st.lists(st.sampled_from(["a", "b", "c", "d"]), min_size=1, max_size=3, unique=True))
            dtype = pl.String
        if draw(st.booleans()):
            pool.append(None)
        cols[f"f{j}"] = pl.Series(f"f{j}", draw(st.lists(st.sampled_from(pool), min_size=n, max_size=n)), dtype=dtype)
    labels = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    df = pl.DataFrame(list(cols.values()))
    if consistent:
        first: dict[tuple, bool] = {}
        labels = [first.setdefault(_key(r), y) for r, y in zip(df.rows(), labels)]
    assume(any(labels) and not all(labels))
    return df.with_columns(pl.Series("y", labels))


def _key(row: tuple) -> tuple:
    return tuple(None if isinstance(v, float) and math.isnan(v) else v for v in row)


def probe_frame(df: pl.DataFrame, model: RuleSetModel, seed: int) -> pl.DataFrame:
    """Rows for prediction: the training rows, then rows whose numeric values lie on the
    training values, between them, on the cuts, beyond both ends, NaN, null and infinite."""
    rng = np.random.default_rng(seed)
    n = max(df.height, 20)
    out = {}
    for enc in model.encoders:
        s = df.get_column(enc.name)
        if enc.kind == "interval":
            known = [float(v) for v in enc.values if v is not None]
            extra = list(known) + list(enc.cuts or ())
            extra += [a / 2 + b / 2 for a, b in zip(known, known[1:])]
            extra += [np.nextafter(v, math.inf) for v in known] + [np.nextafter(v, -math.inf) for v in known]
            extra += [min(known, default=0) - 1, max(known, default=0) + 1, None]
            if s.dtype.is_float():
                extra += [math.inf, -math.inf, math.nan]
                values = [extra[i] for i in rng.integers(0, len(extra), n)]
            else:
                values = [None if extra[i] is None else int(math.floor(extra[i])) for i in rng.integers(0, len(extra), n)]
            out[enc.name] = pl.Series(enc.name, values, dtype=s.dtype)
        else:
            pool = s.to_list() + ([None, "zz"] if s.dtype == pl.String else [None])
            out[enc.name] = pl.Series(enc.name, [pool[i] for i in rng.integers(0, len(pool), n)], dtype=s.dtype)
    probe = pl.DataFrame(out).with_columns(pl.Series("y", rng.random(n) < 0.5))
    return pl.concat([df.select(probe.columns), probe])


# --------------------------------------------------------------------------- the plain reading
def _passes(model: RuleSetModel, f: int, codes: tuple[int, ...], unseen: bool, x: Any) -> bool:
    """Does a constraint hold for the raw value ``x``, as docs/semantics.md §2 and §11 state it?"""
    enc = model.encoders[f]
    null = x is None or (isinstance(x, float) and math.isnan(x))
    if enc.kind == "interval":
        d = enc.domain_size
        if null:
            return d in codes
        known = [k for k in codes if k != d]
        if not known:
            return False
        lower, lower_closed, upper, upper_closed = enc.interval_bounds(known[0], known[-1])
        x = float(x)
        ok_low = lower is None or (x >= lower if lower_closed else x > lower)
        ok_high = upper is None or (x <= upper if upper_closed else x < upper)
        return ok_low and ok_high
    values = list(enc.values)
    if null:
        x = None
    if x in values:
        return values.index(x) in codes
    return unseen


def plain_fired(model: RuleSetModel, df: pl.DataFrame) -> list[list[int]]:
    v = model.vote
    rows = df.select(model.features).rows()
    return [
        [i for i in range(len(v.rules)) if all(_passes(model, c.feature, c.codes, c.unseen_passes, row[c.feature]) for c in v.rule(i))]
        for row in rows
    ]


def plain_why_not(model: RuleSetModel, df: pl.DataFrame) -> list[tuple[int | None, list[str] | None]]:
    """For a row predicted negative: the voting rule with the fewest failed constraints (at
    least one; ties: the lower id) and the texts of those it fails (docs/semantics.md §6)."""
    v = model.vote
    texts = model._constraint_texts()
    out = []
    for row, positive in zip(df.select(model.features).rows(), model.predict(df, labels=False).to_list()):
        if positive:
            out.append((None, None))
            continue
        best: tuple[int, int, list[int]] | None = None
        for i in range(len(v.rules)):
            failed = [j for j in v.rules[i] if not _passes(model, v.constraints[j].feature, v.constraints[j].codes,
                                                           v.constraints[j].unseen_passes, row[v.constraints[j].feature])]
            if failed and (best is None or len(failed) < best[0]):
                best = (len(failed), i, failed)
        out.append((None, []) if best is None else (best[1], [texts[j] for j in best[2]]))
    return out


def check_all_paths(model: RuleSetModel, df: pl.DataFrame, con) -> None:
    truth = model.predict(df, labels=False)
    explained = model.explain(df)
    assert explained["fired_rules"].to_list() == plain_fired(model, df)
    why = list(zip(explained["nearest_rule"].to_list(), explained["failed_conditions"].to_list()))
    assert why == plain_why_not(model, df)
    lazy = df.lazy().select(model.predict_expr(labels=False), model.decision_expr())
    streamed = lazy.collect(engine="streaming")
    assert streamed.to_series(0).to_list() == truth.to_list()
    assert streamed.to_series(1).to_list() == model.decision_function(df).to_list()
    assert df.select(model.to_expr()).to_series().to_list() == truth.to_list()
    # The compiled form divides in Polars: equal up to rounding (as tests/test_expressions.py).
    compiled = df.select(model.decision_expr(engine="compiled")).to_series().to_numpy()
    np.testing.assert_allclose(compiled, model.decision_function(df).to_numpy())
    again = RuleSetModel.from_json(model.to_json())
    assert again.predict(df, labels=False).to_list() == truth.to_list()
    assert again.rules.equals(model.rules)
    check_duckdb(con, model, df)
    check_sqlite(model, df)


@pytest.fixture(scope="module")
def con():
    c = duckdb.connect()
    c.execute("SET threads = 1")
    yield c
    c.close()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(df=interval_frames(), ends=st.sampled_from(ENDS), method=st.sampled_from(["find-rs", "bo", "bp"]), tau=st.integers(0, 2))
def test_every_path_agrees_with_predict_and_the_stated_semantics(con, df, ends, method, tau) -> None:
    model = findrs.fit(
        df, "y", method=method, random_state=3, auto=False,
        settings=dict(T=7, tolerance=tau, bins=2, numeric="interval", interval_ends=ends),
    )
    check_all_paths(model, probe_frame(df, model, 5), con)


# --------------------------------------------------------------------------- Algorithm 1
def plain_find_rs(df: pl.DataFrame, model: RuleSetModel, encoding: str, tau: int) -> list[list[tuple]]:
    """One FIND-RS run (positives in row order) and prune, on raw values: an interval feature's
    constraint is ``[lo, hi]`` of its rows' values plus a null flag, the others AV or OH value
    sets; canonical as the model reports rules (ends at the extreme training values open, the
    whole range free unless null occurs and is excluded)."""
    names = model.features
    kinds = [e.kind for e in model.encoders]
    rows = [tuple(None if isinstance(v, float) and math.isnan(v) else v for v in r) for r in df.select(names).rows()]
    y = df["y"].to_list()
    pos = [r for r, l in zip(rows, y) if l]
    neg = [r for r, l in zip(rows, y) if not l]
    domains = [sorted({r[f] for r in rows} - {None}, key=lambda v: (str(type(v)), v)) for f in range(len(names))]
    has_null = [any(r[f] is None for r in rows) for f in range(len(names))]
    ALL = "all"

    def most_specific(row):
        return [("iv", row[f], row[f], False) if kinds[f] == "interval" and row[f] is not None
                else ("iv", None, None, True) if kinds[f] == "interval"
                else {row[f]} for f in range(len(row))]

    def generalize(rule, row):
        out = []
        for f, c in enumerate(rule):
            x = row[f]
            if kinds[f] == "interval":
                _, lo, hi, null = c
                if x is None:
                    out.append(("iv", lo, hi, True))
                else:
                    out.append(("iv", x if lo is None else min(lo, x), x if hi is None else max(hi, x), null))
            elif c == ALL or x in c:
                out.append(c)
            else:
                out.append(ALL if encoding == "av" else c | {x})
        return out

    def covers(rule, row):
        for f, c in enumerate(rule):
            x = row[f]
            if kinds[f] == "interval":
                _, lo, hi, null = c
                if not ((x is None and null) or (x is not None and lo is not None and lo <= x <= hi)):
                    return False
            elif c != ALL and x not in c:
                return False
        return True

    rules, buckets = [], []
    for i, p in enumerate(pos):
        for k in range(len(rules)):
            cand = generalize(rules[k], p)
            if sum(covers(cand, n) for n in neg) <= tau:
                rules[k] = cand
                buckets[k].append(i)
                break
        else:
            rules.append(most_specific(p))
            buckets.append([i])
    kept: list[int] = []
    for k in range(len(rules) - 1, -1, -1):
        if not all(any(covers(rules[j], pos[i]) for j in kept) for i in buckets[k]):
            kept.append(k)
    out = []
    for k in sorted(kept):
        canon = []
        for f, c in enumerate(rules[k]):
            if kinds[f] == "interval":
                _, lo, hi, null = c
                if lo is None:
                    canon.append((f, None, None, True, "null only"))
                    continue
                lo_key = None if lo == domains[f][0] else lo
                hi_key = None if hi == domains[f][-1] else hi
                if lo_key is None and hi_key is None and (null or not has_null[f]):
                    continue
                canon.append((f, lo_key, hi_key, null, ""))
            elif c != ALL and not (len(c) == len(domains[f]) + has_null[f] and len(domains[f]) + has_null[f] > 1):
                canon.append((f, sorted(c, key=lambda v: (v is None, str(v)))))
        out.append(canon)
    return out


def model_rules(model: RuleSetModel) -> list[list[tuple]]:
    v = model.vote
    out = []
    for i in range(len(v.rules)):
        canon = []
        for c in v.rule(i):
            enc = model.encoders[c.feature]
            if enc.kind == "interval":
                d = enc.domain_size
                known = [k for k in c.codes if k != d]
                null = d in c.codes
                if not known:
                    canon.append((c.feature, None, None, True, "null only"))
                    continue
                lo, hi = known[0], known[-1]
                assert known == sorted({lo, hi}), "an interval is listed by its ends"
                canon.append((c.feature, None if lo == 0 else enc.values[lo], None if hi == d - 1 else enc.values[hi], null, ""))
            else:
                canon.append((c.feature, sorted((enc.values[k] for k in c.codes), key=lambda v: (v is None, str(v)))))
        out.append(canon)
    return out


@settings(max_examples=80, deadline=None)
@given(df=interval_frames(), encoding=st.sampled_from(["av", "oh"]), tau=st.integers(0, 2))
def test_find_rs_over_intervals_is_algorithm_1_on_the_values(df, encoding, tau) -> None:
    model = findrs.fit(df, "y", auto=False, settings=dict(encoding=encoding, tolerance=tau, shuffle=False, bins=2, numeric="interval", interval_ends="tight"))
    assert model_rules(model) == plain_find_rs(df, model, encoding, tau)
    # midpoint ends change where unseen values fall, never the rules.
    mid = findrs.fit(df, "y", auto=False, settings=dict(encoding=encoding, tolerance=tau, shuffle=False, bins=2, numeric="interval", interval_ends="midpoint"))
    assert model_rules(mid) == model_rules(model)


@settings(max_examples=60, deadline=None)
@given(df=interval_frames(consistent=True), ends=st.sampled_from(ENDS), seed=st.integers(0, 5))
def test_interval_models_are_consistent_with_the_training_data(df, ends, seed) -> None:
    """Tolerance 0, no contradictions: every training row is predicted as labelled, and every
    voting rule covers no training negative (docs/semantics.md §3, §11)."""
    for method in ("find-rs", "bo"):
        model = findrs.fit(df, "y", method=method, random_state=seed, auto=False, settings=dict(T=5, bins=2, numeric="interval", interval_ends=ends))
        assert model.contradictions == 0
        assert model.predict(df, labels=False).to_list() == df["y"].to_list()
        assert model.rules["train_negatives"].max() == 0


# --------------------------------------------------------------------------- null and unseen values
def test_null_semantics() -> None:
    """Null never seen in training fails every interval constraint (it has no place among the
    values) and passes only a feature the rule leaves free; null seen in training is a value of
    its own that a rule allows or not (``x is null``, ``or x is null``); NaN is null."""
    df = pl.DataFrame({"x": [1.0, 2.0, 3.0, 4.0, 10.0, 11.0], "y": [True, True, False, False, True, True]})
    m = findrs.fit(df, "y", auto=False, settings=dict(shuffle=False, numeric="interval", interval_ends="tight"))
    assert m.rules["text"].to_list() == ["x <= 2", "x >= 10"]
    probe = pl.DataFrame({"x": [None, math.nan, 2.0, 2.5, 9.5, 12.0, -5.0]})
    assert m.predict(probe, labels=False).to_list() == [False, False, True, False, False, True, True]
    mid = findrs.fit(df, "y", auto=False, settings=dict(shuffle=False, numeric="interval", interval_ends="midpoint"))
    assert mid.rules["text"].to_list() == ["x < 2.5", "x >= 7"]
    assert mid.predict(probe, labels=False).to_list() == [False, False, True, False, True, True, True]

    with_null = pl.DataFrame({"x": [1.0, None, 3.0, 4.0, 11.0, 2.0], "y": [True, True, False, False, True, True]})
    m = findrs.fit(with_null, "y", auto=False, settings=dict(shuffle=False, numeric="interval", interval_ends="tight"))
    assert m.rules["text"].to_list() == ["(x <= 2 or x is null)", "x >= 11"]
    nulls = pl.DataFrame({"x": [None, math.nan, 11.0, 10.0]})
    assert m.predict(nulls, labels=False).to_list() == [True, True, True, False]
    assert m.rules["constraints"][0].to_list() == [{"feature": "x", "values": ["(-inf, 2]", "null"]}]
    assert '("x" IS NULL OR isnan("x") OR "x" <= 2.0e0)' in m.to_sql()
    assert '"x" >= 11.0e0 AND NOT isnan("x")' in m.to_sql()

    # A null negative identical to a null positive: a contradiction, and `x is null` alone.
    both = pl.DataFrame({"x": [1.0, None, 3.0, None, 2.0], "y": [True, True, False, False, True]})
    m = findrs.fit(both, "y", auto=False, settings=dict(shuffle=False, numeric="interval", interval_ends="tight"))
    assert m.contradictions == 2
    assert m.rules["text"].to_list() == ["x <= 2", "x is null"]


@settings(max_examples=200, deadline=None)
@given(a=st.floats(-1e300, 1e300), b=st.floats(-1e300, 1e300))
def test_a_cut_lies_in_its_gap_and_is_short(a, b) -> None:
    assume(a < b)
    c = cut_between(a, b)
    assert a < c <= b
    mid, quarter = a / 2 + b / 2, b / 4 - a / 4
    if c != mid and c != b:
        assert mid - quarter <= c <= mid + quarter
        # No more significant digits than the midpoint needs.
        digits = next(p for p in range(1, 18) if float(f"{mid:.{p - 1}e}") == mid)
        assert float(f"{c:.{digits - 1}e}") == c


# --------------------------------------------------------------------------- text
def test_rules_read_as_intervals_on_banknote(data_dir) -> None:
    from experiments.uci import load_uci

    train, test = findrs.datasets.train_test_split(load_uci("banknote", data_dir), 0.5, 0)
    m = train.findrs.fit("class", random_state=0, auto=False, settings=dict(numeric="interval", interval_ends="tight"))
    first = m.rules["text"][0]
    assert " <= variance <= " in first and " and " in first, first
    assert "intervals (tight ends)" in str(m)
    for ends in ENDS:
        model = train.findrs.fit("class", random_state=0, auto=False, settings=dict(numeric="interval", interval_ends=ends))
        assert model.score(test) > 0.94
        assert model.n_rules < 15


# --------------------------------------------------------------------------- bins or intervals by CV
def _banknote_half(data_dir) -> pl.DataFrame:
    from experiments.uci import load_uci

    return findrs.datasets.train_test_split(load_uci("banknote", data_dir), 0.5, 1)[0]


def test_default_cross_validates_bins_against_intervals_and_records_it(data_dir) -> None:
    """docs/semantics.md §9.4: numeric=None runs the cross-validation once more on interval
    features, keeps the kind whose winner has the most held-out rows right, and records both."""
    train = _banknote_half(data_dir)
    model = findrs.fit(train, "class", random_state=1, method="find-rs", max_rules=None)  # the numeric axis alone (no vote, §9.5, no size, §8.1)
    assert model.params["auto"][-1] == "numeric"
    table = model.cv_results
    assert set(table["numeric"]) == {"bins", "interval"}
    assert set(table.filter(pl.col("numeric") == "bins")["bin_edges"]) == {"uniform", "supervised"}
    chosen = table.filter(pl.col("chosen"))
    assert chosen.height == 1 and chosen["numeric"][0] == model.params["numeric"]
    assert chosen["cv_accuracy"][0] == table["cv_accuracy"].max()
    # On this half intervals cross-validate better than either bin placement.
    assert model.params["numeric"] == "interval" and all(e.kind != "binned" for e in model.encoders)
    # It is the model a fit with numeric="interval" given gives, with the same candidates.
    fixed = findrs.fit(train, "class", random_state=1, method="find-rs", max_rules=None, settings=dict(numeric="interval"))
    assert fixed.rules.equals(model.rules) and fixed.encoders == model.encoders
    part = table.filter(pl.col("numeric") == "interval").drop("numeric", "bin_edges")
    assert part.drop("chosen").equals(fixed.cv_results.drop("chosen"))
    loaded = RuleSetModel.from_json(model.to_json())
    assert loaded.cv_results.equals(table) and loaded.params == model.params
    assert loaded.predict(train).equals(model.predict(train))
    # A file whose chosen kind disagrees with its params is refused.
    data = json.loads(model.to_json())
    data["cv"]["chosen"] = int(table.with_row_index().filter(pl.col("numeric") == "bins")["index"][0])
    with pytest.raises(FindRSInputError, match="numeric|chosen"):
        RuleSetModel.from_json(json.dumps(data))
    data = json.loads(model.to_json())
    data["cv"]["candidates"][0]["numeric"] = "splines"
    with pytest.raises(FindRSInputError, match="numeric"):
        RuleSetModel.from_json(json.dumps(data))


def test_bins_keep_a_tie_and_the_choice_does_not_depend_on_threads() -> None:
    rng = np.random.default_rng(3)
    n = 240
    x = rng.random(n)
    df = pl.DataFrame({"x": x, "z": rng.normal(size=n), "y": x > 0.5})
    one = findrs.fit(df, "y", random_state=4, n_jobs=1)
    two = findrs.fit(df, "y", random_state=4, n_jobs=2)
    assert one.params == two.params and one.rules.equals(two.rules) and one.cv_results.equals(two.cv_results)
    # x > 0.5 is a uniform bin edge: bins are exact, so intervals cannot win and the tie (if any)
    # goes to fewer conditions, then to bins.
    table = one.cv_results
    best = table.filter(pl.col("numeric") == "bins")["cv_accuracy"].max()
    assert best >= table.filter(pl.col("numeric") == "interval")["cv_accuracy"].max()
    assert one.params["numeric"] == "bins" or table.filter(pl.col("chosen"))["conditions"][0] < table.filter(
        (pl.col("numeric") == "bins") & (pl.col("cv_accuracy") == best))["conditions"].min()


def test_no_cv_or_no_binned_column_means_the_given_or_paper_numeric() -> None:
    df = pl.DataFrame({"x": [0.1, 0.7, 0.3, 0.9, 0.2, 0.8, 0.25, 0.75], "y": [False, True] * 4})
    paper = findrs.fit(df, "y", random_state=0, auto=False)
    assert paper.params["numeric"] == "bins" and paper.cv_results is None
    given_ = findrs.fit(df, "y", random_state=0, settings=dict(numeric="interval"))
    assert given_.params["numeric"] == "interval" and "numeric" not in given_.params["auto"]
    assert "numeric" not in given_.cv_results.columns
    monks = findrs.fit(findrs.datasets.monks(1), "class", random_state=0)  # no binned column
    assert "numeric" not in monks.params["auto"] and monks.params["numeric"] == "bins"
    multi = findrs.fit(pl.DataFrame({"x": [0.1, 0.5, 0.9] * 4, "y": ["a", "b", "c"] * 4}), "y", random_state=0)
    assert multi.params["numeric"] == "bins" and not multi.params["auto"]


# --------------------------------------------------------------------------- model files
def _interval_model() -> RuleSetModel:
    df = pl.DataFrame(
        {
            "x": [1.0, 2.0, 3.0, 4.0, None, 6.5],
            "n": [10, 20, 30, 40, 50, 60],
            "s": ["a", "b", "a", "b", "a", "b"],
            "y": [True, True, False, False, True, False],
        }
    )
    return findrs.fit(df, "y", auto=False, settings=dict(shuffle=False, bins=3, numeric="interval", interval_ends="midpoint"))


def test_json_keeps_interval_features_and_checks_them() -> None:
    m = _interval_model()
    doc = json.loads(m.to_json())
    x = doc["features"][0]
    assert x == {"name": "x", "dtype": "Float64", "family": "float", "kind": "interval",
                 "values": [1.0, 2.0, 3.0, 4.0, 6.5, None], "cuts": [1.5, 2.5, 3.5, 5.0]}
    assert doc["features"][1]["family"] == "integer" and doc["features"][1]["values"][:2] == [10, 20]
    assert doc["model"]["schema"]["kinds"] == ["interval", "interval", "av"]
    assert doc["params"]["numeric"] == "interval" and doc["params"]["interval_ends"] == "midpoint"
    assert RuleSetModel.from_json(json.dumps(doc)).rules.equals(m.rules)

    def refused(change, message: str) -> None:
        bad = json.loads(m.to_json())
        change(bad)
        with pytest.raises(FindRSInputError, match=message):
            RuleSetModel.from_json(json.dumps(bad))

    refused(lambda d: d["features"][0].update(cuts=[1.5, 2.5, 3.5, 7.0]), "each cut must lie")
    refused(lambda d: d["features"][0].update(cuts=[1.5, 2.5]), "cuts must be null or a list of 4")
    refused(lambda d: d["features"][0].update(values=[2.0, 1.0, 3.0, 4.0, 6.5, None]), "strictly ascending")
    refused(lambda d: d["features"][0].update(values=[1.0, 2.0, True, 4.0, 6.5, None]), "float values include True")
    refused(lambda d: d["features"][0].update(family="string"), "family is 'integer' or 'float'")
    refused(lambda d: d["features"][1].update(values=[10.5, 20, 30, 40, 50, 60]), "integer values include 10.5")
    refused(lambda d: d["features"][0].update(cuts=None), "needs the cuts")
    refused(lambda d: d["features"][0].update(values=[1.0, 2.0, 3.0, 4.0, 6.5]), "null values disagree")
    refused(lambda d: d["params"].update(numeric="bins"), "numeric 'bins'")
    refused(lambda d: d["features"][0].pop("cuts"), "fields")
    refused(lambda d: d["model"]["schema"].update(kinds=["interval", "interval", "oh"]), "schema has")


def test_a_file_without_the_new_parameters_reads_as_bins() -> None:
    m = findrs.fit(findrs.datasets.tic_tac_toe(), "class", "positive", auto=False, settings=dict(shuffle=False))
    doc = json.loads(m.to_json())
    del doc["params"]["numeric"], doc["params"]["interval_ends"]
    again = RuleSetModel.from_json(json.dumps(doc))
    assert again.params["numeric"] == "bins"
    assert again.rules.equals(m.rules)


# --------------------------------------------------------------------------- numeric columns as meant
def test_zero_one_floats_and_few_integers_are_categorical() -> None:
    df = pl.DataFrame(
        {
            "onehot": [0.0, 1.0, 1.0, 0.0, None, 1.0, 0.0, 1.0],
            "level": [1, 2, 3, 1, 2, 3, 1, 2],
            "y": [False, True, True, False, True, True, False, True],
        }
    )
    for numeric in ("bins", "interval"):
        m = findrs.fit(df, "y", auto=False, settings=dict(shuffle=False, numeric=numeric))
        kinds = {e.name: (e.kind, e.family, e.values) for e in m.encoders}
        assert kinds == {"onehot": ("categorical", "float", (0.0, 1.0, None)), "level": ("categorical", "integer", (1, 2, 3))}
        assert m.rules["text"].to_list() == ["onehot = 1", "onehot = null and level = 2"]
        nan = pl.DataFrame({"onehot": [1.0, math.nan, 0.5, 0.0], "level": [2, 2, 2, 2]})
        null = pl.DataFrame({"onehot": [1.0, None, 0.5, 0.0], "level": [2, 2, 2, 2]})
        assert m.predict(nan, labels=False).to_list() == m.predict(null, labels=False).to_list() == [True, True, False, False]
        # An integer prediction column for a 0/1 float feature is read as numbers.
        ints = pl.DataFrame({"onehot": [1, 0], "level": [1, 1]})
        assert m.predict(ints, labels=False).to_list() == [True, False]


def test_an_identifier_column_draws_a_warning_naming_it() -> None:
    df = pl.DataFrame({"id": list(range(100, 140)), "code": [f"c{i}" for i in range(40)], "g": ["a", "b"] * 20,
                       "w": np.linspace(0, 1, 40), "y": [True, False] * 20})
    with pytest.warns(IdentifierWarning) as caught:
        findrs.fit(df, "y", features=["id", "code", "g", "w"], auto=False, settings=dict(shuffle=False))
    named = sorted(str(w.message).split("'")[1] for w in caught)
    assert named == ["code", "id"]  # not the float measurement, not the repeated strings
    with warnings.catch_warnings():
        warnings.simplefilter("error", IdentifierWarning)
        findrs.fit(df.head(10), "y", features=["id", "g"], auto=False, settings=dict(shuffle=False))  # too few rows to tell


def test_interval_input_errors() -> None:
    df = pl.DataFrame({"x": [1.0, math.inf, 3.0, 4.0], "y": [True, False, True, False]})
    with pytest.raises(FindRSInputError, match="'x' holds an infinity"):
        findrs.fit(df, "y", auto=False, settings=dict(numeric="interval"))
    findrs.fit(df, "y", auto=False, settings=dict(numeric="bins"))  # infinities fall into the end bins
    with pytest.raises(FindRSInputError, match="numeric must be one of"):
        findrs.fit(df, "y", auto=False, settings=dict(numeric="intervals"))
    with pytest.raises(FindRSInputError, match="interval_ends must be one of"):
        findrs.fit(df, "y", auto=False, settings=dict(interval_ends="wide"))
    # An all-null float column is an interval feature with null as its only value.
    nulls = pl.DataFrame({"x": [None, None, None], "z": [1.5, 2.5, 3.5], "y": [True, False, True]}, schema_overrides={"x": pl.Float64})
    m = findrs.fit(nulls, "y", auto=False, settings=dict(numeric="interval", shuffle=False))
    assert m.encoders[0].kind == "interval" and m.encoders[0].domain_size == 0
    assert m.predict(nulls, labels=False).to_list() == [True, False, True]


def test_sklearn_and_cli_take_the_parameters(tmp_path) -> None:
    from findrs.cli import main
    from findrs.sklearn import FindRSClassifier

    X = np.array([[1.0, 5.0], [2.0, 4.0], [3.0, 1.0], [4.0, 0.5], [5.0, 3.0], [6.0, 2.0]])
    y = np.array([1, 1, 0, 0, 1, 0])
    clf = FindRSClassifier(method="find-rs", random_state=0, auto=False, settings=dict(numeric="interval", interval_ends="tight")).fit(X, y)
    assert clf.model_.params["numeric"] == "interval" and clf.score(X, y) == 1.0
    assert all(e.kind == "interval" for e in clf.model_.encoders)
    path = tmp_path / "d.csv"
    pl.DataFrame({"a": X[:, 0], "b": X[:, 1], "y": y}).write_csv(path)
    out = tmp_path / "m.json"
    assert main(["fit", str(path), "--target", "y", "--numeric", "interval", "--interval-ends", "open", "-o", str(out)]) == 0
    assert RuleSetModel.from_json(out).params["interval_ends"] == "open"


def test_the_measurement_script_runs_at_smoke_size(tmp_path, data_dir) -> None:
    from experiments import intervals

    out = tmp_path / "intervals.md"
    argv = ["--data-dir", str(data_dir), "--out", str(out), "--datasets", "banknote", "--splits", "1", "--methods", "find-rs"]
    assert intervals.main(argv) == 0
    text = out.read_text()
    for row in ("findrs default", "findrs default, bins", "findrs default, interval", "FIND-RS default",
                "FIND-RS default, interval", "FIND-RS bins", "FIND-RS interval-open", "LR one-hot bins", "CART raw",
                "RIPPER raw"):
        assert f"| {row} | 0.9" in text, row
    raw = pl.read_csv(out.with_suffix(".raw.csv"))
    assert raw.height == 19 and set(raw["dataset"]) == {"banknote"}
    # The bagged vote (docs/semantics.md §12): its three rows, each with its distinct rules.
    for row in ("findrs bagged", "findrs bagged, bins", "findrs bagged, interval"):
        assert f"| {row} | 0.9" in text, row
        assert raw.filter(pl.col("model") == row)["rules"][0] >= 1
    assert "at least LR's on " in text and "the other learners of axis-aligned rules: CART raw 0.9" in text
    assert "**banknote: holds** under " in text or "**banknote: does not hold** under any row above." in text
    assert "- banknote, not a fit findrs makes today: `findrs default` with bins or intervals chosen after the vote" in text
    assert raw.filter(pl.col("model") == "findrs default")["cv_accuracy"][0] > 0.5
    chosen = dict(raw.select("model", "chosen").iter_rows())
    assert chosen["FIND-RS default"] in ("bins", "interval") and chosen["findrs default"] in ("bins", "interval")
    assert chosen["FIND-RS default, interval"] is None  # forced, not chosen
    methods = dict(raw.select("model", "chosen_method").iter_rows())
    assert methods["findrs default"] in ("find-rs", "bp") and methods["FIND-RS default"] is None
    assert "Default fits (`numeric` chosen by CV on the training half): intervals in " in text
    assert "`findrs default` (`method=None`): the BP vote (T = 20, docs/semantics.md §9.5) won the CV in " in text
    curves = tmp_path / "curves.md"
    assert intervals.main([*argv[:2], "--out", str(curves), "--datasets", "banknote", "--splits", "1", "--curves"]) == 0
    text = curves.read_text()
    assert "## banknote" in text and text.count("| paper, ") == 2 and "| default (bins or intervals by CV) | 0." in text
    wine = tmp_path / "wine.md"
    assert intervals.main([*argv[:2], "--out", str(wine), "--splits", "1", "--wine-errors"]) == 0
    text = wine.read_text()
    first = text.split("| model | errors, class 1 |")[1].split("\n\n")[0]
    rows = [line for line in first.splitlines() if line.startswith("| ")]
    assert len(rows) == 10 and all(float(r.split(" | ")[5]) > 0.7 for r in rows)
    gap = text.split("## How large the gap is")[1].split("\n\n")[2].splitlines()
    assert len(gap) == 3 and gap[2].startswith("| 0 | 89 | ")  # header, rule, split 0
    assert "Nadeau and Bengio" in text and text.count("| 1. bins or intervals by nested CV") == 1
    assert "| 2. the vote over intervals" in text


def test_huge_integers_round_trip() -> None:
    """Integers beyond 2^53 are compared as doubles, as every interval value is; the model
    writes them as floats and loads back."""
    big = 2**60
    df = pl.DataFrame({"n": [big, big + 4096, big + 8192, 1, 2, 3] * 4, "y": [True, True, False, False, True, False] * 4})
    m = findrs.fit(df, "y", auto=False, settings=dict(shuffle=False, numeric="interval", bins=2))
    assert m.encoders[0].kind == "interval" and m.encoders[0].family == "float"
    again = RuleSetModel.from_json(m.to_json())
    assert again.predict(df, labels=False).to_list() == m.predict(df, labels=False).to_list()
