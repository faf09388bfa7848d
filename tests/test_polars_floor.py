"""The declared polars floor: the lowest polars the whole suite passes on (CI runs the suite on
it), and findrs refuses to import on an older one instead of computing wrong answers there."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

from findrs.polars_floor import POLARS_FLOOR, check_polars

ROOT = Path(__file__).resolve().parent.parent


def test_the_floor_is_the_one_pyproject_declares() -> None:
    declared = re.search(r'"polars>=([0-9.]+)"', (ROOT / "pyproject.toml").read_text()).group(1)
    assert tuple(int(p) for p in declared.split(".")) == POLARS_FLOOR
    # CI's floor step installs exactly that version and runs the whole suite on it.
    ci = (ROOT / ".ci" / "run").read_text()
    assert 'pip install --quiet "polars==$floor" ".[test]"' in ci
    assert re.search(r"^pytest -p no:cacheprovider$", ci, re.M)


@pytest.mark.parametrize("version", ["1.25.2", "1.34.0", "1.37.1", "1.38.0", "1.38.1b1", "1.38.1rc2", "0.20.31"])
def test_an_older_polars_is_refused_with_the_fix(version: str) -> None:
    with pytest.raises(ImportError, match=rf"polars >= 1\.38\.1, but polars {re.escape(version)} is installed"
                                          r".*pip install -U 'polars>=1\.38\.1'"):
        check_polars(version)


@pytest.mark.parametrize("version", ["1.38.1", "1.38.2", "1.44.2", "2.0.0", "2.1.0", "10.0.0", "1.38.1+local", "main"])
def test_the_floor_and_newer_are_accepted(version: str) -> None:
    check_polars(version)


def test_importing_findrs_on_an_older_polars_fails_with_the_message() -> None:
    # The check runs on import, before any query: a polars whose version reads older is refused.
    code = "import polars; polars.__version__ = '1.37.1'; import findrs"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode != 0
    assert "ImportError: findrs needs polars >= 1.38.1, but polars 1.37.1 is installed" in done.stderr


def test_this_polars_is_at_least_the_floor() -> None:
    check_polars(pl.__version__)  # the suite itself runs only on supported versions
