"""pandas DataFrames, PyArrow tables and Arrow C-stream objects are accepted wherever a Polars
frame is (converted once through Arrow)."""

from __future__ import annotations

import pytest
from polars.testing import assert_series_equal

import findrs


def test_pandas_and_pyarrow_inputs_give_the_same_model_and_predictions() -> None:
    pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    df = findrs.datasets.monks(2)
    base = findrs.fit(df, "class", method="bp", random_state=0, auto=False, settings=dict(T=10, tolerance=1))
    for data in (df.to_pandas(), df.to_arrow(), df.lazy()):
        m = findrs.fit(data, "class", method="bp", random_state=0, auto=False, settings=dict(T=10, tolerance=1))
        assert m.to_json() == base.to_json()
        assert_series_equal(m.predict(data), base.predict(df))
        assert_series_equal(m.decision_function(data), base.decision_function(df))


def test_arrow_c_stream_objects_are_accepted() -> None:
    pa = pytest.importorskip("pyarrow")
    df = findrs.datasets.tic_tac_toe()
    table = df.to_arrow()

    class Stream:  # any object that only speaks the Arrow PyCapsule stream protocol
        def __arrow_c_stream__(self, requested_schema=None):
            return table.__arrow_c_stream__(requested_schema)

    model = findrs.fit(Stream(), "class", "positive", auto=False, settings=dict(shuffle=False))
    assert model.n_rules == 8
    assert (model.predict(Stream()) == df["class"]).all()
    assert isinstance(pa, object)


def test_other_objects_are_refused_clearly() -> None:
    with pytest.raises(findrs.FindRSInputError, match="Polars DataFrame"):
        findrs.fit([[1, 2]], "class", auto=False)
