"""A model as Polars expressions: the Rust plugin and the compiled plain-Polars form.

Both start from the same encoders (``FeatureEncoder``: the codes of each feature, unseen values
included) and differ in how they evaluate the rules on the codes:

- the **plugin** (in findrs' Rust extension module, a Polars expression plugin) receives, batch
  by batch, each string feature's column as it is (String, Categorical or Enum, which it encodes
  itself with the training strings, docs/semantics.md §1) and every other feature's code column
  (``FeatureEncoder.expr``), and predicts with the Rust core; the model travels in the kwargs (the core's
  JSON of its voting rules) and is parsed once per model, then cached. Eager prediction
  (``model.predict``) runs it too: it is findrs' one prediction path;
- the **compiled** form prints the model's public view (:class:`findrs.export.view.Vote`) as plain
  Polars: each voting rule as ``all_horizontal`` of its constraints, each a comparison of the
  raw column with the values it allows (``FeatureEncoder.allows``: the same values the codes
  stand for, without a lookup per constraint), the votes as the weighted count of the vote's
  groups that hold, compared with the vote's threshold. It needs nothing but Polars, but it is
  one expression node per constraint, so it is slower than the plugin for big models.

Both are elementwise, so the streaming engine runs them per batch.
"""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Any, Iterator, Literal, Sequence

import polars as pl
from polars.plugins import register_plugin_function

from ..data.encode import FeatureEncoder
from ..errors import FindRSInputError
from .view import Vote

Engine = Literal["auto", "plugin", "compiled"]
_LIB = Path(__file__).resolve().parents[1]  # the package folder, where the extension sits
# benchmarks/bench_predict.py, 100k connect-4 rows, plan + run: the plugin is as fast or faster
# at every size (K = 8, 191 constraints: compiled 0.10 s, plugin 0.08 s; K = 64: 0.53 s against
# 0.07 s; K = 1024: 9.5 s against 0.10 s), since Polars evaluates each constraint's encoder
# again; so "auto" is the plugin.


def check_engine(engine: Any) -> bool:
    """True for the plugin (``"auto"`` and ``"plugin"``), False for ``"compiled"``.

    Raises:
        FindRSInputError: another engine.
    """
    if engine not in ("auto", "plugin", "compiled"):
        raise FindRSInputError(f"engine must be 'auto', 'plugin' or 'compiled', got {engine!r}")
    return engine != "compiled"


# The schema of the frame an eager method is about to run the plugin on (None in a lazy query,
# whose input dtypes the expression does not know): lets plugin_expr hand over a Categorical
# column's codes (FeatureEncoder.plugin_inputs).
_INPUT_SCHEMA: ContextVar[pl.Schema | None] = ContextVar("findrs_input_schema", default=None)


@contextmanager
def input_schema(schema: pl.Schema) -> Iterator[None]:
    """Within it, :func:`plugin_expr` builds expressions for frames of this ``schema`` only."""
    token = _INPUT_SCHEMA.set(schema)
    try:
        yield
    finally:
        _INPUT_SCHEMA.reset(token)


def plugin_expr(function: str, encoders: Sequence[FeatureEncoder], kwargs: dict[str, str]) -> pl.Expr:
    """The plugin ``function`` (``findrs_predict``, ``findrs_decision`` or ``findrs_fired``) on
    the encoded features; ``kwargs`` carry the model (``key`` and ``model``)."""
    # A string feature's column goes to the plugin as it is, with its training strings (the
    # plugin encodes it, docs/semantics.md §2); any other feature's codes.
    schema = _INPUT_SCHEMA.get()
    inputs = [enc.plugin_inputs(schema.get(enc.name) if schema is not None else None) for enc in encoders]
    return register_plugin_function(
        plugin_path=_LIB,
        function_name=function,
        args=[expr for expr, _ in inputs],
        kwargs={**kwargs, "strings": [strings for _, strings in inputs]},
        is_elementwise=True,
    )


def _always(encoders: Sequence[FeatureEncoder], value: bool) -> pl.Expr:
    """True (or False) on every row: a test of the first feature's code, which is never null,
    so the expression has one value per row (a literal would be one value for the frame)."""
    code = encoders[0].expr()
    return code.is_not_null() if value else code.is_null()


def _rule_exprs(vote: Vote, encoders: Sequence[FeatureEncoder]) -> list[pl.Expr]:
    # Each constraint tests the raw values (FeatureEncoder.allows), not the codes: a code is a
    # lookup Polars evaluates again at a fixed cost wherever the expression repeats it, which
    # made a 142-rule BO model take 18 s on 400 rows lazily (benchmarks/bench_compiled.py).
    out = []
    for i in range(len(vote.rules)):
        parts = [encoders[c.feature].allows(c.codes, c.unseen_passes) for c in vote.rule(i)]
        out.append(pl.all_horizontal(parts) if parts else _always(encoders, True))
    return out


def _checked(e: pl.Expr, encoders: Sequence[FeatureEncoder]) -> pl.Expr:
    """``e`` where every feature's code exists: once per feature, the encoder reads its column
    with the operations that refuse a dtype the feature does not accept (a re-typed column
    fails as in ``predict``); codes are never null, so this never changes ``e``."""
    return pl.when(pl.all_horizontal([enc.expr().is_not_null() for enc in encoders])).then(e)


def compiled_votes(vote: Vote, encoders: Sequence[FeatureEncoder]) -> pl.Expr:
    """The votes (``UInt64``) as plain Polars: the weighted count of the groups that hold."""
    rules = _rule_exprs(vote, encoders)
    terms = []
    for group, weight in zip(vote.groups, vote.group_weights):
        holds = pl.any_horizontal([rules[i] for i in group]) if group else _always(encoders, False)
        term = holds.cast(pl.UInt64)
        terms.append(term if weight == 1 else term * pl.lit(weight, pl.UInt64))
    return _checked(pl.sum_horizontal(terms) if len(terms) > 1 else terms[0], encoders)


def compiled_mask(vote: Vote, encoders: Sequence[FeatureEncoder]) -> pl.Expr:
    """Boolean: True where the votes exceed the threshold."""
    return compiled_votes(vote, encoders) > vote.threshold


def compiled_decision(vote: Vote, encoders: Sequence[FeatureEncoder]) -> pl.Expr:
    """Float64: ``votes / scale - offset``."""
    return compiled_votes(vote, encoders).cast(pl.Float64) / vote.scale - vote.offset
