"""Training-data-only check of Adult settings: adult.data split 50/50 (stratified, seeded) into an
inner training half and a validation half; each variant is fitted on the inner half (its own
automatic CV inside) and scored on the validation half. adult.test is not read.

Usage: ``SEEDS="0 1" FINDRS_DATA_DIR=... python -m experiments.adult_holdout findrs auto-binscv12k``
(method names of experiments.noisy). A research script (branches adult2, accuracy)."""
import json
import os
import sys
from pathlib import Path

import polars as pl

from experiments.noisy import load_adult, run_findrs

train, _ = load_adult(Path(os.environ["FINDRS_DATA_DIR"]))
for seed in map(int, os.environ.get("SEEDS", "0").split()):
    shuffled = train.with_row_index("i").sample(fraction=1.0, shuffle=True, seed=seed)
    parts = [g for _, g in shuffled.group_by("class", maintain_order=True)]
    a = pl.concat([g.head(g.height // 2) for g in parts]).drop("i")
    b = pl.concat([g.tail(g.height - g.height // 2) for g in parts]).drop("i")
    for method in sys.argv[1:]:
        r = run_findrs(method, "adult", a, b, seed)
        print(json.dumps({"seed": seed, "method": method, "val_acc": round(r["acc"], 4), "rules": r["rules"],
                          "secs": round(r["secs"], 1), "setting": r["setting"], "load": os.getloadavg()[0]}), flush=True)
