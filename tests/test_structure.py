"""The shape of the code: modules depend on each other one way, only the model module touches the
extension, and the namespace methods take exactly ``findrs.fit``'s parameters.

Imports are read from the source: Python's with ``ast`` over ``python/findrs``, Rust's from the
``crate::`` paths of ``rust/core/src`` (``use crate::x`` lines and inline ``crate::x::`` paths,
test modules and comments left out). A cycle fails the test and is printed.
"""

from __future__ import annotations

import ast
import inspect
import re
from pathlib import Path

import findrs
from findrs.namespace import DataFrameNamespace, LazyFrameNamespace

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "python" / "findrs"
CORE = ROOT / "rust" / "core" / "src"


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """A dependency cycle of ``graph`` (as the list of its nodes, first repeated), or None."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt) :] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def python_imports() -> dict[str, set[str]]:
    """For every module of the package, the package modules it imports."""
    modules = {p.stem for p in PACKAGE.glob("*.py")}
    graph: dict[str, set[str]] = {}
    for path in PACKAGE.glob("*.py"):
        deps: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                if node.level == 1 and node.module:
                    deps.add(node.module.split(".")[0])
                elif node.level == 1:
                    deps.update(a.name for a in node.names)
                elif node.module and node.module.startswith("findrs."):
                    deps.add(node.module.split(".")[1])
            elif isinstance(node, ast.Import):
                deps.update(a.name.split(".")[1] for a in node.names if a.name.startswith("findrs."))
        graph[path.stem] = {d for d in deps if d in modules and d != path.stem}
    return graph


def rust_imports() -> dict[str, set[str]]:
    """For every module of the core crate, the crate modules its non-test code names."""
    modules = {p.stem for p in CORE.glob("*.rs")} - {"lib"}
    graph: dict[str, set[str]] = {}
    for path in CORE.glob("*.rs"):
        if path.stem == "lib":
            continue
        code = path.read_text().split("#[cfg(test)]")[0]
        code = "\n".join(line.split("//")[0] for line in code.splitlines())
        deps = set(re.findall(r"crate::(\w+)", code))
        for group in re.findall(r"use crate::\{([^}]*)\}", code):
            deps.update(re.findall(r"(\w+)(?:::|\s*[,}]|$)", group))
        graph[path.stem] = {d for d in deps if d in modules and d != path.stem}
    return graph


def test_the_cycle_finder_finds_cycles() -> None:
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None


def test_no_import_cycle_in_the_python_package() -> None:
    graph = python_imports()
    assert {"model", "expressions", "sql", "encode"} <= set(graph)
    assert "model" in graph["learn"]  # the reader sees real edges
    assert _cycle(graph) is None, f"import cycle: {' -> '.join(_cycle(graph) or [])}"


def test_no_module_cycle_in_the_core_crate() -> None:
    graph = rust_imports()
    assert {"model", "predict", "predict_plan", "json"} <= set(graph)
    assert "predict" in graph["model"] and "model" in graph["json"]
    # The predictor and its plan know rules and schemas, not models.
    assert "model" not in graph["predict"] and "model" not in graph["predict_plan"]
    assert _cycle(graph) is None, f"module cycle: {' -> '.join(_cycle(graph) or [])}"


def test_only_the_model_module_touches_the_extension() -> None:
    touching = sorted(p.name for p in PACKAGE.glob("*.py") if "_core" in p.read_text())
    assert touching == ["model.py"]


def test_namespace_fit_takes_the_parameters_of_fit() -> None:
    want = list(inspect.signature(findrs.fit).parameters.values())[1:]  # without `data`
    for ns in (DataFrameNamespace, LazyFrameNamespace):
        got = list(inspect.signature(ns.fit).parameters.values())[1:]  # without `self`
        assert [(p.name, p.kind, p.default, p.annotation) for p in got] == [
            (p.name, p.kind, p.default, p.annotation) for p in want
        ]


def test_the_package_is_typed() -> None:
    assert (PACKAGE / "py.typed").is_file()
    stub = (PACKAGE / "_core.pyi").read_text()
    for name in ("class CoreModel", "def fit(", "def fit_auto(", "def load(", "def dump(", "MAX_RUNS"):
        assert name in stub
