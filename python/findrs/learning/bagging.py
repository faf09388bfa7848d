"""``fit_bagged``: a majority vote of findrs fits on stratified bootstrap samples
(docs/semantics.md §12); the vote itself is :class:`~findrs.BaggedModel`.

Invariant: the samples and the members' seeds are drawn from ``random_state`` alone, and each
member is :func:`findrs.fit` with the caller's keywords, so the same data, keywords and seed
give the same vote whatever the thread count.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import polars as pl

from ..data.columns import text_identifiers
from ..data.frames import as_polars
from ..data.target import _ONE_VS_REST, binarize
from ..errors import FindRSInputError
from ..models.bagged import BaggedModel, Member
from .learn import fit


def fit_bagged(
    data: Any,
    target: str,
    positive: Any | None = None,
    *,
    n_estimators: int = 25,
    random_state: int | None = None,
    **kwargs: Any,
) -> "BaggedModel":
    """Fits ``n_estimators`` findrs models, each on a stratified bootstrap sample of the rows
    (each class's rows drawn with replacement, as many as it has), and returns their majority
    vote: the positive label where more than half of them predict it (docs/semantics.md §12).

    Bagging trades readability for accuracy on small or noisy numeric data, where one rule set
    varies a lot with the rows it sees: on wine (89 training rows, 13 numeric columns) one
    default fit scores about 0.90, the vote of 25 about 0.93 (``results/intervals.md``). Each
    member is :func:`findrs.fit` with ``kwargs`` (automatic settings by default: every member
    chooses its own by cross-validation on its sample, the most accurate of any size:
    ``max_rules=None`` unless given), so the vote costs ``n_estimators`` fits.
    The paper's algorithm is not bagged: this is an addition, not a setting of it.

    Args:
        data: a Polars DataFrame or LazyFrame (collected once), or a pandas DataFrame / PyArrow
            table.
        target: the label column; binary, or any target with ``positive`` given.
        positive: the positive label, as :func:`findrs.fit` reads it.
        n_estimators: members in the vote (1 to 1,000; an odd count has no ties, and a tie is
            the negative label).
        random_state: seed of the samples and of the members' own ``random_state``; ``None``
            draws one (recorded in :attr:`BaggedModel.params`).
        **kwargs: every other :func:`findrs.fit` keyword, given to each member (for example
            ``numeric="interval"``, ``auto=False``, ``method="bo"``).

    Returns:
        The :class:`BaggedModel`.

    Raises:
        FindRSInputError: ``n_estimators`` out of range, a multiclass target without
            ``positive`` (bagging votes on one label: pass ``positive=<label>``), a method pair
            (``"bo+bp"``), or any error :func:`findrs.fit` raises on the data.

    Example:
        >>> import findrs
        >>> df = findrs.datasets.tic_tac_toe()
        >>> bag = findrs.fit_bagged(df, "class", "positive", n_estimators=5, random_state=0)
        >>> bag.n_estimators, bag.predict(df.head(2)).to_list()
        (5, ['positive', 'positive'])
    """
    if isinstance(n_estimators, bool) or not isinstance(n_estimators, (int, np.integer)) or not 1 <= n_estimators <= 1000:
        raise FindRSInputError(f"n_estimators must be an integer from 1 to 1000, got {n_estimators!r}")
    if random_state is not None and (isinstance(random_state, bool) or not isinstance(random_state, (int, np.integer))
                                     or not 0 <= random_state < 2**63):
        raise FindRSInputError(f"random_state must be None or an integer from 0 to 2**63 - 1, got {random_state!r}")
    method = kwargs.get("method")
    if isinstance(method, str) and "+" in method:
        raise FindRSInputError(f"method={method!r} returns a pair of models; a bagged vote takes one method per "
                               f"member: 'find-rs', 'bo', 'bp' or None")
    kwargs = {"max_rules": None, **kwargs}  # a vote is the accuracy end: its members are not cut to a size
    df = as_polars(data)
    y, tgt = binarize(df, target, positive)
    seed = int(np.random.SeedSequence().entropy % 2**63) if random_state is None else int(random_state)
    rng = np.random.default_rng(seed)
    by_class = [np.flatnonzero(y), np.flatnonzero(~y)]
    if kwargs.get("features") is None:
        # Identifiers are left out once, on the whole frame (a bootstrap sample repeats rows, so
        # a member could not tell); the members refuse or warn about numbers as text.
        every = [c for c in df.columns if c != target]
        left_out = text_identifiers(df, every)
        if left_out:
            kwargs = {**kwargs, "features": [c for c in every if c not in left_out]}
    finite = _finite_columns(df, target, kwargs.get("features"))
    members: list[Member] = []
    caught: dict[type, warnings.WarningMessage] = {}
    for _ in range(int(n_estimators)):
        rows = _sample(rng, by_class, finite)
        member_seed = int(rng.integers(0, 2**31 - 1))
        # A sample that lost a class of a target of more than two is still its one-vs-rest.
        one_vs_rest = _ONE_VS_REST.set(tgt.negative is None)
        try:
            with warnings.catch_warnings(record=True) as seen:
                warnings.simplefilter("always")
                members.append(fit(df[rows], target, tgt.positive, random_state=member_seed, **kwargs))
        finally:
            _ONE_VS_REST.reset(one_vs_rest)
        for w in seen:
            caught.setdefault(w.category, w)
    for w in caught.values():  # each kind once, as the first member saw it
        warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    return BaggedModel(members, tgt, {"n_estimators": int(n_estimators), "random_state": seed,
                                      "bootstrap": "stratified"})


_MAX_DRAWS = 1000
"""Bootstrap samples :func:`_sample` draws at most for one member."""


def _finite_columns(df: pl.DataFrame, target: str, features: Any) -> dict[str, np.ndarray]:
    """Per numeric feature column (``features``: :func:`findrs.fit`'s, ``None`` for every column
    but the target) holding a finite value, which rows hold one: each member's sample must hold
    one too, or its binning has nothing to bin (:func:`findrs.fit` accepts the frame)."""
    names = [features] if isinstance(features, str) else [c for c in df.columns if c != target] if features is None \
        else list(features)
    out = {}
    for c in names:
        if c in df.columns and df.schema[c].is_numeric():
            # In NumPy: a Series method runs as an expression on pl.col(name), which reads a
            # name such as '^a.*$' as a pattern (and finds no column).
            mask = np.isfinite(df.get_column(c).cast(pl.Float64).to_numpy())
            if mask.any():
                out[c] = mask
    return out


def _sample(rng: np.random.Generator, by_class: list[np.ndarray], finite: dict[str, np.ndarray]) -> np.ndarray:
    """One member's rows: a bootstrap sample of each label's rows (stratified), drawn again
    while it misses every finite value of a column of ``finite`` (which rows hold one).

    Raises:
        FindRSInputError: :data:`_MAX_DRAWS` samples all missed them.
    """
    lost: list[str] = []
    for _ in range(_MAX_DRAWS):
        rows = np.sort(np.concatenate([rng.choice(idx, size=len(idx), replace=True) for idx in by_class]))
        lost = [c for c, mask in finite.items() if not mask[rows].any()]
        if not lost:
            return rows
    raise FindRSInputError(f"{_MAX_DRAWS} bootstrap samples each missed every finite value of the column(s) {lost}; "
                           f"a member could not bin them: fill the column, or drop it with features=[...]")
