"""Runs the paper's protocol and stores one row per (dataset, split, method, encoding, T).

Raw results go to ``<out>/raw/results.csv`` (checkpointed after every split, merged with what is
already there, so separate invocations, e.g. ``--datasets connect-4``, add up), the BP pruning
curves of Figure 1 to ``<out>/raw/pruning_curves.csv``, and what was run where and how long it took
to ``<out>/raw/run_info.json``. The report (``report.py``) is built from these files only.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import platform
import subprocess
import sys
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from .protocol import (
    BASELINE_ENCODINGS,
    BASELINES,
    CV_FOLDS,
    AUTHORS_MONKS,
    DATASETS,
    EXTRA_DATASETS,
    FIGURE1_DATASETS,
    LARGE,
    PAPER_CONNECT4_T,
    TOLERANCE,
)
from .raw import CURVE_COLUMNS, Store, read_curves
from .uci import command_line, load_uci, require_data_dir

# --------------------------------------------------------------------------- #
# Progress
# --------------------------------------------------------------------------- #


class Log:
    def __init__(self) -> None:
        self.start = time.perf_counter()

    def __call__(self, msg: str) -> None:
        el = int(time.perf_counter() - self.start)
        now = _dt.datetime.now().strftime("%H:%M:%S")
        print(f"[{now} +{el // 3600}:{el // 60 % 60:02d}:{el % 60:02d}] {msg}", flush=True)


# --------------------------------------------------------------------------- #
# Data
# --------------------------------------------------------------------------- #


def _read_monks_file(path: Path) -> pl.DataFrame:
    rows = [line.split() for line in path.read_text().splitlines() if line.strip()]
    cols = {f"a{i}": [int(r[i]) for r in rows] for i in range(1, 7)}
    return pl.DataFrame({**cols, "class": [r[0] == "1" for r in rows]})


def load_dataset(name: str, data_dir: Path) -> pl.DataFrame:
    """``load_uci`` for the paper's datasets; the authors' MONK's variant otherwise."""

    if name in AUTHORS_MONKS:
        k = AUTHORS_MONKS[name]
        # As bpllib: pd.read_csv(header=0) drops each file's first line; train then test, concatenated.
        parts = [_read_monks_file(Path(data_dir) / f"monks-{k}.{part}")[1:] for part in ("train", "test")]
        return pl.concat(parts)
    return load_uci(name, data_dir)


# --------------------------------------------------------------------------- #
# The findrs methods
# --------------------------------------------------------------------------- #


def _metrics(y_true: np.ndarray, y_pred: np.ndarray) -> tuple[float, float]:
    from sklearn.metrics import accuracy_score, f1_score

    return float(accuracy_score(y_true, y_pred)), float(f1_score(y_true, y_pred, zero_division=0))


# BO and BP of the same frame and settings share their T runs: one fit (method="bo+bp") gives
# both, exactly the models of separate fits (docs/semantics.md §5.1). The second of the pair is
# served from here; both rows record the pair's fit time.
_PAIRS: dict[tuple[Any, ...], dict[str, Any]] = {}


def _fit(frame: pl.DataFrame, method: str, encoding: str, tau: int, T: int, seed: int, part: str = "train"):
    """The model of ``method`` on ``frame`` and the seconds its fit took; ``part`` names the
    frame (the training half or a fold) so that BO and BP of the same frame share one fit."""
    import findrs

    from findrs import ContradictionWarning

    key = (part, frame.height, encoding, tau, T, seed)
    if method in ("bo", "bp") and key in _PAIRS:
        entry = _PAIRS[key]
        model = entry.pop(method)
        if not {"bo", "bp"} & set(entry):
            del _PAIRS[key]
        return model, entry["seconds"]
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ContradictionWarning)
        # auto=False: the paper's algorithm (the library's default chooses settings by CV).
        fitted = findrs.fit(
            frame, "class", method="bo+bp" if method in ("bo", "bp") else method, random_state=seed,
            n_jobs=1, auto=False, settings=dict(encoding=encoding, tolerance=tau, T=T),
        )
    seconds = time.perf_counter() - t0
    if method not in ("bo", "bp"):
        return fitted, seconds
    other = "bp" if method == "bo" else "bo"
    _PAIRS[key] = {other: getattr(fitted, other), "seconds": seconds}
    return getattr(fitted, method), seconds


def _folds(y: np.ndarray, seed: int) -> list[tuple[np.ndarray, np.ndarray]]:
    from sklearn.model_selection import StratifiedKFold

    return list(StratifiedKFold(n_splits=CV_FOLDS, shuffle=True, random_state=seed).split(np.zeros(len(y)), y))


def run_findrs(ds: str, split: int, train: pl.DataFrame, test: pl.DataFrame, opts: "Options", store: Store,
               curves: dict[str, pl.DataFrame], log: Log) -> None:
    _PAIRS.clear()  # a pair left over (its other half already stored) from an earlier split
    tau = TOLERANCE.get(ds, 0)
    y_tr = train["class"].to_numpy()
    y_te = test["class"].to_numpy()
    do_cv = ds not in LARGE or split < opts.large_splits
    folds = _folds(y_tr, split) if do_cv else []
    runs: list[tuple[str, int, bool]] = [("find-rs", 1, True), ("bo", opts.T, True), ("bp", opts.T, True)]
    if ds in LARGE and opts.paper_t and opts.T != PAPER_CONNECT4_T:
        runs += [("bo", PAPER_CONNECT4_T, False), ("bp", PAPER_CONNECT4_T, False)]
    for enc in ("av", "oh"):
        for method, T, cv_this in runs:
            key = (ds, split, method, enc, T)
            if opts.resume and store.has(key):
                continue
            t0 = time.perf_counter()
            model, fit_s = _fit(train, method, enc, tau, T, split)
            acc, f1 = _metrics(y_te, model.predict(test, labels=False).to_numpy())
            train_acc = float(np.mean(model.predict(train, labels=False).to_numpy() == y_tr))
            cv, select_s, cv_all = None, None, None
            if do_cv and cv_this:
                t1 = time.perf_counter()
                scores, scores_all = [], []
                for f, (tr, va) in enumerate(folds):
                    m, _ = _fit(train[tr], method, enc, tau, T, split, part=f"fold {f}")
                    scores.append(float(np.mean(m.predict(train[va], labels=False).to_numpy() == y_tr[va])))
                    if method == "bp":
                        full = m.with_n_rules(m.n_rules_found)
                        scores_all.append(float(np.mean(full.predict(train[va], labels=False).to_numpy() == y_tr[va])))
                cv, select_s = float(np.mean(scores)), time.perf_counter() - t1
                cv_all = float(np.mean(scores_all)) if scores_all else None
            if method == "bp":
                # The same BP model voting with all its rules (no best-K pruning), as a separate row.
                full = model.with_n_rules(model.n_rules_found)
                acc_all, f1_all = _metrics(y_te, full.predict(test, labels=False).to_numpy())
                store.put({
                    "dataset": ds, "split": split, "method": "bp-all", "encoding": enc, "T": T, "tolerance": tau,
                    "status": "ok", "accuracy": acc_all, "f1": f1_all,
                    "train_accuracy": float(np.mean(full.predict(train, labels=False).to_numpy() == y_tr)),
                    "n_rules": model.n_rules_found, "n_rules_found": model.n_rules_found, "cv_score": cv_all,
                    "fit_seconds": fit_s, "select_seconds": select_s, "seconds": time.perf_counter() - t0,
                    "params": json.dumps({"tolerance": tau, "T": T, "random_state": split, "n_jobs": 1,
                                          "n_rules": None}),
                    "contradictions": model.contradictions, "n_train": train.height, "n_test": test.height,
                })
            store.put({
                "dataset": ds, "split": split, "method": method, "encoding": enc, "T": T, "tolerance": tau,
                "status": "ok", "accuracy": acc, "f1": f1, "train_accuracy": train_acc,
                "n_rules": model.n_rules, "n_rules_found": model.n_rules_found, "cv_score": cv,
                "fit_seconds": fit_s, "select_seconds": select_s, "seconds": time.perf_counter() - t0,
                "params": json.dumps({"tolerance": tau, "T": T, "random_state": split, "n_jobs": 1}),
                "contradictions": model.contradictions, "n_train": train.height, "n_test": test.height,
            })
            name = {"find-rs": "FIND-RS", "bo": f"BO{T}", "bp": f"BP{T}"}[method]
            extra = (f", K={model.n_rules}/{model.n_rules_found} (all rules: acc {acc_all:.3f})" if method == "bp"
                     else f", {model.n_rules_found} rules")
            cvs = f", cv {cv:.3f} ({select_s:.1f} s)" if cv is not None else ""
            log(f"{ds} split {split} {name} {enc.upper()}: acc {acc:.3f} f1 {f1:.3f}{extra} (fit {fit_s:.2f} s{cvs})")
            if method == "bp" and split == 0 and T == opts.T and (ds in FIGURE1_DATASETS or ds in AUTHORS_MONKS):
                curve = model.pruning_curve(train, test)
                curves[f"{ds}/{enc}"] = curve.select(
                    pl.lit(ds).alias("dataset"), pl.lit(split).alias("split"), pl.lit(enc).alias("encoding"),
                    pl.lit(T).alias("T"), pl.lit(tau).alias("tolerance"), pl.col("K").cast(pl.Int64),
                    "train_accuracy", "test_accuracy", pl.lit(model.n_rules).alias("auto_K"),
                ).cast(CURVE_COLUMNS)


# --------------------------------------------------------------------------- #
# The baselines
# --------------------------------------------------------------------------- #


def run_baselines(ds: str, split: int, train: pl.DataFrame, test: pl.DataFrame, opts: "Options", store: Store,
                  worker: Any, log: Log) -> None:
    from .baselines import build_data, task_inputs

    data = None
    for name in opts.baselines:
        encs = BASELINE_ENCODINGS[name]
        if name == "ripper":
            encs = tuple(e for e in encs if e in opts.ripper_encodings)
        spent = 0.0
        for i, enc in enumerate(encs):
            key = (ds, split, name, enc, 0)
            if opts.resume and store.has(key):
                continue
            if data is None:
                data = build_data(train, test)
            budget = max((opts.budget - spent) / (len(encs) - i), 0.0)
            task = {"name": name, "seed": split, "budget": budget, "y_train": data.y_train, "y_test": data.y_test,
                    **task_inputs(name, enc, data)}
            label = f"{ds} split {split} {name.upper()} {enc.upper()}"
            res = worker.run(task, lambda m, label=label: log(f"{label}: {m}"))
            spent += float(res.get("seconds") or 0.0)
            row = {"dataset": ds, "split": split, "method": name, "encoding": enc, "T": 0,
                   "tolerance": None, "n_train": train.height, "n_test": test.height, **res}
            row["note"] = (row.get("note") or "").strip().replace("\n", " | ") or None
            store.put(row)
            if res["status"] == "ok":
                rules = f", {res['n_rules']} {'rules' if name == 'ripper' else 'leaves'}" if res.get("n_rules") is not None else ""
                log(f"{label}: acc {res['accuracy']:.3f} f1 {res['f1']:.3f}{rules}, best {res['params']} "
                    f"(grid {res['select_seconds']:.1f} s, fit {res['fit_seconds']:.2f} s)")
            else:
                log(f"{label}: NOT RUN ({res['status']}) after {res.get('seconds', 0):.0f} s, "
                    f"{res.get('fits_done')}/{res.get('fits_total')} fits: {row['note']}")


# --------------------------------------------------------------------------- #
# Machine and invocation
# --------------------------------------------------------------------------- #


def machine_info() -> dict[str, Any]:
    cpu = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    ram = None
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                ram = round(int(line.split()[1]) / 1024**2, 1)
    except OSError:
        pass
    try:
        # nproc honours OMP_NUM_THREADS, which this process sets to 1: ask without it.
        env = {k: v for k, v in os.environ.items() if k not in ("OMP_NUM_THREADS", "OMP_THREAD_LIMIT")}
        nproc = int(subprocess.run(["nproc"], capture_output=True, text=True, check=True, env=env).stdout.strip())
    except (OSError, ValueError, subprocess.CalledProcessError):
        nproc = os.cpu_count()
    versions = {"python": platform.python_version()}
    for mod in ("findrs", "polars", "numpy", "sklearn", "wittgenstein", "pandas", "matplotlib"):
        try:
            versions[mod] = __import__(mod).__version__
        except Exception:  # noqa: BLE001
            versions[mod] = None
    return {"nproc": nproc, "cpu": cpu, "ram_gib": ram, "platform": platform.platform(), "versions": versions}


@dataclass
class Options:
    data_dir: Path | None
    out: Path
    splits: int = 10
    datasets: list[str] = field(default_factory=lambda: list(DATASETS))
    T: int = 100
    baselines: list[str] = field(default_factory=lambda: list(BASELINES))
    skip_baselines: bool = False
    skip_findrs: bool = False
    budget: float = 1200.0
    large_splits: int = 1
    paper_t: bool = True
    resume: bool = False
    fresh: bool = False
    tables_only: bool = False
    ripper_encodings: tuple[str, ...] = ("av", "oh")


def parse_args(argv: list[str] | None) -> Options:
    ap = argparse.ArgumentParser(
        prog="python -m experiments",
        description="Reproduce the experiments of 'Bayes Point Rule Set Learning' (Section 5).",
    )
    ap.add_argument("--data-dir", default=None,
                    help="directory with the UCI files (default: $FINDRS_DATA_DIR); not needed with --tables-only")
    ap.add_argument("--out", default="results", help="output directory (default: results)")
    ap.add_argument("--splits", type=int, default=10, help="random 50/50 splits, seeds 0..N-1 (default 10)")
    ap.add_argument("--datasets", nargs="+", default=list(DATASETS), choices=list(DATASETS + EXTRA_DATASETS),
                    metavar="NAME",
                    help=f"datasets to run (default: the paper's 11: {' '.join(DATASETS)}; also "
                         f"{' '.join(EXTRA_DATASETS)}: the MONK's as the authors' code loads them)")
    ap.add_argument("--T", type=int, default=100, help="runs of FIND-RS-BO/BP (default 100)")
    ap.add_argument("--baselines", nargs="+", default=list(BASELINES), choices=list(BASELINES),
                    help="baselines to run (default: all)")
    ap.add_argument("--ripper-encodings", nargs="+", default=["av", "oh"], choices=["av", "oh"],
                    help="encodings RIPPER tries (default: av oh, as the paper; OH is its slowest part)")
    ap.add_argument("--skip-baselines", action="store_true", help="run only the findrs methods")
    ap.add_argument("--skip-findrs", action="store_true", help="run only the baselines")
    ap.add_argument("--budget", type=float, default=1200.0,
                    help="wall-clock seconds per baseline per split (all its encodings; default 1200)")
    ap.add_argument("--large-splits", type=int, default=1,
                    help="splits on which connect-4's baselines and encoding CV run (default 1, as the paper)")
    ap.add_argument("--no-paper-t", dest="paper_t", action="store_false",
                    help="do not also run connect-4's BO/BP with the paper's T=20")
    ap.add_argument("--resume", action="store_true", help="skip rows already in <out>/raw/results.csv")
    ap.add_argument("--fresh", action="store_true", help="discard <out>/raw before running")
    ap.add_argument("--tables-only", action="store_true", help="rebuild the tables and figure from <out>/raw")
    a = ap.parse_args(argv)
    datasets = [d for d in DATASETS + EXTRA_DATASETS if d in a.datasets]  # the paper's order, connect-4 last
    return Options(Path(a.data_dir) if a.data_dir else None, Path(a.out), a.splits, datasets, a.T, list(a.baselines), a.skip_baselines,
                   a.skip_findrs, a.budget, a.large_splits, a.paper_t, a.resume, a.fresh, a.tables_only,
                   tuple(a.ripper_encodings))


def main(argv: list[str] | None = None) -> int:
    opts = parse_args(argv)
    from . import report

    raw = opts.out / "raw"
    if opts.tables_only:
        report.write_report(opts.out)
        print(f"wrote {opts.out / 'README.md'}")
        return 0
    paper = [d for d in opts.datasets if d not in AUTHORS_MONKS]
    authors = tuple(f"monks-{AUTHORS_MONKS[d]}.{part}" for d in opts.datasets if d in AUTHORS_MONKS for part in ("train", "test"))
    data_dir = require_data_dir(opts.data_dir, paper, extra_files=authors)
    if not opts.skip_baselines:
        needed = ("sklearn", "wittgenstein", "pandas") if "ripper" in opts.baselines else ("sklearn",)
        missing = [m for m in needed if not _importable(m)]
        if missing:
            print(f"error: the baselines need {', '.join(missing)}: pip install '.[experiments]' "
                  f"(or pass --skip-baselines)", file=sys.stderr)
            return 2
    if not _importable("sklearn"):
        print("error: the protocol's folds and metrics need scikit-learn: pip install '.[experiments]'",
              file=sys.stderr)
        return 2
    try:
        from threadpoolctl import threadpool_limits

        threadpool_limits(1)
    except ImportError:
        pass
    if opts.fresh and raw.exists():
        for p in raw.iterdir():
            p.unlink()
    raw.mkdir(parents=True, exist_ok=True)
    store = Store(raw / "results.csv")
    curves_path = raw / "pruning_curves.csv"
    curves: dict[str, pl.DataFrame] = {}
    if curves_path.exists():
        old = read_curves(curves_path)
        curves = {f"{d}/{e}": g for (d, e), g in old.group_by(["dataset", "encoding"], maintain_order=True)}
    info_path = raw / "run_info.json"
    info = json.loads(info_path.read_text()) if info_path.exists() else {"invocations": []}
    invocation = {
        "command": _command(argv if argv is not None else sys.argv[1:]),
        "started": _dt.datetime.now().astimezone().isoformat(timespec="seconds"),
        "machine": machine_info(),
        "options": {"splits": opts.splits, "datasets": opts.datasets, "T": opts.T, "baselines": opts.baselines,
                    "skip_baselines": opts.skip_baselines, "skip_findrs": opts.skip_findrs, "budget": opts.budget,
                    "large_splits": opts.large_splits, "paper_t": opts.paper_t, "resume": opts.resume,
                    "ripper_encodings": list(opts.ripper_encodings)},
        "datasets": {},
    }
    info["invocations"].append(invocation)
    log = Log()
    worker = None
    if not opts.skip_baselines:
        from .baselines import Worker

        worker = Worker()
    from findrs.datasets import train_test_split

    log(f"findrs experiments: {len(opts.datasets)} datasets, {opts.splits} splits, T={opts.T}, "
        f"baselines: {'none' if opts.skip_baselines else ', '.join(opts.baselines)}; out {opts.out}")
    try:
        for ds in opts.datasets:
            t_ds = time.perf_counter()
            df = load_dataset(ds, data_dir)
            timing = {"findrs_seconds": 0.0, "baselines_seconds": 0.0}
            if not opts.skip_findrs:
                t0 = time.perf_counter()
                for split in range(opts.splits):
                    train, test = train_test_split(df, 0.5, split)
                    run_findrs(ds, split, train, test, opts, store, curves, log)
                    store.save()
                    _save_curves(curves, curves_path)
                timing["findrs_seconds"] = time.perf_counter() - t0
            if worker is not None:
                t0 = time.perf_counter()
                n = min(opts.splits, opts.large_splits) if ds in LARGE else opts.splits
                for split in range(n):
                    train, test = train_test_split(df, 0.5, split)
                    run_baselines(ds, split, train, test, opts, store, worker, log)
                    store.save()
                timing["baselines_seconds"] = time.perf_counter() - t0
            timing["seconds"] = time.perf_counter() - t_ds
            invocation["datasets"][ds] = timing
            log(f"{ds} done in {timing['seconds']:.0f} s (findrs {timing['findrs_seconds']:.0f} s, "
                f"baselines {timing['baselines_seconds']:.0f} s)")
            invocation["seconds"] = time.perf_counter() - log.start
            info_path.write_text(json.dumps(info, indent=1))
    finally:
        if worker is not None:
            worker.close()
        invocation["finished"] = _dt.datetime.now().astimezone().isoformat(timespec="seconds")
        invocation["seconds"] = time.perf_counter() - log.start
        info_path.write_text(json.dumps(info, indent=1))
        store.save()
    report.write_report(opts.out)
    log(f"done in {invocation['seconds']:.0f} s; wrote {opts.out / 'README.md'}")
    return 0


def _command(argv: list[str]) -> str:
    """The command line as recorded in run_info.json and the report (see uci.command_line)."""
    return command_line("experiments", argv)


def _save_curves(curves: dict[str, pl.DataFrame], path: Path) -> None:
    if curves:
        pl.concat(list(curves.values())).write_csv(path)


def _importable(mod: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(mod) is not None
