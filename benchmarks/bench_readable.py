"""How long are the rules? findrs beside RIPPER and CART, all fitted in the same run.

    python benchmarks/bench_readable.py [--data-dir DIR] [--datasets mushroom kr-vs-kp car banknote]
                                        [--simplify]

The UCI files come from ``--data-dir DIR`` or the ``FINDRS_DATA_DIR`` environment variable. For
each data set, on the seed-0 50/50 split (``findrs.datasets.train_test_split(df, 0.5, 0)``), with
default settings and ``random_state=0`` everywhere:

- findrs FIND-RS (``findrs.fit(train, "class")``) and FIND-RS-BP with T = 100 (automatic K):
  the mean number of conditions of the voting rules (FIND-RS: also the longest), the number of
  rules and the test accuracy; with ``--simplify``, also both with ``simplify=True`` (needs a
  findrs whose ``fit`` takes it);
- RIPPER (wittgenstein's ``RIPPER(random_state=0)``, positive class ``True``) on the raw columns
  as a pandas frame, as a new user would call it (categories as strings; wittgenstein bins
  numeric columns itself): the mean number of conditions of its rules;
- CART (scikit-learn's ``DecisionTreeClassifier(random_state=0)``) on one-hot columns of the
  categorical features and the numeric columns as they are: the mean depth of its leaves that
  predict positive (each such leaf is a rule whose conditions are its path) and their number.

It prints one Markdown table, the issue's: "mean conditions, (max), rules (accuracy)" per cell.
"""

from __future__ import annotations

import argparse
import inspect
import sys
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

import findrs
from findrs.datasets import train_test_split

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from experiments.uci import load_uci, require_data_dir  # noqa: E402

DATASETS = ("mushroom", "kr-vs-kp", "car", "banknote")


def findrs_cell(model: findrs.RuleSetModel, test: pl.DataFrame, show_max: bool) -> str:
    lengths = model.rules.head(model.n_rules)["constraints"].list.len().to_numpy()
    acc = model.score(test)
    text = f"{lengths.mean():.1f}"
    if show_max:
        text += f", max {lengths.max()}"
    return f"{text}, {model.n_rules} rules ({acc:.3f})"


def ripper_cell(train: pl.DataFrame, test: pl.DataFrame) -> str:
    import wittgenstein as lw

    X_train, X_test = train.drop("class").to_pandas(), test.drop("class").to_pandas()
    clf = lw.RIPPER(random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf.fit(X_train, train["class"].to_numpy().astype(bool), pos_class=True)
        pred = np.asarray(clf.predict(X_test), dtype=bool)
    rules = clf.ruleset_.rules
    acc = float(np.mean(pred == test["class"].to_numpy().astype(bool)))
    mean = np.mean([len(r.conds) for r in rules]) if rules else 0.0
    return f"{mean:.1f}, {len(rules)} rules ({acc:.3f})"


def cart_cell(train: pl.DataFrame, test: pl.DataFrame) -> str:
    from sklearn.preprocessing import OneHotEncoder
    from sklearn.tree import DecisionTreeClassifier

    features = [c for c in train.columns if c != "class"]
    numeric = [c for c in features if train.schema[c].is_numeric()]
    categorical = [c for c in features if c not in numeric]

    def matrix(df: pl.DataFrame, onehot: Any) -> np.ndarray:
        parts = [df.select(numeric).to_numpy().astype(np.float64)] if numeric else []
        if categorical:
            parts.append(onehot.transform(df.select(categorical).to_numpy().astype(object)))
        return np.hstack(parts)

    onehot = None
    if categorical:
        onehot = OneHotEncoder(handle_unknown="ignore", sparse_output=False)
        onehot.fit(train.select(categorical).to_numpy().astype(object))
    y = train["class"].to_numpy().astype(bool)
    tree = DecisionTreeClassifier(random_state=0).fit(matrix(train, onehot), y)
    acc = float(np.mean(tree.predict(matrix(test, onehot)) == test["class"].to_numpy().astype(bool)))
    t = tree.tree_
    depth = np.zeros(t.node_count, dtype=np.int64)
    for node in range(t.node_count):  # children come after their parent
        for child in (t.children_left[node], t.children_right[node]):
            if child >= 0:
                depth[child] = depth[node] + 1
    leaves = np.flatnonzero(t.children_left < 0)
    positive_class = list(tree.classes_).index(True)
    positive = [leaf for leaf in leaves if int(np.argmax(t.value[leaf][0])) == positive_class]
    return f"{np.mean(depth[positive]):.1f}, {len(positive)} leaves ({acc:.3f})"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data-dir", default=None, help="directory with the UCI files (default: $FINDRS_DATA_DIR)")
    ap.add_argument("--datasets", nargs="+", default=list(DATASETS))
    ap.add_argument("--simplify", action="store_true", help="also fit FIND-RS and BP with simplify=True")
    args = ap.parse_args()
    if args.simplify and "simplify" not in inspect.signature(findrs.fit).parameters:
        ap.error("this findrs has no simplify= parameter yet")
    data_dir = require_data_dir(args.data_dir, args.datasets)

    columns = ["findrs FIND-RS", "findrs BP100"]
    if args.simplify:
        columns += ["FIND-RS simplify", "BP100 simplify"]
    columns += ["RIPPER (wittgenstein)", "CART (positive leaves, path length)"]
    print("Seed-0 50/50 split, default settings, random_state=0: mean conditions per positive rule, "
          "rules (test accuracy)\n")
    print("| dataset | " + " | ".join(columns) + " |")
    print("|---|" + "---|" * len(columns))
    for name in args.datasets:
        df = load_uci(name, data_dir)
        train, test = train_test_split(df, 0.5, 0)
        cells = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", findrs.ContradictionWarning)
            variants: list[dict[str, Any]] = [{}] + ([{"simplify": True}] if args.simplify else [])
            fitted = []
            for extra in variants:
                fitted.append(findrs_cell(findrs.fit(train, "class", **findrs.settings.fit_keywords(dict(random_state=0, **extra))), test, True))
                bp = findrs.fit(train, "class", **findrs.settings.fit_keywords(dict(method="bp", random_state=0, **extra, settings=dict(T=100))))
                fitted.append(findrs_cell(bp, test, False))
        cells += fitted
        cells.append(ripper_cell(train, test))
        cells.append(cart_cell(train, test))
        print(f"| {name} | " + " | ".join(cells) + " |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
