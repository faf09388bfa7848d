"""A fit whose size is chosen with its settings (``max_rules`` with automatic settings,
docs/semantics.md §8.1): the encodings' cross-validations (with their candidates' path counts)
are one pool of (candidate, budget) pairs, :func:`findrs.select.size.choose` picks one, its
encoding and candidate are fitted on all rows, and the model is cut on its own path as the fold
models were (at the chosen gain, or to the chosen number of rules; :meth:`findrs.RuleSetModel.at`).

Invariant: the model is exactly the model of a fit with the chosen settings given (its final
fit tries the chosen candidate first, then the core's ranking, as after a
cross-validation), cut to the chosen budget; the record is every encoding's candidates, with
the one fitted marked and the choice of the size (``size``) kept; ``params["max_rules"]`` is the
number of rules the cut kept.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from ..models.model import RuleSetModel
from ..models.rule_set_parts import FoldCoder
from ..select import size
from ..select.params import _chosen_in_order


def fit_sized(
    variants: Sequence[tuple[dict[str, Any], list[Any], list[np.ndarray], FoldCoder | None]],
    recs: Sequence[dict[str, Any]],
    merged: dict[str, Any],
    y: np.ndarray,
    tgt: Any,
    n_jobs: int | None,
    progress: Callable[[int, int], None] | None,
    chosen: tuple[str, ...] = (),
) -> tuple[RuleSetModel, int]:
    """The model of the pair ``max_rules`` chooses among the candidates of ``merged`` (the
    records ``recs`` of the encodings ``variants``, in that order, made with path counts).
    ``chosen``: the encoding parameters the cross-validation chose too (``bin_edges``,
    ``numeric``), listed in the model's ``auto``. Returns the model and the index of the
    variant fitted."""
    params = variants[0][0]
    pick = size.choose(merged, params["max_rules"])
    offsets = np.cumsum([0] + [len(r["candidates"]) for r in recs])
    v = int(np.searchsorted(offsets, pick["candidate"], side="right")) - 1
    rec = recs[v]
    p, enc, codes, coder = variants[v]
    # Should its support leave no rule on all rows, the others follow in the core's ranking.
    model = RuleSetModel._fit_auto(codes, y, enc, tgt, p, n_jobs, progress, coder, record=rec,
                                   order=[pick["candidate"] - int(offsets[v])])
    fitted = int(offsets[v]) + model._cv["chosen"]
    c = merged["candidates"][fitted]
    folds = len(c["correct"])
    paths = {k: c.get(k) or [[] for _ in range(folds)] for k in size.PATHS}
    record = {**size.without_paths(merged), "chosen": fitted, "size": {**pick, **paths}}
    auto = _chosen_in_order([*model.params["auto"], *chosen, "max_rules"] if params["max_rules"] == "auto"
                           else [*model.params["auto"], *chosen])
    k = pick["rules"]
    if k is None:  # a gain: the final model's path is cut as the fold models' were
        t = model._training
        k = size.cut([t["rows"] - t["positives"], *t["path"]["correct"]], t["rows"], pick["gain"])
    fitted_params = {**model.params, "auto": auto, "max_rules": k}
    return model._with_record(fitted_params, record).at(k), v
