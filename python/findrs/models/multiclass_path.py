"""The accuracy-size path of a multiclass FIND-RS model (docs/semantics.md §10.1): an order of
all class sets' rules, and for every budget ``k`` the model of the first ``k`` of them.

The core computes it (``CoreMulticlass.path``, ``rust/core/src/learn/multiclass_path.rs``):
each class set's rules ranked by the set's own binary path, the rankings merged greedily by the
rows the whole model gets right, a rule per set first. This module holds the record's form and
how a prefix maps to each set's rules.

Invariant: ``order`` lists every voting rule of every set once (a rule ``r`` of set ``i`` as
``offset(i) + r``, the sets' rules numbered one after another in combination order) and each
set's rules in its own ranking; ``correct[k - 1]`` is the training rows right of the model of the
first ``k`` rules (:func:`pick`).
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np


def _codes(codes: Sequence[np.ndarray]) -> list[np.ndarray]:
    return [np.ascontiguousarray(c, dtype=np.uint32) for c in codes]


def fitted_path(core: Any, codes: Sequence[np.ndarray], classes: np.ndarray) -> dict[str, list[int]]:
    """The ``training["path"]`` record of a multiclass FIND-RS model (its core, a
    ``CoreMulticlass``) fitted on ``codes`` with each row's class index ``classes``: ``order``
    (global rule numbers) and ``correct`` (training rows right of each prefix)."""
    order, correct = core.path(_codes(codes), np.ascontiguousarray(classes, dtype=np.uint32))
    return {"order": [int(g) for g in order], "correct": [int(c) for c in correct]}


def held_out_path(core: Any, order: Sequence[int], codes: Sequence[np.ndarray], classes: np.ndarray) -> list[int]:
    """The rows of ``codes`` (class indices ``classes``) right of each prefix of ``order``: the
    path's models on held-out rows."""
    return [int(c) for c in core.held_out_path(list(order), _codes(codes), np.ascontiguousarray(classes, dtype=np.uint32))]


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
