"""A big model's JSON (size, save, load) and eager against lazy prediction, beside anchors.

    python benchmarks/bench_model.py [--data-dir DIR] [--T 100] [--rows 2000000] [--repeat 3]

The UCI file connect-4.data comes from ``--data-dir DIR`` or the ``FINDRS_DATA_DIR`` environment
variable. Fits FIND-RS-BP (``--T`` runs, seed 0) on connect-4's seed-0 training half (T = 100:
118k rules, the automatic K about 9.7k), then prints, each the median of ``--repeat`` runs:

- the model's JSON (format 2): its size, ``to_json`` and ``RuleSetModel.from_json``, and a pickle
  round trip; the anchors, measured on the same model in the same run: the same model laid out as
  format 1 was (per rule its constraints as ``{feature, values}`` objects, with its text), its size
  and the time Python's ``json.loads`` alone takes to parse it (the floor of the format-1 loader),
  and ``json.loads`` of the format-2 text (what a pure-Python reader would pay);
- ``model.predict(df)`` on connect-4 replicated to ``--rows`` rows in memory (eager), against
  ``df.lazy().select(model.predict_expr()).collect(engine="streaming")`` (lazy) and a plain
  eager pass over the same columns (``df.select(pl.all().to_physical().max())``), at the
  automatic K;
- for people, each in a fresh process that loads the saved model (so its peak memory is its
  own): ``model.rules`` (the table of all rules) with the process's peak RSS before and after,
  ``print(model)``, ``model.to_markdown()``, and ``model.explain`` (why-not included) on 1,000
  test rows at the automatic K and with every rule voting; the anchor is ``json.loads`` of the
  same model file in the same process.
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Callable

import polars as pl

import findrs
from findrs.datasets import train_test_split

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from experiments.uci import load_uci, require_data_dir  # noqa: E402


def timed(fn: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    times, out = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times), out


def format_1_text(model: findrs.RuleSetModel) -> str:
    """The model laid out as format 1 was: one object per rule with its id, weight, text and
    constraints as ``{feature, values}`` (the values as JSON, bins as intervals)."""
    d = json.loads(model.to_json())
    features = d["features"]
    constraints = d["model"]["constraints"]

    def values(c: dict[str, Any]) -> list[Any]:
        f = features[c["feature"]]
        if f["kind"] == "binned":
            return [[f["edges"][f["bins"][k]], f["edges"][f["bins"][k] + 1]] for k in c["codes"]]
        return [f["values"][k] for k in c["codes"]]

    rendered = [{"feature": features[c["feature"]]["name"], "values": values(c)} for c in constraints]
    (rule_set,) = d["model"]["rule_sets"]
    rules = [
        {
            "id": i,
            "weight": r["weight"],
            "text": " and ".join(constraints[k]["text"] for k in r["constraints"]),
            "constraints": [rendered[k] for k in r["constraints"]],
        }
        for i, r in enumerate(rule_set["rules"])
    ]
    v1 = {
        "format": "findrs-model", "version": 1, "method": d["model"]["method"], "encoding": d["params"]["encoding"],
        "T": d["model"]["T"], "n_rules": rule_set["n_rules"], "total_weight": sum(r["weight"] for r in rules),
        "params": d["params"], "target": d["target"], "features": features, "rules": rules,
        "runs": rule_set.get("runs", []),
        "training": {**d["training"], "rule_positives": [r["train_positives"] for r in rule_set["rules"]],
                     "rule_negatives": [r["train_negatives"] for r in rule_set["rules"]], "curve": rule_set.get("curve")},
    }
    return json.dumps(v1)


PEOPLE = r"""
import json, resource, sys, time
import polars as pl
import findrs
path, test_path = sys.argv[1], sys.argv[2]
what = sys.argv[3]
def rss():
    # This process's peak resident memory (VmHWM: getrusage's ru_maxrss would carry the parent's
    # peak over fork and exec).
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
model = findrs.RuleSetModel.from_json(path)
test = pl.read_parquet(test_path)
before = rss()
t = time.perf_counter()
if what == "rules":
    model.rules
elif what == "print":
    str(model)
elif what == "markdown":
    model.to_markdown(); model._repr_html_()
elif what == "explain":
    model.explain(test)
elif what == "explain-all":
    model.with_n_rules(model.n_rules_found).explain(test)
elif what == "json.loads":
    json.loads(open(path).read())
print(json.dumps({"seconds": time.perf_counter() - t, "rss_before": before, "rss_after": rss()}))
"""


def people(path: str, test_path: str, what: str) -> dict[str, float]:
    import subprocess

    out = subprocess.run([sys.executable, "-c", PEOPLE, path, test_path, what], check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data-dir", default=None, help="directory with the UCI files (default: $FINDRS_DATA_DIR)")
    ap.add_argument("--T", type=int, default=100)
    ap.add_argument("--rows", type=int, default=2_000_000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    data_dir = require_data_dir(args.data_dir, ["connect-4"])
    r = args.repeat

    df = load_uci("connect-4", data_dir)
    train, _ = train_test_split(df, 0.5, 0)
    t_fit, model = timed(lambda: findrs.fit(train, "class", method="bp", random_state=0, settings=dict(T=args.T)), 1)
    print(f"BP{args.T} on connect-4: fit {t_fit:.1f} s, {model.n_rules_found:,} rules, K = {model.n_rules:,} (auto); "
          f"polars {pl.__version__}, {os.cpu_count()} cores\n")

    t_save, text = timed(model.to_json, r)
    t_load, back = timed(lambda: findrs.RuleSetModel.from_json(text), r)
    assert back.to_json() == text
    t_pickle, _ = timed(lambda: pickle.loads(pickle.dumps(model)), r)
    t_parse2, _ = timed(lambda: json.loads(text), r)
    v1 = format_1_text(model)
    t_parse1, _ = timed(lambda: json.loads(v1), r)
    mb = 1e6
    print("model JSON                            size       save       load")
    print(f"  format 2 (findrs)               {len(text) / mb:7.1f} MB {t_save:8.2f} s {t_load:8.2f} s"
          f"   (pickle round trip {t_pickle:.2f} s)")
    print(f"  format 1 layout (anchor)        {len(v1) / mb:7.1f} MB {'':>10} {t_parse1:8.2f} s   (json.loads alone)")
    print(f"  format 2 text, json.loads       {'':>10} {'':>10} {t_parse2:8.2f} s   (a pure-Python reader's floor)")

    features = df.drop("class")
    reps = -(-args.rows // features.height)
    big = pl.concat([features] * reps).head(args.rows).rechunk()
    t_scan, _ = timed(lambda: big.select(pl.all().to_physical().max()), r)
    t_eager, eager = timed(lambda: model.predict(big), r)
    lazy_query = big.lazy().select(model.predict_expr())
    t_lazy, lazy = timed(lambda: lazy_query.collect(engine="streaming"), r)
    assert (eager == lazy.to_series()).all()
    n = big.height
    print(f"\nprediction, {n:,} rows in memory, K = {model.n_rules:,}      seconds   M rows/s")
    print(f"  eager pass over the columns (anchor)      {t_scan:8.2f} {n / t_scan / 1e6:9.2f}")
    print(f"  model.predict(df) (eager)                 {t_eager:8.2f} {n / t_eager / 1e6:9.2f}")
    print(f"  lazy predict_expr(), streaming            {t_lazy:8.2f} {n / t_lazy / 1e6:9.2f}")

    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        path, test_path = str(Path(tmp) / "model.json"), str(Path(tmp) / "test.parquet")
        model.to_json(path)
        _, test = train_test_split(df, 0.5, 0)
        test.drop("class").head(1000).write_parquet(test_path)
        print(f"\nfor people (each in a fresh process loading the model; median of {r})   seconds   peak RSS MiB")
        rows = [
            ("model.rules (all rules, one table)", "rules"),
            ("print(model)", "print"),
            ("to_markdown() and _repr_html_()", "markdown"),
            (f"explain(1,000 rows), K = {model.n_rules:,}", "explain"),
            (f"explain(1,000 rows), all {model.n_rules_found:,} rules voting", "explain-all"),
            ("anchor: json.loads of the model file", "json.loads"),
        ]
        for label, what in rows:
            runs = [people(path, test_path, what) for _ in range(r)]
            sec = statistics.median(x["seconds"] for x in runs)
            before = statistics.median(x["rss_before"] for x in runs)
            after = statistics.median(x["rss_after"] for x in runs)
            print(f"  {label:<52} {sec:8.2f}   {before:6.0f} -> {after:6.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
