"""Display settings of findrs models, in the manner of ``polars.Config``.

``print(model)``, :meth:`RuleSetModel.to_markdown` and the notebook view (``_repr_html_``) show
at most :attr:`Config.max_rules` rules (the first half and the last half, with the count of the
rules hidden between them, as Polars shows a long table) and cut a rule's text after
:attr:`Config.rule_width` characters at a condition boundary (saying how many conditions are
hidden). ``None`` shows everything.

Example:
    >>> import findrs
    >>> findrs.Config.max_rules
    10
    >>> with findrs.Config(max_rules=4):
    ...     findrs.Config.max_rules
    4
    >>> findrs.Config.max_rules
    10
"""

from __future__ import annotations

from typing import Any

from .errors import FindRSInputError

_DEFAULTS: dict[str, int | None] = {"max_rules": 10, "rule_width": 200}


def check_limit(name: str, value: Any, minimum: int) -> int | None:
    """``value`` as a display limit (an integer of at least ``minimum``, or ``None`` for no limit).

    Raises:
        FindRSInputError: anything else.
    """
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise FindRSInputError(f"{name} must be None (no limit) or an integer of at least {minimum}, got {value!r}")
    return int(value)


# The current settings (module state, one per process, as polars.Config's).
_STATE: dict[str, int | None] = dict(_DEFAULTS)


class _Settings(type):
    """Class-level attributes of :class:`Config` read the current settings."""

    @property
    def max_rules(cls) -> int | None:
        """Most rules shown (``None``: all); default 10."""
        return _STATE["max_rules"]

    @property
    def rule_width(cls) -> int | None:
        """Most characters of a rule's text shown (``None``: all); default 200."""
        return _STATE["rule_width"]


class Config(metaclass=_Settings):
    """How many rules and how much of each rule models display.

    Use the class methods to change a setting for the session, or an instance as a context
    manager to change it for a block (the previous settings come back on exit).

    Args:
        max_rules: most rules shown (at least 2; ``None``: all).
        rule_width: most characters of a rule's text shown (at least 20; ``None``: all).

    Raises:
        FindRSInputError: a setting out of range.

    Example:
        >>> import findrs
        >>> m = findrs.datasets.tic_tac_toe().findrs.fit("class", "positive", auto=False, settings=dict(shuffle=False))
        >>> with findrs.Config(max_rules=4):
        ...     print(str(m).splitlines()[5])
            … 4 rules hidden …
    """

    def __init__(self, *, max_rules: Any = ..., rule_width: Any = ...) -> None:
        self._new: dict[str, int | None] = {}
        if max_rules is not ...:
            self._new["max_rules"] = check_limit("max_rules", max_rules, 2)
        if rule_width is not ...:
            self._new["rule_width"] = check_limit("rule_width", rule_width, 20)
        self._old: list[dict[str, int | None]] = []

    def __enter__(self) -> "Config":
        self._old.append(dict(_STATE))
        _STATE.update(self._new)
        return self

    def __exit__(self, *exc: object) -> None:
        _STATE.clear()
        _STATE.update(self._old.pop())

    @classmethod
    def set_max_rules(cls, n: int | None) -> type["Config"]:
        """Show at most ``n`` rules (``None``: all).

        Raises:
            FindRSInputError: ``n`` is not ``None`` or an integer of at least 2.

        Example:
            >>> import findrs
            >>> findrs.Config.set_max_rules(4).max_rules
            4
            >>> findrs.Config.restore_defaults().max_rules
            10
        """
        _STATE["max_rules"] = check_limit("max_rules", n, 2)
        return cls

    @classmethod
    def set_rule_width(cls, n: int | None) -> type["Config"]:
        """Show at most ``n`` characters of each rule (``None``: all).

        Raises:
            FindRSInputError: ``n`` is not ``None`` or an integer of at least 20.

        Example:
            >>> import findrs
            >>> findrs.Config.set_rule_width(None).rule_width is None
            True
            >>> findrs.Config.restore_defaults().rule_width
            200
        """
        _STATE["rule_width"] = check_limit("rule_width", n, 20)
        return cls

    @classmethod
    def restore_defaults(cls) -> type["Config"]:
        """Back to 10 rules of at most 200 characters.

        Example:
            >>> import findrs
            >>> findrs.Config.set_max_rules(None).restore_defaults().max_rules
            10
        """
        _STATE.clear()
        _STATE.update(_DEFAULTS)
        return cls
