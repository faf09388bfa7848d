"""Shared pytest fixtures for the findrs test suite."""

from __future__ import annotations

import os
from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def data_dir() -> Path:
    """Directory holding the offline UCI files (``shared/datasets`` next to the repo).

    Defaults to ``<repo>/../shared/datasets``; set ``FINDRS_DATA_DIR`` to override.
    Tests that use this fixture are skipped when the directory is absent.
    """
    override = os.environ.get("FINDRS_DATA_DIR")
    path = Path(override) if override else Path(__file__).resolve().parents[2] / "shared" / "datasets"
    if not path.is_dir():
        source = "FINDRS_DATA_DIR" if override else "default location"
        pytest.skip(f"UCI data directory not found: {path} ({source}); set FINDRS_DATA_DIR to enable")
    return path
