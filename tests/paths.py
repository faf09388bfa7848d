"""Every way findrs predicts, run on one model and one frame, for tests that compare them.

:func:`prediction_paths` returns, per path, the Boolean "is positive" of every row (and the
integer votes where a path gives them); :func:`assert_paths_agree` checks they are all equal to
``model.predict(df, labels=False)``. The paths: ``predict`` (labels and mask),
``decision_function``, ``predict_expr`` eagerly and in the streaming engine with the plugin and
compiled, ``to_expr`` (lazy, streaming), ``explain`` (votes of the fired rules against the
vote's threshold), the JSON round trip, pickle, PyArrow input, and ``to_sql`` run by DuckDB and
SQLite (predictions and votes). A path that refuses the model with the documented
``FindRSInputError`` (``to_sql`` on column names that differ only in case, DuckDB on a column
named ``''``), or a frame that DuckDB or SQLite cannot hold (Int128 values) is reported in
``refused`` instead.
"""

from __future__ import annotations

import math
import pickle
import sqlite3
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

import numpy as np
import polars as pl

from findrs import FindRSInputError, RuleSetModel


@dataclass
class Paths:
    masks: dict[str, list[bool]] = field(default_factory=dict)
    votes: dict[str, list[int]] = field(default_factory=dict)
    refused: dict[str, str] = field(default_factory=dict)


def _mask(model: RuleSetModel, labels: list[Any]) -> list[bool]:
    if model.target.negative is None:
        return [bool(v) for v in labels]
    return [v == model.target.positive for v in labels]


def prediction_paths(model: RuleSetModel, df: pl.DataFrame, *, sql: bool = True) -> Paths:
    """Every path's predictions of ``df`` (see the module docs)."""
    out = Paths()
    m = out.masks
    m["predict"] = model.predict(df, labels=False).to_list()
    m["predict labels"] = _mask(model, model.predict(df).to_list())
    m["decision_function"] = [d > 0 for d in model.decision_function(df).to_list()]
    for engine in ("plugin", "compiled"):
        e = model.predict_expr(labels=False, engine=engine)
        m[f"predict_expr {engine} eager"] = df.select(e).to_series().to_list()
        m[f"predict_expr {engine} streaming"] = df.lazy().select(e).collect(engine="streaming").to_series().to_list()
        d = model.decision_expr(engine=engine)
        m[f"decision_expr {engine}"] = [v > 0 for v in df.select(d).to_series().to_list()]
    m["predict_expr labels streaming"] = _mask(
        model, df.lazy().select(model.predict_expr()).collect(engine="streaming").to_series().to_list()
    )
    m["to_expr streaming"] = df.lazy().select(model.to_expr()).collect(engine="streaming").to_series().to_list()
    v = model.vote
    fired = model.explain(df)["fired_rules"].to_list()
    votes = [sum(w for g, w in zip(v.groups, v.group_weights) if set(g) & set(f)) for f in fired]
    out.votes["explain"] = votes
    m["explain"] = [x > v.threshold for x in votes]
    back = RuleSetModel.from_json(model.to_json())
    m["json round trip"] = back.predict(df, labels=False).to_list()
    m["pickle"] = pickle.loads(pickle.dumps(model)).predict(df, labels=False).to_list()
    try:
        table = df.to_arrow()
    except Exception as e:  # noqa: BLE001 - a frame PyArrow cannot hold (Int128): not findrs'
        out.refused["pyarrow"] = f"{type(e).__name__}: {e}"
    else:
        if pl.from_arrow(table).columns != df.columns:  # Polars names an empty name column_0
            out.refused["pyarrow"] = "Polars renames the columns of this table"
        else:
            m["pyarrow"] = model.predict(table, labels=False).to_list()
    if sql:
        _sql_paths(model, df, out)
    return out


def assert_paths_agree(model: RuleSetModel, df: pl.DataFrame, *, sql: bool = True) -> Paths:
    """Every path predicts what ``predict`` does, row by row, and the SQL votes are the votes
    of the fired rules; returns the paths."""
    p = prediction_paths(model, df, sql=sql)
    want = p.masks["predict"]
    assert len(want) == df.height
    for name, got in p.masks.items():
        bad = [i for i, (a, b) in enumerate(zip(got, want)) if a != b]
        assert len(got) == len(want) and not bad, f"{name} differs from predict at rows {bad[:10]} of {df.height}"
    for name, got in p.votes.items():
        assert got == p.votes["explain"], f"{name} votes differ from the fired rules' votes"
    return p


# ----------------------------------------------------------------------------- SQL
def _sql_paths(model: RuleSetModel, df: pl.DataFrame, out: Paths) -> None:
    # Each dialect refuses on its own: DuckDB an empty feature name and names equal up to case,
    # SQLite only the latter (a frame can have both, so the dialects are asked separately).
    sql_predict = sql_votes = sqlite_predict = sqlite_votes = None
    try:
        sql_predict = model.to_sql(table="t")
        sql_votes = model.to_sql(table="t", output="votes")
    except FindRSInputError as e:
        assert "differ only in case" in str(e) or "named ''" in str(e), e
        out.refused["to_sql"] = str(e)
    try:
        sqlite_predict = model.to_sql(table="t", dialect="sqlite")
        sqlite_votes = model.to_sql(table="t", dialect="sqlite", output="votes")
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
        out.votes["sqlite"] = [int(r[-1]) for r in table.execute(sqlite_votes)]
    finally:
        table.close()


def _duckdb_paths(model: RuleSetModel, df: pl.DataFrame, out: Paths, predict: str, votes: str) -> None:
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
        out.votes["duckdb"] = [int(r[-1]) for r in con.execute(votes).fetchall()]
    finally:
        con.close()


def _sqlite_label(model: RuleSetModel, v: Any) -> Any:
    # SQLite has no Boolean: its 1 / 0 are the labels True / False of a Boolean target.
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
