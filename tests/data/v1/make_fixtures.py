"""Writes the version-1 model files that ``tests/test_json_v1.py`` loads.

They were made by findrs as it was before the JSON format version 2 (the commit that added
this script), so they are what users saved with version 1. Each file is one model fitted on the
seed-0 50/50 training half of one of the paper's 11 UCI data sets; its ``params`` are the
fit's parameters, so the test can fit again and compare rules and predictions.

Run from the repository root, with the UCI files in ``FINDRS_DATA_DIR``:

    python tests/data/v1/make_fixtures.py

Do not re-run it with a findrs that writes another version: the point is the old format.
"""

from __future__ import annotations

import gzip
import os
import sys
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parents[2]))

import findrs  # noqa: E402
from experiments.uci import UCI_NAMES, load_uci  # noqa: E402

# (data set, fit keyword arguments): FIND-RS on all 11; BP with a small T where the file stays
# small (T = 2 on connect-4); OH on vote (nulls) and wine (binned); BO once, for the runs.
FITS: list[tuple[str, dict]] = [(name, {"method": "find-rs"}) for name in UCI_NAMES]
FITS += [
    (name, {"method": "bp", "T": 5})
    for name in ("banknote", "car", "connect-4", "kr-vs-kp", "monk-1", "monk-2", "monk-3", "mushroom", "tic-tac-toe", "vote", "wine")
]
FITS += [
    ("vote", {"method": "find-rs", "encoding": "oh"}),
    ("wine", {"method": "bp", "encoding": "oh", "T": 5}),
    ("tic-tac-toe", {"method": "bo", "T": 5}),
    ("banknote", {"method": "bo", "T": 5}),
]
# connect-4's BP keeps every rule of its runs: T = 2 keeps its file small.
FITS = [(n, {**k, "T": 2}) if n == "connect-4" and k["method"] == "bp" else (n, k) for n, k in FITS]


def file_name(name: str, kwargs: dict) -> str:
    parts = [name, kwargs["method"], kwargs.get("encoding", "av")]
    if "T" in kwargs:
        parts.append(f"T{kwargs['T']}")
    return "-".join(parts) + ".json.gz"


def main() -> None:
    data_dir = os.environ["FINDRS_DATA_DIR"]
    total = 0
    for name, kwargs in FITS:
        df = load_uci(name, data_dir)
        train, _ = findrs.datasets.train_test_split(df, test_fraction=0.5, seed=0)
        model = train.findrs.fit("class", **findrs.settings.fit_keywords(dict(random_state=0, **kwargs)))
        text = model.to_json()
        path = HERE / file_name(name, kwargs)
        path.write_bytes(gzip.compress(text.encode(), compresslevel=9, mtime=0))
        total += path.stat().st_size
        print(f"{path.name:<40} {model.n_rules_found:>6} rules {len(text):>10} B json {path.stat().st_size:>8} B gz")
    print(f"total {total} B")


if __name__ == "__main__":
    main()
