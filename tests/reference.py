"""A plain, obviously-correct pure-Python FIND-RS (Algorithm 1 + prune) used as a test oracle.

Everything works on code tuples (one code per feature, codes ``0..domain_size-1`` as given by
``findrs.data.encode.encode_frame``). A rule is a list of Python sets, one per feature: the training
codes the rule allows for that feature (semantics §2). No bitsets, no shortcuts: sets and loops.

The output is the canonical form of a model's rules (:func:`rules_of`): a list of rules, each a list of
``(feature_index, sorted allowed codes)`` for the constrained features only. A feature is
unconstrained iff its allowed set is its whole domain, except that a feature whose domain has
a single value stays constrained (``[0]``), since docs/semantics.md §2 reads |S| = 1 as ``a = v``.
"""

from __future__ import annotations

from typing import Sequence

Row = Sequence[int]
Rule = list  # list[set[int]], one allowed-code set per feature
Canonical = list  # list[tuple[int, list[int]]]


def rule_from_row(row: Row) -> Rule:
    """The most specific rule covering ``row``: every feature allows only the row's code."""
    return [{c} for c in row]


def covers(rule: Rule, row: Row) -> bool:
    """True iff ``rule`` covers a *training* row (all its codes are training codes)."""
    for f in range(len(row)):
        if row[f] not in rule[f]:
            return False
    return True


def count_covered(rule: Rule, rows: Sequence[Row]) -> int:
    n = 0
    for row in rows:
        if covers(rule, row):
            n += 1
    return n


def generalize(rule: Rule, row: Row, domains: Sequence[int], encoding: str) -> Rule:
    """semantics §3: AV drops every constraint ``row`` violates; OH adds ``row``'s value to each set."""
    new = []
    for f in range(len(row)):
        allowed = set(rule[f])
        if row[f] not in allowed:
            if encoding == "av":
                allowed = set(range(domains[f]))  # constraint dropped: `?`
            elif encoding == "oh":
                allowed.add(row[f])
            else:
                raise ValueError(encoding)
        new.append(allowed)
    return new


def find_rs_run(
    positives: Sequence[Row],
    negatives: Sequence[Row],
    domains: Sequence[int],
    encoding: str,
    tau: int,
) -> tuple[list[Rule], list[list[int]]]:
    """Algorithm 1 (semantics §3): the rules before pruning and their buckets (indices into positives).

    Positives are presented in the given order.
    """
    rules: list[Rule] = []
    buckets: list[list[int]] = []
    for p_index, p in enumerate(positives):
        accepted = False
        for i in range(len(rules)):
            candidate = generalize(rules[i], p, domains, encoding)
            if count_covered(candidate, negatives) <= tau:
                rules[i] = candidate
                buckets[i].append(p_index)
                accepted = True
                break
        if not accepted:
            # Appended even when it covers more than tau negatives (a contradiction).
            rules.append(rule_from_row(p))
            buckets.append([p_index])
    return rules, buckets


def prune(rules: Sequence[Rule], buckets: Sequence[Sequence[int]], positives: Sequence[Row]) -> list[int]:
    """semantics §4: visit rules last to first; drop rule i iff every example of its bucket is covered
    by some later rule that is still kept. Returns the kept indices in increasing order."""
    kept: list[int] = []  # only rules j > i are in here while rule i is visited
    for i in range(len(rules) - 1, -1, -1):
        redundant = True
        for p_index in buckets[i]:
            covered_later = False
            for j in kept:
                if covers(rules[j], positives[p_index]):
                    covered_later = True
            if not covered_later:
                redundant = False
        if not redundant:
            kept.append(i)
    kept.sort()
    return kept


def canonical(rule: Rule, domains: Sequence[int]) -> Canonical:
    """``(feature, sorted codes)`` for the constrained features of ``rule``."""
    out = []
    for f in range(len(rule)):
        whole = set(range(domains[f]))
        if rule[f] == whole and domains[f] > 1:
            continue  # `?`
        out.append((f, sorted(rule[f])))
    return out


def find_rs(
    rows: Sequence[Row],
    labels: Sequence[bool],
    domains: Sequence[int],
    encoding: str,
    tau: int,
) -> list[Canonical]:
    """One FIND-RS run with the positives in row order, pruned, in canonical form."""
    positives = [tuple(r) for r, y in zip(rows, labels) if y]
    negatives = [tuple(r) for r, y in zip(rows, labels) if not y]
    rules, buckets = find_rs_run(positives, negatives, domains, encoding, tau)
    kept = prune(rules, buckets, positives)
    return [canonical(rules[i], domains) for i in kept]


def rules_of(model) -> list[Canonical]:
    """Every rule a model found (voting or not), in model order, as plain lists of
    ``(feature index, allowed codes)``, read from its public view (``model.vote``; a BP model
    is first given every rule as a voter)."""
    if model.method == "bp" and model.n_rules != model.n_rules_found:
        model = model.with_n_rules(model.n_rules_found)
    v = model.vote
    return [[(c.feature, list(c.codes)) for c in v.rule(i)] for i in range(len(v.rules))]


# --------------------------------------------------------------------------- #
# Evaluating canonical rules on any row (unseen values included), docs/semantics.md §2
# --------------------------------------------------------------------------- #


def constraint_holds(codes: Sequence[int], value: int, domain_size: int, encoding: str) -> bool:
    """Does a constraint allowing the training ``codes`` hold for a row's code ``value``?

    ``value == domain_size`` is the code of a value never seen in training: it fails ``a = v``
    (one allowed code) and passes ``a not in {...}`` (an OH set of two or more codes).
    """
    if value < domain_size:
        return value in set(codes)
    if encoding == "av":
        return False
    return len(codes) >= 2


def rule_covers(rule: Canonical, row: Row, domains: Sequence[int], encoding: str) -> bool:
    for f, codes in rule:
        if not constraint_holds(codes, row[f], domains[f], encoding):
            return False
    return True
