"""Training-data-only check of Adult settings: adult.data split 50/50 (stratified, seeded) into an
inner training half and a validation half; each variant is fitted on the inner half (its own
automatic CV inside) and scored on the validation half. adult.test is not read.

Usage: ``SEEDS="0 1" FINDRS_DATA_DIR=... python -m experiments.adult_holdout cart findrs cv3``
(method names of experiments.noisy, or of :data:`VARIANTS` below). ``NOISE=0.1`` flips that share
of the inner half's labels first (experiments.noisy.flip_labels, drawn from the seed); the
validation labels stay clean. ``TRAIN_SHARE=0.75`` makes the inner training part that share of
adult.data instead of half (each class cut at ``int(rows * share)``, stratified and seeded as the
halves; 0.75: about 24,400 training rows, near the final fit's 32,561, so a setting's behaviour at
the full data's scale is measured on training data; such lines record ``train_share``). A research script (branches
adult2, accuracy, acc4).

Variants (each the defaults but for one thing):

* ``cv3`` / ``cv5`` / ``cv10``: 3 / 5 / 10 folds (the defaults use 3 when the cross-validation uses over 20,000
  rows, 5 otherwise: with the 8,000-row sample, 5 on the halves and on all of Adult).
* ``cv8k``: a cross-validation sample of 8,000 rows (today's default; it was 4,000 when the
  variant was made); ``cv8k3``: the same with 3 folds.
* ``cv10k`` / ``cv12k`` / ``cv16k`` / ``cvall``: a cross-validation sample of 10,000 / 12,000 /
  16,000 rows / every row of the inner part, instead of 8,000 (5 folds: the default folds
  follow the rows the cross-validation uses, 3 only above 20,000); ``cv12k3``: 12,000 rows, 3
  folds (about the default's cost: three fits on 8,000 rows against five on 6,400).
* ``tolfine``: share tolerances 0.05 apart (0, 0.05, ..., 0.4) instead of 0.1 apart.
* ``sup-sqrt`` / ``sup-raw``: the CV's winner refitted on all rows with its support scaled by
  ``sqrt(rows / sampled)`` / not scaled, instead of ``rows / sampled``.
* ``vote``: the budgeted BP vote of docs/semantics.md §9.5 tried above 10,000 training rows too
  (``VOTE_MAX_ROWS`` lifted; its final fit makes 20 runs on all rows).
* ``pairs1`` / ``pairs5``: rules with exceptions scored for the first candidate pair only (the
  best candidate of each direction, ``findrs.learning.exceptions_cv.EXCEPTION_PAIRS = 1``, the default) /
  for the top 5 x 5 pairs.
* ``autobest10`` / ``autobest30``: the final fit keeps the best of 10 / 30 runs instead of
  20 (``AUTO_BEST_OF``; 20 is the default since issue 12's branch adult33). The variants
  ``pairs1x5``, ``excruns-best``, ``excruns-pair`` of that branch's results measured knobs that
  were then removed (commit 152a7de has them).
* ``bins20`` / ``bins30``: 20 / 30 bins instead of 10 (at most 19 / 29 supervised cuts; integer
  columns of at most 20 / 30 values stay categorical).

Rules for both classes (issue 12, branch both12; :class:`_Both`). ``findrs.fit`` with
``direction="positive"`` and with ``direction="negative"`` (each its own automatic settings; the
first equals the defaults on Adult, whose cross-validation picks the positive class), then:

* ``ovr-own``: one-vs-rest as docs/semantics.md §10 combines FIND-RS sets (each set's votes are 0
  or 1, a tie to the more frequent class): ``>50K`` where a rule of it holds and none of
  ``<=50K`` does;
* ``both-nb``: where rules of both classes hold, the class the two most precise holding rules
  favour as independent evidence: ``>50K`` iff ``logit(p+) - logit(p-) > logit(prior)``, ``p+``
  (``p-``) the largest training precision, Laplace-smoothed ``(pos + 1) / (covers + 2)``, of a
  holding ``>50K`` (``<=50K``) rule, ``prior`` the training share of ``>50K``; elsewhere as
  ``ovr-own``'s cells with one class's rules holding, and ``<=50K`` where none holds;
* ``both-nb-sum``: the same evidence summed over the holding rules of each class (a weighted
  one-vs-rest: weights ``logit(p)`` for ``>50K`` rules and ``logit(p) + logit(prior)`` for
  ``<=50K`` rules, negative weights 0), ``>50K`` iff its sum is larger.

Exceptions on one encoder (issue 12, branch except18; :func:`_exceptions`). ``both-nb`` with the
``<=50K`` set fitted on the ``>50K`` set's encoding (its encoding, bins, numeric kind, bin edges
and interval ends given, so one encoder serves both sets), the model a new binary kind could hold:

* ``exc-cv``: the ``<=50K`` set's tolerance, support and simplification chosen by its own
  cross-validation (``direction="negative"``, those three automatic);
* ``exc-pos``: the ``<=50K`` set with every setting of the ``>50K`` set (its tolerance, its
  fitted support, its simplification), no cross-validation;
* ``exceptions``: ``findrs.fit(..., exceptions=True)``, the model kind built from ``exc-cv``
  (docs/semantics.md §9.6).
* ``exc-auto``: the defaults, or ``exceptions=True`` when the defaults' own cross-validation
  scores it strictly higher (``experiments.noisy.exc_auto``, issue 12, branch autoexc19).

Each predicts as ``both-nb``, computed in its readable form (:class:`_Exceptions`: positive iff
some ``>50K`` rule ``r`` holds and none of ``r``'s exceptions, the ``<=50K`` rules ``s`` with
``logit(p_s) >= logit(p_r) - logit(prior)``, holds; checked row for row against ``both-nb``'s
comparison). The rules it counts are the ``>50K`` rules and the ``<=50K`` rules that are an
exception of one of them: the others never change a prediction. Its seconds are those of the
``>50K`` fit and of its own ``<=50K`` fit. The script checks that the two sets' encoders are
equal.

``ovr``: one-vs-rest as ``ovr-own``, both class sets with the settings and support the defaults
chose for ``>50K`` (as docs/semantics.md §10's sets share their settings; the core's multiclass
fit itself refuses two classes).

Several run orders (issue 12, branch adult17; :class:`_Runs`). The chosen settings
(encoding, share, scaled support, bin edges, numeric kind) of the defaults with ``best_of=1``
(their run 0, as before docs/semantics.md §5.3 made the best of 10 runs the default) refitted with ``method="bo"``,
``T=10``, ``auto=False``, ``random_state`` the seed; run ``t`` of it is the FIND-RS run of order
``t`` (run 0 is the defaults' model, checked), and the first ``T`` runs are exactly the runs of
a ``T``-run fit (docs/semantics.md §5.2), so one 10-run fit gives:

* ``bo3`` / ``bo5`` / ``bo10``: FIND-RS-BO of the first 3 / 5 / 10 runs (a row is positive when
  more than half of them cover it; voting rules: the distinct rules of those runs);
* ``best3`` / ``best5`` / ``best10``: the one run of the first 3 / 5 / 10 with the most training
  rows right (a tie to the earlier run): one rule set, as the defaults.

Both gains at once (issue 12, branch best19; :class:`_ExcRuns`): ``exceptions=True`` (with
``best_of=1``) whose rules are replaced by one run of the 10-run fit above, each rule's
exceptions recomputed by docs/semantics.md §9.6's integer rule from that run's training counts
(the exception rules stay those §9.6 fits):

* ``exc-best5`` / ``exc-best10``: the run ``best5`` / ``best10`` keeps (by the rule set's
  training accuracy);
* ``exc-bestx5`` / ``exc-bestx10``: the run of the first 5 / 10 whose exceptions model has the
  most training rows right.

Run 0 with its exceptions is checked to predict as the ``exceptions`` model on the training and
the validation half.

A second selection stage on the rows outside the cross-validation's sample (issue 12, branch
rescore35; :func:`_rescored`, in place of ``findrs.learning.learn._choose_exceptions`` for the fit's
duration). Above 16,000 training rows the cross-validation uses a 12,000-row sample; the other
rows (12,420 of the 24,420 at ``TRAIN_SHARE=0.75``) choose nothing. The contenders are the
record's FIND-RS candidates and the rules-with-exceptions pair(s) the choice of docs/semantics.md
§9.6 scores on the same folds, ranked as the cross-validation ranks (held-out rows right, fewer
conditions, record order, pairs after the candidates); the first ``k`` are each fitted once on the
sample's rows (the encoding placed on those rows alone, one run, the support at the sample's
scale, as the fold fits) and scored on the rows outside it; the winner has the most rows right
over the folds' held-out rows and those rows together (then fewer conditions, then the order),
fitted on every row as the defaults fit theirs. Its line's setting has ``stage2``: each
contender, its rows right outside the sample and over the folds, and the winner.

* ``rescore3`` / ``rescore5``: ``k`` 3 / 5, the one pair the defaults score (the best positive
  candidate with the best negative one of its encoding);
* ``rescore3-pairs2``: ``k`` 3, the 2 x 2 pairs of the two best positive and the two best
  negative candidates (``exception_pairs(rec, 2)``), each pair a contender.
"""
import json
import math
import os
import sys
import time
import warnings
from pathlib import Path
from typing import Any, Callable

import polars as pl

from experiments.noisy import BASELINES, exc_auto, flip_labels, load_adult, run_baseline, run_findrs

SETTINGS = ("encoding", "tolerance", "direction", "simplify", "bins", "numeric", "bin_edges", "interval_ends")


def _refit(scale: Callable[[int, int, int], int]) -> Callable[[pl.DataFrame, int], Any]:
    """The defaults' chosen settings refitted on all rows with the support ``scale(s, rows, sampled)``."""
    def fit(train: pl.DataFrame, seed: int) -> Any:
        import findrs

        m = findrs.fit(train, "class", True, max_rules=None, random_state=seed, method="find-rs")
        rec = m._cv
        s = rec["candidates"][rec["chosen"]]["min_support"]
        kw = {k: m.params[k] for k in SETTINGS}
        return findrs.fit(train, "class", True, **findrs.settings.fit_keywords(dict(max_rules=None, random_state=seed, method="find-rs", auto=False, **kw, settings=dict(min_support=scale(s, train.height, rec["sampled"])))))
    return fit


def _with_auto_constant(name: str, value: Any, module: str = "findrs.select.auto") -> Callable[[pl.DataFrame, int], Any]:
    """The default fit with one constant of ``module`` (by default :mod:`findrs.select.auto`, e.g.
    ``TOLERANCES``, ``VOTE_MAX_ROWS``) set to ``value`` for the fit's duration."""
    def fit(train: pl.DataFrame, seed: int) -> Any:
        import importlib

        import findrs

        auto = importlib.import_module(module)
        old = getattr(auto, name)
        setattr(auto, name, value)
        try:
            return findrs.fit(train, "class", True, max_rules=None, random_state=seed)
        finally:
            setattr(auto, name, old)
    return fit


def _kw(**kw: Any) -> Callable[[pl.DataFrame, int], Any]:
    def fit(train: pl.DataFrame, seed: int) -> Any:
        import findrs

        return findrs.fit(train, "class", True, **findrs.settings.fit_keywords(dict(max_rules=None, random_state=seed, **kw)))
    return fit


class _Both:
    """A positive- and a negative-direction model of the same training rows, combined (the
    ``ovr-own`` / ``both-nb`` / ``both-nb-sum`` variants above); enough of a model for
    :func:`run_variant`."""

    def __init__(self, pos: Any, neg: Any, prior: float, how: str, secs: float, cpu: float) -> None:
        self.pos, self.neg, self.prior, self.how, self._secs, self._cpu = pos, neg, prior, how, secs, cpu
        self.rules = pl.concat([pos.rules.select("kept"), neg.rules.select("kept")])
        self.params = {"auto": ["positive", "negative"], "min_support": None,
                       **{d: {k: m.params[k] for k in (*m.params["auto"], "min_support")} for d, m in (("positive", pos), ("negative", neg))}}

    @staticmethod
    def _evidence(model: Any, frame: pl.DataFrame, shift: float, how: str) -> "np.ndarray":
        """Per row: the largest ``logit(p)`` (``how="max"``) or the sum of the weights
        ``max(logit(p) + shift, 0)`` (``how="sum"``) of the model's rules that hold, ``p`` the
        rule's smoothed training precision; -1 where none holds."""
        import numpy as np

        r = model.rules
        p = ((r["train_positives"] + 1) / (r["train_positives"] + r["train_negatives"] + 2)).to_numpy()
        w = np.log(p / (1 - p)) + shift
        if how == "sum":
            w = np.maximum(w, 0.0)
        fired = model.explain(frame)["fired_rules"].to_list()
        agg = max if how == "max" else sum
        return np.array([agg(w[i] for i in f) if f else -1.0 for f in fired])

    def predict(self, frame: pl.DataFrame) -> "np.ndarray":
        import numpy as np

        pos = self.pos.predict(frame, labels=False).to_numpy()
        neg = self.neg.predict(frame, labels=False).to_numpy()
        if self.how == "ovr":
            return pos & ~neg
        lp = math.log(self.prior / (1 - self.prior))
        how = "max" if self.how == "nb" else "sum"
        ep = self._evidence(self.pos, frame, 0.0, how)
        en = self._evidence(self.neg, frame, lp if how == "sum" else 0.0, how)
        if how == "max":
            both = pos & neg
            # ep / en: the largest logit(p) of the holding rules of each class.
            return np.where(both, ep - en > lp, pos)
        return np.where(pos & neg, ep > en, pos)

    def score(self, frame: pl.DataFrame) -> float:
        import numpy as np

        return float(np.mean(self.predict(frame) == frame["class"].to_numpy()))


_PAIRS: dict[tuple[int, int, int], tuple[Any, Any, float, float]] = {}
_POS_TIME: dict[int, tuple[float, float]] = {}  # the seconds of the >50K fit of _PAIRS' entry


def _pair(train: pl.DataFrame, seed: int) -> tuple[Any, Any, float, float]:
    """The positive- and negative-direction default fits of ``train`` (cached per seed and
    labels within the process: the combinations share them) and their wall and CPU seconds."""
    key = (seed, train.height, hash(train["class"].to_numpy().tobytes()))
    if key not in _PAIRS:
        import findrs

        t, c = time.perf_counter(), time.process_time()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", findrs.ContradictionWarning)
            pos = findrs.fit(train, "class", True, max_rules=None, random_state=seed, settings=dict(direction="positive"))
            _POS_TIME[seed] = (time.perf_counter() - t, time.process_time() - c)
            neg = findrs.fit(train, "class", True, max_rules=None, random_state=seed, settings=dict(direction="negative"))
        _PAIRS.clear()
        _PAIRS[key] = (pos, neg, time.perf_counter() - t, time.process_time() - c)
    return _PAIRS[key]


def _both(how: str) -> Callable[[pl.DataFrame, int], Any]:
    def fit(train: pl.DataFrame, seed: int) -> Any:
        pos, neg, secs, cpu = _pair(train, seed)
        return _Both(pos, neg, float(train["class"].mean()), how, secs, cpu)
    return fit


ENCODER_SETTINGS = ("encoding", "bins", "numeric", "bin_edges", "interval_ends")


class _Exceptions(_Both):
    """``both-nb`` read as rules with exceptions: positive iff some ``>50K`` rule ``r`` holds and
    none of ``r``'s exceptions (the ``<=50K`` rules ``s`` with ``logit(p_s) >= logit(p_r) -
    logit(prior)``) holds. :meth:`predict` computes that explicit form and checks it against
    ``both-nb``'s comparison of the two largest logits, row for row."""

    def __init__(self, pos: Any, neg: Any, prior: float, secs: float, cpu: float) -> None:
        import numpy as np

        super().__init__(pos, neg, prior, "nb", secs, cpu)
        lp = math.log(prior / (1 - prior))
        self.lr, self.ls = self._logits(pos), self._logits(neg)
        # exceptions[r]: the kept <=50K rule ids that override >50K rule r.
        self.exceptions = [np.flatnonzero(self.ls >= x - lp) for x in self.lr]
        used = set().union(*map(set, self.exceptions)) if self.exceptions else set()
        self.rules = pl.DataFrame({"kept": [True] * (self.lr.size + len(used))})
        self.params = {**self.params, "exception_rules": len(used),
                       "exceptions_per_rule": [int(e.size) for e in self.exceptions]}

    @staticmethod
    def _logits(m: Any) -> "np.ndarray":
        """``logit`` of each rule's Laplace-smoothed training precision, by rule id (FIND-RS:
        every rule votes)."""
        import numpy as np

        r = m.rules
        p = ((r["train_positives"] + 1) / (r["train_positives"] + r["train_negatives"] + 2)).to_numpy()
        return np.log(p / (1 - p))

    def predict(self, frame: pl.DataFrame) -> "np.ndarray":
        import numpy as np

        fp = self.pos.explain(frame)["fired_rules"].to_list()
        fn = [set(f) for f in self.neg.explain(frame)["fired_rules"].to_list()]
        out = np.array([any(not fn[i].intersection(self.exceptions[r].tolist()) for r in f) for i, f in enumerate(fp)])
        nb = super().predict(frame)
        if not np.array_equal(out, nb):
            raise AssertionError(f"rules with exceptions differ from both-nb on {int((out != nb).sum())} rows")
        self.overridden = int((self.pos.predict(frame, labels=False).to_numpy() & ~out).sum())
        return out


def _exceptions(own_cv: bool) -> Callable[[pl.DataFrame, int], Any]:
    """``exc-cv`` / ``exc-pos``: the defaults' ``>50K`` set and a ``<=50K`` set on its encoder;
    the seconds are those of the ``>50K`` fit and of this ``<=50K`` fit."""
    def fit(train: pl.DataFrame, seed: int) -> Any:
        import findrs

        pos, _, _, _ = _pair(train, seed)
        secs, cpu = _POS_TIME[seed]
        kw = {k: pos.params[k] for k in ENCODER_SETTINGS}
        if not own_cv:
            kw.update(tolerance=pos.params["tolerance"], min_support=pos.params["min_support"],
                      simplify=pos.params["simplify"])
        t, c = time.perf_counter(), time.process_time()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", findrs.ContradictionWarning)
            neg = findrs.fit(train, "class", True, **findrs.settings.fit_keywords(dict(max_rules=None, random_state=seed, method="find-rs", auto=own_cv, **kw, settings=dict(direction="negative"))))
        if neg.encoders != pos.encoders:
            raise AssertionError("the <=50K set's encoders differ from the >50K set's")
        return _Exceptions(pos, neg, float(train["class"].mean()), secs + time.perf_counter() - t,
                           cpu + time.process_time() - c)
    return fit


def _ovr_shared(train: pl.DataFrame, seed: int) -> Any:
    """One-vs-rest of two class sets fitted with the settings the defaults chose for ``>50K``
    (as the multiclass path would fit them, which the core refuses for two classes): the
    defaults' model, and ``direction="negative"`` with those settings given."""
    import findrs

    pos, _, secs, cpu = _pair(train, seed)
    kw = {k: pos.params[k] for k in SETTINGS if k != "direction"}
    t, c = time.perf_counter(), time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", findrs.ContradictionWarning)
        neg = findrs.fit(train, "class", True, **findrs.settings.fit_keywords(dict(max_rules=None, random_state=seed, method="find-rs", auto=False, **kw, settings=dict(direction="negative", min_support=pos.params["min_support"]))))
    secs += time.perf_counter() - t
    cpu += time.process_time() - c
    return _Both(pos, neg, float(train["class"].mean()), "ovr", secs, cpu)


class _Runs:
    """The runs of one ``T``-run BO fit of the defaults' settings, as a model of the variants
    above (``bo<T>`` or ``best<T>``); enough of a model for :func:`run_variant`."""

    def __init__(self, base: Any, bo: Any, train: pl.DataFrame, how: str, T: int, secs: float, cpu: float) -> None:
        import numpy as np

        self.base, self.bo, self.how, self.T, self._secs, self._cpu = base, bo, how, T, secs, cpu
        runs = bo.vote.runs[:T]
        self._member = np.zeros((bo.n_rules_found, T), dtype=np.int32)
        for t, ids in enumerate(runs):
            self._member[list(ids), t] = 1
        truth = train["class"].to_numpy()
        right = (self._cover(train) == truth[:, None]).sum(axis=0)
        self.train_right = right.tolist()
        self.pick = int(np.argmax(right))  # the first of the most right
        used = sorted({i for ids in runs for i in ids}) if how == "bo" else sorted(runs[self.pick])
        self.rules = pl.DataFrame({"kept": [True] * len(used)})
        self.params = base.params

    def _cover(self, frame: pl.DataFrame) -> "np.ndarray":
        """Per row and run: whether a rule of the run holds."""
        import numpy as np

        fired = np.zeros((frame.height, self.bo.n_rules_found), dtype=np.int32)
        for i, f in enumerate(self.bo.explain(frame)["fired_rules"].to_list()):
            fired[i, f] = 1
        return (fired @ self._member) > 0

    def decide(self, cover: "np.ndarray") -> "np.ndarray":
        """The variant's prediction from :meth:`_cover`'s table."""
        if self.how == "bo":
            return cover.sum(axis=1) > self.T // 2
        return cover[:, self.pick]

    def predict(self, frame: pl.DataFrame) -> "np.ndarray":
        return self.decide(self._cover(frame))


RUNS_T = 10
_BO: dict[tuple[int, int, int], tuple[Any, Any, float, float]] = {}
_BO_ONLY: dict[int, tuple[float, float]] = {}  # the wall and CPU seconds of _BO's entry's BO fit alone


def _bo_of(train: pl.DataFrame, seed: int) -> tuple[Any, Any, float, float]:
    """The defaults' fit of ``train`` and a ``RUNS_T``-run BO fit of its chosen settings
    (cached per seed and labels within the process), and the wall and CPU seconds of both."""
    key = (seed, train.height, hash(train["class"].to_numpy().tobytes()))
    if key not in _BO:
        import findrs
        import numpy as np

        t, c = time.perf_counter(), time.process_time()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", findrs.ContradictionWarning)
            base = findrs.fit(train, "class", True, max_rules=None, random_state=seed, settings=dict(best_of=1))  # run 0 (before §5.3's default)
            kw = {k: base.params[k] for k in SETTINGS}
            t1, c1 = time.perf_counter(), time.process_time()
            bo = findrs.fit(train, "class", True, **findrs.settings.fit_keywords(dict(max_rules=None, random_state=seed, method="bo", auto=False, **kw, settings=dict(T=RUNS_T, min_support=base.params["min_support"]))))
        secs, cpu = time.perf_counter() - t, time.process_time() - c
        _BO_ONLY[seed] = (time.perf_counter() - t1, time.process_time() - c1)
        print(json.dumps({"seed": seed, "method": f"bo{RUNS_T}-fit-only", "secs": round(_BO_ONLY[seed][0], 1),
                          "cpu": round(_BO_ONLY[seed][1], 1), "load": round(os.getloadavg()[0], 1)}), flush=True)
        run0 = _Runs(base, bo, train, "best", 1, 0, 0)
        if not np.array_equal(run0.predict(train), base.predict(train, labels=False).to_numpy()):
            raise AssertionError("run 0 of the BO fit is not the defaults' FIND-RS model")
        _BO.clear()
        _BO[key] = (base, bo, secs, cpu)
    return _BO[key]


def _runs(how: str, T: int) -> Callable[[pl.DataFrame, int], Any]:
    def fit(train: pl.DataFrame, seed: int) -> Any:
        base, bo, secs, cpu = _bo_of(train, seed)
        return _Runs(base, bo, train, how, T, secs, cpu)
    return fit


class _ExcRuns(_Runs):
    """The exceptions model (docs/semantics.md §9.6) with its rules replaced by run ``pick`` of
    the ``RUNS_T``-run BO fit of the defaults' settings (``exc-best<T>``: the run of the first
    ``T`` with the most training rows right as a rule set, as ``best<T>``; ``exc-bestx<T>``: the
    run whose exceptions model has the most training rows right), and its exception rules those of
    ``findrs.fit(..., exceptions=True)``. Each rule's exceptions follow §9.6's integer rule from the
    run's rules' training counts; a row is positive iff some rule of the run holds and none of its
    exceptions does. Run 0 is the ``exceptions`` model (checked row for row)."""

    def __init__(self, base: Any, bo: Any, exc: Any, train: pl.DataFrame, T: int, by_model: bool, secs: float,
                 cpu: float) -> None:
        import numpy as np

        self.__dict__.update(_Runs(base, bo, train, "best", T, secs, cpu).__dict__)  # best<T>'s pick
        self.exc = exc
        y = train["class"].to_numpy()
        P, N = int(y.sum()), int((~y).sum())
        r, s = bo.rules, exc.exception_model.rules
        ar, br = r["train_positives"].to_numpy().astype(object), r["train_negatives"].to_numpy().astype(object)
        as_, bs = s["train_positives"].to_numpy().astype(object), s["train_negatives"].to_numpy().astype(object)
        # over[r, s]: exception rule s overrides rule r (§9.6, in integers).
        self._over = ((as_[None, :] + 1) * P * (br[:, None] + 1) >= (ar[:, None] + 1) * (bs[None, :] + 1) * N)
        self._over = self._over.astype(np.int32)
        if by_model:
            right = (self._cover(train) == y[:, None]).sum(axis=0)
            self.train_right = right.tolist()
            self.pick = int(np.argmax(right))
        used = sorted(self.bo.vote.runs[self.pick])
        n_exc = int(self._over[used].any(axis=0).sum())
        self.rules = pl.DataFrame({"kept": [True] * (len(used) + n_exc)})
        self.exception_rules = n_exc
        self.params = exc.params

    def _cover(self, frame: pl.DataFrame) -> "np.ndarray":
        """Per row and run: whether the run's rules with exceptions say positive."""
        import numpy as np

        fired = np.zeros((frame.height, self.bo.n_rules_found), dtype=np.int32)
        for i, f in enumerate(self.bo.explain(frame)["fired_rules"].to_list()):
            fired[i, f] = 1
        fired_s = np.zeros((frame.height, self.exc.exception_model.n_rules_found), dtype=np.int32)
        for i, f in enumerate(self.exc.exception_model.explain(frame)["fired_rules"].to_list()):
            fired_s[i, f] = 1
        # A rule stands on a row when it holds and none of its exceptions holds there.
        stands = fired * ((fired_s @ self._over.T) == 0)
        return (stands @ self._member) > 0


_EXC: dict[tuple[int, int, int], tuple[Any, float, float]] = {}


def _exc_of(train: pl.DataFrame, seed: int) -> tuple[Any, float, float]:
    """``findrs.fit(..., exceptions=True)`` of ``train`` (cached per seed and labels within the
    process) and its wall and CPU seconds."""
    key = (seed, train.height, hash(train["class"].to_numpy().tobytes()))
    if key not in _EXC:
        import findrs

        t, c = time.perf_counter(), time.process_time()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", findrs.ContradictionWarning)
            exc = findrs.fit(train, "class", True, max_rules=None, random_state=seed, settings=dict(exceptions=True, best_of=1))
        _EXC.clear()
        _EXC[key] = (exc, time.perf_counter() - t, time.process_time() - c)
    return _EXC[key]


def _exc_runs(T: int, by_model: bool) -> Callable[[pl.DataFrame, int], Any]:
    """``exc-best<T>`` / ``exc-bestx<T>``; the seconds: the exceptions fit and the BO fit of
    the runs (the defaults' fit that ``_bo_of`` also makes is the exceptions fit's rules)."""
    def fit(train: pl.DataFrame, seed: int) -> Any:
        import numpy as np

        base, bo, _, _ = _bo_of(train, seed)
        exc, secs, cpu = _exc_of(train, seed)
        if not exc.rules_model.rules["text"].equals(base.rules["text"]):
            raise AssertionError("the exceptions model's rules are not the defaults' model")
        run0 = _ExcRuns(base, bo, exc, train, 1, False, 0, 0)
        if not np.array_equal(run0.predict(train), exc.predict(train, labels=False).to_numpy()):
            raise AssertionError("run 0 with exceptions is not the exceptions model")
        b_secs, b_cpu = _BO_ONLY[seed]
        return _ExcRuns(base, bo, exc, train, T, by_model, secs + b_secs, cpu + b_cpu)
    return fit


def _second_stage(k: int, pairs: int | None = None, **kw: Any) -> Callable[[pl.DataFrame, int], Any]:
    """``rescore<k>``: the defaults (with the fit's keywords ``kw``, e.g. a small ``cv_rows`` in
    a test) with a second selection stage on the rows outside the cross-validation's sample
    (issue 12, branch rescore35; :func:`_rescored`), the ``pairs`` best candidates of each
    direction paired (``None``: the defaults' one pair)."""
    def fit(train: pl.DataFrame, seed: int) -> Any:
        import findrs
        import findrs.learning.learn as learn

        old = learn._choose_exceptions

        def choose(*args: Any) -> Any:
            return _rescored(k, pairs, old, *args)

        learn._choose_exceptions = choose
        try:
            return findrs.fit(train, "class", True, **findrs.settings.fit_keywords(dict(max_rules=None, random_state=seed, **kw)))
        finally:
            learn._choose_exceptions = old
    return fit


STAGE2: dict[str, Any] = {}
"""What the last ``rescore`` fit's second stage did (contenders, their scores, the winner)."""


def _rescored(k: int, n_pairs: int | None, old: Callable[..., Any], df: pl.DataFrame, features: Any, y: Any, tgt: Any, model: Any,
              codes: Any, coder: Any, n_jobs: Any, best_of: int, progress: Any = None) -> Any:
    """In place of ``learn._choose_exceptions``: the contenders are the record's FIND-RS
    candidates and the best rules-with-exceptions pair (``exceptions_cv.best_pair`` of its
    cross-validation), ranked by held-out rows right over the folds (then fewer conditions, then
    record order, the pair last); the first ``k`` are each fitted once on the sample's rows (the
    encoding placed on those rows only, one run, support at the sample's scale as in the fold
    fits) and scored on the rows outside the sample; the winner has the most rows right over the
    folds' held-out rows and those rows together (then fewer conditions, then the order). It is
    fitted on all rows as the defaults fit their winner (support scaled, best of ``best_of``)."""
    import numpy as np

    from findrs.learning import exceptions_cv as X
    from findrs.models.exceptions import ExceptionsModel
    from findrs.learning.learn import _encode_variant
    from findrs.models.rule_set_parts import UNSAMPLED, cv_folds, fold_seed
    from findrs.select.params import AUTOMATIC

    rec = model._cv
    if rec is None:
        return old(df, features, y, tgt, model, codes, coder, n_jobs, best_of, progress)
    p = model.params
    seed = int(p["random_state"])
    folds = int(rec["folds"])
    fold_of = cv_folds(y, folds, seed, p["cv_rows"])
    outside = fold_of == UNSAMPLED
    if not outside.any():
        return old(df, features, y, tgt, model, codes, coder, n_jobs, best_of, progress)

    def variant(c: Any) -> Any:
        q = {**p, "bin_edges": c.get("bin_edges", p["bin_edges"]), "numeric": c.get("numeric", p["numeric"])}
        if (q["bin_edges"], q["numeric"]) == (p["bin_edges"], p["numeric"]):
            return q, list(model.encoders), codes, coder
        return _encode_variant(df, features, y, q)

    cands = rec["candidates"]
    pairs = X.exception_pairs(rec, n_pairs)
    counts = X.pair_counts(y, tgt, rec, p, pairs, variant, n_jobs) if pairs else {}
    pick = X.best_pair(counts) if counts else None
    items = [((sum(c["correct"]), -sum(c["conditions"]), -i), ("plain", i)) for i, c in enumerate(cands) if X._is_find_rs(c)]
    # With one pair per direction (the default), the best pair alone; with more, every pair.
    for n, pair in enumerate(pairs if n_pairs not in (None, 1) else ([pick] if pick is not None else [])):
        items.append(((sum(c[0] for c in counts[pair]), -sum(c[3] for c in counts[pair]), -len(cands) - n), ("pair", pair)))
    top = [what for _, what in sorted(items, reverse=True)[:k]]
    sample = ~outside
    truth = y[outside]
    P = int(y[sample].sum())
    N = int(sample.sum()) - P
    fits: dict[int, Any] = {}

    def fold_rules(i: int) -> Any:
        if i not in fits:
            pv, enc, cod, cdr = variant(cands[i])
            enc_s, cod_s = cdr(sample) if cdr is not None else (enc, cod)
            part = [np.ascontiguousarray(col[sample]) for col in cod_s]
            held = [np.ascontiguousarray(col[outside]) for col in cod_s]
            m = X._fold_model(part, y[sample], enc_s, tgt, pv, cands[i], fold_seed(seed, folds))
            fits[i] = X._FoldRules(m, held, int(outside.sum()), P, N)
        return fits[i]

    scored, stage = [], []
    for n, what in enumerate(top):
        if what[0] == "plain":
            i = what[1]
            fr = fold_rules(i)
            right = int((fr.covers() == (truth if cands[i]["direction"] == "positive" else ~truth)).sum())
            cv_right, cv_conds = sum(cands[i]["correct"]), sum(cands[i]["conditions"])
            conds = int(fr.conditions.sum())
            order = i
        else:
            r, s = what[1]
            pred, _, conds = X._combine(fold_rules(r), fold_rules(s))
            right = int((pred == truth).sum())
            cv_right, cv_conds = sum(c[0] for c in counts[what[1]]), sum(c[3] for c in counts[what[1]])
            order = len(cands) + (pairs.index(what[1]) if n_pairs not in (None, 1) else 0)
        scored.append(((cv_right + right, -(cv_conds + conds), -order), what, right, cv_right))
        stage.append((what, right, cv_right, cv_conds + conds))
    scored.sort(key=lambda t: t[0], reverse=True)
    STAGE2.clear()
    STAGE2.update(contenders=[[str(w), r, cv] for _, w, r, cv in scored], outside=int(outside.sum()),
                  cv_chosen=rec["chosen"], folds=folds, stage=stage, candidates=cands)
    auto = [a for a in AUTOMATIC if a in p["auto"] and a != "n_rules"]

    def from_pick(i: int, encoding: Any) -> list[int]:
        c = cands[i]
        return [j for j in range(len(cands)) if X._is_find_rs(cands[j]) and cands[j]["direction"] == c["direction"]
                and X._encoding(cands[j])[1:] == X._encoding(c)[1:]
                and (encoding is None or cands[j]["encoding"] == encoding) and X._rank(rec, j) <= X._rank(rec, i)]

    for _, what, _, _ in scored:
        if what[0] == "plain":
            i = what[1]
            STAGE2["winner"] = str(what)
            if i == rec["chosen"]:
                return model
            v = variant(cands[i])
            return X._final(({**v[0], "run": 0, "best_of": best_of}, *v[1:]), y, tgt, rec,
                            from_pick(i, cands[i]["encoding"]), auto, n_jobs)
        r, s = what[1]
        v = variant(cands[r])
        if rec["chosen"] == r and model.method == "find-rs":
            rules = model
        else:
            rules = X._final(({**v[0], "run": 0, "best_of": best_of}, *v[1:]), y, tgt, rec, from_pick(r, None), auto, n_jobs)
        excs = X._final(({**v[0], "run": 0, "best_of": 1}, *v[1:]), y, tgt, rec,
                        from_pick(s, rules.params["encoding"]), auto, n_jobs)
        out = ExceptionsModel(rules, excs)
        if not any(out.exceptions_of) or out.n_rules > X.MAX_VOTING_RULES:
            continue  # as the choice does: not a model with exceptions; the next contender
        STAGE2["winner"] = str(what)
        entry = {**cands[r], **dict(zip(("correct", "rows", "rules", "conditions"), map(list, zip(*counts[what[1]])))),
                 "exceptions": True}
        record = {**rec, "chosen": len(cands), "candidates": [*({**c, "exceptions": False} for c in cands), entry]}
        return out._chosen_by_cv([*p["auto"], "exceptions"], record, sum(cands[rec["chosen"]]["correct"]))
    return model


VARIANTS: dict[str, Callable[[pl.DataFrame, int], Any]] = {
    "cv3": _kw(cv=3),
    "cv5": _kw(cv=5),
    "cv10": _kw(cv=10),
    "cv8k": _kw(cv_rows=8_000),
    "cv8k3": _kw(cv_rows=8_000, cv=3),
    "cv12k": _kw(cv_rows=12_000),
    "cv16k": _kw(cv_rows=16_000),
    "cv10k": _kw(cv_rows=10_000),
    "cv12k3": _kw(cv_rows=12_000, cv=3),
    "cvall": _kw(cv_rows=None),
    "tolfine": _with_auto_constant("TOLERANCES", (0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4)),
    "sup-sqrt": _refit(lambda s, n, k: max(0, round(s * math.sqrt(n / k)))),
    "sup-raw": _refit(lambda s, n, k: s),
    "vote": _with_auto_constant("VOTE_MAX_ROWS", 10**9),
    "pairs1": _with_auto_constant("EXCEPTION_PAIRS", 1, "findrs.learning.exceptions_cv"),
    "pairs5": _with_auto_constant("EXCEPTION_PAIRS", 5, "findrs.learning.exceptions_cv"),
    "autobest10": _with_auto_constant("AUTO_BEST_OF", 10, "findrs.learning.learn"),
    "autobest30": _with_auto_constant("AUTO_BEST_OF", 30, "findrs.learning.learn"),
    "bins20": _kw(bins=20),
    "bins30": _kw(bins=30),
    "ovr-own": _both("ovr"),
    "both-nb": _both("nb"),
    "both-nb-sum": _both("sum"),
    "ovr": _ovr_shared,
    "exc-cv": _exceptions(True),
    "exc-pos": _exceptions(False),
    "exceptions": _kw(exceptions=True),
    "exc-auto": lambda train, seed: exc_auto(train, seed)[0],
    **{f"{how}{T}": _runs(how, T) for how in ("bo", "best") for T in (3, 5, 10)},
    **{f"exc-best{x}{T}": _exc_runs(T, x == "x") for x in ("", "x") for T in (5, 10)},
    **{f"rescore{k}": _second_stage(k) for k in (3, 5)},
    "rescore3-pairs2": _second_stage(3, 2),
}


def run_variant(method: str, train: pl.DataFrame, test: pl.DataFrame, seed: int) -> dict:
    import findrs

    t, c = time.perf_counter(), time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", findrs.ContradictionWarning)
        model = VARIANTS[method](train, seed)
    secs, cpu = time.perf_counter() - t, time.process_time() - c
    if isinstance(model, (_Both, _Runs)):  # its fits, whichever variant made them
        secs, cpu = model._secs, model._cpu
    if isinstance(model, findrs.ExceptionsModel):  # the built model: its voting rules and both sets' settings
        rules = pl.DataFrame({"kept": [True] * model.n_rules})
        chosen = {"positive": {k: model.params[k] for k in (*model.params["auto"], "min_support")},
                  "negative": model.params["exception_settings"]}
    else:
        rules = model.rules.filter(pl.col("kept"))
        chosen = {k: model.params[k] for k in (*model.params.get("auto", []), "min_support")}
    if isinstance(model, _Runs):  # the runs' cover of the test rows, once (explain is the cost)
        cover, truth = model._cover(test), test["class"].to_numpy()
        acc = float((model.decide(cover) == truth).mean())
    else:
        acc = float(model.score(test))
    out = dict(acc=acc, rules=int(rules.height), secs=secs, cpu=cpu, setting=json.dumps(chosen, default=str))
    if isinstance(model, _Exceptions):
        out["setting"] = json.dumps({**json.loads(out["setting"]), "positive_rules": int(model.lr.size),
                                     "exception_rules": model.params["exception_rules"],
                                     "exceptions_per_rule": model.params["exceptions_per_rule"],
                                     "overridden": model.overridden}, default=str)
    if method.startswith("rescore"):
        shown = {k: v for k, v in STAGE2.items() if k not in ("candidates", "stage")}
        out["setting"] = json.dumps({**json.loads(out["setting"]), "stage2": shown}, default=str)
    if isinstance(model, _Runs):
        run0 = model.exc if isinstance(model, _ExcRuns) else model.base
        if not (cover[:, 0] == run0.predict(test, labels=False).to_numpy()).all():
            raise AssertionError("run 0 of the BO fit is not the defaults' model (with exceptions: the exceptions model)")
        val = (cover == truth[:, None]).mean(axis=0)
        extra = ({"exception_rules": model.exception_rules, "exception_settings": model.exc.params["exception_settings"]}
                 if isinstance(model, _ExcRuns) else {})
        out["setting"] = json.dumps({**json.loads(out["setting"]), **extra, "T": model.T, "run": model.pick,
                                     "train_right": model.train_right, "val_acc_runs": [round(float(v), 4) for v in val]},
                                    default=str)
    return out


def main() -> None:
    train, _ = load_adult(Path(os.environ["FINDRS_DATA_DIR"]))
    noise = float(os.environ.get("NOISE", "0"))
    share = float(os.environ.get("TRAIN_SHARE", "0.5"))
    if not 0.0 < share < 1.0:
        raise SystemExit(f"TRAIN_SHARE must be in (0, 1), got {share}")
    for seed in map(int, os.environ.get("SEEDS", "0").split()):
        shuffled = train.with_row_index("i").sample(fraction=1.0, shuffle=True, seed=seed)
        parts = [g for _, g in shuffled.group_by("class", maintain_order=True)]
        # int(n * 0.5) == n // 2: TRAIN_SHARE=0.5 splits exactly as before it existed.
        a = flip_labels(pl.concat([g.head(int(g.height * share)) for g in parts]).drop("i"), noise, seed)
        b = pl.concat([g.tail(g.height - int(g.height * share)) for g in parts]).drop("i")
        for method in sys.argv[1:]:
            if method in BASELINES:
                r = run_baseline(method, a, b, seed)
            elif method in VARIANTS:
                r = run_variant(method, a, b, seed)
            else:
                r = run_findrs(method, "adult", a, b, seed)
            print(json.dumps({"seed": seed, **({"noise": noise} if noise else {}),
                              **({"train_share": share} if share != 0.5 else {}), "method": method, "val_acc": round(r["acc"], 4), "rules": r["rules"],
                              "secs": round(r["secs"], 1), "cpu": round(r["cpu"], 1) if "cpu" in r else None, "setting": r.get("setting"),
                              "load": round(os.getloadavg()[0], 1)}), flush=True)


if __name__ == "__main__":
    main()
