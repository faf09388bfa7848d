"""The accuracy-size path of a binary :class:`~findrs.RuleSetModel` (docs/semantics.md §8.1):
its voting rules in the order in which each adds the most training rows right, and for every
budget ``k`` the model of the first ``k`` of them (:meth:`_Path.at`).

Invariant: the path is computed by the core on the fit's own training codes and stored in the
model's ``training`` record (``path``: the order of the voting rules and the training rows
right of each prefix), so it survives ``to_json`` and pickling; the model of ``k`` rules is
the core's DNF of the first ``k`` rules of that order (``CoreModel.with_rules``), so the
models of the path are nested.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import polars as pl

from ..errors import FindRSInputError
from ..select import size


def fitted_path(core: Any, codes: list[np.ndarray], labels: np.ndarray) -> dict[str, list[int]]:
    """The ``training["path"]`` record of a binary model (its core, a ``CoreModel``) fitted on
    ``codes`` with ``labels`` (the labels its rules describe)."""
    order, correct = core.path(codes, np.ascontiguousarray(labels, dtype=np.bool_))
    return {"order": [int(r) for r in order], "correct": [int(c) for c in correct]}


def check_path(path: Any, rows: int) -> dict[str, list[int]]:
    """A model file's ``training.path``, checked for its form: ``order`` and ``correct`` lists of
    the same length, counts of at most ``rows``; that ``order`` lists each voting rule once is
    checked against the rules (:func:`path_problems`)."""
    ok = isinstance(path, dict) and sorted(path) == ["correct", "order"]
    ok = ok and all(isinstance(path[k], list) for k in ("correct", "order")) and len(path["order"]) == len(path["correct"])
    counts = (x for k in ("correct", "order") for x in (path[k] if ok else []))
    if not ok or not path["order"] or not all(isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in counts):
        raise FindRSInputError(f"'path' must hold 'order' and 'correct', two lists of counts of one length, got {path!r}")
    if max(path["correct"]) > rows:
        raise FindRSInputError(f"'path' counts more training rows right than the {rows:,} rows")
    return {k: [int(x) for x in path[k]] for k in ("order", "correct")}


def path_problems(path: dict[str, list[int]] | None, n_voting: int) -> list[str]:
    """What is wrong with a loaded path for a model of ``n_voting`` voting rules."""
    if path is None or sorted(path["order"]) == list(range(n_voting)):
        return []
    return [f"training's path does not list each of the {n_voting} voting rules once"]


class _Path:
    """The path half of :class:`~findrs.RuleSetModel` (a mixin of it)."""

    @property
    def path(self) -> pl.DataFrame | None:
        """The accuracy-size path (docs/semantics.md §8.1): one row per budget ``rules`` = 1, 2,
        ..., :attr:`n_rules`, the model :meth:`at` returns for it: ``conditions`` (its total
        conditions, rules x conditions per rule), ``train_correct`` and ``train_accuracy`` (on
        the fit's training rows) and, when the cross-validation chose the size (``max_rules``
        with automatic settings), ``cv_accuracy``: the chosen candidate's fold models cut to the
        same budget, on their held-out rows (else null). The last row is this model. ``None`` for a model whose path is
        not known: a file written before paths, a multiclass model, or a BP model whose number
        of voting rules was changed with :meth:`with_n_rules`.

        Example:
            >>> import findrs, polars as pl
            >>> df = findrs.datasets.tic_tac_toe()
            >>> m = df.findrs.fit("class", "positive", random_state=0, auto=False)
            >>> m.path.select("rules", "conditions", pl.col("train_accuracy").round(3)).head(3).rows()
            [(1, 3, 0.441), (2, 6, 0.533), (3, 9, 0.613)]
        """
        record = self._training.get("path")
        if record is None:
            return None
        offsets = self._rule_csr()[0]
        conditions = np.diff(offsets)[np.asarray(record["order"], dtype=np.int64)]
        correct = np.asarray(record["correct"], dtype=np.int64)
        return pl.DataFrame(
            {
                "rules": pl.Series(range(1, len(correct) + 1), dtype=pl.UInt32),
                "conditions": pl.Series(np.cumsum(conditions), dtype=pl.UInt32),
                "train_correct": pl.Series(correct, dtype=pl.UInt32),
                "train_accuracy": correct / max(self._training_rows, 1),
                "cv_accuracy": pl.Series(self._cv_path(len(correct)), dtype=pl.Float64),
            }
        )

    def _cv_path(self, n: int) -> list[float | None]:
        """The cross-validated accuracy of budgets 1 to ``n`` (docs/semantics.md §8.1): the
        chosen candidate's fold models cut to each budget; ``None`` without a choice of the size."""
        chosen = (self._cv or {}).get("size")
        if chosen is None:
            return [None] * n
        c = {**self._cv["candidates"][self._cv["chosen"]], **{k: chosen[k] for k in size.PATHS}}
        right = size.budget_points(c)[0]
        held_out = max(sum(c["rows"]), 1)
        return [int(right[:, min(k, right.shape[1]) - 1].sum()) / held_out for k in range(1, n + 1)]

    @property
    def _path_notes(self) -> list[str]:
        """What ``print`` says of the path and of a choice of the size: a few points of the
        path (1, 2, 3, 5, 8, ... rules and the last) with their training accuracy, and how the
        size was chosen."""
        record = self._training.get("path")
        if record is None or len(record["correct"]) < 2:
            return []
        rows = max(self._training_rows, 1)
        n = len(record["correct"])
        ks, a, b = [], 1, 2
        while a < n:
            ks.append(a)
            a, b = b, a + b
        points = ", ".join(f"{k}: {record['correct'][k - 1] / rows:.3f}" for k in [*ks, n])
        notes = [f"path (rules: training accuracy): {points}; model.at(k) is the model of k rules, model.path the table"]
        chosen = (self._cv or {}).get("size")
        if chosen is not None:
            held_out = max(sum(self._cv["candidates"][0]["rows"]), 1)
            acc, best = sum(chosen["correct"]) / held_out, sum(chosen["best"]["correct"]) / held_out
            gain = chosen["gain"]
            cut = ("every rule" if gain is None else f"the rules that each add more than {gain:.2%} of the rows")
            if chosen["rule"] == "budget":
                how = f"the most accurate of at most {chosen['rules']} rules"
            elif chosen["se"] == 0:
                how = f"the fewest conditions of the most accurate (every held-out row right: no standard error): {cut}"
            else:
                mult = float(chosen["rule"][:-2])  # "0.5se": half a standard error
                many = {1.0: "one standard error", 0.5: "half a standard error"}.get(mult, f"{mult:g} standard errors")
                how = f"the fewest conditions within {many} ({mult * chosen['se']:.4f}) of the most accurate: {cut}"
            notes.append(f"size chosen by cross-validation, {how}; cv accuracy {acc:.4f}, the most accurate "
                         f"{best:.4f} (max_rules=None fits the most accurate, model.at(k) any size)")
        return notes

    def at(self, k: int) -> Any:
        """The model of the path with at most ``k`` rules (docs/semantics.md §8.1): the first ``k``
        rules of :attr:`path`'s order, positive when one of them holds (a DNF; for BO and BP the
        weights are shown and do not vote), with ``params["max_rules"] = k`` and its own path the
        first ``k`` rows of this one. With ``k`` at least :attr:`n_rules` it is this model.

        Raises:
            FindRSInputError: ``k`` is not an integer of at least 1; the model has no path
                (:attr:`path` is ``None``).

        Example:
            >>> import findrs
            >>> df = findrs.datasets.tic_tac_toe()
            >>> m = df.findrs.fit("class", "positive", random_state=0, auto=False)
            >>> small = m.at(3)
            >>> small.n_rules, round(small.score(df), 3), small.params["max_rules"]
            (3, 0.613, 3)
        """
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
            raise FindRSInputError(f"at(k) takes a number of rules of at least 1, got {k!r}")
        record = self._training.get("path")
        if record is None:
            why = "a multiclass model has none yet" if self.target.classes is not None else (
                "it was not fitted with one (a file written before paths, or with_n_rules changed its voting rules)")
            raise FindRSInputError(f"this model has no accuracy-size path: {why}; refit it to get one")
        k = int(k)
        if k >= self.n_rules:
            return self
        core = self._core.with_rules(record["order"][:k])
        training = {key: v for key, v in self._training.items() if key not in ("budget", "path")}
        training["budget"] = {"correct_before": record["correct"][-1], "correct": record["correct"][k - 1]}
        training["path"] = {"order": list(range(k)), "correct": record["correct"][:k]}
        params = {**self.params, "max_rules": k}
        return type(self)(core, self.encoders, self.target, params, training, self._cv)
