"""How a :class:`~findrs.RuleSetModel` is fitted from codes: one parameter set or several
from one set of runs, automatic settings cross-validated in the core, a multiclass model's class
sets, and runs spread over joblib chunks (the learning layer calls these; docs/semantics.md §5, §9).

Invariant: every fit goes through the core with one options dict (:func:`_core_options`) and
under :func:`_input_errors` / the memory checks, so a bad request is a
:class:`~findrs.FindRSInputError` or :class:`~findrs.FindRSMemoryError`, never a panic.
"""
from __future__ import annotations

import contextlib
import os
from typing import TYPE_CHECKING, Any, Callable, Iterator, Sequence

import numpy as np

from .. import _core
from ..data.encode import FeatureEncoder
from ..data.memory import check_fit_memory, memory_error
from ..data.target import Target
from ..errors import FindRSInputError
from ..select import auto, halving
from .rule_set_path import fitted_path
from .rule_set_parts import _WIDEN, FoldCoder, _described, _input_errors, _schema, _training

if TYPE_CHECKING:  # annotations only: the model module imports this one
    from .model import RuleSetModel


class _Fitting:
    """The fitting half of :class:`~findrs.RuleSetModel` (a mixin of it)."""

    @classmethod
    def _fit(
        cls,
        codes: list[np.ndarray],
        labels: np.ndarray,
        encoders: Sequence[FeatureEncoder],
        target: Target,
        params: dict[str, Any],
        n_jobs: int | None,
        progress: Callable[[int, int], None] | None,
        fold_codes: FoldCoder | None = None,
    ) -> "RuleSetModel":
        """Fits the core on training codes (what :func:`findrs.fit` calls once it has checked the
        parameters, encoded the frame and binarized the target). ``params["auto"]`` not empty:
        the settings it names are chosen by cross-validation first (docs/semantics.md §9.4),
        each fold encoded by ``fold_codes`` when given (:data:`FoldCoder`)."""
        if params["auto"]:
            return cls._fit_auto(codes, labels, encoders, target, params, n_jobs, progress, fold_codes)
        return cls._fit_many(codes, labels, encoders, target, [params], n_jobs, progress)[0]

    @classmethod
    def _fit_many(
        cls,
        codes: list[np.ndarray],
        labels: np.ndarray,
        encoders: Sequence[FeatureEncoder],
        target: Target,
        params_list: Sequence[dict[str, Any]],
        n_jobs: int | None,
        progress: Callable[[int, int], None] | None,
        chunks: int | None = None,
    ) -> list["RuleSetModel"]:
        """The models of ``params_list`` (no automatic setting; one parameter set, or BO's and
        BP's that differ only in method and ``n_rules``) from one set of runs
        (docs/semantics.md §5.1). ``chunks``: the runs are computed in that many chunks
        dispatched through joblib (the active joblib backend, e.g. Dask's, spreads them;
        docs/semantics.md §5.2), then the models are built here from them."""
        p = params_list[-1]
        negate = auto.core_setting(p, p["accuracy_ratio"])[3]
        y = ~labels if negate else labels
        method = "+".join(q["method"] for q in params_list)
        schema = _schema(encoders, p["encoding"])
        with _input_errors(), _memory_errors(encoders, p["encoding"], labels):
            runs = None
            if chunks is not None:
                runs = _runs_in_chunks(codes, schema, y, p, chunks, _core_options("fit_runs", p, n_jobs))
            options = _core_options("fit", p, n_jobs, method=method)
            fitted = _core.fit(codes, *schema, y, options, progress, runs)
        models = []
        for q, (core, contradictions, budget, best) in zip(params_list, fitted):
            training = _training(y, contradictions)
            training["path"] = fitted_path(core, codes, y)
            if budget is not None:
                training["budget"] = {"correct_before": int(budget[0]), "correct": int(budget[1])}
            q = _with_best_of(q, training, best)
            models.append(cls(core, encoders, _described(target, negate), q, training))
        return models

    @classmethod
    def _fit_auto(
        cls,
        codes: list[np.ndarray],
        labels: np.ndarray,
        encoders: Sequence[FeatureEncoder],
        target: Target,
        params: dict[str, Any],
        n_jobs: int | None,
        progress: Callable[[int, int], None] | None,
        fold_codes: FoldCoder | None = None,
        record: dict[str, Any] | None = None,
        order: list[int] | None = None,
    ) -> "RuleSetModel":
        """Cross-validates the candidates of ``params["auto"]`` in the core, fits the best on all
        rows and records what was tried; ``params["cv"]`` ``None`` means
        :func:`findrs.select.auto.default_folds` of the rows the cross-validation uses, at most the rows
        of the smaller class. With more than ``params["cv_rows"]``
        rows, the cross-validation uses a stratified sample of that many, and an automatic
        ``min_support`` is scaled to all rows (docs/semantics.md §9.4). ``fold_codes``: each
        fold's own encoding (:data:`FoldCoder`). ``record``: the record :meth:`_cross_validate`
        made with these codes, parameters and ``fold_codes``: its cross-validation is not run
        again, the core fits from its scores (the same model and record, at the cost of the
        final fit alone); ``order`` (with ``record``): the candidates to fit first, before the
        record's ranking (a choice of the size, docs/semantics.md §8.1)."""
        out = cls._auto_core(codes, labels, encoders, params, n_jobs, progress, final_fit=True, fold_codes=fold_codes,
                             record=record, order=order)
        core, contradictions, cands, best, rows, folds, sampled, support, best_run = out
        chosen = cands[best]
        fitted = {**params, **chosen, "min_support": int(support), "cv": folds}
        if params["method"] != "bp":
            fitted["n_rules"] = None
        negate = chosen["direction"] == "negative"
        y = ~labels if negate else labels
        rec = auto.record(cands, rows, best, folds, int(sampled))
        training = _training(y, contradictions)
        training["path"] = fitted_path(core, codes, y)
        fitted = _with_best_of(fitted, training, best_run)
        return cls(core, encoders, _described(target, negate), fitted, training, rec)

    @classmethod
    def _cross_validate(
        cls,
        codes: list[np.ndarray],
        labels: np.ndarray,
        encoders: Sequence[FeatureEncoder],
        params: dict[str, Any],
        n_jobs: int | None,
        progress: Callable[[int, int], None] | None,
        cands: list[dict[str, Any]] | None = None,
        fold_codes: FoldCoder | None = None,
        paths: bool = False,
        first: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """The cross-validation of :meth:`_fit_auto` alone, without its final fit on all rows:
        its record (the chosen candidate the best-ranked one). The same codes and parameters
        (and ``fold_codes``) give the same record as the fit's (docs/semantics.md §9.4), so the
        other CV axes (bin edges, numeric kind) compare encodings and fit only the winner.
        ``cands``: the candidates to try instead of those of ``params`` (the vote axis, §9.5).
        ``paths``: the record keeps the FIND-RS candidates' path counts (a choice of the size, §8.1).
        ``first``: its first halving stage, already run (:meth:`_first_stage`)."""
        out = cls._auto_core(codes, labels, encoders, params, n_jobs, progress, final_fit=False, cands=cands,
                             fold_codes=fold_codes, paths=paths, first=first)
        _, _, cands, best, rows, folds, sampled, _, _ = out
        return auto.record(cands, rows, best, folds, int(sampled), paths=paths)

    @classmethod
    def _auto_core(
        cls,
        codes: list[np.ndarray],
        labels: np.ndarray,
        encoders: Sequence[FeatureEncoder],
        params: dict[str, Any],
        n_jobs: int | None,
        progress: Callable[[int, int], None] | None,
        *,
        final_fit: bool,
        cands: list[dict[str, Any]] | None = None,
        fold_codes: FoldCoder | None = None,
        record: dict[str, Any] | None = None,
        order: list[int] | None = None,
        paths: bool = False,
        first: dict[str, Any] | None = None,
    ) -> tuple[Any, ...]:
        """The core's ``fit_auto`` on these codes: (core model or ``None`` without a final fit,
        contradictions, candidates, index of the best, per-candidate fold counts, folds, rows
        sampled, final support). ``cands``: the candidates to try (default: those of
        ``params``, :func:`findrs.select.auto.candidates`). ``fold_codes``: fold ``f`` of the
        cross-validation is read from ``fold_codes(rows)``, the encoding fitted on ``rows``
        (a mask of the training rows: all but ``f``'s held-out rows; docs/semantics.md §9.4).
        ``record`` (with ``final_fit``): a record of this cross-validation (:func:`findrs.select.auto.record`);
        its candidates and scores are passed to the core, which fits from them without
        cross-validating. The final fit keeps the best of ``params["best_of"]`` runs
        (docs/semantics.md §5.3); the last item is then the run kept and every run's training
        rows right (else ``None``). ``first``: the first stage of its successive halving, already
        run (:meth:`_first_stage`)."""
        sample, folds, s_pos = _cv_shape(labels, params)
        scores = None
        if record is not None:
            cands, scores = auto.record_scores(record)
        if cands is None:
            cands = auto.candidates(params, n_positives=s_pos, n_negatives=sample - s_pos)
            cands, progress = cls._halve(codes, labels, encoders, params, n_jobs, progress, cands, sample, folds,
                                         min(s_pos, sample - s_pos), fold_codes, first)
        fold_columns = None
        if fold_codes is not None and record is None:
            fold_of = _core.cv_folds(labels, folds, params["random_state"], params["cv_rows"])
            fold_columns = []
            for f in range(folds):
                # Every training row but f's held-out ones: with a sample, the rows outside it
                # too (no fold holds them out), as the final fit's edges see every row.
                enc_f, codes_f = fold_codes(fold_of != f)
                fold_columns.append((codes_f, _schema(enc_f, "av")[0]))
        with _input_errors(), _memory_errors(encoders, "av", labels):
            core, contradictions, best, rows, sampled, support, best_run = _core.fit_auto(
                codes,
                *_schema(encoders, "av"),
                labels,
                [auto.core_setting(c, params["accuracy_ratio"]) for c in cands],
                _core_options("fit_auto", params, n_jobs, folds=folds, final_fit=final_fit, paths=paths),
                progress,
                fold_columns,
                scores,
                order,
            )
        return core, contradictions, cands, best, rows, folds, sampled, support, best_run

    @classmethod
    def _halve(
        cls,
        codes: list[np.ndarray],
        labels: np.ndarray,
        encoders: Sequence[FeatureEncoder],
        params: dict[str, Any],
        n_jobs: int | None,
        progress: Callable[[int, int], None] | None,
        cands: list[dict[str, Any]],
        sample: int,
        folds: int,
        n_smaller: int,
        fold_codes: FoldCoder | None,
        first: dict[str, Any] | None = None,
    ) -> tuple[list[dict[str, Any]], Callable[[int, int], None] | None]:
        """Successive halving (:mod:`findrs.select.halving`, docs/semantics.md §9.4): the
        candidates of ``cands`` (the grid on the whole ``sample``) whose run groups survive the
        stages before the last, each stage a cross-validation on its own smaller sample with
        the same ``folds``; and the callback for the last stage's reports, which goes on from the
        earlier stages' runs (one total for all stages). No stage when the sample is small: the
        grid itself. After the first stage, AV and OH race (:func:`findrs.select.halving.race_groups`):
        only the groups of an encoding close enough to the best go on. ``first``: the first
        stage, already run and raced (:meth:`_first_stage`; its runs were reported on a line
        of their own)."""
        order, plan, planned = _plan(params, cands, sample, folds, n_smaller)
        if not plan:
            return cands, progress
        alive, done, race = set(order), 0, first is None
        if first is not None:  # run and raced already; its runs were reported on a line of their own
            alive, planned, plan = first["alive"], planned - first["runs"], plan[1:]
        for r in plan:
            s = cls._stage(codes, labels, encoders, params, n_jobs, _offset(progress, done, planned), fold_codes,
                           cands, alive, r, sample, folds)
            done += s["runs"]
            alive = halving.race_groups([s])[0] if race else s["alive"]  # the race of AV and OH
            race = False
        return [c for c in cands if halving.group(c) in alive], _offset(progress, done, None)

    @classmethod
    def _first_stage(
        cls,
        codes: list[np.ndarray],
        labels: np.ndarray,
        encoders: Sequence[FeatureEncoder],
        params: dict[str, Any],
        n_jobs: int | None,
        progress: Callable[[], Callable[[int, int], None] | None],
        fold_codes: FoldCoder | None = None,
    ) -> dict[str, Any] | None:
        """The first stage of the successive halving :meth:`_cross_validate` would run on these
        codes and parameters (docs/semantics.md §9.4), run on its own so that encodings can be
        raced on it (:func:`findrs.select.halving.race`): :meth:`_stage`'s summary of it;
        ``None`` when the sample is too small for a stage. Raced
        (:func:`findrs.select.halving.race_groups`) and given back to :meth:`_cross_validate`
        as ``first``, the cross-validation goes on from it. ``progress``: makes the stage's
        report callback when a stage runs (a progress line names the stage only then)."""
        sample, folds, s_pos = _cv_shape(labels, params)
        cands = auto.candidates(params, n_positives=s_pos, n_negatives=sample - s_pos)
        order, plan, _ = _plan(params, cands, sample, folds, min(s_pos, sample - s_pos))
        if not plan:
            return None
        return cls._stage(codes, labels, encoders, params, n_jobs, progress(), fold_codes, cands, set(order), plan[0],
                          sample, folds)

    @classmethod
    def _stage(
        cls,
        codes: list[np.ndarray],
        labels: np.ndarray,
        encoders: Sequence[FeatureEncoder],
        params: dict[str, Any],
        n_jobs: int | None,
        progress: Callable[[int, int], None] | None,
        fold_codes: FoldCoder | None,
        cands: list[dict[str, Any]],
        alive: set[tuple[Any, ...]],
        rows: int,
        sample: int,
        folds: int,
    ) -> dict[str, Any]:
        """One halving stage: the candidates of ``cands`` (the grid on the whole ``sample``)
        of the run groups ``alive``, cross-validated on a ``rows``-row sample with ``folds``
        folds. Returns the groups that go on (``alive``, :func:`findrs.select.halving.survivors`),
        the runs made, the stage's held-out rows (``rows``) and its best candidate's rows right
        per AV/OH ``encoding`` (``best``)."""
        stage = halving.stage_candidates(cands, alive, rows, sample)
        out = cls._auto_core(codes, labels, encoders, {**params, "cv_rows": rows, "cv": folds}, n_jobs, progress,
                             final_fit=False, cands=stage, fold_codes=fold_codes)
        order = list(dict.fromkeys(halving.group(c) for c in cands))
        return {"alive": halving.survivors(stage, out[4], order), "runs": len(alive) * _runs(params, folds),
                "rows": int(out[6]), "best": halving.best_by_encoding(stage, out[4])}

    @classmethod
    def _fit_multiclass(
        cls,
        codes: list[np.ndarray],
        classes: np.ndarray,
        encoders: Sequence[FeatureEncoder],
        target: Target,
        params: dict[str, Any],
        combine: str,
        n_jobs: int | None,
        progress: Callable[[int, int], None] | None,
        combination_cv: dict[str, Any] | None = None,
        numeric_cv: dict[str, Any] | None = None,
        settings_cv: dict[str, Any] | None = None,
        path: bool = True,
    ) -> "RuleSetModel":
        """Fits one rule set per class (``classes``: each row's class index into
        ``target.classes``), combined by ``combine`` (docs/semantics.md §10);
        ``combination_cv`` records how ``multiclass="auto"`` chose it, ``numeric_cv`` how
        ``numeric=None`` chose bins or intervals, ``settings_cv`` how automatic settings chose
        them all (:mod:`findrs.select.multiclass`). ``path``: a FIND-RS model records its
        accuracy-size path on these rows (docs/semantics.md §10.1; the fold fits of a
        cross-validation that does not score paths skip it)."""
        p = params
        negate = auto.core_setting(p, p["accuracy_ratio"])[3]
        assert target.classes is not None and not negate and not p["auto"]
        with _input_errors(), _multiclass_memory_errors(encoders, p["encoding"], classes, combine, n_jobs):
            core, contradictions, set_contradictions = _core.fit_multiclass(
                codes,
                *_schema(encoders, p["encoding"]),
                classes,
                len(target.classes),
                _core_options("fit_multiclass", p, n_jobs, combine=combine),
                progress,
            )
        counts = np.bincount(classes, minlength=len(target.classes))
        training = {
            "rows": int(len(classes)),
            "class_counts": [int(c) for c in counts],
            "contradictions": int(contradictions),
            "set_contradictions": [int(c) for c in set_contradictions],
        }
        if combination_cv is not None:
            training["combination_cv"] = combination_cv
        if numeric_cv is not None:
            training["numeric_cv"] = numeric_cv
        if settings_cv is not None:
            training["settings_cv"] = settings_cv
        if path and core.method == "find-rs":
            training["path"] = fitted_path(core, codes, classes)
        return cls(core, encoders, target, params, training)


def _runs(params: dict[str, Any], folds: int) -> int:
    """The runs one run group makes in a cross-validation of ``folds`` folds."""
    return folds * (params["cv_T"] if params["method"] != "find-rs" else 1)


def _plan(params: dict[str, Any], cands: list[dict[str, Any]], sample: int, folds: int,
          n_smaller: int) -> tuple[list[tuple[Any, ...]], list[int], int]:
    """The successive halving of ``cands`` (:mod:`findrs.select.halving`): the run groups in
    grid order, the stage samples before the last, and the runs of all stages, the last
    included (without the race)."""
    order = list(dict.fromkeys(halving.group(c) for c in cands))
    sizes = halving.strata_sizes(order)
    plan = halving.stages(sample, n_smaller=n_smaller, folds=folds, group_sizes=sizes)
    return order, plan, sum(halving.stage_groups(sizes, len(plan))) * _runs(params, folds)


def _cv_shape(labels: np.ndarray, params: dict[str, Any]) -> tuple[int, int, int]:
    """The automatic cross-validation's sample size, folds and positives in the sample
    (docs/semantics.md §9.4).

    Raises:
        FindRSInputError: the smaller class has fewer than 2 rows.
    """
    n_pos = int(labels.sum())
    smaller = min(n_pos, len(labels) - n_pos)
    if smaller < 2:
        raise FindRSInputError(
            f"automatic settings ({', '.join(params['auto'])}) need cross-validation, which needs at least "
            f"2 rows of each class; the smaller class has {smaller}: fix those settings instead"
        )
    n = len(labels)
    sample = params["cv_rows"] if params["cv_rows"] is not None and params["cv_rows"] < n else n
    folds = params["cv"] if params["cv"] is not None else auto.default_folds(sample)
    # The candidates as the sample sees them (its positives decide the supports tried).
    return sample, min(folds, smaller), max(1, (n_pos * sample + n // 2) // n)


def _offset(progress: Callable[[int, int], None] | None, done: int,
            total: int | None) -> Callable[[int, int], None] | None:
    """``progress`` for one core call of several in one stage: its ``(d, t)`` reported as
    ``(done + d, total)`` (``total`` ``None``: ``done + t``, the last call)."""
    if progress is None:
        return None
    return lambda d, t: progress(done + d, done + t if total is None else total)


def _runs_in_chunks(
    codes: list[np.ndarray],
    schema: tuple[list[int], list[str], list[bool]],
    y: np.ndarray,
    p: dict[str, Any],
    chunks: int,
    options: dict[str, Any],
) -> tuple[np.ndarray, np.ndarray]:
    """The runs of a fit computed in ``chunks`` contiguous chunks of run indexes, dispatched by
    ``joblib.Parallel(n_jobs=-1)`` under the active joblib backend (each chunk on ``n_jobs``
    threads where it runs); concatenated in run order. A run depends on the data, the
    parameters, ``random_state`` and its index only (docs/semantics.md §5.2), so the model is
    that of a local fit whatever the chunks and wherever they ran. ``schema`` is
    :func:`_schema`'s and ``options`` :func:`_core_options`' for ``fit_runs`` of the same
    parameters, exactly as the local fit passes them (each run's interval ends are widened
    where it runs)."""
    try:
        from joblib import Parallel, delayed
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise FindRSInputError(
            "chunks dispatches the runs through joblib, which is not installed: pip install 'findrs[distributed]'"
        ) from e
    total = p["T"] if p["method"] != "find-rs" else 1
    bounds = sorted({round(i * total / chunks) for i in range(chunks + 1)})
    task = delayed(_fit_runs_task)
    with _input_errors():
        parts = Parallel(n_jobs=-1)(
            task(codes, *schema, y, options, a, b) for a, b in zip(bounds, bounds[1:])
        )
    words = np.concatenate([w for w, _ in parts]).astype(np.uint64, copy=False)
    lengths = np.concatenate([n for _, n in parts]).astype(np.uint32, copy=False)
    return words, lengths


def _fit_runs_task(codes: list[np.ndarray], *args: Any, **kwargs: Any) -> tuple[np.ndarray, np.ndarray]:
    """One chunk of runs where joblib runs it: the arrays as the core reads them (Dask's
    serialization delivers them unaligned; they are copied then)."""
    codes = [np.require(c, dtype=np.uint32, requirements=["C", "A"]) for c in codes]
    sizes, kinds, null_seen, y, *rest = args
    y = np.require(y, dtype=np.bool_, requirements=["C", "A"])
    return _core.fit_runs(codes, sizes, kinds, null_seen, y, *rest, **kwargs)


def _with_best_of(params: dict[str, Any], training: dict[str, Any], best: tuple[int, list[int]] | None) -> dict[str, Any]:
    """A FIND-RS fit with ``best_of`` above 1 (docs/semantics.md §5.3): ``params`` with the run
    it kept as ``run``, and ``training["best_of"]`` (added here) the training rows every run got
    right. Other fits: ``params`` unchanged."""
    if best is None:
        return params
    run, correct = best
    training["best_of"] = [int(c) for c in correct]
    return {**params, "run": int(run)}


def _core_options(function: str, p: dict[str, Any], n_jobs: int | None, **given: Any) -> dict[str, Any]:
    """The one settings dict the core's ``function`` (``"fit"``, ``"fit_runs"``,
    ``"fit_multiclass"`` or ``"fit_auto"``) takes for the parameters ``p`` on ``n_jobs``
    threads (``findrs/_core.pyi``'s ``FitOptions``, ``FitRunsOptions``, ``MulticlassOptions``,
    ``AutoOptions``; the core refuses a key it does not read): the method, runs, seed, order,
    widening and threads of every fit; but for ``fit_auto`` (which takes its settings per
    candidate) the fixed setting's run rules (:func:`findrs.select.auto.core_setting`: tolerance,
    share tolerance, support, simplification); for ``fit`` and ``fit_multiclass`` which rules
    vote (BP's K or accuracy ratio, the rule budget); for ``fit`` FIND-RS's run and best of
    runs; for ``fit_auto`` the cross-validation's runs, sample and support scaling and the
    final fit's best of runs. ``given``: the items the caller decides (``fit``'s methods
    joined by ``+``, ``fit_multiclass``'s ``combine``, ``fit_auto``'s ``folds``,
    ``final_fit`` and ``paths``)."""
    o: dict[str, Any] = {
        "method": p["method"],
        "n_runs": p["T"],
        "seed": p["random_state"],
        "shuffle": p["shuffle"],
        "widen": _WIDEN[p["interval_ends"]],
        "n_jobs": n_jobs,
    }
    if function == "fit_auto":
        o.update(cv_n_runs=p["cv_T"], max_rows=p["cv_rows"], scale_support="min_support" in p["auto"],
                 best_of=p["best_of"])
    else:
        tau, epsilon, _, min_support, fixed, ratio = auto.core_setting(p, p["accuracy_ratio"])[1:7]
        o.update(tolerance=tau, epsilon=epsilon, min_support=min_support, simplify=p["simplify"])
        if function != "fit_runs":
            bp = p["method"] == "bp"
            o.update(n_rules=fixed if bp else None, accuracy_ratio=ratio if bp else None, max_rules=p["max_rules"])
        if function == "fit":
            o.update(run=p["run"], best_of=p["best_of"])
    return {**o, **given}


@contextlib.contextmanager
def _memory_errors(encoders: Sequence[FeatureEncoder], encoding: str, labels: np.ndarray) -> Iterator[None]:
    """Refuses a fit that needs more memory than is available, before the core allocates it,
    and turns an allocation the core could not make into the same error (findrs.data.memory)."""
    n_pos = int(labels.sum())
    sizes, kinds, null_seen = _schema(encoders, encoding)
    needed = _core.fit_bytes(sizes, kinds, n_pos, len(labels) - n_pos, null_seen)
    with _refused_beyond(needed, encoders, len(labels)):
        yield


@contextlib.contextmanager
def _multiclass_memory_errors(
    encoders: Sequence[FeatureEncoder], encoding: str, classes: np.ndarray, combine: str, n_jobs: int | None
) -> Iterator[None]:
    """:func:`_memory_errors` for a multiclass fit: its class sets are fitted in parallel, so it
    may need the biggest set's bytes once per thread (at most once per set)."""
    sizes, kinds, null_seen = _schema(encoders, encoding)
    counts = np.bincount(classes)
    n_sets = len(counts) - (combine != "one-vs-rest")
    one = max(int(_core.fit_bytes(sizes, kinds, int(c), len(classes) - int(c), null_seen)) for c in counts)
    needed = one * max(1, min(n_sets, n_jobs or os.cpu_count() or 1))
    with _refused_beyond(needed, encoders, len(classes)):
        yield


@contextlib.contextmanager
def _refused_beyond(needed: int, encoders: Sequence[FeatureEncoder], rows: int) -> Iterator[None]:
    """Refuses a fit needing ``needed`` bytes when they are not available, and turns an
    allocation the core could not make into the same ``FindRSMemoryError``."""
    sizes = [e.domain_size for e in encoders]
    names = [e.name for e in encoders]
    check_fit_memory(needed, names, sizes, rows)
    try:
        yield
    except MemoryError as e:
        if isinstance(e, FindRSInputError):
            raise
        raise memory_error(needed, None, names, sizes, rows, failed=str(e)) from e


