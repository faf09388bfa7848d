"""``RuleSetModel.rules`` builds a small table from Python lists and a large one with Polars'
list expressions (``findrs.models.model._SMALL_TABLE``); both routes give the same frame."""

from __future__ import annotations

import warnings

import numpy as np
import polars as pl
import pytest

import findrs
from findrs.models import rule_set_view as view_mod

pytestmark = pytest.mark.filterwarnings("ignore::findrs.ContradictionWarning")


def _models() -> list[findrs.RuleSetModel]:
    rng = np.random.default_rng(5)
    n = 300
    df = pl.DataFrame({"x": rng.normal(size=n), "k": rng.integers(0, 5, size=n), "s": pl.Series(rng.choice(["a", "b", "-"], size=n)).replace("-", None),
                       "c": rng.random(n) < 0.4})
    ttt = findrs.datasets.tic_tac_toe()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return [
            findrs.fit(ttt, "class", "positive", random_state=0, auto=False),
            findrs.fit(ttt, "class", "positive", method="bp", random_state=0, auto=False, settings=dict(T=8, encoding="oh")),
            findrs.fit(df, "c", True, method="bo", random_state=1, auto=False, settings=dict(T=5, numeric="interval")),
            findrs.fit(df, "c", True, random_state=2),
            findrs.fit(df, "c", True, auto=False, random_state=0, settings=dict(tolerance=0.45, simplify=True)),
            findrs.fit(
                df.with_columns(c=rng.random(n) < 0.9), "c", True, auto=False, random_state=0,
                settings=dict(tolerance=0.3, simplify=True),
            ),  # the rule without conditions: TRUE
            findrs.fit(ttt, "class", random_state=0, auto=False),  # multiclass: per class set
        ]


def test_the_small_and_the_large_route_give_the_same_table(monkeypatch: pytest.MonkeyPatch) -> None:
    small = [m.rules for m in _models()]
    monkeypatch.setattr(view_mod, "_SMALL_TABLE", -1)
    large = [m.rules for m in _models()]
    assert "TRUE" in small[5]["text"].to_list()
    for a, b in zip(small, large):
        assert a.schema == b.schema
        assert a.equals(b)
        assert a.to_dicts() == b.to_dicts()
