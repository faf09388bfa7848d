"""Shared pytest fixtures for the findrs test suite."""

from __future__ import annotations

from pathlib import Path

import pytest

from experiments.uci import ENV_VAR, data_dir_from, how_to_get


@pytest.fixture(scope="session")
def data_dir() -> Path:
    """Directory holding the UCI files, from the ``FINDRS_DATA_DIR`` environment variable.

    Tests that use this fixture are skipped, with a reason that says how to get the files, when
    the variable is not set (CI sets it and checks the files first, so they always run there); a
    variable naming no directory is an error, not a skip.
    """
    path = data_dir_from(None)
    if path is None:
        pytest.skip(f"{ENV_VAR} is not set; {how_to_get(then=f'then run {ENV_VAR}=DIR pytest')}")
    if not path.is_dir():
        pytest.fail(f"{ENV_VAR}={str(path)!r} is not a directory; {how_to_get(then=f'then run {ENV_VAR}=DIR pytest')}",
                    pytrace=False)
    return path
