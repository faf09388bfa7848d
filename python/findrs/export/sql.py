"""SQL export: a fitted model as one SQL expression that computes what ``model.predict`` computes.

The expression reads the raw feature columns (no encoding step) and follows semantics §2 exactly:

- a categorical constraint allowing one value is ``col = 'v'`` (``col IS NULL`` for null); one
  allowing a set S of two or more values is ``col NOT IN (domain - S)`` so that a value never
  seen in training passes it; null is a value of its own when training held nulls, otherwise it
  is an unseen value (fails ``col = 'v'``, passes ``NOT IN``); an integer feature's column may be
  a float one, whose NaN is null (DuckDB: ``NULLIF(col, NaN)``; SQLite stores NaN as NULL);
- a binned numeric constraint is a range test, ``x >= a AND x < b`` per run of adjacent allowed
  bins, against exact thresholds: the encoder's bin of a value changes exactly there (whole
  numbers for an integer column; for a float column the least double whose nudged value
  ``x + (1e-8 + 1e-5 * |x|)`` reaches the edge, see :attr:`FeatureEncoder.bin_starts`), so
  comparing doubles gives exactly findrs' bins; a bin that held no training value is an unseen
  value; NaN is null and infinities fall in the end bins, as in findrs;
- an interval constraint (``numeric="interval"``) compares the value with the interval's ends
  (``x >= lo AND x <= hi``; a cut end ``x < c``), null (and NaN) passing only when the
  constraint says so.

The votes are printed from the model's public view (:class:`findrs.export.view.Vote`): the weighted
count of the vote's groups of which some rule holds (FIND-RS: its one group, so the
prediction is a ``CASE`` over the rules; BO: the distinct runs, each counted as often as it
occurs; BP: each voting rule with its weight), compared with the view's threshold; the
decision value is ``votes / scale - offset`` with the view's numbers. Whether an unseen value
passes a constraint is the view's ``unseen_passes``.

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
import warnings
from typing import Any, Sequence

from ..data.encode import FeatureEncoder
from ..errors import FindRSInputError
from ..data.target import Target
from .text import interval_span
from .view import Constraint, Vote

_OUTPUTS = ("predict", "votes", "decision")
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
    vote: Vote,
    encoders: Sequence[FeatureEncoder],
    target: Target,
    *,
    table: str | Sequence[str] | None = None,
    dialect: str = "duckdb",
    output: str = "predict",
) -> str:
    """SQL that computes a model's predictions (or votes, or decision values) from the raw
    feature columns; :meth:`findrs.RuleSetModel.to_sql` calls it with the model's view.

    Args:
        vote: the model's :attr:`~findrs.RuleSetModel.vote`.
        encoders: the model's encoders.
        target: the model's target.
        table: when given, a whole query ``SELECT *, <expr> AS "<target>_predicted" FROM table``
            (``_votes`` / ``_decision`` for the other outputs). A string of plain dotted names
            (``main.games``) is quoted part by part, any other string as one identifier; a
            sequence of strings gives the parts of a qualified name.
        dialect: ``"duckdb"`` or ``"sqlite"``.
        output: ``"predict"``: the predicted label (the model's labels in their type; a boolean
            for a one-vs-rest model), as ``model.predict``; ``"votes"``: the integer votes
            (FIND-RS 0/1, BO the number of runs that hold, BP the summed weights of the voting
            rules that hold); ``"decision"``: the double ``model.decision_function`` returns.
            (``"score"``, the former name of ``"votes"``, is deprecated.)

    Returns:
        The SQL text (an expression, or a query when ``table`` is given).

    Raises:
        FindRSInputError: an unknown dialect or output, or two of the model's columns (features
            and target) whose names differ only in the case of ASCII letters (``null`` and
            ``NULL``): DuckDB and SQLite match identifiers ignoring that case, so they would
            read the wrong column; in DuckDB, a feature named ``''``.

    Example:
        >>> import findrs
        >>> m = findrs.datasets.tic_tac_toe().findrs.fit("class", "positive", random_state=0, settings=dict(shuffle=False))
        >>> print(m.to_sql().splitlines()[1])
          WHEN ("top_left" = 'x' AND "top_middle" = 'x' AND "top_right" = 'x') THEN 'positive'
        >>> print(m.to_sql().splitlines()[-1])
          ELSE 'negative' END
    """
    d = _dialect(dialect)
    if output == "score":
        warnings.warn('to_sql(output="score") is deprecated: use output="votes"', DeprecationWarning, stacklevel=3)
        output = "votes"
    if output not in _OUTPUTS:
        raise FindRSInputError(f"output must be one of {list(_OUTPUTS)}, got {output!r}")
    _check_names([e.name for e in encoders], target.name, d)
    rules = [_rule_sql(encoders, vote.rule(i), d) for i in range(len(vote.rules))]

    if target.negative is None:
        pos, neg = _sql_bool(True, d), _sql_bool(False, d)
    else:
        pos, neg = _literal(target.positive, d), _literal(target.negative, d)

    # Weights as BIGINT when their sum may not fit a 32-bit INTEGER.
    big = vote.max_votes >= 2**31 - 1
    weight = (lambda w: f"CAST({w} AS BIGINT)") if big else str
    terms = [
        f"CASE WHEN {rules[group[0]]} THEN {weight(w)} ELSE 0 END"
        if len(group) == 1
        else _first_match([rules[i] for i in group], weight(w), "0", "    " if len(vote.groups) > 1 else "  ")
        for group, w in zip(vote.groups, vote.group_weights)
    ]
    votes = _join("+", terms, "0", "\n  ")
    if len(vote.groups) == 1 and vote.group_weights[0] == 1 and vote.threshold == 0:
        # A DNF: the prediction is a CASE over the rules. DuckDB plans a long WHEN list in
        # linear time, a long OR chain in superlinear time.
        predict = _first_match(rules, pos, neg, "  ")
    else:
        predict = f"CASE WHEN {votes}\n  > {int(vote.threshold)}\n  THEN {pos} ELSE {neg} END"

    if output == "votes":
        expr = votes
    elif output == "decision":
        s = f"CAST({votes} AS {d.double})"
        expr = f"{s} / {_double(vote.scale, d)} - {_double(vote.offset, d)}"
    else:
        expr = predict
    if table is None:
        return expr
    suffix = {"predict": "predicted", "votes": "votes", "decision": "decision"}[output]
    alias = quote_identifier(f"{target.name}_{suffix}")
    return f"SELECT *,\n{expr} AS {alias}\nFROM {_table_name(table)}"


def _check_names(features: Sequence[str], target: str, d: _Dialect) -> None:
    """Refuses names that the dialect reads as one identifier (both fold ASCII letters only),
    and, in DuckDB, an empty feature name (DuckDB renames such a column)."""
    if d.name == "duckdb" and "" in features:
        raise FindRSInputError(
            "a feature column is named '' (the empty name), which DuckDB cannot refer to (it "
            "renames the column); rename it before fitting, e.g. df.rename({'': 'x'}), or use "
            "dialect='sqlite'"
        )
    seen: dict[str, str] = {}
    for name in [*features, target]:
        key = "".join(c.lower() if c.isascii() else c for c in name)
        other = seen.setdefault(key, name)
        if other != name:
            raise FindRSInputError(
                f"the columns {other!r} and {name!r} differ only in case, and {d.name} matches "
                f"column names ignoring case, so the SQL would read the wrong one; rename one "
                f"before fitting, e.g. df.rename({{{name!r}: {name + '_2'!r}}})"
            )


def _first_match(conditions: Sequence[str], then: str, other: str, indent: str) -> str:
    """``then`` if any condition holds, else ``other``, as ``CASE WHEN c1 THEN .. WHEN c2 ..``."""
    if not conditions:
        return other
    whens = "".join(f"\n{indent}WHEN {c} THEN {then}" for c in conditions)
    return f"CASE{whens}\n{indent}ELSE {other} END"


# --------------------------------------------------------------------------- constraints
def _rule_sql(encoders: Sequence[FeatureEncoder], constraints: Sequence[Constraint], d: _Dialect) -> str:
    parts = [constraint_sql(encoders[c.feature], c, d.name) for c in constraints]
    return _join("AND", parts, _sql_bool(True, d), " ")


def constraint_sql(enc: FeatureEncoder, c: Constraint, dialect: str = "duckdb") -> str:
    """SQL condition of constraint ``c`` on feature ``enc`` (docs/semantics.md §2: the allowed
    values, and every value never seen in training when ``c.unseen_passes``)."""
    d = _dialect(dialect)
    allowed = set(int(k) for k in c.codes)
    multi = c.unseen_passes
    null_code = enc.domain_size - 1 if enc.has_null else None
    # A null never seen in training is an unseen value.
    null_ok = (null_code in allowed) if null_code is not None else multi
    if enc.kind == "interval":
        return _interval_sql(enc, c, d)
    if enc.kind == "binned":
        return _binned_sql(enc, allowed, multi, null_ok, d)
    col = quote_identifier(enc.name)
    if enc.family == "float":
        # A 0/1 float column: compared as a double, NaN being null (as the encoder reads it).
        col = f"CAST({col} AS {d.double})"
    if enc.family in ("integer", "float") and d.has_nan:
        # A float column may stand for an integer feature; its NaN is null (docs/semantics.md §1).
        col = f"NULLIF({col}, {_double(math.nan, d)})"
    if not multi:
        values = [enc.values[k] for k in sorted(allowed) if enc.values[k] is not None]
        tests = [f"{col} = {_literal(values[0], d)}"] if len(values) == 1 else []
        if len(values) > 1:
            tests.append(f"{col} IN ({', '.join(_literal(v, d) for v in values)})")
        if null_ok:
            tests.append(f"{col} IS NULL")
        return tests[0] if len(tests) == 1 else f"({' OR '.join(tests)})"
    excluded = [_literal(enc.values[k], d) for k in range(enc.domain_size) if k not in allowed and enc.values[k] is not None]
    if not excluded:
        return _sql_bool(True, d) if null_ok else f"{col} IS NOT NULL"
    test = f"{col} <> {excluded[0]}" if len(excluded) == 1 else f"{col} NOT IN ({', '.join(excluded)})"
    return f"({col} IS NULL OR {test})" if null_ok else test


def _interval_sql(enc: FeatureEncoder, c: Constraint, d: _Dialect) -> str:
    """An interval constraint on the raw column (docs/semantics.md §11): ``x >= lo AND x <= hi``
    with the interval's ends (a cut end ``x < c``; an open end no test; whole numbers of an
    integer column as integers), ``x IS NULL OR ...`` when null passes. DuckDB orders NaN (null
    to findrs) above every number: a range open above excludes it, unless null passes."""
    span, null = interval_span(enc, c.codes)
    x = quote_identifier(enc.name)

    def number(t: float) -> str:
        whole = enc.family == "integer" and float(t).is_integer() and abs(t) <= 2.0**53
        return _literal(int(t), d) if whole else _double(t, d)

    tests = []
    if span is not None:
        lower, lower_closed, upper, upper_closed = enc.interval_bounds(*span)
        if lower is not None:
            tests.append(f"{x} {'>=' if lower_closed else '>'} {number(lower)}")
        if upper is not None:
            tests.append(f"{x} {'<=' if upper_closed else '<'} {number(upper)}")
        elif d.has_nan and not null:
            tests.append(f"NOT isnan({x})")
        if not tests:
            tests.append(f"{x} IS NOT NULL")
    if not null:
        return " AND ".join(tests)
    inside = [f"({' AND '.join(tests)})" if len(tests) > 1 else tests[0]] if tests else []
    if span is not None and inside == [f"{x} IS NOT NULL"]:
        return _sql_bool(True, d)
    return "(" + " OR ".join([f"{x} IS NULL"] + ([f"isnan({x})"] if d.has_nan else []) + inside) + ")"


def _binned_sql(enc: FeatureEncoder, allowed: set[int], multi: bool, null_ok: bool, d: _Dialect) -> str:
    """The allowed bins as ranges, ``x >= a AND x < b``: bin ``b`` holds the finite values from
    ``bin_starts[b - 1]`` (inclusive) to ``bin_starts[b]`` (exclusive), exact thresholds (whole
    numbers for an integer column; for a float column the least double whose nudged value
    reaches the edge), so plain comparisons of doubles give exactly the encoder's bins. Adjacent
    allowed bins (empty bins, which hold unseen values, included when those pass) are one
    range; -inf falls in the first bin and +inf in the last, as in the encoder."""
    assert enc.edges is not None
    n_bins = len(enc.edges) - 1
    starts = enc.bin_starts
    code_of = {b: c for c, b in enumerate(enc.values) if b is not None}
    ok = [(code_of[b] in allowed) if b in code_of else multi for b in range(n_bins)]
    runs: list[tuple[int, int]] = []
    for b, f in enumerate(ok):
        if f and runs and runs[-1][1] == b - 1:
            runs[-1] = (runs[-1][0], b)
        elif f:
            runs.append((b, b))

    x = quote_identifier(enc.name)
    whole = enc.whole_edges and all(abs(t) <= 2.0**53 for t in starts)

    def number(t: float) -> str:
        # A whole number within 2^53 compares the same as an integer and as a double.
        return _literal(int(t), d) if whole else _double(t, d)

    tests = []
    open_above = False
    for a, b in runs:
        parts = []
        if a > 0:
            parts.append(f"{x} >= {number(starts[a - 1])}")
        if b < n_bins - 1:
            parts.append(f"{x} < {number(starts[b])}")
        else:
            open_above = True
        tests.append(" AND ".join(parts) if parts else f"{x} IS NOT NULL")
    # DuckDB orders NaN above every number (NaN is null to findrs): a range open above must
    # exclude it unless null passes.
    nan = d.has_nan and not null_ok and open_above
    if nan:
        tests = [t if len(tests) == 1 else f"({t})" for t in tests]
        return f"({' OR '.join(tests)}) AND NOT isnan({x})" if len(tests) > 1 else f"{tests[0]} AND NOT isnan({x})"
    if null_ok:
        tests = [f"{x} IS NULL"] + ([f"isnan({x})"] if d.has_nan else []) + tests
    if not tests:
        return _sql_bool(False, d)
    if len(tests) == 1:
        return tests[0]
    return "(" + " OR ".join(t if " AND " not in t else f"({t})" for t in tests) + ")"


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


def _sql_bool(b: bool, d: _Dialect) -> str:
    """A Boolean constant. SQLite reads a bare TRUE / FALSE as a column of that name when the
    table has one, so there it is 1 / 0 (what SQLite's TRUE and FALSE are anyway)."""
    if d.name == "sqlite":
        return "1" if b else "0"
    return "TRUE" if b else "FALSE"


def _literal(v: Any, d: _Dialect) -> str:
    if isinstance(v, bool):
        return _sql_bool(v, d)
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
