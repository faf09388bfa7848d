"""What a rule set model's modules share: the file format's name and sections, the
extension's fold functions, and the checks that turn the core's errors into findrs' own.

Invariant: the core's errors cross into Python here (:func:`_input_errors`) as
:class:`~findrs.FindRSInputError`, never as a bare ``ValueError``.
"""

from __future__ import annotations

import contextlib
import gc
import json
from typing import Any, Callable, Iterator, Sequence

import numpy as np
import polars as pl

from .. import _core
from ..data.encode import FeatureEncoder
from ..data.target import Target
from ..errors import FindRSInputError

FORMAT = "findrs-model"


FORMAT_VERSION = 2


_WHY_NOT = pl.Struct({"nearest_rule": pl.UInt32, "failed_conditions": pl.List(pl.String)})


_SECTIONS = ("target", "features", "params", "training")


_OPTIONAL_SECTIONS = ("cv",)  # present exactly when a setting was chosen by cross-validation

# interval_ends -> the core's widening of a run's interval ends (docs/semantics.md §11).

_WIDEN = {"tight": "no", "midpoint": "no", "open": "open", "widened": "nearest"}




FoldCoder = Callable[[np.ndarray], tuple[Sequence[FeatureEncoder], list[np.ndarray]]]
"""Encodes one cross-validation fold on its own (docs/semantics.md §9.4): given a Boolean mask
of the rows it may learn from (every training row but the fold's held-out rows), the encoders
fitted on those rows and every row's codes under them."""

UNSAMPLED: int = _core.UNSAMPLED
"""The fold :func:`findrs._core.cv_folds` gives a row outside the cross-validation's sample."""


cv_folds = _core.cv_folds
"""The fold of every row in the automatic cross-validation (the core's ``cv_folds``)."""


fold_seed = _core.fold_seed
"""The ``random_state`` whose fit gives a fold's scores in the automatic cross-validation."""

@contextlib.contextmanager

def _input_errors() -> Iterator[None]:
    """A fit's core errors are about its input (parameters are checked before, so what is left
    depends on the data, e.g. a ``min_support`` that leaves no rule): a ``FindRSInputError``."""
    try:
        yield
    except FindRSInputError:
        raise
    except ValueError as e:
        raise FindRSInputError(str(e)) from None


def _kind(enc: FeatureEncoder, encoding: str) -> str:
    """The core's constraint kind of a feature: ``"interval"`` for an interval feature, the
    model's encoding (``"av"``, ``"oh"``) for the others."""
    return "interval" if enc.kind == "interval" else encoding


def _schema(encoders: Sequence[FeatureEncoder], encoding: str) -> tuple[list[int], list[str], list[bool]]:
    """The core's schema of these features: per feature its number of training codes, its
    constraint kind (:func:`_kind`) and whether it is an interval feature that held null."""
    return (
        [e.domain_size for e in encoders],
        [_kind(e, encoding) for e in encoders],
        [e.kind == "interval" and e.has_null for e in encoders],
    )


def _value_key(v: Any) -> Any:
    """A hashable key equal for two JSON values exactly when their JSON texts are equal
    (1, 1.0 and true stay distinct; a bin's [lo, hi] is compared as text)."""
    if isinstance(v, (list, dict)):
        return ("json", json.dumps(v))
    return (type(v).__name__, v)


def _parse_dtype(text: str) -> pl.DataType | None:
    simple = {
        "String": pl.String, "Boolean": pl.Boolean, "Int8": pl.Int8, "Int16": pl.Int16, "Int32": pl.Int32,
        "Int64": pl.Int64, "UInt8": pl.UInt8, "UInt16": pl.UInt16, "UInt32": pl.UInt32, "UInt64": pl.UInt64,
        "Float32": pl.Float32, "Float64": pl.Float64, "Categorical": pl.Categorical,
    }
    return simple.get(text)


@contextlib.contextmanager
def _no_gc() -> Iterator[None]:
    """Pauses the cyclic garbage collector while a version-1 file (millions of small,
    acyclic containers for a large model) is parsed and converted: collections triggered while
    building them took two thirds of the time."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _training(labels: np.ndarray, contradictions: int) -> dict[str, Any]:
    return {"rows": int(len(labels)), "positives": int(labels.sum()), "contradictions": int(contradictions)}


def _described(target: Target, negate: bool) -> Target:
    """The target as the model describes it: with ``direction="negative"`` (docs/semantics.md
    §9.3) the rules describe the other label, which becomes ``positive``."""
    return Target(target.name, target.dtype, target.negative, target.positive) if negate else target
