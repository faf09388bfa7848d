"""Tests for findrs.datasets (generators and the seeded split) and for the UCI loader of the
paper reproduction (experiments/uci.py)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from experiments.uci import UCI_FILES, UCI_NAMES, how_to_get, load_uci, require_data_dir
from findrs.datasets import (
    TIC_TAC_TOE_SQUARES,
    credit,
    monks,
    tic_tac_toe,
    train_test_split,
)

SQUARES = list(TIC_TAC_TOE_SQUARES)
MONKS_COLS = ["a1", "a2", "a3", "a4", "a5", "a6"]

# name -> (rows, positives, number of feature columns)  [MANIFEST.md / paper Table 1]
EXPECTED = {
    "banknote": (1372, 610, 4),
    "car": (1728, 1210, 6),
    "connect-4": (67557, 44473, 42),
    "kr-vs-kp": (3196, 1669, 36),
    "monk-1": (432, 216, 6),
    "monk-2": (432, 142, 6),
    "monk-3": (432, 228, 6),
    "mushroom": (8124, 4208, 22),
    "tic-tac-toe": (958, 626, 9),
    "vote": (435, 168, 16),
    "wine": (178, 71, 13),
}


def _read_uci_tic_tac_toe(data_dir: Path) -> list[tuple[str, ...]]:
    text = (data_dir / "tic-tac-toe.data").read_text()
    return [tuple(line.split(",")) for line in text.splitlines() if line.strip()]


def _read_monks_test(data_dir: Path, problem: int) -> list[tuple[int, ...]]:
    """(a1..a6, class) per line of monks-N.test, parsed independently of the module."""
    rows = []
    for line in (data_dir / f"monks-{problem}.test").read_text().splitlines():
        fields = line.split()
        if fields:
            assert len(fields) == 8
            rows.append(tuple(int(v) for v in fields[1:7]) + (int(fields[0]),))
    return rows


# --------------------------------------------------------------------------- #
# tic_tac_toe()
# --------------------------------------------------------------------------- #


def test_tic_tac_toe_counts_and_schema() -> None:
    df = tic_tac_toe()
    assert df.columns == [*SQUARES, "class"]
    assert all(dtype == pl.String for dtype in df.dtypes)
    assert df.height == 958
    assert df.filter(pl.col("class") == "positive").height == 626
    assert df.filter(pl.col("class") == "negative").height == 332
    assert df.is_unique().all()
    values = set(df.select(SQUARES).unpivot()["value"].unique().to_list())
    assert values == {"x", "o", "b"}


def test_tic_tac_toe_boards_are_legal_end_positions() -> None:
    df = tic_tac_toe()
    n_x = pl.sum_horizontal([(pl.col(c) == "x").cast(pl.Int64) for c in SQUARES])
    n_o = pl.sum_horizontal([(pl.col(c) == "o").cast(pl.Int64) for c in SQUARES])
    counts = df.select(n_x.alias("x"), n_o.alias("o"), pl.col("class"))
    # x moves first: x has as many marks as o, or one more.
    assert ((counts["x"] - counts["o"]).is_in([0, 1])).all()
    # x wins on x's move; o's wins and draws leave x with equal / one more mark.
    pos = counts.filter(pl.col("class") == "positive")
    assert ((pos["x"] - pos["o"]) == 1).all()
    # 16 draws (full boards) among the negatives.
    assert counts.filter((pl.col("x") + pl.col("o")) == 9, pl.col("class") == "negative").height == 16


def test_tic_tac_toe_matches_uci_file(data_dir: Path) -> None:
    uci = _read_uci_tic_tac_toe(data_dir)
    generated = tic_tac_toe().rows()
    assert len(uci) == 958
    assert set(generated) == set(uci)
    # The generator also reproduces UCI's row order exactly.
    assert generated == uci


# --------------------------------------------------------------------------- #
# monks()
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize(("problem", "positives"), [(1, 216), (2, 142), (3, 228)])
def test_monks_schema_and_counts(problem: int, positives: int) -> None:
    df = monks(problem)
    assert df.columns == [*MONKS_COLS, "class"]
    assert all(dtype == pl.Int64 for dtype in df.dtypes)
    assert df.height == 432
    assert df.select(MONKS_COLS).is_unique().all()
    assert int(df["class"].sum()) == positives
    assert set(df["class"].unique().to_list()) == {0, 1}


@pytest.mark.parametrize("problem", [1, 2, 3])
def test_monks_matches_test_file(data_dir: Path, problem: int) -> None:
    expected = _read_monks_test(data_dir, problem)
    assert monks(problem).rows() == expected


@pytest.mark.parametrize("bad", [0, 4, -1, "1", 1.5, True, None])
def test_monks_bad_problem(bad: object) -> None:
    with pytest.raises(ValueError, match="1, 2, 3") as info:
        monks(bad)  # type: ignore[arg-type]
    assert repr(bad) in str(info.value)


# --------------------------------------------------------------------------- #
# load_uci()
# --------------------------------------------------------------------------- #


def test_uci_names() -> None:
    assert UCI_NAMES == tuple(EXPECTED)
    assert len(UCI_NAMES) == 11


@pytest.mark.parametrize("name", list(EXPECTED))
def test_load_uci_shape_and_target(data_dir: Path, name: str) -> None:
    rows, positives, n_features = EXPECTED[name]
    df = load_uci(name, data_dir)
    assert df.shape == (rows, n_features + 1)
    assert df.columns[-1] == "class"
    assert df.columns.count("class") == 1
    assert df.schema["class"] == pl.Boolean
    assert df["class"].null_count() == 0
    assert int(df["class"].sum()) == positives


@pytest.mark.parametrize("name", list(EXPECTED))
def test_load_uci_nulls_only_where_documented(data_dir: Path, name: str) -> None:
    df = load_uci(name, data_dir)
    nulls = {c: n for c, n in zip(df.columns, df.null_count().row(0)) if n}
    if name == "mushroom":
        assert nulls == {"stalk_root": 2480}
    elif name == "vote":
        assert sum(nulls.values()) == 392
        assert df.filter(pl.any_horizontal(pl.all().is_null())).height == 203
    else:
        assert nulls == {}
    if name in ("mushroom", "vote"):
        string_cols = [c for c, t in df.schema.items() if t == pl.String]
        assert not df.select(pl.any_horizontal(pl.col(string_cols) == "?")).to_series().any()


@pytest.mark.parametrize("name", list(EXPECTED))
def test_load_uci_feature_dtypes(data_dir: Path, name: str) -> None:
    df = load_uci(name, data_dir)
    features = df.drop("class")
    if name in ("banknote", "wine"):
        expected = pl.Float64
    elif name.startswith("monk-"):
        expected = pl.Int64
    else:
        expected = pl.String
    assert all(dtype == expected for dtype in features.dtypes)


def test_load_uci_column_names(data_dir: Path) -> None:
    assert load_uci("car", data_dir).columns == [
        "buying", "maint", "doors", "persons", "lug_boot", "safety", "class",
    ]
    assert load_uci("banknote", data_dir).columns == [
        "variance", "skewness", "curtosis", "entropy", "class",
    ]
    c4 = load_uci("connect-4", data_dir).columns
    assert c4[:7] == ["a1", "a2", "a3", "a4", "a5", "a6", "b1"]
    assert c4[-2:] == ["g6", "class"]
    assert load_uci("tic-tac-toe", data_dir).columns == [*SQUARES, "class"]
    for k in (1, 2, 3):
        assert load_uci(f"monk-{k}", data_dir).columns == [*MONKS_COLS, "class"]
    kr = load_uci("kr-vs-kp", data_dir).columns
    assert kr[0] == "bkblk" and kr[14] == "katri" and kr[-2] == "wtoeg"
    wine = load_uci("wine", data_dir).columns
    assert wine[0] == "alcohol" and wine[11] == "od280_od315" and wine[12] == "proline"
    mush = load_uci("mushroom", data_dir).columns
    assert mush[0] == "cap_shape" and mush[10] == "stalk_root" and mush[-2] == "habitat"
    vote = load_uci("vote", data_dir).columns
    assert vote[0] == "handicapped_infants"
    assert vote[-2] == "export_administration_act_south_africa"
    for name in UCI_NAMES:
        assert all("-" not in c for c in load_uci(name, data_dir).columns)


def test_load_uci_first_rows(data_dir: Path) -> None:
    """Spot checks that values land in the right columns (class moved from first to last)."""
    wine = load_uci("wine", data_dir).row(0, named=True)
    assert wine["alcohol"] == pytest.approx(14.23)
    assert wine["nonflavanoid_phenols"] == pytest.approx(0.28)
    assert wine["proline"] == pytest.approx(1065.0)
    assert wine["class"] is False  # class 1

    mush = load_uci("mushroom", data_dir).row(0, named=True)
    assert (mush["cap_shape"], mush["habitat"], mush["class"]) == ("x", "u", False)  # "p"

    vote = load_uci("vote", data_dir).row(0, named=True)
    assert vote["class"] is True  # republican
    assert vote["handicapped_infants"] == "n"
    assert vote["immigration"] == "y"
    assert vote["synfuels_corporation_cutback"] is None  # "?" in the file

    bank = load_uci("banknote", data_dir)
    assert bank.row(0) == pytest.approx((3.6216, 8.6661, -2.8073, -0.44699, False))
    assert bank.row(-1) == pytest.approx((-2.5419, -0.65804, 2.6842, 1.1952, True))

    kr = load_uci("kr-vs-kp", data_dir)
    assert kr["class"][-1] is False  # last row "nowin", blank lines skipped

    c4 = load_uci("connect-4", data_dir).row(0, named=True)
    assert (c4["c1"], c4["c2"], c4["d1"], c4["a1"], c4["class"]) == ("x", "o", "x", "b", True)


def test_load_uci_agrees_with_generators(data_dir: Path) -> None:
    ttt = tic_tac_toe().with_columns(pl.col("class") == "positive")
    assert load_uci("tic-tac-toe", data_dir).equals(ttt)
    for k in (1, 2, 3):
        assert load_uci(f"monk-{k}", data_dir).equals(monks(k).with_columns(pl.col("class") == 1))


def test_load_uci_accepts_str_path(data_dir: Path) -> None:
    assert load_uci("car", str(data_dir)).height == 1728


def test_load_uci_bad_name(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="iris") as info:
        load_uci("iris", tmp_path)
    for name in UCI_NAMES:
        assert name in str(info.value)


def test_load_uci_missing_dir(tmp_path: Path) -> None:
    missing = tmp_path / "nope"
    with pytest.raises(FileNotFoundError, match="FINDRS_DATA_DIR") as info:
        load_uci("car", missing)
    assert str(missing) in str(info.value)


def test_load_uci_dir_is_a_file(tmp_path: Path) -> None:
    f = tmp_path / "car.data"
    f.write_text("")
    with pytest.raises(FileNotFoundError, match="not a directory"):
        load_uci("car", f)


def test_load_uci_missing_file(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="FINDRS_DATA_DIR") as info:
        load_uci("wine", tmp_path)
    assert str(tmp_path / "wine.data") in str(info.value)


def test_load_uci_tolerates_crlf_and_blank_lines(tmp_path: Path) -> None:
    (tmp_path / "car.data").write_bytes(
        b"vhigh,vhigh,2,2,small,low,unacc\r\n\r\nlow,low,5more,more,big,high,vgood\r\n\r\n"
    )
    df = load_uci("car", tmp_path)
    assert df.rows() == [
        ("vhigh", "vhigh", "2", "2", "small", "low", True),
        ("low", "low", "5more", "more", "big", "high", False),
    ]
    # No final newline, CRLF (the banknote quirk).
    (tmp_path / "data_banknote_authentication.txt").write_bytes(b"1.5,2,3,-4.25,0\r\n-1,0,0,1,1")
    assert load_uci("banknote", tmp_path).rows() == [(1.5, 2.0, 3.0, -4.25, False), (-1.0, 0.0, 0.0, 1.0, True)]


def test_load_uci_monks_whitespace_runs(tmp_path: Path) -> None:
    (tmp_path / "monks-2.test").write_text(" 1 1 1 1 1 2 2 data_1\n\n  0\t3  3 2 3 4 2   data_432 \n")
    df = load_uci("monk-2", tmp_path)
    assert df.rows() == [(1, 1, 1, 1, 2, 2, True), (3, 3, 2, 3, 4, 2, False)]


@pytest.mark.parametrize(
    "content",
    [
        "x,x,x,o,o,b,b,b,positive\n",  # too few fields
        "x,x,x,o,o,b,b,b,b,b,positive\n",  # too many fields
        "x,x,x,o,o,b,b,b,b,positive\nx,x,x,o,o,b,b,b,positive\n",  # ragged
        "x,x,x,o,o,b,b,b,b,Positive\n",  # unknown label
    ],
)
def test_load_uci_malformed_file(tmp_path: Path, content: str) -> None:
    (tmp_path / "tic-tac-toe.data").write_text(content)
    with pytest.raises(ValueError, match="tic-tac-toe.data"):
        load_uci("tic-tac-toe", tmp_path)


# --------------------------------------------------------------------------- #
# train_test_split()
# --------------------------------------------------------------------------- #


def _indexed(n: int) -> pl.DataFrame:
    return pl.DataFrame({"i": np.arange(n), "y": np.arange(n) % 2 == 0})


@pytest.mark.parametrize(("n", "n_train", "n_test"), [(1372, 686, 686), (435, 217, 218), (178, 89, 89), (1, 1, 0), (0, 0, 0)])
def test_split_sizes_default(n: int, n_train: int, n_test: int) -> None:
    train, test = train_test_split(_indexed(n))
    assert (train.height, test.height) == (n_train, n_test)


def test_split_uses_python_round() -> None:
    # round() is half-to-even: 0.5 * 5 = 2.5 -> 2 test rows, 0.5 * 7 = 3.5 -> 4 test rows.
    assert train_test_split(_indexed(5))[1].height == 2
    assert train_test_split(_indexed(7))[1].height == 4


def test_split_matches_definition_and_is_deterministic() -> None:
    df = _indexed(958)
    train, test = train_test_split(df, test_fraction=0.3, seed=7)
    perm = np.random.default_rng(7).permutation(958)
    n_train = 958 - round(958 * 0.3)
    assert train["i"].to_list() == perm[:n_train].tolist()
    assert test["i"].to_list() == perm[n_train:].tolist()
    again = train_test_split(df, test_fraction=0.3, seed=7)
    assert again[0].equals(train) and again[1].equals(test)
    assert train.columns == test.columns == df.columns
    other, _ = train_test_split(df, test_fraction=0.3, seed=8)
    assert not other.equals(train)


def test_split_seed0_default_is_seed0_fifty_fifty() -> None:
    df = _indexed(100)
    assert train_test_split(df)[0].equals(train_test_split(df, 0.5, 0)[0])
    assert train_test_split(df)[0]["i"].to_list() == np.random.default_rng(0).permutation(100)[:50].tolist()


def test_split_extremes() -> None:
    df = _indexed(10)
    train, test = train_test_split(df, test_fraction=0.0)
    assert (train.height, test.height) == (10, 0)
    train, test = train_test_split(df, test_fraction=1.0)
    assert (train.height, test.height) == (0, 10)


@pytest.mark.parametrize("bad", [-0.1, 1.5, float("nan"), "0.5", None, True])
def test_split_bad_fraction(bad: object) -> None:
    with pytest.raises(ValueError, match="test_fraction"):
        train_test_split(_indexed(10), test_fraction=bad)  # type: ignore[arg-type]


def test_split_rejects_non_dataframe() -> None:
    with pytest.raises(TypeError):
        train_test_split([1, 2, 3])  # type: ignore[arg-type]


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(min_value=0, max_value=300),
    fraction=st.floats(min_value=0.0, max_value=1.0),
    seed=st.integers(min_value=0, max_value=2**32 - 1),
)
def test_split_is_a_partition(n: int, fraction: float, seed: int) -> None:
    train, test = train_test_split(_indexed(n), fraction, seed)
    assert test.height == round(n * fraction)
    both = sorted(train["i"].to_list() + test["i"].to_list())
    assert both == list(range(n))


def test_scripts_without_a_data_dir_say_how_to_get_the_files(monkeypatch, capsys) -> None:
    monkeypatch.delenv("FINDRS_DATA_DIR", raising=False)
    with pytest.raises(SystemExit) as info:
        require_data_dir(None)
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert "FINDRS_DATA_DIR" in err and "--data-dir" in err and "UCI Machine Learning Repository" in err
    for file in UCI_FILES.values():
        assert file in err, file
    assert "Congressional Voting Records" in err and "Tic-Tac-Toe Endgame" in err


def test_scripts_name_the_missing_files(tmp_path: Path, capsys) -> None:
    (tmp_path / "car.data").write_text("vhigh,vhigh,2,2,small,low,unacc\n")
    assert require_data_dir(tmp_path, ["car"]) == tmp_path
    with pytest.raises(SystemExit):
        require_data_dir(tmp_path, ["car", "wine"], extra_files=("monks-1.train",))
    err = capsys.readouterr().err
    assert "lacks wine.data, monks-1.train" in err and how_to_get() in err


def test_ci_checks_every_uci_file() -> None:
    # .ci/run fails early when a UCI file is missing, so the UCI tests never skip in CI.
    ci = (Path(__file__).resolve().parents[1] / ".ci" / "run").read_text()
    for file in UCI_FILES.values():
        assert file in ci, file


def test_split_on_real_data(data_dir: Path) -> None:
    df = load_uci("car", data_dir)
    train, test = train_test_split(df)
    assert (train.height, test.height) == (864, 864)
    assert pl.concat([train, test]).sort(df.columns).equals(df.sort(df.columns))


# --------------------------------------------------------------------------- credit
def test_credit_is_seeded_mixed_and_follows_its_rule_but_for_the_flipped_labels() -> None:
    df = credit()
    assert df.shape == (2000, 7) and credit().equals(df) and not credit(seed=1).equals(df)
    assert df.schema == pl.Schema({"age": pl.Int64, "income": pl.Float64, "debt_ratio": pl.Float64,
                                   "employment": pl.String, "housing": pl.String, "purpose": pl.String,
                                   "default": pl.Boolean})
    assert df["age"].min() >= 18 and df["age"].max() <= 75 and df["debt_ratio"].max() <= 1.2
    rule = ((pl.col("income") < 30) & (pl.col("debt_ratio") >= 0.5)) | (
        (pl.col("employment") == "unemployed") & (pl.col("age") < 35))
    wrong = df.select((rule != pl.col("default")).sum()).item()
    assert wrong == round(2000 * 0.07)  # exactly the flipped labels disagree with the rule
    assert credit(noise=0).select((rule != pl.col("default")).sum()).item() == 0
    assert credit(rows=10).height == 10
    for bad in (dict(rows=0), dict(rows=2.5), dict(noise=0.6), dict(noise="x")):
        with pytest.raises(ValueError):
            credit(**bad)


def test_intervals_find_credits_thresholds() -> None:
    import warnings

    import findrs

    train, test = train_test_split(credit(), seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", findrs.ContradictionWarning)
        model = findrs.fit(train, "default", method="find-rs", random_state=0, max_rules=None, settings=dict(numeric="interval"))
    texts = model.rules["text"].to_list()
    assert any(t.startswith("income < 30.") and "debt_ratio >= 0.49" in t for t in texts), texts
    assert any("employment = unemployed" in t and "age < 3" in t for t in texts), texts
    assert model.score(test) > 0.9
