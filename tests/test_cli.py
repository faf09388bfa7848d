"""The findrs command line (findrs.cli.main run in-process on temporary files)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import polars as pl
import pytest

import findrs
from findrs import RuleSetModel
from findrs.cli import build_parser, main
from findrs.datasets import tic_tac_toe, train_test_split
from findrs.data.encode import encode_frame


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("cli")
    train, test = train_test_split(tic_tac_toe())
    paths = {"train": d / "train.csv", "test": d / "test.csv", "test_pq": d / "test.parquet", "dir": d}
    train.write_csv(paths["train"])
    test.write_csv(paths["test"])
    test.drop("class").write_parquet(paths["test_pq"])
    return paths


def _fit(files, capsys, *extra: str, name: str = "model.json") -> tuple[Path, str]:
    out = files["dir"] / name
    code = main(["fit", str(files["train"]), "--target", "class", *extra, "-o", str(out)])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return out, captured.out


def test_fit_prints_the_model_and_saves_it(files, capsys) -> None:
    path, out = _fit(files, capsys, "--positive", "positive", "--random-state", "0")
    assert "FIND-RS (AV, tolerance 0): class = 'positive'" in out
    assert out.count("top_left = x and top_middle = x and top_right = x") == 1
    assert f"model saved to {path}" in out
    model = RuleSetModel.from_json(path)
    assert model.method == "find-rs" and model.n_rules == 8 and model.random_state == 0
    train = pl.read_csv(files["train"])
    direct = findrs.fit(train, "class", "positive", random_state=0, auto=False)
    assert json.loads(model.to_json())["model"] == json.loads(direct.to_json())["model"]


@pytest.mark.parametrize(
    "args, method, encoding",
    [
        (["--paper", "--method", "bo", "--encoding", "oh", "--T", "7", "--random-state", "3"], "bo", "oh"),
        (["--paper", "--method", "bp", "-T", "9", "--n-rules", "all", "--random-state", "1", "--tolerance", "1"], "bp", "av"),
        (["--paper", "--method", "bp", "--T", "5", "--n-rules", "3", "--random-state", "1", "--n-jobs", "1"], "bp", "av"),
        (["--paper", "--method", "bp", "--T", "6", "--random-state", "2", "--simplify", "--max-rules", "2"], "bp", "av"),
    ],
)
def test_fit_options_reach_the_model(files, capsys, args, method, encoding) -> None:
    path, _ = _fit(files, capsys, *args, name=f"{method}-{len(args)}.json")
    model = RuleSetModel.from_json(path)
    assert (model.method, model.encoding) == (method, encoding)
    assert model.T == int(args[args.index("--T" if "--T" in args else "-T") + 1])
    if "--n-rules" in args:
        k = args[args.index("--n-rules") + 1]
        assert model.n_rules == (model.n_rules_found if k == "all" else int(k))
    if "--tolerance" in args:
        assert model.params["tolerance"] == 1
    assert model.params["simplify"] == ("--simplify" in args)
    if "--max-rules" in args:
        assert model.params["max_rules"] == 2 and model.n_rules <= 2
    # Default positive with two labels: the greater one.
    assert model.positive == "positive"


def test_fit_features_and_typed_positive(tmp_path, capsys) -> None:
    df = findrs.datasets.monks(2)
    csv = tmp_path / "monks.csv"
    df.write_csv(csv)
    out = tmp_path / "m.json"
    assert main(["fit", str(csv), "--target", "class", "--positive", "0", "--features", "a1, a2,a5", "-o", str(out)]) == 0
    capsys.readouterr()
    model = RuleSetModel.from_json(out)
    assert model.features == ["a1", "a2", "a5"]
    assert model.positive == 0 and model.target.negative == 1  # parsed as the Int64 target's type


def test_predict_to_parquet_and_csv(files, capsys) -> None:
    path, _ = _fit(files, capsys, "--method", "bp", "--T", "10", "--random-state", "0", name="bp.json")
    model = RuleSetModel.from_json(path)
    test = pl.read_parquet(files["test_pq"])
    expected = model.predict(test)

    out_pq = files["dir"] / "pred.parquet"
    assert main(["predict", str(path), str(files["test_pq"]), "-o", str(out_pq)]) == 0
    assert f"written to {out_pq}" in capsys.readouterr().out
    got = pl.read_parquet(out_pq)
    assert got.columns == [*test.columns, "class_predicted"]
    assert got["class_predicted"].to_list() == expected.to_list()
    assert got.drop("class_predicted").equals(test)

    out_csv = files["dir"] / "pred.csv"
    assert main(["predict", str(path), str(files["test"]), "-o", str(out_csv)]) == 0
    capsys.readouterr()
    got = pl.read_csv(out_csv)
    assert got.columns[-1] == "class_predicted"
    assert got["class_predicted"].to_list() == expected.to_list()  # same rows as the parquet file

    assert main(["predict", str(path), str(files["test_pq"]), "-o", "-"]) == 0
    text = capsys.readouterr().out
    lines = text.splitlines()
    assert lines[0].endswith(",class_predicted") and len(lines) == test.height + 1
    assert [line.rsplit(",", 1)[1] for line in lines[1:]] == expected.to_list()


def test_predict_reads_csv_columns_as_the_model_saw_them(tmp_path, capsys) -> None:
    # A column that holds only integers in the new file was a string column at fit time.
    train = pl.DataFrame({"a": ["1", "2", "x", "1", "2", "x"], "y": [1, 0, 0, 1, 0, 0]})
    train.write_csv(tmp_path / "train.csv")
    pl.DataFrame({"a": [1, 2, 2]}).write_csv(tmp_path / "new.csv")
    assert main(["fit", str(tmp_path / "train.csv"), "--target", "y", "-o", str(tmp_path / "m.json")]) == 0
    assert main(["predict", str(tmp_path / "m.json"), str(tmp_path / "new.csv"), "-o", "-"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[-3:] == ["1,1", "2,0", "2,0"]


def _reference_fired(model: RuleSetModel, df: pl.DataFrame) -> list[list[int]]:
    """docs/semantics.md §2 coverage of each voting rule, row by row (plain Python)."""
    codes = [c.tolist() for c in encode_frame(df, model.encoders)]
    v = model.vote
    rules = [[(c.feature, list(c.codes)) for c in v.rule(j)] for j in range(len(v.rules))]
    out = []
    for i in range(df.height):
        fired = []
        for j, rule in enumerate(rules):
            ok = True
            for f, allowed in rule:
                c = codes[f][i]
                unseen = c == model.encoders[f].domain_size
                ok &= (len(allowed) >= 2) if unseen else (c in allowed)
            if ok:
                fired.append(j)
        out.append(fired)
    return out


@pytest.mark.parametrize("method", ["find-rs", "bo", "bp"])
def test_explain_table_is_spec2_coverage(method) -> None:
    # What `findrs explain` prints comes from model.explain; check it against semantics §2 directly.
    train, test = train_test_split(tic_tac_toe())
    model = findrs.fit(train, "class", "positive", method=method, random_state=0, auto=False, settings=dict(encoding="oh", T=10))
    test = test.with_columns(pl.when(pl.int_range(pl.len()) % 7 == 0).then(pl.lit("?")).otherwise(pl.col("top_left")).alias("top_left"))
    table = model.explain(test)
    assert table["class_predicted"].to_list() == model.predict(test).to_list()
    assert table["fired_rules"].to_list() == _reference_fired(model, test)
    decision = table["class_decision"].to_numpy()
    assert ((decision > 0) == model.predict(test, labels=False).to_numpy()).all()
    texts = model.rules["text"].to_list()
    assert table["fired_texts"].to_list() == [[texts[i] for i in ids] for ids in table["fired_rules"].to_list()]


def test_explain_prints_each_row(files, capsys) -> None:
    path, _ = _fit(files, capsys, "--method", "bo", "--encoding", "oh", "--T", "10", "--random-state", "0", name="bo.json")
    model = RuleSetModel.from_json(path)
    test = pl.read_csv(files["test"])
    assert main(["explain", str(path), str(files["test"]), "--top", "2"]) == 0
    out = capsys.readouterr().out
    heads = re.findall(r"^row (\d+): class = '(\w+)'  decision ([+-]\d\.\d{4})$", out, flags=re.M)
    assert [int(h[0]) for h in heads] == list(range(test.height))
    assert [h[1] for h in heads] == model.predict(test).to_list()
    fired = _reference_fired(model, test)
    blocks = re.split(r"^row \d+:.*$", out, flags=re.M)[1:]
    weights = model.rules["weight"].to_list()
    why = model.explain(test)
    for ids, block, near, failed in zip(fired, blocks, why["nearest_rule"], why["failed_conditions"]):
        # docs/semantics.md §6: a row predicted negative says its nearest rule and what it fails.
        if near is None:
            assert "nearest rule" not in block
        else:
            assert f"  nearest rule #{near} fails: {'; '.join(failed)}\n" in block
        if not ids:
            assert "no voting rule fires" in block
            continue
        assert f"{len(ids)} of {model.n_rules} voting rules fire" in block
        shown = [int(m) for m in re.findall(r"^    #(\d+)  weight", block, flags=re.M)]
        assert shown == ids[:2]
        for rid in shown:
            assert f"#{rid}  weight {weights[rid]}  " in block
        if len(ids) > 2:
            assert f"... and {len(ids) - 2} more" in block


def test_rules_prints_model_and_table(files, capsys) -> None:
    path, _ = _fit(files, capsys, "--method", "bp", "--T", "10", "--n-rules", "5", "--random-state", "0", name="bp5.json")
    model = RuleSetModel.from_json(path)
    assert main(["rules", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(str(model))
    lines = out[len(str(model)) :].strip().splitlines()
    assert lines[0].split() == ["id", "weight", "votes", "train_pos", "train_neg", "rule"]
    rows = lines[1:]
    assert len(rows) == model.n_rules_found
    for row, rule in zip(rows, model.rules.iter_rows(named=True)):
        parts = row.split(None, 5)
        assert parts[:5] == [str(rule["id"]), str(rule["weight"]), "yes" if rule["kept"] else "no",
                             str(rule["train_positives"]), str(rule["train_negatives"])]
        assert parts[5] == rule["text"]


def _error(capsys, argv: list[str]) -> str:
    code = main(argv)
    captured = capsys.readouterr()
    assert code == 2
    assert captured.err.startswith("findrs: error: ") and captured.err.count("\n") == 1, captured.err
    assert "Traceback" not in captured.err
    return captured.err


def test_errors_exit_2_with_one_line(files, capsys, tmp_path) -> None:
    model, _ = _fit(files, capsys, name="err.json")
    assert "not found" in _error(capsys, ["rules", str(tmp_path / "missing.json")])
    assert "not found" in _error(capsys, ["predict", str(model), str(tmp_path / "missing.csv")])
    assert "not found" in _error(capsys, ["fit", str(tmp_path / "missing.csv"), "--target", "class", "-o", str(tmp_path / "m.json")])
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert "not a findrs model" in _error(capsys, ["explain", str(bad), str(files["test"])])
    bad.write_text(json.dumps({"format": "findrs-model", "version": 1, "method": "bp"}))
    assert "missing or has a malformed field" in _error(capsys, ["rules", str(bad)])
    # A feature column missing from the data.
    pl.read_csv(files["test"]).drop("middle_middle").write_csv(tmp_path / "short.csv")
    assert "'middle_middle'" in _error(capsys, ["predict", str(model), str(tmp_path / "short.csv"), "-o", "-"])
    assert "'middle_middle'" in _error(capsys, ["explain", str(model), str(tmp_path / "short.csv")])
    # Bad target, bad positive label, bad feature list, unknown formats, unwritable output.
    assert "'nope'" in _error(capsys, ["fit", str(files["train"]), "--target", "nope", "-o", str(tmp_path / "m.json")])
    assert "positive label 'maybe'" in _error(capsys, ["fit", str(files["train"]), "--target", "class", "--positive", "maybe", "-o", str(tmp_path / "m.json")])
    assert "['zz']" in _error(capsys, ["fit", str(files["train"]), "--target", "class", "--features", "zz", "-o", str(tmp_path / "m.json")])
    (tmp_path / "data.xlsx").write_text("x")
    assert "extension" in _error(capsys, ["fit", str(tmp_path / "data.xlsx"), "--target", "class", "-o", str(tmp_path / "m.json")])
    assert "extension" in _error(capsys, ["predict", str(model), str(files["test"]), "-o", str(tmp_path / "out.txt")])
    assert _error(capsys, ["predict", str(model), str(files["test"]), "-o", str(tmp_path / "no" / "dir" / "out.csv")])
    # A file that is not what its extension says.
    (tmp_path / "fake.parquet").write_text("not parquet")
    assert _error(capsys, ["predict", str(model), str(tmp_path / "fake.parquet")])
    # An integer target given a non-integer --positive.
    findrs.datasets.monks(2).write_csv(tmp_path / "monks.csv")
    assert "not a value of target column 'class'" in _error(capsys, ["fit", str(tmp_path / "monks.csv"), "--target", "class", "--positive", "yes", "-o", str(tmp_path / "m.json")])


def test_usage_errors_exit_2(capsys) -> None:
    with pytest.raises(SystemExit) as e:
        main(["fit", "data.csv"])  # --target and -o are required
    assert e.value.code == 2
    assert "required" in capsys.readouterr().err
    with pytest.raises(SystemExit) as e:
        main(["fit", "data.csv", "--target", "y", "--n-rules", "many", "-o", "m.json"])
    assert e.value.code == 2


def test_help_has_examples(capsys) -> None:
    parser = build_parser()
    for command in ("fit", "predict", "explain", "rules"):
        with pytest.raises(SystemExit) as e:
            parser.parse_args([command, "--help"])
        assert e.value.code == 0
        text = capsys.readouterr().out
        assert "examples:" in text and f"findrs {command} " in text


def test_demo_is_unchanged(capsys) -> None:
    assert main(["demo"]) == 0
    out = capsys.readouterr().out
    assert "test accuracy: 1.0000" in out and out.count(" = x and ") == 16


def test_model_paths_that_look_like_json(files, capsys, tmp_path, monkeypatch) -> None:
    # RuleSetModel.from_json("t...") would read a str starting with t/f/n/digit as JSON text.
    path, _ = _fit(files, capsys, name="plain.json")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "tmodel.json").write_text(path.read_text())
    assert main(["rules", "tmodel.json"]) == 0
    assert "FIND-RS" in capsys.readouterr().out
