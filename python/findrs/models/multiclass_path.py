"""The accuracy-size path of a multiclass FIND-RS model (docs/semantics.md §10.1): an order of
all class sets' rules, and for every budget ``k`` the model of the first ``k`` of them.

Each class set's rules are first ranked by the set's own binary path (the core's ``path`` on the
set's training rows: its class against the classes after it, or against every other class for
one-vs-rest). The multiclass order then merges those rankings greedily: at each step, of the
sets' next rules, the one that adds the most training rows classified right by the whole model
(ties: the set read first). A model needs a rule in every set, so the first steps give each set
its first rule (the most gainful first), and the models of the path are those of at least as
many rules as sets.

A FIND-RS set says "this class" on a row exactly when one of its rules covers it, so a model of
some rules of each set decides a row by which sets have a covering rule: a decision list takes
the first such set (else the default class), one-vs-rest the set of the highest ``1 / theta``
(the first on ties; the first set when none covers it), as the model's predictor does.

Invariant: ``order`` lists every voting rule of every set once (a rule ``r`` of set ``i`` as
``offset(i) + r``, the sets' rules numbered one after another in combination order) and each
set's rules in its own ranking; ``correct[k - 1]`` is the training rows right of the model of the
first ``k`` rules (:func:`pick`).
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np


def _covers(core: Any, codes: Sequence[np.ndarray]) -> list[np.ndarray]:
    """The rows of ``codes`` each voting rule of the binary core covers (one sorted int64 array
    per rule)."""
    offsets, ids = core.fired([np.ascontiguousarray(c, dtype=np.uint32) for c in codes])
    n = len(offsets) - 1
    rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(offsets).astype(np.int64))
    ids = ids.astype(np.int64)
    order = np.argsort(ids, kind="stable")
    bounds = np.searchsorted(ids[order], np.arange(core.n_rules + 1))
    rows = rows[order]
    return [rows[a:b] for a, b in zip(bounds[:-1], bounds[1:])]


class _State:
    """The decision of every row for a model of some rules per set: which sets cover it
    (``hits``: covering rules per set) and the class it gets."""

    def __init__(self, core: Any, labels: np.ndarray) -> None:
        self.labels = labels
        self.set_classes = np.asarray(core.set_classes, dtype=np.int64)
        n_sets = len(self.set_classes)
        thetas = core.thetas
        if core.default_class is None:  # one-vs-rest: the highest 1 / theta wins, the first on ties
            ranked = sorted(range(n_sets), key=lambda i: (-1.0 / thetas[i], i))
            self.rank = np.empty(n_sets, dtype=np.int64)
            self.rank[ranked] = np.arange(n_sets)
            fallback = int(self.set_classes[0])
        else:
            self.rank = np.arange(n_sets, dtype=np.int64)
            fallback = int(core.default_class)
        self.by_rank = self.set_classes[np.argsort(self.rank)]
        n = len(labels)
        self.hits = np.zeros((n_sets, n), dtype=np.int32)
        self.first = np.full(n, n_sets, dtype=np.int64)  # the best rank of a covering set
        self.predicted = np.full(n, fallback, dtype=np.int64)
        self.correct = int(np.count_nonzero(self.predicted == labels))

    def _changed(self, i: int, rows: np.ndarray) -> np.ndarray:
        """The rows of ``rows`` whose class changes when set ``i`` covers them too."""
        new = rows[self.hits[i, rows] == 0]
        return new[self.rank[i] < self.first[new]]

    def gain(self, i: int, rows: np.ndarray) -> int:
        """Rows right gained when a rule of set ``i`` covering ``rows`` joins the model."""
        changed = self._changed(i, rows)
        lab = self.labels[changed]
        return int(np.count_nonzero(lab == self.set_classes[i])) - int(np.count_nonzero(self.predicted[changed] == lab))

    def add(self, i: int, rows: np.ndarray) -> None:
        changed = self._changed(i, rows)
        self.correct += self.gain(i, rows)
        self.predicted[changed] = self.set_classes[i]
        self.first[changed] = self.rank[i]
        self.hits[i, rows] += 1


def set_training_rows(core: Any, classes: np.ndarray) -> list[np.ndarray]:
    """Each set's training rows (indices) of a multiclass core: every row for one-vs-rest; for a
    decision list, the rows of the set's class and of the classes after it."""
    set_classes = list(core.set_classes)
    if core.default_class is None:
        return [np.arange(len(classes)) for _ in set_classes]
    out = []
    for i in range(len(set_classes)):
        before = np.asarray(set_classes[:i], dtype=np.int64)
        out.append(np.flatnonzero(~np.isin(classes, before)))
    return out


def fitted_path(core: Any, codes: Sequence[np.ndarray], classes: np.ndarray) -> dict[str, list[int]]:
    """The ``training["path"]`` record of a multiclass FIND-RS model (its core, a
    ``CoreMulticlass``) fitted on ``codes`` with each row's class index ``classes``: ``order``
    (global rule numbers) and ``correct`` (training rows right of each prefix)."""
    classes = np.asarray(classes, dtype=np.int64)
    sets = core.class_models()
    ranked = []
    for s, c, rows in zip(sets, core.set_classes, set_training_rows(core, classes)):
        sub = [np.ascontiguousarray(x[rows], dtype=np.uint32) for x in codes]
        ranked.append([int(r) for r in s.path(sub, np.ascontiguousarray(classes[rows] == c))[0]])
    covers = [_covers(s, codes) for s in sets]
    offsets = np.cumsum([0] + [s.n_rules for s in sets])
    state = _State(core, classes)
    order: list[int] = []
    correct: list[int] = []
    nxt = [0] * len(sets)

    def step(i: int) -> None:
        r = ranked[i][nxt[i]]
        state.add(i, covers[i][r])
        nxt[i] += 1
        order.append(int(offsets[i]) + r)
        correct.append(state.correct)

    while True:
        open_ = [i for i in range(len(sets)) if nxt[i] < len(ranked[i])]
        empty = [i for i in open_ if nxt[i] == 0]
        pool = empty or open_
        if not pool:
            break
        gains = [state.gain(i, covers[i][ranked[i][nxt[i]]]) for i in pool]
        step(pool[int(np.argmax(gains))])
    return {"order": order, "correct": correct}


def pick(order: Sequence[int], n_rules: Sequence[int], k: int) -> list[list[int]]:
    """Each set's rules (indices into the set) of the first ``k`` of ``order``, in path order.

    Example:
        >>> pick([0, 3, 1, 4, 2], [3, 2], 3)
        [[0, 1], [0]]
    """
    offsets = np.cumsum([0, *n_rules])
    out: list[list[int]] = [[] for _ in n_rules]
    for g in order[:k]:
        i = int(np.searchsorted(offsets, g, side="right")) - 1
        out[i].append(int(g - offsets[i]))
    return out


def held_out_path(core: Any, order: Sequence[int], codes: Sequence[np.ndarray], classes: np.ndarray) -> list[int]:
    """The rows of ``codes`` (class indices ``classes``) right of each prefix of ``order``: the
    path's models on held-out rows."""
    sets = core.class_models()
    covers = [_covers(s, codes) for s in sets]
    offsets = np.cumsum([0] + [s.n_rules for s in sets])
    state = _State(core, np.asarray(classes, dtype=np.int64))
    out = []
    for g in order:
        i = int(np.searchsorted(offsets, g, side="right")) - 1
        state.add(i, covers[i][g - offsets[i]])
        out.append(state.correct)
    return out
