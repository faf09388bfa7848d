"""``fit``: from a frame and a target column to a :class:`~findrs.RuleSetModel`."""

from __future__ import annotations

import contextlib
import functools
import contextvars
import secrets
import warnings
from typing import Any, Iterator, Literal, Mapping, Sequence

import numpy as np
import polars as pl

from ..data.columns import check_numbers_as_text, contradiction_message, raw_contradictions
from ..data.encode import encode_frame, fit_encoders
from ..errors import ContradictionWarning, FindRSInputError
from ..models.exceptions import ExceptionsModel
from ..data.fold_codes import fold_coder
from ..data.frames import as_polars, is_dask, refuse_missing_features
from ..models import all_rows
from ..models.rule_set_parts import FoldCoder
from ..models.model import ModelPair, RuleSetModel
from ..models.multiclass import DEFAULT as _MULTICLASS_DEFAULT
from ..models.multiclass import COMBINATIONS, Multiclass, check_combination, stratified_folds
from ..select.params import DEFAULTS, auto_best_of, auto_cv_rows, NOT_GIVEN, PARAMETERS, NotGiven, _Int, check_n_jobs, check_params, _chosen_in_order
from .progress import encoding_words, fit_stage, progress_bar, stage
from ..settings import Settings, coerce
from ..data.target import binarize, class_indices
from ..select import auto as _auto_mod
from ..select import halving
from . import exceptions_cv as _exceptions_cv
from . import sample as _sample
from . import multiclass_cv as _mc_cv
from ..select import multiclass as _mc_grid
from .sized import fit_sized

Method = Literal["find-rs", "bo", "bp"]
Pair = Literal["bo+bp"]
Encoding = Literal["av", "oh"]
Direction = Literal["positive", "negative"]
Auto = Literal["auto"]
Numeric = Literal["bins", "interval"]
BinEdges = Literal["uniform", "quantile", "supervised"]
IntervalEnds = Literal["tight", "midpoint", "open", "widened"]


def fit(
    data: Any,
    target: str,
    positive: Any | None = None,
    *,
    method: Method | Pair | None = None,
    max_rules: int | Literal["auto"] | None = NOT_GIVEN["max_rules"],
    auto: bool = True,
    features: Sequence[str] | None = None,
    random_state: int | None = None,
    n_jobs: int | None = None,
    verbose: bool = False,
    settings: Settings | Mapping[str, Any] | None = None,
) -> RuleSetModel | ExceptionsModel | ModelPair:
    """Learns a rule set that describes the rows whose ``target`` is ``positive``.

    With the defaults the settings are chosen by stratified cross-validation on these rows
    (docs/semantics.md §9.4; ``model.cv_results`` holds the table); ``auto=False`` is the paper's
    algorithm. Every parameter is declared once in :mod:`findrs.settings`; docs/settings.md
    explains each one.

    Args:
        data: a Polars DataFrame or LazyFrame, or a pandas DataFrame / PyArrow table. With
            automatic settings and more than 50 million cells (rows x feature columns) the
            rules are learned on a stratified sample of that size and the model's counts made on
            all rows, a LazyFrame (e.g.
            ``pl.scan_parquet``) in streaming passes, never collected whole (docs/semantics.md
            §13); otherwise a LazyFrame is collected once. A Dask DataFrame is read that way
            too, its partitions on their workers (automatic settings only).
        target: the label column.
        positive: the label the rules describe. Default: ``True`` for a boolean target, the
            greater label when there are exactly two. With more classes and no ``positive`` the
            model is multiclass (one rule set per class).
        method: ``"find-rs"`` (one run), ``"bo"`` (a vote of ``T`` runs), ``"bp"`` (the weighted
            rules of ``T`` runs, the best ``n_rules`` voting), ``"bo+bp"`` (both from one set of
            runs, a :class:`~findrs.ModelPair`; needs ``auto=False``). ``None``: FIND-RS, or a
            budgeted BP vote when the cross-validation prefers it (binary, up to 10,000 rows).
        max_rules: the size. Default ``"auto"`` with automatic settings: the smallest FIND-RS
            model within half a standard error of the most accurate, on the candidates'
            accuracy-size paths (docs/semantics.md §8.1; a multiclass model's path counts every
            class set's rules, §10.1); ``None``: the most accurate model of any size (a BP vote
            or rules with exceptions when they cross-validate better); a number: at most that
            many voting rules (§8; a multiclass FIND-RS model's summed over its class sets, §10.1).
        auto: ``True`` chooses the settings not given by cross-validation; ``False`` gives them
            the paper's values (AV, tolerance 0, no support filter, no simplification).
        features: the feature columns (default: every column but the target).
        random_state: seed of the presentation orders and the folds; ``None`` draws one
            (recorded in ``model.params``). The same data, settings and seed give the same model
            whatever ``n_jobs``.
        n_jobs: threads (``None`` or ``-1``: all cores).
        verbose: one line on stderr, redrawn at least every second: the stage that runs (each
            cross-validation of the automatic settings, the final fit, ...), its finished runs,
            the elapsed time and an estimate of the stage's remaining time (tqdm's bar when tqdm
            is installed).
        settings: the expert settings, a :class:`~findrs.Settings` or a dict of its names: the
            rules of one run (``tolerance``, ``min_support``, ``encoding``, ``direction``,
            ``simplify``, ``exceptions``, ...), BO/BP votes (``T``, ``n_rules``, ...), numeric
            columns (``numeric``, ``bins``, ``bin_edges``, ``interval_ends``), the
            cross-validation (``cv``, ``cv_rows``, ``cv_T``) and ``multiclass``.

    Returns:
        A :class:`~findrs.RuleSetModel` (binary or multiclass); a :class:`~findrs.ExceptionsModel`
        when the rules have exceptions; a :class:`~findrs.ModelPair` for ``method="bo+bp"``.

    Raises:
        FindRSInputError: a missing target or feature column, an absent ``positive``, a single
            class, an empty frame, an unusable column dtype, a target with nulls, ``target`` not
            a column name, an unknown setting or a value out of its range (the message names
            it), or settings that do not combine (each message says which and the fix; the
            combinations: docs/settings.md), a String feature of numbers as text with more than
            1,000 distinct values (the message gives the cast; docs/semantics.md §1), a Dask
            DataFrame with ``auto=False`` or ``chunks``.
        KeyboardInterrupt: Ctrl-C during a fit (it stops between runs).

    Warns:
        ContradictionWarning: identical rows carry both labels (they stay legal).
        IdentifierWarning: a string or integer feature holds a different value in every row; a
            text identifier not named in ``features`` is left out.
        UserWarning: a String feature holds numbers as text with more than ``bins`` values.

    Example:
        >>> import findrs
        >>> df = findrs.datasets.tic_tac_toe()
        >>> paper = findrs.fit(df, "class", "positive", auto=False, settings={"shuffle": False})
        >>> print(paper.rules["text"][0])
        top_left = x and top_middle = x and top_right = x
        >>> findrs.fit(df, "class", "positive", random_state=0).n_rules  # settings chosen by CV
        8
    """
    given = coerce(settings).as_dict()
    src = None
    if is_dask(data) and (not auto or given["chunks"] is not None):
        raise FindRSInputError(
            "a Dask DataFrame is fitted with automatic settings (auto=True, no chunks): its partitions stay on "
            "their workers and the rules are learned on a sample (docs/semantics.md §13); for "
            f"{'auto=False' if not auto else 'chunks'} pass a frame in memory, e.g. data.compute()")
    if auto and given["chunks"] is None:
        # docs/semantics.md §13: more rows than the rules need: learn on a sample, count on all.
        _check_target_is_a_name(data, target)
        src, data = _sample.source(data, target, features)
    if src is None:
        return _fit(data, target, positive, method=method, max_rules=max_rules, auto=auto, features=features,
                    random_state=random_state, n_jobs=n_jobs, verbose=verbose, **given)
    seed = _sample.seed_of(random_state)
    with _line(verbose, f"stratified sample of {src.size:,} of the {src.n:,} rows"):
        rows = _sample.sample(src, target, seed)
    model = _fit(rows, target, positive, method=method, max_rules=max_rules, auto=auto, features=features,
                 random_state=seed, n_jobs=n_jobs, verbose=verbose, **given)
    with _line(verbose, f"counting the model on all {src.n:,} rows"):
        all_rows.holder(model)._training["all_rows"] = _sample.all_rows(model, src, target)
    return model


def _fit(
    data: Any,
    target: str,
    positive: Any,
    *,
    method: Any,
    encoding: Any,
    tolerance: Any,
    min_support: Any,
    direction: Any,
    auto: Any,
    shuffle: Any,
    random_state: Any,
    features: Any,
    bins: Any,
    T: Any,
    n_jobs: Any,
    n_rules: Any,
    accuracy_ratio: Any,
    simplify: Any,
    max_rules: Any,
    cv: Any,
    cv_T: Any,
    numeric: Any,
    interval_ends: Any,
    multiclass: Any,
    cv_rows: Any,
    bin_edges: Any,
    chunks: Any,
    verbose: Any,
    exceptions: Any,
    best_of: Any,
    run: Any,
) -> RuleSetModel | ModelPair | ExceptionsModel:
    """:func:`fit` with every parameter of :data:`findrs.settings.TABLE` given."""
    _check_target_is_a_name(data, target)
    exceptions = _exceptions_mode(exceptions, auto)
    if isinstance(max_rules, NotGiven) and (exceptions is True or chunks is not None):
        max_rules = None  # docs/semantics.md §8.1: no size is chosen for these (yet): no budget
    if exceptions is True:
        direction = _check_exceptions(exceptions, method, direction, max_rules, chunks)
    vote = method is None and exceptions is not True
    if method is None:
        method = "find-rs"
    pair = isinstance(method, str) and method == "bo+bp"
    if pair and random_state is None:
        random_state = secrets.randbits(63)  # one seed for both models
    params = check_params(
        {
            "method": "bp" if pair else method, "encoding": encoding, "tolerance": tolerance, "min_support": min_support,
            "direction": direction, "auto": auto, "shuffle": shuffle, "random_state": random_state,
            "bins": bins, "T": T, "n_rules": n_rules, "accuracy_ratio": accuracy_ratio, "simplify": simplify,
            "max_rules": max_rules, "cv": cv, "cv_T": cv_T, "cv_rows": cv_rows,
            "numeric": "bins" if numeric is None else numeric, "interval_ends": interval_ends,
            "bin_edges": "uniform" if bin_edges is None else bin_edges,
            "run": run, "best_of": 1 if best_of is None else best_of,
        }
    )
    n_jobs = check_n_jobs(n_jobs)
    if params["method"] != "bp" and isinstance(n_rules, int) and not isinstance(n_rules, bool):
        warnings.warn(
            f"n_rules={n_rules} is ignored by method={params['method']!r}: every rule it finds votes; "
            f"pass method='bp' to keep the best {n_rules} rules, or max_rules={n_rules} for a rule budget",
            UserWarning,
            stacklevel=3,
        )
    combine = check_combination(multiclass)
    if chunks is not None:
        chunks = _Int(1, 1_000_000).check("chunks", chunks)
    if pair and params["auto"]:
        raise FindRSInputError(
            f"method='bo+bp' cannot choose settings automatically ({', '.join(params['auto'])}; auto=True is the "
            "default): the cross-validation chooses them per method; pass auto=False (the paper's settings for those "
            "not given) or fix those settings, or fit method='bo' and method='bp' separately"
        )
    if chunks is not None and params["auto"]:
        raise FindRSInputError(
            f"chunks cannot be combined with automatic settings ({', '.join(params['auto'])}; auto=True is the "
            "default) yet: the cross-validation runs in one process; pass auto=False (the paper's settings for those "
            "not given) or fix those settings, or leave chunks None"
        )
    df = as_polars(data)
    if df.height == 0:
        raise FindRSInputError("the frame has no rows; FIND-RS needs positive and negative rows")
    if isinstance(params["cv_rows"], str):  # "auto": the sample follows the training rows (§9.4)
        params = {**params, "cv_rows": auto_cv_rows(df.height)}
    if isinstance(features, str):
        features = [features]
    features_given = features is not None
    if features is None:
        features = [c for c in df.columns if c != target]
    else:
        features = list(features)
        repeated = sorted({f for f in features if features.count(f) > 1}, key=str)
        if repeated:
            raise FindRSInputError(f"features lists {repeated} more than once; name each feature column once")
        refuse_missing_features(features, df.columns)
        if target in features:
            raise FindRSInputError(f"the target column {target!r} cannot also be a feature; remove it from features")
    if not features:
        raise FindRSInputError(f"there are no feature columns besides the target {target!r}")
    nul = [c for c in [*features, target] if isinstance(c, str) and "\0" in c]
    if nul:
        # Polars panics when it reports an error about such a column.
        raise FindRSInputError(f"the column names {nul} hold a NUL character ('\\0'); rename them, e.g. df.rename({{{nul[0]!r}: {nul[0].replace(chr(0), '')!r}}})")
    # docs/semantics.md §1 (screening): numbers as text, before any run (identifiers: below).
    check_numbers_as_text(df, features, params["bins"])
    given = dict(encoding=encoding, tolerance=tolerance, min_support=min_support, direction=direction,
                 simplify=simplify)

    def papers() -> dict[str, Any]:
        """The defaults fall back to the paper's settings; settings the caller set to "auto"
        stay (and still need cross-validation, which fit then says)."""
        explicit = {k: v for k, v in given.items() if not isinstance(v, NotGiven)}
        paper = {k: NOT_GIVEN[k].paper for k in NOT_GIVEN}
        return check_params({**params, **paper, **explicit, "auto": False,
                             "n_rules": "cv" if "n_rules" in params["auto"] else params["n_rules"]})

    multi = class_indices(df, target) if positive is None else None
    mc_axes: list[str] = []
    mc_size = None
    mc_rows = params["cv_rows"]  # papers() below drops it: the multiclass record keeps the sample instead
    if exceptions is True and multi is not None:
        raise FindRSInputError(
            f"exceptions=True applies to two-class targets; {target!r} has more classes: pass positive=<label> with a "
            f"two-class target, or leave exceptions=False for a multiclass model")
    if multi is not None:
        classes, tgt = multi
        # docs/semantics.md §10.1: the size is chosen by the multiclass cross-validation (below),
        # not §9.4's: "auto" (the default) is kept aside, and params say no budget.
        if isinstance(params["max_rules"], str) or (params["max_rules"] is not None and params["method"] == "find-rs"):
            # A FIND-RS budget counts every class set's rules: the model is cut on its path.
            mc_size = params["max_rules"]
            params = {**params, "max_rules": None, "auto": [a for a in params["auto"] if a != "max_rules"]}
        if params["auto"]:
            # docs/semantics.md §10: the settings every class set shares are chosen by one
            # cross-validation of the whole model (below); the rest are the paper's.
            mc_axes = [a for a in _mc_grid.AXES if a in params["auto"]]
            given.update({a: NOT_GIVEN[a] for a in mc_axes})
            params = papers() if auto or set(params["auto"]) <= set(mc_axes) else params
        if params["auto"] or params["direction"] != "positive":
            what = f"direction={params['direction']!r}" if not params["auto"] else f"automatic settings ({', '.join(params['auto'])})"
            raise FindRSInputError(
                f"{what} apply to binary targets; {target!r} has {len(tgt.classes or ())} classes and gives a multiclass "
                f"model (one rule set per class, each describing its class): fix the settings, or pass positive=<label> to "
                f"learn one class against the rest"
            )
        if params["best_of"] != 1 or params["run"] != 0:
            raise FindRSInputError(
                f"run and best_of choose the run of a binary FIND-RS fit; {target!r} has {len(tgt.classes or ())} "
                f"classes and gives a multiclass model (each class set makes run 0): leave them out, or pass "
                f"positive=<label> to learn one class against the rest")
        if pair or chunks is not None:
            what = "method='bo+bp'" if pair else f"chunks={chunks}"
            fix = ("fit method='bo' and method='bp' separately" if pair else
                   "leave chunks=None (the runs of every class set are made here, on n_jobs threads)")
            raise FindRSInputError(
                f"{what} applies to binary targets only; {target!r} has {len(tgt.classes or ())} classes and gives a "
                f"multiclass model (one rule set per class): {fix}, or pass positive=<label> to learn one class "
                f"against the rest"
            )
    else:
        y, tgt = binarize(df, target, positive)
        if params["auto"] and auto and min(int(y.sum()), len(y) - int(y.sum())) < 2:
            # Too few rows of a class to cross-validate: the defaults are the paper's settings.
            params = papers()
        if tgt.negative is None and params["direction"] != "positive":
            if params["direction"] == "auto" and direction is NOT_GIVEN["direction"]:
                # auto=True on one class against the rest: only that class can be described.
                rest = [k for k in params["auto"] if k not in ("direction", "max_rules")]
                params = check_params({**params, "direction": "positive", "auto": False,
                                       **{k: "cv" if k == "n_rules" else "auto" for k in rest},
                                       "max_rules": max_rules if rest or not isinstance(max_rules, NotGiven) else None})
            else:
                raise FindRSInputError(
                    f"direction={params['direction']!r} needs a target with exactly two classes; {target!r} has "
                    f"more, so the rules can only describe {tgt.positive!r} against the rest"
                )
    if exceptions is True and tgt.negative is None:
        raise FindRSInputError(
            f"exceptions=True needs a target of exactly two classes; {target!r} has more, so there is no "
            f"other label for the exception rules to describe: keep two classes, or leave exceptions=False")
    if chunks is not None and params["best_of"] != 1:
        raise FindRSInputError(
            f"chunks splits the runs of a BO/BP fit; best_of={params['best_of']} chooses a FIND-RS run here: "
            f"leave chunks None")
    if best_of is None and params["auto"] and params["method"] == "find-rs" and multi is None:
        # docs/semantics.md §5.3: the final fit of automatic settings keeps the best of several runs.
        params = {**params, "best_of": auto_best_of(df.height)}
    encoders = fit_encoders(
        df, features, params["bins"], numeric=params["numeric"], interval_ends=params["interval_ends"],
        bin_edges=params["bin_edges"], labels=classes if multi is not None else y, leave_out_identifiers=not features_given,
    )
    if len(encoders) < len(features):  # text identifiers left out (docs/semantics.md §1), before any run
        if not encoders:
            raise FindRSInputError(f"every feature column {features} is an identifier; name the ones to keep in features=[...]")
        features = [e.name for e in encoders]
    codes = encode_frame(df, encoders)
    progress = progress_bar() if verbose else None  # the line of the stages (learning/progress.py)
    try:
        chosen = model = None
        if multi is not None and (auto is True or mc_axes):  # docs/semantics.md §10; None without CV
            model = _mc_cv.fit_auto(df, features, classes, tgt, {**params, **{a: "auto" for a in mc_axes}}, mc_axes,
                                    mc_rows, encoders, codes, combine, numeric is None and auto is True, n_jobs,
                                    progress, max_rules=mc_size)
        if model is None and multi is not None and combine == "auto":
            combine, chosen = _choose_combination(df, codes, classes, encoders, tgt, params, n_jobs,
                                                  report=stage(progress, "cross-validation: class combinations"))
        n_sets = len(tgt.classes or ()) - (combine != "one-vs-rest") if multi is not None else 1
        with _variants():  # each encoding built once (docs/semantics.md §9.4, §9.6)
            if multi is not None:
                if model is None:  # the paper's settings per class, or no cross-validation possible
                    model = RuleSetModel._fit_multiclass(codes, classes, encoders, tgt, params, combine, n_jobs,
                                                         stage(progress, f"fit of {n_sets} class rule sets"), chosen)
                    if isinstance(mc_size, int):
                        model = _mc_cv.budget_cut(model, mc_size)
            elif pair or chunks is not None:
                params_list = [check_params({**params, "auto": False, "method": "bo", "n_rules": None}), params] if pair else [params]
                models = RuleSetModel._fit_many(codes, y, encoders, tgt, params_list, n_jobs, fit_stage(progress, params),
                                                chunks)
                model = models[-1]
            else:
                binned = params["auto"] and any(e.kind == "binned" for e in encoders)
                coder = _fold_coder_of(df, encoders, codes, y, params) if binned else None
                # docs/semantics.md §8.1: a budget with automatic settings is chosen with them.
                sized = bool(params["auto"]) and params["max_rules"] is not None
                if binned:  # built as _encode_variant builds it: the other CV axes reuse it
                    _remember_variant(df, features, y, params, encoders, codes, coder)
                if binned and (bin_edges is None or numeric is None):
                    model, codes, coder = _choose_encoding(df, features, y, tgt, params, encoders, codes, coder, n_jobs,
                                                           progress, edges=bin_edges is None, numeric=numeric is None,
                                                           sized=sized)
                elif sized:
                    rec = RuleSetModel._cross_validate(codes, y, encoders, params, n_jobs, stage(progress, "cross-validation"),
                                                       fold_codes=coder, paths=True)
                    model = fit_sized([(params, encoders, codes, coder)], [rec], rec, y, tgt, n_jobs,
                                      fit_stage(progress, params, "final fit"))[0]
                else:
                    model = RuleSetModel._fit(codes, y, encoders, tgt, params, n_jobs, fit_stage(progress, params), coder)
                if vote and auto and not sized and model._cv is not None and len(y) <= _auto_mod.VOTE_MAX_ROWS:
                    model = _choose_vote(codes, y, tgt, model, n_jobs, progress, coder)
                if exceptions is True:
                    model = _with_exceptions(model, codes, y, tgt, coder, n_jobs, progress)
                elif exceptions == "auto" and not sized and params["method"] == "find-rs" and tgt.negative is not None:
                    model = _choose_exceptions(df, features, y, tgt, model, codes, coder, n_jobs, params["best_of"],
                                               progress)
        if progress is not None:
            progress.finish()  # "done in m:ss"
    finally:
        if progress is not None:
            progress.close()  # after Ctrl-C or an error: ends the line as it stopped
    if model.contradictions:
        raw = raw_contradictions(df, features, classes if multi is not None else y)
        warnings.warn(contradiction_message(model.contradictions, raw), ContradictionWarning, stacklevel=3)
    # docs/semantics.md §2.1: with automatic settings or bin edges other than equal-width, no
    # rule constrains a feature of one training code (after the cross-validation, which it
    # leaves as it was: every training row satisfies such a constraint).
    if pair:
        return ModelPair(*(m._freed() for m in models))
    return model._freed()


def _exceptions_mode(exceptions: Any, auto: Any) -> Any:
    """``exceptions`` as the fit takes it: ``None`` (not given) is ``"auto"`` with automatic
    settings, else ``False`` (docs/semantics.md §9.6)."""
    if exceptions is None:
        return "auto" if auto is True else False
    if isinstance(exceptions, str) and exceptions == "auto":
        if auto is not True:
            raise FindRSInputError(
                "exceptions='auto' is chosen by the cross-validation of automatic settings, which auto=False turns "
                "off: pass settings={'exceptions': True} (rules with exceptions) or False, or auto=True")
        return "auto"
    if exceptions is True or exceptions is False:
        return exceptions
    raise FindRSInputError(f"exceptions must be True, False or 'auto', got {exceptions!r}")


def _choose_exceptions(df: pl.DataFrame, features: Sequence[str], y: np.ndarray, tgt: Any, model: RuleSetModel,
                       codes: list[np.ndarray], coder: FoldCoder | None, n_jobs: int | None, best_of: int,
                       progress: Any = None) -> Any:
    """``exceptions="auto"`` (docs/semantics.md §9.6): ``model``, or rules with exceptions when
    the default fit's cross-validation scores them strictly higher (:func:`findrs.learning.exceptions_cv.choose`).
    ``codes`` / ``coder``: ``model``'s encoding; the other encodings its record lists are made
    again when the choice needs one (:func:`_encode_variant`). ``best_of``: the final FIND-RS
    fit's (docs/semantics.md §5.3), which the rules keep when they are fitted again (``model``
    may be the vote, one run)."""
    if model._cv is None:
        return model
    p = model.params

    def variant(c: Any) -> Variant:
        q = {**p, "bin_edges": c.get("bin_edges", p["bin_edges"]), "numeric": c.get("numeric", p["numeric"])}
        if (q["bin_edges"], q["numeric"]) == (p["bin_edges"], p["numeric"]):
            return q, list(model.encoders), codes, coder
        return _encode_variant(df, features, y, q)

    return _exceptions_cv.choose(y, tgt, model, variant, n_jobs, best_of, progress)


def _check_exceptions(exceptions: Any, method: Any, direction: Any, max_rules: Any, chunks: Any) -> Any:
    """``exceptions=True``'s refusals (docs/semantics.md §9.6); the ``direction`` to fit the
    rules with (``"positive"``)."""
    if exceptions is not True:
        raise FindRSInputError(f"exceptions must be True or False, got {exceptions!r}")
    if method not in (None, "find-rs"):
        raise FindRSInputError(
            f"exceptions=True fits one FIND-RS run per rule set, not method={method!r}: leave method None (or "
            f"'find-rs'), or leave exceptions=False")
    if not isinstance(direction, NotGiven) and direction != "positive":
        raise FindRSInputError(
            f"exceptions=True describes the positive label with rules and the other with exceptions; "
            f"direction={direction!r} cannot combine with it: leave direction out (or 'positive')")
    if max_rules is not None or chunks is not None:
        what = f"max_rules={max_rules!r}" if max_rules is not None else f"chunks={chunks!r}"
        raise FindRSInputError(f"{what} cannot combine with exceptions=True (yet): leave it None, or exceptions=False")
    return "positive"


def _with_exceptions(model: RuleSetModel, codes: list[np.ndarray], y: np.ndarray, tgt: Any,
                     coder: FoldCoder | None, n_jobs: int | None, progress: Any) -> RuleSetModel | ExceptionsModel:
    """``exceptions=True`` (docs/semantics.md §9.6): ``model``'s rules and the other label's
    FIND-RS rules over the same encoders and codes (``coder``: the same per-fold encoding). With
    automatic settings, the exception rules' tolerance, support and simplification are chosen
    by their own cross-validation (the same ``cv``, ``cv_rows`` and ``random_state``), else
    they are ``model``'s. ``model`` itself when no rule has an exception (their support
    leaves no exception rule, or none is at least as precise as a rule)."""
    p = model.params
    q = {k: v for k, v in p.items() if k in PARAMETERS}
    q.update(method="find-rs", direction="negative", n_rules=None, max_rules=None, auto=bool(p["auto"]),
             run=0, best_of=1)
    if p["auto"]:
        q.update(tolerance="auto", min_support="auto", simplify="auto")
    q = check_params(q)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ContradictionWarning)  # the caller warns once
            neg = RuleSetModel._fit(codes, y, model.encoders, tgt, q, n_jobs, fit_stage(progress, q, of="the exception rules"),
                                    coder if q["auto"] else None)
    except FindRSInputError:  # their support leaves no exception rule: the rules alone
        return model
    out = ExceptionsModel(model, neg)
    return out if any(out.exceptions_of) else model


@contextlib.contextmanager
def _line(verbose: bool, what: str) -> Iterator[None]:
    """A progress line of its own for one stage outside the fit (the sample, the counts on all
    rows), shown while it runs with ``verbose=True``."""
    if not verbose:
        yield
        return
    line = progress_bar()
    line.stage(what)
    try:
        yield
    except BaseException:
        line.close()
        raise
    line.finish()


def _check_target_is_a_name(data: Any, target: Any) -> None:
    """``fit(X, y)`` (scikit-learn's form) gets findrs' own message, not Polars' "truth value
    of a Series is ambiguous"."""
    if isinstance(target, str):
        return
    kind = type(target).__module__.split(".")[0] + "." + type(target).__name__
    if hasattr(target, "__len__") and not isinstance(target, (bytes, dict)):
        name = getattr(target, "name", None)
        col = name if isinstance(name, str) and name else "y"
        raise FindRSInputError(
            f"target must be the name of the label column, got a {kind}; findrs.fit takes the labels "
            f"as a column of the frame: findrs.fit(X.with_columns(y.alias({col!r})), {col!r}) (a pandas "
            f"frame: X.assign({col}=y)), or use scikit-learn's form with "
            f"findrs.sklearn.FindRSClassifier().fit(X, y)"
        )
    raise FindRSInputError(
        f"target must be the name of the label column (a str), got {target!r} ({kind}); "
        f"pass the column's name, e.g. findrs.fit(df, 'class')"
    )


def _choose_combination(
    df: Any, codes: list[np.ndarray], classes: np.ndarray, encoders: Any, tgt: Any, params: dict[str, Any],
    n_jobs: int | None,
    combinations: Sequence[str] = COMBINATIONS,
    report: Any = None,
) -> tuple[str, dict[str, Any] | None]:
    """``multiclass="auto"`` (docs/semantics.md §10): the combination whose FIND-RS model (the
    fit's settings, one run) classifies the most held-out rows in stratified cross-validation
    on the training rows, and the record of it (``None`` when a class has fewer than 2 rows:
    then the first of :data:`~findrs.models.multiclass.COMBINATIONS`). ``combinations``: those
    counted (the record's ``correct`` holds 0 for the others). ``report``: told ``(fits done,
    fits)`` after each (a stage of the progress line)."""
    folds = stratified_folds(classes, params["random_state"])
    if folds is None:
        return combinations[0], None
    k = int(folds.max()) + 1
    p = {**params, "method": "find-rs", "T": 1, "n_rules": None}
    correct = {c: 0 for c in COMBINATIONS}
    for f in range(k):
        fit_rows, held = folds != f, folds == f
        part = [np.ascontiguousarray(c[fit_rows]) for c in codes]
        truth = df.filter(pl.Series(held)).get_column(tgt.name)
        frame = df.filter(pl.Series(held))
        for c in combinations:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ContradictionWarning)
                m = RuleSetModel._fit_multiclass(part, np.ascontiguousarray(classes[fit_rows]), encoders, tgt, p, c, n_jobs, None,
                                                 path=False)
            if report is not None:
                report(f * len(combinations) + combinations.index(c) + 1, k * len(combinations))
            # (Renamed: a Series method runs on pl.col(name), a pattern for a target named '^a.*$'.)
            correct[c] += int(m.predict(frame).alias("p").cast(truth.dtype).eq_missing(truth.alias("t")).sum())
    best = max(combinations, key=lambda c: (correct[c], -COMBINATIONS.index(c)))
    return best, {"folds": k, "correct": [correct[c] for c in COMBINATIONS]}



EDGE_CANDIDATES: tuple[str, ...] = ("uniform", "supervised")
"""The bin edge placements the automatic cross-validation tries (docs/semantics.md §9.4), in
order: a tie goes to the earlier."""


def _chosen_score(rec: dict[str, Any]) -> tuple[int, int]:
    """How the CV axes besides the core's compare cross-validations (docs/semantics.md §9.4):
    the held-out rows the chosen candidate of the record ``rec`` got right, then fewer
    conditions."""
    c = rec["candidates"][rec["chosen"]]
    return sum(c["correct"]), -sum(c["conditions"])


Variant = tuple[dict[str, Any], list[Any], list[np.ndarray], "FoldCoder | None"]
"""An encoding the automatic cross-validation compares: its params, encoders and codes, and how
each fold is encoded on its own training rows (``None``: every fold reads the codes)."""


ENCODING_KEYS: tuple[str, ...] = ("bins", "numeric", "interval_ends", "bin_edges")
"""The parameters an encoding of a frame depends on (besides the frame, its feature columns and
its labels): :func:`_encode_variant` builds the same encoders, codes and per-fold encoding for
the same values of these."""

_VARIANTS: contextvars.ContextVar[dict[tuple[Any, ...], tuple[Any, ...]] | None] = contextvars.ContextVar(
    "findrs_variants", default=None)
"""The encodings built during the current :func:`fit` (:func:`_variants`), ``None`` outside one."""


@contextlib.contextmanager
def _variants() -> Iterator[None]:
    """Within it, :func:`_encode_variant` builds each encoding of a frame once and answers a
    repeated request (the same frame, features, labels and :data:`ENCODING_KEYS` values) from
    what it built: the automatic cross-validation of the encodings (docs/semantics.md §9.4) and
    the choice of rules with exceptions (§9.6) ask for the same ones. The encoding is a
    function of those inputs, and its per-fold encoding caches each fold
    (:func:`findrs.data.fold_codes.fold_coder`), so the answers are the encodings built anew, made
    once; the memory is dropped when the block ends."""
    token = _VARIANTS.set({})
    try:
        yield
    finally:
        _VARIANTS.reset(token)


def _variant_key(df: pl.DataFrame, features: Sequence[str], y: np.ndarray, p: dict[str, Any]) -> tuple[Any, ...]:
    return (id(df), tuple(features), id(y), *(repr(p[k]) for k in ENCODING_KEYS))


def _remember_variant(df: pl.DataFrame, features: Sequence[str], y: np.ndarray, p: dict[str, Any],
                      encoders: Sequence[Any], codes: list[np.ndarray], coder: FoldCoder | None) -> None:
    """Inside :func:`_variants`, records ``encoders``, ``codes`` and ``coder`` as
    :func:`_encode_variant`'s answer for ``p``'s encoding of ``df``'s ``features`` with labels
    ``y`` (the caller built them as it does); elsewhere nothing."""
    memory = _VARIANTS.get()
    if memory is not None:
        # The frame and labels are kept with them: their ids in the key stay theirs.
        memory[_variant_key(df, features, y, p)] = (df, y, tuple(encoders), tuple(codes), coder)


def _encode_variant(df: pl.DataFrame, features: Sequence[str], y: np.ndarray, p: dict[str, Any]) -> Variant:
    """The frame encoded with ``p``'s ``bins``, ``numeric``, ``interval_ends`` and
    ``bin_edges``; with supervised bin edges, each fold of the cross-validation is encoded on
    its own training rows (:mod:`findrs.data.fold_codes`, docs/semantics.md §9.4). Inside
    :func:`_variants`, an encoding built before is not built again."""
    memory = _VARIANTS.get()
    key = _variant_key(df, features, y, p)
    if memory is not None and key in memory:
        _, _, encoders, codes, coder = memory[key]
        return p, list(encoders), list(codes), coder
    encoders = fit_encoders(df, features, p["bins"], numeric=p["numeric"], interval_ends=p["interval_ends"],
                            bin_edges=p["bin_edges"], labels=y)
    codes = encode_frame(df, encoders)
    coder = _fold_coder_of(df, encoders, codes, y, p)
    _remember_variant(df, features, y, p, encoders, codes, coder)
    return p, encoders, codes, coder


def _fold_coder_of(df: pl.DataFrame, encoders: Sequence[Any], codes: list[np.ndarray], y: np.ndarray,
                   p: dict[str, Any]) -> FoldCoder | None:
    """How the cross-validation encodes each fold of ``encoders``' codes: on the fold's own
    training rows when ``p``'s bin edges are supervised and a column is binned (the cuts follow
    the labels, docs/semantics.md §9.4), else ``None`` (every fold reads ``codes``)."""
    if p["bin_edges"] == "supervised" and any(e.kind == "binned" for e in encoders):
        return fold_coder(df, encoders, codes, y, p["bins"], "supervised")
    return None


def _choose_encoding(
    df: pl.DataFrame,
    features: Sequence[str],
    y: np.ndarray,
    tgt: Any,
    params: dict[str, Any],
    encoders: list[Any],
    codes: list[np.ndarray],
    coder: FoldCoder | None,
    n_jobs: int | None,
    progress: Any,
    *,
    edges: bool,
    numeric: bool,
    sized: bool = False,
) -> tuple[RuleSetModel, list[np.ndarray], FoldCoder | None]:
    """``bin_edges`` (when ``edges``) and ``numeric`` (when ``numeric``) as more axes of the
    automatic cross-validation (docs/semantics.md §9.4). ``encoders``/``codes`` are the
    bins of ``params`` (equal-width unless ``bin_edges`` was given), ``coder`` their per-fold
    encoding (:func:`_fold_coder_of`). Every encoding is cross-validated on the same sample and
    folds (they depend only on the labels and ``random_state``) without a final fit
    (:meth:`RuleSetModel._cross_validate`): the bin edge placements of :data:`EDGE_CANDIDATES`,
    then ``numeric="interval"`` with the fit's ``interval_ends``. With successive halving, every
    encoding's first stage runs first and AV and OH under each race on it
    (:func:`findrs.select.halving.race_groups`): only the entries that go on are cross-validated
    further. The encoding whose chosen candidate has the most held-out rows right (a tie to
    fewer conditions, then to the earlier: bins before intervals) is then the only encoding
    fitted on all rows. Its record lists the candidates of every encoding that went on, each
    with its ``bin_edges`` (and ``numeric``). The supervised placement's cross-validation encodes each
    fold on its own training rows (:func:`_encode_variant`), given as ``bin_edges`` too.
    ``sized``: the size is chosen with the settings (docs/semantics.md §8.1): every encoding's
    candidates at every budget of their paths compete, and the pair chosen is fitted
    (:func:`findrs.learning.sized.fit_sized`). Returns the model, its codes and its per-fold
    encoding (``None`` if none)."""
    variants: list[Variant] = [(params, encoders, codes, coder)]
    if edges:
        variants += [_encode_variant(df, features, y, {**params, "bin_edges": how}) for how in EDGE_CANDIDATES[1:]]
    interval: Variant | None = None
    if numeric:
        try:
            interval = _encode_variant(df, features, y, {**params, "numeric": "interval"})
        except FindRSInputError:
            # A column intervals cannot take (an infinity): the candidate is skipped, bins stay.
            numeric = False
    pool = [*variants, *([interval] if numeric else [])]
    # Each candidate's encoding fields: a binned one's bin_edges first when bins and intervals
    # were compared (else last), as model files have always written them.
    heads = [{"bin_edges": v[0]["bin_edges"]} if numeric else {} for v in variants] + [{}] * numeric
    tags = [{**({"bin_edges": v[0]["bin_edges"]} if edges and not numeric else {}), **({"numeric": "bins"} if numeric else {})}
            for v in variants]
    tags += [{"bin_edges": params["bin_edges"], "numeric": "interval"}] if numeric else []
    n = len(pool)  # the cross-validations, numbered on the progress line
    names = [f"cross-validation {i} of {n}: {encoding_words(v[0])}" for i, v in enumerate(pool, 1)]
    firsts = [RuleSetModel._first_stage(c, y, e, p, n_jobs, functools.partial(stage, progress, f"{name}, first stage"), fc)
              for name, (p, e, c, fc) in zip(names, pool)] if n > 1 else [None]
    kept = list(range(n))
    if all(f is not None for f in firsts):
        alive = halving.race_groups(firsts)  # type: ignore[arg-type]
        firsts = [{**f, "alive": a} for f, a in zip(firsts, alive)]  # type: ignore[dict-item]
        kept = [i for i in kept if alive[i]]
    recs = [RuleSetModel._cross_validate(pool[i][2], y, pool[i][1], pool[i][0], n_jobs, stage(progress, names[i]),
                                         fold_codes=pool[i][3], paths=sized, first=firsts[i]) for i in kept]
    pool, tags, heads = [pool[i] for i in kept], [tags[i] for i in kept], [heads[i] for i in kept]
    chosen = (*(["bin_edges"] if edges else []), *(["numeric"] if numeric else []))
    if sized:
        model, v = fit_sized(pool, recs, _auto_mod.merge_encoding_records(recs, tags, 0, heads), y, tgt, n_jobs,
                             fit_stage(progress, params, "final fit"), chosen=chosen)
        return model, pool[v][2], pool[v][3]
    best = max(range(len(recs)), key=lambda i: (*_chosen_score(recs[i]), -i))
    p, enc, cod, coder = pool[best]
    model = RuleSetModel._fit_auto(cod, y, enc, tgt, p, n_jobs, fit_stage(progress, p, "final fit"), coder,
                                   record=recs[best])
    recs[best] = model._cv  # the fit's own record (its fitted candidate, should a support leave no rule)
    if not chosen:  # one encoding left (intervals could not take a column): nothing more chosen
        return model, cod, coder
    if p["numeric"] == "interval":
        chosen = ("numeric",)
    return model._with_edges_record(_auto_mod.merge_encoding_records(recs, tags, best, heads), chosen), cod, coder


def _choose_vote(
    codes: list[np.ndarray],
    y: np.ndarray,
    tgt: Any,
    model: RuleSetModel,
    n_jobs: int | None,
    progress: Any,
    fold_codes: FoldCoder | None = None,
) -> RuleSetModel:
    """``method=None`` with automatic settings (docs/semantics.md §9.5): the budgeted BP vote
    (:data:`~findrs.select.auto.VOTE_T` runs, K of :data:`~findrs.select.auto.VOTE_RULES`) with the settings and
    encoding of ``model``, the FIND-RS winner (``codes``: the frame in that encoding;
    ``fold_codes``: its per-fold encoding, if its cross-validation had one), is
    cross-validated on the same sample and folds; it replaces ``model`` only when its best K has
    more held-out rows right (a tie to fewer conditions, then to FIND-RS). The record lists
    both, each candidate with its ``method``."""
    rec = model._cv
    chosen = rec["candidates"][rec["chosen"]]
    p = model.params
    cands = _auto_mod.vote_candidates(chosen, p["auto"])
    encoders = model.encoders
    cv_params = {**p, "method": "bp", "T": _auto_mod.VOTE_T, "cv_T": _auto_mod.VOTE_T, "n_rules": None, "run": 0,
                 "best_of": 1}
    vrec = RuleSetModel._cross_validate(codes, y, encoders, cv_params, n_jobs,
                                        fit_stage(progress, cv_params, "cross-validation of the vote"), cands=cands,
                                        fold_codes=fold_codes)
    won = _chosen_score(vrec) > _chosen_score(rec)
    auto_list = [*p["auto"], "method"]
    if won:
        c = vrec["candidates"][vrec["chosen"]]
        support = c["min_support"]
        if "min_support" in p["auto"]:
            support = _auto_mod.scaled_support(support, len(y), vrec["sampled"])
        fp = {**p, "method": "bp", "T": _auto_mod.VOTE_T, "n_rules": c["n_rules"], "min_support": support,
              "simplify": c["simplify"], "auto": [], "run": 0, "best_of": 1}
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ContradictionWarning)  # the caller warns once
                bp = RuleSetModel._fit_many(codes, y, encoders, tgt, [fp], n_jobs,
                                            fit_stage(progress, fp, "final fit of the vote"))[0]
        except FindRSInputError:  # its support leaves no rule on all rows: FIND-RS stays
            won = False
    merged = _auto_mod.merge_vote_records(rec, vrec, won, _auto_mod.VOTE_T)
    if not won:
        return model._with_record({**p, "auto": auto_list}, merged)
    params = {**bp.params, "auto": _chosen_in_order([*p["auto"], "n_rules", "method"]), "cv": p["cv"],
              "cv_T": _auto_mod.VOTE_T, "cv_rows": p["cv_rows"]}
    return bp._with_record(params, merged)
