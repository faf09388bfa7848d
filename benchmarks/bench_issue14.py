"""The table of issue 14 ("faster where users wait"), every row it can regenerate, in one run.

    python benchmarks/bench_issue14.py [--data-dir DIR] [--cold-build] [--fit-only]

The UCI files (connect-4.data, adult.data, adult.test) come from ``--data-dir DIR`` or the
``FINDRS_DATA_DIR`` environment variable. Rows, each with its anchor from the same run:

- connect-4 BP100 fit (paper's settings, seed-0 training half): wall on every core, and CPU
  seconds with ``n_jobs=1``;
- one FIND-RS run against training rows (connect-4 subsamples): seconds per size and the
  exponent of the growth (least squares on log-log);
- ``predict_expr`` at automatic K over connect-4 replicated 30 times in memory (2.03M rows),
  streaming, against casting the 42 string columns to Enum; eager ``model.predict(df)``;
  ``lf.findrs.predict(model)``; all three
  with String, Enum and Categorical inputs (``bench_predict.in_memory``);
- BO and BP of the same data: ``method="bo+bp"`` (one set of runs) against two fits;
- Adult BP100 fit (AV and OH, paper's settings, ``adult.data``): wall on every core and the
  CPU seconds it took (every thread's: the machine's load lengthens the wall time more);
- with ``--fit-only``, only the fit rows (connect-4 BP100, the growth of one run, Adult);
- with ``--cold-build``: a cold ``cargo build --release`` of the extension in a new target
  directory (deleted afterwards): wall and CPU minutes (several minutes on 2 cores).
Prints the load average with each row: timings on a shared machine are noisy.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import polars as pl

import findrs
from findrs.datasets import train_test_split

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
from bench_predict import in_memory  # noqa: E402
from experiments.noisy import load_adult  # noqa: E402
from experiments.uci import load_uci, require_data_dir  # noqa: E402


def load() -> str:
    return f"load {os.getloadavg()[0]:.1f}"


def cpu_seconds() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def timed(fn):
    t, c = time.perf_counter(), cpu_seconds()
    out = fn()
    return time.perf_counter() - t, cpu_seconds() - c, out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data-dir", default=None, help="directory with the UCI files (default: $FINDRS_DATA_DIR)")
    ap.add_argument("--cold-build", action="store_true", help="also time a cold cargo build of the extension")
    ap.add_argument("--repeat", type=int, default=3, help="repeats of the prediction timings (best kept)")
    ap.add_argument("--fit-only", action="store_true",
                    help="only the fit rows: connect-4 BP100, the growth of one run, Adult BP100")
    args = ap.parse_args()
    data_dir = require_data_dir(args.data_dir, ["connect-4"], extra_files=("adult.data", "adult.test"))
    print(f"findrs issue 14 table; polars {pl.__version__}, {os.cpu_count()} cores, {load()}\n")

    c4 = load_uci("connect-4", data_dir)
    train, _ = train_test_split(c4, 0.5, 0)
    bp = dict(method="bp", T=100, random_state=0, auto=False)
    wall, _, model = timed(lambda: findrs.fit(train, "class", **findrs.settings.fit_keywords(dict(**bp))))
    wall1, cpu1, _ = timed(lambda: findrs.fit(train, "class", **findrs.settings.fit_keywords(dict(n_jobs=1, **bp))))
    print(f"connect-4 BP100 fit ({train.height:,} rows): {wall:.2f} s wall on {os.cpu_count()} cores; "
          f"{cpu1:.1f} CPU-s with n_jobs=1 ({wall1:.1f} s wall); {load()}")

    sizes, secs = [], []
    for n in (4000, 8000, 17000, 34000, c4.height):
        sub = c4.sample(n, seed=0) if n < c4.height else c4
        t, _, _ = timed(lambda: findrs.fit(sub, "class", method="find-rs", random_state=0, auto=False))
        sizes.append(n)
        secs.append(t)
    slope = np.polyfit(np.log(sizes), np.log(secs), 1)[0]
    print("one FIND-RS run: " + ", ".join(f"{n:,} rows {t:.2f} s" for n, t in zip(sizes, secs))
          + f"; time grows as rows^{slope:.2f}; {load()}")

    if not args.fit_only:
        in_memory(model, c4.drop("class"), 30, args.repeat)
        bo_and_bp(train, wall)
    adult, _ = load_adult(Path(data_dir))
    for encoding in ("av", "oh"):
        t, cpu, m = timed(lambda: findrs.fit(adult, "class", **findrs.settings.fit_keywords(dict(**bp, settings=dict(encoding=encoding)))))
        print(f"Adult BP100 fit ({adult.height:,} rows), {encoding.upper()}: {t:.2f} s wall on {os.cpu_count()} cores "
              f"({cpu:.1f} CPU-s), {m.n_rules:,} voting rules; {load()}")
    if args.cold_build:
        cold_build()
    return 0


def bo_and_bp(train: pl.DataFrame, wall: float) -> None:
    t_pair, _, _ = timed(lambda: findrs.fit(train, "class", method="bo+bp", random_state=0, auto=False, settings=dict(T=100)))
    t_bo, _, _ = timed(lambda: findrs.fit(train, "class", method="bo", random_state=0, auto=False, settings=dict(T=100)))
    print(f"\nBO and BP of connect-4: method='bo+bp' {t_pair:.2f} s; separate fits {t_bo + wall:.2f} s "
          f"(BO {t_bo:.2f} + BP {wall:.2f}); {load()}")


def cold_build() -> None:
    target = Path(tempfile.mkdtemp(prefix="findrs-cold-"))
    env = {**os.environ, "CARGO_TARGET_DIR": str(target), "PYO3_PYTHON": sys.executable}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(["cargo", "build", "--release", "-p", "findrs-python"], cwd=ROOT, env=env, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    shutil.rmtree(target, ignore_errors=True)
    print(f"cold cargo build --release of the extension: {wall / 60:.1f} min wall, {cpu / 60:.1f} CPU-min; {load()}")


if __name__ == "__main__":
    sys.exit(main())
