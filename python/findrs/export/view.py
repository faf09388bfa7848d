"""The public view of a fitted model's vote: what exporters print.

:attr:`RuleSetModel.vote <findrs.RuleSetModel.vote>` is a :class:`Vote`: the voting rules as
:class:`Constraint` lists, how their votes add up, the threshold and the decision scale, all as
the Rust core computed them. The text of the rules, the compiled Polars expression
(:meth:`~findrs.RuleSetModel.to_expr`), the SQL (:meth:`~findrs.RuleSetModel.to_sql`) and
scikit-learn's ``predict_proba`` read this view and print it; none of them decides for itself
whether an unseen value passes a constraint (:attr:`Constraint.unseen_passes`) or where the
threshold lies (:attr:`Vote.threshold`, :attr:`Vote.scale`, :attr:`Vote.offset`).

Example:
    >>> import findrs
    >>> m = findrs.datasets.tic_tac_toe().findrs.fit("class", "positive", random_state=0, settings=dict(shuffle=False))
    >>> v = m.vote
    >>> len(v.rules), v.groups == ((0, 1, 2, 3, 4, 5, 6, 7),), v.threshold
    (8, True, 0)
    >>> c = v.constraints[v.rules[0][0]]
    >>> m.features[c.feature], m.encoders[c.feature].values[c.codes[0]], c.unseen_passes
    ('top_left', 'x', False)
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Constraint:
    """One constraint of a rule (docs/semantics.md §2).

    Attributes:
        feature: the feature's position in ``model.features`` / ``model.encoders``.
        codes: the training codes it allows (``model.encoders[feature].values[code]`` is the
            value), ascending. For an interval feature (docs/semantics.md §11) the indices of
            its first and last values (one index when they coincide; every value between them
            passes), then ``d`` (the index of null in ``values``) when null passes; the
            encoder's ``interval_bounds(lo, hi)`` says which values never seen in training it
            admits.
        unseen_passes: whether a value never seen in training passes it (OH sets of two or more
            values: ``a not in {...}``; never for ``a = v``; false for an interval, whose
            unseen values are given by its ends).

    Example:
        >>> import findrs
        >>> m = findrs.datasets.tic_tac_toe().findrs.fit("class", "positive", random_state=0, settings=dict(shuffle=False))
        >>> m.vote.constraints[0]
        Constraint(feature=0, codes=(2,), unseen_passes=False)
    """

    feature: int
    codes: tuple[int, ...]
    unseen_passes: bool


@dataclass(frozen=True)
class Vote:
    """How a model's voting rules decide a row (docs/semantics.md §5, §6).

    The *votes* of a row are the sum of ``group_weights[g]`` over the groups ``g`` of which some
    rule covers the row; the row is positive iff its votes exceed ``threshold``, and its
    decision value (``decision_function``) is ``votes / scale - offset``. FIND-RS has one group
    of all its rules (weight 1, threshold 0), BO one group per distinct run (weighing how many
    runs have that rule set, threshold floor(T / 2)), BP one group per voting rule (weighing its
    weight, threshold floor(gamma_K T / 2)). A rule budget's DNF of BO or BP rules
    (docs/semantics.md §8) votes as FIND-RS does, whatever its ``method``.

    Attributes:
        method: ``"find-rs"``, ``"bo"`` or ``"bp"``.
        T: the number of runs.
        constraints: the distinct constraints of the model's rules.
        rules: the voting rules (BP's top K; all rules otherwise), each as ids into
            ``constraints`` in feature order; rule ``i`` is ``model.rules`` row ``i``. A rule
            with no constraint covers every row.
        weights: the voting rules' weights.
        runs: BO: each run's rules (ids into ``rules``), in the run's order; empty otherwise.
        groups: the groups of voting rules (ids into ``rules``).
        group_weights: each group's weight.
        threshold: positive iff the votes exceed it.
        scale: the decision value is ``votes / scale - offset``.
        offset: see ``scale``.
        max_votes: the most votes a row can get.

    Example:
        >>> import findrs
        >>> m = findrs.datasets.tic_tac_toe().findrs.fit("class", "positive", method="bo", random_state=0, settings=dict(T=3))
        >>> v = m.vote
        >>> v.method, v.T, v.threshold, v.max_votes
        ('bo', 3, 1, 3)
    """

    method: str
    T: int
    constraints: tuple[Constraint, ...]
    rules: tuple[tuple[int, ...], ...]
    weights: tuple[int, ...]
    runs: tuple[tuple[int, ...], ...]
    groups: tuple[tuple[int, ...], ...]
    group_weights: tuple[int, ...]
    threshold: int
    scale: float
    offset: float
    max_votes: int

    def rule(self, i: int) -> tuple[Constraint, ...]:
        """The constraints of voting rule ``i``.

        Raises:
            IndexError: ``i`` is not the index of a voting rule.

        Example:
            >>> import findrs
            >>> m = findrs.datasets.tic_tac_toe().findrs.fit("class", "positive", random_state=0, settings=dict(shuffle=False))
            >>> [m.features[c.feature] for c in m.vote.rule(0)]
            ['top_left', 'top_middle', 'top_right']
        """
        return tuple(self.constraints[c] for c in self.rules[i])
