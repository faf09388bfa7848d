"""``fit``: from a frame and a target column to a :class:`~findrs.RuleSetModel`."""

from __future__ import annotations

import secrets
import sys
import warnings
from typing import Any, Literal, Sequence

import numpy as np

from . import _core
from .encode import fit_transform
from .errors import ContradictionWarning, FindRSInputError
from .frames import as_polars
from .model import RuleSetModel
from .target import binarize

Method = Literal["find-rs", "bo", "bp"]
Encoding = Literal["av", "oh"]


def _check_int(name: str, value: Any, low: int, high: int = 2**32 - 1) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not (low <= value <= high):
        raise FindRSInputError(f"{name} must be an integer from {low} to {high}, got {value!r}")
    return int(value)


def fit(
    data: Any,
    target: str,
    positive: Any | None = None,
    *,
    method: Method = "find-rs",
    encoding: Encoding = "av",
    tolerance: int = 0,
    shuffle: bool = True,
    random_state: int | None = None,
    features: Sequence[str] | None = None,
    bins: int = 10,
    T: int = 100,
    n_jobs: int | None = None,
    n_rules: Literal["auto"] | int | None = "auto",
    accuracy_ratio: float = 0.99,
    verbose: bool = False,
) -> RuleSetModel:
    """Learns a rule set that describes the rows whose ``target`` is ``positive``.

    Args:
        data: a Polars DataFrame or LazyFrame (collected once), or a pandas DataFrame / PyArrow
            table.
        target: the label column.
        positive: the label the rules describe. Default: ``True`` for a boolean target, the
            greater label when there are exactly two; required with more than two classes.
        method: ``"find-rs"`` (one run), ``"bo"`` (vote of ``T`` runs) or ``"bp"`` (weighted
            rules of ``T`` runs, pruned to the best ``n_rules``).
        encoding: ``"av"`` (``a = v`` constraints) or ``"oh"`` (value sets, docs/semantics.md §2).
        tolerance: how many training negatives one rule may cover (tau).
        shuffle: present the positives in a random order; ``False`` keeps row order (one
            exactly reproducible run).
        random_state: seed of the presentation orders; ``None`` draws one (recorded in the model).
        features: the feature columns (default: every column but the target).
        bins: equal-width bins for numeric columns; integer columns with at most ``bins``
            distinct values stay categorical.
        T: number of runs for ``"bo"``/``"bp"``.
        n_jobs: threads for the runs (``None`` or ``-1``: all cores). Never changes the model.
        n_rules: BP only: ``"auto"`` (smallest K whose training accuracy is at least
            ``accuracy_ratio`` x that of all rules), a number K, or ``None`` (all rules).
        accuracy_ratio: see ``n_rules``.
        verbose: show a progress bar of finished runs on stderr.

    Returns:
        The fitted :class:`~findrs.RuleSetModel`.

    Raises:
        FindRSInputError: a missing target or feature column, a positive label that is absent,
            a single class, an empty frame, an unusable column dtype (list, struct, temporal), a
            target with nulls, or a parameter out of range.
        KeyboardInterrupt: Ctrl-C during a BO/BP fit (it stops between runs).

    Warns:
        ContradictionWarning: identical rows carry both labels (they stay legal).

    Example:
        >>> import findrs
        >>> df = findrs.datasets.tic_tac_toe()
        >>> model = findrs.fit(df, "class", "positive", shuffle=False)
        >>> print(model.rules["text"][0])
        top_left = x and top_middle = x and top_right = x
    """
    if method not in ("find-rs", "bo", "bp"):
        raise FindRSInputError(f"method must be 'find-rs', 'bo' or 'bp', got {method!r}")
    if encoding not in ("av", "oh"):
        raise FindRSInputError(f"encoding must be 'av' or 'oh', got {encoding!r}")
    tolerance = _check_int("tolerance", tolerance, 0)
    bins = _check_int("bins", bins, 1)
    T = _check_int("T", T, 1) if method != "find-rs" else 1
    if n_jobs == -1:
        n_jobs = None
    if n_jobs is not None:
        n_jobs = _check_int("n_jobs", n_jobs, 1, 4096)
    if random_state is None:
        random_state = secrets.randbits(63)
    random_state = _check_int("random_state", random_state, 0, 2**64 - 1)
    k: int | None = None
    ratio: float | None = None
    if method == "bp":
        if isinstance(n_rules, str) and n_rules == "auto":
            if isinstance(accuracy_ratio, bool) or not isinstance(accuracy_ratio, (int, float, np.number)) or not (
                0.0 < float(accuracy_ratio) <= 1.0
            ):
                raise FindRSInputError(f"accuracy_ratio must be a number in (0, 1], got {accuracy_ratio!r}")
            ratio = float(accuracy_ratio)
        elif n_rules is not None:
            k = _check_int("n_rules", n_rules, 1, 2**63 - 1)

    df = as_polars(data)
    if df.height == 0:
        raise FindRSInputError("the frame has no rows; FIND-RS needs positive and negative rows")
    if isinstance(features, str):
        features = [features]
    if features is None:
        features = [c for c in df.columns if c != target]
    else:
        features = list(features)
        missing = [f for f in features if f not in df.columns]
        if missing:
            raise FindRSInputError(f"feature column(s) {missing} not found; the columns are {df.columns}")
        if target in features:
            raise FindRSInputError(f"the target column {target!r} cannot also be a feature; remove it from features")
    if not features:
        raise FindRSInputError(f"there are no feature columns besides the target {target!r}")
    y, tgt = binarize(df, target, positive)
    encoders, codes = fit_transform(df, features, bins)
    progress = _progress_bar(T) if verbose and method != "find-rs" else None
    core, stats = _core.fit(
        codes,
        [e.domain_size for e in encoders],
        [encoding] * len(encoders),
        y,
        method,
        tolerance,
        T,
        random_state,
        bool(shuffle),
        k,
        ratio,
        n_jobs,
        progress,
    )
    if stats.contradictions:
        warnings.warn(
            f"{stats.contradictions} training rows are contradictions (identical features, both "
            f"labels); no rule set can be consistent on them (see model.contradictions)",
            ContradictionWarning,
            stacklevel=2,
        )
    params = {
        "method": method,
        "encoding": encoding,
        "tolerance": tolerance,
        "shuffle": bool(shuffle),
        "random_state": random_state,
        "bins": bins,
        "T": T,
        "n_rules": n_rules if method == "bp" else None,
        "accuracy_ratio": accuracy_ratio,
    }
    training = {
        "rows": int(df.height),
        "positives": int(y.sum()),
        "contradictions": int(stats.contradictions),
        "rule_positives": list(stats.pos_covered),
        "rule_negatives": list(stats.neg_covered),
        "curve": list(stats.curve) if stats.curve is not None else None,
    }
    return RuleSetModel(core, encoders, tgt, params, training)


def _progress_bar(total: int):
    def report(done: int, total_: int) -> None:
        width = 30
        filled = width * done // max(total_, 1)
        end = "\n" if done >= total_ else ""
        sys.stderr.write(f"\rfindrs: [{'#' * filled}{'.' * (width - filled)}] {done}/{total_} runs{end}")
        sys.stderr.flush()

    return report
