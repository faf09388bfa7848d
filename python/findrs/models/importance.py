"""A global view of a model: how many rows each rule and each feature decides, and how much
accuracy drops without it (docs/semantics.md §6, "Importance"; :meth:`findrs.Model.importance`).

A model is read as binary rule sets (a plain model's one, rules with exceptions' two, a
multiclass model's class sets, a bagged vote's members' sets) and a *combination* of their
fired-rule matrices into predictions (the vote's threshold, the exceptions' rule, the
multiclass combination, the majority of members). A rule's removal zeroes its column, a
feature's removal lets every one of its conditions pass; the others' weights and every
threshold stay as they are.

Invariant this module keeps: it imports no model module and recognises a kind by its public
members (``members``, ``exception_model``, ``class_models``), so every kind can call it; with
nothing removed its predictions are the model's ``predict`` (a test checks it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
import polars as pl

from ..errors import FindRSInputError


@dataclass
class _Set:
    """One binary rule set read on a frame: per voting rule its constraints (ids into
    ``sat``'s columns), the features of the constraints, and which rows satisfy each."""

    vote: Any
    features: np.ndarray
    sat: np.ndarray

    def fired(self, free: int | None = None) -> np.ndarray:
        """Rows x voting rules: which rules hold (with the conditions on feature ``free``
        passing)."""
        sat = self.sat
        if free is not None:
            sat = sat.copy()
            sat[:, self.features == free] = True
        out = np.ones((sat.shape[0], len(self.vote.rules)), dtype=bool)
        for r, ids in enumerate(self.vote.rules):
            for c in ids:
                out[:, r] &= sat[:, c]
        return out

    def votes(self, fired: np.ndarray) -> np.ndarray:
        v = self.vote
        out = np.zeros(fired.shape[0], dtype=np.int64)
        for g, w in zip(v.groups, v.group_weights):
            out += int(w) * fired[:, list(g)].any(axis=1)
        return out


def _read(model: Any, df: pl.DataFrame) -> _Set:
    v = model.vote
    enc = model.encoders
    exprs = [enc[c.feature].allows(c.codes, c.unseen_passes).fill_null(False).alias(str(i))
             for i, c in enumerate(v.constraints)]
    sat = df.select(exprs).to_numpy().astype(bool) if exprs else np.zeros((df.height, 0), dtype=bool)
    return _Set(v, np.array([c.feature for c in v.constraints], dtype=np.int64), sat)


def _min_key(fired: np.ndarray, keys: np.ndarray, none: int) -> np.ndarray:
    """Per row, the smallest ``keys[r]`` over the fired rules ``r`` (``none`` without any)."""
    big = np.where(fired, keys[None, :], none)
    return big.min(axis=1, initial=none)


def _structure(model: Any) -> tuple[list[Any], Callable[[list[np.ndarray], list[_Set]], np.ndarray], list[tuple[str, int, list[tuple[int, int]]]]]:
    """The model's binary rule sets, how their fired matrices give the prediction (a Boolean
    "is positive", or a multiclass model's class index), and its rules: ``(kind, id in
    model.rules, [(set, voting rule) ...])``."""
    if hasattr(model, "members"):
        parts = [_structure(m) for m in model.members]
        sets, spans, rules = [], [], {}
        for (ms, combine, mrules), member in zip(parts, model.members):
            spans.append((len(sets), len(sets) + len(ms), combine))
            # The bag's rules table has one row per text and label (docs/semantics.md §12).
            keys = {(r["kind"], r["id"]): (r["text"], r["label"]) for r in member.rules.iter_rows(named=True)}
            for kind, rid, where in mrules:
                key = keys[(kind, rid)]
                rules.setdefault(key, []).extend((s + len(sets), r) for s, r in where)
            sets += ms
        flips = list(model._flip)
        n = len(model.members)

        def combine(fired: list[np.ndarray], s: list[_Set]) -> np.ndarray:
            yes = sum((c(fired[a:b], s[a:b]) != f).astype(np.int64) for (a, b, c), f in zip(spans, flips))
            return yes * 2 > n

        ids = {(r["text"], r["label"]): (r["kind"], int(r["id"])) for r in model.rules.iter_rows(named=True)}
        return sets, combine, [(*ids[k], where) for k, where in rules.items()]
    if hasattr(model, "exception_model"):
        count, rank = np.array(model._count, dtype=np.int64), np.array(model._rank, dtype=np.int64)
        n_s = len(rank)

        def combine(fired: list[np.ndarray], s: list[_Set]) -> np.ndarray:
            key_r = _min_key(fired[0], count, np.iinfo(np.int64).max)
            return (key_r < np.iinfo(np.int64).max) & (key_r <= _min_key(fired[1], rank, n_s))

        used = sorted({e for es in model.exceptions_of for e in es})
        rules = [("rule", r, [(0, r)]) for r in range(model.rules_model.n_rules)]
        rules += [("exception", e, [(1, e)]) for e in used]
        return [model.rules_model, model.exception_model], combine, rules
    if model.target.classes is not None:
        comb = model.combination
        sets = list(model.class_models)
        rules, at = [], 0
        for i, m in enumerate(sets):
            rules += [("rule", at + r, [(i, r)]) for r in range(m.n_rules)]
            at += m.n_rules_found

        def combine(fired: list[np.ndarray], s: list[_Set]) -> np.ndarray:
            votes = [x.votes(f) for x, f in zip(s, fired)]
            ids = np.array(comb.set_classes, dtype=np.int64)
            if comb.default is None:
                scores = np.column_stack([v / t for v, t in zip(votes, comb.thetas)])
                return ids[scores.argmax(axis=1)]
            out = np.full(len(votes[0]), comb.default, dtype=np.int64)
            for v, t, c in reversed(list(zip(votes, comb.thresholds, comb.set_classes))):
                out = np.where(v > t, c, out)
            return out

        return sets, combine, rules

    def combine(fired: list[np.ndarray], s: list[_Set]) -> np.ndarray:
        return s[0].votes(fired[0]) > s[0].vote.threshold

    return [model], combine, [("rule", r, [(0, r)]) for r in range(model.n_rules)]


def table(model: Any, df: pl.DataFrame, target: str) -> pl.DataFrame:
    """:meth:`findrs.Model.importance`'s table for ``model`` on the labelled frame ``df``."""
    if target not in df.columns:
        raise FindRSInputError(f"importance needs the labels: the target column {target!r} is not in the frame; "
                               f"pass the training frame with its target column (or target=<column>)")
    models, combine, rules = _structure(model)
    sets = [_read(m, df) for m in models]
    fired = [s.fired() for s in sets]
    pred = combine(fired, sets)
    truth = df.get_column(target)
    if model.target.classes is not None:
        labels = [str(c) for c in model.target.classes]
        index = {c: i for i, c in enumerate(labels)}
        right_of = np.array([index.get(None if x is None else str(x), -1) for x in truth.cast(pl.String).to_list()])
    else:
        right_of = (truth == model.target.positive).fill_null(False).to_numpy().astype(bool)
    n = max(df.height, 1)
    base = float(np.sum(pred == right_of)) / n
    out = []

    def row(kind: str, rid: int | None, name: str, changed: np.ndarray) -> None:
        out.append({"kind": kind, "id": rid, "name": name, "decides": int(np.sum(changed != pred)),
                    "accuracy_drop": base - float(np.sum(changed == right_of)) / n})

    texts = {(r["kind"], r["id"]): r["text"] for r in model.rules.iter_rows(named=True)}
    for kind, rid, where in rules:
        cut = list(fired)
        for s in {s for s, _ in where}:
            cut[s] = fired[s].copy()
        for s, r in where:
            cut[s][:, r] = False
        row(kind, rid, texts[(kind, rid)], combine(cut, sets))
    for i, name in enumerate(model.features):
        row("feature", None, name, combine([s.fired(free=i) for s in sets], sets))
    schema = {"kind": pl.String, "id": pl.UInt32, "name": pl.String, "decides": pl.UInt32, "accuracy_drop": pl.Float64}
    return (pl.DataFrame(out, schema=schema)
            .sort(["accuracy_drop", "decides", "kind", "id"], descending=[True, True, False, False], nulls_last=True))


def predictions(model: Any, df: pl.DataFrame) -> np.ndarray:
    """The model's predictions as this module computes them (a Boolean "is positive", or the
    class index): equal to ``predict`` (a test checks it)."""
    models, combine, _ = _structure(model)
    sets = [_read(m, df) for m in models]
    return combine([s.fired() for s in sets], sets)
