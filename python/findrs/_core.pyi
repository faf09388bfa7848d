"""Types of ``findrs._core``, the Rust extension module (PyO3 bindings of findrs-core).

Only ``findrs.models.model`` uses it; everything else goes through :class:`findrs.RuleSetModel`.
"""

from typing import Callable

import numpy as np
import numpy.typing as npt
from typing_extensions import NotRequired, TypedDict

__version__: str
MAX_RUNS: int
"""The most runs (T) a fit makes and a model may count."""
FORMAT_VERSION: int
"""The model JSON format version the core writes and reads."""
UNSAMPLED: int
"""The fold :func:`cv_folds` gives a row outside the cross-validation's sample (the core's
``u32::MAX``)."""

# The settings of a fit cross as one dict (``findrs.models.model._core_options`` builds it), read by the
# core in parts (rust/python/src/options.rs) that these TypedDicts mirror. A key no part of the
# function reads, a missing required key or a value of the wrong type raises ``TypeError``
# naming the key; an unknown method, widening or combination ``ValueError``.

class _Runs(TypedDict):
    """What every fit function reads."""

    method: str
    """``"find-rs"``, ``"bo"``, ``"bp"`` (:func:`fit`: also ``"bo+bp"``, both from one set of
    runs, docs/semantics.md §5.1)."""
    n_runs: int
    """T, the number of runs."""
    seed: int
    shuffle: bool
    widen: NotRequired[str]
    """How a run's interval ends move: ``"no"`` (default), ``"open"`` or ``"nearest"``
    (docs/semantics.md §11)."""
    n_jobs: NotRequired[int | None]
    """Threads of the fit's pool (default ``None``: all cores)."""

class _RunRules(TypedDict):
    """A fixed setting's run rules (docs/semantics.md §9.1, §9.2)."""

    tolerance: int
    epsilon: NotRequired[float]
    """A share tolerance in [0, 1) (with ``tolerance`` 0 for a share alone); default 0."""
    min_support: NotRequired[int]
    """The support filter; default 0."""
    simplify: NotRequired[bool]

class _Vote(TypedDict):
    """Which rules vote: BP's K fixed, or chosen by ``accuracy_ratio`` (both ``None``: every
    rule), and a rule budget (default ``None``)."""

    n_rules: int | None
    accuracy_ratio: float | None
    max_rules: NotRequired[int | None]

class FitRunsOptions(_Runs, _RunRules):
    """The settings of :func:`fit_runs`."""

class FitOptions(_Runs, _RunRules, _Vote):
    """The settings of :func:`fit`."""

    best_of: int
    """FIND-RS: how many runs ``0..best_of`` to keep the most accurate on the training rows of
    (docs/semantics.md §5.3); 1: the one run ``run``."""
    run: NotRequired[int]
    """FIND-RS: the run whose order is presented (default 0)."""

class MulticlassOptions(_Runs, _RunRules, _Vote):
    """The settings of :func:`fit_multiclass`."""

    combine: str
    """``"one-vs-rest"``, ``"rarest-first"`` or ``"frequent-first"`` (docs/semantics.md §10)."""

class AutoOptions(_Runs):
    """The settings of :func:`fit_auto` (docs/semantics.md §9.4); the candidates carry the run
    rules and voting."""

    folds: int
    cv_n_runs: int
    """Runs per cross-validation fit."""
    max_rows: NotRequired[int | None]
    """Cross-validate a stratified sample of this many rows (default ``None``: every row)."""
    scale_support: NotRequired[bool]
    """Scale a candidate's support to the final fit's rows (default ``True``)."""
    final_fit: NotRequired[bool]
    """``False``: stop after the cross-validation (default ``True``)."""
    best_of: int
    """The final FIND-RS fit keeps the best of that many runs (docs/semantics.md §5.3)."""
    paths: NotRequired[bool]
    """Score the FIND-RS fold models' accuracy-size paths (default ``False``; docs/semantics.md §8.1)."""

class CoreModel:
    """A fitted model held by the core (its rules, weights, runs, K, T, threshold)."""

    @staticmethod
    def load(text: str) -> tuple[CoreModel | CoreMulticlass, list[tuple[str, str]]]:
        """Reads a model document (JSON format version 2): the model (a ``CoreMulticlass`` for a
        multiclass document), and the other sections as ``(name, JSON text)`` pairs. Raises
        ``ValueError`` saying what is wrong."""
    def dump(self, sections: list[tuple[str, str]], texts: list[str]) -> str:
        """The model document: the sections, then the model, with one text per distinct
        constraint (``constraint_table`` order)."""
    def plugin_json(self) -> str:
        """The voting rules as the JSON the expression plugin receives in its kwargs."""
    def with_n_rules(self, k: int) -> CoreModel:
        """The same BP model with the top ``k`` rules voting. Raises ``ValueError``."""
    def without_constraints_on(self, features: list[int]) -> CoreModel:
        """The same model with no rule constraining ``features`` (docs/semantics.md §2.1).
        Raises ``ValueError`` for a feature index out of range."""
    def with_rules(self, picked: list[int]) -> CoreModel:
        """The DNF of the rules ``picked``, in that order (docs/semantics.md §8). Raises
        ``ValueError`` when ``picked`` is empty, repeats a rule or names one the model lacks."""
    def path(self, columns_: list[npt.NDArray[np.uint32]], labels: npt.NDArray[np.bool_]) -> tuple[list[int], list[int]]:
        """The accuracy-size path of the voting rules on training codes: ``(order, correct)``
        (docs/semantics.md §8). Raises ``ValueError`` when labels and rows differ in number."""
    def pruning_curve(self, columns_: list[npt.NDArray[np.uint32]], labels: npt.NDArray[np.bool_]) -> list[int]:
        """BP: rows classified correctly by the top-K vote, K = 1..=n_rules_found."""
    def fired(self, columns_: list[npt.NDArray[np.uint32]]) -> tuple[npt.NDArray[np.uint64], npt.NDArray[np.uint32]]:
        """For every row, the ids of the voting rules that cover it, as CSR ``(offsets, ids)``."""
    def constraint_table(self) -> list[tuple[int, list[int], bool]]:
        """The distinct constraints of every rule: ``(feature, codes, unseen_passes)``."""
    def rule_constraints(self) -> tuple[npt.NDArray[np.uint64], npt.NDArray[np.uint32]]:
        """Every rule's constraint ids as CSR ``(offsets, ids)``."""
    def vote_groups(self) -> tuple[list[list[int]], list[int]]:
        """The vote as groups of voting rules and their weights."""
    @property
    def method(self) -> str: ...
    @property
    def T(self) -> int: ...
    @property
    def n_rules(self) -> int:
        """K, the number of voting rules."""
    @property
    def n_rules_found(self) -> int: ...
    @property
    def domain_sizes(self) -> list[int]: ...
    @property
    def kinds(self) -> list[str]: ...
    @property
    def null_seen(self) -> list[bool]:
        """Per feature: whether null occurs in its training data (interval features)."""
    @property
    def threshold(self) -> int: ...
    @property
    def decision_scale(self) -> tuple[float, float]:
        """``(scale, offset)``: decision = votes / scale - offset."""
    @property
    def max_votes(self) -> int: ...
    @property
    def weights(self) -> list[int]: ...
    @property
    def runs(self) -> list[list[int]]: ...
    @property
    def train_positives(self) -> list[int]: ...
    @property
    def train_negatives(self) -> list[int]: ...
    @property
    def curve(self) -> list[int]: ...
    @property
    def dnf(self) -> bool:
        """The rules of a BO or BP fit vote as a DNF: a rule budget chose them."""

class CoreMulticlass:
    """A fitted multiclass model held by the core: one binary model per class set and how they
    combine (docs/semantics.md §10)."""

    def dump(self, sections: list[tuple[str, str]], texts: list[str]) -> str:
        """The model document, with one text per distinct constraint of all sets."""
    def plugin_json(self) -> str:
        """The voting rules of every set as the JSON the ``findrs_class`` plugin receives."""
    def path(self, columns_: list[npt.NDArray[np.uint32]], classes: npt.NDArray[np.uint32]) -> tuple[list[int], list[int]]:
        """A FIND-RS model's accuracy-size path on its training rows: ``(order, correct)``."""
    def held_out_path(self, order: list[int], columns_: list[npt.NDArray[np.uint32]],
                      classes: npt.NDArray[np.uint32]) -> list[int]:
        """The rows right of each prefix of a path's ``order`` on other rows."""
    def with_rules(self, picked: list[list[int]]) -> CoreMulticlass:
        """The model whose set ``i`` keeps the rules ``picked[i]`` of set ``i``, in that order."""
    def class_models(self) -> list[CoreModel]:
        """Each class set as a binary model, in combination order."""
    def without_constraints_on(self, features: list[int]) -> CoreMulticlass:
        """The same model with no rule of any class set constraining ``features``
        (docs/semantics.md §2.1). Raises ``ValueError`` for a feature index out of range."""
    def constraint_table(self) -> list[tuple[int, list[int], bool]]:
        """The distinct constraints of every rule of every set."""
    @property
    def method(self) -> str: ...
    @property
    def T(self) -> int: ...
    @property
    def domain_sizes(self) -> list[int]: ...
    @property
    def null_seen(self) -> list[bool]:
        """Per feature: whether null occurs in its training data (interval features)."""
    @property
    def kinds(self) -> list[str]: ...
    @property
    def combine(self) -> str:
        """``"one-vs-rest"`` or ``"decision-list"``."""
    @property
    def n_classes(self) -> int: ...
    @property
    def set_classes(self) -> list[int]:
        """The class (index) each set describes, in combination order."""
    @property
    def default_class(self) -> int | None:
        """The decision list's class when no set fires; ``None`` for one-vs-rest."""
    @property
    def thetas(self) -> list[float]:
        """Per set, ``scale * offset``: one-vs-rest scores a row ``votes / theta``."""

def fit_multiclass(
    columns_: list[npt.NDArray[np.uint32]],
    domain_sizes: list[int],
    kinds: list[str],
    null_seen: list[bool],
    classes: npt.NDArray[np.uint32],
    n_classes: int,
    options: MulticlassOptions,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[CoreMulticlass, int, list[int]]:
    """Fits one rule set per class (``classes[r]`` row ``r``'s, below ``n_classes``) with the
    settings ``options`` (:class:`MulticlassOptions`); returns the model, the rows identical to a row of another
    class, and per set the contradictions of its own training rows."""

def fit(
    columns_: list[npt.NDArray[np.uint32]],
    domain_sizes: list[int],
    kinds: list[str],
    null_seen: list[bool],
    labels: npt.NDArray[np.bool_],
    options: FitOptions,
    progress: Callable[[int, int], None] | None = None,
    runs: tuple[npt.NDArray[np.uint64], npt.NDArray[np.uint32]] | None = None,
) -> list[tuple[CoreModel, int, tuple[int, int] | None, tuple[int, list[int]] | None]]:
    """Fits a model per method of ``options["method"]`` (``"find-rs"``, ``"bo"``, ``"bp"`` or
    ``"bo+bp"``: both from one set of runs, docs/semantics.md §5.1) with the settings
    ``options`` (:class:`FitOptions`) on training codes; returns, per method, the model, the
    number of contradictory rows and, when a rule budget replaced the model, the training rows
    classified correctly before it and by the model returned. ``kinds``: ``"av"``, ``"oh"`` or
    ``"interval"`` per feature; ``null_seen``: whether null occurs in each (interval) feature's
    training column. ``runs``: every run's rule words and rule counts, as :func:`fit_runs`
    returns them concatenated in run order (§5.2; already widened); ``None`` makes the runs
    here. With ``best_of`` above 1 (FIND-RS, docs/semantics.md §5.3) the last item is the run
    kept and every run's training rows right (else ``None``)."""

def fit_runs(
    columns_: list[npt.NDArray[np.uint32]],
    domain_sizes: list[int],
    kinds: list[str],
    null_seen: list[bool],
    labels: npt.NDArray[np.bool_],
    options: FitRunsOptions,
    start: int,
    end: int,
) -> tuple[npt.NDArray[np.uint64], npt.NDArray[np.uint32]]:
    """Runs ``start..end`` of a fit with these options (:class:`FitRunsOptions`, the runs'
    part of a :func:`fit`'s; docs/semantics.md §5.2; ``kinds`` and ``null_seen`` as in
    :func:`fit`, each run's interval ends widened here): every
    rule's words concatenated in run order, and each run's number of rules. Raises
    ``ValueError``."""

def fit_auto(
    columns_: list[npt.NDArray[np.uint32]],
    domain_sizes: list[int],
    kinds: list[str],
    null_seen: list[bool],
    labels: npt.NDArray[np.bool_],
    candidates: list[tuple[str, int, float, bool, int, int | None, float | None, bool]],
    options: AutoOptions,
    progress: Callable[[int, int], None] | None = None,
    fold_columns: list[tuple[list[npt.NDArray[np.uint32]], list[int]]] | None = None,
    scores: tuple[list[tuple[list[int], list[int], list[int], list[int]]], int] | None = None,
    order: list[int] | None = None,
) -> tuple[CoreModel | None, int, int,
           list[tuple[list[int], list[int], list[int], list[int], list[list[int]], list[list[int]], list[list[int]]]],
           int, int,
           tuple[int, list[int]] | None]:
    """Cross-validates the candidates ``(encoding, tolerance, epsilon, negate, min_support,
    n_rules, accuracy_ratio, simplify)`` by stratified ``folds``-fold CV with ``cv_n_runs`` runs
    per fit (on a stratified sample of ``max_rows`` rows; ``options``: :class:`AutoOptions`), then fits the best whose fit keeps a
    rule on all rows with ``n_runs`` runs (docs/semantics.md §9.4). Returns the model (of the
    negative rows for a negated candidate; ``None`` with ``final_fit=False``, which stops after
    the cross-validation), the contradictory rows, the index of the candidate fitted (the
    best-ranked without a fit), per candidate the per-fold ``(correct, rows, rules,
    conditions, path_correct, path_conditions, path_train)`` (the last three: each fold model's
    path scored on its held-out rows, and on its training rows from the empty model on; FIND-RS
    only, docs/semantics.md §8.1), the rows cross-validated and the final ``min_support``. ``fold_columns``:
    per fold, every row's codes and the domain sizes of an encoding fitted on that fold's
    training rows; fold ``f`` is then read from the ``f``-th (the final fit from
    ``columns_``). ``scores``: the cross-validation is already made (per candidate its
    per-fold counts as returned here, and the rows it used): none is run, the final fit goes
    down those scores as after one, after the candidates ``order`` (indices) when given.
    ``best_of``: the final FIND-RS fit keeps the best of that
    many runs (docs/semantics.md §5.3); the last item is then the run kept and every run's
    training rows right (else ``None``). Raises ``ValueError``."""

def cv_folds(labels: npt.NDArray[np.bool_], folds: int, seed: int, max_rows: int | None = None) -> npt.NDArray[np.uint32]:
    """The fold of every row in :func:`fit_auto`'s cross-validation with these arguments
    (``2**32 - 1``: outside its sample). Raises ``ValueError``."""

def fold_seed(seed: int, fold: int) -> int:
    """The ``random_state`` whose fit gives fold ``fold``'s scores in :func:`fit_auto` with
    ``seed``."""

def fit_bytes(
    domain_sizes: list[int], kinds: list[str], n_pos: int, n_neg: int, null_seen: list[bool] | None = None
) -> int:
    """Bytes a fit allocates at its peak for what grows with rows x the features' values."""
