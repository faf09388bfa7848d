"""How well can a *small* DNF do on wine? An exhaustive search, not a findrs model.

    python -m experiments.small_dnf --data-dir "$FINDRS_DATA_DIR"

For each of the 10 seed-fixed 50/50 splits of results/intervals.md (wine, class 2 against the
rest): every threshold condition ``x <= t`` / ``x > t`` (``t`` a midpoint between two distinct
training values of a column), the best *box* (the conjunction of at most two such conditions,
one condition twice being one condition) by training accuracy, then up to two more boxes each
chosen greedily on the training rows the DNF does not cover yet; for rules describing class 2
and for rules describing the rest. Printed: training and test accuracy with 1, 2 and 3 boxes,
and the same search on all 178 rows (how well such a DNF *fits* the data, no test). Cited in
results/intervals-wine.md ("The bagged vote reaches LR").
"""

from __future__ import annotations

import argparse
import os

import numpy as np

from .intervals import splits


def conditions(X: np.ndarray, Xt: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every threshold condition on the training rows ``X`` and on ``Xt`` (rows x conditions)."""
    train, test = [], []
    for j in range(X.shape[1]):
        v = np.unique(X[:, j])
        for t in (v[1:] + v[:-1]) / 2:
            train += [X[:, j] <= t, X[:, j] > t]
            test += [Xt[:, j] <= t, Xt[:, j] > t]
    return np.array(train), np.array(test)


def best_box(C: np.ndarray, y: np.ndarray, covered: np.ndarray, positive: bool) -> tuple[int, int, float]:
    """The pair of conditions whose box adds the most (described rows - other rows) among the
    rows not yet covered: the box that raises training accuracy most."""
    target = y if positive else ~y
    A = C[:, ~covered].astype(np.float32)
    t = target[~covered]
    gain = A[:, t] @ A[:, t].T - A[:, ~t] @ A[:, ~t].T
    i, j = np.unravel_index(int(np.argmax(gain)), gain.shape)
    return int(i), int(j), float(gain[i, j])


def grow(C: np.ndarray, Ct: np.ndarray, y: np.ndarray, positive: bool, boxes: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """Predictions (training, test) of the DNF after 1..``boxes`` boxes."""
    cov, cov_t = np.zeros(C.shape[1], bool), np.zeros(Ct.shape[1], bool)
    out = []
    for _ in range(boxes):
        i, j, g = best_box(C, y, cov, positive)
        if g > 0:
            cov, cov_t = cov | (C[i] & C[j]), cov_t | (Ct[i] & Ct[j])
        out.append((cov if positive else ~cov, cov_t if positive else ~cov_t))
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data-dir", default=os.environ.get("FINDRS_DATA_DIR"))
    p.add_argument("--splits", type=int, default=10)
    args = p.parse_args(argv)
    if not args.data_dir:
        p.error("--data-dir or FINDRS_DATA_DIR is needed")
    acc: dict[tuple[bool, int], list[tuple[float, float]]] = {}
    for _, train, test in splits("wine", args.data_dir, args.splits):
        cols = [c for c in train.columns if c != "class"]
        X, y = train.select(cols).to_numpy(), train["class"].to_numpy()
        Xt, yt = test.select(cols).to_numpy(), test["class"].to_numpy()
        C, Ct = conditions(X, Xt)
        for positive in (True, False):
            for k, (pred, pred_t) in enumerate(grow(C, Ct, y, positive, 3), 1):
                acc.setdefault((positive, k), []).append(((pred == y).mean(), (pred_t == yt).mean()))
    for (positive, k), v in sorted(acc.items(), key=lambda kv: (not kv[0][0], kv[0][1])):
        a = np.array(v).mean(axis=0)
        print(f"rules of {'class 2' if positive else 'the rest'}, {k} box(es): train {a[0]:.3f}, test {a[1]:.3f}")
    from .uci import load_uci

    df = load_uci("wine", args.data_dir)
    cols = [c for c in df.columns if c != "class"]
    X, y = df.select(cols).to_numpy(), df["class"].to_numpy()
    C, _ = conditions(X, X)
    for positive in (True, False):
        fits = [float((pred == y).mean()) for pred, _ in grow(C, C, y, positive, 3)]
        print(f"all {len(y)} rows, rules of {'class 2' if positive else 'the rest'}: "
              + ", ".join(f"{k} box(es) {a:.3f}" for k, a in enumerate(fits, 1)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
