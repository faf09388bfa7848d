"""Test AUC of findrs' graded probabilities (``model.predict_proba``, docs/semantics.md §6)
next to scikit-learn's CART and logistic regression, in the same run.

    python -m experiments.auc --data-dir "$FINDRS_DATA_DIR" --out results/auc.md

For each of the paper's binary data sets (experiments/uci.py; the paper's positive class) and
Adult (adult.data), one 50/50 split (``findrs.datasets.train_test_split``, seed 0). On it:

* findrs' default fit (``findrs.fit(train, "class", True, random_state=0)``, every setting by
  its own cross-validation on the training half): the test AUC of ``predict_proba`` and, for
  comparison, of its 0/1 prediction;
* CART (``DecisionTreeClassifier``, ``random_state=0``) on the raw numeric columns and one-hot
  categorical columns, ``max_depth`` in 1..12 or unlimited chosen by stratified 5-fold CV
  (ROC AUC, shuffled with seed 0) on the training half;
* logistic regression (``LogisticRegression``, ``max_iter=5000``, default ``C``) on one-hot
  categorical columns and standardized numeric columns.

A column is categorical when it is a String or Boolean column or an integer column with at most
10 distinct training values (findrs' default ``bins``), numeric otherwise. Nothing is chosen on
a test half. The Markdown table goes to ``--out`` (with the command that made it) and stdout.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from .noisy import load_adult
from .uci import UCI_NAMES, command_line, data_dir_from, load_uci

DEPTHS = [*range(1, 13), None]


def _columns(train: pl.DataFrame) -> tuple[list[str], list[str]]:
    """(categorical, numeric) feature columns of ``train`` (``class`` excluded)."""
    cat, num = [], []
    for name, dtype in train.drop("class").schema.items():
        few = dtype.is_integer() and train[name].n_unique() <= 10
        (cat if dtype in (pl.String, pl.Boolean, pl.Categorical) or few else num).append(name)
    return cat, num


def _matrix(train: pl.DataFrame, test: pl.DataFrame, scale: bool) -> tuple[np.ndarray, np.ndarray]:
    from sklearn.preprocessing import OneHotEncoder, StandardScaler

    cat, num = _columns(train)
    parts_tr, parts_te = [], []
    if cat:
        oh = OneHotEncoder(handle_unknown="ignore", sparse_output=False)
        as_text = [pl.col(c).cast(pl.String).fill_null("<null>") for c in cat]
        parts_tr.append(oh.fit_transform(train.select(as_text).to_numpy()))
        parts_te.append(oh.transform(test.select(as_text).to_numpy()))
    if num:
        a, b = (d.select(pl.col(num).cast(pl.Float64)).to_numpy() for d in (train, test))
        med = np.nanmedian(a, axis=0)
        a, b = np.where(np.isnan(a), med, a), np.where(np.isnan(b), med, b)
        if scale:
            s = StandardScaler().fit(a)
            a, b = s.transform(a), s.transform(b)
        parts_tr.append(a)
        parts_te.append(b)
    return np.hstack(parts_tr), np.hstack(parts_te)


def run_one(name: str, train: pl.DataFrame, test: pl.DataFrame, n_jobs: int = 1) -> dict[str, Any]:
    """Test AUCs of findrs (probability and 0/1), CART and LR on one split."""
    import findrs
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import roc_auc_score
    from sklearn.model_selection import GridSearchCV, StratifiedKFold
    from sklearn.tree import DecisionTreeClassifier

    y_tr, y_te = train["class"].to_numpy(), test["class"].to_numpy()
    row: dict[str, Any] = {"data set": name, "train rows": train.height}
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = findrs.fit(train, "class", True, random_state=0, n_jobs=n_jobs)
    # The probability of model.positive: the label the rules describe, False when the fit chose
    # to describe the other class (docs/semantics.md §9.3).
    proba = model.predict_proba(test).to_numpy()
    if model.positive is not True:
        proba = 1.0 - proba
    row["findrs proba"] = roc_auc_score(y_te, proba)
    row["findrs 0/1"] = roc_auc_score(y_te, model.predict(test).to_numpy().astype(float))
    row["distinct p"] = len(np.unique(proba))
    row["findrs s"] = time.perf_counter() - t0
    X_tr, X_te = _matrix(train, test, scale=False)
    cv = StratifiedKFold(5, shuffle=True, random_state=0)
    cart = GridSearchCV(DecisionTreeClassifier(random_state=0), {"max_depth": DEPTHS}, cv=cv, scoring="roc_auc").fit(X_tr, y_tr)
    row["CART"] = roc_auc_score(y_te, cart.predict_proba(X_te)[:, 1])
    row["CART depth"] = cart.best_params_["max_depth"]
    X_tr, X_te = _matrix(train, test, scale=True)
    lr = LogisticRegression(max_iter=5000).fit(X_tr, y_tr)
    row["LR"] = roc_auc_score(y_te, lr.predict_proba(X_te)[:, 1])
    return row


def table(rows: list[dict[str, Any]]) -> str:
    """The rows as a Markdown table (AUCs to 4 decimals)."""
    cols = ["data set", "train rows", "findrs proba", "findrs 0/1", "distinct p", "CART", "CART depth", "LR", "findrs s"]
    out = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for r in rows:
        cells = []
        for c in cols:
            v = r[c]
            cells.append(f"{v:.4f}" if isinstance(v, float) and c != "findrs s" else f"{v:.1f}" if c == "findrs s" else str(v))
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", default=None)
    # The large ones last: a run cut short still wrote the others.
    ap.add_argument("--datasets", nargs="*", default=[n for n in UCI_NAMES if n != "connect-4"] + ["adult", "connect-4"])
    ap.add_argument("--n-jobs", type=int, default=1, help="threads of findrs' fits (never changes the model)")
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    data_dir = data_dir_from(args.data_dir)
    if data_dir is None:
        print("no data directory: pass --data-dir or set FINDRS_DATA_DIR", file=sys.stderr)
        return 2
    import findrs

    rows = []
    for name in args.datasets:
        if name == "adult":
            train, test = findrs.datasets.train_test_split(load_adult(Path(data_dir))[0], 0.5, seed=0)
        else:
            train, test = findrs.datasets.train_test_split(load_uci(name, data_dir), 0.5, seed=0)
        rows.append(run_one(name, train, test, args.n_jobs))
        print(table(rows[-1:]).splitlines()[-1], flush=True)
        if args.out:
            Path(args.out).write_text(_report(rows, argv))
    print(_report(rows, argv))
    return 0


def _report(rows: list[dict[str, Any]], argv: list[str]) -> str:
    """The Markdown report: what was measured, the command, the table."""
    return (
        "# Test AUC: findrs' graded probabilities, CART and logistic regression\n\n"
        "One 50/50 split (seed 0) per data set; findrs' default fit, its `predict_proba` and its 0/1\n"
        "prediction; CART (depth by 5-fold CV on the training half) and logistic regression on one-hot\n"
        "categorical and standardized numeric columns, in the same run (see experiments/auc.py).\n"
        "`distinct p`: distinct probabilities findrs gave the test rows; `findrs s`: fit and predict\n"
        "seconds (wall, on a shared machine).\n\n"
        f"    {command_line('experiments.auc', argv)}\n\n{table(rows)}\n"
    )


if __name__ == "__main__":
    raise SystemExit(main())
