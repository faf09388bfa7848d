"""How much memory a fit may take, and the error that names the columns when it needs more.

The core's training structures hold one bit per row and per value of every feature (the row
indexes and slot masks that make coverage word-parallel), so their size is about rows x the
features' total number of values / 4 bytes: a column with 100,000 distinct strings at 100,000
rows needs 2.5 GB. :func:`check_fit_memory` compares the core's exact figure with the memory
available (Linux: ``MemAvailable`` and the cgroup's limit; the address-space limit) and refuses
the fit beforehand; an allocation that still fails is a ``MemoryError`` from the core, never an
abort.

Example:
    >>> available_memory() is None or available_memory() > 0
    True
"""

from __future__ import annotations

import os
import resource
from pathlib import Path
from typing import Sequence

from ..errors import FindRSMemoryError


def _meminfo_available() -> int | None:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def _cgroup_available() -> int | None:
    try:
        limit = Path("/sys/fs/cgroup/memory.max").read_text().strip()
        if limit == "max":
            return None
        used = int(Path("/sys/fs/cgroup/memory.current").read_text().strip())
        return max(int(limit) - used, 0)
    except (OSError, ValueError):
        return None


def _address_space_available() -> int | None:
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    if soft == resource.RLIM_INFINITY:
        return None
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmSize:"):
                return max(soft - int(line.split()[1]) * 1024, 0)
    except (OSError, ValueError, IndexError):
        pass
    return soft


def available_memory() -> int | None:
    """Bytes this process can still allocate (the least of what the machine, its cgroup and
    the address-space limit allow), or ``None`` when none of them is known."""
    if os.environ.get("FINDRS_MEMORY_LIMIT"):
        return int(os.environ["FINDRS_MEMORY_LIMIT"])
    known = [m for m in (_meminfo_available(), _cgroup_available(), _address_space_available()) if m is not None]
    return min(known) if known else None


def _gib(n: int) -> str:
    return f"{n / 2**30:.2f} GiB"


def memory_error(
    needed: int, available: int | None, names: Sequence[str], sizes: Sequence[int], rows: int, failed: str | None = None
) -> FindRSMemoryError:
    """The error for a fit of ``rows`` rows needing ``needed`` bytes, naming the features with
    the most values (``sizes``: each feature's number of training values); ``failed``: the
    core's message when its allocation failed."""
    top = sorted(zip(sizes, names), reverse=True)[:3]
    cols = ", ".join(f"{n!r} ({k:,} values)" for k, n in top)
    if failed is not None:
        have = f" and an allocation failed ({failed})"
    else:
        have = f" but {_gib(available)} is available" if available is not None else ""
    return FindRSMemoryError(
        f"this fit needs about {_gib(needed)} of memory{have}: findrs keeps one bit per row and "
        f"per value of each feature, and {rows:,} rows meet columns with many values: {cols}; "
        f"leave such columns out (features=[...]) or group their values, or fit on fewer rows"
    )


def check_fit_memory(needed: int, names: Sequence[str], sizes: Sequence[int], rows: int) -> None:
    """Raises :class:`FindRSMemoryError` when ``needed`` bytes exceed what is available.

    Raises:
        FindRSMemoryError: naming the columns with the most values and the estimate.
    """
    available = available_memory()
    if available is not None and needed > available:
        raise memory_error(needed, available, names, sizes, rows)
