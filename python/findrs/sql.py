"""SQL export: a fitted model as one SQL expression that computes what ``model.predict`` computes.

The expression reads the raw feature columns (no encoding step) and follows semantics §2 exactly:

- a categorical constraint allowing one value is ``col = 'v'`` (``col IS NULL`` for null); one
  allowing a set S of two or more values is ``col NOT IN (domain - S)`` so that a value never
  seen in training passes it; null is a value of its own when training held nulls, otherwise it
  is an unseen value (fails ``col = 'v'``, passes ``NOT IN``);
- a binned numeric constraint computes the bin index as findrs does (KBinsDiscretizer's nudge
  ``x + (1e-8 + 1e-5 * |x|)`` in double precision, then the number of inner edges at or below it)
  through a ``CASE`` over the inner edges, and maps each bin to "allowed" or not; a bin that held
  no training value is an unseen value; NaN is null and infinities fall in the end bins, as in
  findrs.

semantics §5's votes are plain integer sums: FIND-RS is a DNF, BO counts the runs whose rule set holds
(positive iff the count is above T/2, a tie is negative), BP sums the weights of the kept rules
that hold (positive iff above floor(kept_weight * T / (2 * total_weight))).

Dialects: ``"duckdb"`` (default) and ``"sqlite"``. Double constants are written so that both read
them back exactly (DuckDB: shortest round-trip literals with an exponent, which it reads as
DOUBLE; SQLite, whose text-to-double conversion is not always correctly rounded: an integer
mantissa scaled by powers of two).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Sequence

from .encode import _ATOL, _RTOL, FeatureEncoder
from .errors import FindRSInputError

if TYPE_CHECKING:
    from .model import RuleSetModel

_OUTPUTS = ("predict", "score", "decision")
# Long AND/OR/+ chains are nested in groups (SQLite refuses expressions deeper than 1000).
_GROUP = 64
_PLAIN_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")


@dataclass(frozen=True)
class _Dialect:
    name: str
    double: str
    has_nan: bool


_DIALECTS = {
    "duckdb": _Dialect("duckdb", "DOUBLE", True),
    "sqlite": _Dialect("sqlite", "REAL", False),
}


def _dialect(name: str) -> _Dialect:
    if name not in _DIALECTS:
        raise FindRSInputError(f"dialect must be one of {sorted(_DIALECTS)}, got {name!r}")
    return _DIALECTS[name]


def model_to_sql(
    model: "RuleSetModel",
    *,
    table: str | Sequence[str] | None = None,
    dialect: str = "duckdb",
    output: str = "predict",
) -> str:
    """SQL that computes the model's predictions (or scores) from the raw feature columns.

    Args:
        model: a fitted :class:`~findrs.RuleSetModel` (any method, either encoding).
        table: when given, a whole query ``SELECT *, <expr> AS "<target>_predicted" FROM table``
            (``_score`` / ``_decision`` for the other outputs). A string of plain dotted names
            (``main.games``) is quoted part by part, any other string as one identifier; a
            sequence of strings gives the parts of a qualified name.
        dialect: ``"duckdb"`` or ``"sqlite"``.
        output: ``"predict"``: the predicted label (the model's labels in their type; a boolean
            for a one-vs-rest model), as ``model.predict``; ``"score"``: the integer vote the
            core computes (FIND-RS 0/1, BO the number of runs that hold, BP the summed weights of
            the kept rules that hold), as ``model._core.scores``; ``"decision"``: the double
            ``model.decision_function`` returns.

    Returns:
        The SQL text (an expression, or a query when ``table`` is given).

    Raises:
        FindRSInputError: an unknown dialect or output.

    Example:
        >>> import findrs
        >>> from findrs.sql import model_to_sql
        >>> m = findrs.datasets.tic_tac_toe().findrs.fit("class", "positive", shuffle=False)
        >>> print(model_to_sql(m).splitlines()[1])
          WHEN ("top_left" = 'x' AND "top_middle" = 'x' AND "top_right" = 'x') THEN 'positive'
        >>> print(model_to_sql(m).splitlines()[-1])
          ELSE 'negative' END
    """
    d = _dialect(dialect)
    if output not in _OUTPUTS:
        raise FindRSInputError(f"output must be one of {list(_OUTPUTS)}, got {output!r}")
    core = model._core
    kept = model.n_rules
    rules = [_rule_sql(model.encoders, r, d) for r in core.rules(kept)]
    method = model.method

    target = model.target
    if target.negative is None:
        pos, neg = "TRUE", "FALSE"
    else:
        pos, neg = _literal(target.positive, d), _literal(target.negative, d)

    if method == "find-rs":
        # The DNF as a CASE over the rules: DuckDB plans a long WHEN list in linear time, a long
        # OR chain in superlinear time.
        score = _first_match(rules, "1", "0", "  ")
        predict = _first_match(rules, pos, neg, "  ")
    else:
        if method == "bo":
            # Runs with the same rule set vote together (same coverage), counted with multiplicity.
            runs = Counter(tuple(sorted(set(int(i) for i in run))) for run in core.runs)
            terms = [_first_match([rules[i] for i in run], str(times), "0", "    ") for run, times in runs.items()]
        else:
            terms = [f"CASE WHEN {r} THEN {int(w)} ELSE 0 END" for r, w in zip(rules, core.weights[:kept])]
        score = _join("+", terms, "0", "\n  ")
        predict = f"CASE WHEN {score}\n  > {int(core.threshold())}\n  THEN {pos} ELSE {neg} END"

    if output == "score":
        expr = score
    elif output == "decision":
        expr = _decision_sql(model, score, d)
    else:
        expr = predict
    if table is None:
        return expr
    suffix = {"predict": "predicted", "score": "score", "decision": "decision"}[output]
    alias = quote_identifier(f"{model.target.name}_{suffix}")
    return f"SELECT *,\n{expr} AS {alias}\nFROM {_table_name(table)}"


def _first_match(conditions: Sequence[str], then: str, other: str, indent: str) -> str:
    """``then`` if any condition holds, else ``other``, as ``CASE WHEN c1 THEN .. WHEN c2 ..``."""
    if not conditions:
        return other
    whens = "".join(f"\n{indent}WHEN {c} THEN {then}" for c in conditions)
    return f"CASE{whens}\n{indent}ELSE {other} END"


# --------------------------------------------------------------------------- constraints
def _rule_sql(encoders: Sequence[FeatureEncoder], constraints: Sequence[tuple[int, Sequence[int]]], d: _Dialect) -> str:
    parts = [constraint_sql(encoders[f], codes, d.name) for f, codes in constraints]
    return _join("AND", parts, "TRUE", " ")


def constraint_sql(enc: FeatureEncoder, codes: Sequence[int], dialect: str = "duckdb") -> str:
    """SQL condition of one constraint of feature ``enc`` allowing the training codes ``codes``
    (semantics §2: one code is ``a = v``; two or more are ``a not in (domain - S)``, unseen values pass)."""
    d = _dialect(dialect)
    allowed = set(int(c) for c in codes)
    multi = len(allowed) >= 2
    null_code = enc.domain_size - 1 if enc.has_null else None
    # A null never seen in training is an unseen value.
    null_ok = (null_code in allowed) if null_code is not None else multi
    if enc.kind == "binned":
        return _binned_sql(enc, allowed, multi, null_ok, d)
    col = quote_identifier(enc.name)
    if not multi:
        (code,) = allowed
        v = enc.values[code]
        return f"{col} IS NULL" if v is None else f"{col} = {_literal(v, d)}"
    excluded = [_literal(enc.values[c], d) for c in range(enc.domain_size) if c not in allowed and enc.values[c] is not None]
    if not excluded:
        return "TRUE" if null_ok else f"{col} IS NOT NULL"
    test = f"{col} <> {excluded[0]}" if len(excluded) == 1 else f"{col} NOT IN ({', '.join(excluded)})"
    return f"({col} IS NULL OR {test})" if null_ok else test


def _binned_sql(enc: FeatureEncoder, allowed: set[int], multi: bool, null_ok: bool, d: _Dialect) -> str:
    assert enc.edges is not None
    edges = enc.edges
    n_bins = len(edges) - 1
    code_of = {b: c for c, b in enumerate(enc.values) if b is not None}

    def bin_ok(b: int) -> bool:
        return (code_of[b] in allowed) if b in code_of else multi

    x = f"CAST({quote_identifier(enc.name)} AS {d.double})"
    is_null = f"{x} IS NULL" + (f" OR isnan({x})" if d.has_nan else "")
    nudged = f"({x} + ({_double(_ATOL, d)} + {_double(_RTOL, d)} * abs({x})))"
    # Bin b holds the nudged values in [edges[b], edges[b + 1]) (open at both ends): it is the
    # first b with nudged < edges[b + 1], so only the edges where "allowed" changes are needed.
    # An infinity is not nudged (-inf + inf would be NaN): +inf nudges to itself and falls to the
    # last bin anyway; -inf belongs to bin 0, so the first test also admits it.
    whens = [f"WHEN {is_null} THEN {_sql_bool(null_ok)}"]
    for b in range(n_bins - 1):
        if bin_ok(b) != bin_ok(b + 1):
            test = f"{nudged} < {_double(edges[b + 1], d)}"
            if len(whens) == 1:
                test = f"({test} OR {x} = {_double(-math.inf, d)})"
            whens.append(f"WHEN {test} THEN {_sql_bool(bin_ok(b))}")
    return f"CASE {' '.join(whens)} ELSE {_sql_bool(bin_ok(n_bins - 1))} END"


def _decision_sql(model: "RuleSetModel", score: str, d: _Dialect) -> str:
    s = f"CAST({score} AS {d.double})"
    if model.method == "find-rs":
        return f"{s} - {_double(0.5, d)}"
    t = _double(float(model.T), d)
    if model.method == "bo":
        return f"{s} / {t} - {_double(0.5, d)}"
    kept = float(sum(model._core.weights[: model.n_rules]))
    return f"{s} / {t} - {_double(kept / float(model._core.total_weight) / 2.0, d)}"


# --------------------------------------------------------------------------- literals
def quote_identifier(name: str) -> str:
    """A double-quoted SQL identifier (inner double quotes doubled)."""
    return '"' + str(name).replace('"', '""') + '"'


def quote_string(value: str) -> str:
    """A single-quoted SQL string literal (inner single quotes doubled)."""
    return "'" + value.replace("'", "''") + "'"


def _table_name(table: str | Sequence[str]) -> str:
    if isinstance(table, str):
        parts = table.split(".") if _PLAIN_NAME.fullmatch(table) else [table]
    else:
        parts = list(table)
        if not parts or not all(isinstance(p, str) for p in parts):
            raise FindRSInputError(f"table must be a name or a sequence of name parts, got {table!r}")
    return ".".join(quote_identifier(p) for p in parts)


def _sql_bool(b: bool) -> str:
    return "TRUE" if b else "FALSE"


def _literal(v: Any, d: _Dialect) -> str:
    if isinstance(v, bool):
        return _sql_bool(v)
    if isinstance(v, int):
        return str(v) if v >= 0 else f"({v})"
    if isinstance(v, float):
        return _double(v, d)
    if isinstance(v, str):
        return quote_string(v)
    raise FindRSInputError(f"cannot write the value {v!r} ({type(v).__name__}) as an SQL literal")


def _double(x: float, d: _Dialect) -> str:
    """A double constant the dialect reads back exactly."""
    x = float(x)
    if math.isnan(x):
        return "CAST('nan' AS DOUBLE)" if d.has_nan else "NULL"
    if math.isinf(x):
        if d.name == "duckdb":
            return f"CAST('{'-' if x < 0 else ''}inf' AS DOUBLE)"
        return "(-9e999)" if x < 0 else "9e999"
    if d.name == "duckdb":
        text = repr(x)
        if "e" not in text:
            text += "e0"  # an exponent makes DuckDB read a DOUBLE, not a DECIMAL
        return f"({text})" if x < 0 else text
    # SQLite: mantissa * 2^exp, both exact (integer to REAL conversion and power-of-two scaling).
    num, den = x.as_integer_ratio()
    mant = abs(num)
    exp = 0
    while den > 1:
        den //= 2
        exp -= 1
    while mant and mant % 2 == 0:
        mant //= 2
        exp += 1
    text = f"CAST({mant} AS REAL)"
    while exp != 0:
        step = max(-62, min(62, exp))
        text += f" {'*' if step > 0 else '/'} {2 ** abs(step)}"
        exp -= step
    return f"(-({text}))" if num < 0 else (f"({text})" if " " in text else text)


def _join(op: str, items: Sequence[str], empty: str, sep: str) -> str:
    """``(a op b op ...)`` with ``sep`` before each ``op``, nested in groups of ``_GROUP`` to keep
    the expression shallow; a single item is returned as it is."""
    items = list(items)
    if not items:
        return empty
    while len(items) > _GROUP:
        items = [_join(op, items[i : i + _GROUP], empty, sep) for i in range(0, len(items), _GROUP)]
    if len(items) == 1:
        return items[0]
    return "(" + f"{sep}{op} ".join(items) + ")"
