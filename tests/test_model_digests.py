"""Every model of the fixture fits is byte-identical to the committed digests.

``tests/data/model_digests.txt`` holds the SHA-256 of ``model.to_json()`` for the fits of
``benchmarks/model_digests.py --quick``, ``--defaults`` and ``--kinds``: the paper's settings on
the 11 UCI data sets and Adult, 48 default fits on noisy small sets, and one fit of each model
kind (rules with exceptions, multiclass, bagged, a BO+BP pair, a rule budget). A change that is
meant to leave every model as it is (a refactor, a speed-up) must leave every line; a change
meant to alter models regenerates the fixture and says why in its commit:

    python benchmarks/model_digests.py --quick > q; python benchmarks/model_digests.py --defaults > d
    python benchmarks/model_digests.py --kinds > k   # then rebuild the fixture's three sections

The fits take about a minute on one core.
"""

from __future__ import annotations

import contextlib
import io
import sys
import warnings
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "tests" / "data" / "model_digests.txt"
sys.path.insert(0, str(ROOT / "benchmarks"))


def _sections() -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    current = None
    for line in FIXTURE.read_text().splitlines():
        if line.startswith("# --"):
            current = line[2:]
            out[current] = []
        elif line.strip():
            assert current is not None, "the fixture starts with a '# --mode' header"
            out[current].append(line)
    return out


def _lines(mode: str, data_dir: Path) -> list[str]:
    import model_digests

    argv = sys.argv
    sys.argv = ["model_digests.py", mode, "--data-dir", str(data_dir)]
    buf = io.StringIO()
    try:
        with contextlib.redirect_stdout(buf), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert model_digests.main() == 0
    finally:
        sys.argv = argv
    return buf.getvalue().splitlines()


def test_the_fixture_has_the_three_sections() -> None:
    sections = _sections()
    assert list(sections) == ["--quick", "--defaults", "--kinds"]
    assert len(sections["--quick"]) > 100 and len(sections["--defaults"]) == 48
    kinds = " ".join(sections["--kinds"])
    for kind in ("ExceptionsModel", "BaggedModel", "RuleSetModel"):
        assert kind in kinds


@pytest.mark.parametrize("mode", ["--quick", "--defaults", "--kinds"])
def test_models_are_byte_identical_to_the_fixture(mode: str, data_dir: Path) -> None:
    want = _sections()[mode]
    got = _lines(mode, data_dir)
    changed = [f"- {w}\n+ {g}" for w, g in zip(want, got) if w != g]
    assert len(got) == len(want), f"{mode}: {len(got)} fits, the fixture has {len(want)}"
    assert not changed, f"{mode}: {len(changed)} models changed:\n" + "\n".join(changed[:10])
