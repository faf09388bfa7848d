"""Benchmark datasets used in the findrs experiments.

This module holds:

* :func:`tic_tac_toe` and :func:`monks` -- exact, download-free generators of
  the UCI Tic-Tac-Toe Endgame data set and of the full (432-row) MONK's
  problems 1-3;
* :func:`load_uci` and :data:`UCI_NAMES` -- a loader for the paper's 11 UCI
  data sets from a local directory laid out like ``shared/datasets`` (the
  files as UCI ships them, no header lines);
* :func:`train_test_split` -- the project's fixed, seeded shuffle split
  (with the defaults: the "seed-0 50/50 split").

Every frame returned by :func:`load_uci` has real feature names and ends with
a Boolean ``class`` column that is True for the paper's positive class.

This module deliberately imports nothing from the rest of ``findrs`` so that
it works before the compiled extension is built.
"""

from __future__ import annotations

import itertools
import numbers
import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import polars as pl

__all__ = [
    "UCI_NAMES",
    "load_uci",
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
# UCI loader
# --------------------------------------------------------------------------- #

UCI_NAMES: tuple[str, ...] = (
    "banknote",
    "car",
    "connect-4",
    "kr-vs-kp",
    "monk-1",
    "monk-2",
    "monk-3",
    "mushroom",
    "tic-tac-toe",
    "vote",
    "wine",
)
"""The paper's 11 data sets, as accepted by :func:`load_uci`."""

_KR_VS_KP_NAMES = (
    "bkblk bknwy bkon8 bkona bkspr bkxbq bkxcr bkxwp blxwp bxqsq cntxt dsopp "
    "dwipd hdchk katri mulch qxmsq r2ar8 reskd reskr rimmx rkxwp rxmsq simpl "
    "skach skewr skrxp spcop stlmt thrsk wkcti wkna8 wknck wkovl wkpos wtoeg"
).split()

_MUSHROOM_NAMES = (
    "cap_shape cap_surface cap_color bruises odor gill_attachment gill_spacing "
    "gill_size gill_color stalk_shape stalk_root stalk_surface_above_ring "
    "stalk_surface_below_ring stalk_color_above_ring stalk_color_below_ring "
    "veil_type veil_color ring_number ring_type spore_print_color population habitat"
).split()

_VOTE_NAMES = (
    "handicapped_infants water_project_cost_sharing adoption_of_the_budget_resolution "
    "physician_fee_freeze el_salvador_aid religious_groups_in_schools "
    "anti_satellite_test_ban aid_to_nicaraguan_contras mx_missile immigration "
    "synfuels_corporation_cutback education_spending superfund_right_to_sue crime "
    "duty_free_exports export_administration_act_south_africa"
).split()

_WINE_NAMES = (
    "alcohol malic_acid ash alcalinity_of_ash magnesium total_phenols flavanoids "
    "nonflavanoid_phenols proanthocyanins color_intensity hue od280_od315 proline"
).split()

_CONNECT_4_NAMES = [f"{col}{row}" for col in "abcdefg" for row in range(1, 7)]


@dataclass(frozen=True)
class _Spec:
    file: str
    features: tuple[str, ...]
    feature_dtype: type[pl.DataType]
    class_first: bool
    class_dtype: type[pl.DataType]
    class_values: tuple[object, ...]
    positive: object
    missing: str | None = None
    nullable: tuple[str, ...] = field(default=())
    whitespace: bool = False


def _monks_spec(problem: int) -> _Spec:
    return _Spec(
        file=f"monks-{problem}.test",
        features=MONKS_ATTRIBUTES,
        feature_dtype=pl.Int64,
        class_first=True,
        class_dtype=pl.Int64,
        class_values=(0, 1),
        positive=1,
        whitespace=True,
    )


_SPECS: dict[str, _Spec] = {
    "banknote": _Spec(
        "data_banknote_authentication.txt",
        ("variance", "skewness", "curtosis", "entropy"),
        pl.Float64, False, pl.Int64, (0, 1), 1,
    ),
    "car": _Spec(
        "car.data",
        ("buying", "maint", "doors", "persons", "lug_boot", "safety"),
        pl.String, False, pl.String, ("unacc", "acc", "good", "vgood"), "unacc",
    ),
    "connect-4": _Spec(
        "connect-4.data", tuple(_CONNECT_4_NAMES),
        pl.String, False, pl.String, ("win", "loss", "draw"), "win",
    ),
    "kr-vs-kp": _Spec(
        "kr-vs-kp.data", tuple(_KR_VS_KP_NAMES),
        pl.String, False, pl.String, ("won", "nowin"), "won",
    ),
    "monk-1": _monks_spec(1),
    "monk-2": _monks_spec(2),
    "monk-3": _monks_spec(3),
    "mushroom": _Spec(
        "agaricus-lepiota.data", tuple(_MUSHROOM_NAMES),
        pl.String, True, pl.String, ("e", "p"), "e",
        missing="?", nullable=("stalk_root",),
    ),
    "tic-tac-toe": _Spec(
        "tic-tac-toe.data", TIC_TAC_TOE_SQUARES,
        pl.String, False, pl.String, ("positive", "negative"), "positive",
    ),
    "vote": _Spec(
        "house-votes-84.data", tuple(_VOTE_NAMES),
        pl.String, True, pl.String, ("democrat", "republican"), "republican",
        missing="?", nullable=tuple(_VOTE_NAMES),
    ),
    "wine": _Spec(
        "wine.data", tuple(_WINE_NAMES),
        pl.Float64, True, pl.Int64, (1, 2, 3), 2,
    ),
}

_HINT = "pass the directory that holds the UCI files (like shared/datasets)"


def _read_whitespace(path: Path, columns: list[str]) -> pl.DataFrame:
    """Read a whitespace-separated file (runs of spaces/tabs, leading blanks) as String columns."""
    lines = pl.Series("line", path.read_text().splitlines(), dtype=pl.String)
    fields = lines.str.extract_all(r"\S+")
    fields = fields.filter(fields.list.len() > 0)  # blank lines
    n_fields = fields.list.len()
    bad = (n_fields != len(columns)).arg_true()
    if bad.len() > 0:
        first = int(bad[0])
        raise ValueError(
            f"{path}: expected {len(columns)} whitespace-separated fields per line, "
            f"data row {first + 1} has {int(n_fields[first])}"
        )
    return pl.DataFrame(
        {name: fields.list.get(i) for i, name in enumerate(columns)}
    )


def load_uci(name: str, data_dir: str | os.PathLike[str]) -> pl.DataFrame:
    """Load one of the paper's 11 UCI data sets from a local directory.

    ``data_dir`` must hold the files as UCI ships them (no header lines),
    laid out like ``shared/datasets``: ``data_banknote_authentication.txt``,
    ``car.data``, ``connect-4.data``, ``kr-vs-kp.data``, ``monks-{1,2,3}.test``
    (the full 432-row sets), ``agaricus-lepiota.data``, ``tic-tac-toe.data``,
    ``house-votes-84.data`` and ``wine.data``. Blank lines and CRLF line
    endings are tolerated; ``?`` in mushroom and vote becomes null.

    Returns:
        The features under their UCI names (hyphens as underscores), then the
        target as the last column ``class`` (Boolean, True for the paper's
        positive class: banknote 1, car "unacc", connect-4 "win", kr-vs-kp
        "won", monk-1/2/3 1, mushroom "e", tic-tac-toe "positive", vote
        "republican", wine 2). Categorical features are String, the MONK's
        attributes Int64, banknote and wine features Float64. The MONK's id
        column is dropped. Rows are in file order.

    Args:
        name: one of :data:`UCI_NAMES`.
        data_dir: directory that holds the UCI files.

    Raises:
        ValueError: if ``name`` is not in :data:`UCI_NAMES`, or the file does
            not have the expected layout (field count, class labels, or nulls
            outside the documented missing values).
        FileNotFoundError: if ``data_dir`` or the data set's file does not
            exist.

    Example:
        >>> df = load_uci("car", "shared/datasets")  # doctest: +SKIP
        >>> df.columns[-1], df.height, int(df["class"].sum())  # doctest: +SKIP
        ('class', 1728, 1210)
    """
    if not isinstance(name, str) or name not in _SPECS:
        raise ValueError(f"unknown UCI data set {name!r}; valid names are: {', '.join(UCI_NAMES)}")
    spec = _SPECS[name]
    directory = Path(data_dir)
    if not directory.is_dir():
        state = "is not a directory" if directory.exists() else "does not exist"
        raise FileNotFoundError(f"UCI data directory {str(directory)!r} {state}; {_HINT}")
    path = directory / spec.file
    if not path.is_file():
        raise FileNotFoundError(
            f"UCI file {str(path)!r} for data set {name!r} not found; {_HINT}"
        )

    features = list(spec.features)
    columns = ["class", *features] if spec.class_first else [*features, "class"]

    if spec.whitespace:
        raw = _read_whitespace(path, [*columns, "id"]).drop("id")
        df = raw.with_columns(
            pl.col(features).cast(spec.feature_dtype),
            pl.col("class").cast(spec.class_dtype),
        )
    else:
        schema = {c: (spec.class_dtype if c == "class" else spec.feature_dtype) for c in columns}
        try:
            df = pl.read_csv(
                path,
                has_header=False,
                schema=schema,
                null_values=spec.missing,
                quote_char=None,
            )
        except pl.exceptions.PolarsError as exc:
            raise ValueError(f"{path}: cannot parse as UCI {name!r} data: {exc}") from exc
        # Blank lines (e.g. the two at the end of kr-vs-kp.data) read as all-null rows.
        df = df.filter(~pl.all_horizontal(pl.all().is_null()))

    not_nullable = [c for c in columns if c not in spec.nullable]
    null_counts = df.select(pl.col(not_nullable).null_count()).row(0)
    with_nulls = [c for c, n in zip(not_nullable, null_counts) if n]
    if with_nulls:
        raise ValueError(
            f"{path}: unexpected missing values in column(s) {with_nulls} (short or malformed line?)"
        )
    unknown = df["class"].unique().filter(~df["class"].unique().is_in(list(spec.class_values)))
    if unknown.len() > 0:
        raise ValueError(
            f"{path}: unexpected class label(s) {unknown.sort().to_list()}; "
            f"expected {list(spec.class_values)}"
        )

    return df.select(*features, (pl.col("class") == spec.positive).alias("class"))


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
