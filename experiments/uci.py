"""The paper's 11 UCI data sets, read from a local directory.

The UCI files are not part of findrs or of this repository: download them (see
:func:`how_to_get`) into one directory and pass it as ``--data-dir`` to the scripts, or set the
``FINDRS_DATA_DIR`` environment variable (the test suite reads only the variable).

:func:`load_uci` turns one file into a Polars frame with real feature names and a Boolean
``class`` column that is True for the paper's positive class. It lives here, beside the paper
reproduction and the benchmarks that use it, rather than in the ``findrs`` library.
"""

from __future__ import annotations

import os
import shlex
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import NoReturn

import polars as pl

from findrs.datasets import MONKS_ATTRIBUTES, TIC_TAC_TOE_SQUARES

__all__ = [
    "ENV_VAR",
    "UCI_FILES",
    "UCI_NAMES",
    "data_dir_from",
    "how_to_get",
    "load_uci",
    "missing_files",
    "require_data_dir",
]

ENV_VAR = "FINDRS_DATA_DIR"
"""The environment variable that names the UCI data directory."""

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

_HINT = f"pass the directory that holds the UCI files (--data-dir or ${ENV_VAR})"


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


def load_uci(name: str, data_dir: str | os.PathLike[str], *, labels: bool = False) -> pl.DataFrame:
    """Load one of the paper's 11 UCI data sets from a local directory.

    ``data_dir`` must hold the files as UCI ships them (no header lines,
    see :func:`how_to_get`): ``data_banknote_authentication.txt``,
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
        labels: keep the class labels as UCI writes them (car's four classes, connect-4's
            three, wine's 1, 2, 3) instead of the Boolean positive class.

    Raises:
        ValueError: if ``name`` is not in :data:`UCI_NAMES`, or the file does
            not have the expected layout (field count, class labels, or nulls
            outside the documented missing values).
        FileNotFoundError: if ``data_dir`` or the data set's file does not
            exist.

    Example:
        >>> df = load_uci("car", os.environ["FINDRS_DATA_DIR"])  # doctest: +SKIP
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

    if labels:
        return df.select(*features, "class")
    return df.select(*features, (pl.col("class") == spec.positive).alias("class"))


# --------------------------------------------------------------------------- #
# Where the files are
# --------------------------------------------------------------------------- #

UCI_FILES: dict[str, str] = {name: spec.file for name, spec in _SPECS.items()}
"""The file :func:`load_uci` reads for each data set."""

# UCI's title of each data set, as the repository lists it, and the files to put in the directory.
_UCI_TITLES: tuple[tuple[str, str], ...] = (
    ("Banknote Authentication", "data_banknote_authentication.txt"),
    ("Car Evaluation", "car.data"),
    ("Chess (King-Rook vs. King-Pawn)", "kr-vs-kp.data"),
    ("Congressional Voting Records", "house-votes-84.data"),
    ("Connect-4", "connect-4.data (uncompressed from connect-4.data.Z)"),
    ("MONK's Problems", "monks-1.test, monks-2.test, monks-3.test (and monks-N.train for the authors' MONK's variant)"),
    ("Mushroom", "agaricus-lepiota.data"),
    ("Tic-Tac-Toe Endgame", "tic-tac-toe.data"),
    ("Wine", "wine.data"),
)


def how_to_get(then: str = f"then pass --data-dir DIR or set {ENV_VAR}=DIR") -> str:
    """One line saying which UCI files are needed, where to get them and (``then``) how to point
    findrs at them."""
    sets = "; ".join(f"{title}: {files}" for title, files in _UCI_TITLES)
    return (
        "the UCI files are not shipped with findrs: download these data sets from the UCI Machine "
        f"Learning Repository (https://archive.ics.uci.edu) into one directory DIR, as UCI ships them: "
        f"{sets}; {then}"
    )


def data_dir_from(arg: str | os.PathLike[str] | None = None) -> Path | None:
    """The data directory: ``arg`` when given, else ``$FINDRS_DATA_DIR``, else ``None``."""
    if arg:
        return Path(arg)
    env = os.environ.get(ENV_VAR)
    return Path(env) if env else None


def missing_files(directory: str | os.PathLike[str], names: tuple[str, ...] | list[str] = UCI_NAMES) -> list[str]:
    """The files of data sets ``names`` that ``directory`` lacks (all of them if it is no directory)."""
    d = Path(directory)
    files = [UCI_FILES[n] for n in names]
    return [f for f in dict.fromkeys(files) if not (d / f).is_file()]


def require_data_dir(
    arg: str | os.PathLike[str] | None, names: tuple[str, ...] | list[str] = UCI_NAMES, *, extra_files: tuple[str, ...] = ()
) -> Path:
    """The data directory of a script (``--data-dir`` or ``$FINDRS_DATA_DIR``) holding the files of
    ``names`` and ``extra_files``; otherwise prints what is missing and how to get it, and exits
    with status 2."""
    directory = data_dir_from(arg)
    if directory is None:
        _exit(f"no UCI data directory: {how_to_get()}")
    if not directory.is_dir():
        _exit(f"UCI data directory {str(directory)!r} does not exist; {how_to_get()}")
    missing = missing_files(directory, names) + [f for f in extra_files if not (directory / f).is_file()]
    if missing:
        _exit(f"UCI data directory {str(directory)!r} lacks {', '.join(missing)}; {how_to_get()}")
    return directory


def _exit(message: str) -> NoReturn:
    print(f"error: {message}", file=sys.stderr)
    raise SystemExit(2)



def command_line(module: str, argv: list[str]) -> str:
    """``python -m <module> <argv>`` as a report records it: the data directory, which differs
    from machine to machine, is written as ``--data-dir "$FINDRS_DATA_DIR"``.

    Example:
        >>> command_line("experiments.noisy", ["--data-dir", "/data/uci", "--splits", "3"])
        'python -m experiments.noisy --data-dir "$FINDRS_DATA_DIR" --splits 3'
    """
    args: list[str] = []
    skip = False
    for a in argv:
        if skip:
            skip = False
        elif a == "--data-dir":
            skip = True
        elif not a.startswith("--data-dir="):
            args.append(shlex.quote(a))
    return " ".join([f"python -m {module}", '--data-dir "$FINDRS_DATA_DIR"', *args])
