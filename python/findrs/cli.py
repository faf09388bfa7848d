"""The ``findrs`` command line.

``findrs demo`` fits FIND-RS on the built-in tic-tac-toe endgames (a seed-0 50/50 split) and
prints the rules (the 8 winning lines for x) and the test accuracy; no download needed.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Sequence

from . import datasets
from .learn import fit

_EXAMPLES = """examples:
  findrs demo                 FIND-RS on tic-tac-toe, rules and test accuracy
  findrs demo --method bp     the same with FIND-RS-BP (T=100)
"""


def _demo(args: argparse.Namespace) -> int:
    df = datasets.tic_tac_toe()
    train, test = datasets.train_test_split(df, test_fraction=0.5, seed=0)
    start = time.perf_counter()
    model = fit(train, "class", "positive", method=args.method, encoding=args.encoding, random_state=args.seed)
    elapsed = time.perf_counter() - start
    print(f"tic-tac-toe endgames: {train.height} training rows, {test.height} test rows (seed-0 50/50 split)")
    print(model)
    print(f"test accuracy: {model.score(test):.4f}   fit time: {elapsed * 1e3:.1f} ms")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="findrs",
        description="Learn readable rule sets (FIND-RS, FIND-RS-BO, FIND-RS-BP) from tables.",
        epilog=_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="command", required=True)
    demo = sub.add_parser("demo", help="fit on the built-in tic-tac-toe data and print the rules")
    demo.add_argument("--method", choices=["find-rs", "bo", "bp"], default="find-rs")
    demo.add_argument("--encoding", choices=["av", "oh"], default="av")
    demo.add_argument("--seed", type=int, default=0, help="random_state of the fit (default 0)")
    demo.set_defaults(run=_demo)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``findrs`` command."""
    args = build_parser().parse_args(argv)
    return int(args.run(args))


if __name__ == "__main__":
    sys.exit(main())
