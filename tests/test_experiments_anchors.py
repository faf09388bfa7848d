"""The interpretable-model anchors (experiments/anchors.py) and the remedies
(experiments/remedies.py) of issue 13: the one-standard-error choice, the settings that refit a
CV candidate, the section writer, and both scripts at smoke size on one wine split."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import polars as pl
import pytest

import findrs

pytest.importorskip("wittgenstein")
pytest.importorskip("sklearn")


def _table(rows: list[tuple[float, float, float]]) -> pl.DataFrame:
    """A cv_results-shaped table of (cv_accuracy, cv_accuracy_std, conditions) rows."""
    n = len(rows)
    return pl.DataFrame({
        "encoding": ["av"] * n, "tolerance": ["0"] * n, "min_support": [0] * n, "direction": ["positive"] * n,
        "simplify": [False] * n, "n_rules": [None] * n, "bin_edges": ["uniform"] * n, "numeric": ["bins"] * n,
        "method": ["find-rs"] * n, "cv_T": [1] * n, "cv_accuracy": [r[0] for r in rows],
        "cv_accuracy_std": [r[1] for r in rows], "rules": [1.0] * n, "conditions": [r[2] for r in rows],
        "chosen": [False] * n,
    })


def test_one_se_takes_the_fewest_conditions_within_one_standard_error() -> None:
    from experiments.remedies import one_se_row

    # Best .95 with fold sd .0447 -> SE .02: .93 is within, .92 is not.
    t = _table([(0.95, 0.0447214, 9.0), (0.93, 0.1, 3.0), (0.92, 0.0, 1.0), (0.94, 0.0, 3.0)])
    assert one_se_row(t)["order"] == 3  # fewest conditions (3) within the bound, a tie to higher accuracy
    assert one_se_row(t.with_columns(pl.col("cv_accuracy_std") * 0))["order"] == 0  # no spread: the best
    # A tie in accuracy and conditions goes to the earlier row.
    assert one_se_row(_table([(0.9, 0.0, 2.0), (0.9, 0.0, 2.0)]))["order"] == 0


def test_settings_of_a_vote_candidate_and_a_share_tolerance() -> None:
    from experiments.remedies import settings_of

    row = _table([(0.9, 0.0, 2.0)]).row(0, named=True)
    row.update(method="bp", cv_T=20, n_rules="25", tolerance="0.1", simplify=True)
    kw = settings_of(row)
    assert kw["T"] == 20 and kw["n_rules"] == 25 and kw["tolerance"] == 0.1 and kw["auto"] is False
    assert settings_of({**row, "method": "find-rs", "tolerance": "0"})["tolerance"] == 0


def test_write_section_replaces_its_own_section_only(tmp_path: Path) -> None:
    from experiments.anchors import write_section

    out = tmp_path / "r.md"
    out.write_text("# Title\n\ntext\n\n## Other\n\nkeep\n")
    write_section(out, "## Mine\n\nfirst\n", "## Mine")
    write_section(out, "## Mine\n\nsecond\n", "## Mine")
    text = out.read_text()
    assert text.count("## Mine") == 1 and "second" in text and "first" not in text and "keep" in text
    out.write_text("# T\n\n## Mine\n\nold\n\n### sub\n\nold too\n\n## After\n\nstays\n")
    write_section(out, "## Mine\n\nnew\n", "## Mine")
    assert out.read_text() == "# T\n\n## Mine\n\nnew\n\n## After\n\nstays\n"


def test_the_default_refitted_from_its_cv_row_is_the_default(data_dir) -> None:
    """The remedies refit a CV candidate with its settings given; for the chosen row that must be
    the default model itself (docs/semantics.md §9.4, §9.5)."""
    from experiments.intervals import splits
    from experiments.remedies import settings_of

    for seed, train, test in splits("wine", str(data_dir), 2):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            m = findrs.fit(train, "class", random_state=seed, max_rules=None)
            again = findrs.fit(train, "class", **findrs.settings.fit_keywords(dict(random_state=seed, **settings_of(m.cv_results.filter(pl.col("chosen")).row(0, named=True)))))
        assert again.n_rules == m.n_rules and again.params["method"] == m.params["method"]
        assert np.array_equal(again.predict(train).to_numpy(), m.predict(train).to_numpy())
        assert np.array_equal(again.predict(test).to_numpy(), m.predict(test).to_numpy())


def test_the_scripts_run_at_smoke_size(tmp_path: Path, data_dir) -> None:
    pytest.importorskip("imodels")
    from experiments import anchors, remedies

    out = tmp_path / "wine.md"
    out.write_text("# Wine\n\nkept\n")
    argv = ["--data-dir", str(data_dir), "--out", str(out), "--datasets", "wine", "--splits", "1"]
    assert anchors.main([*argv, "--models", "FIGS", "GreedyRuleList"]) == 0
    assert remedies.main(argv) == 0
    text = out.read_text()
    assert text.startswith("# Wine\n\nkept\n") and text.count(anchors.SECTION) == 1 and text.count(remedies.SECTION) == 1
    for model in ("findrs default", "LR one-hot bins", "LR raw", "CART raw", "RIPPER raw", "FIGS", "GreedyRuleList"):
        assert f"| {model} | 0." in text, model
    raw = pl.read_csv(out.with_suffix(".anchors.raw.csv"))
    assert raw.height == 7 and raw["accuracy"].min() > 0.6 and (raw["cpu_seconds"] >= 0).all()
    figs = raw.filter(pl.col("model") == "FIGS").row(0, named=True)
    assert figs["setting"].startswith("max_rules=") and figs["rules"] >= 2 and 0.5 < figs["cv_accuracy"] <= 1
    for remedy in ("default", "one-SE", "small grid", "exceptions, interval", "default or exceptions by nested CV",
                   "findrs rules weighted (L1 LR)"):
        assert f"| wine | {remedy} | 0." in text, remedy
    # Rebuilt from the raw rows, the file is the same.
    assert anchors.main([*argv, "--tables-only"]) == 0 and remedies.main([*argv, "--tables-only"]) == 0
    assert out.read_text() == text


def test_wine_errors_keeps_the_sections_other_scripts_wrote() -> None:
    from experiments.anchors import SECTION, keep_sections
    from experiments.remedies import SECTION as REMEDIES

    old = f"# Why\n\nold table\n\n{SECTION}\n\nanchors\n\n{REMEDIES}\n\nremedies\n\n## Conclusion\n\nends\n"
    new = "# Why\n\nnew table\n"
    assert keep_sections(old, new) == f"# Why\n\nnew table\n\n{SECTION}\n\nanchors\n\n{REMEDIES}\n\nremedies\n\n## Conclusion\n\nends\n"
    assert keep_sections("# Why\n\nold table\n", new) == new


def test_small_dnf_best_box_is_the_best_pair_by_brute_force() -> None:
    """experiments.small_dnf's matrix form of the box search equals trying every pair."""
    import numpy as np

    from experiments.small_dnf import best_box, conditions

    rng = np.random.default_rng(0)
    X = rng.integers(0, 5, size=(30, 3)).astype(float)
    y = rng.random(30) < 0.4
    C, _ = conditions(X, X)
    covered = rng.random(30) < 0.2
    for positive in (True, False):
        target = y if positive else ~y
        free = ~covered
        brute = max(int(((C[i] & C[j] & free & target).sum()) - ((C[i] & C[j] & free & ~target).sum()))
                    for i in range(len(C)) for j in range(len(C)))
        i, j, g = best_box(C, y, covered, positive)
        assert g == brute
        box = C[i] & C[j] & free
        assert int((box & target).sum() - (box & ~target).sum()) == brute
