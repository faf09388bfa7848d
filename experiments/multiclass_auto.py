"""Multiclass findrs' default fit against CART, logistic regression and LightGBM, on clean and
noisy-label data sets ("multiclass as good as binary").

Run from the repository root:

    python -m experiments.multiclass_auto --data-dir "$FINDRS_DATA_DIR" --splits 3 \
        --connect4-rows 20000 --tag default --out results/multiclass-auto.md

Data sets: car (4 classes), connect-4 (3), wine (3) from the UCI files, iris (3) and digits (10)
from scikit-learn (``experiments.multiclass.load``), and the noisy-label variants ``car-n10``,
``car-n20``, ``connect-4-n10``, ``connect-4-n20``: 10% / 20% of the *training* half's rows (drawn
with NumPy's PCG64 seeded ``10_000 + split``) get another class, drawn uniformly among the other
classes; the test half keeps its labels. ``--connect4-rows N``: connect-4 (and its variants) is
first subsampled to N rows (Polars ``sample(seed=0)``, the same rows for every split) so a run
stays within minutes on 2 cores.

Splits: ``findrs.datasets.train_test_split(df, test_fraction=0.5, seed=s)``, s = 0..splits-1,
the same split for every method. On each split, in the same run, one thread per library:

- ``findrs``: ``findrs.fit(train, "class", random_state=s, n_jobs=1)``, the default fit (the raw
  rows carry ``--tag``, e.g. ``before`` for a run of an earlier version, so two versions can sit
  in one table);
- CART (``max_depth`` in {None, 5, 10, 20} and the encoding by 5-fold CV) and logistic regression
  (``C`` in {0.25, 1, 4} by 5-fold CV): ``experiments.multiclass``'s ``run_cart`` / ``run_lr``;
- LightGBM: ``LGBMClassifier`` with its defaults (``random_state=s``, one thread), categorical
  columns as its categorical features (ordinal codes).

Per method: test accuracy, rules and conditions (findrs: voting rules of all class sets and their
constraints; CART: leaves and the splits on each leaf's path), fit seconds (wall) and fit CPU
seconds (``time.process_time``, this process). ``--binary-cost`` also times the binary default fit
of the most frequent class against the rest on the same rows (the cost yardstick); ``--grid-tolerances``
and ``--grid-supports`` set the multiclass grid for the run (a wider one, to count which values
win). Raw rows go to ``--raw`` (rows of other data sets
and tags are kept: a run replaces only its own (dataset, method) rows); the Markdown table to
``--out``; ``--tables-only`` rebuilds it from the raw file.
"""

from __future__ import annotations

import os
import sys

_THREAD_VARS = ("POLARS_MAX_THREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "RAYON_NUM_THREADS")
if __name__ == "__main__":
    os.environ.update({v: "1" for v in _THREAD_VARS})

import argparse  # noqa: E402
import datetime as _dt  # noqa: E402
import platform  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any, Callable  # noqa: E402

import numpy as np  # noqa: E402
import polars as pl  # noqa: E402

from .multiclass import _categorical, _size, load, run_cart, run_lr  # noqa: E402
from .uci import command_line  # noqa: E402

BASES = ("car", "connect-4", "wine", "iris", "digits")
NOISY = {"car-n10": ("car", 0.1), "car-n20": ("car", 0.2), "connect-4-n10": ("connect-4", 0.1),
         "connect-4-n20": ("connect-4", 0.2)}
DATASETS = ("car", "car-n10", "car-n20", "connect-4", "connect-4-n10", "connect-4-n20", "wine", "iris", "digits")
BASELINES = ("CART", "LR", "LightGBM")
BINARY = "binary default (cost)"
TABLES = "## Tables (written by experiments/multiclass_auto.py)"
RAW = {"dataset": pl.String, "split": pl.Int64, "method": pl.String, "accuracy": pl.Float64, "n_rules": pl.Int64,
       "n_conditions": pl.Int64, "wall_seconds": pl.Float64, "cpu_seconds": pl.Float64, "note": pl.String}


def move_labels(train: pl.DataFrame, rate: float, seed: int) -> pl.DataFrame:
    """``train`` with ``round(rate * rows)`` rows (drawn by PCG64 seeded ``10_000 + seed``) given
    another class, uniformly among the other classes of the training half.

    Example:
        >>> df = pl.DataFrame({"x": range(10), "class": ["a", "b", "c", "a", "b"] * 2})
        >>> moved = move_labels(df, 0.2, 0)
        >>> int((moved["class"] != df["class"]).sum())
        2
    """
    if rate == 0:
        return train
    rng = np.random.default_rng(10_000 + seed)
    classes = np.array(sorted(set(train["class"].to_list())), dtype=object)
    y = train["class"].to_numpy().astype(object)
    rows = rng.choice(train.height, size=round(rate * train.height), replace=False)
    index = {c: i for i, c in enumerate(classes)}
    for r in rows:
        shift = int(rng.integers(1, len(classes)))
        y[r] = classes[(index[y[r]] + shift) % len(classes)]
    return train.with_columns(pl.Series("class", y.tolist(), dtype=train["class"].dtype))


def splits_of(name: str, data_dir: Path | None, n_splits: int, connect4_rows: int | None):
    """``(split, train, test)`` for each split of the data set ``name`` (noisy variants: training
    labels moved)."""
    import findrs

    base, rate = NOISY.get(name, (name, 0.0))
    df = load(base, data_dir)
    if base == "connect-4" and connect4_rows is not None and connect4_rows < df.height:
        df = df.sample(connect4_rows, seed=0)
    for s in range(n_splits):
        train, test = findrs.datasets.train_test_split(df, test_fraction=0.5, seed=s)
        yield s, move_labels(train, rate, s), test


def _timed(fit: Callable[[], Any]) -> tuple[Any, float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    out = fit()
    return out, time.perf_counter() - wall, time.process_time() - cpu


def run_findrs(train: pl.DataFrame, test: pl.DataFrame, seed: int, tag: str, auto: bool = True,
               accurate: bool = False) -> dict[str, Any]:
    """The default fit (``accurate``: with ``max_rules=None``, the accuracy-first fit)."""
    import findrs

    size = {"max_rules": None} if accurate else {}

    def fit() -> Any:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", findrs.ContradictionWarning)
            return findrs.fit(train, "class", random_state=seed, n_jobs=1, auto=auto, **size)

    model, wall, cpu = _timed(fit)
    n_rules, n_cond = _size(model)
    chosen = model.multiclass or ""
    cv = getattr(model, "cv_results", None)
    if cv is not None and "chosen" in cv.columns:
        row = cv.filter("chosen").row(0, named=True)
        chosen = ", ".join(f"{k}={row[k]}" for k in ("tolerance", "min_support", "simplify", "multiclass", "numeric")
                           if k in row)
    return dict(method=f"findrs {tag}", accuracy=model.score(test), n_rules=n_rules, n_conditions=n_cond,
                wall_seconds=wall, cpu_seconds=cpu, note=chosen)


def run_binary_cost(train: pl.DataFrame, test: pl.DataFrame, seed: int) -> dict[str, Any]:
    """The cost yardstick of the multiclass default: the binary default fit
    (``findrs.fit(..., positive=True, random_state=seed, n_jobs=1)``) of the most frequent
    training class against the rest, on the same rows; its accuracy is on that binary task."""
    import findrs

    top = train["class"].value_counts().sort("count", "class")["class"][-1]
    b, bt = (d.with_columns((pl.col("class") == top).alias("class")) for d in (train, test))

    def fit() -> Any:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", findrs.ContradictionWarning)
            return findrs.fit(b, "class", True, random_state=seed, n_jobs=1)

    model, wall, cpu = _timed(fit)
    return dict(method=BINARY, accuracy=model.score(bt), n_rules=model.n_rules, n_conditions=None,
                wall_seconds=wall, cpu_seconds=cpu, note=f"{top!r} against the rest")


def run_lightgbm(train: pl.DataFrame, test: pl.DataFrame, seed: int) -> dict[str, Any]:
    from lightgbm import LGBMClassifier
    from sklearn.preprocessing import OrdinalEncoder

    def fit() -> float:
        cats = _categorical(train)
        nums = [c for c in train.columns if c != "class" and c not in cats]
        parts, tparts = [], []
        if cats:
            enc = OrdinalEncoder(handle_unknown="use_encoded_value", unknown_value=-1).fit(train.select(cats).to_numpy())
            parts.append(enc.transform(train.select(cats).to_numpy()))
            tparts.append(enc.transform(test.select(cats).to_numpy()))
        if nums:
            parts.append(train.select(nums).to_numpy().astype(float))
            tparts.append(test.select(nums).to_numpy().astype(float))
        x, xt = np.hstack(parts), np.hstack(tparts)
        model = LGBMClassifier(random_state=seed, n_jobs=1, verbose=-1)
        model.fit(x, train["class"].to_numpy(), categorical_feature=list(range(len(cats))) if cats else "auto")
        return float(np.mean(model.predict(xt) == test["class"].to_numpy()))

    acc, wall, cpu = _timed(fit)
    return dict(method="LightGBM", accuracy=acc, n_rules=None, n_conditions=None, wall_seconds=wall, cpu_seconds=cpu,
                note="defaults")


def run_ebm(train: pl.DataFrame, test: pl.DataFrame, seed: int) -> dict[str, Any]:
    """interpret's Explainable Boosting Machine (a glass-box additive model) with its defaults,
    one thread, on the raw columns (pandas)."""
    from interpret.glassbox import ExplainableBoostingClassifier

    def fit() -> float:
        x, xt = (d.drop("class").to_pandas() for d in (train, test))
        model = ExplainableBoostingClassifier(random_state=seed, n_jobs=1).fit(x, train["class"].to_numpy())
        return float(np.mean(model.predict(xt) == test["class"].to_numpy()))

    acc, wall, cpu = _timed(fit)
    return dict(method="EBM", accuracy=acc, n_rules=None, n_conditions=None, wall_seconds=wall, cpu_seconds=cpu,
                note="defaults")


def run_ripper(train: pl.DataFrame, test: pl.DataFrame, seed: int) -> dict[str, Any]:
    """RIPPER one-vs-rest (wittgenstein, its defaults per class, the class of highest
    ``predict_proba``; ``experiments.multiclass.run_ripper``), at most 300 s a split, in a child
    process (its CPU seconds are its wall seconds)."""
    from .multiclass import run_ripper as ripper

    row = ripper(train, test, seed, 300.0)
    return dict(method="RIPPER ovr", accuracy=row["accuracy"], n_rules=row["n_rules"], n_conditions=row["n_conditions"],
                wall_seconds=row["fit_seconds"], cpu_seconds=row["fit_seconds"], note=row["note"])


EXTRA = {"EBM": run_ebm, "RIPPER ovr": run_ripper}
"""The anchors ``--extra-baselines`` adds (slower: EBM, RIPPER one-vs-rest)."""


def _baseline(run: Callable[..., dict[str, Any]], train: pl.DataFrame, test: pl.DataFrame, seed: int) -> dict[str, Any]:
    cpu = time.process_time()
    row = run(train, test, seed)
    seconds = row.pop("fit_seconds")
    return {**{k: row.get(k) for k in ("method", "accuracy", "n_rules", "n_conditions", "note")},
            "wall_seconds": seconds, "cpu_seconds": time.process_time() - cpu}


# --------------------------------------------------------------------------- report
def _mean(values: list[float], digits: int) -> str:
    if not values:
        return "–"
    return f"{np.mean(values):.{digits}f}" + (f" ± {np.std(values):.{digits}f}" if len(values) > 1 else "")


def report(raw: pl.DataFrame, command: str, info: list[str]) -> str:
    """The Markdown tables of ``raw``: per data set and method the mean (± standard deviation over
    the splits) of each measure."""
    methods = sorted({m for m in raw["method"].to_list() if m.startswith("findrs")})
    methods += [m for m in (*BASELINES, *EXTRA, BINARY) if m in set(raw["method"].to_list())]
    datasets = [d for d in DATASETS if d in set(raw["dataset"].to_list())]
    lines = ["Made by `experiments/multiclass_auto.py`:", "", "```", command, "```", "", *info, ""]
    for title, column, digits in (("Test accuracy", "accuracy", 3), ("Rules", "n_rules", 0),
                                  ("Conditions", "n_conditions", 0), ("Fit seconds (wall)", "wall_seconds", 2),
                                  ("Fit CPU seconds", "cpu_seconds", 2)):
        lines += [f"### {title}", "", "| dataset | splits | " + " | ".join(methods) + " |",
                  "|:---|---:|" + "---:|" * len(methods)]
        for d in datasets:
            sub = raw.filter(pl.col("dataset") == d)
            cells, means = [], []
            for m in methods:
                values = [v for v in sub.filter(pl.col("method") == m)[column].to_list() if v is not None]
                cells.append(_mean(values, digits))
                means.append(round(float(np.mean(values)), digits) if values else None)
            if column == "accuracy":
                top = max((v for v in means if v is not None), default=None)
                cells = [f"**{c}**" if v is not None and v == top else c for c, v in zip(cells, means)]
            lines.append(f"| `{d}` | {sub['split'].n_unique()} | " + " | ".join(cells) + " |")
        lines.append("")
    notes = raw.filter(pl.col("method").str.starts_with("findrs") & (pl.col("note") != ""))
    chosen = notes.filter(pl.col("note").str.contains("tolerance="))
    if not chosen.is_empty():
        lines += ["### How often each value was chosen", "", "| method | fits | value counts |", "|:---|---:|:---|"]
        for m in sorted(set(chosen["method"].to_list())):
            parts = [dict(kv.split("=", 1) for kv in n.split(", ")) for n in chosen.filter(pl.col("method") == m)["note"]]
            counts = []
            for key in ("tolerance", "min_support", "simplify", "multiclass", "numeric"):
                values = [p[key] for p in parts if key in p]
                counts.append(f"`{key}` " + ", ".join(f"{v} {values.count(v)}" for v in sorted(set(values), key=_order)))
            lines.append(f"| {m} | {len(parts)} | " + "; ".join(counts) + " |")
        lines.append("")
    lines += ["`binary default (cost)`: the binary default fit of the most frequent training class against "
              "the rest on the same rows (its accuracy is on that two-class task): the yardstick of the "
              "multiclass fit's cost.", ""] if BINARY in methods else []
    if not notes.is_empty():
        lines += ["### What the findrs fits chose", "", "| dataset | method | split | chosen |", "|:---|:---|---:|:---|"]
        for r in notes.sort("dataset", "method", "split").iter_rows(named=True):
            lines.append(f"| `{r['dataset']}` | {r['method']} | {r['split']} | {r['note']} |")
        lines.append("")
    return "\n".join(lines)


def _order(value: str) -> tuple[float, str]:
    """Numbers in numeric order, words after them."""
    try:
        return float(value), value
    except ValueError:
        return float("inf"), value


def _tolerance(text: str) -> int | float:
    """A tolerance as the fit takes it: ``"0"`` the paper's count, ``"0.1"`` a share."""
    return float(text) if "." in text else int(text)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m experiments.multiclass_auto", description=__doc__.splitlines()[0])
    p.add_argument("--data-dir", default=os.environ.get("FINDRS_DATA_DIR"))
    p.add_argument("--datasets", nargs="+", default=list(DATASETS), choices=DATASETS)
    p.add_argument("--splits", type=int, default=3)
    p.add_argument("--connect4-rows", type=int, default=None, help="subsample connect-4 to this many rows first")
    p.add_argument("--tag", default="default", help="the findrs rows' method is 'findrs <tag>'")
    p.add_argument("--skip-baselines", action="store_true")
    p.add_argument("--accurate", action="store_true", help="fit max_rules=None (the accuracy-first fit)")
    p.add_argument("--extra-baselines", nargs="*", default=[], choices=list(EXTRA),
                   help="also run these anchors (EBM, 'RIPPER ovr')")
    p.add_argument("--paper", action="store_true",
                   help="fit findrs with auto=False (the paper's settings per class; on car and connect-4, which "
                        "have no numeric column, exactly the multiclass default before its automatic settings)")
    p.add_argument("--binary-cost", action="store_true", help="also time the binary default fit on the same rows")
    p.add_argument("--skip-findrs", action="store_true", help="no multiclass findrs fit (e.g. with --binary-cost)")
    p.add_argument("--grid-tolerances", nargs="+", type=_tolerance, default=None,
                   help="findrs.select.multiclass.TOLERANCES for this run (e.g. a wider grid, to count winners)")
    p.add_argument("--grid-supports", nargs="+", type=int, default=None,
                   help="findrs.select.multiclass.SUPPORTS for this run")
    p.add_argument("--raw", default="results/raw/multiclass-auto.csv")
    p.add_argument("--out", default=None, help="the Markdown tables (default: printed only)")
    p.add_argument("--tables-only", action="store_true")
    args = p.parse_args(argv)
    raw_path = Path(args.raw)
    raw_path.parent.mkdir(parents=True, exist_ok=True)
    command = command_line("experiments.multiclass_auto", sys.argv[1:] if argv is None else argv)
    old = pl.read_csv(raw_path, schema=RAW) if raw_path.exists() else pl.DataFrame(schema=RAW)
    info_path = raw_path.with_suffix(".info.txt")
    info = info_path.read_text().splitlines() if info_path.exists() else []
    if not args.tables_only:
        import findrs
        from findrs.select import multiclass as grid

        if args.grid_tolerances is not None:
            grid.TOLERANCES = tuple(args.grid_tolerances)
        if args.grid_supports is not None:
            grid.SUPPORTS = tuple(args.grid_supports)

        data_dir = Path(args.data_dir) if args.data_dir else None
        started = _dt.datetime.now(_dt.timezone.utc)
        rows: list[dict[str, Any]] = []
        ran = [*([] if args.skip_findrs else [f"findrs {args.tag}"]), *([] if args.skip_baselines else BASELINES),
               *([BINARY] if args.binary_cost else []), *args.extra_baselines]
        kept = old.filter(~(pl.col("dataset").is_in(args.datasets) & pl.col("method").is_in(ran)))
        for name in args.datasets:
            for s, train, test in splits_of(name, data_dir, args.splits, args.connect4_rows):
                done = [] if args.skip_findrs else [run_findrs(train, test, s, args.tag, auto=not args.paper,
                                                                accurate=args.accurate)]
                if args.binary_cost:
                    done.append(run_binary_cost(train, test, s))
                if not args.skip_baselines:
                    done += [_baseline(run_cart, train, test, s), _baseline(run_lr, train, test, s),
                             run_lightgbm(train, test, s)]
                done += [EXTRA[m](train, test, s) for m in args.extra_baselines]
                rows += [{**r, "dataset": name, "split": s} for r in done]
                print(f"{name} split {s}: " + ", ".join(
                    f"{r['method']} {r['accuracy']:.3f} ({r['cpu_seconds']:.1f} CPU-s)" for r in done), flush=True)
                new = pl.DataFrame(rows, schema=RAW)
                pl.concat([kept, new]).write_csv(raw_path)
        finished = _dt.datetime.now(_dt.timezone.utc)
        info.append(f"- {', '.join(f'`{m}`' for m in ran)} ({', '.join(args.datasets)}): run {started:%Y-%m-%d %H:%M} to "
                    f"{finished:%H:%M} UTC on {platform.machine()} with {os.cpu_count()} cores (shared: times are "
                    f"noisy), one thread per library, findrs {findrs.__version__}, polars {pl.__version__}; "
                    f"`{command}`.")
        info_path.write_text("\n".join(info) + "\n")
        old = pl.read_csv(raw_path, schema=RAW)
    text = report(old, command, info)
    if args.out:
        out = Path(args.out)
        head = "# Multiclass default fit against CART, LR and LightGBM\n\n"
        if out.exists() and TABLES in out.read_text():  # the text written above the tables stays
            head = out.read_text().split(TABLES)[0]
        out.write_text(head + TABLES + "\n\n" + text + "\n")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
