"""Hypothesis strategies and small helpers shared by the findrs property tests."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import polars as pl
from hypothesis import assume
from hypothesis import strategies as st

from findrs.data.encode import encode_frame

STRING_POOL = ["a", "b", "c", "x y", "Z", "", "null"]


@st.composite
def feature_specs(
    draw,
    min_features: int = 2,
    max_features: int = 6,
    max_domain: int = 4,
    allow_float: bool = False,
    other_dtypes: bool = False,
):
    """(name, dtype, pool of values) per feature; ``None`` in a pool is a null.

    Always String and Int64 columns; ``allow_float`` adds Float64 (binned, NaN included);
    ``other_dtypes`` adds Boolean, Categorical and Int64 columns with more than ``bins`` (10)
    distinct values (binned).
    """
    n = draw(st.integers(min_features, max_features))
    kinds = ["str", "int"] + (["float"] if allow_float else []) + (["bool", "cat", "wide_int"] if other_dtypes else [])
    specs = []
    for j in range(n):
        kind = draw(st.sampled_from(kinds))
        k = draw(st.integers(1, max_domain))
        if kind in ("str", "cat"):
            values: list[Any] = draw(st.lists(st.sampled_from(STRING_POOL), min_size=k, max_size=k, unique=True))
            dtype: Any = pl.String if kind == "str" else pl.Categorical
        elif kind == "int":
            values = draw(st.lists(st.integers(-5, 5), min_size=k, max_size=k, unique=True))
            dtype = pl.Int64
        elif kind == "bool":
            values = draw(st.lists(st.booleans(), min_size=min(k, 2), max_size=min(k, 2), unique=True))
            dtype = pl.Boolean
        elif kind == "wide_int":
            values = draw(st.lists(st.integers(-1000, 1000), min_size=11, max_size=14, unique=True))
            dtype = pl.Int64
        else:
            values = draw(
                st.lists(
                    st.floats(-100, 100, allow_nan=False, allow_infinity=False, width=32),
                    min_size=k,
                    max_size=k + 3,
                    unique=True,
                )
            )
            if draw(st.booleans()):
                values.append(float("nan"))
            dtype = pl.Float64
        if draw(st.booleans()):
            values.append(None)
        specs.append((f"f{j}", dtype, values))
    return specs


@st.composite
def frames(
    draw,
    min_rows: int = 5,
    max_rows: int = 60,
    min_features: int = 2,
    max_features: int = 6,
    max_domain: int = 4,
    allow_float: bool = False,
    consistent: bool = False,
    other_dtypes: bool = False,
) -> pl.DataFrame:
    """A random frame of small-domain features (nulls included) and a Boolean target ``y`` with
    both classes. ``consistent=True``: rows identical in every feature carry the same label (no
    contradictions, docs/semantics.md §1)."""
    specs = draw(feature_specs(min_features, max_features, max_domain, allow_float, other_dtypes))
    n = draw(st.integers(min_rows, max_rows))
    row = st.tuples(*[st.sampled_from(pool) for _, _, pool in specs])
    rows = draw(st.lists(row, min_size=n, max_size=n))
    labels = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    if consistent:
        first: dict[tuple, bool] = {}
        labels = [first.setdefault(_key(r), y) for r, y in zip(rows, labels)]
    else:
        # Make sure both classes are there without filtering too much.
        i, j = draw(st.lists(st.integers(0, n - 1), min_size=2, max_size=2, unique=True))
        labels[i], labels[j] = True, False
    assume(any(labels) and not all(labels))
    # A numeric column with no finite value cannot be binned (a documented FindRSInputError).
    for c, (_, dtype, _) in enumerate(specs):
        if dtype == pl.Float64:
            assume(any(isinstance(r[c], float) and math.isfinite(r[c]) for r in rows))
    data = {name: pl.Series(name, [r[c] for r in rows], dtype=dtype) for c, (name, dtype, _) in enumerate(specs)}
    data["y"] = pl.Series("y", labels, dtype=pl.Boolean)
    return pl.DataFrame(data)


def _key(row: tuple) -> tuple:
    # NaN != NaN; the model treats NaN as null, so key it as None.
    return tuple(None if isinstance(v, float) and math.isnan(v) else v for v in row)


def codes_of(df: pl.DataFrame, model) -> list[tuple[int, ...]]:
    """Rows of ``df`` as code tuples in the model's numbering (unseen values get domain_size)."""
    cols = encode_frame(df, model.encoders)
    return [tuple(int(c) for c in r) for r in zip(*cols)] if cols else []


def domains_of(model) -> list[int]:
    return [e.domain_size for e in model.encoders]


def labels_of(df: pl.DataFrame, target: str = "y") -> np.ndarray:
    return df.get_column(target).to_numpy().astype(bool)


def perturbed(df: pl.DataFrame, seed: int) -> pl.DataFrame:
    """``df`` with some cells replaced by values never seen in training and by nulls."""
    rng = np.random.default_rng(seed)
    out = {}
    for name, dtype in df.schema.items():
        s = df.get_column(name)
        if name == "y":
            out[name] = s
            continue
        if dtype in (pl.String, pl.Categorical):
            unseen: Any = "never seen"
        elif dtype == pl.Boolean:
            unseen = None  # a Boolean has no third value; null may be unseen
        elif dtype == pl.Float64:
            unseen = 1.0e6
        else:
            unseen = 1000
        values = s.to_list()
        for i in range(len(values)):
            u = rng.random()
            if u < 0.2:
                values[i] = unseen
            elif u < 0.35:
                values[i] = None
        out[name] = pl.Series(name, values, dtype=dtype)
    return pl.DataFrame(out)
