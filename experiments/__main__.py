"""``python -m experiments`` (from the repository root): see :mod:`experiments`."""

from __future__ import annotations

import os
import sys

# One core: every library in this process and in the baseline worker starts single-threaded.
# Polars and OpenBLAS read these variables when they are loaded; ``python -m experiments`` has
# loaded neither yet (the package's ``__init__`` imports nothing), so setting them here is enough.
# The baseline worker is a spawned process and inherits them.
_THREAD_VARS = ("POLARS_MAX_THREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "RAYON_NUM_THREADS")

if __name__ == "__main__":
    if "polars" in sys.modules or "numpy" in sys.modules:
        print("warning: polars or numpy was loaded before the thread limits were set; "
              "the run may use more than one core", file=sys.stderr)
    os.environ.update({v: "1" for v in _THREAD_VARS})
    from .run import main

    sys.exit(main())
