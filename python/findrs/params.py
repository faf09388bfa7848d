"""The parameters of a fit and their ranges, declared once.

:func:`findrs.fit` (and through it ``FindRSClassifier`` and the ``findrs fit`` command) checks
its arguments here, and loading a model file checks the file's ``params`` against the same
table, so a range is written in one place. The Rust core checks the ranges it needs again for
its own callers, with the same bounds (``T`` up to :data:`MAX_T`, ``accuracy_ratio`` in
(0, 1]).

Example:
    >>> from findrs.params import check_params
    >>> check_params({"method": "bp", "T": 10})["n_rules"]
    'auto'
"""

from __future__ import annotations

import math
import numbers
import secrets
from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np

from .errors import FindRSInputError

MAX_T = 1_000_000
"""The most runs a fit makes (the core's ``MAX_RUNS``; the model module checks they agree)."""


@dataclass(frozen=True)
class _Int:
    low: int
    high: int

    def check(self, name: str, value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, numbers.Integral) or not (self.low <= value <= self.high):
            raise FindRSInputError(f"{name} must be an integer from {self.low} to {self.high}, got {value!r}")
        return int(value)


@dataclass(frozen=True)
class _Ratio:
    """A number in (0, 1]."""

    def check(self, name: str, value: Any) -> float:
        ok = not isinstance(value, bool) and isinstance(value, numbers.Real) and math.isfinite(float(value))
        if not ok or not (0.0 < float(value) <= 1.0):
            raise FindRSInputError(f"{name} must be a number in (0, 1], got {value!r}")
        return float(value)


@dataclass(frozen=True)
class _Choice:
    values: tuple[str, ...]

    def check(self, name: str, value: Any) -> str:
        if not isinstance(value, str) or value not in self.values:
            shown = ", ".join(repr(v) for v in self.values)
            raise FindRSInputError(f"{name} must be one of {shown}, got {value!r}")
        return value


@dataclass(frozen=True)
class _Bool:
    def check(self, name: str, value: Any) -> bool:
        if not isinstance(value, (bool, np.bool_)):
            raise FindRSInputError(f"{name} must be True or False, got {value!r}")
        return bool(value)


PARAMETERS: dict[str, Any] = {
    "method": _Choice(("find-rs", "bo", "bp")),
    "encoding": _Choice(("av", "oh")),
    "tolerance": _Int(0, 2**32 - 1),
    "shuffle": _Bool(),
    "random_state": _Int(0, 2**64 - 1),
    "bins": _Int(2, 1_000_000),
    "T": _Int(1, MAX_T),
    "n_rules": _Int(1, 2**63 - 1),  # or "auto" or None (BP only)
    "accuracy_ratio": _Ratio(),
    "simplify": _Bool(),
    "max_rules": _Int(1, 2**63 - 1),  # or None
}
"""Each parameter a model records, with its range (``n_rules`` may also be ``"auto"`` or
``None``; ``max_rules`` ``None``; ``random_state`` ``None`` draws a seed)."""

DEFAULTS: dict[str, Any] = {
    "method": "find-rs",
    "encoding": "av",
    "tolerance": 0,
    "shuffle": True,
    "random_state": None,
    "bins": 10,
    "T": 100,
    "n_rules": "auto",
    "accuracy_ratio": 0.99,
    "simplify": False,
    "max_rules": None,
}

ABSENT_FROM_OLDER_FILES: dict[str, Any] = {
    "simplify": False,
    "max_rules": None,
}
"""Parameters added after findrs first wrote model files, with the value a file written without
them means (they did not exist, so the fit did without them). Not :data:`DEFAULTS`, which may
change."""


def check_params(given: Mapping[str, Any], *, loading: bool = False) -> dict[str, Any]:
    """The fit parameters checked and normalised: every one of :data:`PARAMETERS`, defaults for
    those not given, ``T`` = 1 for FIND-RS, ``n_rules`` ``None`` unless BP, a drawn
    ``random_state`` for ``None``.

    Args:
        given: parameter names to values.
        loading: the parameters of a model file: every parameter must be present, as
            :meth:`RuleSetModel.params` recorded them (``random_state`` an integer), except
            those of :data:`ABSENT_FROM_OLDER_FILES`.

    Raises:
        FindRSInputError: an unknown or missing parameter, or a value out of its range.
    """
    unknown = sorted(set(given) - set(PARAMETERS))
    if unknown:
        raise FindRSInputError(f"unknown parameter(s) {unknown}; the parameters are {list(PARAMETERS)}")
    if loading:
        missing = [k for k in PARAMETERS if k not in given and k not in ABSENT_FROM_OLDER_FILES]
        if missing:
            raise FindRSInputError(f"the parameters {missing} are missing")
        given = {**ABSENT_FROM_OLDER_FILES, **given}
    p = {**DEFAULTS, **given}
    out: dict[str, Any] = {}
    out["method"] = PARAMETERS["method"].check("method", p["method"])
    for name in ("encoding", "tolerance", "shuffle", "bins", "accuracy_ratio", "simplify"):
        out[name] = PARAMETERS[name].check(name, p[name])
    m = p["max_rules"]
    out["max_rules"] = None if m is None else PARAMETERS["max_rules"].check("max_rules", m)
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
        if loading and k is not None:
            raise FindRSInputError(f"n_rules applies to BP models only; this one is {out['method']!r}, got {k!r}")
        k = None
    elif not (k is None or (isinstance(k, str) and k == "auto")):
        k = PARAMETERS["n_rules"].check("n_rules", k) if not isinstance(k, str) else _bad_n_rules(k)
    out["n_rules"] = k
    return {name: out[name] for name in PARAMETERS}


def _bad_n_rules(value: Any) -> Any:
    raise FindRSInputError(f"n_rules must be 'auto', None or an integer of at least 1, got {value!r}")


def check_n_jobs(n_jobs: Any) -> int | None:
    """``None`` or ``-1``: all cores; else a thread count from 1 to 4096.

    Raises:
        FindRSInputError: anything else.
    """
    if n_jobs is None or (isinstance(n_jobs, numbers.Integral) and not isinstance(n_jobs, bool) and n_jobs == -1):
        return None
    return _Int(1, 4096).check("n_jobs", n_jobs)
