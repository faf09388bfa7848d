"""The shape of the code: modules depend on each other one way, only the model module touches the
extension, and the namespace methods take exactly ``findrs.fit``'s parameters.

Imports are read from the source: Python's with ``ast`` over ``python/findrs``, Rust's from the
paths of ``rust/core/src`` and ``rust/python/src`` (every module found from ``lib.rs`` through
its ``mod`` declarations, folders included; ``use`` trees and inline ``crate::``, ``super::``
and child-module paths; test items, comments and strings left out). A cycle fails the test and
is printed. The core's layers (its folders) and the bindings' modules import only what their
``//!`` docs' ``Imports:`` paragraph names.
"""

from __future__ import annotations

import ast
import inspect
import re
import sys
from pathlib import Path

import pytest

import findrs
from findrs.namespace import DataFrameNamespace, LazyFrameNamespace

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "python" / "findrs"
CORE = ROOT / "rust" / "core" / "src"
BINDINGS = ROOT / "rust" / "python" / "src"


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


def _module_name(path: Path) -> str:
    """``data.encode`` for ``python/findrs/data/encode.py``, ``cli`` for a top-level module,
    ``data`` for a sub-package's ``__init__``."""
    parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1] or ["__init__"]
    return ".".join(parts)


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def python_imports() -> dict[str, set[str]]:
    """For every module of the package (dotted below ``findrs``), the package modules it
    imports, relative (``.x``, ``..pkg.x``, ``from . import x``) or absolute (``findrs.x``),
    at module level or inside functions."""
    paths = sorted(PACKAGE.rglob("*.py"))
    modules = {_module_name(p) for p in paths}
    graph: dict[str, set[str]] = {}
    for path in paths:
        name = _module_name(path)
        here = list(path.relative_to(PACKAGE).parent.parts)  # the package holding the file
        deps: set[str] = set()

        def add(dotted: str) -> None:
            # the longest prefix that is a module ("data.encode.FeatureEncoder" -> "data.encode")
            bits = dotted.split(".")
            for k in range(len(bits), 0, -1):
                if ".".join(bits[:k]) in modules:
                    deps.add(".".join(bits[:k]))
                    return

        tree = ast.parse(path.read_text())
        typing_only = {id(n) for block in ast.walk(tree) if isinstance(block, ast.If) and _is_type_checking(block.test)
                       for stmt in block.body for n in ast.walk(stmt)}
        for node in ast.walk(tree):
            if id(node) in typing_only:  # `if TYPE_CHECKING:` imports are for annotations, not run
                continue
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = here[: len(here) - (node.level - 1)] if node.level > 1 else list(here)
                    prefix = [*base, *(node.module.split(".") if node.module else [])]
                    for a in node.names:
                        add(".".join([*prefix, a.name]))
                elif node.module and node.module.startswith("findrs."):
                    for a in node.names:
                        add(node.module[len("findrs."):] + "." + a.name)
            elif isinstance(node, ast.Import):
                for a in node.names:
                    if a.name.startswith("findrs."):
                        add(a.name[len("findrs."):])
        graph[name] = {d for d in deps if d != name}
    return graph


LAYERS = {"base": 0, "data": 1, "export": 2, "select": 2, "models": 3, "learning": 4, "front": 5}
"""The package's layers, lowest first: a module imports only from layers below its own or
from its own sub-package (``export`` and ``select`` are side by side)."""
BASE = {"errors", "settings", "config", "polars_floor"}


def _layer(module: str) -> str:
    top = module.split(".")[0]
    if top in LAYERS and top != "base":
        return top
    return "base" if top in BASE else "front"


def _rust_code(text: str) -> str:
    """Rust source with comments and the contents of string and character literals blanked
    (so braces, paths and `#[cfg(test)]` in them are not read), line breaks kept."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("\n" * text.count("\n", i, j))
            i = j
        elif (m := re.match(r'b?r(#*)"', text[i:])) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            end = text.find('"' + m.group(1), i + m.end())
            j = n if end < 0 else end + 1 + len(m.group(1))
            out.append('""' + "\n" * text.count("\n", i, j))
            i = j
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append('""' + "\n" * text.count("\n", i, j))
            i = j + 1
        elif c == "'" and (m := re.match(r"'(\\[^']*|[^\\'])'", text[i:])):
            out.append("' '")
            i += m.end()
        else:
            out.append(c)
            i += 1
    return "".join(out)


def _without_tests(code: str) -> str:
    """``code`` (from :func:`_rust_code`) without the items marked ``#[cfg(test)]``: a module
    declaration, a ``mod tests { ... }`` block or any other item up to its ``;`` or its
    balanced braces."""
    while (m := re.search(r"#\[cfg\(test\)\]", code)) is not None:
        j = m.end()
        while True:  # further attributes on the same item
            a = re.match(r"\s*#\[[^\]]*\]", code[j:])
            if not a:
                break
            j += a.end()
        k = j
        while k < len(code) and code[k] not in ";{":
            k += 1
        if k < len(code) and code[k] == "{":
            depth = 0
            while k < len(code):
                depth += {"{": 1, "}": -1}.get(code[k], 0)
                if depth == 0:
                    break
                k += 1
        code = code[: m.start()] + code[k + 1 :]
    return code


def _use_paths(tree: str) -> list[str]:
    """The paths one ``use`` tree names: ``a::{b, c::{d, self}}`` gives ``a::b``, ``a::c::d``,
    ``a::c``."""
    tree = re.sub(r"\s+", "", re.sub(r"\s+as\s+\w+", "", tree))
    brace = tree.find("{")
    if brace < 0:
        return [re.sub(r"::(self|\*)$", "", tree)] if tree else []
    prefix, inner = tree[:brace], tree[brace + 1 : tree.rindex("}")]
    parts, depth, cur = [], 0, ""
    for ch in inner:
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
            continue
        depth += {"{": 1, "}": -1}.get(ch, 0)
        cur += ch
    parts.append(cur)
    out = []
    for part in filter(None, parts):
        for sub in _use_paths(part):
            out.append(prefix.rstrip(":") if sub in ("self", "*") else prefix + sub)
    return out


def _module_files(src: Path) -> dict[str, Path]:
    """Every non-test module of the crate rooted at ``src/lib.rs`` (``""``) by its path
    (``"learn::run"``), found through the ``mod x;`` declarations (``x.rs`` or ``x/mod.rs``
    beside or under the declaring file)."""
    found: dict[str, Path] = {}

    def visit(name: str, path: Path) -> None:
        found[name] = path
        here = path.parent if path.name in ("lib.rs", "mod.rs") else path.with_suffix("")
        code = _without_tests(_rust_code(path.read_text()))
        for child in re.findall(r"^\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*;", code, re.M):
            file = here / f"{child}.rs"
            visit(f"{name}::{child}" if name else child, file if file.is_file() else here / child / "mod.rs")

    visit("", src / "lib.rs")
    return found


def _reexports(src: Path, modules: set[str]) -> dict[str, str]:
    """The crate root's re-exports: each name ``pub use``'d by ``lib.rs`` and the module it
    comes from."""
    code = _without_tests(_rust_code((src / "lib.rs").read_text()))
    out = {}
    for tree in re.findall(r"\bpub\s+use\s+([^;]+);", code):
        for path in _use_paths(tree):
            segs = path.split("::")
            out[segs[-1]] = max(("::".join(segs[:k]) for k in range(len(segs)) if "::".join(segs[:k]) in modules),
                                key=len, default="")
    return out


def rust_module_graph(src: Path) -> dict[str, set[str]]:
    """For every non-test module of the crate at ``src`` (by path, ``"learn::run::copies"``;
    the root ``lib.rs`` left out), the crate modules its non-test code names: ``use`` trees
    (``use crate::{a::b, c}``) and inline paths, from ``crate::``, ``$crate::``, ``super::``,
    ``self::`` or a child module's name; a name the root re-exports counts as its module. Test
    items (``#[cfg(test)]``), comments and string literals are left out."""
    files = _module_files(src)
    modules = set(files)
    reexported = _reexports(src, modules)
    graph: dict[str, set[str]] = {}
    for name, path in files.items():
        if not name:
            continue
        code = _without_tests(_rust_code(path.read_text()))
        paths = [p for tree in re.findall(r"\buse\s+([^;]+);", code) for p in _use_paths(tree)]
        code_only = re.sub(r"\buse\s+[^;]+;", "", code)
        paths += re.findall(r"(?<![\w:])\$?(?:crate|super|self|[a-z_]\w*)(?:::\w+)+", code_only)
        deps = set()
        for p in paths:
            segs = p.lstrip("$").split("::")
            here = name.split("::")
            if segs[0] == "crate":
                base, rest = [], segs[1:]
            elif segs[0] in ("super", "self"):
                base, rest = here, segs
                while rest and rest[0] in ("super", "self"):
                    base = base[:-1] if rest[0] == "super" else base
                    rest = rest[1:]
            elif "::".join(here + segs[:1]) in modules:
                base, rest = here, segs
            else:
                continue  # another crate (std, pyo3, ...)
            target = ""
            for k in range(len(rest) + 1):
                if "::".join(base + rest[:k]) in modules:
                    target = "::".join(base + rest[:k])
            if not target and rest and rest[0] in reexported and not base:
                target = reexported[rest[0]]
            if target and target != name:
                deps.add(target)
        graph[name] = deps
    return graph


def declared_imports(path: Path, known: set[str]) -> set[str] | None:
    """The modules (or layers) the ``//!`` doc of ``path`` says it may import: the names in
    backticks in its ``Imports:`` paragraph that are among ``known`` (none for "no other
    layer"); ``None`` without such a paragraph."""
    doc = []
    for line in path.read_text().splitlines():
        if not line.startswith("//!"):
            break
        doc.append(line[3:].strip())
    text = "\n".join(doc)
    m = re.search(r"Imports:(.*?)(?:\n\n|$)", text, re.S)
    if m is None:
        return None
    return set(re.findall(r"`(\w+)`", m.group(1))) & known


def layer_graph(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """``graph`` (by module path) by top-level module: the layers (folders) of the core."""
    out: dict[str, set[str]] = {}
    for node, deps in graph.items():
        top = node.split("::")[0]
        out.setdefault(top, set()).update(d.split("::")[0] for d in deps if d.split("::")[0] != top)
    return out


def rust_imports() -> dict[str, set[str]]:
    """For every module of the core crate, the crate modules its non-test code names."""
    return rust_module_graph(CORE)


def test_the_cycle_finder_finds_cycles() -> None:
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None


def test_no_import_cycle_in_the_python_package() -> None:
    graph = python_imports()
    assert {"models.model", "export.expressions", "export.sql", "data.encode", "learning.learn"} <= set(graph)
    assert "models.model" in graph["learning.learn"]  # the reader sees real edges
    assert "learning.learn" in graph["learning.bagging"] and "models.model" in graph["models.loader"]
    assert _cycle(graph) is None, f"import cycle: {' -> '.join(_cycle(graph) or [])}"


def test_the_python_reader_resolves_relative_imports(tmp_path: Path, monkeypatch) -> None:
    pkg = tmp_path / "findrs"
    (pkg / "a").mkdir(parents=True)
    (pkg / "a" / "x.py").write_text("from ..b import y\nfrom . import z\n")
    (pkg / "a" / "z.py").write_text("def f():\n    from .x import q\n")
    (pkg / "b.py").write_text("from findrs.a.z import f\nfrom typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .a import x\n")
    (pkg / "a" / "__init__.py").write_text("")
    monkeypatch.setattr(sys.modules[__name__], "PACKAGE", pkg)
    graph = python_imports()
    assert graph["a.x"] == {"b", "a.z"} and graph["a.z"] == {"a.x"} and graph["b"] == {"a.z"}
    assert _cycle(graph) == ["a.x", "a.z", "a.x"]


def test_the_package_is_split_into_layers_that_import_downward() -> None:
    subpackages = sorted(p.parent.name for p in PACKAGE.glob("*/__init__.py"))
    assert len(subpackages) >= 3 and set(subpackages) <= set(LAYERS)
    for sub in subpackages:  # each sub-package says what it may import
        assert "May import:" in (PACKAGE / sub / "__init__.py").read_text(), sub
    wrong = []
    for module, deps in python_imports().items():
        mine = _layer(module)
        for d in deps:
            theirs = _layer(d)
            if not (mine == theirs or LAYERS[theirs] < LAYERS[mine]):
                wrong.append(f"{module} ({mine}) imports {d} ({theirs})")
    assert not wrong, "imports against the layers:\n" + "\n".join(sorted(wrong))


def test_no_python_module_is_over_800_lines() -> None:
    long = {str(p.relative_to(PACKAGE)): n for p in PACKAGE.rglob("*.py") if (n := len(p.read_text().splitlines())) > 800}
    assert not long, long


def _crate(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def test_the_rust_reader_sees_every_kind_of_path(tmp_path: Path) -> None:
    src = _crate(tmp_path, {
        "lib.rs": "mod low;\nmod high;\npub use low::base::Thing;\n#[cfg(test)]\nmod fixtures;\n",
        "fixtures.rs": "use crate::high::top::All;\n",
        "low/mod.rs": "//! Low.\n//!\n//! Imports: no other layer.\n\npub(crate) mod base;\npub(crate) mod other;\n",
        "low/base.rs": (
            "//! Uses `crate::high::top` only in comments.\n"
            'const S: &str = "crate::high::top::All {";\n'
            "const C: char = '{';\n"
            "mod inner;\nuse inner::Deep;\n"
            "#[cfg(test)]\nmod tests {\n    use crate::high::top::All;\n    fn f() { let _ = \"}\"; }\n}\n"
            "#[cfg(test)]\nmod more_tests;\n"
            "fn g() -> super::other::O { todo!() }\n"
        ),
        "low/base/inner.rs": "use super::super::other::O;\n",
        "low/base/more_tests.rs": "use crate::high::top::All;\n",
        "low/other.rs": "pub struct O;\n",
        "high/mod.rs": "//! High.\n//!\n//! Imports: `low`.\n\npub(crate) mod top;\n",
        "high/top.rs": (
            "use crate::{low::{base::{self, Thing as T}, other}, Thing};\nfn f() { crate::low::other::O; }\n"
            "use crate::low::base as based;\n"
        ),
    })
    graph = rust_module_graph(src)
    assert set(graph) == {"low", "low::base", "low::base::inner", "low::other", "high", "high::top"}
    assert graph["low::base"] == {"low::base::inner", "low::other"}
    assert graph["low::base::inner"] == {"low::other"}
    assert graph["high::top"] == {"low::base", "low::other"}
    assert _use_paths("crate::{a::{b::{self, C as D}, e}, f as g, h::*}") == [
        "crate::a::b", "crate::a::b::C", "crate::a::e", "crate::f", "crate::h"]
    assert layer_graph(graph) == {"low": set(), "high": {"low"}}
    assert declared_imports(src / "low" / "mod.rs", {"low", "high"}) == set()
    assert declared_imports(src / "high" / "mod.rs", {"low", "high"}) == {"low"}
    assert declared_imports(src / "low" / "other.rs", {"low", "high"}) is None
    # The circles the bindings once had are seen: fit -> model -> multiclass -> fit, and a pair.
    bindings = _crate(tmp_path / "b", {
        "lib.rs": "mod fit;\nmod model;\nmod multiclass;\nmod abi;\nmod input;\n",
        "fit.rs": "use crate::model::CoreModel;\n",
        "model.rs": "use crate::multiclass::CoreMulticlass;\n",
        "multiclass.rs": "use crate::fit::{drive, rule_count};\n",
        "abi.rs": "use crate::input::{import_inputs, Input};\n",
        "input.rs": "fn f(e: *mut crate::abi::SeriesExport) {}\n",
    })
    circle = rust_module_graph(bindings)
    assert _cycle(circle) == ["abi", "input", "abi"]
    del circle["abi"]
    assert _cycle(circle) == ["fit", "model", "multiclass", "fit"]


def test_no_module_cycle_in_the_core_crate() -> None:
    graph = rust_imports()
    assert {"predict::model", "predict::predictor", "predict::predict_plan", "io::json", "learn::run::copies"} <= set(graph)
    # The reader sees real edges: nested modules, child modules, across layers.
    assert "predict::predictor" in graph["predict::model"] and "predict::model" in graph["io::json"]
    assert {"learn::run::copies", "learn::training", "data::rule"} <= graph["learn::run"]
    # The predictor and its plan know rules and schemas, not models.
    assert "predict::model" not in graph["predict::predictor"]
    assert "predict::model" not in graph["predict::predict_plan"]
    assert _cycle(graph) is None, f"module cycle: {' -> '.join(_cycle(graph) or [])}"


def test_the_core_layers_import_only_what_their_docs_allow() -> None:
    layers = layer_graph(rust_imports())
    assert set(layers) == {"data", "predict", "learn", "select", "io"}
    assert "predict" in layers["learn"] and "learn" in layers["select"]  # the reader sees real edges
    declared = {}
    for layer in layers:
        allowed = declared_imports(CORE / layer / "mod.rs", set(layers))
        assert allowed is not None, f"{layer}/mod.rs does not say what it may import"
        declared[layer] = allowed
        extra = layers[layer] - allowed
        assert not extra, f"layer {layer} imports {sorted(extra)}, which its mod.rs does not allow"
    assert declared["data"] == set(), "the data layer imports no other layer"
    assert _cycle(declared) is None, f"the layer order has a cycle: {' -> '.join(_cycle(declared) or [])}"


def test_no_module_cycle_in_the_bindings_crate() -> None:
    graph = rust_module_graph(BINDINGS)
    assert {"fit", "model", "multiclass", "drive", "options", "plugin", "plugin_abi", "plugin_input"} <= set(graph)
    assert {"drive", "model", "options"} <= graph["fit"] and "plugin_abi" in graph["plugin_input"]
    assert _cycle(graph) is None, f"module cycle: {' -> '.join(_cycle(graph) or [])}"
    for name, deps in graph.items():
        allowed = declared_imports(BINDINGS / f"{name}.rs", set(graph))
        assert allowed is not None, f"{name}.rs does not say what it may import"
        assert deps <= allowed, f"{name}.rs imports {sorted(deps - allowed)}, which its doc does not allow"


def test_only_the_model_module_touches_the_extension() -> None:
    # The rule set model and its parts (its fitting, its file); nothing outside the models layer.
    imports = re.compile(r"^\s*from (?:\.+|findrs) import _core\b|^\s*import findrs\._core\b", re.M)
    touching = sorted(str(p.relative_to(PACKAGE)) for p in PACKAGE.rglob("*.py") if imports.search(p.read_text()))
    assert touching == ["models/model.py", "models/rule_set_files.py", "models/rule_set_fit.py", "models/rule_set_parts.py"]


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
