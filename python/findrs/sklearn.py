"""A scikit-learn classifier around :func:`findrs.fit`: ``FindRSClassifier``.

It follows scikit-learn's estimator contract (``get_params`` / ``set_params`` / ``clone``,
``fit`` returns ``self``, fitted state in ``*_`` attributes, ``check_estimator`` clean), so it
works in ``Pipeline``, ``GridSearchCV``, ``cross_val_score`` and friends. The learning and the
prediction are findrs's own: ``fit`` calls :func:`findrs.fit`, ``predict`` calls
:meth:`RuleSetModel.predict` and ``decision_function`` / ``predict_proba`` come from
:meth:`RuleSetModel.decision_function` and the model's :attr:`~RuleSetModel.vote`.

Requires scikit-learn (it is not a dependency of findrs itself).

Example:
    >>> import findrs
    >>> from findrs.sklearn import FindRSClassifier
    >>> df = findrs.datasets.tic_tac_toe().to_pandas()
    >>> X, y = df.drop(columns="class"), df["class"]
    >>> clf = FindRSClassifier(method="find-rs", random_state=0).fit(X, y)
    >>> clf.classes_.tolist(), clf.model_.n_rules, clf.score(X, y)
    (['negative', 'positive'], 8, 1.0)
"""

from __future__ import annotations

import inspect
import numbers
import sys
from typing import Any, Literal

import numpy as np
import polars as pl
from joblib import effective_n_jobs
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_array, check_is_fitted, column_or_1d, validate_data

from .data.encode import FeatureEncoder

from .data.columns import dtype_family
from .data.frames import column
from .models.exceptions import ExceptionsModel
from .learning.learn import fit as _findrs_fit
from .models.model import RuleSetModel
from .settings import NOT_GIVEN, NotGiven
from .data.target import _INDEXED_CLASSES

__all__ = ["FindRSClassifier"]

_PARAMS: dict[str, inspect.Parameter] = {
    name: p.replace(default="auto") if isinstance(p.default, NotGiven) else p
    for name, p in inspect.signature(_findrs_fit, eval_str=True).parameters.items()
    if p.kind is p.KEYWORD_ONLY and name != "features"
}
"""The estimator's parameters: :func:`findrs.fit`'s keywords but ``features`` (``X``'s columns).
scikit-learn takes plain defaults, so ``max_rules`` defaults to ``"auto"``, which the estimator
reads as fit's default (:func:`_fit_keywords`)."""

_NO_Y = object()


def _fit_keywords(params: dict[str, Any]) -> dict[str, Any]:
    """The estimator's parameters as :func:`findrs.fit` keywords: ``max_rules="auto"`` (the
    estimator's default) is fit's default, the size chosen by the cross-validation where the fit
    chooses its settings and no budget elsewhere (docs/semantics.md §8.1)."""
    return {k: NOT_GIVEN[k] if k in NOT_GIVEN and isinstance(v, str) and v == "auto" else v for k, v in params.items()}


class FindRSClassifier(ClassifierMixin, BaseEstimator):
    """FIND-RS / FIND-RS-BO / FIND-RS-BP rule-set classifier.

    Binary ``y``: the rules describe ``classes_[1]`` (the greater label, as scikit-learn orders classes):
    ``predict`` says ``classes_[1]`` exactly where the rule set (BO: the vote, BP: the weighted
    vote) says positive. With ``direction="negative"`` the rules describe ``classes_[0]``, and
    ``predict`` says ``classes_[1]`` exactly where they do not.
    More than two classes: one rule set per class, combined as ``multiclass`` says
    (docs/semantics.md §10; ``model_.class_models`` are the sets).

    Input: ``X`` may be a NumPy array, a pandas or Polars DataFrame, or a list of rows. It is
    turned into a Polars frame whose columns are named after ``feature_names_in_`` (string
    column names of a DataFrame) or ``x0`` ... ``x{n-1}``. String, categorical and boolean
    columns (and object columns holding strings) are categorical; integer columns with at most
    ``bins`` distinct values are categorical too, and so are float columns holding only 0 and 1
    (one-hot columns); other numeric columns (float columns of other whole numbers too: cast
    category codes to integers) are cut into ``bins`` equal-width bins between the training
    minimum and maximum, or with ``numeric="interval"`` constrained to intervals of their
    training values (docs/semantics.md §11). Missing values (``None``,
    ``NaN``, nulls) are a value of their own (a rule may require or exclude "missing"), so
    ``NaN`` is accepted; infinities are rejected. ``y`` is any 1-D array of two labels
    (strings, integers, booleans ...), of two or more classes.

    Parameters: the keywords of :func:`findrs.fit` but ``features`` (the columns of ``X``), with
    its defaults: ``method``, ``max_rules``, ``auto``, ``random_state``, ``n_jobs``, ``verbose``
    and ``settings`` (a :class:`findrs.Settings` or a dict; ``GridSearchCV`` tunes a setting as
    ``settings__tolerance`` when ``settings`` is a :class:`findrs.Settings`). Two differ:
    ``random_state`` may also be a ``numpy.random.RandomState`` (one seed is drawn from it per
    fit), and ``n_jobs`` has scikit-learn's meaning (``None`` is 1 unless inside a
    ``joblib.parallel_backend`` context, ``-1`` all cores; it never changes the model). With
    ``settings={"direction": "negative"}`` the rules describe ``classes_[0]``; predictions,
    decisions and probabilities still refer to ``classes_[1]``. Rules with exceptions
    (``settings={"exceptions": True}``) score a row by its deciding rule or overriding exception.

    The target's name: when ``y`` is a named pandas or Polars Series (``df["class"]``), the
    model names it so (``print(clf.model_)`` reads ``class = 'positive'``); otherwise, or when
    a feature column has that name, it is ``y``.

    Attributes:
        classes_: the labels, sorted; with two, the rules describe ``classes_[1]``.
        model_: the fitted :class:`findrs.RuleSetModel` (``str(clf.model_)`` prints the rules).
        rules_: the model's rules table (a Polars DataFrame, see ``RuleSetModel.rules``).
        n_features_in_: number of feature columns seen in ``fit``.
        feature_names_in_: the column names, when ``X`` had string column names.

    Scores: ``decision_function`` is the log-odds of ``predict_proba`` (below). The model's
    own vote margin, :meth:`RuleSetModel.decision_function` (``clf.model_.decision_function``),
    is ``d = u - theta`` where ``u`` is the row's votes over the decision scale (``votes /
    scale``, see :attr:`RuleSetModel.vote`) and ``theta`` the decision offset:

    * FIND-RS: ``u`` is 1 if a rule covers the row, else 0; ``theta = 1/2``.
    * BO: ``u`` is the fraction of the ``T`` runs whose rule set covers the row; ``theta = 1/2``.
    * BP: ``u = sum(alpha_r for kept rules r covering the row) / T`` and
      ``theta = gamma_K / 2`` with ``gamma_K = sum(kept alpha) / sum(all alpha)``.

    ``predict_proba(X)`` is the model's :meth:`findrs.Model.predict_proba`, a graded score
    from the training counts of the rules that fire (docs/semantics.md §6, "Probabilities"):
    the Laplace-corrected training precision ``(p + 1) / (p + n + 2)`` of the best firing rule,
    mixed for BO and BP with the rate of the rows no rule covers by the share of the vote that
    covers the row, and moved to the prediction's side of 1/2. So ``proba[:, 1] > 1/2`` exactly
    where ``predict`` says ``classes_[1]``; a row whose score is exactly 1/2 is predicted
    ``classes_[0]``. It lies in (0, 1), is graded even for a single FIND-RS rule set (one value
    per firing rule's precision), and ranks rows for ROC curves and thresholds; it is not
    monotone in ``decision_function`` (which ranks by the vote alone).

    With more than two classes, ``decision_function`` has one column per class: ``r_c``, the
    class set's vote rescaled to [0, 1] with its threshold at 1/2 (0 for a decision list's
    default class, which has no set), plus 1 for the predicted class, so its maximum is at
    ``predict``'s class. ``predict_proba`` is the model's per-class probability: each row sums
    to 1 and is largest at ``predict``'s class.

    Example:
        >>> import findrs
        >>> from findrs.sklearn import FindRSClassifier
        >>> X = findrs.datasets.monks(1).drop("class").to_numpy()
        >>> y = findrs.datasets.monks(1)["class"].to_numpy()
        >>> clf = FindRSClassifier(random_state=0, settings=dict(T=10)).fit(X, y)
        >>> clf.score(X, y)
        1.0
    """

    def __init__(self, **params: Any) -> None:  # the signature is findrs.fit's (below)
        unknown = sorted(set(params) - set(_PARAMS))
        if unknown:
            raise TypeError(f"FindRSClassifier got unexpected parameter(s) {unknown}; its parameters are {list(_PARAMS)}")
        for name, p in _PARAMS.items():
            setattr(self, name, params.get(name, p.default))

    __init__.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD), *_PARAMS.values()])

    # ------------------------------------------------------------------ tags
    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # More than two classes: one rule set per class (docs/semantics.md §10).
        tags.classifier_tags.multi_class = True
        # NaN / None / null is a value of its own for every column (docs/semantics.md §1).
        tags.input_tags.allow_nan = True
        # ``categorical`` stays False although string / categorical / boolean columns are
        # accepted as categorical features: scikit-learn sets it on estimators whose every
        # column is a category code (CategoricalNB, the encoders), and its common checks then
        # round all test data to small integers, so findrs's binning of numeric columns would
        # never be checked. HistGradientBoosting, which also mixes native categorical columns
        # and binned numbers, leaves it False too. ``string`` stays False: it means raw text.
        return tags

    # ------------------------------------------------------------------ fit
    def fit(self, X: Any, y: Any) -> "FindRSClassifier":
        """Learns the rule set describing ``classes_[1]`` (more classes: one set per class).

        Raises:
            ValueError: ``y`` has one class only, a parameter is out of range,
                an input is empty, holds infinities or an unusable column (see
                :func:`findrs.fit`).
            TypeError: a column mixes strings and numbers, or holds other objects.

        Example:
            >>> import findrs
            >>> from findrs.sklearn import FindRSClassifier
            >>> df = findrs.datasets.tic_tac_toe()
            >>> X, y = df.drop("class"), df["class"]
            >>> clf = FindRSClassifier(method="find-rs", random_state=0).fit(X, y)
            >>> clf.classes_.tolist(), clf.model_.target.name
            (['negative', 'positive'], 'class')
        """
        y_in = y
        df, y = self._validate(X, y, reset=True)
        check_classification_targets(y)
        classes, y_idx = np.unique(y, return_inverse=True)
        if len(classes) < 2:
            raise ValueError(
                f"{type(self).__name__} needs two classes, but y has one class only "
                f"({classes.tolist()[0]!r}); FIND-RS learns rules that separate the positive rows from "
                f"negative rows."
            )
        names = list(df.columns)
        target = _series_name(y_in)
        if target is None or target in names:
            target = "y"
        while target in names:
            target += "_"
        labels = classes.tolist()
        if len(classes) > 2:
            # The class indices as the target: the model's classes are 0..k-1, in classes_ order.
            y_col, positive = pl.Series(target, y_idx, dtype=pl.UInt32), None
        else:
            try:
                y_col = pl.Series(target, labels, strict=True)
                if y_col.dtype == pl.Object:
                    raise TypeError
                y_col = y_col.gather(pl.Series(y_idx, dtype=pl.UInt32))
                positive = labels[1]
            except Exception:  # noqa: BLE001 - labels Polars cannot hold: learn "is classes_[1]"
                y_col, positive = pl.Series(target, y_idx == 1), True
        rs = self.random_state
        if isinstance(rs, np.random.RandomState):
            rs = int(rs.randint(np.iinfo(np.int32).max))
        self.classes_ = classes
        indexed = _INDEXED_CLASSES.set(True)
        try:
            self.model_ = self._fit_frame(df.with_columns(y_col), target, positive, rs, names)
        finally:
            _INDEXED_CLASSES.reset(indexed)
        self.rules_ = self.model_.rules
        return self

    def _fit_frame(self, df: pl.DataFrame, target: str, positive: Any, rs: int | None, names: list[str]) -> RuleSetModel:
        given = {**_fit_keywords(self.get_params(deep=False)), "random_state": rs, "n_jobs": effective_n_jobs(self.n_jobs)}
        return _findrs_fit(df, target, positive, features=names, **given)

    def _negated(self) -> bool:
        """The rules describe ``classes_[0]`` (``direction="negative"``, docs/semantics.md §9.3)."""
        return self.model_.params["direction"] == "negative"

    # ------------------------------------------------------------------ predict
    def predict(self, X: Any) -> np.ndarray:
        """Predicted labels: ``classes_[1]`` where the model says positive, else ``classes_[0]``
        (more classes: the combination's class).

        Raises:
            sklearn.exceptions.NotFittedError: before ``fit``.
            ValueError: ``X`` has another number of columns (or other names) than in ``fit``,
                or a column's dtype changed (a ``FindRSInputError`` naming it).

        Example:
            >>> import findrs
            >>> from findrs.sklearn import FindRSClassifier
            >>> df = findrs.datasets.tic_tac_toe()
            >>> X, y = df.drop("class"), df["class"]
            >>> clf = FindRSClassifier(method="find-rs", random_state=0).fit(X, y)
            >>> clf.predict(X.head(2)).tolist()
            ['positive', 'positive']
        """
        df = self._predict_frame(X)
        if len(self.classes_) > 2:
            return self.classes_[self.model_.predict(df).to_numpy().astype(np.intp)]
        mask = self.model_.predict(df, labels=False).to_numpy()
        if self._negated():
            mask = ~mask
        return self.classes_[mask.astype(np.intp)]

    def decision_function(self, X: Any) -> np.ndarray:
        """The log-odds of :meth:`predict_proba` (1-D), ``log(p / (1 - p))`` with ``p =
        proba[:, 1]``: ``> 0`` exactly where ``classes_[1]`` is predicted, and ranking rows as
        ``predict_proba`` does (scikit-learn's estimator checks ask for that). The model's own
        vote margin is ``clf.model_.decision_function``. More classes: one column per class,
        largest at the predicted class (see the class docstring).

        Raises:
            sklearn.exceptions.NotFittedError: before ``fit``.
            ValueError: ``X`` does not match the columns seen in ``fit`` (as :meth:`predict`).

        Example:
            >>> import findrs
            >>> from findrs.sklearn import FindRSClassifier
            >>> df = findrs.datasets.tic_tac_toe()
            >>> X, y = df.drop("class"), df["class"]
            >>> clf = FindRSClassifier(method="find-rs", random_state=0).fit(X, y)
            >>> clf.decision_function(X.head(2)).round(2).tolist()
            [4.37, 4.37]
        """
        df = self._predict_frame(X)
        if len(self.classes_) > 2:
            return self._class_scores(df)
        p = self._proba(df)
        return np.log(p) - np.log1p(-p)

    def predict_proba(self, X: Any) -> np.ndarray:
        """``[P(classes_[0]), P(classes_[1])]`` per row: the model's graded probability
        (:meth:`findrs.Model.predict_proba`, docs/semantics.md §6); ``proba[:, 1] > 1/2``
        exactly where ``classes_[1]`` is predicted. More classes: one column per class, summing
        to 1, largest at the predicted class.

        Raises:
            sklearn.exceptions.NotFittedError: before ``fit``.
            ValueError: ``X`` does not match the columns seen in ``fit`` (as :meth:`predict`).

        Example:
            >>> import findrs
            >>> from findrs.sklearn import FindRSClassifier
            >>> df = findrs.datasets.tic_tac_toe()
            >>> X, y = df.drop("class"), df["class"]
            >>> clf = FindRSClassifier(method="find-rs", random_state=0).fit(X, y)
            >>> clf.predict_proba(X.head(1)).round(3).tolist()
            [[0.012, 0.988]]
        """
        df = self._predict_frame(X)
        if len(self.classes_) > 2:
            return self.model_.predict_proba(df).to_numpy().astype(np.float64, copy=False)
        p = self._proba(df)
        return np.column_stack([1.0 - p, p])

    def _proba(self, df: pl.DataFrame) -> np.ndarray:
        """A binary model's probability of ``classes_[1]`` on a checked frame."""
        p = self.model_.predict_proba(df).to_numpy().astype(np.float64, copy=True)
        if self._negated():
            # p is the described class's, classes_[0]; where the model says "not classes_[0]"
            # (p <= 1/2) classes_[1] is predicted, so its probability must be above 1/2.
            p = 1.0 - p
            p[p == 0.5] = np.nextafter(0.5, 1.0)
        return p

    def _class_scores(self, df: pl.DataFrame) -> np.ndarray:
        """Per row and class: the class set's rescaled vote (0 without a set), plus 1 at the
        predicted class."""
        model = self.model_
        decisions = model.decision_function(df)
        scores = np.zeros((df.height, len(self.classes_)))
        for m in model.class_models:
            c = int(m.positive)
            scores[:, c] = _rescaled_vote(decisions.get_column(str(c)).to_numpy(), *self._vote_scale(m))
        pred = model.predict(df).to_numpy().astype(np.intp)
        scores[np.arange(df.height), pred] += 1.0
        return scores

    @staticmethod
    def _vote_scale(model: Any) -> tuple[float, float]:
        """(theta, u_max) of u = decision + theta: the vote's decision offset
        and its most votes on the decision scale."""
        if isinstance(model, ExceptionsModel):  # decides as FIND-RS: +-1/2
            return 0.5, 1.0
        v = model.vote
        return v.offset, v.max_votes / v.scale

    # ------------------------------------------------------------------ input
    def _predict_frame(self, X: Any) -> pl.DataFrame:
        check_is_fitted(self)
        df, _ = self._validate(X, reset=False)
        return self._align_dtypes(df)

    def _validate(self, X: Any, y: Any = _NO_Y, *, reset: bool) -> tuple[pl.DataFrame, Any]:
        """Checks X (and y) the scikit-learn way, sets / checks ``n_features_in_`` and
        ``feature_names_in_``, and returns X as a Polars frame with the model's column names."""
        if isinstance(X, pl.LazyFrame):
            X = X.collect()
        elif type(X).__module__.split(".")[0] == "pyarrow" and hasattr(X, "column_names"):
            X = pl.from_arrow(X)
        with_y = y is not _NO_Y
        # Prediction-time conversions may need the training dtypes (e.g. for an all-missing
        # object column); a fit never looks at a previous fit's model.
        encoders = None if reset else {e.name: e for e in self.model_.encoders}
        if isinstance(X, pl.DataFrame) or _is_pandas_frame(X):
            if with_y:
                validate_data(self, X, y, skip_check_array=True, reset=reset)
                y = column_or_1d(check_array(y, ensure_2d=False, dtype=None, input_name="y"), warn=True)
            else:
                validate_data(self, X, skip_check_array=True, reset=reset)
            n, p = X.shape
            for count, what in ((n, "sample"), (p, "feature")):
                if count < 1:
                    raise ValueError(
                        f"Found array with 0 {what}(s) (shape={X.shape}) while a minimum of 1 is "
                        f"required by {type(self).__name__}."
                    )
            if with_y and len(y) != n:
                raise ValueError(f"Found input variables with inconsistent numbers of samples: [{n}, {len(y)}]")
            names = self._names(p)
            if isinstance(X, pl.DataFrame):
                df = X if X.columns == names else X.select(column(c).alias(n) for c, n in zip(X.columns, names))
            else:
                df = _pandas_to_polars(X, names, encoders)
        else:
            if isinstance(X, (list, tuple)):
                X = _list_to_array(X)
            kwargs = dict(dtype=None, ensure_all_finite="allow-nan", accept_sparse=False, reset=reset)
            if with_y:
                X, y = validate_data(self, X, y, **kwargs)
            else:
                X = validate_data(self, X, **kwargs)
            df = _array_to_polars(X, self._names(X.shape[1]), encoders)
        _reject_infinity(df)
        return df, y

    def _names(self, p: int) -> list[str]:
        names = getattr(self, "feature_names_in_", None)
        if names is not None and len(names) == p:
            return [str(c) for c in names]
        return [f"x{i}" for i in range(p)]

    def _align_dtypes(self, df: pl.DataFrame) -> pl.DataFrame:
        """Lossless casts where a prediction column's dtype differs from training only in form:
        an all-missing column gets the training dtype, and a float column of whole numbers
        becomes integer for an integer categorical feature. Anything else is left for
        findrs's own check (a clear error naming the column and both dtypes)."""
        fixes = []
        for enc in self.model_.encoders:
            s = df.get_column(enc.name).alias("x")  # a plain name: see findrs.data.frames.column
            fam = dtype_family(s.dtype)
            want = enc.family if enc.kind == "categorical" else "float"
            if fam == want or (want == "float" and fam == "integer"):
                continue
            if s.null_count() == s.len() or (fam == "float" and s.is_nan().all()):
                dtype = {"string": pl.String, "boolean": pl.Boolean, "integer": pl.Int64}.get(want, pl.Float64)
                fixes.append(pl.repeat(None, s.len(), dtype=dtype).alias(enc.name))
            elif want == "integer" and fam == "float":
                x = s.fill_nan(None).drop_nulls()
                if bool((x == x.round()).all()) and bool(x.abs().max() < 2**53):
                    fixes.append(column(enc.name).fill_nan(None).cast(pl.Int64))
        return df.with_columns(fixes) if fixes else df

# ---------------------------------------------------------------------- helpers
def _series_name(y: Any) -> str | None:
    """The name of a named pandas or Polars Series (the target column it came from)."""
    if isinstance(y, pl.Series) or type(y).__module__.split(".")[0] == "pandas":
        name = getattr(y, "name", None)
        if isinstance(name, str) and name and "\0" not in name:
            return name
    return None


def _rescaled_vote(d: np.ndarray, theta: float, top: float) -> np.ndarray:
    """The decision value ``d`` mapped piecewise linearly to [0, 1]: no vote to 0, the
    threshold to 1/2, every voting rule to 1 (formula in the class docstring)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.where(d > 0, 0.5 + 0.5 * d / (top - theta), 0.5 + 0.5 * d / theta)
    p = np.clip(p, 0.0, 1.0)  # float rounding only: d lies in [-theta, top - theta]
    # Rounding must never move a positive row onto 1/2 (it cannot move a negative above).
    p[(d > 0) & (p <= 0.5)] = np.nextafter(0.5, 1.0)
    return p


def _is_pandas_frame(X: Any) -> bool:
    pd = sys.modules.get("pandas")
    return pd is not None and isinstance(X, pd.DataFrame)


def _list_to_array(X: Any) -> Any:
    """A list of rows as an array, keeping numbers numbers when rows mix strings and numbers
    (``np.asarray`` would turn every cell into a string)."""
    try:
        arr = np.asarray(X)
    except Exception:  # noqa: BLE001 - ragged etc.: let check_array report it
        return X
    if arr.dtype.kind in "US":
        try:
            return np.asarray(X, dtype=object)
        except Exception:  # noqa: BLE001
            return arr
    return arr


def _pandas_to_polars(X: Any, names: list[str], encoders: dict[str, FeatureEncoder] | None) -> pl.DataFrame:
    import pandas as pd

    X = X.set_axis(names, axis=1)
    objects = {n for n, dt in zip(names, X.dtypes) if dt == object}
    rest = [n for n in names if n not in objects]
    try:
        df = pl.from_pandas(X[rest]) if rest else pl.DataFrame()
    except Exception as e:  # noqa: BLE001 - re-raised with the reason
        raise ValueError(f"could not convert the pandas DataFrame to Polars: {e}") from e
    return pl.DataFrame(
        [
            _object_series(n, X[n].to_numpy(), (encoders or {}).get(n), pd) if n in objects else df.get_column(n)
            for n in names
        ]
    )


def _array_to_polars(X: np.ndarray, names: list[str], encoders: dict[str, FeatureEncoder] | None) -> pl.DataFrame:
    kind = X.dtype.kind
    if kind == "O" or kind == "S":
        pd = sys.modules.get("pandas")
        return pl.DataFrame([_object_series(n, X[:, j], (encoders or {}).get(n), pd) for j, n in enumerate(names)])
    if kind == "U":
        return pl.DataFrame([pl.Series(n, X[:, j], dtype=pl.String) for j, n in enumerate(names)])
    if kind == "f" and X.dtype.itemsize < 4:
        X = X.astype(np.float32)
    return pl.from_numpy(X, schema=names, orient="row")


def _reject_infinity(df: pl.DataFrame) -> None:
    floats = [c for c, dt in df.schema.items() if dt.is_float()]
    if floats:
        bad = df.select(column(c).is_infinite().any() for c in floats).row(0)
        if any(bad):
            col = floats[bad.index(True)]
            raise ValueError(f"Input X contains infinity (column {col!r}); findrs bins finite numbers only.")


def _is_missing(v: Any, pd: Any) -> bool:
    if v is None:
        return True
    if isinstance(v, (float, np.floating)):
        return bool(np.isnan(v))
    if pd is not None and (v is pd.NA or v is pd.NaT):
        return True
    return False


def _object_series(name: str, values: np.ndarray, enc: FeatureEncoder | None, pd: Any) -> pl.Series:
    """A Polars column for an object column: strings, booleans, integers or numbers (with
    None / NaN as missing). Mixed kinds (e.g. strings and numbers) are refused: a value's
    type would otherwise silently decide whether it is a category or a number."""
    out: list[Any] = []
    kinds: set[str] = set()
    for v in values.tolist():
        if isinstance(v, bytes):
            kinds.add("bytes")
            out.append(None)
        elif _is_missing(v, pd):
            out.append(None)
        elif isinstance(v, (bool, np.bool_)):
            kinds.add("boolean")
            out.append(bool(v))
        elif isinstance(v, numbers.Integral):
            kinds.add("integer")
            out.append(int(v))
        elif isinstance(v, numbers.Real):
            kinds.add("float")
            out.append(float(v))
        elif isinstance(v, str):
            kinds.add("string")
            out.append(v)
        else:
            kinds.add(type(v).__name__)
            out.append(None)
    if not kinds:
        want = (enc.family if enc.kind == "categorical" else "float") if enc is not None else "string"
        dtype = {"boolean": pl.Boolean, "integer": pl.Int64, "float": pl.Float64}.get(want, pl.String)
    elif kinds == {"string"}:
        dtype = pl.String
    elif kinds == {"boolean"}:
        dtype = pl.Boolean
    elif kinds == {"integer"}:
        dtype = pl.Int64
    elif kinds <= {"integer", "float"}:
        dtype = pl.Float64
    else:
        raise TypeError(
            f"FindRSClassifier: the argument must be uniformly strings or numbers in each column, "
            f"but column {name!r} holds {', '.join(sorted(kinds))} values; convert the column to "
            f"one type (e.g. str) first."
        )
    try:
        return pl.Series(name, out, dtype=dtype, strict=True)
    except OverflowError as e:
        raise ValueError(f"column {name!r} holds an integer too large for Int64: {e}") from e
