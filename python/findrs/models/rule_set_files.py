"""A :class:`~findrs.RuleSetModel`'s file: the core's one serialization with findrs'
sections (target, features, params, training, cross-validation), read back with every section
checked against the rest, and version 1 files upgraded (docs/json-format.md).

Invariant: a document that loads is one some fit could have written: every size and setting is
checked before the core builds the model, so a corrupt file is a
:class:`~findrs.FindRSInputError`.
"""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from .. import _core
from ..data.encode import FeatureEncoder
from ..data.target import Target
from ..errors import FindRSInputError
from ..select import auto
from ..select import multiclass as multiclass_settings
from ..select.params import ABSENT_FROM_OLDER_FILES, check_params
from . import multiclass
from . import all_rows
from .rule_set_path import check_path, path_problems
from .rule_set_parts import _OPTIONAL_SECTIONS, _SECTIONS, FORMAT, FORMAT_VERSION, _no_gc, _schema, _value_key

if TYPE_CHECKING:  # annotations only: the model module imports this one
    from .model import RuleSetModel


class _Files:
    """The file half of :class:`~findrs.RuleSetModel` (a mixin of it)."""

    def to_json(self, path: str | os.PathLike[str] | None = None) -> str:
        """The model as JSON text (format version 2, see docs/json-format.md); also written to ``path``
        when given.

        Raises:
            OSError: ``path`` cannot be written.

        Example:
            >>> import findrs
            >>> m = findrs.datasets.tic_tac_toe().findrs.fit("class", "positive", random_state=0, settings=dict(shuffle=False))
            >>> findrs.RuleSetModel.from_json(m.to_json()).n_rules
            8
        """
        sections = [
            ("target", _dumps(self.target.to_dict())),
            ("features", _dumps([e.to_dict() for e in self.encoders])),
            # run 0 of one (every fit but a chosen run, docs/semantics.md §5.3) is left out: such a
            # file is byte for byte what findrs wrote before these parameters, and loads with them.
            ("params", _dumps({k: v for k, v in self.params.items()
                               if not (k in ("run", "best_of") and v == ABSENT_FROM_OLDER_FILES[k])})),
            ("training", _dumps(_ordered_training(self._training))),
        ]
        if self._cv is not None:
            sections.append(("cv", _dumps(self._cv)))
        text = self._core.dump(sections, self._constraint_texts())
        if path is not None:
            Path(path).write_text(text)
        return text

    @classmethod
    def from_json(cls, source: str | os.PathLike[str]) -> "RuleSetModel":
        """Loads a model from JSON text or from a file path (format version 2, or 1 as findrs
        wrote it before). Everything is checked on load; an error names what is wrong.

        Raises:
            FindRSInputError: not a findrs model, an unsupported version, or inconsistent content.
            OSError: the file cannot be read.

        Example:
            >>> import findrs
            >>> m = findrs.datasets.tic_tac_toe().findrs.fit("class", "positive", random_state=0, settings=dict(shuffle=False))
            >>> findrs.RuleSetModel.from_json(m.to_json()).rules["text"][0]
            'top_left = x and top_middle = x and top_right = x'
        """
        text = source_text(source)
        if text is source and not text.lstrip().startswith(("{", "[", '"')) and not text.strip()[:1].isdigit():
            raise FindRSInputError(f"{source!r} is neither a findrs model file nor findrs model JSON")
        try:
            core, sections = _core.CoreModel.load(text)
        except ValueError as e:
            if "format version 1 " in str(e):
                return cls._from_v1(text)
            if '"findrs-exceptions"' in text[:200]:
                raise FindRSInputError(
                    "this is a rules-with-exceptions model (docs/semantics.md §9.6): load it with "
                    "findrs.ExceptionsModel.from_json") from None
            raise FindRSInputError(f"findrs model JSON: {e}") from None
        return cls._assemble(core, dict(sections))

    @classmethod
    def _assemble(cls, core: _core.CoreModel | _core.CoreMulticlass, raw: dict[str, str]) -> "RuleSetModel":
        """The model from the core's model and the document's other sections, checked against
        each other."""
        missing = [s for s in _SECTIONS if s not in raw]
        extra = [s for s in raw if s not in _SECTIONS + _OPTIONAL_SECTIONS]
        if missing or extra:
            raise FindRSInputError(
                f"findrs model JSON: the sections besides 'model' must be {list(_SECTIONS)} "
                f"(and {list(_OPTIONAL_SECTIONS)} after a cross-validation); "
                + (f"missing {missing}" if missing else f"unknown {extra}")
            )
        d = {k: json.loads(v) for k, v in raw.items()}

        def section(name: str, read: Callable[[Any], Any]) -> Any:
            try:
                return read(d[name])
            except FindRSInputError as e:
                raise FindRSInputError(f"findrs model JSON: {name}: {e}") from None

        encoders = section("features", _read_features)
        target = section("target", Target.from_dict)
        params = section("params", _read_params)
        multi = isinstance(core, _core.CoreMulticlass)
        training = section("training", _check_multiclass_training if multi else _check_training)
        if bool(params["auto"]) != ("cv" in d):
            raise FindRSInputError(
                "findrs model JSON is inconsistent: params['auto'] lists the settings a cross-validation chose "
                "exactly when the 'cv' section records it"
            )
        cv = section("cv", lambda r: auto.check_record(r, params, training["rows"])) if "cv" in d else None
        names = [e.name for e in encoders]
        dup = sorted({n for n in names if names.count(n) > 1})
        problems = []
        if dup:
            problems.append(f"the feature names {dup} repeat")
        sizes, kinds, null_seen = _schema(encoders, params["encoding"])
        if sizes != list(core.domain_sizes):
            problems.append(
                f"the features have {sizes} values but the model's schema "
                f"{list(core.domain_sizes)}"
            )
        if list(core.kinds) != kinds:
            problems.append(
                f"params say encoding {params['encoding']!r} and the features say {kinds}, but the model's "
                f"schema has {list(core.kinds)}"
            )
        if list(core.null_seen) != null_seen:
            problems.append("the interval features' null values disagree with the model's schema")
        intervals = [e.name for e in encoders if e.kind == "interval"]
        if intervals and params["numeric"] != "interval":
            problems.append(f"params say numeric {params['numeric']!r} but {intervals} are interval features")
        if params["numeric"] == "interval" and any(e.kind == "binned" for e in encoders):
            problems.append("params say numeric 'interval' but some features are binned")
        tight = params["interval_ends"] == "tight"
        if any((e.cuts is None) != tight for e in encoders if e.kind == "interval"):
            problems.append(
                f"params say interval_ends {params['interval_ends']!r}, which "
                + ("has no cuts" if tight else "needs the cuts")
                + ", but an interval feature disagrees"
            )
        if params["method"] != core.method or params["T"] != core.T:
            problems.append(
                f"params say method {params['method']!r} with T = {params['T']}, the model is "
                f"{core.method!r} with T = {core.T}"
            )
        budget = params["max_rules"]
        if multi:
            over = [m.n_rules for m in core.class_models() if budget is not None and m.n_rules > budget]
            if over:
                problems.append(f"params say max_rules = {budget} but a class set has {over[0]} voting rules")
        else:
            if budget is not None and core.n_rules > budget:
                problems.append(f"params say max_rules = {budget} but {core.n_rules} rules vote")
            if budget is None and (core.dnf or "budget" in training):
                problems.append("the model is a rule budget's but params say max_rules = None")
        if multi and (target.classes is None or len(target.classes) != core.n_classes):
            problems.append(f"the model has {core.n_classes} classes but the target lists {target.classes!r}")
        if multi and len(training["class_counts"]) != core.n_classes:
            problems.append(f"the model has {core.n_classes} classes but training counts {len(training['class_counts'])}")
        if multi and len(training["set_contradictions"]) != len(core.set_classes):
            problems.append(f"the model has {len(core.set_classes)} rule sets but training counts contradictions of {len(training['set_contradictions'])}")
        if not multi and target.classes is not None:
            problems.append("the target lists classes but the model is binary")
        if not multi:
            problems += _best_of_problems(params, training) + path_problems(training.get("path"), core.n_rules)
            problems += all_rows.problems(training.get("all_rows"), training["rows"], core.n_rules, training.get("path"))
        elif params["best_of"] != 1 or params["run"] != 0:
            problems.append("a multiclass model's class sets each make run 0: params must say run 0, best_of 1")
        else:
            problems += path_problems(training.get("path"), sum(m.n_rules for m in core.class_models()))
            problems += all_rows.problems(training.get("all_rows"), training["rows"], 0, None)
            if "path" in training and core.method != "find-rs":
                problems.append("only a multiclass FIND-RS model has an accuracy-size path")
        if multi and "settings_cv" in training:
            try:
                training["settings_cv"] = multiclass_settings.check_record(
                    training["settings_cv"], params, core.combine, training["rows"])
            except FindRSInputError as e:
                problems.append(str(e))
        if multi and (params["auto"] or params["direction"] != "positive"):
            problems.append("a multiclass model's params have no automatic settings and describe each class (direction 'positive')")
        if problems:
            raise FindRSInputError("findrs model JSON is inconsistent: " + "; ".join(problems))
        return cls(core, encoders, target, params, training, cv)

    @classmethod
    def _from_v1(cls, text: str) -> "RuleSetModel":
        """A version-1 document converted to version 2 and loaded as such."""
        with _no_gc():
            try:
                d = json.loads(text)
            except json.JSONDecodeError as e:
                raise FindRSInputError(f"not a findrs model: invalid JSON ({e})") from None
            try:
                v2 = _v1_to_v2(d)
            except FindRSInputError as e:
                raise FindRSInputError(f"findrs model JSON (version 1): {e}") from None
            except (KeyError, TypeError, AttributeError, IndexError, ValueError) as e:
                raise FindRSInputError(f"findrs model JSON (version 1) is missing or has a malformed field: {e!r}") from None
            try:
                core, sections = _core.CoreModel.load(json.dumps(v2))
            except ValueError as e:
                raise FindRSInputError(f"findrs model JSON (version 1): {e}") from None
        return cls._assemble(core, dict(sections))


def _read_features(features: Any) -> list[FeatureEncoder]:
    if not isinstance(features, list):
        raise FindRSInputError(f"must be a list, got {features!r}")
    return [FeatureEncoder.from_dict(f) for f in features]


def _read_params(params: Any) -> dict[str, Any]:
    if not isinstance(params, dict):
        raise FindRSInputError(f"must be an object, got {params!r}")
    return check_params(params, loading=True)


def _dumps(value: Any) -> str:
    try:
        return json.dumps(value, allow_nan=False)
    except (TypeError, ValueError) as e:
        raise FindRSInputError(f"the model cannot be written as JSON: {e}") from None


_TRAINING_ORDER = ("rows", "positives", "contradictions", "budget", "best_of", "path", "all_rows")
"""The order of a binary model file's ``training`` fields."""


def _ordered_training(t: dict[str, Any]) -> dict[str, Any]:
    """A binary model's ``training`` record in :data:`_TRAINING_ORDER`, however the fit built it
    (one file for one model); a multiclass record as it is."""
    if "positives" not in t:
        return t
    return {k: t[k] for k in _TRAINING_ORDER if k in t}


def _check_training(t: Any) -> dict[str, Any]:
    keys = ["rows", "positives", "contradictions"]
    if not isinstance(t, dict) or sorted(set(t) - {"budget", "best_of", "path", "all_rows"}) != sorted(keys):
        raise FindRSInputError(
            f"must be an object with the fields {keys} (and 'budget' after a rule budget, 'best_of' after a "
            f"choice of runs, 'path' with the accuracy-size path, 'all_rows' after a fit on a sample), got {t!r}")
    if not all(_count(t[k]) for k in keys):
        raise FindRSInputError(f"its counts must be integers of at least 0, got {t!r}")
    if t["positives"] > t["rows"] or t["contradictions"] > t["rows"]:
        raise FindRSInputError(f"it counts more positives or contradictions than rows: {t!r}")
    out: dict[str, Any] = {k: int(t[k]) for k in keys}
    if "best_of" in t:
        c = t["best_of"]
        if not isinstance(c, list) or len(c) < 2 or not all(_count(x) and x <= t["rows"] for x in c):
            raise FindRSInputError(f"'best_of' must count the training rows each run got right (2 runs or more, each at most the rows), got {c!r}")
        out["best_of"] = [int(x) for x in c]
    if "budget" in t:
        b = t["budget"]
        fields = ["correct", "correct_before"]
        if not isinstance(b, dict) or sorted(b) != fields or not all(_count(b[k]) and b[k] <= t["rows"] for k in fields):
            raise FindRSInputError(f"'budget' must count the training rows {fields} (at most the rows), got {b!r}")
        out["budget"] = {k: int(b[k]) for k in ("correct_before", "correct")}  # the order a fit writes
    if "path" in t:
        out["path"] = check_path(t["path"], out["rows"])
    if "all_rows" in t:
        out["all_rows"] = t["all_rows"]  # checked against the rules: all_rows.problems
    return out


def _best_of_problems(params: dict[str, Any], training: dict[str, Any]) -> list[str]:
    """A model file's ``run`` and ``best_of`` against its training record (docs/semantics.md
    §5.3): with ``best_of`` above 1, the rows each of the ``best_of`` runs got right, and the
    kept run the first with the most (an earlier run as good can only be one that kept no rule,
    which gets exactly the negatives right)."""
    best_of, run, correct = params["best_of"], params["run"], training.get("best_of")
    if best_of == 1:
        return [] if correct is None else ["training records a choice of runs but params say best_of = 1"]
    if correct is None or len(correct) != best_of:
        n = "none" if correct is None else len(correct)
        return [f"params say best_of = {best_of} but training records the rows right of {n} runs"]
    negatives = training["rows"] - training["positives"]
    if max(correct) != correct[run] or any(c == correct[run] and c != negatives for c in correct[:run]):
        return [f"params say run {run} was kept, but the first run with the most training rows right of "
                f"{correct} is run {correct.index(max(correct))}"]
    return []


def _count(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool) and x >= 0


def _check_multiclass_training(t: Any) -> dict[str, Any]:
    keys = ["rows", "class_counts", "contradictions", "set_contradictions"]
    if not isinstance(t, dict) or sorted(set(t) - {"combination_cv", "numeric_cv", "settings_cv", "path", "all_rows"}) != sorted(keys):
        raise FindRSInputError(
            f"must be an object with the fields {keys} (and 'combination_cv', 'numeric_cv', 'settings_cv', 'path', "
            f"'all_rows'), "
            f"got {t!r}")
    lists = [t[k] if isinstance(t[k], list) else [None] for k in ("class_counts", "set_contradictions")]
    numbers = [t["rows"], t["contradictions"], *lists[0], *lists[1]]
    if not all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in numbers):
        raise FindRSInputError(f"its counts must be integers of at least 0, got {t!r}")
    if sum(lists[0]) != t["rows"] or max([t["contradictions"], *lists[1]]) > t["rows"]:
        raise FindRSInputError(f"its class counts do not sum to its rows, or it counts more contradictions than rows: {t!r}")
    out: dict[str, Any] = {
        "rows": int(t["rows"]),
        "class_counts": [int(c) for c in lists[0]],
        "contradictions": int(t["contradictions"]),
        "set_contradictions": [int(c) for c in lists[1]],
    }
    if "combination_cv" in t:
        cv = t["combination_cv"]
        ok = isinstance(cv, dict) and sorted(cv) == ["correct", "folds"] and isinstance(cv["correct"], list)
        ok = ok and _count(cv["folds"]) and cv["folds"] >= 2 and len(cv["correct"]) == len(multiclass.COMBINATIONS)
        if not ok or not all(_count(c) and c <= t["rows"] for c in cv["correct"]):
            raise FindRSInputError(
                f"'combination_cv' must hold 'folds' (2 or more) and the held-out rows right of each of "
                f"{list(multiclass.COMBINATIONS)}, got {cv!r}"
            )
        out["combination_cv"] = {"folds": int(cv["folds"]), "correct": [int(c) for c in cv["correct"]]}
    if "numeric_cv" in t:
        cv = t["numeric_cv"]
        ok = isinstance(cv, dict) and sorted(cv) == ["correct", "folds"] and isinstance(cv["correct"], list)
        ok = ok and _count(cv["folds"]) and cv["folds"] >= 2 and len(cv["correct"]) == 2
        if not ok or not all(_count(c) and c <= t["rows"] for c in cv["correct"]):
            raise FindRSInputError(
                f"'numeric_cv' must hold 'folds' (2 or more) and the held-out rows right with bins and with "
                f"intervals, got {cv!r}"
            )
        out["numeric_cv"] = {"folds": int(cv["folds"]), "correct": [int(c) for c in cv["correct"]]}
    if "settings_cv" in t:  # checked against the model's settings in _assemble
        out["settings_cv"] = t["settings_cv"]
    if "path" in t:  # its rules checked against the model's in _assemble
        out["path"] = check_path(t["path"], out["rows"])
    if "all_rows" in t:  # checked in _assemble: all_rows.problems
        out["all_rows"] = t["all_rows"]
    return out


def _v1_to_v2(d: Any) -> dict[str, Any]:
    """A version-1 model dict as a version-2 document (raises on what cannot be converted)."""
    if not isinstance(d, dict):
        raise FindRSInputError("the document is not an object")
    encoders = [FeatureEncoder.from_dict(f, legacy=True) for f in d["features"]]
    index = {e.name: i for i, e in enumerate(encoders)}
    if len(index) != len(encoders):
        raise FindRSInputError("feature names repeat")
    lookups = [{_value_key(e.json_value(c)): c for c in range(e.domain_size)} for e in encoders]
    table: dict[tuple[int, tuple[int, ...]], int] = {}
    rules = []
    training = d["training"]
    positives, negatives = training["rule_positives"], training["rule_negatives"]
    if len(positives) != len(d["rules"]) or len(negatives) != len(d["rules"]):
        raise FindRSInputError("'training' does not count every rule's coverage")
    for i, r in enumerate(d["rules"]):
        ids = []
        for c in r["constraints"]:
            f = index[c["feature"]]
            codes = tuple(sorted(lookups[f][_value_key(v)] for v in c["values"]))
            ids.append(table.setdefault((f, codes), len(table)))
        rules.append(
            {"weight": r["weight"], "constraints": sorted(ids), "train_positives": positives[i], "train_negatives": negatives[i]}
        )
    weights = [r["weight"] for r in d["rules"]]
    if not all(isinstance(w, int) and not isinstance(w, bool) for w in weights) or d["total_weight"] != sum(weights):
        raise FindRSInputError(f"total_weight {d['total_weight']!r} is not the sum of the rules' weights")
    rule_set: dict[str, Any] = {"n_rules": d["n_rules"], "rules": rules}
    if d["runs"]:
        rule_set["runs"] = d["runs"]
    if training.get("curve"):
        rule_set["curve"] = training["curve"]
    return {
        "format": FORMAT,
        "version": FORMAT_VERSION,
        "target": d["target"],
        "features": [e.to_dict() for e in encoders],
        "params": d["params"],
        "training": {k: training[k] for k in ("rows", "positives", "contradictions")},
        "model": {
            "method": d["method"],
            "T": d["T"],
            "schema": {"domains": [e.domain_size for e in encoders], "kinds": [d["encoding"]] * len(encoders)},
            "constraints": [{"feature": f, "codes": list(codes)} for (f, codes) in table],
            "rule_sets": [rule_set],
        },
    }


def source_text(source: Any) -> str:
    """The JSON text a model reader reads: a string that is JSON text (it starts with ``{``,
    ``[``, a quote or a digit, holds a line break, or is blank) as it is, else a file's text (a
    path-like, or a string naming a file).

    Raises:
        FindRSInputError: ``source`` is neither a string nor a path; no such file; a directory or
            a file that cannot be read.
    """
    if isinstance(source, str):
        text = source.strip()
        if not text or "\n" in text or text[0] in '{["-' or text[0].isdigit() or text in ("true", "false", "null"):
            return source
    elif not isinstance(source, os.PathLike):
        raise FindRSInputError(f"a findrs model is read from a path or its JSON text, got {type(source).__name__}")
    path = Path(source)
    try:
        return path.read_text()
    except FileNotFoundError:
        raise FindRSInputError(f"no such findrs model file: {str(path)!r} (pass a path, or the model's JSON text)") from None
    except IsADirectoryError:
        raise FindRSInputError(f"{str(path)!r} is a directory, not a findrs model file") from None
    except OSError as e:
        raise FindRSInputError(f"cannot read the findrs model file {str(path)!r}: {e.strerror or e}") from None
    except UnicodeDecodeError:
        raise FindRSInputError(f"the file {str(path)!r} is not text: not a findrs model file") from None


def document_format(text: str) -> Any:
    """The ``format`` of the JSON object ``text`` (``"findrs-exceptions"``, ``"findrs-bagged"``),
    ``None`` for a plain model's document or text that is not a JSON object."""
    try:
        doc = json.loads(text)
    except ValueError:
        return None
    return doc.get("format") if isinstance(doc, dict) else None
