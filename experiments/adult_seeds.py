"""The defaults on Adult (adult.data -> adult.test) with several ``random_state`` values, CART
(max_depth by 5-fold CV) in the same run: how much the default model moves with the seed.

Usage: ``SEEDS="0 1 2 3 4 5" python -m experiments.adult_seeds --data-dir DIR [methods...]``
(default methods: ``cart findrs``; names of experiments.noisy). ``--noise R`` flips a share R of
the training labels first (experiments.noisy.flip_labels, drawn from the seed; the test labels stay
clean). One JSON line per fit on stdout: seed, noise, method, test accuracy, voting rules, wall
seconds, chosen settings, load average."""
import argparse
import json
import os

from experiments.noisy import BASELINES, flip_labels, load_adult, run_baseline, run_findrs
from experiments.uci import data_dir_from


def main() -> None:
    ap = argparse.ArgumentParser(prog="python -m experiments.adult_seeds")
    ap.add_argument("--data-dir", default=None)
    ap.add_argument("--noise", type=float, default=0.0, help="share of training labels flipped")
    ap.add_argument("methods", nargs="*", default=["cart", "findrs"])
    args = ap.parse_args()
    train, test = load_adult(data_dir_from(args.data_dir))
    clean = train
    for seed in map(int, os.environ.get("SEEDS", "0").split()):
        train = flip_labels(clean, args.noise, seed)
        for m in args.methods:
            r = run_baseline(m, train, test, seed) if m in BASELINES else run_findrs(m, "adult", train, test, seed)
            print(json.dumps({"seed": seed, "noise": args.noise, "method": m, "test_acc": round(r["acc"], 4), "rules": r["rules"],
                              "secs": round(r["secs"], 1), "setting": r.get("setting"),
                              "load": round(os.getloadavg()[0], 1)}), flush=True)


if __name__ == "__main__":
    main()
