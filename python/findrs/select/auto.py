"""Automatic settings (docs/semantics.md §9.4): the candidates cross-validation tries for the
parameters set to ``"auto"``, and the record of what it found.

The cross-validation itself runs in the Rust core: stratified k-fold on the training rows, the
candidates' runs in parallel, deterministic for any number of threads. The best candidate has
the most held-out rows right (summed over the folds); ties go to fewer conditions, then to the
earlier candidate in the order built here (simpler settings first). A model keeps the *record*
(:func:`record`): every candidate's settings and per-fold counts, and the index of the one
fitted; :attr:`RuleSetModel.cv_results <findrs.RuleSetModel.cv_results>` is its :func:`table`.

Example:
    >>> from findrs.select.auto import candidates
    >>> p = {"encoding": "av", "tolerance": "auto", "min_support": 0, "direction": "positive", "simplify": False,
    ...      "n_rules": None}
    >>> [c["tolerance"] for c in candidates(p, n_positives=50, n_negatives=50)]
    [0, 0.1, 0.2, 0.3, 0.4]
"""

from __future__ import annotations

import itertools
import numbers
from typing import Any, Mapping, Sequence

import polars as pl

from ..errors import FindRSInputError
from . import size
from .params import AUTOMATIC, PARAMETERS

TOLERANCES: tuple[int | float, ...] = (0, 0.1, 0.2, 0.3, 0.4)
"""Tolerance candidates: ``0`` is the paper's count, a float the largest share of negatives among
the training rows a rule covers."""

TOLERANCES_LARGE: tuple[int | float, ...] = (0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4)
"""Tolerance candidates when the cross-validation uses more than :data:`LARGE_ROWS` rows: shares
0.05 apart, which that many held-out rows tell apart (docs/semantics.md §9.4; on Adult's
24,420-row training parts +.0014 over six seeds, ``results/adult-holdout.md``)."""

SUPPORTS: tuple[int, ...] = (0, 2, 3, 5, 10, 20, 50, 100, 200, 500)
"""Support candidates, kept when at most a twentieth of the positives (0 and 2 always)."""

RULE_COUNTS: tuple[str | None, ...] = ("auto", None)
"""BP vote candidates for ``n_rules="cv"``: the automatic K, and all rules."""

_COUNTS = ("correct", "rows", "rules", "conditions")


FOLDS, FOLDS_LARGE, LARGE_ROWS = 5, 3, 10_000
"""Default folds: :data:`FOLDS`, or :data:`FOLDS_LARGE` when the cross-validation itself uses
more than :data:`LARGE_ROWS` rows (docs/semantics.md §9.4)."""


def default_folds(cv_rows_used: int) -> int:
    """The folds of a cross-validation whose ``params["cv"]`` is ``None``, given the rows it
    uses (the ``cv_rows`` sample, or every training row): 5, or 3 above 10,000 rows. The count
    follows the rows the folds are made of, not the training rows: the 8,000-row sample of a
    16,000-row frame gets 5 folds, the 12,000-row sample of Adult's 32,561 rows 3
    (docs/semantics.md §9.4).

    Example:
        >>> default_folds(8_000), default_folds(12_000), default_folds(32_561)
        (5, 3, 3)
    """
    return FOLDS_LARGE if cv_rows_used > LARGE_ROWS else FOLDS


def supports(n_positives: int) -> list[int]:
    """Support candidates for a training set with ``n_positives`` rows of the described class."""
    top = max(2, n_positives // 20)
    return [s for s in SUPPORTS if s <= top]


def tolerances(cv_rows_used: int) -> tuple[int | float, ...]:
    """The tolerance candidates of a cross-validation that uses ``cv_rows_used`` rows (its
    sample, or every training row): :data:`TOLERANCES`, or the finer :data:`TOLERANCES_LARGE`
    above :data:`LARGE_ROWS` rows, the same line as :func:`default_folds` (docs/semantics.md
    §9.4).

    Example:
        >>> tolerances(8_000), len(tolerances(12_000))
        ((0, 0.1, 0.2, 0.3, 0.4), 9)
    """
    return TOLERANCES_LARGE if cv_rows_used > LARGE_ROWS else TOLERANCES


def candidates(params: Mapping[str, Any], *, n_positives: int, n_negatives: int) -> list[dict[str, Any]]:
    """Every combination of the values to try, one dict per candidate with a value for each of
    :data:`~findrs.select.params.AUTOMATIC` (a fixed parameter appears with its one value). Order:
    simpler first (AV before OH, lower tolerance, less support, the positive class, the
    paper's rules before simplified ones, the automatic K). ``n_positives`` and ``n_negatives`` count the training rows of the positive
    label and of the others that the cross-validation uses (its sample): above
    :data:`LARGE_ROWS` of them the tolerances are 0.05 apart (:func:`tolerances`).

    A share tolerance at least the share of the other class would accept the rule that covers
    every row (its precision is the described class's share); such a candidate is left out (a
    tolerance given explicitly is always used).
    """
    auto = {k: isinstance(params[k], str) and params[k] == ("cv" if k == "n_rules" else "auto") for k in AUTOMATIC}
    total = n_positives + n_negatives
    axes = {
        "encoding": ("av", "oh") if auto["encoding"] else (params["encoding"],),
        "tolerance": tolerances(total) if auto["tolerance"] else (params["tolerance"],),
        "min_support": tuple(supports(n_positives)) if auto["min_support"] else (params["min_support"],),
        "direction": ("positive", "negative") if auto["direction"] else (params["direction"],),
        "simplify": (False, True) if auto["simplify"] else (params["simplify"],),
        "n_rules": RULE_COUNTS if auto["n_rules"] else (params["n_rules"],),
    }
    out = []
    for values in itertools.product(*axes.values()):
        c = dict(zip(axes, values))
        other = n_negatives if c["direction"] == "positive" else n_positives
        if auto["tolerance"] and isinstance(c["tolerance"], float) and c["tolerance"] * total >= other:
            continue
        out.append(c)
    return out


def core_setting(c: Mapping[str, Any], accuracy_ratio: float) -> tuple[Any, ...]:
    """A candidate as the core takes it: (encoding, tau, epsilon, negate, min_support, K,
    accuracy_ratio, simplify), K and the ratio as in a fit (``None``, ``None``: all rules)."""
    tol = c["tolerance"]
    tau, eps = (0, float(tol)) if isinstance(tol, float) else (int(tol), 0.0)
    k = c["n_rules"]
    fixed = k if isinstance(k, int) else None
    ratio = accuracy_ratio if k == "auto" else None
    return (c["encoding"], tau, eps, c["direction"] == "negative", int(c["min_support"]), fixed, ratio,
            bool(c["simplify"]))


def scaled_support(s: int, n_rows: int, sampled: int) -> int:
    """The final fit's ``min_support`` for a candidate's ``s`` cross-validated on a sample of
    ``sampled`` of the ``n_rows`` training rows: ``s * n_rows / sampled``, rounded half up
    (the core's ``scaled_support``)."""
    if sampled >= n_rows or sampled == 0:
        return s
    return min((s * n_rows + sampled // 2) // sampled, 2**32 - 1)


def record(cands: list[dict[str, Any]], rows: list[tuple[list[int], ...]], chosen: int, folds: int,
           sampled: int, paths: bool = False) -> dict[str, Any]:
    """What a model keeps of its cross-validation: ``folds``, ``sampled`` (the training rows
    it used: a stratified sample, or every row), ``chosen`` (the index of the candidate
    fitted) and ``candidates``, each its settings and per-fold ``correct`` (held-out rows
    right), ``rows`` (held-out rows), ``rules`` and ``conditions`` (voting rules and their
    conditions). With ``paths`` (a choice of the size during a fit), FIND-RS candidates also hold
    their folds' path counts (:data:`findrs.select.size.PATHS`, docs/semantics.md §8.1), which
    model files do not keep."""
    def with_paths(r: tuple[Any, ...]) -> dict[str, Any]:
        if not paths:
            return {}
        return {k: [list(map(int, p)) for p in x] for k, x in zip(size.PATHS, r[len(_COUNTS):]) if any(x)}

    return {
        "folds": folds,
        "sampled": sampled,
        "chosen": chosen,
        "candidates": [{**c, **dict(zip(_COUNTS, (list(map(int, x)) for x in r))), **with_paths(r)}
                       for c, r in zip(cands, rows)],
    }


def record_scores(rec: Mapping[str, Any]) -> tuple[list[dict[str, Any]], tuple[list[tuple[list[int], ...]], int]]:
    """The inverse of :func:`record` for a fit from it: the candidates (their settings alone)
    and the scores as the core's ``fit_auto`` takes them (each candidate's per-fold counts,
    and the rows sampled)."""
    cands = [{k: v for k, v in c.items() if k not in _COUNTS and k not in size.PATHS} for c in rec["candidates"]]
    rows = [tuple(list(c[k]) for k in _COUNTS) for c in rec["candidates"]]
    return cands, (rows, int(rec["sampled"]))


def _merge(parts: list[tuple[Mapping[str, Any], Mapping[str, Any], Mapping[str, Any]]], best: int,
           what: str) -> dict[str, Any]:
    """One record of cross-validations on the same folds: each part's record, the fields its
    candidates get when they lack them, and the fields that tag them; every candidate in part
    order, the chosen one that of part ``best``. Raises ValueError (naming ``what``) when the
    records' folds or samples differ: they cannot be compared."""
    first = parts[0][0]
    key = (first["folds"], first["sampled"], first["candidates"][0]["rows"])
    if any((r["folds"], r["sampled"], r["candidates"][0]["rows"]) != key for r, _, _ in parts[1:]):
        raise ValueError(f"the cross-validations of {what} used different folds")
    cands = [{**default, **c, **tag} for r, default, tag in parts for c in r["candidates"]]
    chosen = sum(len(r["candidates"]) for r, _, _ in parts[:best]) + parts[best][0]["chosen"]
    return {"folds": first["folds"], "sampled": first["sampled"], "chosen": chosen, "candidates": cands}


def merge_encoding_records(recs: Sequence[Mapping[str, Any]], tags: Sequence[Mapping[str, Any]],
                           best: int, heads: Sequence[Mapping[str, Any]] | None = None) -> dict[str, Any]:
    """One record of the cross-validations of several encodings of the numeric columns on the
    same folds (docs/semantics.md §9.4): every candidate of each record, tagged with its
    encoding's fields (``bin_edges``, and ``numeric`` when bins and intervals were compared), in
    record order; the chosen one that of record ``best``. ``heads``: per record, the fields
    that come before the candidate's own (the order a file writes them in).

    Raises:
        ValueError: the records' folds or samples differ (they cannot be compared).

    Example:
        >>> r = {"folds": 2, "sampled": 4, "chosen": 0, "candidates": [{"tolerance": 0, "correct": [1, 2],
        ...      "rows": [2, 2], "rules": [1, 1], "conditions": [1, 1]}]}
        >>> tags = [{"bin_edges": "uniform", "numeric": "bins"}, {"bin_edges": "uniform", "numeric": "interval"}]
        >>> m = merge_encoding_records([r, r], tags, 1)
        >>> m["chosen"], [c["numeric"] for c in m["candidates"]]
        (1, ['bins', 'interval'])
    """
    return _merge([(r, dict(h), dict(t)) for r, h, t in zip(recs, heads or [{} for _ in recs], tags)], best,
                  "the encodings")


VOTE_T = 20
"""Runs of the budgeted BP vote the automatic cross-validation tries against the FIND-RS winner
(docs/semantics.md §9.5), in the cross-validation and in the final fit."""

VOTE_RULES: tuple[int, ...] = (10, 25, 50, 100)
"""The numbers of voting rules (BP's K) the budgeted vote tries; 100 caps a default model's
voting rules."""

VOTE_MAX_ROWS = 10_000
"""The vote is tried only up to this many training rows: its final fit makes :data:`VOTE_T`
runs on every row (all of Adult, 32,561 rows, share tolerance 0.2: about 10 CPU-s per run, 200
for the fit, over the 60 s budget of a default fit), and on six training-only splits of Adult it
lost on held-out rows wherever it won the cross-validation (``results/adult-holdout.md``)."""


def vote_candidates(chosen: Mapping[str, Any], automatic: Sequence[str] = ()) -> list[dict[str, Any]]:
    """The budgeted BP vote's candidates (docs/semantics.md §9.5): the FIND-RS winner's
    ``chosen`` settings (its record entry) with each K of :data:`VOTE_RULES`, ``method``
    ``"bp"``; when ``min_support`` / ``simplify`` are among the ``automatic`` parameters, also
    with no support filter / unsimplified rules (these share the runs, so cost no more runs).

    Example:
        >>> c = {"encoding": "av", "tolerance": 0.2, "min_support": 3, "direction": "positive",
        ...      "simplify": False, "n_rules": None, "correct": [1], "rows": [2], "rules": [1], "conditions": [1]}
        >>> [v["n_rules"] for v in vote_candidates(c)], vote_candidates(c)[0]["method"]
        ([10, 25, 50, 100], 'bp')
        >>> [(v["min_support"], v["simplify"]) for v in vote_candidates(c, ["min_support", "simplify"])][:2]
        [(0, False), (3, False)]
    """
    keep = {k: v for k, v in chosen.items() if k not in _COUNTS}
    supports = sorted({keep["min_support"], 0}) if "min_support" in automatic else [keep["min_support"]]
    simplify = sorted({keep["simplify"], False}) if "simplify" in automatic else [keep["simplify"]]
    return [{**keep, "min_support": s, "simplify": f, "n_rules": k, "method": "bp"}
            for k in VOTE_RULES for s in supports for f in simplify]


def merge_vote_records(findrs: Mapping[str, Any], vote: Mapping[str, Any], won: bool, runs: int) -> dict[str, Any]:
    """One record of the FIND-RS cross-validation and the budgeted vote's (same folds, the
    vote's fits of ``runs`` runs each): every candidate with its ``method`` and ``cv_T`` (runs per
    fold fit: 1 for FIND-RS), the chosen one the vote's when ``won``.

    Raises:
        ValueError: the records' folds or samples differ (they cannot be compared).

    Example:
        >>> r = {"folds": 2, "sampled": 4, "chosen": 0, "candidates": [{"tolerance": 0, "correct": [1, 2],
        ...      "rows": [2, 2], "rules": [1, 1], "conditions": [1, 1]}]}
        >>> v = {**r, "candidates": [{**r["candidates"][0], "method": "bp"}]}
        >>> m = merge_vote_records(r, v, True, 20)
        >>> m["chosen"], [(c["method"], c["cv_T"]) for c in m["candidates"]]
        (1, [('find-rs', 1), ('bp', 20)])
    """
    parts = [(findrs, {}, {"method": "find-rs", "cv_T": 1}), (vote, {}, {"cv_T": runs})]
    return _merge(parts, int(won), "FIND-RS and the vote")


OLD_VOTE_T = 20
"""The vote's runs per fold fit in files written before the record kept ``cv_T``: always 20."""


def check_record(rec: Any, params: Mapping[str, Any], n_rows: int) -> dict[str, Any]:
    """A model file's cross-validation record, checked against the model's ``params`` and its
    number of training rows: the counts per fold, the settings' ranges, the chosen candidate's
    settings equal to ``params`` (``n_rules`` aside: ``with_n_rules`` may move it), the fixed
    ones equal in every candidate.

    Raises:
        FindRSInputError: what is wrong.
    """
    keys = ["candidates", "chosen", "folds", "sampled"]
    if isinstance(rec, dict) and isinstance(rec.get("candidates"), list):  # written before the vote's cv_T
        rec = {**rec, "candidates": [
            {**c, "cv_T": 1 if c["method"] == "find-rs" else OLD_VOTE_T}
            if isinstance(c, dict) and "method" in c and "cv_T" not in c else c for c in rec["candidates"]]}
    if isinstance(rec, dict) and sorted(rec) == keys[:3]:  # written before samples and simplify
        rec = {**rec, "sampled": n_rows, "candidates": [
            {**c, "simplify": params["simplify"]} if isinstance(c, dict) and "simplify" not in c else c
            for c in (rec["candidates"] if isinstance(rec["candidates"], list) else [])
        ] or rec["candidates"]}
    if not isinstance(rec, dict) or sorted(set(rec) - {"size"}) != keys:
        raise FindRSInputError(f"must be an object with the fields {keys} (and 'size' after a choice of the size)")
    folds, chosen, cands, sampled = rec["folds"], rec["chosen"], rec["candidates"], rec["sampled"]
    if isinstance(sampled, bool) or not isinstance(sampled, int) or not 1 <= sampled <= n_rows:
        raise FindRSInputError(f"sampled must be a number of training rows, from 1 to {n_rows}, got {sampled!r}")
    if folds != params["cv"] or not isinstance(folds, int) or isinstance(folds, bool):
        raise FindRSInputError(f"it has {folds!r} folds but params say cv = {params['cv']!r}")
    if not isinstance(cands, list) or not cands:
        raise FindRSInputError("it lists no candidate")
    if isinstance(chosen, bool) or not isinstance(chosen, int) or not 0 <= chosen < len(cands):
        raise FindRSInputError(f"chosen must be a candidate's index, from 0 to {len(cands) - 1}, got {chosen!r}")
    numeric = "numeric" in params["auto"]
    edges = "bin_edges" in params["auto"] or numeric
    method = "method" in params["auto"]
    fields = sorted([*AUTOMATIC, *_COUNTS, *(["bin_edges"] if edges else []), *(["numeric"] if numeric else []),
                     *(["method", "cv_T"] if method else [])])
    held_out = None
    for i, c in enumerate(cands):
        if not isinstance(c, dict) or sorted(c) != fields:
            raise FindRSInputError(f"candidate {i} must be an object with the fields {fields}")
        if edges:
            try:
                PARAMETERS["bin_edges"].check("bin_edges", c["bin_edges"])
                if numeric:
                    PARAMETERS["numeric"].check("numeric", c["numeric"])
            except FindRSInputError as e:
                raise FindRSInputError(f"candidate {i}: {e}") from None
        if method and c["method"] not in ("find-rs", "bp"):
            raise FindRSInputError(f"candidate {i}: method must be 'find-rs' or 'bp', got {c['method']!r}")
        if method and not (isinstance(c["cv_T"], int) and not isinstance(c["cv_T"], bool)
                           and (c["cv_T"] == 1 if c["method"] == "find-rs" else c["cv_T"] >= 1)):
            raise FindRSInputError(f"candidate {i}: cv_T must be 1 for FIND-RS and at least 1 for BP, got {c['cv_T']!r}")
        for name in ("encoding", "tolerance", "min_support", "direction", "simplify"):
            try:
                PARAMETERS[name].check(name, c[name])
            except FindRSInputError as e:
                raise FindRSInputError(f"candidate {i}: {e}") from None
        k = c["n_rules"]
        if not (k is None or k == "auto" or (isinstance(k, int) and not isinstance(k, bool) and k >= 1)):
            raise FindRSInputError(f"candidate {i}: n_rules must be 'auto', null or at least 1, got {k!r}")
        counts = [c[f] for f in _COUNTS]
        if not all(
            isinstance(x, list) and len(x) == folds
            and all(isinstance(v, numbers.Integral) and not isinstance(v, bool) and v >= 0 for v in x)
            for x in counts
        ):
            raise FindRSInputError(f"candidate {i}: {list(_COUNTS)} must be {folds} counts of at least 0 each")
        if any(a > b for a, b in zip(c["correct"], c["rows"])):
            raise FindRSInputError(f"candidate {i} has more held-out rows right than held-out rows")
        if held_out is None:
            held_out = c["rows"]
            if sum(held_out) != sampled:
                raise FindRSInputError(f"its folds hold {sum(held_out)} rows, but it says it used {sampled}")
        elif c["rows"] != held_out:
            raise FindRSInputError(f"candidate {i}'s folds differ from candidate 0's")
        for name in ("encoding", "tolerance", "min_support", "direction", "simplify"):
            if name not in params["auto"] and not _same(c[name], params[name]):
                raise FindRSInputError(f"candidate {i} has {name} = {c[name]!r}, fixed at {params[name]!r} in params")
    if method and cands[chosen]["cv_T"] != params["cv_T"]:
        raise FindRSInputError(f"the chosen candidate has cv_T = {cands[chosen]['cv_T']!r} but params say {params['cv_T']!r}")
    if ("size" in rec) != ("max_rules" in params["auto"] or (params["max_rules"] is not None and bool(params["auto"]))):
        raise FindRSInputError("a choice of the size ('size') goes with max_rules and automatic settings")
    if "size" in rec:
        size.check_size(rec["size"], folds, len(cands))
    for name in params["auto"]:
        if name == "max_rules":
            continue
        value = cands[chosen][name]
        if name == "min_support":
            value = scaled_support(value, n_rows, sampled)
        if name != "n_rules" and not _same(value, params[name]):
            raise FindRSInputError(
                f"the chosen candidate has {name} = {value!r} but params say {params[name]!r}"
            )
    return rec


def _same(a: Any, b: Any) -> bool:
    """Equal values of one type (a share ``0.1`` is not a count, ``1`` is not ``1.0``)."""
    return a == b and isinstance(a, float) == isinstance(b, float)


def table(rec: Mapping[str, Any]) -> pl.DataFrame:
    """The cross-validation as a table: one row per candidate with its settings (``tolerance``
    and ``n_rules`` as text: ``"2"`` is a count of negatives, ``"0.1"`` a share), the held-out
    accuracy over all folds (``cv_accuracy``) (and, when the bin edges were cross-validated
    too, each candidate's ``bin_edges``; when bins and intervals were, its ``numeric``; when the
    budgeted vote was, its ``method`` and ``cv_T``, the runs of each fold's fit; when rules with
    exceptions were, ``exceptions``, docs/semantics.md §9.6), its standard
    deviation over the folds, the mean
    voting ``rules`` and ``conditions`` per fold, and whether it was ``chosen``."""
    cands = rec["candidates"]
    out: dict[str, Any] = {}
    extra = [k for k in ("bin_edges", "numeric", "method", "cv_T", "exceptions") if k in cands[0]]
    for k in (*AUTOMATIC, *extra):
        values = [c[k] for c in cands]
        if k in ("tolerance", "n_rules"):
            out[k] = pl.Series(k, [None if v is None else str(v) for v in values], dtype=pl.String)
        else:
            dtype = (pl.String if k in ("encoding", "direction", "bin_edges", "numeric", "method")
                     else pl.Boolean if k in ("simplify", "exceptions") else pl.UInt32)
            out[k] = pl.Series(k, values, dtype=dtype)
    acc, std, rules, conds = [], [], [], []
    for c in cands:
        per_fold = [a / max(r, 1) for a, r in zip(c["correct"], c["rows"])]
        mean = sum(per_fold) / len(per_fold)
        acc.append(sum(c["correct"]) / max(sum(c["rows"]), 1))
        std.append((sum((a - mean) ** 2 for a in per_fold) / len(per_fold)) ** 0.5)
        rules.append(sum(c["rules"]) / len(c["rules"]))
        conds.append(sum(c["conditions"]) / len(c["conditions"]))
    return pl.DataFrame(
        {
            **out,
            "cv_accuracy": acc,
            "cv_accuracy_std": std,
            "rules": rules,
            "conditions": conds,
            "chosen": [i == rec["chosen"] for i in range(len(cands))],
        }
    )
