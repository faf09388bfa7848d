"""The oldest Python polars findrs runs on, checked when findrs is imported.

Invariant: :data:`POLARS_FLOOR` is pyproject.toml's ``polars>=`` bound (tests/test_polars_floor.py
checks it), the lowest polars the whole test suite passes on; on an older polars some findrs
queries compute instead of failing or Polars panics, so findrs refuses to import there rather
than risk a wrong answer.
"""

from __future__ import annotations

import re

POLARS_FLOOR = (1, 38, 1)
"""The lowest supported polars version, as ``(major, minor, patch)``."""


def check_polars(version: str) -> None:
    """Refuse a polars ``version`` older than :data:`POLARS_FLOOR` (a pre-release of the floor
    counts as older). A version string without ``major.minor.patch`` (a source build) passes.

    Example:
        >>> check_polars("2.1.0")
        >>> check_polars("1.25.2")
        Traceback (most recent call last):
        ...
        ImportError: findrs needs polars >= 1.38.1, but polars 1.25.2 is installed: ...

    Raises:
        ImportError: ``version`` is older than the floor; the message says how to upgrade.
    """
    m = re.match(r"(\d+)\.(\d+)\.(\d+)", version)
    if m is None:
        return
    found = tuple(int(g) for g in m.groups())
    prerelease = version[m.end():] != "" and not version[m.end():].startswith("+")
    if found < POLARS_FLOOR or (found == POLARS_FLOOR and prerelease):
        floor = ".".join(map(str, POLARS_FLOOR))
        raise ImportError(
            f"findrs needs polars >= {floor}, but polars {version} is installed: older versions "
            f"get some findrs queries wrong instead of failing (docs/development.md, 'Supported Polars versions'). Upgrade it: "
            f"pip install -U 'polars>={floor}'"
        )
