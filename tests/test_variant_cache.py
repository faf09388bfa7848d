"""The encodings a default fit compares are built once (``findrs.learning.learn._variants``): an
encoding answered from memory equals the one built fresh, per fold too, and the fit's model is
the same with or without the memory (docs/semantics.md §9.4, §9.6)."""

from __future__ import annotations

import warnings
from contextlib import contextmanager
from typing import Iterator

import numpy as np
import polars as pl
import pytest

import findrs
from findrs.learning import learn
from findrs.data.target import binarize

pytestmark = pytest.mark.filterwarnings("ignore::findrs.ContradictionWarning")


def _frame() -> pl.DataFrame:
    rng = np.random.default_rng(3)
    x = rng.normal(size=300)
    z = rng.integers(0, 40, size=300).astype(float)
    return pl.DataFrame({"x": x, "z": z, "c": rng.choice(["a", "b"], size=300),
                         "class": (x + rng.normal(scale=0.5, size=300) > 0.2)})


@pytest.mark.parametrize("edges,numeric", [("uniform", "bins"), ("supervised", "bins"), ("uniform", "interval")])
def test_a_remembered_encoding_equals_a_fresh_one(edges: str, numeric: str) -> None:
    df = _frame()
    y, _ = binarize(df, "class", True)
    features = ["x", "z", "c"]
    p = {"bins": 10, "numeric": numeric, "interval_ends": "open", "bin_edges": edges, "tolerance": 0}
    fresh = learn._encode_variant(df, features, y, p)
    with learn._variants():
        first = learn._encode_variant(df, features, y, p)
        again = learn._encode_variant(df, features, y, {**p, "tolerance": 0.1})
        assert again[1] == first[1] and all(a is b for a, b in zip(again[2], first[2]))
        assert again[3] is first[3] and again[0]["tolerance"] == 0.1  # the caller's params
        learn._encode_variant(df, features, y, {**p, "bins": 5})  # another encoding: built
        assert len(learn._VARIANTS.get() or {}) == 2
    assert learn._VARIANTS.get() is None
    assert first[1] == fresh[1]
    assert all(np.array_equal(a, b) for a, b in zip(first[2], fresh[2]))
    assert (first[3] is None) == (fresh[3] is None)
    if fresh[3] is not None:
        mask = np.arange(df.height) % 5 != 1
        (e1, c1), (e2, c2) = first[3](mask), fresh[3](mask)
        assert list(e1) == list(e2) and all(np.array_equal(a, b) for a, b in zip(c1, c2))


def test_the_memory_is_keyed_by_frame_and_labels() -> None:
    df = _frame()
    y, _ = binarize(df, "class", True)
    p = {"bins": 10, "numeric": "bins", "interval_ends": "open", "bin_edges": "supervised"}
    with learn._variants():
        a = learn._encode_variant(df, ["x", "z"], y, p)
        b = learn._encode_variant(df, ["x", "z"], ~y, p)  # other labels: other supervised edges
        c = learn._encode_variant(df.head(100), ["x", "z"], y[:100], p)
        assert a[3] is not b[3] and a[3] is not c[3]
        assert learn._encode_variant(df, ["x"], y, p)[1] == [a[1][0]]


@pytest.mark.parametrize("threshold", [0.0, 0.3])
def test_the_default_fit_is_the_same_without_the_memory(threshold: float, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(0)
    n = 200
    df = pl.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n) * 3, "k": rng.integers(0, 4, size=n)})
    df = df.with_columns(cls=(pl.col("a") + pl.col("b") / 3 > threshold)
                         ^ pl.Series(rng.random(n) < 0.1))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with_memory = findrs.fit(df, "cls", True, random_state=1)
        monkeypatch.setattr(learn, "_variants", _no_memory)
        without = findrs.fit(df, "cls", True, random_state=1)
    assert with_memory.to_json() == without.to_json()


@contextmanager
def _no_memory() -> Iterator[None]:
    yield
