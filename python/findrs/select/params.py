"""The parameters of a fit checked against their table (:mod:`findrs.settings`).

:func:`findrs.fit` (and through it ``FindRSClassifier`` and the ``findrs fit`` command) checks
its arguments here, and loading a model file checks the file's ``params`` against the same
table, so a range is written in one place. The Rust core checks the ranges it needs again for
its own callers, with the same bounds (``T`` up to :data:`MAX_T`, ``accuracy_ratio`` in
(0, 1], a share ``tolerance`` in [0, 1)).

Automatic settings (docs/semantics.md §9.4): ``encoding``, ``tolerance``, ``min_support``,
``direction`` and ``simplify`` may be ``"auto"`` and BP's ``n_rules`` ``"cv"``; ``auto=True``
(the default) makes each of the five that is not given (its default is a :class:`NotGiven`)
``"auto"``, ``auto=False`` the paper's value. A fitted model's ``params`` hold the values
chosen, ``params["auto"]`` the names of the parameters cross-validation chose, and
``params["cv"]`` / ``params["cv_T"]`` / ``params["cv_rows"]`` its folds, runs per fit and
sample size.

``run`` and ``best_of`` (docs/semantics.md §5.3) choose a FIND-RS fit's run: ``best_of=T`` keeps
the run of ``0..T`` with the most training rows right, and a model records the run kept as
``run``; ``findrs.fit``'s ``best_of=None`` is :data:`AUTO_BEST_OF` for the final fit of
automatic settings, else 1.

Example:
    >>> from findrs.select.params import check_params
    >>> check_params({"method": "bp", "T": 10})["n_rules"]
    'auto'
    >>> p = check_params({"encoding": "oh"})
    >>> p["auto"], p["encoding"], p["tolerance"]
    (['tolerance', 'min_support', 'direction', 'simplify', 'max_rules'], 'oh', 'auto')
    >>> check_params({"auto": False})["tolerance"]
    0
"""

from __future__ import annotations

import math
import numbers
import secrets
from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np

from ..errors import FindRSInputError

from ..settings import DEFAULTS, MAX_T, NOT_GIVEN, PARAMETERS, NotGiven, _Bool, _Choice, _Int, _Ratio, _Tolerance

ABSENT_FROM_OLDER_FILES: dict[str, Any] = {
    "simplify": False,
    "max_rules": None,
    "min_support": 0,
    "direction": "positive",
    "auto": [],
    "cv": None,
    "cv_T": None,
    "numeric": "bins",
    "interval_ends": "tight",
    "cv_rows": None,
    "bin_edges": "uniform",
    "run": 0,
    "best_of": 1,
}
"""Parameters added after findrs first wrote model files, with the value a file written without
them means (they did not exist, so the fit did without them). Not :data:`DEFAULTS`, which may
change."""

AUTOMATIC = ("encoding", "tolerance", "min_support", "direction", "simplify", "n_rules")
"""The parameters cross-validation can choose, in the order a model lists them."""

CHOSEN_BESIDES = ("bin_edges", "numeric", "method", "max_rules")
"""Parameters a model's ``auto`` may list after :data:`AUTOMATIC`: chosen by the same
cross-validation, each value on codes of its own (``bin_edges=None``, ``numeric=None``), or
the budgeted BP vote against the FIND-RS winner (``method=None``, docs/semantics.md §9.4, §9.5),
or the size of the model on the candidates' accuracy-size paths (``max_rules="auto"``, §8.1)."""

AUTO_BEST_OF = 20
"""``best_of`` of the final FIND-RS fit of automatic settings when ``best_of`` is not given
(docs/semantics.md §5.3): the run of the first 20 with the most training rows right (20, not
10, since issue 12's branch adult33: +.0010 on Adult's training halves, 5 of 6 seeds up, none
down; ``results/adult-holdout.md``, "The best of 20 runs")."""

BEST_OF_ROW_RUNS = 200_000
"""The final fit of automatic settings makes at most this many run-rows (runs x training rows):
the best of :data:`AUTO_BEST_OF` runs up to 10,000 training rows, fewer above, one from
200,000 (:func:`auto_best_of`). A run's cost grows faster than its rows on noisy data (Adult's
32,561 rows: about 0.8 CPU-s a run, the twenty runs a third of the default fit); Adult's six
runs kept the twenty runs' accuracy on six seeds (.8602 against .8601 on adult.test, the same
runs; ``results/defaults-time.md``)."""


def auto_best_of(n_rows: int) -> int:
    """``best_of`` of the final FIND-RS fit of automatic settings on ``n_rows`` training rows
    (docs/semantics.md §5.3): :data:`AUTO_BEST_OF`, or as many runs as fit in
    :data:`BEST_OF_ROW_RUNS` run-rows, at least one. Each run costs about as much as the others,
    and one run of a large noisy frame costs about as much as a large part of the cross-validation,
    so twenty runs there multiplied the fit's cost.

    Raises:
        TypeError: ``n_rows`` is not a number (the fit passes the frame's height).

    Example:
        >>> auto_best_of(8_000), auto_best_of(32_561), auto_best_of(100_000), auto_best_of(540_456)
        (20, 6, 2, 1)
    """
    return max(1, min(AUTO_BEST_OF, BEST_OF_ROW_RUNS // max(n_rows, 1)))


CV_ROWS = 8_000
"""The cross-validation sample of automatic settings (``cv_rows="auto"``, the default) on
training frames of up to ``2 * CV_ROWS`` rows (docs/semantics.md §9.4)."""

CV_ROWS_LARGE = 12_000
"""The sample ``cv_rows="auto"`` takes on frames of more than ``2 * CV_ROWS`` training rows,
where the 8,000-row sample picks coarser models (more support, simplified rules) than the rows
support. With it the default folds are 3 (:func:`findrs.select.auto.default_folds`: above 10,000
rows), so the cross-validation costs what the 8,000-row sample's 5 folds cost. On 24,420 of
Adult's rows, validated on the other 8,141 (training data only), 12,000 rows in 3 folds beat the
8,000 rows in 5 by +.0016 over six seeds (five better, one worse by .0001); 12,000 rows in 5
folds gained +.0011 at 1.6 times the CPU, 10,000 in 5 folds -.0001 (issue 12;
``results/adult-holdout.md``, "The cross-validation sample at the full data's scale"). The
default fit of all of Adult: 20.5 s wall, 40 CPU-s, as with 8,000 rows."""


def auto_cv_rows(n_rows: int) -> int:
    """``cv_rows="auto"``: the cross-validation sample for ``n_rows`` training rows:
    :data:`CV_ROWS` on frames of up to twice that many rows, :data:`CV_ROWS_LARGE` above.

    Raises:
        TypeError: ``n_rows`` is not a number (the fit passes the frame's height).

    Example:
        >>> auto_cv_rows(300), auto_cv_rows(16_000), auto_cv_rows(16_001), auto_cv_rows(32_561)
        (8000, 8000, 12000, 12000)
    """
    return CV_ROWS if n_rows <= 2 * CV_ROWS else CV_ROWS_LARGE


def _check_cv_rows_word(value: str) -> str:
    """``cv_rows`` given as a string at fit: only ``"auto"``."""
    if value != "auto":
        high = PARAMETERS["cv_rows"].high
        raise FindRSInputError(
            f'cv_rows must be an integer from 1 to {high}, None (every row) or "auto" (the default: '
            f'{CV_ROWS:,} rows, {CV_ROWS_LARGE:,} above {2 * CV_ROWS:,} training rows), got {value!r}')
    return value


def check_params(given: Mapping[str, Any], *, loading: bool = False) -> dict[str, Any]:
    """The fit parameters checked and normalised: every one of :data:`PARAMETERS`, defaults for
    those not given, ``T`` = 1 for FIND-RS, ``n_rules`` ``None`` unless BP, a drawn
    ``random_state`` for ``None``.

    At fit, a parameter of :data:`AUTOMATIC` may be ``"auto"`` (``n_rules``: ``"cv"``, BP only),
    a :class:`NotGiven` becomes its paper value or, with ``auto=True``, ``"auto"`` (``max_rules``:
    ``"auto"`` only for a FIND-RS fit with settings to choose, else ``None``), and
    ``"auto"`` in the result is the list of parameters to choose (``cv`` and ``cv_T`` stay as
    given: the fit fills them in when that list is not empty).

    Args:
        given: parameter names to values.
        loading: the parameters of a model file: every parameter must be present, as
            :meth:`RuleSetModel.params` recorded them (``random_state`` an integer, ``auto`` a
            list of names, the values chosen), except those of :data:`ABSENT_FROM_OLDER_FILES`.

    Raises:
        FindRSInputError: an unknown or missing parameter, or a value out of its range.

    Example:
        >>> p = check_params({"method": "find-rs", "random_state": 0})
        >>> p["T"], p["n_rules"], p["tolerance"]  # automatic by default
        (1, None, 'auto')
        >>> check_params({"tolerance": -1})
        Traceback (most recent call last):
        ...
        findrs.errors.FindRSInputError: tolerance must be ...
    """
    unknown = sorted(set(given) - set(PARAMETERS))
    if unknown:
        raise FindRSInputError(f"unknown parameter(s) {unknown}; the parameters are {list(PARAMETERS)}")
    if loading:
        missing = [k for k in PARAMETERS if k not in given and k not in ABSENT_FROM_OLDER_FILES]
        if missing:
            raise FindRSInputError(f"the parameters {missing} are missing")
        p = {**ABSENT_FROM_OLDER_FILES, **given}
        chosen = _chosen_list(p["auto"])
    else:
        p = {**DEFAULTS, **NOT_GIVEN, **given}
        auto = PARAMETERS["auto"].check("auto", p["auto"])
        p = {k: ("auto" if auto else v.paper) if isinstance(v, NotGiven) else v for k, v in p.items()}
        chosen = [k for k in AUTOMATIC if _is_auto(k, p[k])]
    out: dict[str, Any] = {}
    out["method"] = PARAMETERS["method"].check("method", p["method"])
    for name in (
        "encoding", "tolerance", "min_support", "direction", "shuffle", "bins", "accuracy_ratio", "simplify", "numeric",
        "interval_ends", "bin_edges",
    ):
        out[name] = "auto" if name in chosen and not loading else PARAMETERS[name].check(name, p[name])
    m = p["max_rules"]
    if not loading and isinstance(given.get("max_rules", NOT_GIVEN["max_rules"]), NotGiven) and (
            out["method"] != "find-rs" or not [c for c in chosen if c not in CHOSEN_BESIDES]):
        m = None  # docs/semantics.md §8.1: the default sizes FIND-RS fits whose settings are cross-validated
    sized = isinstance(m, str) and m == "auto" and not loading
    out["max_rules"] = None if m is None else "auto" if sized else PARAMETERS["max_rules"].check("max_rules", m)
    bp = out["method"] == "bp"
    if out["method"] == "find-rs":
        if loading and p["T"] != 1:
            raise FindRSInputError(f"a FIND-RS model has T = 1, got {p['T']!r}")
        out["T"] = 1
    else:
        out["T"] = PARAMETERS["T"].check("T", p["T"])
    rs = p["random_state"]
    if rs is None and not loading:
        rs = secrets.randbits(63)
    out["random_state"] = PARAMETERS["random_state"].check("random_state", rs)
    k = p["n_rules"]
    if not bp:
        if (loading or "n_rules" in chosen) and k is not None:
            what = "n_rules='cv' chooses BP's K; it needs method='bp'" if "n_rules" in chosen and not loading else (
                f"n_rules applies to BP models only; this one is {out['method']!r}, got {k!r}"
            )
            raise FindRSInputError(what)
        k = None
    elif not (k is None or (isinstance(k, str) and k in (("auto",) if loading else ("auto", "cv")))):
        k = PARAMETERS["n_rules"].check("n_rules", k) if not isinstance(k, str) else _bad_n_rules(k)
    out["n_rules"] = k
    for name in ("cv", "cv_T", "cv_rows"):
        if p[name] is None:
            out[name] = None
        elif name == "cv_rows" and not loading and isinstance(p[name], str):
            out[name] = _check_cv_rows_word(p[name])
        else:
            out[name] = PARAMETERS[name].check(name, p[name])
    out["run"], out["best_of"] = _check_run(p["run"], p["best_of"], out["method"], loading)
    if loading:
        if "n_rules" in chosen and not bp:
            raise FindRSInputError(f"auto lists n_rules, which a {out['method']!r} model does not have")
        if chosen and (out["cv"] is None or out["cv_T"] is None):
            raise FindRSInputError(f"the settings {chosen} were chosen by cross-validation, but cv and cv_T are null")
        if not chosen and (out["cv"], out["cv_T"], out["cv_rows"]) != (None, None, None):
            raise FindRSInputError("cv and cv_T describe a cross-validation, but auto lists no setting it chose")
    elif not chosen:
        out["cv"] = out["cv_T"] = out["cv_rows"] = None  # nothing to cross-validate
    elif out["method"] == "find-rs":
        out["cv_T"] = 1
    elif out["cv_T"] is None:
        out["cv_T"] = min(out["T"], 20)
    if out["cv_T"] is not None and out["cv_T"] > out["T"]:
        raise FindRSInputError(f"cv_T (runs per fit in the cross-validation) must be at most T = {out['T']}, got {out['cv_T']}")
    budget = [c for c in chosen if c not in CHOSEN_BESIDES] and out["max_rules"] is not None
    if budget and out["method"] != "find-rs":
        raise FindRSInputError(
            f"max_rules={out['max_rules']!r} with automatic settings ({', '.join(chosen)}) chooses among FIND-RS models "
            f"(docs/semantics.md §8.1); a {out['method']!r} fit takes a budget with auto=False, or pass method='find-rs'"
        )
    if sized and not chosen:
        raise FindRSInputError(
            "max_rules='auto' chooses the budget by the cross-validation of the automatic settings; with none "
            "(auto=False, or every setting given) pass a number of rules, or None"
        )
    if sized:
        chosen = [*chosen, "max_rules"]
    out["auto"] = chosen
    return {name: out[name] for name in PARAMETERS}


def _check_run(run: Any, best_of: Any, method: str, loading: bool) -> tuple[int, int]:
    """``run`` and ``best_of`` (docs/semantics.md §5.3): FIND-RS only (BO and BP aggregate the
    runs ``0..T``); at fit, ``run`` is 0 with ``best_of`` above 1 (it chooses the run); a
    model's ``run`` is below its ``best_of`` when that is above 1 (the run it kept)."""
    run = PARAMETERS["run"].check("run", run)
    best_of = PARAMETERS["best_of"].check("best_of", best_of)
    if method != "find-rs" and (run, best_of) != (0, 1):
        raise FindRSInputError(
            f"run and best_of choose the run of a FIND-RS fit; method={method!r} aggregates the runs 0..T "
            f"(got run={run}, best_of={best_of}): leave them out, or pass method='find-rs'")
    if best_of > 1 and run != 0 and not loading:
        raise FindRSInputError(
            f"best_of={best_of} chooses the run itself (the one of runs 0..{best_of - 1} with the most training "
            f"rows right); run must be 0 with it, got {run}: pass settings={{'run': {run}}} alone to fit that run")
    if best_of > 1 and run >= best_of:
        raise FindRSInputError(f"run {run} is not one of the runs 0..{best_of - 1} best_of={best_of} chose from")
    return run, best_of


def _is_auto(name: str, value: Any) -> bool:
    return isinstance(value, str) and value == ("cv" if name == "n_rules" else "auto")


def _chosen_list(value: Any) -> list[str]:
    """A model file's ``auto``: the parameters chosen by cross-validation, in :data:`AUTOMATIC`
    order."""
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise FindRSInputError(f"auto must be a list of parameter names, got {value!r}")
    names = (*AUTOMATIC, *CHOSEN_BESIDES)
    bad = [v for v in value if v not in names]
    if bad or len(set(value)) != len(value):
        raise FindRSInputError(f"auto lists each of {list(names)} at most once, got {value!r}")
    return _chosen_in_order(value)


def _chosen_in_order(names: Any) -> list[str]:
    """The parameter ``names`` a model's ``auto`` lists, in :data:`AUTOMATIC` then
    :data:`CHOSEN_BESIDES` order (each once)."""
    return [k for k in (*AUTOMATIC, *CHOSEN_BESIDES) if k in names]


def _bad_n_rules(value: Any) -> Any:
    raise FindRSInputError(f"n_rules must be 'auto', None or an integer of at least 1, got {value!r}")


def check_n_jobs(n_jobs: Any) -> int | None:
    """``None`` or ``-1``: all cores; else a thread count from 1 to 4096.

    Raises:
        FindRSInputError: anything else.

    Example:
        >>> check_n_jobs(-1) is None, check_n_jobs(2)
        (True, 2)
    """
    if n_jobs is None or (isinstance(n_jobs, numbers.Integral) and not isinstance(n_jobs, bool) and n_jobs == -1):
        return None
    return _Int(1, 4096).check("n_jobs", n_jobs)
