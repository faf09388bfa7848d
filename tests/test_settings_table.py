"""The parameters of a fit are declared once (findrs.settings.TABLE) and every surface follows it:
findrs.fit's keywords, Settings' fields, the namespace methods, the estimator's parameters and
the command line's options."""

from __future__ import annotations

import argparse
import copy
import inspect
import pickle

import pytest

import findrs
from findrs import FindRSInputError, Settings
from findrs.cli import build_parser
from findrs.settings import BY_NAME, FIT_KEYWORDS, NOT_GIVEN, PARAMETERS, SECTIONS, SETTING_NAMES, TABLE, coerce
from findrs.sklearn import FindRSClassifier


def _keywords(fn) -> dict[str, inspect.Parameter]:
    return {n: p for n, p in inspect.signature(fn).parameters.items() if p.kind is p.KEYWORD_ONLY}


def test_fit_has_at_most_twelve_keywords_and_they_are_the_tables() -> None:
    kw = _keywords(findrs.fit)
    assert len(kw) <= 12
    assert set(kw) == {*FIT_KEYWORDS, "settings"}
    for name in FIT_KEYWORDS:
        assert kw[name].default == BY_NAME[name].default, name
    assert kw["settings"].default is None


def test_fit_docstring_is_short_and_documents_every_keyword() -> None:
    doc = inspect.getdoc(findrs.fit) or ""
    assert len(doc.splitlines()) <= 80
    for name in (*FIT_KEYWORDS, "settings"):
        assert f"{name}:" in doc, name


def test_settings_fields_are_the_tables_settings_with_their_defaults() -> None:
    fields = {n: p for n, p in inspect.signature(Settings).parameters.items()}
    assert list(fields) == list(SETTING_NAMES)
    for name, p in fields.items():
        assert p.default is BY_NAME[name].default or p.default == BY_NAME[name].default
        assert BY_NAME[name].where in SECTIONS
        assert f"    {name} (default" in Settings.__doc__
    assert set(PARAMETERS) | {"features", "n_jobs", "verbose", "multiclass", "exceptions", "chunks"} == set(BY_NAME)


def test_settings_value_semantics() -> None:
    s = Settings(tolerance=0.1, bins=20)
    assert repr(s) == "Settings(tolerance=0.1, bins=20)"
    assert s.given() == {"tolerance": 0.1, "bins": 20}
    assert s == Settings(bins=20, tolerance=0.1) and s != Settings(bins=20)
    assert s.replace(bins=5).given() == {"tolerance": 0.1, "bins": 5} and s.bins == 20
    for copied in (copy.deepcopy(Settings()), pickle.loads(pickle.dumps(Settings()))):
        assert copied.given() == {} and copied.min_support is NOT_GIVEN["min_support"]
    assert coerce({"bins": 5}) == Settings(bins=5) and coerce(None) == Settings()


def test_unknown_or_misplaced_settings_are_refused_with_the_fix() -> None:
    with pytest.raises(FindRSInputError, match=r"unknown setting\(s\) \['tolerence'\].*the settings are"):
        coerce({"tolerence": 1})
    with pytest.raises(FindRSInputError, match="random_state.*keyword of findrs.fit itself"):
        coerce({"random_state": 1})
    with pytest.raises(FindRSInputError, match="settings must be a findrs.Settings"):
        coerce([("bins", 3)])
    df = findrs.datasets.tic_tac_toe()
    with pytest.raises(TypeError, match="tolerance"):
        findrs.fit(df, "class", "positive", tolerance=1)  # type: ignore[call-arg]


def test_a_dict_and_a_settings_value_fit_the_same_model() -> None:
    df = findrs.datasets.tic_tac_toe()
    a = findrs.fit(df, "class", "positive", auto=False, random_state=0, settings={"tolerance": 2, "shuffle": False})
    b = findrs.fit(df, "class", "positive", auto=False, random_state=0, settings=Settings(tolerance=2, shuffle=False))
    assert a.to_json() == b.to_json() and a.params["tolerance"] == 2


def test_the_namespace_methods_forward_with_fits_signature() -> None:
    df = findrs.datasets.tic_tac_toe()
    want = list(inspect.signature(findrs.fit).parameters.values())[1:]
    for bound in (df.findrs.fit, df.lazy().findrs.fit):
        assert list(inspect.signature(bound).parameters.values()) == want
    m = df.lazy().findrs.fit("class", "positive", auto=False, random_state=0, settings={"T": 3}, method="bo")
    assert m.to_json() == findrs.fit(df, "class", "positive", auto=False, random_state=0, settings={"T": 3},
                                     method="bo").to_json()


def test_the_estimators_parameters_are_fits_keywords_but_features() -> None:
    assert set(FindRSClassifier().get_params(deep=False)) == ({*FIT_KEYWORDS, "settings"} - {"features"})
    clf = FindRSClassifier(settings=Settings(tolerance=1))
    assert clf.get_params()["settings__tolerance"] == 1
    clf.set_params(settings__bins=4)
    assert clf.settings.bins == 4
    with pytest.raises(TypeError, match="unexpected parameter"):
        FindRSClassifier(T=5)


def test_every_table_entry_with_an_option_is_on_the_command_line() -> None:
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    fit = sub.choices["fit"]
    dests = {a.dest for a in fit._actions}
    for p in TABLE:
        if p.cli is not False:
            assert p.name in dests, p.name
    args = fit.parse_args(["d.csv", "--target", "y", "-o", "m.json", "--n-rules", "all", "--tolerance", "0.1"])
    assert args.n_rules is None and args.tolerance == 0.1 and not hasattr(args, "bins")
