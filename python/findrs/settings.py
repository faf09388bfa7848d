"""Every parameter of a fit, declared once: :data:`TABLE`, and :class:`Settings`, its expert part.

Each :class:`Param` of the table holds a parameter's name, where it is given (a keyword of
:func:`findrs.fit`, or a field of :class:`Settings` in one of its sections), its type, its
default, its check (the allowed values), its one-line doc and how the command line spells it.
Everything else is generated from it: :class:`Settings` (fields, defaults, docstring), the ranges
``check_params`` applies to a fit and to a model file (:data:`PARAMETERS`, in the order model
files record them), the defaults (:data:`DEFAULTS`, :data:`NOT_GIVEN`), the ``findrs fit``
command's options (:func:`add_cli_options`) and, through :func:`findrs.fit`'s signature, the
namespace methods and the scikit-learn estimator's parameters. A test checks that ``fit``'s
keywords are exactly the table's ``"fit"`` entries.

This module imports nothing of findrs but its errors, so every layer may read it.

Example:
    >>> import findrs
    >>> s = findrs.Settings(tolerance=0.1, bins=20)
    >>> s
    Settings(tolerance=0.1, bins=20)
    >>> s.tolerance, s.min_support   # not given: chosen by cross-validation (auto=True)
    (0.1, 'auto' (or 0 with auto=False))
    >>> [p.name for p in TABLE if p.where == "fit"]
    ['method', 'random_state', 'max_rules', 'auto', 'features', 'n_jobs', 'verbose']
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import numbers
from dataclasses import dataclass, field
from typing import Any, Callable, Literal, Mapping, Sequence  # noqa: F401  (Sequence: TABLE's types)

import numpy as np

from .errors import FindRSInputError

MAX_T = 1_000_000
"""The most runs a fit makes (the core's ``MAX_RUNS``; the model module checks they agree)."""


# ----------------------------------------------------------------------------- checks
@dataclass(frozen=True)
class _Int:
    low: int
    high: int
    words: str = ""
    """The other values the parameter takes, named in the message (``', "auto" or None'``)."""

    def check(self, name: str, value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, numbers.Integral) or not (self.low <= value <= self.high):
            raise FindRSInputError(f"{name} must be an integer from {self.low} to {self.high}{self.words}, got {value!r}")
        return int(value)


@dataclass(frozen=True)
class _Tolerance:
    """An int count of negatives (the paper's tau), or a float share in [0, 1) (``0.0`` is the
    count 0)."""

    def check(self, name: str, value: Any) -> int | float:
        if isinstance(value, (float, np.floating)):
            v = float(value)
            if not (math.isfinite(v) and 0.0 <= v < 1.0):
                raise FindRSInputError(
                    f"{name}={value!r}: a float is the largest share of negatives among the training rows "
                    f"a rule covers and must be in [0, 1); pass an int to allow a count of negatives"
                )
            return 0 if v == 0.0 else v
        if isinstance(value, bool) or not isinstance(value, numbers.Integral) or not (0 <= value <= 2**32 - 1):
            raise FindRSInputError(
                f"{name} must be an integer from 0 to {2**32 - 1} (a count of negatives) or a float in "
                f"[0, 1) (a share of the rows a rule covers), got {value!r}"
            )
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


@dataclass(frozen=True)
class _Any:
    """Checked where it is used (features, n_jobs, multiclass, exceptions, chunks)."""

    def check(self, name: str, value: Any) -> Any:
        return value


class NotGiven:
    """The default of a parameter ``fit`` chooses automatically: ``"auto"`` (with
    ``auto=True``, the default), or the paper's value with ``auto=False``.

    Example:
        >>> NOT_GIVEN["tolerance"]
        'auto' (or 0 with auto=False)
    """

    __slots__ = ("paper", "name")

    def __init__(self, paper: Any, name: str = "") -> None:
        self.paper = paper
        self.name = name

    def __repr__(self) -> str:
        return f"'auto' (or {self.paper!r} with auto=False)"

    def __reduce__(self) -> tuple[Any, ...]:  # copies and pickles are the table's own object
        return (_not_given, (self.name,))


def _not_given(name: str) -> "NotGiven":
    return NOT_GIVEN[name]


# ----------------------------------------------------------------------------- command line
def _cli_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer, got {text!r}")
    return value


def _cli_words(*words: str, number: Callable[[str], Any] = _cli_int, none: str | None = None) -> Callable[[str], Any]:
    """A parser that takes the given words as themselves, ``none`` as None, else ``number``."""

    def parse(text: str) -> Any:
        if text in words:
            return text
        if none is not None and text == none:
            return None
        try:
            return number(text)
        except (ValueError, argparse.ArgumentTypeError):
            shown = ", ".join(repr(w) for w in (*words, *([none] if none else [])))
            raise argparse.ArgumentTypeError(f"expected a number or one of {shown}, got {text!r}") from None

    parse.__name__ = number.__name__
    return parse


def _cli_tolerance(text: str) -> int | float:
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a count of negatives, a share in [0, 1) or 'auto', got {text!r}") from None


def _cli_bool(text: str) -> bool | str:
    if text in ("auto", "yes", "no", "true", "false"):
        return "auto" if text == "auto" else text in ("yes", "true")
    raise argparse.ArgumentTypeError(f"expected yes, no or auto, got {text!r}")


def _cli_features(text: str) -> list[str]:
    return [f.strip() for f in text.split(",") if f.strip()]


# ----------------------------------------------------------------------------- the table
Where = Literal["fit", "rules", "votes", "numeric", "cv", "classes"]

SECTIONS: dict[str, str] = {
    "rules": "the rules of one run",
    "votes": "BO/BP votes of T runs",
    "numeric": "numeric columns",
    "cv": "the cross-validation of automatic settings",
    "classes": "more than two classes",
}
"""The sections of :class:`Settings`, in the order its docstring lists them."""


@dataclass(frozen=True)
class Param:
    """One parameter of a fit.

    ``where``: ``"fit"`` for a keyword of :func:`findrs.fit`, else the :data:`SECTIONS` of
    :class:`Settings` it belongs to. ``default``: what ``fit`` uses when it is not given (a
    :class:`NotGiven` for the settings ``auto=True`` chooses). ``recorded``: in a model's
    ``params`` (and its file), then ``base`` is the value a ``params`` dict means without it
    (``None`` there: the same as ``default``). ``cli``: the ``findrs fit`` option's argparse
    keywords (``None``: the plain ``--name`` flag of a string value; ``False``: no option)."""

    name: str
    where: Where
    type: str
    default: Any
    check: Any
    doc: str
    recorded: bool = True
    base: Any = None
    cli: dict[str, Any] | Literal[False] | None = None

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")


def _auto(paper: Any) -> NotGiven:
    return NotGiven(paper)


TABLE: tuple[Param, ...] = (
    # Recorded in every model's params, in the order files hold them.
    Param("method", "fit", 'Literal["find-rs", "bo", "bp", "bo+bp"] | None', None, _Choice(("find-rs", "bo", "bp")),
          '"find-rs" (one run), "bo" / "bp" (a vote of T runs), "bo+bp" (both from one set of runs); '
          "None: FIND-RS, or a budgeted BP vote when the cross-validation prefers it", base="find-rs",
          cli=dict(choices=["find-rs", "bo", "bp"])),
    Param("encoding", "rules", 'Literal["av", "oh", "auto"]', _auto("av"), _Choice(("av", "oh")),
          '"av" (a = v conditions) or "oh" (value sets)', cli=dict(choices=["av", "oh", "auto"])),
    Param("tolerance", "rules", 'int | float | Literal["auto"]', _auto(0), _Tolerance(),
          "training negatives a rule may cover (an int, the paper's tau) or their largest share of the rows it "
          "covers (a float in [0, 1))", cli=dict(type=_cli_words("auto", number=_cli_tolerance), metavar="N|S|auto")),
    Param("min_support", "rules", 'int | Literal["auto"]', _auto(0), _Int(0, 2**32 - 1),
          "drop every rule covering fewer training positives", cli=dict(type=_cli_words("auto"), metavar="N|auto")),
    Param("direction", "rules", 'Literal["positive", "negative", "auto"]', _auto("positive"),
          _Choice(("positive", "negative")), 'the label the rules describe: "positive" or the other one ("negative")',
          cli=dict(choices=["positive", "negative", "auto"])),
    Param("shuffle", "rules", "bool", True, _Bool(), "present the positives in a random order (False: row order)",
          cli=dict(type=_cli_bool, metavar="yes|no")),
    Param("random_state", "fit", "int | None", None, _Int(0, 2**64 - 1),
          "seed of the presentation orders and folds; None draws one (recorded in the model)",
          cli=dict(type=_cli_int, metavar="N")),
    Param("bins", "numeric", "int", 10, _Int(2, 1_000_000), "bins of a binned numeric column",
          cli=dict(type=_cli_int, metavar="N")),
    Param("T", "votes", "int", 100, _Int(1, MAX_T), "runs of a BO/BP fit", cli=dict(type=_cli_int, metavar="N")),
    Param("n_rules", "votes", 'int | Literal["auto", "cv"] | None', "auto", _Int(1, 2**63 - 1, ', "auto", "cv" or None'),
          'BP: the K best rules vote ("auto": the smallest K within accuracy_ratio of all; None: all; "cv")',
          cli=dict(type=_cli_words("auto", "cv", none="all"), metavar="auto|N|all|cv")),
    Param("accuracy_ratio", "votes", "float", 0.99, _Ratio(), 'BP with n_rules="auto": the share of all rules\' '
          "training accuracy K must reach", cli=dict(type=float, metavar="R")),
    Param("simplify", "rules", 'bool | Literal["auto"]', _auto(False), _Bool(),
          "shorten each run's rules to the conditions they need to pass the tolerance",
          cli=dict(type=_cli_bool, nargs="?", const=True, metavar="yes|no|auto")),
    Param("max_rules", "fit", 'int | Literal["auto"] | None', _auto(None),
          _Int(1, 2**63 - 1, ', "auto" (the size chosen by cross-validation) or None (no budget)'),
          'a rule budget: at most this many voting rules ("auto", the default with automatic settings: the '
          "smallest model within half a standard error of the most accurate, chosen by cross-validation; "
          "no budget, the most accurate model of any size: None, or none on the command line)",
          cli=dict(type=_cli_words("auto", none="none"), metavar="N|auto|none")),
    Param("auto", "fit", "bool", True, _Bool(),
          "choose the settings not given by cross-validation; False: the paper's algorithm", cli=False),
    Param("cv", "cv", "int | None", None, _Int(2, 1000, " or None"), "folds (None: 5, or 3 above 10,000 rows)",
          cli=dict(type=_cli_int, metavar="K")),
    Param("cv_T", "cv", "int | None", None, _Int(1, MAX_T, " or None"), "runs per BO/BP fit inside it (None: min(T, 20))",
          cli=dict(type=_cli_int, metavar="N")),
    Param("numeric", "numeric", 'Literal["bins", "interval"] | None', None, _Choice(("bins", "interval")),
          '"bins" or "interval" (a rule keeps an interval of the values); None: chosen by the cross-validation',
          base="bins", cli=dict(choices=["bins", "interval"])),
    Param("interval_ends", "numeric", 'Literal["tight", "midpoint", "open", "widened"]', "open",
          _Choice(("tight", "midpoint", "open", "widened")), "where an interval's ends sit for unseen values",
          cli=dict(choices=["tight", "midpoint", "open", "widened"])),
    Param("cv_rows", "cv", 'int | Literal["auto"] | None', "auto", _Int(1, 2**63 - 1),
          'a stratified sample of at most this many rows ("auto": 8,000, or 12,000 above 16,000; None: all)',
          cli=dict(type=_cli_words("auto", none="all"), metavar="N|auto|all")),
    Param("bin_edges", "numeric", 'Literal["uniform", "quantile", "supervised"] | None', None,
          _Choice(("uniform", "quantile", "supervised")),
          '"uniform" (equal width), "quantile" or "supervised" (entropy cuts); None: chosen by the cross-validation',
          base="uniform", cli=dict(choices=["uniform", "quantile", "supervised"])),
    Param("run", "rules", "int", 0, _Int(0, MAX_T - 1), "FIND-RS: the run whose presentation order is used",
          cli=dict(type=_cli_int, metavar="N")),
    Param("best_of", "rules", "int | None", None, _Int(1, MAX_T, " or None"),
          "FIND-RS: keep the best of runs 0..best_of on training rows (None: 1, or 20 with automatic settings)",
          base=1, cli=dict(type=_cli_int, metavar="N")),
    # Not recorded in a model's params.
    Param("features", "fit", "Sequence[str] | None", None, _Any(), "the feature columns (None: all but the target)",
          recorded=False, cli=dict(type=_cli_features, metavar="a,b,c")),
    Param("n_jobs", "fit", "int | None", None, _Any(), "threads (None or -1: all cores); never changes the model",
          recorded=False, cli=dict(type=_cli_int, metavar="N")),
    Param("verbose", "fit", "bool", False, _Any(), "show the stage that runs, its runs, elapsed and remaining time on stderr", recorded=False,
          cli=dict(action="store_true")),
    Param("multiclass", "classes", 'Literal["auto", "frequent-first", "rarest-first", "one-vs-rest"]', "auto", _Any(),
          "how the class rule sets combine (\"auto\": by cross-validation)", recorded=False,
          cli=dict(choices=["auto", "frequent-first", "rarest-first", "one-vs-rest"])),
    Param("exceptions", "rules", 'bool | Literal["auto"] | None', None, _Any(),
          'rules with exceptions (True), or "auto" (kept when they cross-validate better); None: "auto" with '
          "automatic settings", recorded=False, cli=dict(action=argparse.BooleanOptionalAction)),
    Param("chunks", "votes", "int | None", None, _Any(),
          "split the T runs into this many joblib tasks (a Dask cluster with joblib's dask backend)",
          recorded=False, cli=dict(type=_cli_int, metavar="N")),
)
"""Every parameter of :func:`findrs.fit`, once. The recorded ones come first, in the order a
model's ``params`` and its file hold them."""

for _p in TABLE:
    if isinstance(_p.default, NotGiven):
        _p.default.name = _p.name

BY_NAME: dict[str, Param] = {p.name: p for p in TABLE}
FIT_KEYWORDS: tuple[str, ...] = tuple(p.name for p in TABLE if p.where == "fit")
"""The keywords of :func:`findrs.fit` besides ``settings`` (a test checks its signature)."""
SETTING_NAMES: tuple[str, ...] = tuple(p.name for p in TABLE if p.where != "fit")

PARAMETERS: dict[str, Any] = {p.name: p.check for p in TABLE if p.recorded}
"""Each parameter a model records, with its range, in file order (``n_rules`` may also be
``"auto"`` or ``None``; ``max_rules``, ``cv``, ``cv_T`` and ``cv_rows`` ``None``;
``random_state`` ``None`` draws a seed; ``cv_rows`` ``"auto"`` at fit)."""

DEFAULTS: dict[str, Any] = {
    p.name: p.default.paper if isinstance(p.default, NotGiven) else p.base if p.base is not None else p.default
    for p in TABLE
    if p.recorded
}
"""The value each recorded parameter takes in a ``params`` dict that does not give it."""

NOT_GIVEN: dict[str, NotGiven] = {p.name: p.default for p in TABLE if isinstance(p.default, NotGiven)}
"""The defaults of the settings ``auto=True`` chooses when they are not given."""


# ----------------------------------------------------------------------------- Settings
def _settings_doc() -> str:
    lines = [
        "The expert settings of a fit, grouped by what they act on; those not given keep their defaults.",
        "",
        "Pass one to :func:`findrs.fit` (or a plain dict of the same names): ``findrs.fit(df, 'y',",
        "settings=findrs.Settings(tolerance=0.1, numeric='interval'))``. With ``auto=True`` (the",
        "default) the settings shown as ``'auto'`` are chosen by stratified cross-validation when not",
        "given; ``auto=False`` gives them the paper's values. docs/settings.md explains each one.",
        "",
    ]
    for section, title in SECTIONS.items():
        lines.append(f"{title[0].upper()}{title[1:]}:")
        for p in TABLE:
            if p.where == section:
                lines.append(f"    {p.name} (default {p.default!r}): {p.doc}.")
        lines.append("")
    lines += [
        "Raises:",
        "    FindRSInputError: an unknown setting name (the message lists them); values are checked by",
        "        :func:`findrs.fit`.",
        "",
        "Example:",
        "    >>> import findrs",
        "    >>> df = findrs.datasets.tic_tac_toe()",
        "    >>> findrs.fit(df, 'class', 'positive', settings=findrs.Settings(tolerance=2), auto=False).params['tolerance']",
        "    2",
    ]
    return "\n".join(lines)


def _init_fields() -> list[tuple[str, Any, Any]]:
    # Types as objects (not strings), so documentation tools need not evaluate them here.
    return [(p.name, eval(p.type, globals()), field(default=p.default, metadata={"param": p}))  # noqa: S307
            for p in TABLE if p.where != "fit"]


def _repr(self: Any) -> str:
    given = ", ".join(f"{k}={v!r}" for k, v in self.given().items())
    return f"Settings({given})"


def _given(self: Any) -> dict[str, Any]:
    """The settings that differ from their defaults.

    Example:
        >>> import findrs
        >>> findrs.Settings(bins=5, tolerance=0).given()
        {'tolerance': 0, 'bins': 5}
    """
    return {k: getattr(self, k) for k in SETTING_NAMES if not _same(getattr(self, k), BY_NAME[k].default)}


def _as_dict(self: Any) -> dict[str, Any]:
    """Every setting by name, defaults included.

    Example:
        >>> import findrs
        >>> d = findrs.Settings(bins=5).as_dict()
        >>> d["bins"], d["T"], len(d) == len(findrs.settings.SETTING_NAMES)
        (5, 100, True)
    """
    return {k: getattr(self, k) for k in SETTING_NAMES}


def _get_params(self: Any, deep: bool = True) -> dict[str, Any]:
    """scikit-learn's protocol (every setting by name), so ``GridSearchCV`` can tune
    ``settings__tolerance`` of a ``FindRSClassifier``.

    Raises:
        Nothing: every setting has a value.

    Example:
        >>> import findrs
        >>> findrs.Settings(tolerance=2).get_params()["tolerance"]
        2
    """
    return _as_dict(self)


def _set_params(self: Any, **params: Any) -> Any:
    """Sets settings in place and returns the value (scikit-learn's protocol).

    Raises:
        FindRSInputError: an unknown setting name.

    Example:
        >>> import findrs
        >>> findrs.Settings().set_params(bins=4)
        Settings(bins=4)
    """
    unknown = sorted(set(params) - set(SETTING_NAMES))
    if unknown:
        raise FindRSInputError(_unknown_message(unknown))
    for k, v in params.items():
        setattr(self, k, v)
    return self


def _replace(self: Any, **changes: Any) -> Any:
    """A copy with ``changes``.

    Raises:
        FindRSInputError: an unknown setting name.

    Example:
        >>> import findrs
        >>> findrs.Settings(bins=4).replace(tolerance=0.1)
        Settings(tolerance=0.1, bins=4)
    """
    return coerce({**_as_dict(self), **changes})


def _same(a: Any, b: Any) -> bool:
    return a is b or (type(a) is type(b) and not isinstance(a, NotGiven) and a == b)


def _eq(self: Any, other: Any) -> bool:
    if type(other) is not type(self):
        return NotImplemented
    return all(_same(getattr(self, k), getattr(other, k)) for k in SETTING_NAMES)


Settings = dataclasses.make_dataclass(
    "Settings",
    _init_fields(),
    kw_only=True,
    eq=False,
    repr=False,
    namespace={"__repr__": _repr, "__eq__": _eq, "__hash__": None, "given": _given, "as_dict": _as_dict,
               "get_params": _get_params, "set_params": _set_params, "replace": _replace},
)
Settings.__module__ = __name__
Settings.__qualname__ = "Settings"
Settings.__doc__ = _settings_doc()


def _unknown_message(names: list[str]) -> str:
    fit_level = [n for n in names if n in FIT_KEYWORDS]
    where = (f"; {fit_level} {'is a keyword' if len(fit_level) == 1 else 'are keywords'} of findrs.fit itself"
             if fit_level else "")
    return f"unknown setting(s) {names}{where}; the settings are {list(SETTING_NAMES)}"


def coerce(settings: Any) -> Any:
    """``settings`` as a :class:`Settings`: one, a mapping of setting names, or ``None`` (all
    defaults).

    Raises:
        FindRSInputError: another type, or an unknown name (the message names it and lists the
            settings, or says it is a keyword of ``fit`` itself).

    Example:
        >>> coerce({"bins": 5}).bins, coerce(None).bins
        (5, 10)
    """
    if settings is None:
        return Settings()
    if isinstance(settings, Settings):
        return settings
    if isinstance(settings, Mapping):
        unknown = sorted((str(k) for k in settings if k not in SETTING_NAMES), key=str)
        if unknown:
            raise FindRSInputError(_unknown_message(unknown))
        return Settings(**settings)
    raise FindRSInputError(
        f"settings must be a findrs.Settings, a dict of setting names or None, got {type(settings).__name__}: "
        f"pass settings=findrs.Settings(tolerance=0.1) or settings={{'tolerance': 0.1}}")


def fit_keywords(flat: Mapping[str, Any]) -> dict[str, Any]:
    """The keywords of :func:`findrs.fit` for parameters named flat (every name of
    :data:`TABLE`, as scripts that build their settings as one dict name them): the fit's own
    keywords (and ``positive``) as they are, the rest as one :class:`Settings` value (merged with a ``settings``
    entry, if any).

    Raises:
        FindRSInputError: a name that is neither a keyword of ``fit`` nor a setting.

    Example:
        >>> fit_keywords({"random_state": 0, "tolerance": 2})
        {'random_state': 0, 'settings': Settings(tolerance=2)}
    """
    given = dict(flat)
    base = coerce(given.pop("settings", None))
    own = (*FIT_KEYWORDS, "positive")
    keywords = {k: v for k, v in given.items() if k in own}
    rest = {k: v for k, v in given.items() if k not in own}
    return {**keywords, "settings": base.replace(**rest) if rest else base}


def add_cli_options(parser: argparse.ArgumentParser) -> None:
    """Adds one ``findrs fit`` option per parameter of :data:`TABLE` that has one, its help the
    table's doc line and its default. Options not given are absent from the parsed namespace
    (``argparse.SUPPRESS``), so the fit's call leaves them out and the table's default applies.

    Raises:
        argparse.ArgumentError: a flag already on ``parser``.
    """
    for p in TABLE:
        if p.cli is False:
            continue
        extra = dict(p.cli or {})
        default = f"default {p.default!r}".replace("'auto' (or", "default 'auto' (or").replace("default default ", "default ")
        flags = [p.flag, "-T"] if p.name == "T" else [p.flag]
        parser.add_argument(*flags, dest=p.name, default=argparse.SUPPRESS, help=f"{p.doc} ({default})", **extra)
