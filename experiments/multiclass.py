"""Multiclass findrs against CART, RIPPER one-vs-rest and logistic regression (issue 13).

Run from the repository root:

    python -m experiments.multiclass --data-dir "$FINDRS_DATA_DIR" --out results/

For each data set (car 4 classes, connect-4 3, wine 3 from the UCI files; iris 3 and digits 10
bundled with scikit-learn) and each of 10 seed-fixed 50/50 splits (``findrs.datasets.
train_test_split(seed=s)``, s = 0..9), on one core, in one run:

- findrs FIND-RS (AV) and FIND-RS-BP (AV, T = 100; connect-4 T = 10, see below) with each
  combination of docs/semantics.md §10 (``frequent-first``, ``rarest-first``, ``one-vs-rest``)
  and with ``multiclass="auto"``, findrs' default (the combination whose FIND-RS classifies the
  most held-out rows in 3-fold stratified cross-validation on the training half; its time
  included);
- CART (scikit-learn): ``max_depth`` in {None, 5, 10, 20} and, for categorical data, the
  encoding (ordinal codes or one-hot) chosen by 5-fold CV on the training half; numeric data
  (wine, iris, digits) as raw numbers;
- RIPPER one-vs-rest (wittgenstein, default parameters): one RIPPER per class, a row gets the
  class whose RIPPER gives it the highest ``predict_proba``; categorical values as categories,
  numbers as they are (wittgenstein bins them itself). A data set whose RIPPER exceeds
  ``--ripper-budget`` seconds on a split is marked "not run" for the remaining splits;
- logistic regression (multinomial, lbfgs): one-hot categorical features, standardised numeric
  ones, ``C`` in {0.25, 1, 4} by 5-fold CV.

Accuracy on the test half, rules (findrs: voting rules summed over the class sets; CART: leaves;
RIPPER: rules summed over the classes), conditions (the constraints of those rules; a CART leaf
counts the splits on its path) and fit seconds (the whole selection and fit on the training half)
are written to ``<out>/raw/multiclass.csv`` and summarised in ``<out>/multiclass.md``;
``--tables-only`` rebuilds the summary from the raw file.

connect-4's BP uses T = 10 (``--connect4-T``): a multiclass BP100 fit takes over a minute per
combination there, times 3 combinations and 10 splits.
"""

from __future__ import annotations

import os
import sys

_THREAD_VARS = ("POLARS_MAX_THREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "RAYON_NUM_THREADS")
if __name__ == "__main__":
    os.environ.update({v: "1" for v in _THREAD_VARS})

import argparse  # noqa: E402
import datetime as _dt  # noqa: E402
import multiprocessing as mp  # noqa: E402
import platform  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any, Callable  # noqa: E402

import numpy as np  # noqa: E402
import polars as pl  # noqa: E402

from .uci import command_line  # noqa: E402

COMBOS = ("frequent-first", "rarest-first", "one-vs-rest")
SHORT = {"frequent-first": "ff", "rarest-first": "rf", "one-vs-rest": "ovr", "auto": "auto"}
DATASETS = ("car", "connect-4", "wine", "iris", "digits")
RAW_COLUMNS: dict[str, Any] = {
    "dataset": pl.String, "split": pl.Int64, "method": pl.String, "status": pl.String, "accuracy": pl.Float64,
    "n_rules": pl.Int64, "n_conditions": pl.Int64, "fit_seconds": pl.Float64, "T": pl.Int64, "note": pl.String,
    "numeric": pl.String,
}


# --------------------------------------------------------------------------- data
def load(name: str, data_dir: Path | None) -> pl.DataFrame:
    """The data set with its class labels in column ``class``."""
    if name in ("iris", "digits"):
        from sklearn.datasets import load_digits, load_iris

        b = (load_iris if name == "iris" else load_digits)()
        cols = [f"x{i}" for i in range(b.data.shape[1])]
        return pl.DataFrame(b.data, schema=cols).with_columns(pl.Series("class", b.target))
    from .uci import load_uci

    if data_dir is None:
        raise SystemExit(f"error: {name} needs the UCI files: pass --data-dir or set FINDRS_DATA_DIR")
    return load_uci(name, data_dir, labels=True)


def _categorical(df: pl.DataFrame) -> list[str]:
    return [c for c, t in df.schema.items() if c != "class" and t == pl.String]


# --------------------------------------------------------------------------- findrs
def _findrs_fit(train: pl.DataFrame, method: str, T: int, combine: str, seed: int):
    import findrs

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", findrs.ContradictionWarning)
        return findrs.fit(train, "class", method=method, random_state=seed, n_jobs=1, settings=dict(T=T, multiclass=combine))


def _size(model) -> tuple[int, int]:
    kept = model.rules.filter("kept")
    return kept.height, int(kept["constraints"].list.len().sum())


def run_findrs(train: pl.DataFrame, test: pl.DataFrame, seed: int, T: int) -> list[dict[str, Any]]:
    rows = []
    for method, t in (("find-rs", 1), ("bp", T)):
        name = "FIND-RS" if method == "find-rs" else "BP"
        for combine in (*COMBOS, "auto"):
            start = time.perf_counter()
            model = _findrs_fit(train, method, t, combine, seed)
            seconds = time.perf_counter() - start
            n_rules, n_cond = _size(model)
            rows.append(dict(
                method=f"{name} {SHORT[combine]}", status="ok", accuracy=model.score(test), n_rules=n_rules,
                n_conditions=n_cond, fit_seconds=seconds, T=t, note=model.multiclass if combine == "auto" else "",
                numeric=model.params["numeric"],
            ))
    return rows


# --------------------------------------------------------------------------- baselines
def _matrices(train: pl.DataFrame, test: pl.DataFrame, onehot: bool):
    """(X_train, X_test) for scikit-learn: categorical columns as ordinal codes or one-hot, numeric
    columns as they are."""
    from sklearn.preprocessing import OneHotEncoder, OrdinalEncoder

    cats = _categorical(train)
    if not cats:
        return train.drop("class").to_numpy(), test.drop("class").to_numpy()
    a, b = train.select(cats).to_numpy(), test.select(cats).to_numpy()
    if onehot:
        enc = OneHotEncoder(handle_unknown="ignore", sparse_output=False, dtype=np.float32).fit(a)
    else:
        enc = OrdinalEncoder(handle_unknown="use_encoded_value", unknown_value=-1).fit(a)
    return enc.transform(a), enc.transform(b)


def _tree_size(tree) -> tuple[int, int]:
    t = tree.tree_
    depth = np.zeros(t.node_count, dtype=np.int64)
    for node in range(t.node_count):  # parents come before children
        for child in (t.children_left[node], t.children_right[node]):
            if child != -1:
                depth[child] = depth[node] + 1
    leaves = t.children_left == -1
    return int(leaves.sum()), int(depth[leaves].sum())


def run_cart(train: pl.DataFrame, test: pl.DataFrame, seed: int) -> dict[str, Any]:
    from sklearn.model_selection import GridSearchCV, StratifiedKFold
    from sklearn.tree import DecisionTreeClassifier

    start = time.perf_counter()
    y, y_test = train["class"].to_numpy(), test["class"].to_numpy()
    best = None
    for onehot in ((False, True) if _categorical(train) else (False,)):
        X, X_test = _matrices(train, test, onehot)
        search = GridSearchCV(
            DecisionTreeClassifier(random_state=seed), {"max_depth": [None, 5, 10, 20]},
            cv=StratifiedKFold(5, shuffle=True, random_state=seed), n_jobs=1,
        ).fit(X, y)
        if best is None or search.best_score_ > best[0]:
            best = (search.best_score_, search, X_test, onehot)
    _, search, X_test, onehot = best
    seconds = time.perf_counter() - start
    leaves, conditions = _tree_size(search.best_estimator_)
    note = f"max_depth={search.best_params_['max_depth']}" + (", one-hot" if onehot else "")
    return dict(method="CART", status="ok", accuracy=float(search.score(X_test, y_test)), n_rules=leaves,
                n_conditions=conditions, fit_seconds=seconds, T=0, note=note)


def run_lr(train: pl.DataFrame, test: pl.DataFrame, seed: int) -> dict[str, Any]:
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import GridSearchCV, StratifiedKFold
    from sklearn.preprocessing import StandardScaler

    start = time.perf_counter()
    X, X_test = _matrices(train, test, onehot=True)
    if not _categorical(train):
        scaler = StandardScaler().fit(X)
        X, X_test = scaler.transform(X), scaler.transform(X_test)
    search = GridSearchCV(
        LogisticRegression(max_iter=2000), {"C": [0.25, 1.0, 4.0]},
        cv=StratifiedKFold(5, shuffle=True, random_state=seed), n_jobs=1,
    ).fit(X, train["class"].to_numpy())
    seconds = time.perf_counter() - start
    return dict(method="LR", status="ok", accuracy=float(search.score(X_test, test["class"].to_numpy())),
                n_rules=None, n_conditions=None, fit_seconds=seconds, T=0, note=f"C={search.best_params_['C']}")


def _ripper_ovr(train_pd, y, test_pd, y_test, seed: int) -> tuple[float, int, int]:
    import wittgenstein as lw

    classes = np.unique(y)
    probs, n_rules, n_cond = [], 0, 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for c in classes:
            r = lw.RIPPER(random_state=seed)
            r.fit(train_pd, (y == c).astype(int), pos_class=1)
            probs.append(r.predict_proba(test_pd)[:, 1])
            n_rules += len(r.ruleset_.rules)
            n_cond += sum(len(rule.conds) for rule in r.ruleset_.rules)
    pred = classes[np.argmax(np.column_stack(probs), axis=1)]
    return float(np.mean(pred == y_test)), n_rules, n_cond


def _ripper_worker(args: tuple) -> tuple[float, int, int]:
    return _ripper_ovr(*args)


def run_ripper(train: pl.DataFrame, test: pl.DataFrame, seed: int, budget: float) -> dict[str, Any]:
    """RIPPER one-vs-rest in a child process killed after ``budget`` seconds."""
    args = (train.drop("class").to_pandas(), train["class"].to_numpy(), test.drop("class").to_pandas(),
            test["class"].to_numpy(), seed)
    start = time.perf_counter()
    ctx = mp.get_context("fork")
    with ctx.Pool(1) as pool:
        job = pool.apply_async(_ripper_worker, (args,))
        try:
            acc, n_rules, n_cond = job.get(timeout=budget)
        except mp.TimeoutError:
            pool.terminate()
            return dict(method="RIPPER ovr", status="exceeded", accuracy=None, n_rules=None, n_conditions=None,
                        fit_seconds=time.perf_counter() - start, T=0, note=f"not run: exceeded {budget:.0f} s")
    return dict(method="RIPPER ovr", status="ok", accuracy=acc, n_rules=n_rules, n_conditions=n_cond,
                fit_seconds=time.perf_counter() - start, T=0, note="")


# --------------------------------------------------------------------------- report
def _cell(values: list[float], digits: int = 3) -> str:
    if not values:
        return "–"
    if len(values) == 1:
        return f"{values[0]:.{digits}f}†"
    return f"{np.mean(values):.{digits}f} ± {np.std(values):.{digits}f}"


def report(raw: pl.DataFrame, out: Path, command: str, info: list[str]) -> str:
    methods = [f"FIND-RS {SHORT[c]}" for c in (*COMBOS, "auto")] + [f"BP {SHORT[c]}" for c in (*COMBOS, "auto")]
    methods += ["CART", "RIPPER ovr", "LR"]
    datasets = [d for d in DATASETS if d in set(raw["dataset"].to_list())]
    lines = [
        "# Multiclass findrs against CART, RIPPER one-vs-rest and logistic regression",
        "",
        "Made by `experiments/multiclass.py` (issue 13, docs/semantics.md §10):",
        "",
        "```",
        command,
        "```",
        "",
        *info,
        "",
        "Columns: `ff` = `multiclass=\"frequent-first\"`, `rf` = `\"rarest-first\"` (RIPPER's order), "
        "`ovr` = `\"one-vs-rest\"`, `auto` = `\"auto\"`, findrs' default: the combination whose FIND-RS "
        "classifies the most held-out rows in 3-fold stratified cross-validation on the training half "
        "(its time included). Every findrs column leaves `numeric` to the default: bins or intervals chosen "
        "by that cross-validation too (docs/semantics.md §10; table below; its time included). "
        "BP: T = 100, connect-4 T = 10. Mean ± standard deviation over the splits; "
        "† one split only; – not run. Bold: the best accuracy of the row (3 decimals).",
        "",
    ]

    def table(title: str, column: str, digits: int, bold: bool = False) -> None:
        lines.extend([f"## {title}", "", "| dataset | " + " | ".join(methods) + " |",
                      "|:---|" + "---:|" * len(methods)])
        for d in datasets:
            cells, means = [], []
            for m in methods:
                sub = raw.filter((pl.col("dataset") == d) & (pl.col("method") == m) & (pl.col("status") == "ok"))
                values = [v for v in sub[column].to_list() if v is not None]
                cells.append(_cell(values, digits))
                means.append(round(float(np.mean(values)), digits) if values else None)
                failed = raw.filter((pl.col("dataset") == d) & (pl.col("method") == m) & (pl.col("status") != "ok"))
                if not values and failed.height:
                    cells[-1] = f"{failed['note'][0]} ({failed.height} splits)"
            if bold:
                top = max((v for v in means if v is not None), default=None)
                cells = [f"**{c}**" if v is not None and v == top else c for c, v in zip(cells, means)]
            lines.append(f"| `{d}` | " + " | ".join(cells) + " |")
        lines.append("")

    table("Test accuracy", "accuracy", 3, bold=True)
    table("Rules (findrs: voting rules of all class sets; CART: leaves; RIPPER: rules of all classes)", "n_rules", 1)
    table("Conditions (constraints of those rules; CART: the splits on each leaf's path)", "n_conditions", 1)
    table("Fit seconds (selection and fit on the training half, one core)", "fit_seconds", 3)
    lines.extend(["## The combination `multiclass=\"auto\"` chose (splits)", "", "| dataset | " + " | ".join(COMBOS) + " |",
                  "|:---|" + "---:|" * len(COMBOS)])
    for d in datasets:
        notes = raw.filter((pl.col("dataset") == d) & (pl.col("method") == "FIND-RS auto"))["note"].to_list()
        lines.append(f"| `{d}` | " + " | ".join(str(notes.count(c)) for c in COMBOS) + " |")
    lines.append("")
    lines.extend(["## Bins or intervals the default (`numeric=None`) chose (splits with intervals)", "",
                  "–: rows from before the choice existed (car and connect-4 have no numeric column: nothing to "
                  "choose there).", "",
                  "| dataset | " + " | ".join(methods[:8]) + " |", "|:---|" + "---:|" * 8])
    for d in datasets:
        cells = []
        for m in methods[:8]:
            kinds = raw.filter((pl.col("dataset") == d) & (pl.col("method") == m))["numeric"].to_list()
            cells.append("–" if all(k is None for k in kinds) else f"{kinds.count('interval')}/{len(kinds)}")
        lines.append(f"| `{d}` | " + " | ".join(cells) + " |")
    lines.append("")
    lines.extend(["## Against CART (issue 13's target: multiclass accuracy on car and connect-4 at least CART's)", ""])
    for d in datasets:
        cart = raw.filter((pl.col("dataset") == d) & (pl.col("method") == "CART") & (pl.col("status") == "ok"))
        if cart.is_empty():
            continue
        parts = []
        for m in ("FIND-RS auto", "BP auto", "FIND-RS ff", "FIND-RS ovr", "BP ff", "BP ovr"):
            ours = raw.filter((pl.col("dataset") == d) & (pl.col("method") == m) & (pl.col("status") == "ok"))
            joined = ours.join(cart, on="split", suffix="_cart")
            if joined.is_empty():
                continue
            diff = joined["accuracy"] - joined["accuracy_cart"]
            wins = int((diff >= 0).sum())
            parts.append(f"{m} {float(diff.mean()):+.3f} (at least CART's on {wins} of {joined.height} splits)")
        lines.append(f"- `{d}`: mean accuracy minus CART's: " + "; ".join(parts))
    lines.append("")
    text = "\n".join(lines)
    (out / "multiclass.md").write_text(text)
    return text


# --------------------------------------------------------------------------- main
def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m experiments.multiclass", description=__doc__.splitlines()[0])
    p.add_argument("--data-dir", default=os.environ.get("FINDRS_DATA_DIR"))
    p.add_argument("--out", default="results")
    p.add_argument("--datasets", nargs="+", default=list(DATASETS), choices=DATASETS)
    p.add_argument("--splits", type=int, default=10)
    p.add_argument("--T", type=int, default=100, help="BP's runs (default 100)")
    p.add_argument("--connect4-T", type=int, default=10, help="BP's runs on connect-4 (default 10)")
    p.add_argument("--ripper-budget", type=float, default=300.0, help="seconds per RIPPER one-vs-rest fit")
    p.add_argument("--skip-baselines", action="store_true")
    p.add_argument("--tables-only", action="store_true")
    args = p.parse_args(argv)
    out = Path(args.out)
    (out / "raw").mkdir(parents=True, exist_ok=True)
    raw_path = out / "raw" / "multiclass.csv"
    info_path = out / "raw" / "multiclass_info.txt"
    command = command_line("experiments.multiclass", sys.argv[1:] if argv is None else argv)
    if args.tables_only:
        info = info_path.read_text().splitlines() if info_path.exists() else []
        print(report(_read_raw(raw_path), out, info[0] if info else command, info[1:]))
        return 0
    # A run of some data sets keeps the rows (and the run line) of the others.
    kept = _read_raw(raw_path).filter(~pl.col("dataset").is_in(args.datasets)) if raw_path.exists() else None
    if kept is not None and kept.is_empty():
        kept = None
    old_info = info_path.read_text().splitlines() if kept is not None and info_path.exists() else []
    import findrs
    import sklearn
    import wittgenstein

    data_dir = Path(args.data_dir) if args.data_dir else None
    started = _dt.datetime.now(_dt.timezone.utc)
    rows: list[dict[str, Any]] = []
    for name in args.datasets:
        df = load(name, data_dir)
        T = args.connect4_T if name == "connect-4" else args.T
        ripper_ok = True
        for s in range(args.splits):
            train, test = findrs.datasets.train_test_split(df, test_fraction=0.5, seed=s)
            done: list[dict[str, Any]] = run_findrs(train, test, s, T)
            if not args.skip_baselines:
                done.append(run_cart(train, test, s))
                done.append(run_lr(train, test, s))
                if ripper_ok:
                    r = run_ripper(train, test, s, args.ripper_budget)
                    ripper_ok = r["status"] == "ok"
                else:
                    r = dict(method="RIPPER ovr", status="exceeded", note=f"not run: exceeded {args.ripper_budget:.0f} s")
                done.append(r)
            for r in done:
                rows.append({**{k: None for k in RAW_COLUMNS}, **r, "dataset": name, "split": s})
            acc = {r["method"]: r.get("accuracy") for r in done}
            print(f"{name} split {s}: " + ", ".join(f"{m} {a:.3f}" for m, a in acc.items() if a is not None), flush=True)
            _with_kept(pl.DataFrame(rows, schema=RAW_COLUMNS), kept).write_csv(raw_path)
    finished = _dt.datetime.now(_dt.timezone.utc)
    info = [
        f"- Run {started:%Y-%m-%d %H:%M} to {finished:%H:%M} UTC ({(finished - started).total_seconds() / 60:.0f} min) "
        f"on {platform.machine()} with {os.cpu_count()} cores, one thread per library (other jobs shared the "
        "machine, so times are noisy); findrs " + findrs.__version__ + f", scikit-learn {sklearn.__version__}, "
        f"wittgenstein {getattr(wittgenstein, '__version__', '?')}, polars {pl.__version__}.",
        "- Splits: `findrs.datasets.train_test_split(df, test_fraction=0.5, seed=s)` for s = 0.."
        f"{args.splits - 1}; the same split for every method.",
        "- Baselines: CART `max_depth` in {None, 5, 10, 20} (and, for car and connect-4, ordinal codes or "
        "one-hot) by 5-fold CV on the training half; LR multinomial lbfgs, one-hot categorical and "
        "standardised numeric features, `C` in {0.25, 1, 4} by 5-fold CV; RIPPER one-vs-rest: "
        "wittgenstein's RIPPER with its default parameters per class, the class of highest "
        f"`predict_proba` (a child process, at most {args.ripper_budget:.0f} s per split; a data set that "
        "exceeds it on one split is not run on the others).",
    ]
    if kept is not None:
        names = ", ".join(d for d in DATASETS if d in set(kept["dataset"].to_list()))
        earlier = old_info[1].removeprefix("- ") if len(old_info) > 1 else "an earlier run"
        info.append(f"- Rows of {names}: kept from the earlier run (`{old_info[0] if old_info else '?'}`): {earlier}")
    info_path.write_text("\n".join([command, *info]))
    print(report(_with_kept(pl.DataFrame(rows, schema=RAW_COLUMNS), kept), out, command, info))
    return 0


def _read_raw(path: Path) -> pl.DataFrame:
    """The raw rows; files written before the ``numeric`` column get it null."""
    raw = pl.read_csv(path, schema_overrides={k: v for k, v in RAW_COLUMNS.items() if k != "numeric"})
    if "numeric" not in raw.columns:
        raw = raw.with_columns(pl.lit(None, pl.String).alias("numeric"))
    return raw.select([pl.col(k).cast(v) for k, v in RAW_COLUMNS.items()])


def _with_kept(new: pl.DataFrame, kept: pl.DataFrame | None) -> pl.DataFrame:
    return new if kept is None else pl.concat([kept, new])


if __name__ == "__main__":
    sys.exit(main())
