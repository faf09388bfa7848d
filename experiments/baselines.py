"""The baselines (CART, LR, RF, SVM from scikit-learn; RIPPER from wittgenstein), tuned as the
paper does: a grid search with 5-fold cross-validation on the training half (accuracy), the best
setting refitted on the whole training half, scored on the test half.

Every grid search runs in one persistent worker *process* with a wall-clock budget: the worker
stops between fits once the budget is spent (or once even the cheapest fit seen so far, repeated
for every remaining fit, would overrun it), and the parent kills it if a single fit runs past
the budget. A search that is stopped is recorded as "not run: exceeded budget" with the time
spent and the number of fits done, never skipped silently.

Feature matrices (built here, in the parent, from the same Polars frames the findrs methods see):

* AV for CART: ordinal codes of the categorical values (``OrdinalEncoder``, fitted on the
  training half); numeric columns (banknote, wine) are the 10 equal-width bin indices of
  ``KBinsDiscretizer(strategy="uniform")`` fitted on the training half, assigned as scikit-learn
  <= 1.0 did (the paper's era), which are the bins findrs makes itself (checked on every split).
* AV for RIPPER: the same values as categories (strings; a bin is its index), so RIPPER writes
  ``a = v`` conditions like FIND-RS's AV rules.
* OH (CART, LR, SVM, RF, RIPPER): one-hot columns of those codes (``OneHotEncoder`` fitted on the
  training half, unseen test values all-zero); RIPPER sees them as ``"0"``/``"1"`` categories.
"""

from __future__ import annotations

import json
import multiprocessing as mp
import os
import time
import traceback
import warnings
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
import polars as pl

from .protocol import BASELINE_ENCODINGS, BINS, CV_FOLDS, GRIDS

MISSING = "?"


# --------------------------------------------------------------------------- #
# Feature matrices
# --------------------------------------------------------------------------- #


@dataclass
class BaselineData:
    """The matrices every baseline needs for one split."""

    names: list[str]
    av_train: np.ndarray  # int codes (n, m), ordinal / bin index
    av_test: np.ndarray
    str_train: np.ndarray  # object array of category strings (n, m)
    str_test: np.ndarray
    oh_names: list[str]
    oh_train: np.ndarray  # float32 0/1 (n, d)
    oh_test: np.ndarray
    y_train: np.ndarray
    y_test: np.ndarray


def _string_values(s: pl.Series) -> np.ndarray:
    return s.cast(pl.String).fill_null(MISSING).to_numpy().astype(object)


def _paper_bins(x: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """``KBinsDiscretizer.transform`` as scikit-learn <= 1.0 computed it (the paper's 2022 code, and
    findrs): ``digitize(x + eps, edges[1:])`` with ``eps = 1e-8 + 1e-5 |x|``, clipped to the last bin.
    scikit-learn 1.1 dropped the nudge (PR #22526), which moves values lying just below a bin edge
    (e.g. wine's 0.43 at the float edge 0.43000000000000005) one bin down."""
    out = np.zeros(x.shape, dtype=np.int64)
    for j in range(x.shape[1]):
        eps = 1.0e-8 + 1.0e-5 * np.abs(x[:, j])
        out[:, j] = np.clip(np.digitize(x[:, j] + eps, edges[j][1:]), 0, len(edges[j]) - 2)
    return out


def build_data(train: pl.DataFrame, test: pl.DataFrame, target: str = "class") -> BaselineData:
    """AV codes, category strings and one-hot matrices of one split (encoders fit on train)."""
    from sklearn.preprocessing import KBinsDiscretizer, OneHotEncoder, OrdinalEncoder

    from findrs.data.encode import encode_frame, fit_encoders

    names = [c for c in train.columns if c != target]
    numeric = [c for c in names if train.schema[c].is_float()]
    categorical = [c for c in names if c not in numeric]
    av_tr = np.zeros((train.height, len(names)), dtype=np.int64)
    av_te = np.zeros((test.height, len(names)), dtype=np.int64)
    if categorical:
        s_tr = np.column_stack([_string_values(train[c]) for c in categorical])
        s_te = np.column_stack([_string_values(test[c]) for c in categorical])
        ordinal = OrdinalEncoder(handle_unknown="use_encoded_value", unknown_value=-1).fit(s_tr)
        c_tr, c_te = ordinal.transform(s_tr).astype(np.int64), ordinal.transform(s_te).astype(np.int64)
        for j, c in enumerate(categorical):
            av_tr[:, names.index(c)] = c_tr[:, j]
            av_te[:, names.index(c)] = c_te[:, j]
    if numeric:
        x_tr = train.select(numeric).to_numpy().astype(np.float64)
        x_te = test.select(numeric).to_numpy().astype(np.float64)
        kb = KBinsDiscretizer(n_bins=BINS, encode="ordinal", strategy="uniform", subsample=None)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            kb.fit(x_tr)
        b_tr, b_te = _paper_bins(x_tr, kb.bin_edges_), _paper_bins(x_te, kb.bin_edges_)
        # The same bins as findrs: its encoder's codes are dense ranks of the occupied bins.
        encoders = fit_encoders(train, numeric, BINS)
        codes = encode_frame(train, encoders)
        for j, (enc, code) in enumerate(zip(encoders, codes)):
            findrs_bins = np.asarray(enc.values, dtype=np.int64)[code]
            if not np.array_equal(findrs_bins, b_tr[:, j]):
                raise AssertionError(f"findrs and KBinsDiscretizer bin {numeric[j]!r} differently")
        for j, c in enumerate(numeric):
            av_tr[:, names.index(c)] = b_tr[:, j]
            av_te[:, names.index(c)] = b_te[:, j]
    str_tr = np.empty(av_tr.shape, dtype=object)
    str_te = np.empty(av_te.shape, dtype=object)
    for j, c in enumerate(names):
        if c in numeric:
            str_tr[:, j] = [f"bin{v}" for v in av_tr[:, j]]
            str_te[:, j] = [f"bin{v}" for v in av_te[:, j]]
        else:
            str_tr[:, j] = _string_values(train[c])
            str_te[:, j] = _string_values(test[c])
    onehot = OneHotEncoder(handle_unknown="ignore", sparse_output=False, dtype=np.float32).fit(str_tr)
    oh_names = [str(n) for n in onehot.get_feature_names_out(names)]
    y_tr = train[target].to_numpy().astype(bool)
    y_te = test[target].to_numpy().astype(bool)
    return BaselineData(
        names, av_tr, av_te, str_tr, str_te, oh_names,
        onehot.transform(str_tr), onehot.transform(str_te), y_tr, y_te,
    )


def task_inputs(name: str, encoding: str, data: BaselineData) -> dict[str, Any]:
    """The arrays a worker task gets for one baseline and encoding."""
    if name == "ripper":
        if encoding == "av":
            return {"X_train": data.str_train, "X_test": data.str_test, "columns": data.names}
        # one-hot columns as "0"/"1" categories
        to_str = np.array(["0", "1"], dtype=object)
        return {
            "X_train": to_str[data.oh_train.astype(np.int8)],
            "X_test": to_str[data.oh_test.astype(np.int8)],
            "columns": data.oh_names,
        }
    if encoding == "av":
        return {"X_train": data.av_train, "X_test": data.av_test, "columns": data.names}
    return {"X_train": data.oh_train, "X_test": data.oh_test, "columns": data.oh_names}


# --------------------------------------------------------------------------- #
# Estimators (built in the worker)
# --------------------------------------------------------------------------- #


class _Ripper:
    """wittgenstein's RIPPER behind a fit/predict interface on object arrays of categories."""

    def __init__(self, columns: list[str], **params: Any) -> None:
        self.columns = columns
        self.params = params
        self.model: Any = None

    def _frame(self, X: np.ndarray):
        import pandas as pd

        return pd.DataFrame({c: X[:, j] for j, c in enumerate(self.columns)})

    def fit(self, X: np.ndarray, y: np.ndarray) -> "_Ripper":
        import wittgenstein as lw

        self.model = lw.RIPPER(**self.params)
        self.model.fit(self._frame(X), np.asarray(y, dtype=bool), pos_class=True)
        return self

    def predict(self, X: np.ndarray) -> np.ndarray:
        return np.asarray(self.model.predict(self._frame(X)), dtype=bool)

    def n_rules(self) -> int:
        return len(self.model.ruleset_.rules)


def _logistic(penalty: str, C: float, seed: int):
    import sklearn
    from sklearn.linear_model import LogisticRegression

    major, minor = (int(p) for p in sklearn.__version__.split(".")[:2])
    if (major, minor) >= (1, 8):  # `penalty` is deprecated from 1.8: l1_ratio 1 = l1, 0 = l2
        return LogisticRegression(C=C, l1_ratio=1.0 if penalty == "l1" else 0.0, solver="liblinear", random_state=seed)
    return LogisticRegression(penalty=penalty, C=C, solver="liblinear", random_state=seed)


def make_estimator(name: str, params: dict[str, Any], seed: int, columns: list[str]):
    if name == "cart":
        from sklearn.tree import DecisionTreeClassifier

        return DecisionTreeClassifier(max_depth=params["max_depth"], random_state=seed)
    if name == "lr":
        return _logistic(params["penalty"], params["C"], seed)
    if name == "rf":
        from sklearn.ensemble import RandomForestClassifier

        return RandomForestClassifier(n_estimators=params["n_estimators"], random_state=seed, n_jobs=1)
    if name == "svm":
        from sklearn.svm import SVC

        return SVC(kernel=params["kernel"], C=params["C"], random_state=seed)
    if name == "ripper":
        return _Ripper(columns, random_state=seed, **params)
    raise ValueError(f"unknown baseline {name!r}")


def complexity(name: str, model: Any) -> int | None:
    """RIPPER: number of rules; CART: number of leaves; others: None."""
    if name == "ripper":
        return model.n_rules()
    if name == "cart":
        return int(model.get_n_leaves())
    return None


def param_grid(name: str) -> list[dict[str, Any]]:
    from sklearn.model_selection import ParameterGrid

    return list(ParameterGrid(GRIDS[name]))


def grid_search(task: dict[str, Any], progress: Callable[[int, int, float], None]) -> dict[str, Any]:
    """Grid search + refit + test scores of one baseline on one encoding (runs in the worker)."""
    from sklearn.metrics import accuracy_score, f1_score
    from sklearn.model_selection import StratifiedKFold

    name, seed, budget = task["name"], task["seed"], task["budget"]
    X, y, Xt, yt, cols = task["X_train"], task["y_train"], task["X_test"], task["y_test"], task["columns"]
    grid = param_grid(name)
    folds = list(StratifiedKFold(n_splits=CV_FOLDS, shuffle=True, random_state=seed).split(X, y))
    total = len(grid) * len(folds) + 1
    start = time.perf_counter()
    done, cheapest = 0, float("inf")
    means: list[float] = []

    def over_budget() -> str | None:
        spent = time.perf_counter() - start
        if spent > budget:
            return f"budget of {budget:.0f} s spent"
        if done and spent + (total - done) * cheapest > budget:
            return (f"projected: {total - done} more fits x the cheapest fit so far ({cheapest:.1f} s) "
                    f"would overrun the {budget:.0f} s budget")
        return None

    for params in grid:
        scores = []
        for tr, va in folds:
            why = over_budget()
            if why:
                return {"status": "exceeded", "seconds": time.perf_counter() - start, "fits_done": done,
                        "fits_total": total, "note": why}
            t = time.perf_counter()
            model = make_estimator(name, params, seed, cols).fit(X[tr], y[tr])
            scores.append(accuracy_score(y[va], model.predict(X[va])))
            cheapest = min(cheapest, time.perf_counter() - t)
            done += 1
            progress(done, total, time.perf_counter() - start)
        means.append(float(np.mean(scores)))
    best = int(np.argmax(means))  # first of the best, as GridSearchCV
    select_seconds = time.perf_counter() - start
    why = over_budget()
    if why:
        return {"status": "exceeded", "seconds": select_seconds, "fits_done": done, "fits_total": total, "note": why}
    t = time.perf_counter()
    model = make_estimator(name, grid[best], seed, cols).fit(X, y)
    fit_seconds = time.perf_counter() - t
    pred = model.predict(Xt)
    done += 1
    progress(done, total, time.perf_counter() - start)
    return {
        "status": "ok",
        "accuracy": float(accuracy_score(yt, pred)),
        "f1": float(f1_score(yt, pred, zero_division=0)),
        "train_accuracy": float(accuracy_score(y, model.predict(X))),
        "n_rules": complexity(name, model),
        "params": json.dumps(grid[best]),
        "cv_score": means[best],
        "select_seconds": select_seconds,
        "fit_seconds": fit_seconds,
        "seconds": time.perf_counter() - start,
        "fits_done": done,
        "fits_total": total,
    }


# --------------------------------------------------------------------------- #
# The worker process
# --------------------------------------------------------------------------- #


def _worker_main(conn) -> None:  # pragma: no cover - runs in the child process
    warnings.simplefilter("ignore")
    try:
        from threadpoolctl import threadpool_limits

        threadpool_limits(1)
    except ImportError:
        pass
    while True:
        try:
            task = conn.recv()
        except EOFError:
            return
        if task is None:
            return
        try:
            result = grid_search(task, lambda d, t, s: conn.send(("progress", d, t, s)))
            conn.send(("done", result))
        except Exception:  # noqa: BLE001 - reported to the parent as a failed baseline
            conn.send(("done", {"status": "error", "note": traceback.format_exc(limit=3)}))


class Worker:
    """One persistent single-threaded worker process, restarted after it is killed."""

    GRACE = 30.0  # seconds past the budget before the parent kills a fit that does not return

    def __init__(self) -> None:
        self.proc: Any = None
        self.conn: Any = None

    def _start(self) -> None:
        for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "POLARS_MAX_THREADS"):
            os.environ[var] = "1"
        ctx = mp.get_context("spawn")
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_worker_main, args=(child,), daemon=True, name="findrs-baseline-worker")
        self.proc.start()
        child.close()

    def run(self, task: dict[str, Any], report: Callable[[str], None]) -> dict[str, Any]:
        """Runs one grid search; ``report`` gets a progress line about once a minute."""
        if self.proc is None or not self.proc.is_alive():
            self._start()
        start = time.perf_counter()
        self.conn.send(task)
        done, total, last_report = 0, None, start
        deadline = start + task["budget"] + self.GRACE
        while True:
            now = time.perf_counter()
            # Messages already waiting come first (this process may have been paused while the
            # worker finished); only a worker that is silent past the deadline is killed.
            if self.conn.poll(min(max(deadline - now, 0.0), 10.0)):
                try:
                    msg = self.conn.recv()
                except EOFError:
                    self.kill()
                    return {"status": "error", "seconds": time.perf_counter() - start, "note": "worker died"}
                if msg[0] == "progress":
                    done, total = msg[1], msg[2]
                else:
                    return msg[1]
            elif time.perf_counter() >= deadline:
                self.kill()
                return {"status": "exceeded", "seconds": time.perf_counter() - start, "fits_done": done,
                        "fits_total": total,
                        "note": f"killed: a single fit ran past the {task['budget']:.0f} s budget"}
            if time.perf_counter() - last_report >= 60.0:
                last_report = time.perf_counter()
                report(f"{done}/{total or '?'} fits, {last_report - start:.0f} s")

    def kill(self) -> None:
        if self.proc is not None:
            self.proc.kill()  # the worker this object started, by its own handle
            self.proc.join()
            self.proc = None

    def close(self) -> None:
        if self.proc is not None and self.proc.is_alive():
            try:
                self.conn.send(None)
                self.proc.join(timeout=10)
            except (BrokenPipeError, OSError):
                pass
            if self.proc.is_alive():
                self.kill()
        self.proc = None


def encodings(name: str) -> tuple[str, ...]:
    return BASELINE_ENCODINGS[name]
