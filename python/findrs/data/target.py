"""The target column: validation and binarisation into positives and negatives.

A boolean target's positive class is ``True`` (or ``positive``); otherwise ``positive`` names it,
and with exactly two classes and no ``positive`` the greater label is positive, as scikit-learn
does. The other label, when there is exactly one, is the negative label predictions return.
With more than two classes and no ``positive`` the target is multiclass
(:func:`class_indices`; docs/semantics.md §10).
"""

from __future__ import annotations

import math
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from ..errors import FindRSInputError


@dataclass(frozen=True)
class Target:
    """What the model predicts.

    Attributes:
        name: the target column.
        dtype: its dtype at fit time, as text.
        positive: the label the rules describe.
        negative: the other label when the target had exactly two; ``None`` for a one-vs-rest
            target (then predictions are booleans: "is it the positive label?").
        classes: a multiclass target's labels, sorted (then ``positive`` and ``negative`` are
            ``None``); ``None`` for a binary target.
    """

    name: str
    dtype: str
    positive: Any
    negative: Any | None
    classes: tuple[Any, ...] | None = None

    def to_dict(self) -> dict[str, Any]:
        d = {"column": self.name, "dtype": self.dtype, "positive": self.positive, "negative": self.negative}
        if self.classes is not None:
            d["classes"] = list(self.classes)
        return d

    @staticmethod
    def from_dict(d: Any) -> "Target":
        """A target from :meth:`to_dict`'s output, checked: a column name, a dtype a target can
        have, a positive label (not null) and a different negative label or ``None``, both of
        the dtype's kind (booleans, strings, integers or finite numbers).

        Raises:
            FindRSInputError: what is wrong.
        """
        keys = ["column", "dtype", "positive", "negative"]
        if isinstance(d, dict) and "classes" in d:
            return Target._multiclass_from_dict(d, keys)
        if not isinstance(d, dict) or sorted(d) != sorted(keys):
            raise FindRSInputError(f"the target must be an object with the fields {keys}, got {d!r}")
        if not isinstance(d["column"], str) or not isinstance(d["dtype"], str) or "\0" in d["column"]:
            raise FindRSInputError(f"the target's column and dtype must be strings, got {d['column']!r} and {d['dtype']!r}")
        for name in ("positive", "negative"):
            if isinstance(d[name], (list, dict)):
                raise FindRSInputError(f"the target's {name} label must be one value, got {d[name]!r}")
        if d["positive"] is None:
            raise FindRSInputError("the target's positive label is null; a model describes a label")
        family = _dtype_text_family(d["dtype"])
        labels = [d["positive"]] + ([d["negative"]] if d["negative"] is not None else [])
        for name, v in zip(("positive", "negative"), labels):
            if not _is_label(family, v):
                raise FindRSInputError(f"the target's {name} label {v!r} is not a label of its dtype {d['dtype']}")
        if family == "float":
            labels = [float(v) for v in labels]
        if len(labels) == 2 and labels[0] == labels[1]:
            raise FindRSInputError(f"the target's positive and negative labels are both {d['positive']!r}")
        return Target(d["column"], d["dtype"], labels[0], labels[1] if len(labels) == 2 else None)

    @staticmethod
    def _multiclass_from_dict(d: dict[str, Any], keys: list[str]) -> "Target":
        keys = keys + ["classes"]
        if sorted(d) != sorted(keys):
            raise FindRSInputError(f"a multiclass target must be an object with the fields {keys}, got {d!r}")
        if not isinstance(d["column"], str) or not isinstance(d["dtype"], str) or "\0" in d["column"]:
            raise FindRSInputError(f"the target's column and dtype must be strings, got {d['column']!r} and {d['dtype']!r}")
        if d["positive"] is not None or d["negative"] is not None:
            raise FindRSInputError("a multiclass target has no positive or negative label (both null)")
        classes = d["classes"]
        if not isinstance(classes, list) or len(classes) < 3:
            raise FindRSInputError(f"a multiclass target lists 3 or more classes, got {classes!r}")
        family = _dtype_text_family(d["dtype"])
        bad = [c for c in classes if family == "boolean" or not _is_label(family, c)]
        if bad:
            raise FindRSInputError(f"the target's class {bad[0]!r} is not a label of its dtype {d['dtype']}")
        if family == "float":
            classes = [float(c) for c in classes]
        if classes != sorted(classes) or len(set(classes)) != len(classes):
            raise FindRSInputError(f"the target's classes must be distinct and sorted, got {classes!r}")
        return Target(d["column"], d["dtype"], None, None, tuple(classes))


def refuse_labels(target: str, columns: Any, n_null: int = 0, n_bad: int = 0) -> None:
    """Refuses a target column that is not among ``columns`` or that holds ``n_null`` null or
    ``n_bad`` NaN or infinite labels (a frame in memory, or every row of a source a fit samples,
    docs/semantics.md §13), with the fix.

    Raises:
        FindRSInputError: the column is missing, or some label is null, NaN or infinite.

    Example:
        >>> refuse_labels("y", ["a", "y"])  # nothing to refuse
    """
    if target not in columns:
        raise FindRSInputError(
            f"target column {target!r} not found; the columns are {list(columns)}; "
            f"pass the name of the column that holds the labels"
        )
    if n_null:
        raise FindRSInputError(
            f"target column {target!r} has {n_null} null value(s); drop those rows first, "
            f"e.g. df.drop_nulls({target!r}), or fill them with a label"
        )
    if n_bad:
        raise FindRSInputError(
            f"target column {target!r} has {n_bad} NaN or infinite value(s), which cannot be "
            f"labels; drop those rows first, e.g. df.filter(pl.col({target!r}).is_finite())"
        )


def binarize(df: pl.DataFrame, target: str, positive: Any | None) -> tuple[np.ndarray, Target]:
    """Boolean labels (True = positive) of the target column, and the target's description.

    Raises:
        FindRSInputError: the column is missing, has a dtype whose labels a model file cannot
            hold (temporal, decimal, binary, nested...), has nulls or NaN, has one class only,
            has more than two classes and no ``positive``, or ``positive`` is not one of its
            values or not of its type.
    """
    refuse_labels(target, df.columns)
    # Renamed: Polars runs some Series methods as pl.col(name), which reads '^y$' as a pattern.
    s = df.get_column(target).alias("target")
    family = _label_family(target, s.dtype)
    refuse_labels(target, df.columns, n_null=s.null_count())
    if family == "float":
        refuse_labels(target, df.columns, n_bad=int((~s.cast(pl.Float64).is_finite()).sum()))
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
        elif family == "float" or (family == "integer" and len(classes) > _MANY_NUMBERS):
            raise FindRSInputError(_numeric_target_message(target, s, len(classes)))
        else:
            shown = classes[:10]
            raise FindRSInputError(
                f"target column {target!r} has {len(classes)} classes ({shown}"
                f"{'...' if len(classes) > 10 else ''}); pass positive=<label> to learn rules "
                f"for one class against the rest"
            )
    else:
        positive = _label_of(target, s.dtype, family, positive)
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
    negative = others[0] if len(others) == 1 and not _ONE_VS_REST.get() else None
    return y, Target(target, str(df.schema[target]), positive, negative)


# An integer target with more distinct values than this reads as a quantity, not classes.
_MANY_NUMBERS = 20

# True while fit_bagged fits the members of a one-vs-rest vote: a bootstrap sample that holds two
# of the target's classes is still that target's one-vs-rest (no negative label).
_ONE_VS_REST: ContextVar[bool] = ContextVar("findrs_one_vs_rest", default=False)

# True while FindRSClassifier fits: its multiclass target column holds class indices (scikit-learn
# already refused continuous labels), so many numbers there are classes, not a quantity.
_INDEXED_CLASSES: ContextVar[bool] = ContextVar("findrs_indexed_classes", default=False)


def _numeric_target_message(target: str, s: pl.Series, n_classes: int) -> str:
    """A numeric target of many values is a quantity: findrs learns rules for a class, so the
    fix is a threshold (the median given as an example), or ``positive`` for one value."""
    median = s.cast(pl.Float64).median()
    shown = f"{median:g}" if s.dtype.is_float() else f"{int(median)}"
    return (
        f"target column {target!r} holds {n_classes} distinct numbers, a quantity rather than classes; "
        f"findrs learns rules for one class, so make the target a yes/no question with a threshold, "
        f"e.g. df.with_columns((pl.col({target!r}) > {shown}).alias({target + '_high'!r})) and fit "
        f"{target + '_high'!r} (its median is {shown}), or pass positive=<value> to learn one value "
        f"against the rest"
    )


def _label_family(target: str, dtype: pl.DataType) -> str:
    """``"boolean"``, ``"string"``, ``"integer"`` or ``"float"``: the dtypes whose labels a
    model file holds (JSON booleans, strings and numbers)."""
    if dtype == pl.Boolean:
        return "boolean"
    if dtype == pl.String or isinstance(dtype, (pl.Categorical, pl.Enum)):
        return "string"
    if dtype.is_integer():
        return "integer"
    if dtype in (pl.Float32, pl.Float64):
        return "float"
    if isinstance(dtype, (pl.List, pl.Array, pl.Struct)):
        raise FindRSInputError(f"target column {target!r} has dtype {dtype}; it must hold one label per row")
    hint = f"pl.col({target!r}).cast(pl.String)"
    if isinstance(dtype, pl.Decimal):
        hint = f"pl.col({target!r}).cast(pl.Float64) or {hint}"
    raise FindRSInputError(
        f"target column {target!r} has dtype {dtype}; a target's labels must be booleans, strings, "
        f"categories or numbers (a model file stores them); convert it, e.g. {hint}"
    )


_INTEGER_DTYPES = {f"{s}Int{b}" for s in ("", "U") for b in (8, 16, 32, 64, 128)}


def _dtype_text_family(text: str) -> str:
    """The label family of a target dtype as a model file writes it (``str`` of the dtype)."""
    if text == "Boolean":
        return "boolean"
    if text == "String" or text.startswith(("Categorical", "Enum")):
        return "string"
    if text in _INTEGER_DTYPES:
        return "integer"
    if text in ("Float32", "Float64"):
        return "float"
    raise FindRSInputError(f"the target's dtype {text!r} is not one a target can have")


def _is_label(family: str, v: Any) -> bool:
    is_bool = isinstance(v, bool)
    if family == "boolean":
        return is_bool
    if family == "string":
        return isinstance(v, str)
    if family == "integer":
        return isinstance(v, int) and not is_bool
    return isinstance(v, (int, float)) and not is_bool and math.isfinite(v)


def _label_of(target: str, dtype: pl.DataType, family: str, positive: Any) -> Any:
    """``positive`` as a label of the target's type (a Python value; NumPy scalars unwrapped),
    or a clear error when it is of another type (``1`` for a Boolean target, ``True`` for a
    numeric one: Python would compare them equal)."""
    if isinstance(positive, np.generic):
        positive = positive.item()
    if not _is_label(family, positive):
        example = {"boolean": "True", "string": "'yes'", "integer": "1", "float": "1.0"}[family]
        raise FindRSInputError(
            f"positive={positive!r} ({type(positive).__name__}) is not a label of the {dtype} "
            f"target column {target!r}; pass a label of its type, e.g. positive={example}"
        )
    return float(positive) if family == "float" else positive


def class_indices(df: pl.DataFrame, target: str) -> tuple[np.ndarray, Target] | None:
    """A multiclass target: the class index of every row (``uint32``, indexing the sorted
    labels) and the target's description; ``None`` when the column is not a usable multiclass
    target (missing, Boolean, of a dtype a label cannot have, with nulls or NaN, of two classes
    or fewer), which :func:`binarize` then handles or reports."""
    if target not in df.columns:
        return None
    # Renamed: Polars runs some Series methods as pl.col(name), which reads '^y$' as a pattern.
    s = df.get_column(target).alias("target")
    try:
        family = _label_family(target, s.dtype)
    except FindRSInputError:
        return None
    if family == "boolean" or s.null_count() or (family == "float" and not bool(s.cast(pl.Float64).is_finite().all())):
        return None
    if family == "string":
        s = s.cast(pl.String)
    classes = s.unique().sort()
    if classes.len() <= 2:
        return None
    if family in ("float", "integer") and classes.len() > _MANY_NUMBERS and not _INDEXED_CLASSES.get():
        # A quantity, not classes: as binarize says for it.
        raise FindRSInputError(_numeric_target_message(target, s, classes.len()))
    index = s.replace_strict(classes, pl.Series(range(classes.len()), dtype=pl.UInt32), return_dtype=pl.UInt32)
    codes = np.ascontiguousarray(index.to_numpy(), dtype=np.uint32)
    labels = [float(c) for c in classes.to_list()] if family == "float" else classes.to_list()
    return codes, Target(target, str(df.schema[target]), None, None, tuple(labels))
