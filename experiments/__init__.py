"""Reproduction of the experiments of *Bayes Point Rule Set Learning* (Section 5).

Not part of the findrs library (it is not in the wheel). Run it from the repository root:

    python -m experiments --data-dir "$FINDRS_DATA_DIR" --out results/

runs the paper's protocol (Section 5.3) on its 11 UCI datasets: 10 random 50/50 splits (seeds
0..9); FIND-RS, FIND-RS-BO and FIND-RS-BP (T = 100) with the AV and OH encodings; the baselines
CART, LR, RF, SVM (scikit-learn) and RIPPER (wittgenstein) tuned by 5-fold grid search on the
training half with the paper's grids. It writes raw per-split results, Markdown tables shaped
like the paper's Tables 3-6 with the paper's numbers beside ours, and Figure 1
(``pruning_curves.png``). ``--tables-only`` rebuilds the report from the raw files.

Smoke size: ``--splits 1 --datasets tic-tac-toe monk-1 vote --T 10 --baselines cart lr``.

Modules: :mod:`.uci` (the UCI files and where they are), :mod:`.protocol` (datasets, tolerances,
grids, the paper's numbers), :mod:`.raw` (the raw result files), :mod:`.run` (the loop),
:mod:`.baselines` (feature matrices, budgeted grid searches in a worker process), :mod:`.report`
(tables, README, figure).

Needs the ``experiments`` extra: ``pip install ".[experiments]"`` (scikit-learn, wittgenstein,
pandas, matplotlib).

This file imports nothing, so that ``python -m experiments`` can limit the thread pools in
``__main__`` before Polars and NumPy load.
"""

from __future__ import annotations

__all__ = ["main"]


def main(argv: list[str] | None = None) -> int:
    """Runs the command line (see the module docstring); returns the exit status."""
    from .run import main as _main

    return _main(argv)
