"""The default fit under variants of its cost settings, seed by seed: the script behind the
Adult and connect-4 tables of ``results/defaults-time.md``.

    python -m experiments.default_variants --data-dir "$FINDRS_DATA_DIR" adult minrows3000-best200000 0 1 2 3 4 5
    python -m experiments.default_variants --data-dir "$FINDRS_DATA_DIR" connect-4 best2000000 0 1 2 --noise 0.1

A mode is a ``-``-joined list of ``minrowsN`` (``findrs.select.halving.MIN_ROWS``; ``nohalv`` turns
halving off), ``keepN`` (``MIN_KEEP``), ``factorN`` (``FACTOR``) and ``bestN``
(``findrs.select.params.BEST_OF_ROW_RUNS``). One line per seed: the model kind, wall and CPU
seconds, test accuracy (Adult: adult.test; else the seed's other half), the chosen candidate's
cross-validated accuracy, and the chosen settings.
"""

from __future__ import annotations

import argparse
import re
import time
import warnings

from experiments.noisy import split
from experiments.uci import require_data_dir


def apply(mode: str) -> None:
    """Sets the module constants a mode names (see the module docstring)."""
    from findrs.select import halving, params

    if "nohalv" in mode:
        halving.MIN_ROWS = 10**12
    for key, mod, attr in (("minrows", halving, "MIN_ROWS"), ("keep", halving, "MIN_KEEP"),
                           ("factor", halving, "FACTOR"), ("best", params, "BEST_OF_ROW_RUNS")):
        m = re.search(key + r"(\d+)", mode)
        if m:
            setattr(mod, attr, int(m.group(1)))


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
              f"cv {sum(ch['correct']) / sum(ch['rows']):.4f}", {k: m.params.get(k) for k in keys}, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
