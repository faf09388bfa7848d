"""``RuleSetModel``: a fitted rule set (FIND-RS), vote of rule sets (BO) or weighted rule set (BP).

Everything a user touches after fitting (the rules table, predictions, scores, text, JSON) is
built from one model value held by the Rust core plus the encoders that turn a frame into codes.
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
from pathlib import Path
from typing import Any, Iterator, Sequence

import numpy as np
import polars as pl

from . import _core, expressions
from .encode import FeatureEncoder, check_columns, encode_frame
from .errors import FindRSInputError
from .frames import as_polars
from .target import Target
from .text import constraint_text, rule_text

FORMAT = "findrs-model"
FORMAT_VERSION = 1
_METHOD_NAMES = {"find-rs": "FIND-RS", "bo": "FIND-RS-BO", "bp": "FIND-RS-BP"}


class RuleSetModel:
    """A fitted findrs model. Build one with ``df.findrs.fit(...)`` or :func:`findrs.fit`.

    Example:
        >>> import findrs
        >>> df = findrs.datasets.tic_tac_toe()
        >>> model = df.findrs.fit("class", "positive", shuffle=False)
        >>> model.predict(df).head(2).to_list()
        ['positive', 'positive']
        >>> model.n_rules
        8
    """

    def __init__(
        self,
        core: _core.CoreModel,
        encoders: Sequence[FeatureEncoder],
        target: Target,
        params: dict[str, Any],
        training: dict[str, Any],
    ) -> None:
        self._core = core
        self.encoders: tuple[FeatureEncoder, ...] = tuple(encoders)
        self.target: Target = target
        self.params: dict[str, Any] = dict(params)
        self._training: dict[str, Any] = dict(training)
        self._rules_df: pl.DataFrame | None = None

    def __getstate__(self) -> dict[str, Any]:
        # Pickle (copy, joblib, multiprocessing) through the JSON form.
        return self.to_dict()

    def __setstate__(self, state: dict[str, Any]) -> None:
        other = RuleSetModel.from_dict(state)
        self.__dict__.update(other.__dict__)

    # ----------------------------------------------------------------- description
    @property
    def method(self) -> str:
        """``"find-rs"``, ``"bo"`` or ``"bp"``."""
        return self._core.method

    @property
    def encoding(self) -> str:
        """``"av"`` or ``"oh"`` (docs/semantics.md §2)."""
        return self.params["encoding"]

    @property
    def features(self) -> list[str]:
        """The feature columns, in the order the model uses them."""
        return [e.name for e in self.encoders]

    @property
    def positive(self) -> Any:
        """The label the rules describe."""
        return self.target.positive

    @property
    def T(self) -> int:
        """Number of FIND-RS runs aggregated (1 for FIND-RS)."""
        return self._core.n_runs

    @property
    def n_rules(self) -> int:
        """Number of rules that vote (BP: K; FIND-RS and BO: all rules)."""
        return self._core.n_kept

    @property
    def n_rules_found(self) -> int:
        """Number of (unique) rules found, voting or not."""
        return self._core.n_rules

    @property
    def contradictions(self) -> int:
        """Training rows that have an identical row with the other label (docs/semantics.md §1)."""
        return int(self._training["contradictions"])

    @property
    def random_state(self) -> int:
        """The seed the fit used (drawn at random when ``random_state=None`` was passed)."""
        return int(self.params["random_state"])

    # ----------------------------------------------------------------- prediction
    def _codes(self, data: Any) -> list[np.ndarray]:
        return encode_frame(as_polars(data), self.encoders)

    def _scores(self, data: Any) -> np.ndarray:
        return self._core.scores(self._codes(data))

    def decision_function(self, data: Any) -> pl.Series:
        """Signed score per row: positive exactly where ``predict`` says the positive label.

        FIND-RS: 0.5 if some rule covers the row, else -0.5. BO: the fraction of runs whose rule
        set covers the row, minus 1/2. BP: the covered rules' weights summed and divided by T,
        minus the threshold gamma_K / 2 (docs/semantics.md §5).

        Raises:
            FindRSInputError: a feature column is missing or changed dtype.
        """
        return pl.Series("score", self._core.decision(self._codes(data)))

    def predict_mask(self, data: Any) -> np.ndarray:
        """Boolean NumPy array: True where the model predicts the positive label."""
        return self._scores(data) > self._core.threshold()

    def predict(self, data: Any) -> pl.Series:
        """Predicted labels, named after the target column.

        The positive label where the rules say so, else the negative label; for a one-vs-rest
        target (more than two classes at fit time) a Boolean "is positive" Series instead.

        Raises:
            FindRSInputError: a feature column is missing or changed dtype.
        """
        mask = self.predict_mask(data)
        name = self.target.name
        if self.target.negative is None:
            return pl.Series(name, mask)
        labels = np.where(mask, 0, 1)
        values = [self.target.positive, self.target.negative]
        out = pl.Series(name, labels, dtype=pl.UInt32).replace_strict([0, 1], values)
        dtype = _parse_dtype(self.target.dtype)
        if dtype is not None:
            try:
                out = out.cast(dtype)
            except Exception:  # noqa: BLE001 - keep the uncast labels if the dtype will not take them
                pass
        return out

    def score(self, data: Any, target: str | None = None) -> float:
        """Accuracy on a labelled frame (the target column defaults to the training one)."""
        df = as_polars(data)
        col = target or self.target.name
        if col not in df.columns:
            raise FindRSInputError(f"target column {col!r} not found; the columns are {df.columns}")
        truth = (df.get_column(col) == self.target.positive).fill_null(False).to_numpy()
        return float(np.mean(self.predict_mask(df) == truth))

    # ----------------------------------------------------------------- expressions
    def predict_expr(self, *, labels: bool = True, engine: "expressions.Engine" = "auto") -> pl.Expr:
        """The prediction as a Polars expression, for ``with_columns``, ``filter``, ``group_by``,
        on DataFrames and LazyFrames (the streaming engine runs it batch by batch).

        Args:
            labels: the target's labels (named ``<target>_predicted``); ``False`` gives a
                Boolean "is positive" mask (named ``<target>_is_positive``).
            engine: ``"plugin"`` (the Rust expression plugin), ``"compiled"`` (plain Polars
                expressions), or ``"auto"``: the compiled form for small models, the plugin
                beyond ``expressions.COMPILED_MAX_CONSTRAINTS`` constraints.

        Example:
            >>> import findrs, polars as pl
            >>> df = findrs.datasets.tic_tac_toe()
            >>> m = df.findrs.fit("class", "positive", shuffle=False)
            >>> df.lazy().with_columns(m.predict_expr()).collect()["class_predicted"][0]
            'positive'
        """
        mask = expressions.mask_expr(self, engine)
        if not labels or self.target.negative is None:
            return mask.alias(f"{self.target.name}_is_positive" if labels is False else f"{self.target.name}_predicted")
        pos, neg = pl.lit(self.target.positive), pl.lit(self.target.negative)
        out = pl.when(mask).then(pos).otherwise(neg)
        dtype = _parse_dtype(self.target.dtype)
        if dtype is not None and dtype != pl.Categorical:
            out = out.cast(dtype)
        return out.alias(f"{self.target.name}_predicted")

    def score_expr(self, *, engine: "expressions.Engine" = "auto") -> pl.Expr:
        """``decision_function`` as a Float64 Polars expression named ``<target>_score``."""
        return expressions.score_expr(self, engine).alias(f"{self.target.name}_score")

    def explain_expr(self, *, top: int | None = None) -> pl.Expr:
        """The ids of the voting rules that fire on each row (``List[UInt32]``, heaviest first
        for BO/BP; ids index ``model.rules``), named ``fired_rules``; ``top`` keeps the first n."""
        e = expressions.fired_expr(self)
        if top is not None:
            e = e.list.head(int(top))
        return e.alias("fired_rules")

    def to_expr(self) -> pl.Expr:
        """The prediction (a Boolean mask) compiled to plain Polars expressions: the DNF as
        ``any_horizontal(all_horizontal(...))``, BO's vote count, BP's weighted sum against its
        threshold. Needs no plugin; practical up to a few thousand constraints."""
        return expressions.mask_expr(self, "compiled").alias(f"{self.target.name}_is_positive")

    def explain(self, data: Any, *, top: int | None = None) -> pl.DataFrame:
        """Per row: the prediction, the score and the rules that fire (docs/semantics.md §6).

        Returns a DataFrame with columns ``<target>_predicted``, ``<target>_score``,
        ``fired_rules`` (rule ids, heaviest first for BO/BP) and ``fired_texts``; ``top`` keeps
        the ``top`` heaviest fired rules.

        Raises:
            FindRSInputError: a feature column is missing or changed dtype.
        """
        df = as_polars(data)
        check_columns(df, self.encoders)
        return df.select(self.explain_exprs(top=top)).with_columns(self._texts_expr())

    def explain_exprs(self, *, top: int | None = None) -> list[pl.Expr]:
        """The expressions behind :meth:`explain` (prediction, score, fired rule ids); add
        the texts with ``.with_columns(model.fired_texts_expr())`` afterwards."""
        return [self.predict_expr(), self.score_expr(), self.explain_expr(top=top)]

    def _texts_expr(self) -> pl.Expr:
        texts = pl.Series([rule_text(self.encoders, c) for c in self._constraints()[: self.n_rules]], dtype=pl.String)
        ids = pl.Series(range(len(texts)), dtype=pl.UInt32)
        return (
            pl.col("fired_rules")
            .list.eval(pl.element().replace_strict(ids, texts, return_dtype=pl.String))
            .alias("fired_texts")
        )

    fired_texts_expr = _texts_expr

    def to_sql(self, *, table: str | None = None, dialect: str = "duckdb", output: str = "predict") -> str:
        """The model as a SQL expression (or, with ``table``, a ``SELECT``) computing exactly what
        ``predict`` computes (``output="score"``: the integer score, ``"decision"``:
        ``decision_function``), for ``dialect`` ``"duckdb"`` or ``"sqlite"``; see ``findrs.sql``.

        Example:
            >>> import findrs
            >>> m = findrs.datasets.tic_tac_toe().findrs.fit("class", "positive", shuffle=False)
            >>> m.to_sql().startswith("CASE")
            True
        """
        from .sql import model_to_sql

        return model_to_sql(self, table=table, dialect=dialect, output=output)

    # ----------------------------------------------------------------- rules
    def _constraints(self) -> list[list[tuple[int, list[int]]]]:
        return self._core.rules()

    @property
    def rules(self) -> pl.DataFrame:
        """The rules as a table, heaviest first for BO/BP (docs/semantics.md §6).

        Columns: ``id``, ``text``, ``constraints`` (list of ``{feature, values}`` structs, values
        as text), ``weight`` (alpha: how many runs found the rule; 1 for FIND-RS),
        ``train_positives`` / ``train_negatives`` (training rows covered), ``kept`` (whether
        the rule votes: BP's top K; always true otherwise).
        """
        if self._rules_df is None:
            rows = self._constraints()
            texts = [rule_text(self.encoders, c) for c in rows]
            cons = [
                [{"feature": self.encoders[f].name, "values": [self.encoders[f].label(v) for v in codes]} for f, codes in c]
                for c in rows
            ]
            n = len(rows)
            self._rules_df = pl.DataFrame(
                {
                    "id": pl.Series(range(n), dtype=pl.UInt32),
                    "text": pl.Series(texts, dtype=pl.String),
                    "constraints": pl.Series(
                        cons, dtype=pl.List(pl.Struct({"feature": pl.String, "values": pl.List(pl.String)}))
                    ),
                    "weight": pl.Series(self._core.weights, dtype=pl.UInt32),
                    "train_positives": pl.Series(self._training["rule_positives"], dtype=pl.UInt32),
                    "train_negatives": pl.Series(self._training["rule_negatives"], dtype=pl.UInt32),
                    "kept": pl.Series([i < self.n_rules for i in range(n)], dtype=pl.Boolean),
                }
            )
        return self._rules_df

    def __str__(self) -> str:
        name = _METHOD_NAMES[self.method]
        tau = self.params.get("tolerance", 0)
        head = f"{name} ({self.encoding.upper()}, tolerance {tau}"
        if self.method != "find-rs":
            head += f", T={self.T}"
        head += f"): {self.target.name} = {self.target.positive!r}"
        cons = self._constraints()[: self.n_rules]
        rules = {"text": [rule_text(self.encoders, c) for c in cons], "weight": self._core.weights[: self.n_rules]}
        lines = [head]
        if self.method == "find-rs":
            lines.append(f"positive when any of these {len(cons)} rules holds:")
            lines += [f"  {'IF' if i == 0 else 'OR'} {t}" for i, t in enumerate(rules["text"])]
        elif self.method == "bo":
            lines.append(
                f"positive when more than {self.T}/2 of the {self.T} runs' rule sets hold; "
                f"the {len(cons)} distinct rules by weight:"
            )
            lines += [f"  {w:>4}  {t}" for w, t in zip(rules["weight"], rules["text"])]
        else:
            kept = sum(self._core.weights[: self.n_rules])
            thr = kept * self.T / (2.0 * self._core.total_weight)
            lines.append(
                f"positive when the weights of the rules that hold sum above {thr:.4g} "
                f"(top {self.n_rules} of {self.n_rules_found} rules, gamma_K T/2):"
            )
            lines += [f"  {w:>4}  {t}" for w, t in zip(rules["weight"], rules["text"])]
        if self.contradictions:
            lines.append(f"({self.contradictions} contradictory training rows)")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return (
            f"RuleSetModel(method={self.method!r}, encoding={self.encoding!r}, "
            f"n_rules={self.n_rules}, target={self.target.name!r}, positive={self.target.positive!r})"
        )

    # ----------------------------------------------------------------- BP pruning
    def with_n_rules(self, k: int) -> "RuleSetModel":
        """The same BP model with the top ``k`` rules voting.

        Raises:
            FindRSInputError: the model is not BP, or ``k`` is out of ``1..n_rules_found``.
        """
        if self.method != "bp":
            raise FindRSInputError(f"with_n_rules applies to BP models; this one is {self.method!r}")
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not (1 <= k <= self.n_rules_found):
            raise FindRSInputError(f"n_rules must be an integer from 1 to {self.n_rules_found}, got {k!r}")
        core = self._core.with_n_kept(int(k))
        return RuleSetModel(core, self.encoders, self.target, {**self.params, "n_rules": int(k)}, self._training)

    def pruning_curve(self, train: Any, test: Any | None = None) -> pl.DataFrame:
        """Accuracy of the top-K BP vote for every K (the paper's Figure 1).

        Returns a DataFrame with columns ``K``, ``train_accuracy`` and, when ``test`` is given,
        ``test_accuracy``; ``K`` runs over 1..n_rules_found. Each frame must hold the target.

        Raises:
            FindRSInputError: the model is not BP, or a frame lacks the target or a feature.
        """
        if self.method != "bp":
            raise FindRSInputError(f"pruning_curve applies to BP models; this one is {self.method!r}")
        out: dict[str, Any] = {"K": pl.Series(range(1, self.n_rules_found + 1), dtype=pl.UInt32)}
        for name, data in (("train_accuracy", train), ("test_accuracy", test)):
            if data is None:
                continue
            df = as_polars(data)
            if self.target.name not in df.columns:
                raise FindRSInputError(
                    f"target column {self.target.name!r} not found in the {name.split('_')[0]} frame; "
                    f"its columns are {df.columns}"
                )
            y = np.ascontiguousarray((df.get_column(self.target.name) == self.target.positive).fill_null(False).to_numpy(), dtype=np.bool_)
            correct = np.asarray(self._core.pruning_curve(self._codes(df), y), dtype=np.float64)
            out[name] = correct / max(len(y), 1)
        return pl.DataFrame(out)

    # ----------------------------------------------------------------- JSON
    def to_dict(self) -> dict[str, Any]:
        """The model as plain data (the JSON format, see the README)."""
        with _no_gc():
            return self._to_dict()

    def _to_dict(self) -> dict[str, Any]:
        # Rules share most of their constraints: each distinct one is rendered once.
        rendered: dict[tuple[int, tuple[int, ...]], tuple[str, str, list[Any]]] = {}

        def render(f: int, codes: Sequence[int]) -> tuple[str, str, list[Any]]:
            key = (f, tuple(codes))
            hit = rendered.get(key)
            if hit is None:
                enc = self.encoders[f]
                hit = rendered[key] = (constraint_text(enc, codes), enc.name, [enc.json_value(v) for v in codes])
            return hit

        rules = []
        for i, (c, w) in enumerate(zip(self._constraints(), self._core.weights)):
            parts = [render(f, codes) for f, codes in c]
            rules.append(
                {
                    "id": i,
                    "weight": int(w),
                    "text": " and ".join(p[0] for p in parts) if parts else rule_text(self.encoders, c),
                    "constraints": [{"feature": name, "values": list(values)} for _, name, values in parts],
                }
            )
        return {
            "format": FORMAT,
            "version": FORMAT_VERSION,
            "method": self.method,
            "encoding": self.encoding,
            "params": self.params,
            "T": self.T,
            "n_rules": self.n_rules,
            "total_weight": int(self._core.total_weight),
            "target": self.target.to_dict(),
            "features": [e.to_dict() for e in self.encoders],
            "rules": rules,
            "runs": [list(r) for r in self._core.runs],
            "training": self._training,
        }

    def to_json(self, path: str | os.PathLike[str] | None = None, *, indent: int | None = None) -> str:
        """The model as JSON text; also written to ``path`` when given.

        Example:
            >>> import findrs
            >>> m = findrs.datasets.tic_tac_toe().findrs.fit("class", "positive", shuffle=False)
            >>> findrs.RuleSetModel.from_json(m.to_json()).n_rules
            8
        """
        with _no_gc():
            text = json.dumps(self.to_dict(), indent=indent, allow_nan=False)
        if path is not None:
            Path(path).write_text(text)
        return text

    @classmethod
    def from_json(cls, source: str | os.PathLike[str]) -> "RuleSetModel":
        """Loads a model from JSON text or from a file path.

        Raises:
            FindRSInputError: not a findrs model, an unsupported version, or inconsistent content.
        """
        if isinstance(source, os.PathLike) or (isinstance(source, str) and _is_file(source)):
            text = Path(source).read_text()
        elif isinstance(source, str):
            text = source
            if not text.lstrip().startswith(("{", "[", '"')) and not text.strip()[:1].isdigit():
                raise FindRSInputError(f"{source!r} is neither a findrs model file nor findrs model JSON")
        else:
            raise FindRSInputError(f"from_json takes JSON text or a path, got {type(source).__name__}")
        with _no_gc():
            try:
                d = json.loads(text)
            except json.JSONDecodeError as e:
                raise FindRSInputError(f"not a findrs model: invalid JSON ({e})") from None
            return cls.from_dict(d)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "RuleSetModel":
        """Builds a model from :meth:`to_dict`'s output."""
        with _no_gc():
            return cls._from_dict(d)

    @classmethod
    def _from_dict(cls, d: dict[str, Any]) -> "RuleSetModel":
        if not isinstance(d, dict) or d.get("format") != FORMAT:
            raise FindRSInputError("not a findrs model: the 'format' field is not 'findrs-model'")
        if d.get("version") != FORMAT_VERSION:
            raise FindRSInputError(
                f"findrs model format version {d.get('version')!r} is not supported by this findrs "
                f"(it reads version {FORMAT_VERSION}); upgrade findrs or re-fit the model"
            )
        try:
            encoders = [FeatureEncoder.from_dict(f) for f in d["features"]]
            index = {e.name: i for i, e in enumerate(encoders)}
            lookups = [{_value_key(e.json_value(c)): c for c in range(e.domain_size)} for e in encoders]
            rules = []
            for r in d["rules"]:
                cons = []
                for c in r["constraints"]:
                    f = index[c["feature"]]
                    cons.append((f, sorted(lookups[f][_value_key(v)] for v in c["values"])))
                rules.append(cons)
            weights = [int(r["weight"]) for r in d["rules"]]
            core = _core.CoreModel(
                [e.domain_size for e in encoders],
                [d["encoding"]] * len(encoders),
                d["method"],
                rules,
                weights,
                [list(r) for r in d.get("runs", [])],
                int(d["T"]),
                int(d["n_rules"]),
                int(d["total_weight"]),
            )
            target = Target.from_dict(d["target"])
            params, training = d["params"], d["training"]
            if not isinstance(params, dict) or not isinstance(training, dict):
                raise TypeError("'params' and 'training' must be objects")
        except (KeyError, TypeError, AttributeError, IndexError) as e:
            raise FindRSInputError(f"findrs model JSON is missing or has a malformed field: {e!r}") from None
        except (ValueError, OverflowError) as e:
            raise FindRSInputError(f"findrs model JSON is inconsistent: {e}") from None
        return cls(core, encoders, target, params, training)


@contextlib.contextmanager
def _no_gc() -> Iterator[None]:
    """Pauses the cyclic garbage collector: a large model's JSON is millions of small
    containers, none of them cyclic, and collections triggered while building them took
    two thirds of the time (connect-4's 118k-rule model: 19.7 s to load, 6.5 s without).
    The pause spans a whole load or save (parse and build, or build and dump): objects made
    while it is paused stay in the youngest generation, so resuming in between would have the
    next collection walk all of them."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _value_key(v: Any) -> Any:
    """A hashable key equal for two JSON values exactly when their JSON texts are equal
    (1, 1.0 and true stay distinct; a bin's [lo, hi] is compared as text)."""
    if isinstance(v, (list, dict)):
        return ("json", json.dumps(v))
    return (type(v).__name__, v)


def _is_file(text: str) -> bool:
    if text.lstrip().startswith("{"):
        return False
    try:
        return Path(text).is_file()
    except (OSError, ValueError):
        return False


def _parse_dtype(text: str) -> pl.DataType | None:
    simple = {
        "String": pl.String, "Boolean": pl.Boolean, "Int8": pl.Int8, "Int16": pl.Int16, "Int32": pl.Int32,
        "Int64": pl.Int64, "UInt8": pl.UInt8, "UInt16": pl.UInt16, "UInt32": pl.UInt32, "UInt64": pl.UInt64,
        "Float32": pl.Float32, "Float64": pl.Float64, "Categorical": pl.Categorical,
    }
    return simple.get(text)
