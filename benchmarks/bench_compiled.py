"""The compiled prediction expression (``model.to_expr()``) eagerly and in lazy queries, beside
its anchor: the same expression with every constraint a test of the feature's code, as findrs
built it before (issue 10 item 15: a 126-rule BO model took 115 s on 400 rows lazily). Also the
plugin (``predict_expr()``) for scale.

Run from the repository root: ``python benchmarks/bench_compiled.py --data-dir DIR`` (the UCI
files; ``FINDRS_DATA_DIR`` otherwise). Prints one row per model and frame size: seconds for
``df.select(expr)`` (eager), ``df.lazy().select(expr).collect()`` (lazy) and the streaming
engine, for the compiled form now, the code-per-constraint anchor, and the plugin. The anchor is
skipped (printed as ``>limit``) where one lazy run already took longer than ``--limit`` seconds.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import polars as pl

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import findrs  # noqa: E402
from experiments.uci import data_dir_from, load_uci  # noqa: E402

MODELS = [("monk-2", "av", 0), ("kr-vs-kp", "av", 0), ("banknote", "oh", 2), ("car", "oh", 0)]


def anchor_expr(model: findrs.RuleSetModel) -> pl.Expr:
    """The compiled mask as built before: each constraint ``code == v`` / ``code.is_in(...)`` on
    the feature's encoder expression, repeated wherever a rule uses the feature."""
    v, encoders = model.vote, model.encoders
    codes = [e.expr() for e in encoders]
    rules = []
    for i in range(len(v.rules)):
        parts = []
        for c in v.rule(i):
            allowed = list(c.codes) + ([encoders[c.feature].domain_size] if c.unseen_passes else [])
            parts.append(codes[c.feature] == allowed[0] if len(allowed) == 1 else codes[c.feature].is_in(allowed))
        rules.append(pl.all_horizontal(parts) if parts else codes[0].is_not_null())
    terms = [pl.any_horizontal([rules[i] for i in g]).cast(pl.UInt64) * w for g, w in zip(v.groups, v.group_weights)]
    return (pl.sum_horizontal(terms) if len(terms) > 1 else terms[0]) > v.threshold


def seconds(f, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        f()
        best = min(best, time.perf_counter() - t)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data-dir", default=None)
    ap.add_argument("--T", type=int, default=10)
    ap.add_argument("--rows", type=int, nargs="+", default=[400, 100_000])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--limit", type=float, default=30.0, help="skip the anchor's further runs above this")
    args = ap.parse_args()
    data_dir = data_dir_from(args.data_dir)
    if data_dir is None:
        sys.exit("pass --data-dir or set FINDRS_DATA_DIR to the UCI files")
    warnings.simplefilter("ignore", findrs.ContradictionWarning)
    print(f"polars {pl.__version__}, BO T = {args.T}, best of {args.repeat}; seconds")
    print(f"{'model':<22} {'rows':>7} | {'compiled eager':>14} {'lazy':>7} {'streaming':>9} | "
          f"{'anchor eager':>12} {'lazy':>7} {'streaming':>9} | {'plugin lazy':>11}")
    for name, encoding, tolerance in MODELS:
        df = load_uci(name, data_dir)
        model = df.findrs.fit("class", method="bo", random_state=0, settings=dict(T=args.T, encoding=encoding, tolerance=tolerance))
        label = f"{name} {encoding.upper()} {model.n_rules} rules"
        ours, anchor, plugin = model.to_expr(), anchor_expr(model), model.predict_expr(labels=False)
        for rows in args.rows:
            frame = pl.concat([df] * (rows // df.height + 1)).head(rows)
            got = frame.select(ours).to_series()
            assert (got == frame.select(anchor).to_series()).all() and (got == frame.select(plugin).to_series()).all()
            row = []
            for expr in (ours, anchor):
                eager = seconds(lambda: frame.select(expr), args.repeat)
                lazy = seconds(lambda: frame.lazy().select(expr).collect(), 1)
                if expr is anchor and lazy > args.limit:
                    row += [eager, lazy, None]
                    continue
                if lazy <= args.limit:
                    lazy = min(lazy, seconds(lambda: frame.lazy().select(expr).collect(), args.repeat - 1))
                stream = seconds(lambda: frame.lazy().select(expr).collect(engine="streaming"), args.repeat)
                row += [eager, lazy, stream]
            row.append(seconds(lambda: frame.lazy().select(plugin).collect(), args.repeat))
            cells = ["   >limit" if x is None else f"{x:.3f}" for x in row]
            print(f"{label:<22} {rows:>7} | {cells[0]:>14} {cells[1]:>7} {cells[2]:>9} | "
                  f"{cells[3]:>12} {cells[4]:>7} {cells[5]:>9} | {cells[6]:>11}", flush=True)


if __name__ == "__main__":
    main()
