"""The accuracy-size path of a :class:`~findrs.RuleSetModel` (docs/semantics.md §8.1, §10.1):
its voting rules in the order in which each adds the most training rows right, and for every
budget ``k`` the model of the first ``k`` of them (:meth:`_Path.at`). A multiclass FIND-RS
model's path orders every class set's rules (``rust/core/src/learn/multiclass_path.rs``: each
set's own ranking merged greedily by the rows the whole model gets right, a rule per set
first), and its models start at one rule per set.

Invariant: the path is computed by the core on the fit's own training codes and stored in the
model's ``training`` record (``path``: the order of the voting rules and the training rows
right of each prefix), so it survives ``to_json`` and pickling; the model of ``k`` rules is
the core's DNF of the first ``k`` rules of that order (``CoreModel.with_rules``; for a
multiclass model each set's rules among them, ``CoreMulticlass.with_rules``, a rule ``r`` of
set ``i`` numbered ``offset(i) + r``, the sets' rules one set after another), so the models of
the path are nested.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
import polars as pl

from ..errors import FindRSInputError
from ..select import size
from . import all_rows


def _labels(core: Any, labels: np.ndarray) -> np.ndarray:
    """``labels`` as the core's path takes them: each row's class index for a multiclass core,
    else the Booleans its rules describe."""
    return np.ascontiguousarray(labels, dtype=np.uint32 if hasattr(core, "set_classes") else np.bool_)


def _codes(codes: Sequence[np.ndarray]) -> list[np.ndarray]:
    return [np.ascontiguousarray(c, dtype=np.uint32) for c in codes]


def fitted_path(core: Any, codes: Sequence[np.ndarray], labels: np.ndarray) -> dict[str, list[int]]:
    """The ``training["path"]`` record of a model (its core, a ``CoreModel`` or a
    ``CoreMulticlass``) fitted on ``codes`` with ``labels`` (the labels a binary model's rules
    describe, or each row's class index)."""
    order, correct = core.path(_codes(codes), _labels(core, labels))
    return {"order": [int(r) for r in order], "correct": [int(c) for c in correct]}


def held_out_path(core: Any, order: Sequence[int], codes: Sequence[np.ndarray], classes: np.ndarray) -> list[int]:
    """The rows of ``codes`` (class indices ``classes``) right of each prefix of a multiclass
    path's ``order``: the path's models on held-out rows."""
    return [int(c) for c in core.held_out_path(list(order), _codes(codes), _labels(core, classes))]


def _pick(order: Sequence[int], n_rules: Sequence[int], k: int) -> list[list[int]]:
    """Each set's rules (indices into the set) of the first ``k`` of a multiclass path's
    ``order``, in path order.

    Example:
        >>> _pick([0, 3, 1, 4, 2], [3, 2], 3)
        [[0, 1], [0]]
    """
    offsets = np.cumsum([0, *n_rules])
    out: list[list[int]] = [[] for _ in n_rules]
    for g in order[:k]:
        i = int(np.searchsorted(offsets, g, side="right")) - 1
        out[i].append(int(g - offsets[i]))
    return out


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
        the fit's training rows, all of them when it learned on a sample, docs/semantics.md §13)
        and, when the cross-validation chose the size (``max_rules``
        with automatic settings), ``cv_accuracy``: the chosen candidate's fold models cut to the
        same budget, on their held-out rows (else null). The last row is this model. ``None`` for a model whose path is
        not known: a file written before paths, a multiclass BO or BP model, or a BP model whose
        number of voting rules was changed with :meth:`with_n_rules`. A multiclass model's path
        counts the rules of every class set and starts at one rule per set (docs/semantics.md
        §10.1).

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
        conditions = self._rule_conditions()[np.asarray(record["order"], dtype=np.int64)]
        correct, rows = self._path_counts(record)
        correct = np.asarray(correct, dtype=np.int64)
        first = self._path_first
        return pl.DataFrame(
            {
                "rules": pl.Series(range(first, len(correct) + 1), dtype=pl.UInt32),
                "conditions": pl.Series(np.cumsum(conditions)[first - 1:], dtype=pl.UInt32),
                "train_correct": pl.Series(correct[first - 1:], dtype=pl.UInt32),
                "train_accuracy": correct[first - 1:] / max(rows, 1),
                "cv_accuracy": pl.Series(self._cv_path(first, len(correct)), dtype=pl.Float64),
            }
        )

    def _path_counts(self, record: dict[str, list[int]]) -> tuple[list[int], int]:
        """The training rows right at each budget of the path and the training rows: counted on
        all of them when the rules were learned on a sample (docs/semantics.md §13)."""
        rec = self._training.get("all_rows")
        if rec is not None and "path_correct" in rec:
            return rec["path_correct"], rec["rows"]
        return record["correct"], self._training_rows

    @property
    def _path_first(self) -> int:
        """The fewest rules of a model of the path: 1, or a multiclass model's number of sets."""
        return 1 if self.target.classes is None else len(self._core.set_classes)

    def _rule_conditions(self) -> np.ndarray:
        """The conditions of every voting rule (int64), in the path's numbering: a multiclass
        model's sets one after the other."""
        if self.target.classes is None:
            return np.diff(self._rule_csr()[0])
        return np.concatenate([np.diff(s.rule_constraints()[0].astype(np.int64))[: s.n_rules]
                               for s in self._core.class_models()])

    @property
    def _size_record(self) -> tuple[dict[str, Any], dict[str, Any]] | None:
        """The cross-validation's record and its choice of the size, if it chose one."""
        rec = self._cv if self.target.classes is None else self._training.get("settings_cv")
        chosen = (rec or {}).get("size")
        return None if chosen is None else (rec, chosen)

    def _cv_path(self, first: int, n: int) -> list[float | None]:
        """The cross-validated accuracy of budgets ``first`` to ``n`` (docs/semantics.md §8.1): the
        chosen candidate's fold models cut to each budget; ``None`` without a choice of the size."""
        if self._size_record is None:
            return [None] * (n - first + 1)
        rec, chosen = self._size_record
        c = {**rec["candidates"][rec["chosen"]], **{k: chosen[k] for k in size.PATHS}}
        right = size.budget_points(c)[0]
        held_out = max(sum(c["rows"]), 1)
        base = c.get("path_base", 0)
        return [int(right[:, min(k - base, right.shape[1]) - 1].sum()) / held_out for k in range(first, n + 1)]

    @property
    def _path_notes(self) -> list[str]:
        """What ``print`` says of the path and of a choice of the size: a few points of the
        path (1, 2, 3, 5, 8, ... rules and the last) with their training accuracy, and how the
        size was chosen."""
        record = self._training.get("path")
        first = self._path_first
        if record is None:
            return []
        notes = []
        correct, rows = self._path_counts(record)
        rows = max(rows, 1)
        n = len(correct)
        if n > first:
            ks, a, b = [], first, first + 1
            while a < n:
                ks.append(a)
                a, b = b, a + b - first + 1
            points = ", ".join(f"{k}: {correct[k - 1] / rows:.3f}" for k in [*ks, n])
            notes.append(f"path (rules: training accuracy): {points}; model.at(k) is the model of k rules, "
                         "model.path the table")
        if self._size_record is not None:
            rec, chosen = self._size_record
            held_out = max(sum(rec["candidates"][0]["rows"]), 1)
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
        first ``k`` rows of this one. With ``k`` at least :attr:`n_rules` it is this model. For
        a multiclass model, each class set keeps its rules among the first ``k`` (at least one
        per set, docs/semantics.md §10.1); the combination and ``params`` stay.

        Raises:
            FindRSInputError: ``k`` is not an integer of at least 1 (for a multiclass model, of
                at least its number of class sets); the model has no path (:attr:`path` is
                ``None``).

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
            why = ("a multiclass BO or BP model has none, nor a file written before multiclass paths"
                   if self.target.classes is not None else
                   "it was not fitted with one (a file written before paths, or with_n_rules changed its voting rules)")
            raise FindRSInputError(f"this model has no accuracy-size path: {why}; refit it to get one")
        k = int(k)
        if k >= self.n_rules:
            return self
        if self.target.classes is not None:
            return self._multiclass_at(k, record)
        core = self._core.with_rules(record["order"][:k])
        training = {key: v for key, v in self._training.items() if key not in ("budget", "path", "all_rows")}
        training["budget"] = {"correct_before": record["correct"][-1], "correct": record["correct"][k - 1]}
        training["path"] = {"order": list(range(k)), "correct": record["correct"][:k]}
        counted = all_rows.cut(self._training.get("all_rows"), record["order"], k)
        if counted is not None:
            training["all_rows"] = counted
        params = {**self.params, "max_rules": k}
        return type(self)(core, self.encoders, self.target, params, training, self._cv)

    def _multiclass_at(self, k: int, record: dict[str, list[int]]) -> Any:
        """:meth:`at` of a multiclass model (docs/semantics.md §10.1)."""
        first = self._path_first
        if k < first:
            raise FindRSInputError(
                f"a multiclass model keeps at least one rule per class set: at(k) takes k >= {first} here, got {k}")
        sizes = [s.n_rules for s in self._core.class_models()]
        picked = _pick(record["order"], sizes, k)
        offsets = np.cumsum([0, *sizes])
        new_offsets = np.cumsum([0, *map(len, picked)])
        position = {int(offsets[i]) + r: int(new_offsets[i]) + j for i, rules in enumerate(picked) for j, r in enumerate(rules)}
        # The counts on all rows (docs/semantics.md §13) were of the whole model: not this one's.
        training = {key: v for key, v in self._training.items() if key not in ("path", "all_rows")}
        training["path"] = {"order": [position[g] for g in record["order"][:k]], "correct": record["correct"][:k]}
        return type(self)(self._core.with_rules(picked), self.encoders, self.target, self.params, training, self._cv)
