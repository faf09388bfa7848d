"""Every way findrs predicts, run on one model and one frame, for tests that compare them.

Any kind of :class:`findrs.Model` (a binary or multiclass RuleSetModel, an ExceptionsModel, a
BaggedModel). :func:`prediction_paths` returns, per path, the Boolean "is positive" of every row
of a binary model (the labels of a multiclass one), the integer votes where a path gives them,
and a multiclass model's decisions (one column per class); :func:`assert_paths_agree` checks
they are all equal to ``model.predict(df, labels=False)`` (multiclass: ``model.predict(df)``).
The paths: ``predict`` (labels and mask), ``decision_function``, ``predict_expr`` eagerly and in
the streaming engine with the plugin and compiled, ``decision_expr`` and ``votes_expr`` (where
the kind has them), ``to_expr`` (lazy, streaming), ``explain`` (its prediction column; and the
votes of the fired rules against the vote's threshold, or the bagged votes), the JSON round trip
through the kind's ``from_json`` and through ``findrs.load`` (which must read the same file
back), pickle, PyArrow input, and ``to_sql`` run by DuckDB and SQLite (predictions, and votes
where the kind's SQL gives them). A path a kind does not have is left out by capability
(``hasattr``, the ``to_sql`` signature), not by kind name. A path that refuses the model with the
documented ``FindRSInputError`` (``to_sql`` on column names that differ only in case, DuckDB on
a column named ``''``), or a frame that DuckDB or SQLite cannot hold (Int128 values) is
reported in ``refused`` instead.
"""

from __future__ import annotations

import inspect
import json
import math
import pickle
import sqlite3
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

import numpy as np
import polars as pl

import findrs
from findrs import FindRSInputError, Model


@dataclass
class Paths:
    masks: dict[str, list[Any]] = field(default_factory=dict)  # binary: is positive; multiclass: the labels
    votes: dict[str, list[int]] = field(default_factory=dict)
    decisions: dict[str, pl.DataFrame] = field(default_factory=dict)  # multiclass: one column per class
    refused: dict[str, str] = field(default_factory=dict)


def is_binary(model: Model) -> bool:
    return model.target.classes is None


def _mask(model: Model, labels: list[Any]) -> list[Any]:
    """Labels as the comparison's values: whether each is positive (binary), or the labels."""
    if not is_binary(model):
        return list(labels)
    if model.target.negative is None:
        return [bool(v) for v in labels]
    return [v == model.target.positive for v in labels]


def prediction_paths(model: Model, df: pl.DataFrame, *, sql: bool = True) -> Paths:
    """Every path's predictions of ``df`` (see the module docs). A path a kind does not have
    (``decision_expr``, a rule vote, ``votes_expr``, SQL votes) is left out by capability."""
    out = Paths()
    m = out.masks
    binary = is_binary(model)
    m["predict"] = model.predict(df, labels=False).to_list() if binary else model.predict(df).to_list()
    m["predict labels"] = _mask(model, model.predict(df).to_list())
    decision = model.decision_function(df)
    if binary:
        m["decision_function"] = [d > 0 for d in decision.to_list()]
    else:
        out.decisions["decision_function"] = decision
    for engine in ("plugin", "compiled"):
        e = model.predict_expr(labels=not binary, engine=engine)
        # (labels=False: the mask of a binary model; a multiclass model's labels as they are.)
        m[f"predict_expr {engine} eager"] = df.select(e).to_series().to_list()
        m[f"predict_expr {engine} streaming"] = df.lazy().select(e).collect(engine="streaming").to_series().to_list()
        if hasattr(model, "decision_expr"):
            d = df.select(model.decision_expr(engine=engine)).to_series()
            if binary:
                m[f"decision_expr {engine}"] = [v > 0 for v in d.to_list()]
            else:
                out.decisions[f"decision_expr {engine}"] = d.alias("d").struct.unnest()
        if hasattr(model, "votes_expr"):
            out.votes[f"votes_expr {engine}"] = df.select(model.votes_expr(engine=engine)).to_series().to_list()
    m["predict_expr labels streaming"] = _mask(
        model, df.lazy().select(model.predict_expr()).collect(engine="streaming").to_series().to_list()
    )
    # (to_expr: the mask of a binary model, a multiclass model's labels.)
    m["to_expr streaming"] = df.lazy().select(model.to_expr()).collect(engine="streaming").to_series().to_list()
    explained = model.explain(df)
    m["explain"] = _mask(model, explained.to_series(0).to_list())
    if hasattr(model, "votes"):
        out.votes["votes"] = model.votes(df).to_list()
        out.votes["explain"] = explained.to_series(1).to_list()
    elif binary and hasattr(model, "vote"):
        v = model.vote
        fired = explained["fired_rules"].to_list()
        votes = [sum(w for g, w in zip(v.groups, v.group_weights) if set(g) & set(f)) for f in fired]
        out.votes["explain"] = votes
        m["explain votes"] = [x > v.threshold for x in votes]
    if not binary:  # (renamed: a Series method runs on pl.col(name), a pattern for '^a.*$')
        out.decisions["explain"] = explained.to_series(1).alias("d").struct.unnest()
    text = model.to_json()
    back = type(model).from_json(text)
    loaded = findrs.load(text)
    # The same document (parsed: a budget's keys come back in another order, docs/development.md).
    assert type(loaded) is type(model) and json.loads(loaded.to_json()) == json.loads(text), \
        "findrs.load(m.to_json()) is another model"
    m["json round trip"] = _mask(model, back.predict(df).to_list())
    m["findrs.load"] = _mask(model, loaded.predict(df).to_list())
    m["pickle"] = _mask(model, pickle.loads(pickle.dumps(model)).predict(df).to_list())
    try:
        table = df.to_arrow()
    except Exception as e:  # noqa: BLE001 - a frame PyArrow cannot hold (Int128): not findrs'
        out.refused["pyarrow"] = f"{type(e).__name__}: {e}"
    else:
        if pl.from_arrow(table).columns != df.columns:  # Polars names an empty name column_0
            out.refused["pyarrow"] = "Polars renames the columns of this table"
        else:
            m["pyarrow"] = _mask(model, model.predict(table).to_list())
    if sql:
        _sql_paths(model, df, out)
    return out


def assert_paths_agree(model: Model, df: pl.DataFrame, *, sql: bool = True) -> Paths:
    """Every path predicts what ``predict`` does, row by row, the votes of every path are
    equal (a rule set's: the votes of the fired rules), and so are a multiclass model's
    decisions; returns the paths."""
    p = prediction_paths(model, df, sql=sql)
    want = p.masks["predict"]
    assert len(want) == df.height
    for name, got in p.masks.items():
        bad = [i for i, (a, b) in enumerate(zip(got, want)) if not _same(a, b)]
        assert len(got) == len(want) and not bad, f"{name} differs from predict at rows {bad[:10]} of {df.height}"
    if p.votes:
        first, ref = next(iter(p.votes.items()))
        for name, got in p.votes.items():
            assert got == ref, f"{name} votes differ from the {first} votes"
    if p.decisions:
        ref = p.decisions["decision_function"]
        for name, got in p.decisions.items():
            assert got.columns == ref.columns and all(
                _same_floats(a.to_list(), b.to_list()) for a, b in zip(got.iter_columns(), ref.iter_columns())
            ), f"{name} decisions differ from decision_function"
    return p


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return a == b


def _same_floats(a: list[Any], b: list[Any]) -> bool:
    """Equal decisions: the same nulls and signs, the values up to rounding (the compiled
    expression adds a class set's votes in another order: 0.13710937499999998 and
    0.1371093750000001 are the same decision)."""
    def close(x: Any, y: Any) -> bool:
        if x is None or y is None or _same(x, y):
            return _same(x, y)
        return (x > 0) == (y > 0) and (x < 0) == (y < 0) and math.isclose(x, y, rel_tol=1e-12, abs_tol=1e-12)
    return len(a) == len(b) and all(close(x, y) for x, y in zip(a, b))


# ----------------------------------------------------------------------------- SQL
def _sql_paths(model: Model, df: pl.DataFrame, out: Paths) -> None:
    # Each dialect refuses on its own: DuckDB an empty feature name and names equal up to case,
    # SQLite only the latter (a frame can have both, so the dialects are asked separately).
    sql_predict = sql_votes = sqlite_predict = sqlite_votes = None
    # SQL votes: a binary model whose to_sql has an output (a multiclass model's are its class
    # sets', a bagged or exceptions model has none).
    votes = is_binary(model) and "output" in inspect.signature(model.to_sql).parameters
    try:
        sql_predict = model.to_sql(table="t")
        sql_votes = model.to_sql(table="t", output="votes") if votes else None
    except FindRSInputError as e:
        assert "differ only in case" in str(e) or "named ''" in str(e), e
        out.refused["to_sql"] = str(e)
    try:
        sqlite_predict = model.to_sql(table="t", dialect="sqlite")
        sqlite_votes = model.to_sql(table="t", dialect="sqlite", output="votes") if votes else None
    except FindRSInputError as e:
        assert "differ only in case" in str(e), e
        out.refused["to_sql sqlite"] = str(e)
    if sql_predict is not None:
        _duckdb_paths(model, df, out, sql_predict, sql_votes)
    if sqlite_predict is None:
        return
    table = _sqlite_table(df)
    if table is None:
        out.refused["sqlite"] = "values SQLite cannot store (integers beyond 64 bits)"
        return
    try:
        out.masks["sqlite"] = _mask(model, [_sqlite_label(model, r[-1]) for r in table.execute(sqlite_predict)])
        if sqlite_votes is not None:
            out.votes["sqlite"] = [int(r[-1]) for r in table.execute(sqlite_votes)]
    finally:
        table.close()


def _duckdb_paths(model: Model, df: pl.DataFrame, out: Paths, predict: str, votes: str | None) -> None:
    import duckdb

    con = duckdb.connect()
    try:
        con.execute("SET threads = 1")
        try:
            con.register("t", df)
        except duckdb.InvalidInputException as e:  # via Arrow, which has no Int128: not findrs'
            assert "Arrow" in str(e), e
            out.refused["duckdb"] = str(e)
            return
        out.masks["duckdb"] = _mask(model, [r[-1] for r in con.execute(predict).fetchall()])
        if votes is not None:
            out.votes["duckdb"] = [int(r[-1]) for r in con.execute(votes).fetchall()]
    finally:
        con.close()


def _sqlite_label(model: Model, v: Any) -> Any:
    # SQLite has no Boolean: its 1 / 0 are the labels True / False of a Boolean target.
    if not is_binary(model):
        return v
    if model.target.negative is None or isinstance(model.target.positive, bool):
        return bool(v)
    return v


def _sqlite_value(v: Any) -> Any:
    if isinstance(v, float) and math.isnan(v):
        return None  # SQLite stores NaN as NULL anyway
    if isinstance(v, Decimal):
        return float(v)
    return v


def _sqlite_table(df: pl.DataFrame) -> sqlite3.Connection | None:
    """``df`` as SQLite table ``t``, or None when it holds integers SQLite cannot store."""
    con = sqlite3.connect(":memory:")

    def sql_type(dtype: pl.DataType) -> str:
        if dtype.is_float() or isinstance(dtype, pl.Decimal):
            return "REAL"
        if dtype.is_integer() or dtype == pl.Boolean:
            return "INTEGER"
        return "TEXT" if dtype != pl.Null else ""

    cols = ", ".join(f'"{c.replace(chr(34), chr(34) * 2)}" {sql_type(t)}' for c, t in df.schema.items())
    con.execute(f"CREATE TABLE t ({cols})")
    rows = [tuple(_sqlite_value(v) for v in r) for r in df.rows()]
    try:
        con.executemany(f"INSERT INTO t VALUES ({', '.join('?' * df.width)})", rows)
    except OverflowError:
        con.close()
        return None
    return con


def as_numpy_mask(p: Paths) -> np.ndarray:
    return np.asarray(p.masks["predict"], dtype=bool)
