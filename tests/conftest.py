"""Shared pytest fixtures for the findrs test suite."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from hypothesis import settings

from experiments.uci import ENV_VAR, data_dir_from, how_to_get

# The one skip reason of every test that reads the UCI files when FINDRS_DATA_DIR is unset: short,
# and folded into one summary line (pytest_runtest_makereport below); the files to get are in
# docs/development.md.
NO_DATA = f"{ENV_VAR} is not set: the tests on the paper's UCI files are skipped (docs/development.md: how to get them)"

# Hypothesis profiles. "ci", the default (the README's `pytest` and .ci/run load it): every
# property test is derandomized (its examples are fixed, so a run passes or fails the same way
# every time) with the example budget each test declares. "dev": random examples, for finding
# new failures locally (`pytest --hypothesis-profile=dev`). "battery": the long generated-frame
# battery, `pytest tests/test_battery.py --hypothesis-profile=battery` (10,000 cases;
# tests/test_battery.py shares this budget among its tests).
# `--hypothesis-profile` overrides the default.
settings.register_profile("ci", derandomize=True, database=None, deadline=None, print_blob=True)
settings.register_profile("dev", deadline=None, print_blob=True)
# FINDRS_BATTERY_EXAMPLES scales the battery's budget (a shorter long run; the default 10,000).
settings.register_profile("battery", max_examples=int(os.environ.get("FINDRS_BATTERY_EXAMPLES", 10_000)), deadline=None,
                          print_blob=True)
settings.load_profile("ci")


def pytest_terminal_summary(terminalreporter) -> None:
    """The battery's totals (tests/battery_strategies.py), when it ran."""
    strategies = sys.modules.get("battery_strategies")
    if strategies is None or not strategies.TOTALS:
        return
    terminalreporter.section("findrs generated-frame battery")
    for what, n in sorted(strategies.TOTALS.items()):
        terminalreporter.write_line(f"{n:>10,}  {what}")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Every skip for want of the UCI files is reported at one place (this file), so pytest's
    ``-rs`` summary folds them into one line: ``SKIPPED [n] tests/conftest.py: ...``."""
    outcome = yield
    report = outcome.get_result()
    longrepr = report.longrepr
    if report.skipped and isinstance(longrepr, tuple) and len(longrepr) == 3 and NO_DATA in str(longrepr[2]):
        report.longrepr = (__file__, None, longrepr[2])


@pytest.fixture(scope="session")
def data_dir() -> Path:
    """Directory holding the UCI files, from the ``FINDRS_DATA_DIR`` environment variable.

    Tests that use this fixture are skipped, with one short reason (:data:`NO_DATA`), when the
    variable is not set (CI sets it and checks the files first, so they always run there); a
    variable naming no directory is an error, not a skip.
    """
    path = data_dir_from(None)
    if path is None:
        pytest.skip(NO_DATA)
    if not path.is_dir():
        pytest.fail(f"{ENV_VAR}={str(path)!r} is not a directory; {how_to_get(then=f'then run {ENV_VAR}=DIR pytest')}",
                    pytrace=False)
    return path
