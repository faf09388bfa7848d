"""``python -m findrs.experiments``: see :mod:`findrs.experiments`."""

from __future__ import annotations

import os
import sys

# One core: every library in this process and in the baseline worker starts single-threaded.
# Polars and OpenBLAS read these variables only when they are loaded, which ``python -m`` has
# already done (it imports the ``findrs`` package first), so the process re-executes itself once
# with them set.
_THREAD_VARS = ("POLARS_MAX_THREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "RAYON_NUM_THREADS")

if __name__ == "__main__":
    if any(os.environ.get(v) != "1" for v in _THREAD_VARS) and not os.environ.get("FINDRS_EXPERIMENTS_NO_REEXEC"):
        env = {**os.environ, **{v: "1" for v in _THREAD_VARS}, "FINDRS_EXPERIMENTS_NO_REEXEC": "1"}
        sys.stdout.flush()
        os.execve(sys.executable, [sys.executable, "-m", "findrs.experiments", *sys.argv[1:]], env)
    from .run import main

    sys.exit(main())
