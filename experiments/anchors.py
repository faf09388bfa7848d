"""Interpretable rule learners on the splits of results/intervals.md (issue 13: can a rule model
with few rules reach logistic regression's accuracy on wine?).

    python -m experiments.anchors --data-dir "$FINDRS_DATA_DIR" --datasets wine banknote \
        --out results/intervals-wine.md

The splits are experiments/intervals.py's (``splits``: seeds 0..9, 50/50,
``findrs.datasets.train_test_split``; wine is class 2 against the rest). On each split, in the
same run:

* imodels' rule and small-tree learners on the raw numeric features (no binning), each with its
  size knob chosen by stratified 5-fold CV on the training half (shuffled with the split's seed,
  accuracy; the grid ascends in size and a tie goes to the first, i.e. the smaller model), then
  refitted on the training half: FIGS (``max_rules``), RuleFit with rules only and with rules
  plus linear terms (``max_rules``, ``cv=False`` so that ``max_rules`` sets the LASSO path),
  SkopeRules (``max_depth``), GreedyRuleList (``max_depth``), BoostedRules (``n_estimators``,
  depth-1 stumps) and SLIPPER (``n_estimators``);
* findrs' default fit (``findrs.fit(train, "class", random_state=seed)``, every setting by its
  own CV on the training half, docs/semantics.md §9.4-§9.5);
* the baselines of results/intervals.md, tuned as there (experiments/baselines.py's
  ``grid_search``): LR on one-hot bins (the paper's LR) and on standardized raw features, CART
  on raw features; RIPPER (wittgenstein, defaults) on raw features.

Per model and split: test accuracy, ``rules`` (what a reader reads: findrs' voting rules, CART's
and FIGS' leaves summed over its trees, RuleFit's non-zero terms, SkopeRules' rules, the rule
list's tests, BoostedRules' and SLIPPER's weighted rules), ``conditions`` (their conditions in
total: imodels' ``complexity_`` where it counts conditions), the size setting chosen, and the CPU
seconds of the whole model (grid search and refit; ``time.process_time``, all threads of this
process). Nothing is chosen on a test half. Raw rows go to ``<out>`` with ``.anchors.raw.csv``;
the Markdown section "Interpretable rule learners on the same splits" is written into ``<out>``
(replacing that section if present, else appended).
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
import warnings
from pathlib import Path
from typing import Any, Callable

import numpy as np
import polars as pl

from .uci import command_line

SECTION = "## Interpretable rule learners on the same splits"
FOLDS = 5


# --------------------------------------------------------------------------- imodels
def _figs_size(m: Any) -> tuple[float, float]:
    def leaves(node: Any) -> int:
        return 1 if node.left is None else leaves(node.left) + leaves(node.right)

    return float(sum(leaves(t) for t in m.trees_)), float(m.complexity_)


def _rule_list_size(m: Any) -> tuple[float, float]:
    tests = sum(1 for r in m.rules_ if "col" in r)
    return float(tests), float(tests)


def _imodels() -> list[tuple[str, Callable[[int, dict[str, Any]], Any], str, list[Any], Callable[[Any], tuple[float, float]]]]:
    """(label, make(seed, params), knob, grid ascending in size, size(model) -> (rules, conditions))."""
    import imodels

    return [
        ("FIGS", lambda s, p: imodels.FIGSClassifier(random_state=s, **p), "max_rules",
         [1, 2, 3, 4, 5, 6, 8, 10, 12, 16, 24, 32], _figs_size),
        ("RuleFit, rules", lambda s, p: imodels.RuleFitClassifier(random_state=s, include_linear=False, cv=False, **p),
         "max_rules", [2, 4, 8, 16], lambda m: (float(len(m.rules_without_feature_names_)), float(m.complexity_))),
        ("RuleFit, rules + linear", lambda s, p: imodels.RuleFitClassifier(random_state=s, include_linear=True, cv=False, **p),
         "max_rules", [2, 4, 8, 16], lambda m: (float(len(m.rules_without_feature_names_)), float(m.complexity_))),
        ("SkopeRules", lambda s, p: imodels.SkopeRulesClassifier(random_state=s, **p), "max_depth", [1, 2, 3],
         lambda m: (float(len(m.rules_)), float(m.complexity_))),
        ("GreedyRuleList", lambda s, p: imodels.GreedyRuleListClassifier(**p), "max_depth", [1, 2, 3, 4, 5, 6, 8],
         _rule_list_size),
        ("BoostedRules (stumps)", lambda s, p: imodels.BoostedRulesClassifier(random_state=s, **p), "n_estimators",
         [1, 2, 3, 5, 8, 10, 15, 20, 30, 50, 80], lambda m: (float(len(m.estimators_)), float(len(m.estimators_)))),
        ("SLIPPER", lambda s, p: imodels.SlipperClassifier(**p), "n_estimators", [1, 2, 4, 8],
         lambda m: (float(len(m.estimators_)), float(m.complexity_))),
    ]


def _fit(model: Any, x: np.ndarray, y: np.ndarray, names: list[str]) -> Any:
    try:
        return model.fit(x, y, feature_names=names)
    except TypeError:
        return model.fit(x, y)


def tune(make: Callable[[dict[str, Any]], Any], knob: str, grid: list[Any], x: np.ndarray, y: np.ndarray,
         names: list[str], seed: int) -> tuple[Any, Any, float]:
    """``knob`` by stratified 5-fold CV on (x, y) (the first of the best: the smaller model), then
    the refit on every row: (model, chosen value, its CV accuracy)."""
    from sklearn.model_selection import StratifiedKFold

    folds = list(StratifiedKFold(FOLDS, shuffle=True, random_state=seed).split(x, y))
    means = []
    for value in grid:
        right = 0
        for a, b in folds:
            m = _fit(make({knob: value}), x[a], y[a], names)
            right += int((np.asarray(m.predict(x[b])).astype(int) == y[b]).sum())
        means.append(right / len(y))
    best = int(np.argmax(means))
    return _fit(make({knob: grid[best]}), x, y, names), grid[best], means[best]


def imodels_rows(train: pl.DataFrame, test: pl.DataFrame, seed: int, models: list[str] | None = None) -> list[dict[str, Any]]:
    """The imodels learners (``models``: their labels, default all) tuned and scored on one split."""
    names = [c for c in train.columns if c != "class"]
    x_tr, x_te = (f.select(names).to_numpy().astype(np.float64) for f in (train, test))
    y_tr, y_te = (f["class"].to_numpy().astype(int) for f in (train, test))
    out = []
    for label, make, knob, grid, size in _imodels():
        if models is not None and label not in models:
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            cpu = time.process_time()
            try:
                m, value, cv = tune(lambda p: make(seed, p), knob, grid, x_tr, y_tr, names, seed)
            except Exception as e:  # recorded, never skipped silently
                out.append({"model": label, "accuracy": None, "note": f"failed: {type(e).__name__}: {e}"[:200]})
                continue
            cpu = time.process_time() - cpu
            pred = np.asarray(m.predict(x_te)).astype(int)
        rules, conditions = size(m)
        out.append({"model": label, "accuracy": float((pred == y_te).mean()), "rules": rules, "conditions": conditions,
                    "setting": f"{knob}={value}", "cv_accuracy": cv, "cpu_seconds": cpu})
    return out


# --------------------------------------------------------------------------- findrs and baselines
def findrs_row(train: pl.DataFrame, test: pl.DataFrame, seed: int) -> dict[str, Any]:
    import findrs

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cpu = time.process_time()
        m = findrs.fit(train, "class", random_state=seed)
        cpu = time.process_time() - cpu
    v = m.vote
    cv = m.cv_results.filter(pl.col("chosen"))
    return {"model": "findrs default", "accuracy": m.score(test), "rules": float(m.n_rules),
            "conditions": float(sum(len(r) for r in v.rules)),
            "setting": f"{m.params['numeric']}, {m.params['method']}, {m.params['direction']}",
            "cv_accuracy": float(cv["cv_accuracy"][0]), "cpu_seconds": cpu}


def baseline_rows(train: pl.DataFrame, test: pl.DataFrame, seed: int) -> list[dict[str, Any]]:
    """LR (one-hot bins, raw) and CART raw exactly as results/intervals.md tunes them; RIPPER raw."""
    from .baselines import grid_search
    from .intervals import _bin_matrices, _raw_matrices, ripper_row

    y_tr, y_te = train["class"].to_numpy().astype(bool), test["class"].to_numpy().astype(bool)
    out = []
    for label, name, which in (("LR one-hot bins", "lr", "bins"), ("LR raw", "lr", "raw"), ("CART raw", "cart", "raw")):
        cpu = time.process_time()
        if which == "bins":
            _, _, x_tr, x_te = _bin_matrices(train, test)
        else:
            cart_tr, cart_te, lr_tr, lr_te = _raw_matrices(train, test)
            x_tr, x_te = (cart_tr, cart_te) if name == "cart" else (lr_tr, lr_te)
        task = {"name": name, "seed": seed, "budget": float("inf"), "X_train": x_tr, "y_train": y_tr,
                "X_test": x_te, "y_test": y_te, "columns": []}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = grid_search(task, lambda *a: None)
        cpu = time.process_time() - cpu
        leaves = float(r["n_rules"]) if r["n_rules"] is not None else None
        out.append({"model": label, "accuracy": r["accuracy"], "rules": leaves,
                    # A tree's conditions: its internal nodes (leaves - 1).
                    "conditions": leaves - 1 if leaves is not None else None,
                    "setting": r["params"], "cv_accuracy": r["cv_score"], "cpu_seconds": cpu})
    cpu = time.process_time()
    rip = ripper_row(train, test, seed)
    out.append({"model": "RIPPER raw", "accuracy": rip["accuracy"], "rules": rip["rules"],
                "conditions": rip["rules"] * rip["conditions"], "setting": "defaults", "cv_accuracy": None,
                "cpu_seconds": time.process_time() - cpu})
    return out


# --------------------------------------------------------------------------- report
ORDER = ["findrs default", "LR one-hot bins", "LR raw", "CART raw", "RIPPER raw", "FIGS", "RuleFit, rules",
         "RuleFit, rules + linear", "SkopeRules", "GreedyRuleList", "BoostedRules (stumps)", "SLIPPER"]


def section(raw: pl.DataFrame, command: str, load: str) -> str:
    from scipy import stats

    lines = [
        SECTION,
        "",
        f"Made by `{command}` (script: `experiments/anchors.py`, which says what is run); load average during",
        f"the run {load} on the shared 2-core machine. Same splits as above (seeds 0..9, 50/50). Mean ±",
        "standard deviation over the splits. `rules`: what a reader reads (findrs: voting rules; CART and FIGS:",
        "leaves, summed over FIGS' trees; RuleFit: non-zero terms; rule lists: tests; BoostedRules and SLIPPER:",
        "weighted rules); `cond.`: conditions in total; `setting`: the size chosen by 5-fold CV on the training",
        "half (most often chosen value, and how often); `CPU-s`: the whole model, grid search and refit. `vs LR`:",
        "accuracy minus LR one-hot bins' split by split, mean, splits at least as accurate, and the two-sided p",
        "of the corrected resampled t (Nadeau and Bengio 2003, as above; the splits overlap).",
        "",
    ]
    for ds in [d for d in ("wine", "banknote", "breast-cancer") if d in raw["dataset"].to_list()]:
        sub = raw.filter(pl.col("dataset") == ds)
        n = sub["split"].n_unique()
        lr = sub.filter(pl.col("model") == "LR one-hot bins").select("split", pl.col("accuracy").alias("lr"))
        lines += [f"### {ds} ({n} splits)", "",
                  "| model | accuracy | rules | cond. | setting | CV accuracy | CPU-s | vs LR one-hot bins |",
                  "|---|---|---|---|---|---|---|---|"]
        models = [m for m in ORDER if m in sub["model"].to_list()]
        for model in models:
            r = sub.filter(pl.col("model") == model)

            def cell(col: str, digits: int) -> str:
                x = r[col].drop_nulls() if col in r.columns else pl.Series([])
                if x.len() == 0:
                    return ""
                return f"{x.mean():.{digits}f}" + (f" ± {x.std():.{digits}f}" if x.len() > 1 else "")

            if r["accuracy"].null_count():
                notes = r["note"].drop_nulls().unique().to_list() if "note" in r.columns else []
                lines.append(f"| {model} | not run on {r['accuracy'].null_count()} splits: {'; '.join(notes)} |  |  |  |  |  |  |")
                continue
            top = r["setting"].value_counts(sort=True).row(0)
            vs = ""
            if model != "LR one-hot bins" and lr.height:
                d = r.join(lr, on="split").with_columns(d=pl.col("accuracy") - pl.col("lr"))["d"].to_numpy()
                vs = f"{d.mean():+.3f}, {int((d >= -1e-12).sum())}/{len(d)}"
                if len(d) > 1:
                    ratio = test_rows(ds, sub) / (total_rows(ds, sub) - test_rows(ds, sub))
                    se = d.std(ddof=1) * (1 / len(d) + ratio) ** 0.5
                    vs += f", p {float(2 * stats.t.sf(abs(d.mean()) / se, len(d) - 1)) if se > 0 else 1.0:.2f}"
            lines.append(f"| {model} | {cell('accuracy', 3)} | {cell('rules', 1)} | {cell('conditions', 1)} | "
                         f"{top[0]} ({top[1]}/{r.height}) | {cell('cv_accuracy', 3)} | {cell('cpu_seconds', 1)} | {vs} |")
        lines.append("")
    return "\n".join(lines)


def test_rows(ds: str, sub: pl.DataFrame) -> int:
    return int(sub["test_rows"][0])


def total_rows(ds: str, sub: pl.DataFrame) -> int:
    return int(sub["total_rows"][0])


def write_section(out: Path, text: str, heading: str = SECTION) -> None:
    """Replace ``heading``'s section of ``out`` (up to the next heading of the same level or the
    end) by ``text``, or append it."""
    old = out.read_text() if out.exists() else ""
    level = heading.split(" ")[0]
    pattern = re.compile(rf"^{re.escape(heading)}\n.*?(?=^{level} (?!#)|\Z)", re.S | re.M)
    if pattern.search(old):
        new = pattern.sub(lambda _: text.rstrip("\n") + "\n\n", old, count=1)
    else:
        new = old.rstrip("\n") + ("\n\n" if old else "") + text.rstrip("\n") + "\n"
    out.write_text(new.rstrip("\n") + "\n")


# The sections of results/intervals-wine.md that other scripts than ``--wine-errors`` write (this
# one, experiments/remedies.py's) and the hand-written conclusion after them.
LATER_SECTIONS = (SECTION, "## findrs remedies chosen by CV on the training half", "## Conclusion")


def keep_sections(old: str, new: str) -> str:
    """``new`` followed by ``old``'s text from the first of ``LATER_SECTIONS`` on (none: ``new``)."""
    starts = [m.start() for h in LATER_SECTIONS for m in re.finditer(rf"^{re.escape(h)}\b", old, re.M)]
    if not starts:
        return new
    return new.rstrip("\n") + "\n\n" + old[min(starts):].rstrip("\n") + "\n"


def main(argv: list[str] | None = None) -> int:
    from .intervals import splits

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data-dir", default=os.environ.get("FINDRS_DATA_DIR"))
    p.add_argument("--out", default="results/intervals-wine.md")
    p.add_argument("--datasets", nargs="+", default=["wine", "banknote"], choices=["wine", "banknote", "breast-cancer"])
    p.add_argument("--splits", type=int, default=10)
    p.add_argument("--models", nargs="+", help="only these imodels learners (labels of the table; default all)")
    p.add_argument("--tables-only", action="store_true", help="rebuild the section from the raw rows")
    args = p.parse_args(argv)
    out = Path(args.out)
    raw_path = out.with_suffix(".anchors.raw.csv")
    command = command_line("experiments.anchors", sys.argv[1:] if argv is None else argv)
    loads: list[float] = [os.getloadavg()[0]]
    if not args.tables_only:
        if not args.data_dir:
            p.error("--data-dir or FINDRS_DATA_DIR is needed")
        rows = []
        for ds in args.datasets:
            for seed, train, test in splits(ds, args.data_dir, args.splits):
                found = [findrs_row(train, test, seed), *baseline_rows(train, test, seed), *imodels_rows(train, test, seed, args.models)]
                loads.append(os.getloadavg()[0])
                for r in found:
                    rows.append({"dataset": ds, "split": seed, "test_rows": test.height,
                                 "total_rows": train.height + test.height, **r})
                print(f"{ds} split {seed}: " + ", ".join(
                    f"{r['model']} {r['accuracy']:.3f}" if r["accuracy"] is not None else f"{r['model']} failed"
                    for r in found), flush=True)
        raw = pl.DataFrame(rows, infer_schema_length=None)
        raw = raw.with_columns(pl.lit(f"{min(loads):.1f}-{max(loads):.1f}").alias("load"))
        if raw_path.exists():
            # Keep the rows of the (data set, model) pairs not rerun (read now: another run may have
            # written them), so that ``--models`` reruns only those learners.
            old = pl.read_csv(raw_path, infer_schema_length=None)
            rerun = raw.select("dataset", "model").unique()
            raw = pl.concat([old.join(rerun, on=["dataset", "model"], how="anti"), raw], how="diagonal_relaxed")
        raw.write_csv(raw_path)
    raw = pl.read_csv(raw_path, infer_schema_length=None)
    if args.tables_only and out.exists():
        found = re.search(r"Made by `(python -m experiments\.anchors[^`]*)`", out.read_text())
        command = found.group(1) if found else command
    loads_seen = raw["load"].unique(maintain_order=True).to_list()
    write_section(out, section(raw, command, ", ".join(loads_seen)))
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    os.environ.update({v: "1" for v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")})
    sys.exit(main())
