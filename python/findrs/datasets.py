"""Small datasets that need no download, and the project's seeded split.

This module holds:

* :func:`tic_tac_toe` and :func:`monks` -- exact, download-free generators of
  the UCI Tic-Tac-Toe Endgame data set and of the full (432-row) MONK's
  problems 1-3;
* :func:`credit` -- a generated table of loans with numeric and categorical
  columns and noisy labels, whose true rule mixes thresholds and a category;
* :func:`train_test_split` -- the project's fixed, seeded shuffle split
  (with the defaults: the "seed-0 50/50 split").

The paper's 11 UCI data sets are read from local files by the paper
reproduction (``experiments/uci.py`` in the repository), not by the library.

This module deliberately imports nothing from the rest of ``findrs`` so that
it works before the compiled extension is built.
"""

from __future__ import annotations

import itertools
import numbers

import numpy as np
import polars as pl

__all__ = [
    "credit",
    "monks",
    "tic_tac_toe",
    "train_test_split",
]

# --------------------------------------------------------------------------- #
# Tic-Tac-Toe Endgame
# --------------------------------------------------------------------------- #

TIC_TAC_TOE_SQUARES: tuple[str, ...] = (
    "top_left",
    "top_middle",
    "top_right",
    "middle_left",
    "middle_middle",
    "middle_right",
    "bottom_left",
    "bottom_middle",
    "bottom_right",
)

_LINES: tuple[tuple[int, int, int], ...] = (
    (0, 1, 2),
    (3, 4, 5),
    (6, 7, 8),
    (0, 3, 6),
    (1, 4, 7),
    (2, 5, 8),
    (0, 4, 8),
    (2, 4, 6),
)


def _winner(board: tuple[str, ...]) -> str | None:
    for i, j, k in _LINES:
        if board[i] != "b" and board[i] == board[j] == board[k]:
            return board[i]
    return None


def _end_positions() -> set[tuple[str, ...]]:
    """All boards where a game that x started has just ended (at most 5478 states visited)."""
    start = ("b",) * 9
    seen = {start}
    stack = [start]
    ends: set[tuple[str, ...]] = set()
    while stack:
        board = stack.pop()
        if _winner(board) is not None or "b" not in board:
            ends.add(board)
            continue
        player = "x" if board.count("x") == board.count("o") else "o"
        for square in range(9):
            if board[square] == "b":
                child = board[:square] + (player,) + board[square + 1 :]
                if child not in seen:
                    seen.add(child)
                    stack.append(child)
    return ends


def tic_tac_toe() -> pl.DataFrame:
    """Generate the UCI Tic-Tac-Toe Endgame data set (958 rows), no download needed.

    The rows are every board on which a legal game started by ``x`` has just
    ended: someone has three in a row (play stops at the first win) or the
    board is full. ``class`` is ``"positive"`` iff ``x`` has three in a row
    (626 rows), else ``"negative"`` (332: 316 wins for ``o`` and 16 draws).

    Row order is UCI's order (identical to ``tic-tac-toe.data``): first the x
    wins, then the o wins, then the draws; within each group the boards are
    sorted square by square (top_left first) with ``x < o < b``.

    Returns:
        A frame with the nine square columns ``top_left`` ... ``bottom_right``
        (String, ``"x"``/``"o"``/``"b"``) followed by ``class`` (String).

    Raises:
        Nothing.

    Example:
        >>> df = tic_tac_toe()
        >>> df.shape
        (958, 10)
        >>> df.row(0)
        ('x', 'x', 'x', 'x', 'o', 'o', 'x', 'o', 'o', 'positive')
    """
    boards = sorted(_end_positions())
    df = pl.DataFrame(boards, schema=list(TIC_TAC_TOE_SQUARES), orient="row")
    order = pl.Enum(["x", "o", "b"])
    x_wins = pl.lit(False)
    o_wins = pl.lit(False)
    for line in _LINES:
        cols = [pl.col(TIC_TAC_TOE_SQUARES[i]) for i in line]
        x_wins = x_wins | pl.all_horizontal([c == "x" for c in cols])
        o_wins = o_wins | pl.all_horizontal([c == "o" for c in cols])
    group = pl.when(x_wins).then(0).when(o_wins).then(1).otherwise(2)
    return (
        df.with_columns(
            pl.when(x_wins).then(pl.lit("positive")).otherwise(pl.lit("negative")).alias("class"),
            group.alias("_group"),
        )
        .sort(["_group", *(pl.col(c).cast(order) for c in TIC_TAC_TOE_SQUARES)])
        .drop("_group")
    )


# --------------------------------------------------------------------------- #
# MONK's problems
# --------------------------------------------------------------------------- #

MONKS_ATTRIBUTES: tuple[str, ...] = ("a1", "a2", "a3", "a4", "a5", "a6")
_MONKS_SIZES: tuple[int, ...] = (3, 3, 2, 3, 4, 2)
_MONKS_PROBLEMS: tuple[int, ...] = (1, 2, 3)


def _monks_rule(problem: int) -> pl.Expr:
    a1, a2, a3, a4, a5, a6 = (pl.col(c) for c in MONKS_ATTRIBUTES)
    if problem == 1:
        return (a1 == a2) | (a5 == 1)
    if problem == 2:
        return pl.sum_horizontal([(a == 1).cast(pl.Int64) for a in (a1, a2, a3, a4, a5, a6)]) == 2
    return ((a5 == 3) & (a4 == 1)) | ((a5 != 4) & (a2 != 3))


def monks(problem: int) -> pl.DataFrame:
    """Generate the full, noise-free MONK's problem ``problem`` (432 rows).

    All 3*3*2*3*4*2 = 432 attribute combinations, in the order of UCI's
    ``monks-N.test`` (lexicographic in ``a1`` ... ``a6``), labelled by:

    * monk-1: ``(a1 == a2) or (a5 == 1)``
    * monk-2: exactly two of ``a1`` ... ``a6`` equal 1
    * monk-3: ``(a5 == 3 and a4 == 1) or (a5 != 4 and a2 != 3)`` (no noise,
      as in the ``.test`` file; the ``.train`` file has 5% label noise)

    Args:
        problem: 1, 2 or 3.

    Returns:
        Columns ``a1`` ... ``a6`` then ``class`` (all Int64; class is 0/1).

    Raises:
        ValueError: if ``problem`` is not 1, 2 or 3.

    Example:
        >>> df = monks(1)
        >>> df.shape, int(df["class"].sum())
        ((432, 7), 216)
    """
    if (
        isinstance(problem, bool)
        or not isinstance(problem, numbers.Integral)
        or problem not in _MONKS_PROBLEMS
    ):
        raise ValueError(
            f"unknown MONK's problem {problem!r}; allowed values are {', '.join(map(str, _MONKS_PROBLEMS))}"
        )
    rows = list(itertools.product(*(range(1, size + 1) for size in _MONKS_SIZES)))
    df = pl.DataFrame(
        rows, schema={name: pl.Int64 for name in MONKS_ATTRIBUTES}, orient="row"
    )
    return df.with_columns(_monks_rule(problem).cast(pl.Int64).alias("class"))


# --------------------------------------------------------------------------- #
# Credit: mixed columns, noisy labels
# --------------------------------------------------------------------------- #

CREDIT_EMPLOYMENT: tuple[str, ...] = ("salaried", "self-employed", "student", "unemployed")
CREDIT_HOUSING: tuple[str, ...] = ("own", "rent", "mortgage")
CREDIT_PURPOSE: tuple[str, ...] = ("car", "home", "education", "business", "other")


def credit(rows: int = 2000, noise: float = 0.07, seed: int = 0) -> pl.DataFrame:
    """Generate a table of loans with numeric and categorical columns and noisy labels.

    Each row draws, independently (``numpy.random.default_rng(seed)``):

    * ``age``: Int64, 18 to 75, uniform;
    * ``income``: Float64, yearly income in thousands, log-normal (median about 45), one
      decimal;
    * ``debt_ratio``: Float64, debts over income, uniform from 0 to 1.2, two decimals;
    * ``employment``: String, one of ``salaried`` (55%), ``self-employed`` (20%), ``student``
      (10%), ``unemployed`` (15%);
    * ``housing``: String, ``own``, ``rent`` or ``mortgage``; ``purpose``: String, ``car``,
      ``home``, ``education``, ``business`` or ``other`` (neither decides the label);

    and ``default`` (Boolean) is true by the rule

        ``(income < 30 and debt_ratio >= 0.5) or (employment == "unemployed" and age < 35)``

    then flipped on a ``noise`` share of the rows, chosen at random (exactly
    ``round(rows * noise)`` of them). The same arguments give the same frame everywhere.

    Args:
        rows: the number of rows, at least 1.
        noise: the share of labels flipped, in [0, 0.5].
        seed: seed for ``numpy.random.default_rng``.

    Returns:
        Columns ``age``, ``income``, ``debt_ratio``, ``employment``, ``housing``, ``purpose``,
        ``default``.

    Raises:
        ValueError: ``rows`` is not a positive integer or ``noise`` is not a number in
            [0, 0.5].

    Example:
        >>> df = credit()
        >>> df.shape, df["default"].sum()
        ((2000, 7), 438)
    """
    if isinstance(rows, bool) or not isinstance(rows, numbers.Integral) or rows < 1:
        raise ValueError(f"rows must be a positive integer, got {rows!r}")
    if isinstance(noise, bool) or not isinstance(noise, numbers.Real) or not 0.0 <= float(noise) <= 0.5:
        raise ValueError(f"noise must be a number in [0, 0.5], got {noise!r}")
    n = int(rows)
    rng = np.random.default_rng(seed)
    age = rng.integers(18, 76, n)
    income = np.round(np.exp(rng.normal(np.log(45.0), 0.6, n)), 1)
    debt = np.round(rng.uniform(0.0, 1.2, n), 2)
    employment = rng.choice(CREDIT_EMPLOYMENT, n, p=[0.55, 0.20, 0.10, 0.15])
    housing = rng.choice(CREDIT_HOUSING, n)
    purpose = rng.choice(CREDIT_PURPOSE, n)
    default = ((income < 30) & (debt >= 0.5)) | ((employment == "unemployed") & (age < 35))
    flipped = rng.choice(n, round(n * float(noise)), replace=False)
    default[flipped] = ~default[flipped]
    return pl.DataFrame({
        "age": pl.Series(age, dtype=pl.Int64),
        "income": income,
        "debt_ratio": debt,
        "employment": employment.tolist(),
        "housing": housing.tolist(),
        "purpose": purpose.tolist(),
        "default": default,
    })


# --------------------------------------------------------------------------- #
# Split
# --------------------------------------------------------------------------- #


def train_test_split(
    df: pl.DataFrame, test_fraction: float = 0.5, seed: int = 0
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Deterministic shuffled train/test split; the defaults are the project's "seed-0 50/50 split".

    Rows are permuted with ``numpy.random.default_rng(seed).permutation(n)``;
    train is the first ``n - round(n * test_fraction)`` permuted rows and test
    is the rest (``round`` is Python's, i.e. half to even). Same inputs give
    the same split on every run and platform.

    Args:
        df: the frame to split.
        test_fraction: share of rows that go to the test part, in [0, 1].
        seed: seed for ``numpy.random.default_rng``.

    Returns:
        ``(train, test)``, both with ``df``'s columns, in permuted order.

    Raises:
        ValueError: if ``test_fraction`` is not a number in [0, 1].
        TypeError: if ``df`` is not a polars DataFrame.

    Example:
        >>> df = pl.DataFrame({"x": range(10)})
        >>> train, test = train_test_split(df)
        >>> train.height, test.height
        (5, 5)
    """
    if not isinstance(df, pl.DataFrame):
        raise TypeError(f"df must be a polars DataFrame, got {type(df).__name__}")
    if (
        isinstance(test_fraction, bool)
        or not isinstance(test_fraction, numbers.Real)
        or not 0.0 <= float(test_fraction) <= 1.0
    ):
        raise ValueError(f"test_fraction must be a number in [0, 1], got {test_fraction!r}")
    n = df.height
    n_test = round(n * float(test_fraction))
    n_train = n - n_test
    perm = np.random.default_rng(seed).permutation(n)
    return df[perm[:n_train]], df[perm[n_train:]]
