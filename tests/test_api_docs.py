"""The API reference: the README's pdoc command builds it without a warning, and every public
function and method it documents has a docstring with an example (``>>>``) and, when it takes
arguments, a ``Raises:`` section naming its errors."""

from __future__ import annotations

import importlib
import inspect
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

README = Path(__file__).resolve().parent.parent / "README.md"


def _pdoc_command() -> list[str]:
    lines = [line for line in README.read_text().splitlines() if line.startswith("pdoc ")]
    assert len(lines) == 1, "the README shows one pdoc command"
    return shlex.split(lines[0])


def _modules() -> list[str]:
    return [a for a in _pdoc_command()[1:] if a.startswith("findrs")]


def test_readme_pdoc_command_builds_the_reference(tmp_path: Path) -> None:
    pytest.importorskip("pdoc")
    pytest.importorskip("sklearn")
    pytest.importorskip("matplotlib")
    cmd = _pdoc_command()
    out = cmd.index("-o") + 1
    assert cmd[out] == "docs/api"
    cmd[out] = str(tmp_path / "api")
    exe = shutil.which("pdoc") or ""
    run = [exe, *cmd[1:]] if exe else [sys.executable, "-m", "pdoc", *cmd[1:]]
    done = subprocess.run(run, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "Warn" not in done.stderr, done.stderr
    pages = {p.relative_to(tmp_path / "api").as_posix() for p in (tmp_path / "api").rglob("*.html")}
    for module in _modules():
        page = module.replace(".", "/") + ".html"
        assert page in pages, (page, sorted(pages))
    index = (tmp_path / "api" / "findrs.html").read_text()
    for name in ("fit", "RuleSetModel", "predict_expr", "FindRSInputError", "Config"):
        assert f'id="{name}' in index or f'id="RuleSetModel.{name}' in index, name


def _public_callables():
    """(qualified name, function) of every public function and method of the documented
    modules (properties and dataclass fields are attributes: the class's example covers them)."""
    seen: set[int] = set()
    for module_name in _modules():
        module = importlib.import_module(module_name)
        exported = getattr(module, "__all__", None)
        names = exported or [n for n in vars(module) if not n.startswith("_")]
        for name in names:
            obj = getattr(module, name)
            home = str(getattr(obj, "__module__", ""))
            # pdoc documents what __all__ lists, else what the module defines (not its imports).
            if inspect.ismodule(obj) or not (home.startswith("findrs") if exported else home == module_name):
                continue
            if inspect.isclass(obj):
                if id(obj) not in seen:
                    seen.add(id(obj))
                    yield f"{module_name}.{name}", obj
                for attr, value in vars(obj).items():
                    if attr.startswith("_") or isinstance(value, property):
                        continue
                    func = getattr(value, "__func__", value)
                    if inspect.isfunction(func) and id(func) not in seen:
                        seen.add(id(func))
                        yield f"{module_name}.{name}.{attr}", func
            elif inspect.isfunction(obj) and id(obj) not in seen:
                seen.add(id(obj))
                yield f"{module_name}.{name}", obj


def _takes_arguments(func) -> bool:
    params = [p for p in inspect.signature(func).parameters.values() if p.name not in ("self", "cls")]
    return bool(params)


def test_every_public_function_has_an_example_and_its_errors() -> None:
    pytest.importorskip("sklearn")
    pytest.importorskip("matplotlib")
    found = list(_public_callables())
    assert len(found) > 40, [n for n, _ in found]
    missing = []
    for name, obj in found:
        doc = inspect.getdoc(obj) or ""
        if ">>>" not in doc:
            missing.append(f"{name}: no example")
        if inspect.isfunction(obj) and _takes_arguments(obj) and not re.search(r"^Raises:$", doc, re.M):
            missing.append(f"{name}: no Raises section")
    assert not missing, "\n".join(missing)


def test_the_readme_and_docs_links_point_to_files_and_headings_that_exist() -> None:
    root = README.parent
    for doc in (README, *sorted((root / "docs").glob("*.md"))):
        text = doc.read_text()
        for target, anchor in re.findall(r"\]\(([^)#]+)(?:#([^)]*))?\)", text):
            if target.startswith(("http://", "https://")):
                continue
            linked = doc.parent / target
            assert linked.exists(), f"{doc.name} links to {target}, which does not exist"
            if anchor and linked.suffix == ".md":
                # GitHub's heading anchors: lower case, punctuation dropped, spaces as hyphens.
                headings = re.findall(r"^#+ (.*)$", linked.read_text(), re.M)
                slugs = {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-") for h in headings}
                assert anchor in slugs, f"{doc.name} links to {target}#{anchor}, a heading it does not have"
    guide = (root / "docs" / "guide.md").read_text()
    for cited in re.findall(r"results/[\w.-]+\.(?:md|png|csv)", guide):
        assert (root / cited).exists(), f"docs/guide.md cites {cited}, which does not exist"
    assert "findrs.plot.pruning_curve" in guide
