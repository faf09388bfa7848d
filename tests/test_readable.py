"""Readable output means exactly what the model computes (docs/semantics.md §1, §2, §6).

- The rule text (``constraint_text(..., exact=True)``, and the rounded default up to its numbers),
  read with the plain meaning of ``=``, ``in``, ``not in``, ``<``, ``>=`` and ``is unseen``, covers
  exactly the rows the plugin says each voting rule covers, on frames with unseen values and nulls.
- ``print(model)``, ``to_markdown()`` and the notebook view show the rules they say, hide the
  number of rules they say they hide, and escape what they print.
- ``explain``'s nearest rule and failed conditions are, for every row predicted negative, the
  voting rule with the fewest failed conditions (the heavier on a tie) and exactly the conditions
  of it the row fails, recomputed here from the model's view; its strength is a 0-1 reading of the
  decision value, above 1/2 exactly where the prediction is positive.
- Integer columns get whole-number bin edges that bin every integer as the paper's nudged edges.
"""

from __future__ import annotations

import math
import re
from typing import Any

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import findrs
from findrs import RuleSetModel
from findrs.datasets import monks, tic_tac_toe, train_test_split
from findrs.data.encode import FeatureEncoder
from findrs.data.edges import nudged_threshold, whole_edge
from findrs.errors import FindRSInputError
from findrs.export.text import constraint_text
from findrs.export.view import Constraint
from strategies import codes_of, frames, perturbed

pytestmark = pytest.mark.filterwarnings("ignore::findrs.ContradictionWarning")

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _fit(df: pl.DataFrame, method: str, encoding: str, tolerance: int, seed: int, **kw: Any) -> RuleSetModel:
    extra = {} if method == "find-rs" else {"T": 5, "n_rules": None if method == "bp" else "auto"}
    return findrs.fit(df, "y", **findrs.settings.fit_keywords(dict(method=method, random_state=seed, **extra, **kw, auto=False, settings=dict(encoding=encoding, tolerance=tolerance))))


# Simplified rules and rule budgets (docs/semantics.md §8) print and explain by the same rules.
SHAPES = st.sampled_from([{}, {"simplify": True}, {"max_rules": 2}, {"simplify": True, "max_rules": 1}])


# --------------------------------------------------------------------------- reading the text
def _is_null(v: Any) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v))


def _label(enc: FeatureEncoder, v: Any) -> str | None:
    """The label a categorical value reads as, ``None`` for a value not seen in training."""
    if _is_null(v):
        return "null" if enc.has_null else None
    for k, w in enumerate(enc.values):
        if w is not None and type(w) is type(v) and w == v:
            return enc.label(k)
    return None


def _items(body: str) -> list[str]:
    """The items of ``{a, [1, 2), null}`` (commas inside brackets kept)."""
    out, depth, cur = [], 0, ""
    for ch in body:
        if ch in "[(":
            depth += 1
        elif ch in ")]":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    return out + [cur.strip()]


def _in_interval(item: str, x: float) -> bool:
    m = re.fullmatch(r"([\[(])(\S+), (\S+)\)", item)
    assert m, item
    lo, hi = float(m.group(2)), float(m.group(3))
    return (lo == -math.inf or x >= lo) and x < hi


def holds(text: str, enc: FeatureEncoder, v: Any) -> bool:
    """``text`` (one constraint's text on ``enc``) read on the raw value ``v``."""
    n = re.escape(enc.name)
    null = _is_null(v)
    if text.startswith("(") and text.endswith(")") and " or " in text:
        return any(holds(p, enc, v) for p in text[1:-1].split(" or "))
    if text == f"{enc.name} is unseen":
        return _label(enc, v) is None
    if text in (f"{enc.name} is null", f"{enc.name} = null"):
        return null
    if text == f"{enc.name} is not null":
        return not null
    if m := re.fullmatch(rf"{n} not in (.*)", text):
        body = m.group(1)
        items = _items(body[1:-1]) if body.startswith("{") else [body]
        for item in items:
            if item == "null" and null:
                return False
            if item[0] in "[(" and not null and _in_interval(item, float(v)):
                return False
            if item[0] not in "[(" and item != "null" and _label(enc, v) == item:
                return False
        return True
    if m := re.fullmatch(rf"{n} in \{{(.*)\}}", text):
        return _label(enc, v) in _items(m.group(1))
    if m := re.fullmatch(rf"{n} < (\S+)", text):
        return not null and float(v) < float(m.group(1))
    if m := re.fullmatch(rf"{n} >= (\S+)", text):
        return not null and float(v) >= float(m.group(1))
    if m := re.fullmatch(rf"(\S+) <= {n} < (\S+)", text):
        return not null and float(m.group(1)) <= float(v) < float(m.group(2))
    if m := re.fullmatch(rf"{n} = (.*)", text):
        return _label(enc, v) == m.group(1)
    raise AssertionError(f"unreadable constraint text {text!r}")


def _covered_by_text(model: RuleSetModel, frame: pl.DataFrame) -> list[set[int]]:
    """Per row, the voting rules whose exact text holds on it."""
    v = model.vote
    rows = frame.select(model.features).rows()
    texts = [[(c.feature, constraint_text(model.encoders[c.feature], c, exact=True)) for c in v.rule(i)] for i in range(len(v.rules))]
    return [
        {i for i, rule in enumerate(texts) if all(holds(t, model.encoders[f], row[f]) for f, t in rule)} for row in rows
    ]


_NUMBER = re.compile(r"-?(inf|\d[\d.e+-]*)")


# docs/semantics.md §2 "Readable text": the exact text is the constraint; the rounded one differs
# only in its numbers; a rule's text is its conditions joined by `and`.
@SETTINGS
@given(
    df=frames(allow_float=True, other_dtypes=True, max_rows=50),
    method=st.sampled_from(["find-rs", "bo", "bp"]),
    encoding=st.sampled_from(["av", "oh"]),
    tolerance=st.integers(0, 2),
    seed=st.integers(0, 2**32),
    shape=SHAPES,
)
def test_rule_text_covers_exactly_the_rows_the_rule_covers(df, method, encoding, tolerance, seed, shape) -> None:
    model = _fit(df, method, encoding, tolerance, seed, **shape)
    test = pl.concat([df, perturbed(df, seed % 1000)])
    fired = model.explain(test)["fired_rules"].to_list()
    assert _covered_by_text(model, test) == [set(f) for f in fired]
    v = model.vote
    texts = model.rules["text"].to_list()
    for i in range(len(v.rules)):
        rounded = [constraint_text(model.encoders[c.feature], c) for c in v.rule(i)]
        exact = [constraint_text(model.encoders[c.feature], c, exact=True) for c in v.rule(i)]
        assert texts[i] == (" and ".join(rounded) if rounded else "TRUE")
        assert [_NUMBER.sub("#", t) for t in rounded] == [_NUMBER.sub("#", t) for t in exact]
        # No `or x is null` for a column that held no null in training.
        for c, t in zip(v.rule(i), rounded):
            enc = model.encoders[c.feature]
            if not enc.has_null:
                assert f"{enc.name} is null" not in t and f"{enc.name} = null" not in t, t


# docs/semantics.md §2: an OH set reads as the shorter of `in` and `not in`, same meaning.
def test_oh_set_reads_as_the_shorter_form() -> None:
    enc = FeatureEncoder.fit(pl.Series("odor", list("abcdefghijk")), bins=20)
    few = constraint_text(enc, Constraint(0, (0, 1), True))
    many = constraint_text(enc, Constraint(0, tuple(range(9)), True))
    assert few == "(odor in {a, b} or odor is unseen)"  # shorter than `not in` 9 values
    assert many == "odor not in {j, k}"
    assert constraint_text(enc, Constraint(0, tuple(range(4)), True)) == "odor not in {e, f, g, h, i, j, k}"
    assert constraint_text(enc, Constraint(0, (0, 1), False)) == "odor in {a, b}"
    assert constraint_text(enc, Constraint(0, (3,), False)) == "odor = d"
    with_null = FeatureEncoder.fit(pl.Series("a", ["p", "q", "r", None]), bins=10)
    assert constraint_text(with_null, Constraint(0, (0, 1, 2), True)) == "a is not null"
    assert constraint_text(with_null, Constraint(0, (0, 3), True)) == "a not in {q, r}"


# docs/semantics.md §2: adjacent bins read as one interval; empty bins merge when unseen values
# pass them; `not in` when that is needed (no null in training) or shorter.
def test_binned_text_merges_adjacent_bins() -> None:
    x = pl.Series("x", [0.0, 1.0, 2.0, 3.0, 4.0, 7.0, 8.0, 9.0, 10.0])  # bins 5, 6 empty
    enc = FeatureEncoder.fit(x, bins=10)
    # More bins than values: the empty bins 5 and 6 are one bin (encode.occupied_bins).
    assert enc.values == (0, 1, 2, 3, 4, 6, 7, 8) and len(enc.edges) == 10
    code = {b: c for c, b in enumerate((0, 1, 2, 3, 4, 7, 8, 9))}  # the ten bins' codes
    assert constraint_text(enc, Constraint(0, (code[1], code[2], code[3]), False)) == "1 <= x < 4"
    assert constraint_text(enc, Constraint(0, (code[4], code[7]), False)) == "(4 <= x < 5 or 7 <= x < 8)"
    # Unseen values (empty bins, null) pass: the allowed run 4..8 swallows the empty bins 5, 6.
    assert constraint_text(enc, Constraint(0, (code[4], code[7], code[8]), True)) == "x not in {(-inf, 4), [9, inf)}"
    assert constraint_text(enc, Constraint(0, tuple(code[b] for b in (0, 1, 2, 3, 4, 7, 8)), True)) == "x not in [9, inf)"
    nulls = FeatureEncoder.fit(pl.Series("x", [float(i) for i in range(11)] + [None]), bins=10)
    code = {b: c for c, b in enumerate(nulls.values)}
    null = nulls.domain_size - 1
    # Training held nulls: `or x is null` where it is shorter, null listed where excluded.
    assert constraint_text(nulls, Constraint(0, (code[2], code[3], code[4], null), True)) == "(2 <= x < 5 or x is null)"
    assert constraint_text(nulls, Constraint(0, (code[0], code[1], null), True)) == "x not in [2, inf)"
    assert constraint_text(nulls, Constraint(0, (code[0], code[1]), True)) == "x < 2"  # null excluded: a plain comparison
    assert constraint_text(nulls, Constraint(0, (null,), False)) == "x = null"


# --------------------------------------------------------------------------- integer bin edges
# docs/semantics.md §1: an integer column's inner edges are whole numbers, and every integer falls
# in the bin the paper's nudged, equal-width edges give it.
@settings(max_examples=200, deadline=None)
@given(
    values=st.lists(st.integers(-(2**60), 2**60), min_size=2, max_size=40, unique=True),
    scale=st.sampled_from([1, 7, 1000, 10**6, 10**12]),
    bins=st.integers(2, 30),
)
def test_integer_edges_are_whole_and_bin_as_the_paper(values: list[int], scale: int, bins: int) -> None:
    ints = sorted({v // scale for v in values} | {0, bins + 1})
    s = pl.Series("n", ints, dtype=pl.Int64)
    enc = FeatureEncoder.fit(s, bins=bins)
    if len(ints) <= bins:
        assert enc.kind == "categorical"
        return
    assert enc.kind == "binned" and enc.family == "integer"
    assert all(float(e).is_integer() for e in enc.edges[1:-1])
    f = np.asarray(ints, dtype=np.float64)
    edges = np.linspace(f.min(), f.max(), bins + 1)
    paper = np.clip(np.digitize(f + (1e-8 + 1e-5 * np.abs(f)), edges[1:]), 0, bins - 1)
    codes = enc.encode(s)
    assert [enc.values[c] for c in codes] == paper.tolist()
    # Integers around every edge, too (prediction frames).
    near = sorted({int(e) + d for e in enc.edges for d in (-2, -1, 0, 1, 2) if abs(e) < 2**53})
    g = np.asarray(near, dtype=np.float64)
    paper = np.clip(np.digitize(g + (1e-8 + 1e-5 * np.abs(g)), edges[1:]), 0, bins - 1)
    ours = np.searchsorted(np.asarray(enc.edges[1:-1]), g, side="right")
    assert ours.tolist() == paper.tolist()


def test_integer_edges_read_as_whole_numbers() -> None:
    df = pl.DataFrame({"age": list(range(17, 91)), "y": [a >= 40 for a in range(17, 91)]})
    model = findrs.fit(df, "y", auto=False, settings=dict(shuffle=False))
    assert model.encoders[0].edges == (17.0, 25.0, 32.0, 39.0, 47.0, 54.0, 61.0, 69.0, 76.0, 83.0, 90.0)
    assert model.rules["text"].to_list()[0] == "39 <= age < 47"
    # A float frame on the integer model: the whole-number edges, no nudge.
    new = pl.DataFrame({"age": [38.99, 39.0, 46.999, 47.0, float("nan")]})
    assert model.predict(new, labels=False).to_list() == [False, True, True, True, False]
    back = RuleSetModel.from_json(model.to_json())
    assert back.encoders[0].family == "integer" and back.rules["text"].equals(model.rules["text"])


def test_integer_edges_json_is_checked() -> None:
    df = pl.DataFrame({"n": list(range(30)), "y": [i % 3 == 0 for i in range(30)]})
    text = findrs.fit(df, "y", auto=False, settings=dict(shuffle=False)).to_json()
    bad = text.replace('"edges": [0.0,3.0,', '"edges": [0.0,2.9,')
    assert bad != text
    with pytest.raises(FindRSInputError, match="whole numbers"):
        RuleSetModel.from_json(bad)


def test_float_thresholds_are_the_nudged_edges() -> None:
    for e in [0.0, 1e-300, -2.5, 4.586, 1e12, -1e12, 123.456]:
        t = nudged_threshold(e)
        below = np.nextafter(t, -np.inf)
        assert t + (1e-8 + 1e-5 * abs(t)) >= e > below + (1e-8 + 1e-5 * abs(below))
    assert whole_edge(49.5) == 50.0 and whole_edge(50.0) == 50.0 and whole_edge(-3.2) == -3.0


# --------------------------------------------------------------------------- print / markdown / HTML
def _many_rules() -> RuleSetModel:
    train, _ = train_test_split(monks(2))
    return findrs.fit(train, "class", method="bp", random_state=0, auto=False, settings=dict(T=30, n_rules=None))


def _shown_ids(text: str) -> list[int]:
    out = []
    for line in text.splitlines():
        m = re.match(r"\s+(\d+)\s+\d", line)
        if m:
            out.append(int(m.group(1)))
    return out


@pytest.mark.parametrize("limit", [2, 3, 10, 11])
def test_print_truncates_and_counts_what_it_hides(limit: int) -> None:
    model = _many_rules()
    k = model.n_rules
    assert k > 20
    text = model.to_text(max_rules=limit)
    head = (limit + 1) // 2
    assert _shown_ids(text) == list(range(head)) + list(range(k - (limit - head), k))
    assert f"… {k - limit:,} rules hidden …" in text
    md = model.to_markdown(max_rules=limit)
    md_ids = [int(line.split("|")[1]) for line in md.splitlines() if re.match(r"\| \d+ \|", line)]
    assert md_ids == _shown_ids(text) and f"… {k - limit:,} rules hidden …" in md
    with findrs.Config(max_rules=limit):
        assert str(model) == text
        html = model._repr_html_()
    assert html.count("<tr>") == 1 + limit + 1 and f"… {k - limit:,} rules hidden …" in html
    everything = model.to_text(max_rules=None, rule_width=None)
    assert _shown_ids(everything) == list(range(k)) and "hidden" not in everything
    assert str(model) == model.to_text(max_rules=10)  # the default is back


def test_print_cuts_long_rules_at_a_condition_and_counts_the_rest() -> None:
    model = _many_rules()
    v = model.vote
    full = model.rules["text"].to_list()
    text = model.to_text(max_rules=None, rule_width=40)
    lines = [line for line in text.splitlines() if re.match(r"\s+\d+\s+\d", line)]
    for line, i in zip(lines, range(model.n_rules)):
        rule = line.split(None, 4)[4]
        m = re.fullmatch(r"(.*) and … \(\+(\d+) conditions?\)", rule)
        if m is None:
            assert rule == full[i] and len(rule) <= 40
            continue
        kept = m.group(1).split(" and ")
        assert len(kept) + int(m.group(2)) == len(v.rules[i])
        assert full[i].startswith(m.group(1) + " and ")
        assert len(kept) == 1 or len(rule) <= 40


def test_bp_header_is_plain_language() -> None:
    train, _ = train_test_split(tic_tac_toe())
    model = findrs.fit(train, "class", "positive", method="bp", random_state=0, auto=False, settings=dict(T=10))
    lines = str(model).splitlines()
    assert lines[1].startswith(f"positive when the weights of the rules that hold sum above {model.vote.threshold};")
    assert "rules are listed heaviest first" in lines[1] and "gamma" not in str(model)
    assert lines[2].split() == ["id", "weight", "covers", "precision", "rule"]
    rules = model.rules
    first = lines[3].split(None, 4)
    pos, neg = rules["train_positives"][0], rules["train_negatives"][0]
    assert first[:4] == ["0", str(rules["weight"][0]), str(pos + neg), f"{math.floor(pos / (pos + neg) * 1000) / 1000:.3f}"]


def test_markdown_and_html_escape_what_they_print() -> None:
    names = ["a|b", "<script>x</script>", "c*d_e"]
    df = pl.DataFrame(
        {
            names[0]: ["p|q", "`t`", "r", "p|q", "r", "`t`"] * 3,
            names[1]: ["<b>", "&", "x", "&", "x", "<b>"] * 3,
            names[2]: ["*", "_", "*", "_", "*", "_"] * 3,
            "y": [True, False, False, True, False, True] * 3,
        }
    )
    model = findrs.fit(df, "y", auto=False, settings=dict(shuffle=False))
    md = model.to_markdown()
    table = [line for line in md.splitlines() if line.startswith("|")]
    # Every table row has the header's number of cells (no unescaped `|` in a cell).
    cells = [len(re.split(r"(?<!\\)\|", line)) for line in table]
    assert len(set(cells)) == 1, md
    html = model._repr_html_()
    assert "<script>" not in html and "<b>" not in html.replace("<b>FIND", "")
    assert "&lt;script&gt;" in html


def test_config_rejects_bad_limits_and_restores() -> None:
    with pytest.raises(FindRSInputError, match="max_rules"):
        findrs.Config(max_rules=1)
    with pytest.raises(FindRSInputError, match="rule_width"):
        findrs.Config.set_rule_width(5)
    try:
        findrs.Config.set_max_rules(None)
        assert findrs.Config.max_rules is None
        with findrs.Config(max_rules=3, rule_width=None):
            assert (findrs.Config.max_rules, findrs.Config.rule_width) == (3, None)
        assert (findrs.Config.max_rules, findrs.Config.rule_width) == (None, 200)
    finally:
        findrs.Config.restore_defaults()
    assert findrs.Config.max_rules == 10


# --------------------------------------------------------------------------- the rules table
@SETTINGS
@given(df=frames(allow_float=True, max_rows=40), method=st.sampled_from(["find-rs", "bo", "bp"]), seed=st.integers(0, 2**32))
def test_rules_table_is_the_view(df, method, seed) -> None:
    model = _fit(df, method, "oh", 1, seed)
    rules = model.rules
    offsets, ids = model._core.rule_constraints()
    cons = model._constraints()
    for r in range(model.n_rules_found):
        cs = [cons[j] for j in ids[offsets[r] : offsets[r + 1]]]
        encs = [model.encoders[c.feature] for c in cs]
        assert rules["text"][r] == (" and ".join(constraint_text(e, c) for e, c in zip(encs, cs)) or "TRUE")
        assert rules["constraints"][r].to_list() == [
            {"feature": e.name, "values": [e.label(k) for k in c.codes]} for e, c in zip(encs, cs)
        ]


# --------------------------------------------------------------------------- explain: why not
def _passes(enc: FeatureEncoder, c: Constraint, code: int) -> bool:
    # docs/semantics.md §2: the allowed training codes, and the unseen code when unseen passes.
    return code in c.codes or (code == enc.domain_size and c.unseen_passes)


@SETTINGS
@given(
    df=frames(allow_float=True, other_dtypes=True, max_rows=50),
    method=st.sampled_from(["find-rs", "bo", "bp"]),
    encoding=st.sampled_from(["av", "oh"]),
    seed=st.integers(0, 2**32),
    shape=SHAPES,
)
def test_why_not_is_the_nearest_rule_and_exactly_its_failed_conditions(df, method, encoding, seed, shape) -> None:
    model = _fit(df, method, encoding, seed % 2, seed, **shape)
    test = pl.concat([df, perturbed(df, seed % 997)])
    ex = model.explain(test)
    v = model.vote
    rows = codes_of(test, model)
    positive = model.predict(test, labels=False).to_list()
    for row, pos, near, failed in zip(rows, positive, ex["nearest_rule"].to_list(), ex["failed_conditions"].to_list()):
        if pos:
            assert near is None and failed is None
            continue
        fails = [
            [c for c in v.rule(i) if not _passes(model.encoders[c.feature], c, row[c.feature])] for i in range(len(v.rules))
        ]
        candidates = [(len(f), i) for i, f in enumerate(fails) if f]
        assert candidates, "a row predicted negative has a voting rule that does not hold"
        best = min(candidates)[1]
        assert near == best
        assert failed == [constraint_text(model.encoders[c.feature], c) for c in fails[best]]


def test_why_not_in_a_lazy_query_equals_eager() -> None:
    train, test = train_test_split(monks(2))
    model = findrs.fit(train, "class", method="bp", random_state=0, auto=False, settings=dict(T=20))
    lazy = test.lazy().select(model.why_not_expr()).unnest("why_not").collect(engine="streaming")
    eager = model.explain(test).select("nearest_rule", "failed_conditions")
    assert lazy.equals(eager)


# --------------------------------------------------------------------------- explain: strength
@SETTINGS
@given(df=frames(max_rows=40), method=st.sampled_from(["find-rs", "bo", "bp"]), seed=st.integers(0, 2**32), shape=SHAPES)
def test_strength_is_a_0_1_reading_of_the_decision(df, method, seed, shape) -> None:
    model = _fit(df, method, "av", 0, seed, **shape)
    test = pl.concat([df, perturbed(df, seed % 991)])
    ex = model.explain(test)
    name = "y"
    s = ex[f"{name}_strength"].to_numpy()
    d = ex[f"{name}_decision"].to_numpy()
    positive = model.predict(test, labels=False).to_numpy()
    assert ((s >= 0) & (s <= 1)).all()
    np.testing.assert_array_equal(s > 0.5, positive)
    order = np.argsort(d, kind="stable")
    assert (np.diff(s[order]) >= 0).all()  # monotone in the decision value
    v = model.vote
    votes = np.rint((d + v.offset) * v.scale)
    assert (s[votes == 0] == 0).all() and (s[votes == v.max_votes] == 1).all()


def test_strength_and_predict_proba_are_on_the_same_side() -> None:
    # predict_proba is the graded probability of docs/semantics.md §6 now, not the strength;
    # both are above 1/2 exactly where the prediction is positive.
    pytest.importorskip("sklearn")
    from findrs.sklearn import FindRSClassifier

    train, test = train_test_split(monks(2))
    X, y = train.drop("class"), train["class"]
    for method in ("find-rs", "bo", "bp"):
        clf = FindRSClassifier(method=method, random_state=0, auto=False, settings=dict(T=15)).fit(X, y)
        s = test.select(clf.model_.strength_expr()).to_series().to_numpy()
        np.testing.assert_array_equal(s > 0.5, clf.predict_proba(test.drop("class"))[:, 1] > 0.5)


def test_why_not_in_small_blocks_equals_one_block(monkeypatch) -> None:
    # The rules are searched block by block (ties keep the earlier rule across blocks).
    import findrs.export.nearest as nearest

    train, test = train_test_split(monks(2))
    model = findrs.fit(train, "class", method="bp", random_state=0, auto=False, settings=dict(T=30, n_rules=None))
    whole = model.explain(test).select("nearest_rule", "failed_conditions")
    monkeypatch.setattr(nearest, "_BLOCK_CELLS", 40)
    monkeypatch.setattr(nearest, "_CACHE_BYTES", 0)
    again = RuleSetModel.from_json(model.to_json())  # a fresh search object
    assert again.explain(test).select("nearest_rule", "failed_conditions").equals(whole)
    assert whole["nearest_rule"].null_count() < test.height


# docs/semantics.md §2, §11: an interval constraint with tight ends reads `lo <= x <= hi`,
# `x <= hi`, `x >= lo`, `x = v`, with `or x is null`: on a value of every gap code, the text holds
# exactly where the gap-code reading does.
@pytest.mark.parametrize("with_null", [False, True])
def test_interval_text_reads_as_the_gap_codes(with_null: bool) -> None:
    values = [-1.5, 0.0, 2.31, 5.07, 9.0]
    d = len(values)
    enc = FeatureEncoder("x", "Float64", "interval", tuple(values) + ((None,) if with_null else ()), None, "float")
    # A value per gap code: below v0, v_i, between v_i and v_i+1, above v_d-1; then null.
    probes: list[float | None] = [-10.0]
    for i, v in enumerate(values):
        probes.append(v)
        probes.append((v + values[i + 1]) / 2 if i + 1 < d else 100.0)
    probes.append(None)
    for lo in range(d):
        for hi in range(lo, d):
            for null in (False, True) if with_null else (False,):
                if lo == 0 and hi == d - 1 and (null or not with_null):
                    continue  # the whole range (with null, or null never seen) is `?`
                # The view lists the indices of the allowed values, then d (null's) when null passes.
                codes = tuple(range(lo, hi + 1)) + ((d,) if null else ())
                text = constraint_text(enc, Constraint(0, codes, False))
                lo_gap = 0 if lo == 0 else 2 * lo + 1
                hi_gap = 2 * d if hi == d - 1 else 2 * hi + 1
                for code, x in enumerate(probes):
                    want = null if x is None else lo_gap <= code <= hi_gap
                    assert _interval_holds(text, x) == want, (text, x)


def _interval_holds(text: str, x: float | None) -> bool:
    if text.startswith("(") and " or " in text:
        return any(_interval_holds(p, x) for p in text[1:-1].split(" or "))
    if text == "x is null":
        return x is None
    if text == "x is not null":
        return x is not None
    if x is None:
        return False
    if m := re.fullmatch(r"(\S+) <= x <= (\S+)", text):
        return float(m.group(1)) <= x <= float(m.group(2))
    if m := re.fullmatch(r"x (<=|>=|=) (\S+)", text):
        v = float(m.group(2))
        return {"<=": x <= v, ">=": x >= v, "=": x == v}[m.group(1)]
    raise AssertionError(f"unreadable interval text {text!r}")
