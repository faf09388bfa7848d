"""Plots (matplotlib, an optional extra: ``pip install "findrs[plot]"``).

Example:
    >>> import findrs, findrs.plot
    >>> train, test = findrs.datasets.train_test_split(findrs.datasets.monks(2), 0.5, 0)
    >>> model = train.findrs.fit("class", method="bp", random_state=0, settings=dict(T=20, tolerance=1))
    >>> ax = findrs.plot.pruning_curve(model, train, test)   # doctest: +SKIP
    >>> ax.figure.savefig("pruning_curve.png")              # doctest: +SKIP
"""

from __future__ import annotations

from typing import Any

from .errors import FindRSInputError
from .models.model import RuleSetModel


def pruning_curve(model: RuleSetModel, train: Any, test: Any | None = None, *, ax: Any = None, title: str | None = None) -> Any:
    """Draws a BP model's accuracy against the number of kept rules K (the paper's Figure 1),
    with a vertical line at the model's K (the automatic K when ``n_rules="auto"``).

    Args:
        model: a BP model.
        train: the training frame (with the target column).
        test: optionally a test frame, drawn as a second curve.
        ax: a matplotlib Axes to draw on (default: a new figure).
        title: the plot title (default: method, T and K).

    Returns:
        The matplotlib Axes.

    Raises:
        ImportError: matplotlib is not installed.
        FindRSInputError: the model is not BP, or a frame lacks the target or a feature.

    Example:
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> import findrs, findrs.plot
        >>> train, test = findrs.datasets.train_test_split(findrs.datasets.monks(2), 0.5, 0)
        >>> model = train.findrs.fit("class", method="bp", random_state=0, settings=dict(T=20, tolerance=1))
        >>> ax = findrs.plot.pruning_curve(model, train, test)
        >>> [line.get_label() for line in ax.get_lines()][:2]
        ['train', 'test']
    """
    try:
        import matplotlib.pyplot as plt
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError('findrs.plot needs matplotlib: pip install "findrs[plot]"') from e
    if model.method != "bp":
        raise FindRSInputError(f"pruning curves exist for BP models; this one is {model.method!r}")
    curve = model.pruning_curve(train, test)
    if ax is None:
        _, ax = plt.subplots(figsize=(6, 4))
    k = curve["K"].to_numpy()
    ax.plot(k, curve["train_accuracy"].to_numpy(), label="train")
    if "test_accuracy" in curve.columns:
        ax.plot(k, curve["test_accuracy"].to_numpy(), label="test")
    ax.axvline(model.n_rules, color="grey", linestyle="--", linewidth=1, label=f"K = {model.n_rules}")
    ax.set_xscale("log")
    ax.set_xlabel("number of rules kept (K)")
    ax.set_ylabel("accuracy")
    ax.set_title(title or f"FIND-RS-BP, T={model.T}: {model.n_rules} of {model.n_rules_found} rules")
    ax.legend(loc="lower right")
    return ax


def path(model: RuleSetModel, *, ax: Any = None, title: str | None = None) -> Any:
    """Draws a model's accuracy-size path (docs/semantics.md §8.1): training accuracy, and the
    cross-validated accuracy when the fit chose the size, against the total conditions of the
    model of each number of rules (:attr:`RuleSetModel.path`), the model's own size marked.

    Args:
        model: a rule set with a path (binary, or a multiclass FIND-RS model: its rules of every
            class set, docs/semantics.md §10.1).
        ax: a matplotlib Axes to draw on (default: a new figure).
        title: the plot title (default: the method and the number of rules).

    Returns:
        The matplotlib Axes.

    Raises:
        ImportError: matplotlib is not installed.
        FindRSInputError: the model has no path (a multiclass BO or BP model, a file written
            before paths, a BP model whose K was moved).

    Example:
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> import findrs, findrs.plot
        >>> model = findrs.datasets.credit().findrs.fit("default", random_state=0, max_rules="auto")
        >>> ax = findrs.plot.path(model)
        >>> [line.get_label() for line in ax.get_lines()][:2]
        ['train', 'cross-validated']
    """
    try:
        import matplotlib.pyplot as plt
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError('findrs.plot needs matplotlib: pip install "findrs[plot]"') from e
    table = model.path
    if table is None:
        raise FindRSInputError("this model has no accuracy-size path (a multiclass BO or BP model, a file written "
                               "before paths, or a BP model whose K was moved): refit it to get one")
    if ax is None:
        _, ax = plt.subplots(figsize=(6, 4))
    conditions = table["conditions"].to_numpy()
    ax.plot(conditions, table["train_accuracy"].to_numpy(), marker=".", label="train")
    if table["cv_accuracy"].null_count() == 0:
        ax.plot(conditions, table["cv_accuracy"].to_numpy(), marker=".", label="cross-validated")
    ax.axvline(conditions[-1], color="grey", linestyle="--", linewidth=1, label=f"{model.n_rules} rules")
    ax.set_xlabel("conditions (rules x conditions per rule)")
    ax.set_ylabel("accuracy")
    ax.set_title(title or f"{model.method}: the model of each number of rules")
    ax.legend(loc="lower right")
    return ax
