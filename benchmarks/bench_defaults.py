"""Default fit time and accuracy next to the anchors, in the same run: findrs' default fit
(``findrs.fit(train, "class", True, random_state=seed)``), scikit-learn's CART with its depth
chosen by 5-fold CV, LightGBM (defaults) and EBM (``interpret``, defaults), on the seed's 50/50
split of the paper's data sets (Adult: adult.data -> adult.test) with 0, 10 or 20% of the
training labels flipped.

    python benchmarks/bench_defaults.py --data-dir "$FINDRS_DATA_DIR" \
        --datasets adult connect-4 kr-vs-kp mushroom car --noise 0 0.1 --out results/defaults-time.md

Per fit: wall seconds, CPU seconds of this process (all its threads: ``time.process_time``),
test accuracy, and for findrs the model's rules and conditions (exception rules counted) and
the run groups its cross-validation scored. Anchors that are not installed are left out (their
columns empty). ``--findrs-only`` skips the anchors; ``--variant NAME=module.ATTR=value``
(repeatable) fits findrs once more per split with a module constant set, e.g.
``--variant grid=findrs.select.halving.MIN_ROWS=1000000000`` (the whole grid, no halving), so a
change is measured against the previous choice in the same run.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from pathlib import Path
from typing import Any, Callable

import polars as pl

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from experiments.noisy import _matrices, split  # noqa: E402
from experiments.default_variants import set_constant  # noqa: E402
from experiments.small import model_size  # noqa: E402
from experiments.uci import require_data_dir  # noqa: E402


def _timed(f: Callable[[], Any]) -> tuple[Any, float, float]:
    t, c = time.perf_counter(), time.process_time()
    out = f()
    return out, time.perf_counter() - t, time.process_time() - c


def run_findrs(train: pl.DataFrame, test: pl.DataFrame, seed: int) -> dict[str, Any]:
    import findrs

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model, wall, cpu = _timed(lambda: findrs.fit(train, "class", True, random_state=seed))
    rules, conds = model_size(model) if model.rules is not None else (None, None)
    cv = model.cv_results
    return dict(acc=float(model.score(test)), wall=wall, cpu=cpu, rules=rules, conditions=conds,
                candidates=None if cv is None else cv.height)


def run_anchor(name: str, train: pl.DataFrame, test: pl.DataFrame, seed: int) -> dict[str, Any] | None:
    y, yt = train["class"].to_numpy(), test["class"].to_numpy()
    if name == "cart":
        from sklearn.model_selection import GridSearchCV, StratifiedKFold
        from sklearn.tree import DecisionTreeClassifier

        def fit() -> Any:
            Xtr, Xte = _matrices(train, test)
            g = GridSearchCV(DecisionTreeClassifier(random_state=seed),
                             {"max_depth": [2, 3, 4, 5, 6, 8, 10, 12, 15, 20, None]},
                             cv=StratifiedKFold(5, shuffle=True, random_state=seed)).fit(Xtr, y)
            return float(g.score(Xte, yt)), int(g.best_estimator_.get_n_leaves())
    elif name == "lightgbm":
        try:
            import lightgbm
        except ImportError:
            return None

        def fit() -> Any:
            Xtr, Xte = _matrices(train, test)
            m = lightgbm.LGBMClassifier(random_state=seed, verbose=-1).fit(Xtr, y)
            return float((m.predict(Xte) == yt).mean()), None
    elif name == "ebm":
        try:
            from interpret.glassbox import ExplainableBoostingClassifier
        except ImportError:
            return None

        def fit() -> Any:
            x, xt = (d.drop("class").to_pandas() for d in (train, test))
            m = ExplainableBoostingClassifier(random_state=seed, n_jobs=2).fit(x, y)
            return float((m.predict(xt) == yt).mean()), None
    else:
        raise ValueError(name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        (acc, rules), wall, cpu = _timed(fit)
    return dict(acc=acc, wall=wall, cpu=cpu, rules=rules)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir")
    ap.add_argument("--datasets", nargs="+", default=["adult", "connect-4", "kr-vs-kp", "mushroom", "car"])
    ap.add_argument("--seeds", nargs="+", type=int, default=[0])
    ap.add_argument("--noise", nargs="+", type=float, default=[0.0, 0.1])
    ap.add_argument("--anchors", nargs="*", default=["cart", "lightgbm", "ebm"])
    ap.add_argument("--variant", action="append", default=[], help="NAME=module.ATTR=value (repeatable per NAME)")
    ap.add_argument("--out")
    args = ap.parse_args(argv)
    data_dir = require_data_dir(args.data_dir)
    variants: dict[str, list[str]] = {}
    for v in args.variant:
        name, spec = v.split("=", 1)
        variants.setdefault(name, []).append(spec)
    rows = []
    for name in args.datasets:
        for noise in args.noise:
            if name == "adult" and noise:
                continue
            for seed in args.seeds:
                train, test = split(name, data_dir, seed, noise)
                base = dict(dataset=name, noise=noise, seed=seed, train_rows=train.height,
                            load=round(os.getloadavg()[0], 1))
                rows.append({**base, "method": "findrs", **run_findrs(train, test, seed)})
                print(rows[-1], flush=True)
                for vname, specs in variants.items():
                    olds = [set_constant(s) for s in specs]
                    try:
                        rows.append({**base, "method": f"findrs-{vname}", **run_findrs(train, test, seed)})
                    finally:
                        for m, attr, old in olds:
                            setattr(m, attr, old)
                    print(rows[-1], flush=True)
                for a in args.anchors:
                    out = run_anchor(a, train, test, seed)
                    if out is not None:
                        rows.append({**base, "method": a, **out})
                        print(rows[-1], flush=True)
    df = pl.DataFrame(rows, infer_schema_length=None)
    cmd = "python benchmarks/bench_defaults.py " + " ".join(
        a for a in (argv if argv is not None else sys.argv[1:]) if a != args.data_dir)
    text = f"`{cmd}`\n\n{render(df)}\n"
    print(text)
    if args.out:
        Path(args.out).write_text(text)
        df.write_csv(Path(args.out).with_suffix(".raw.csv"))
    return 0


def render(df: pl.DataFrame) -> str:
    """The raw rows as one Markdown table: the mean per data set, noise rate and method, and
    each method's wall time as a multiple of CART's (with its CV) on the same data."""
    if "conditions" not in df.columns:
        df = df.with_columns(conditions=pl.lit(None, pl.Int64))
    table = (df.group_by("dataset", "noise", "method", maintain_order=True)
             .agg(pl.col("acc").mean().round(4), pl.col("wall").mean().round(2), pl.col("cpu").mean().round(2),
                  pl.col("rules").mean().round(1), pl.col("conditions").mean().round(1), pl.col("load").max()))
    ref = table.filter(pl.col("method") == "cart").select("dataset", "noise", cart_wall="wall")
    table = table.join(ref, on=["dataset", "noise"], how="left", maintain_order="left").with_columns(
        x_cart_wall=(pl.col("wall") / pl.col("cart_wall")).round(2)).drop("cart_wall")
    with pl.Config(tbl_rows=-1, tbl_cols=-1, tbl_formatting="MARKDOWN", tbl_hide_dataframe_shape=True,
                   tbl_hide_column_data_types=True, tbl_width_chars=1000, fmt_str_lengths=100):
        return str(table)


if __name__ == "__main__":
    raise SystemExit(main())
