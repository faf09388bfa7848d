"""The default fit under variants of its cost settings, seed by seed: the script behind the
Adult and connect-4 tables of ``results/defaults-time.md``.

    python -m experiments.default_variants --data-dir "$FINDRS_DATA_DIR" adult minrows3000-best200000 0 1 2 3 4 5
    python -m experiments.default_variants --data-dir "$FINDRS_DATA_DIR" connect-4 best2000000 0 1 2 --noise 0.1

A mode is a ``-``-joined list of ``minrowsN`` (``findrs.select.halving.MIN_ROWS``; ``nohalv`` turns
halving off), ``keepN`` (``MIN_KEEP``), ``factorN`` (``FACTOR``) and ``bestN``
(``findrs.select.params.BEST_OF_ROW_RUNS``) and ``cvrowsN`` (``CV_ROWS_LARGE``, the sample of
frames of more than 16,000 rows) and ``racezN`` (``findrs.select.halving.RACE_Z``; ``racez1000`` keeps
every encoding). One line per seed: the model kind, wall and CPU
seconds, test accuracy (Adult: adult.test; else the seed's other half), the chosen candidate's
cross-validated accuracy, and the chosen settings.
"""

from __future__ import annotations

import argparse
import importlib
import re
import time
import warnings
from typing import Any

from experiments.noisy import split
from experiments.small import model_size
from experiments.uci import require_data_dir


def set_constant(spec: str) -> tuple[Any, str, Any]:
    """``module.ATTR=value``: sets the module constant (the value converted to its type) and
    returns (module, ATTR, the old value), to set it back.

    Example:
        >>> m, attr, old = set_constant("findrs.select.halving.MIN_ROWS=5")
        >>> m.MIN_ROWS, setattr(m, attr, old)
        (5, None)
    """
    path, value = spec.split("=", 1)
    mod, attr = path.rsplit(".", 1)
    m = importlib.import_module(mod)
    old = getattr(m, attr)
    setattr(m, attr, type(old)(value))
    return m, attr, old


MODE_CONSTANTS = {"minrows": "findrs.select.halving.MIN_ROWS", "keep": "findrs.select.halving.MIN_KEEP",
                  "factor": "findrs.select.halving.FACTOR", "best": "findrs.select.params.BEST_OF_ROW_RUNS",
                  "cvrows": "findrs.select.params.CV_ROWS_LARGE", "racez": "findrs.select.halving.RACE_Z"}


def apply(mode: str) -> None:
    """Sets the module constants a mode names (see the module docstring)."""
    if "nohalv" in mode:
        set_constant(f"{MODE_CONSTANTS['minrows']}={10**12}")
    for key, path in MODE_CONSTANTS.items():
        m = re.search(key + r"(\d+)", mode)
        if m:
            set_constant(f"{path}={m.group(1)}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir")
    ap.add_argument("--noise", type=float, default=0.0)
    ap.add_argument("dataset")
    ap.add_argument("mode")
    ap.add_argument("seeds", nargs="+", type=int)
    args = ap.parse_args(argv)
    data_dir = require_data_dir(args.data_dir)
    import findrs

    apply(args.mode)
    warnings.simplefilter("ignore")
    for seed in args.seeds:
        train, test = split(args.dataset, data_dir, seed, args.noise)
        t, c = time.perf_counter(), time.process_time()
        m = findrs.fit(train, "class", True, random_state=seed)
        wall, cpu = time.perf_counter() - t, time.process_time() - c
        rec = m._cv
        ch = rec["candidates"][rec["chosen"]]
        keys = ("method", "encoding", "tolerance", "min_support", "direction", "simplify", "bin_edges", "numeric",
                "best_of", "run")
        print(args.mode, args.noise, seed, type(m).__name__, f"wall {wall:.1f} cpu {cpu:.1f} acc {m.score(test):.4f}",
              f"cv {sum(ch['correct']) / sum(ch['rows']):.4f}", "size", model_size(m) if m.rules is not None else None, {k: m.params.get(k) for k in keys}, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
