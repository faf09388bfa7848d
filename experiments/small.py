"""Small by default: findrs' default fit, whose size the cross-validation chooses
(``max_rules="auto"``, docs/semantics.md §8.1), next to its accuracy-first fit
(``max_rules=None``), RIPPER (wittgenstein, defaults), CART (depth by 5-fold CV), logistic
regression (C by 5-fold CV) and EBM (``interpret``, defaults), in the same run on the same splits.

    python -m experiments.small --data-dir "$FINDRS_DATA_DIR" --out results/small.md \
        --datasets tic-tac-toe car --seeds 0 1 2 --noise 0 0.1

Splits: experiments/noisy.py's (50/50 ``train_test_split`` with the seed; Adult: adult.data /
adult.test, the seed only seeds the learners), training labels flipped at the given rates
(``flip_labels``). Per method and split: test accuracy, ``rules`` (findrs' voting rules,
RIPPER's rules, CART's leaves), ``conditions`` (their conditions in total: a leaf's path
length), and the wall seconds of the whole fit (CART: its grid search). Nothing is chosen on
a test half. The table is the mean over the seeds per data set and noise rate, then the mean
over the data sets; the raw rows go to ``<out>`` with ``.raw.csv``.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import polars as pl

from experiments.noisy import UCI, run_baseline, split
from experiments.uci import command_line, require_data_dir

METHODS = ("findrs-small", "findrs-accurate", "ripper", "cart", "lr", "ebm")


def run_findrs(train: pl.DataFrame, test: pl.DataFrame, seed: int, max_rules: str | None) -> dict:
    import findrs

    t = time.perf_counter()
    model = findrs.fit(train, "class", True, random_state=seed, max_rules=max_rules)
    secs = time.perf_counter() - t
    n, conditions = model_size(model)
    return dict(acc=float(model.score(test)), rules=n, conditions=conditions, secs=secs)


def model_size(model) -> tuple[int, int]:
    """(rules, conditions in total) of a findrs model: its kept voting rules, and with rules
    with exceptions the exception rules too."""
    rules = model.rules.filter("kept")
    exceptions = getattr(model, "exceptions", None)
    n, conditions = rules.height, int(rules["constraints"].list.len().sum())
    if exceptions is not None:  # rules with exceptions: the exception rules count too
        n += exceptions.rules.height
        conditions += int(exceptions.rules["constraints"].list.len().sum())
    return n, conditions


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir")
    ap.add_argument("--datasets", nargs="+", default=[*UCI, "adult"])
    ap.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    ap.add_argument("--noise", nargs="+", type=float, default=[0.0])
    ap.add_argument("--methods", nargs="+", default=list(METHODS), choices=METHODS)
    ap.add_argument("--out", help="the report; its .raw.csv the rows and its .png accuracy against conditions")
    ap.add_argument("--from-raw", nargs="+", metavar="CSV", help="report earlier runs' raw rows instead of fitting")
    args = ap.parse_args(argv)
    warnings.simplefilter("ignore")
    if args.from_raw:
        raw = pl.concat([pl.read_csv(p, schema_overrides={"rules": pl.Float64, "conditions": pl.Float64})
                         for p in args.from_raw], how="diagonal_relaxed")
        return _report(raw, argv, args.out)
    data_dir = require_data_dir(args.data_dir)
    rows = []
    for name in args.datasets:
        for noise in args.noise:
            for seed in args.seeds:
                train, test = split(name, data_dir, seed, noise)
                for method in args.methods:
                    if method.startswith("findrs"):
                        r = run_findrs(train, test, seed, "auto" if method == "findrs-small" else None)
                    else:
                        r = run_baseline(method, train, test, seed)
                    rows.append(dict(dataset=name, noise=noise, seed=seed, method=method, acc=r["acc"],
                                     rules=r["rules"], conditions=r["conditions"], secs=r["secs"]))
                    print(f"{name:12} noise {noise:.2f} seed {seed} {method:16} acc {r['acc']:.4f} rules {r['rules']} "
                          f"conditions {r['conditions']} {r['secs']:.1f} s", flush=True)
    return _report(pl.DataFrame(rows), argv, args.out)


def _report(raw: pl.DataFrame, argv: list[str] | None, out_path: str | None) -> int:
    """The tables of ``raw`` (one row per data set, noise rate, seed and method), printed and
    with ``out_path`` written with the raw rows and the plot."""
    per = (raw.group_by("dataset", "noise", "method", maintain_order=True)
           .agg(pl.col("acc", "rules", "conditions", "secs").mean(), pl.len().alias("splits")))
    table = per.pivot(on="method", index=["dataset", "noise"], values=["acc", "conditions", "secs"])
    overall = per.group_by("noise", "method", maintain_order=True).agg(pl.col("acc", "rules", "conditions", "secs").mean())
    text = [
        "# Small by default: the size chosen by cross-validation",
        "",
        f"`{command_line('experiments.small', sys.argv[1:] if argv is None else argv)}`",
        "",
        "Mean per data set and noise rate (acc: test accuracy; conditions: rules x conditions, in total; "
        "secs: wall seconds of the fit):",
        "",
        _markdown(table),
        "",
        "Mean over the data sets:",
        "",
        _markdown(overall),
        "",
    ]
    out = "\n".join(text)
    print(out)
    if out_path:
        Path(out_path).write_text(out)
        raw.write_csv(Path(out_path).with_suffix(".raw.csv"))
        _plot(per, Path(out_path).with_suffix(".png"))
    return 0


def _plot(per: pl.DataFrame, path: Path) -> None:
    """Test accuracy against total conditions (log scale): a small point per data set and noise
    rate, a large one per method and noise rate (their means); methods without conditions
    (EBM) are left out."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    per = per.filter(pl.col("conditions").is_not_null() & (pl.col("conditions") > 0))
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for i, (method,) in enumerate(per.select("method").unique(maintain_order=True).iter_rows()):
        d = per.filter(pl.col("method") == method)
        color = f"C{i}"
        ax.scatter(d["conditions"], d["acc"], s=8, alpha=0.35, color=color)
        m = d.group_by("noise", maintain_order=True).agg(pl.col("acc", "conditions").mean())
        ax.scatter(m["conditions"], m["acc"], s=60, color=color, edgecolor="black", label=method)
        for noise, acc, cond in m.select("noise", "acc", "conditions").iter_rows():
            ax.annotate(f"{noise:.0%}", (cond, acc), textcoords="offset points", xytext=(5, 3), fontsize=7)
    ax.set_xscale("log")
    ax.set_xlabel("conditions in all (rules x conditions; log scale)")
    ax.set_ylabel("test accuracy")
    ax.set_title("accuracy against size (large: mean per noise rate; small: per data set)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _markdown(df: pl.DataFrame) -> str:
    def cell(v: object) -> str:
        if isinstance(v, float):
            return f"{v:.4f}" if v < 1.5 else f"{v:.1f}"
        return str(v)

    head = "| " + " | ".join(df.columns) + " |"
    rule = "|" + "---|" * len(df.columns)
    body = ["| " + " | ".join(cell(v) for v in row) + " |" for row in df.iter_rows()]
    return "\n".join([head, rule, *body])


if __name__ == "__main__":
    raise SystemExit(main())
