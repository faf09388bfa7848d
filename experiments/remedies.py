"""findrs remedies for wine's gap to logistic regression (issue 13), each chosen by
cross-validation on the training half only, measured on wine, banknote and breast-cancer.

    python -m experiments.remedies --data-dir "$FINDRS_DATA_DIR" --out results/intervals-wine.md

The splits are experiments/intervals.py's (seeds 0..9, 50/50). On each split, in the same run:

* ``default``: ``findrs.fit(train, "class", random_state=seed, max_rules=None)`` (docs/semantics.md
  §9.4-§9.5; the default when these were measured, now the accuracy-first fit);
* ``one-SE``: the default's own cross-validation table (``model.cv_results``, every FIND-RS and
  vote candidate, 5 folds of the training half) read with the one-standard-error rule of
  Breiman et al. (1984): the candidates whose CV accuracy is at least the best one's minus its
  standard error (fold standard deviation / sqrt(5)), and among them the one with the fewest
  conditions (a tie to the higher CV accuracy, then the table's order), refitted on the
  training half with exactly those settings given (``auto=False``; the default's own choice
  refitted this way gives the default's predictions, checked on every split);
* ``small grid``: the default with ``tolerance=0``, ``min_support=0``, ``simplify=False`` given
  (the paper's values), so that its CV chooses among 4 FIND-RS candidates per kind of feature
  (encoding x direction; bins with both bin edge placements, or intervals) and the vote, not 256;
* ``exceptions, interval``: rules with exceptions (§9.6) on interval features, settings by CV;
  ``exceptions`` the same with bins or intervals by CV;
* ``default or exceptions by nested CV``: the default and ``exceptions, interval``, each whole fit
  (its own inner CV) scored on 5 outer folds of the training half (stratified, shuffled with the
  split's seed); the one with more held-out rows right is fitted (a tie to the default);
* ``findrs rules weighted (L1 LR)``: suggested by the anchors (experiments/anchors.py), where only
  weighted sums of conditions reached LR: the distinct rules of 12 BP fits (T = 100, every rule
  found; AV, bins or intervals, either direction, tolerance 0, 0.1 or 0.2; ``POOL``) as 0/1
  features, weighted by L1 logistic regression with ``C`` by 5-fold CV on the training half
  (``weighted_rules``): not a model findrs makes, a measure of what weighting its rules would give;
* ``LR one-hot bins``: the paper's LR as results/intervals.md tunes it.

Per row: test accuracy, rules (voting rules; with exceptions, ``n_rules``: rules and the
exception rules in use), and the CPU seconds of the whole remedy (``time.process_time``).
Raw rows: ``<out>`` with ``.remedies.raw.csv``; the section "findrs remedies chosen by CV on the
training half" is written into ``<out>`` (replaced if present).
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from .uci import command_line

SECTION = "## findrs remedies chosen by CV on the training half"
FOLDS = 5


def _tolerance(text: str) -> int | float:
    return float(text) if "." in text else int(text)


def settings_of(row: dict[str, Any]) -> dict[str, Any]:
    """The ``fit`` arguments that give the candidate ``row`` of a ``cv_results`` table (§9.4, §9.5)."""
    kw: dict[str, Any] = {
        "method": row["method"], "encoding": row["encoding"], "tolerance": _tolerance(row["tolerance"]),
        "min_support": int(row["min_support"]), "direction": row["direction"], "simplify": bool(row["simplify"]),
        "numeric": row["numeric"], "bin_edges": row["bin_edges"], "auto": False,
    }
    if row["method"] != "find-rs":
        kw["T"] = int(row["cv_T"])
        kw["n_rules"] = int(row["n_rules"]) if row["n_rules"] not in (None, "auto") else "auto"
    return kw


def one_se_row(table: pl.DataFrame, folds: int = FOLDS) -> dict[str, Any]:
    """The one-standard-error choice of a ``cv_results`` table: the fewest conditions among the
    candidates within one standard error of the best CV accuracy (a tie to the higher accuracy,
    then the earlier row)."""
    t = table.with_row_index("order")
    best = t.sort(["cv_accuracy", "conditions", "order"], descending=[True, False, False]).row(0, named=True)
    bound = best["cv_accuracy"] - best["cv_accuracy_std"] / folds ** 0.5 - 1e-12
    return t.filter(pl.col("cv_accuracy") >= bound).sort(
        ["conditions", "cv_accuracy", "order"], descending=[False, True, False]).row(0, named=True)


def _fit(train: pl.DataFrame, seed: int, **kw: Any) -> Any:
    """The fit of these measurements: ``max_rules=None`` (the accuracy-first fit, the default when
    they were made; docs/semantics.md §8.1) unless ``kw`` gives a size."""
    import findrs

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return findrs.fit(train, "class", **findrs.settings.fit_keywords(dict(random_state=seed, max_rules=None, **kw)))


def _right(model: Any, frame: pl.DataFrame) -> int:
    return int((model.predict(frame).to_numpy() == frame["class"].to_numpy()).sum())


def split_rows(train: pl.DataFrame, test: pl.DataFrame, seed: int) -> list[dict[str, Any]]:
    from sklearn.model_selection import StratifiedKFold

    out = []

    def row(label: str, model: Any, cpu: float, **extra: Any) -> None:
        out.append({"model": label, "accuracy": _right(model, test) / test.height, "rules": float(model.n_rules),
                    "cpu_seconds": cpu, **extra})

    cpu = time.process_time()
    default = _fit(train, seed)
    cpu_default = time.process_time() - cpu
    row("default", default, cpu_default, choice=f"{default.params['numeric']}, {default.params['method']}")

    cpu = time.process_time()
    table = default.cv_results
    chosen = table.filter(pl.col("chosen")).row(0, named=True)
    again = _fit(train, seed, **settings_of(chosen))
    if not np.array_equal(again.predict(test).to_numpy(), default.predict(test).to_numpy()):
        raise AssertionError(f"split {seed}: the default's chosen settings refitted predict differently")
    pick = one_se_row(table)
    one_se = _fit(train, seed, **settings_of(pick))
    row("one-SE", one_se, cpu_default + time.process_time() - cpu,
        choice=f"{pick['numeric']}, {pick['method']}, tol {pick['tolerance']}, simplify {pick['simplify']}")

    cpu = time.process_time()
    small = _fit(train, seed, tolerance=0, min_support=0, simplify=False)
    row("small grid", small, time.process_time() - cpu, choice=f"{small.params['numeric']}, {small.params['method']}")

    for label, kw in (("exceptions, interval", {"numeric": "interval"}), ("exceptions", {})):
        cpu = time.process_time()
        m = _fit(train, seed, exceptions=True, **kw)
        row(label, m, time.process_time() - cpu)
        if label == "exceptions, interval":
            exc, cpu_exc = m, time.process_time() - cpu

    cpu = time.process_time()
    y = train["class"].to_numpy()
    right = {"default": 0, "exceptions, interval": 0}
    for a, b in StratifiedKFold(FOLDS, shuffle=True, random_state=seed).split(np.zeros(len(y)), y):
        right["default"] += _right(_fit(train[a], seed), train[b])
        right["exceptions, interval"] += _right(_fit(train[a], seed, exceptions=True, numeric="interval"), train[b])
    won = "exceptions, interval" if right["exceptions, interval"] > right["default"] else "default"
    row("default or exceptions by nested CV", exc if won != "default" else default,
        time.process_time() - cpu + cpu_default + cpu_exc, choice=won,
        nested_default=right["default"] / len(y), nested_exceptions=right["exceptions, interval"] / len(y))
    cpu = time.process_time()
    acc, n_rules, c = weighted_rules(train, test, seed)
    out.append({"model": "findrs rules weighted (L1 LR)", "accuracy": acc, "rules": float(n_rules),
                "cpu_seconds": time.process_time() - cpu, "choice": f"C={c}"})
    out.append(_lr(train, test, seed))
    return out


# The rule pool of ``weighted_rules``: BP (T = 100, every rule found votes) with the paper's AV and
# each of these (numeric, direction, tolerance), so that the pool holds rules of both labels.
POOL = [(numeric, direction, tol) for numeric in ("bins", "interval") for direction in ("positive", "negative")
        for tol in (0, 0.1, 0.2)]
C_GRID = (0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0)


def weighted_rules(train: pl.DataFrame, test: pl.DataFrame, seed: int) -> tuple[float, int, float]:
    """A weighted vote of findrs rules (RuleFit's idea on findrs' rules): the distinct rules of the
    ``POOL`` fits on the training half are 0/1 features (the row satisfies the rule), weighted by
    L1-penalized logistic regression with ``C`` of ``C_GRID`` chosen by stratified 5-fold CV on the
    training half (the first best: the smallest ``C``, the fewest rules). (test accuracy, rules with
    a non-zero weight, C)."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import StratifiedKFold

    columns: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for numeric, direction, tol in POOL:
        try:
            m = _fit(train, seed, method="bp", T=100, numeric=numeric, direction=direction, tolerance=tol, auto=False)
        except Exception:  # a share tolerance the class sizes refuse: that pool member is left out
            continue
        m = m.with_n_rules(m.n_rules_found)
        texts = m.rules["text"].to_list()
        fired = [m.explain(f)["fired_rules"].to_list() for f in (train, test)]
        for j, text in enumerate(texts):
            if text not in columns:
                columns[text] = tuple(np.array([j in ids for ids in f], dtype=np.float64) for f in fired)  # type: ignore[assignment]
    names = sorted(columns)
    x_tr = np.column_stack([columns[t][0] for t in names])
    x_te = np.column_stack([columns[t][1] for t in names])
    y_tr, y_te = train["class"].to_numpy(), test["class"].to_numpy()
    folds = list(StratifiedKFold(FOLDS, shuffle=True, random_state=seed).split(x_tr, y_tr))

    def lr(c: float) -> Any:
        return LogisticRegression(penalty="l1", solver="liblinear", C=c, random_state=seed)

    means = [np.mean([(lr(c).fit(x_tr[a], y_tr[a]).predict(x_tr[b]) == y_tr[b]).mean() for a, b in folds]) for c in C_GRID]
    c = C_GRID[int(np.argmax(means))]
    model = lr(c).fit(x_tr, y_tr)
    return float((model.predict(x_te) == y_te).mean()), int((model.coef_ != 0).sum()), c


def _lr(train: pl.DataFrame, test: pl.DataFrame, seed: int) -> dict[str, Any]:
    from .baselines import grid_search
    from .intervals import _bin_matrices

    cpu = time.process_time()
    _, _, x_tr, x_te = _bin_matrices(train, test)
    task = {"name": "lr", "seed": seed, "budget": float("inf"), "X_train": x_tr,
            "y_train": train["class"].to_numpy().astype(bool), "X_test": x_te,
            "y_test": test["class"].to_numpy().astype(bool), "columns": []}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = grid_search(task, lambda *a: None)
    return {"model": "LR one-hot bins", "accuracy": r["accuracy"], "rules": None, "cpu_seconds": time.process_time() - cpu}


ORDER = ["default", "one-SE", "small grid", "exceptions, interval", "exceptions", "default or exceptions by nested CV",
         "findrs rules weighted (L1 LR)", "LR one-hot bins"]


def section(raw: pl.DataFrame, command: str, loads: str) -> str:
    lines = [
        SECTION,
        "",
        f"Made by `{command}` (script: `experiments/remedies.py`, which says what is run); load average during",
        f"the run {loads} on the shared 2-core machine. Same splits (seeds 0..9, 50/50). Mean ± standard",
        "deviation over the splits; `vs default`: accuracy minus the default's split by split (mean, splits",
        "better / worse); `choice`: what the remedy chose most often (and how often); CPU-s: the whole",
        "remedy (`time.process_time`).",
        "",
        "| dataset | remedy | accuracy | rules | vs default | choice | CPU-s |",
        "|---|---|---|---|---|---|---|",
    ]
    for ds in raw["dataset"].unique(maintain_order=True).to_list():
        sub = raw.filter(pl.col("dataset") == ds)
        base = sub.filter(pl.col("model") == "default").select("split", pl.col("accuracy").alias("base"))
        for model in [m for m in ORDER if m in sub["model"].to_list()]:
            r = sub.filter(pl.col("model") == model)

            def cell(col: str, digits: int) -> str:
                x = r[col].drop_nulls()
                return "" if x.len() == 0 else f"{x.mean():.{digits}f}" + (f" ± {x.std():.{digits}f}" if x.len() > 1 else "")

            d = r.join(base, on="split").with_columns(d=pl.col("accuracy") - pl.col("base"))["d"].to_numpy()
            vs = "" if model == "default" else f"{d.mean():+.3f} ({int((d > 1e-12).sum())} / {int((d < -1e-12).sum())})"
            choice = ""
            if "choice" in r.columns and r["choice"].drop_nulls().len():
                top = r["choice"].drop_nulls().value_counts(sort=True).row(0)
                choice = f"{top[0]} ({top[1]}/{r.height})"
            if model == "default or exceptions by nested CV" and "nested_default" in r.columns:
                choice += (f"; nested CV accuracy: default {r['nested_default'].mean():.3f}, exceptions "
                           f"{r['nested_exceptions'].mean():.3f}")
            lines.append(f"| {ds} | {model} | {cell('accuracy', 3)} | {cell('rules', 1)} | {vs} | {choice} | "
                         f"{cell('cpu_seconds', 1)} |")
    lines.append("")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    from .anchors import write_section
    from .intervals import splits

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data-dir", default=os.environ.get("FINDRS_DATA_DIR"))
    p.add_argument("--out", default="results/intervals-wine.md")
    p.add_argument("--datasets", nargs="+", default=["wine", "banknote", "breast-cancer"],
                   choices=["wine", "banknote", "breast-cancer"])
    p.add_argument("--splits", type=int, default=10)
    p.add_argument("--tables-only", action="store_true", help="rebuild the section from the raw rows")
    args = p.parse_args(argv)
    out = Path(args.out)
    raw_path = out.with_suffix(".remedies.raw.csv")
    command = command_line("experiments.remedies", sys.argv[1:] if argv is None else argv)
    if not args.tables_only:
        if not args.data_dir:
            p.error("--data-dir or FINDRS_DATA_DIR is needed")
        rows, loads = [], [os.getloadavg()[0]]
        for ds in args.datasets:
            for seed, train, test in splits(ds, args.data_dir, args.splits):
                found = split_rows(train, test, seed)
                loads.append(os.getloadavg()[0])
                rows += [{"dataset": ds, "split": seed, **r} for r in found]
                print(f"{ds} split {seed}: " + ", ".join(f"{r['model']} {r['accuracy']:.3f}" for r in found), flush=True)
        raw = pl.DataFrame(rows, infer_schema_length=None).with_columns(
            pl.lit(f"{min(loads):.1f}-{max(loads):.1f}").alias("load"))
        if raw_path.exists():
            old = pl.read_csv(raw_path, infer_schema_length=None)
            raw = pl.concat([old.filter(~pl.col("dataset").is_in(args.datasets)), raw], how="diagonal_relaxed")
        raw.write_csv(raw_path)
    raw = pl.read_csv(raw_path, infer_schema_length=None)
    if args.tables_only and out.exists():
        found = re.search(r"Made by `(python -m experiments\.remedies[^`]*)`", out.read_text())
        command = found.group(1) if found else command
    write_section(out, section(raw, command, ", ".join(raw["load"].unique(maintain_order=True).to_list())), SECTION)
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    os.environ.update({v: "1" for v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")})
    sys.exit(main())
