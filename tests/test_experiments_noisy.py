"""Smoke test of ``python -m experiments.noisy`` (the noisy-data measurements, run from the repo
root) and of its Adult loader and label flipping."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import polars as pl
import pytest

pytest.importorskip("sklearn")
pytest.importorskip("wittgenstein")

ROOT = Path(__file__).resolve().parents[1]


def test_smoke_run_and_report(data_dir: Path, tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "experiments.noisy", "--data-dir", str(data_dir), "--out", str(tmp_path),
         "--datasets", "vote", "monk-1", "--noise", "0", "0.2", "--splits", "1",
         "--methods", "cart", "paper", "findrs", "auto", "findrs-exc"],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    rows = [json.loads(line) for line in (tmp_path / "raw" / "noisy.jsonl").read_text().splitlines()]
    assert len(rows) == 2 * 2 * 5
    assert all(0.0 <= r["acc"] <= 1.0 for r in rows)
    auto = [r for r in rows if r["method"] == "auto"]
    assert all(set(json.loads(r["setting"])) == {"encoding", "tolerance", "min_support", "direction"} for r in auto)
    exc = [r for r in rows if r["method"] == "findrs-exc"]
    assert all("exceptions" in json.loads(r["setting"]) and r["conditions"] > 0 for r in exc)
    text = (tmp_path / "noisy.md").read_text()
    assert "| noise | cart | paper | findrs | findrs-exc | auto |" in text
    # A second run finds everything done and only rewrites the report.
    again = subprocess.run([sys.executable, "-m", "experiments.noisy", "--out", str(tmp_path), "--tables-only"],
                           cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert again.returncode == 0 and (tmp_path / "noisy.md").read_text().splitlines()[4:] == text.splitlines()[4:]


def test_adult_loader(data_dir: Path) -> None:
    from experiments.noisy import load_adult

    if not (data_dir / "adult.data").is_file() or not (data_dir / "adult.test").is_file():
        pytest.skip("adult.data / adult.test are not in FINDRS_DATA_DIR")
    train, test = load_adult(data_dir)
    assert (train.height, test.height) == (32561, 16281)
    assert (int(train["class"].sum()), int(test["class"].sum())) == (7841, 3846)
    # `?` is null: 4,262 cells in adult.data.
    assert sum(train.null_count().row(0)) == 4262
    assert train.schema["age"] == pl.Int64 and train.schema["workclass"] == pl.String


def test_flip_labels_flips_the_share_asked_and_is_seeded() -> None:
    from experiments.noisy import flip_labels

    df = pl.DataFrame({"a": list(range(200)), "class": [i % 3 == 0 for i in range(200)]})
    flipped = flip_labels(df, 0.1, seed=4)
    changed = (flipped["class"] != df["class"]).to_numpy()
    assert changed.sum() == 20
    assert np.array_equal(changed, (flip_labels(df, 0.1, seed=4)["class"] != df["class"]).to_numpy())
    assert flip_labels(df, 0.0, seed=4).equals(df)
