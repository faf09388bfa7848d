"""The target column: validation and binarisation into positives and negatives.

A boolean target's positive class is ``True`` (or ``positive``); otherwise ``positive`` names it,
and with exactly two classes and no ``positive`` the greater label is positive, as scikit-learn
does. The other label, when there is exactly one, is the negative label predictions return.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from .errors import FindRSInputError


@dataclass(frozen=True)
class Target:
    """What the model predicts.

    Attributes:
        name: the target column.
        dtype: its dtype at fit time, as text.
        positive: the label the rules describe.
        negative: the other label when the target had exactly two; ``None`` for a one-vs-rest
            target (then predictions are booleans: "is it the positive label?").
    """

    name: str
    dtype: str
    positive: Any
    negative: Any | None

    def to_dict(self) -> dict[str, Any]:
        return {"column": self.name, "dtype": self.dtype, "positive": self.positive, "negative": self.negative}

    @staticmethod
    def from_dict(d: Any) -> "Target":
        """A target from :meth:`to_dict`'s output, checked: a column name, a dtype, a positive
        label (not null) and a different negative label or ``None``.

        Raises:
            FindRSInputError: what is wrong.
        """
        keys = ["column", "dtype", "positive", "negative"]
        if not isinstance(d, dict) or sorted(d) != sorted(keys):
            raise FindRSInputError(f"the target must be an object with the fields {keys}, got {d!r}")
        if not isinstance(d["column"], str) or not isinstance(d["dtype"], str):
            raise FindRSInputError(f"the target's column and dtype must be strings, got {d['column']!r} and {d['dtype']!r}")
        for name in ("positive", "negative"):
            if isinstance(d[name], (list, dict)):
                raise FindRSInputError(f"the target's {name} label must be one value, got {d[name]!r}")
        if d["positive"] is None:
            raise FindRSInputError("the target's positive label is null; a model describes a label")
        if d["negative"] == d["positive"]:
            raise FindRSInputError(f"the target's positive and negative labels are both {d['positive']!r}")
        return Target(d["column"], d["dtype"], d["positive"], d["negative"])


def binarize(df: pl.DataFrame, target: str, positive: Any | None) -> tuple[np.ndarray, Target]:
    """Boolean labels (True = positive) of the target column, and the target's description.

    Raises:
        FindRSInputError: the column is missing, has nulls, has one class only, has more than
            two classes and no ``positive``, or ``positive`` is not one of its values.
    """
    if target not in df.columns:
        raise FindRSInputError(
            f"target column {target!r} not found; the columns are {df.columns}; "
            f"pass the name of the column that holds the labels"
        )
    s = df.get_column(target)
    if isinstance(s.dtype, (pl.List, pl.Array, pl.Struct)):
        raise FindRSInputError(
            f"target column {target!r} has dtype {s.dtype}; it must hold one label per row"
        )
    n_null = s.null_count()
    if n_null:
        raise FindRSInputError(
            f"target column {target!r} has {n_null} null value(s); drop those rows first, "
            f"e.g. df.drop_nulls({target!r}), or fill them with a label"
        )
    if isinstance(s.dtype, (pl.Categorical, pl.Enum)):
        s = s.cast(pl.String)
    classes = s.unique().sort().to_list()
    if positive is None:
        if s.dtype == pl.Boolean:
            positive = True
        elif len(classes) == 2:
            positive = classes[1]
        elif len(classes) < 2:
            raise FindRSInputError(
                f"target column {target!r} has a single class {classes[0]!r}; FIND-RS needs "
                f"positive and negative rows"
            )
        else:
            shown = classes[:10]
            raise FindRSInputError(
                f"target column {target!r} has {len(classes)} classes ({shown}"
                f"{'...' if len(classes) > 10 else ''}); pass positive=<label> to learn rules "
                f"for one class against the rest"
            )
    if positive not in classes:
        raise FindRSInputError(
            f"positive label {positive!r} not found in target column {target!r}; its values are "
            f"{classes[:10]}{'...' if len(classes) > 10 else ''}"
        )
    y = (s == positive).to_numpy()
    y = np.ascontiguousarray(y, dtype=np.bool_)
    if y.all():
        raise FindRSInputError(
            f"every row of target column {target!r} is the positive label {positive!r}; "
            f"FIND-RS needs negative rows too"
        )
    others = [c for c in classes if c != positive]
    negative = others[0] if len(others) == 1 else None
    return y, Target(target, str(df.schema[target]), positive, negative)
