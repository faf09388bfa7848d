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
  automatic K.
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
    t_fit, model = timed(lambda: findrs.fit(train, "class", method="bp", T=args.T, random_state=0), 1)
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
    return 0


if __name__ == "__main__":
    sys.exit(main())
