"""A model as Polars expressions: the Rust plugin and the compiled plain-Polars form.

Both start from the same encoders (``FeatureEncoder.expr``: Polars expressions that turn each
feature column into codes, unseen values included), so there is one encoder and the two forms
can only differ in how they evaluate the rules on the codes:

- the **plugin** (``findrs._core``, a pyo3-polars expression plugin) receives the code columns
  batch by batch and predicts with the Rust core; the model travels in the kwargs and is parsed
  once per model, then cached;
- the **compiled** form is ``any_horizontal(all_horizontal(code.is_in(allowed), ...))`` for a
  rule set, the vote count for BO and the weighted sum for BP: plain Polars, nothing else needed,
  but one expression node per constraint, so it stops being practical for models with thousands
  of rules.

Both are elementwise, so the streaming engine runs them per batch.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import polars as pl
from polars.plugins import register_plugin_function

if TYPE_CHECKING:
    from .model import RuleSetModel

Engine = Literal["auto", "plugin", "compiled"]
_LIB = Path(__file__).parent
# "auto" uses the compiled expression only up to this many constraints in the voting rules.
# benchmarks/bench_predict.py, 100k connect-4 rows, plan + run: the plugin is as fast or faster
# at every size (K = 8, 191 constraints: compiled 0.10 s, plugin 0.08 s; K = 64: 0.53 s against
# 0.07 s; K = 1024: 9.5 s against 0.10 s), since Polars evaluates each constraint's encoder
# again; so "auto" is the plugin for every model but the empty one.
COMPILED_MAX_CONSTRAINTS = 0


def _plugin(model: "RuleSetModel", function: str) -> pl.Expr:
    state = model._core.state_json(True)
    key = hashlib.sha256(state.encode()).hexdigest()[:32]
    return register_plugin_function(
        plugin_path=_LIB,
        function_name=function,
        args=[enc.expr() for enc in model.encoders],
        kwargs={"key": key, "state": state},
        is_elementwise=True,
    )


def _rule_exprs(model: "RuleSetModel", rules: list[list[tuple[int, list[int]]]]) -> list[pl.Expr]:
    codes = [enc.expr() for enc in model.encoders]
    out = []
    for cons in rules:
        parts = []
        for f, allowed in cons:
            allowed = list(allowed)
            # semantics §2: an unseen value (code = domain size) passes a one-hot set of >= 2 values.
            if model.encoding == "oh" and len(allowed) >= 2:
                allowed.append(model.encoders[f].domain_size)
            if len(allowed) == 1:
                parts.append(codes[f] == allowed[0])
            else:
                parts.append(codes[f].is_in(allowed))
        out.append(pl.all_horizontal(parts) if parts else pl.lit(True))
    return out


def compiled_score(model: "RuleSetModel") -> pl.Expr:
    """The integer score of the model as a plain Polars expression (see ``RuleModel::scores``)."""
    rules = model._core.rules(model.n_rules)
    exprs = _rule_exprs(model, rules)
    if model.method == "find-rs":
        return pl.any_horizontal(exprs).cast(pl.UInt32) if exprs else pl.lit(0, pl.UInt32)
    if model.method == "bo":
        votes = [pl.any_horizontal([exprs[i] for i in run]).cast(pl.UInt32) if run else pl.lit(0, pl.UInt32) for run in model._core.runs]
        return pl.sum_horizontal(votes)
    weights = model._core.weights
    return pl.sum_horizontal([e.cast(pl.UInt32) * weights[i] for i, e in enumerate(exprs)]) if exprs else pl.lit(0, pl.UInt32)


def _n_constraints(model: "RuleSetModel") -> int:
    return model._core.n_constraints(model.n_rules) + (len(model._core.runs) if model.method == "bo" else 0)


def _use_plugin(model: "RuleSetModel", engine: Engine) -> bool:
    if engine not in ("auto", "plugin", "compiled"):
        from .errors import FindRSInputError

        raise FindRSInputError(f"engine must be 'auto', 'plugin' or 'compiled', got {engine!r}")
    if engine == "auto":
        return _n_constraints(model) > COMPILED_MAX_CONSTRAINTS
    return engine == "plugin"


def mask_expr(model: "RuleSetModel", engine: Engine = "auto") -> pl.Expr:
    """Boolean: True where the model predicts the positive label."""
    if _use_plugin(model, engine):
        return _plugin(model, "findrs_predict")
    return compiled_score(model) > model._core.threshold()


def score_expr(model: "RuleSetModel", engine: Engine = "auto") -> pl.Expr:
    """Float64 decision value (> 0 exactly where the prediction is positive)."""
    if _use_plugin(model, engine):
        return _plugin(model, "findrs_score")
    s = compiled_score(model).cast(pl.Float64)
    if model.method == "find-rs":
        return s - 0.5
    if model.method == "bo":
        return s / model.T - 0.5
    kept = float(sum(model._core.weights[: model.n_rules]))
    return s / model.T - kept / float(model._core.total_weight) / 2.0


def fired_expr(model: "RuleSetModel") -> pl.Expr:
    """List[UInt32]: ids of the voting rules that cover the row (heaviest first for BO/BP)."""
    return _plugin(model, "findrs_fired")
