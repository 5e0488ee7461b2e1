"""The core never imports Qt (STYLE.md): checked on the source and in a fresh interpreter; no
module imports itself through others; every module of the core has its layer."""

from __future__ import annotations

import ast
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CORE = ROOT / "bagel_studio" / "core"
QT_MODULES = ("PySide6", "PyQt5", "PyQt6", "pyqtgraph", "shiboken6")


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def test_no_core_module_imports_qt() -> None:
    offenders = {
        str(path.relative_to(CORE)): sorted(
            m for m in imported_modules(path) if m.split(".")[0] in QT_MODULES
        )
        for path in CORE.rglob("*.py")
    }
    assert {k: v for k, v in offenders.items() if v} == {}
    assert len(offenders) > 10  # the walk really saw the core


def test_importing_the_whole_core_loads_no_qt() -> None:
    code = (
        "import importlib, pkgutil, sys\n"
        "import bagel_studio.core as core\n"
        "for m in pkgutil.walk_packages(core.__path__, 'bagel_studio.core.'):\n"
        "    importlib.import_module(m.name)\n"
        f"bad = [m for m in sys.modules if m.split('.')[0] in {QT_MODULES!r}]\n"
        "print(bad); sys.exit(1 if bad else 0)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stdout + result.stderr


def _import_graph() -> dict[str, set[str]]:
    """Every bagel_studio module (the desk's too) and the bagel_studio modules it imports: also
    lazily, inside functions, and for annotations only, under TYPE_CHECKING (a circle through an
    annotation is still two modules that cannot be read apart), as grimp (import-linter's engine)
    reads them."""
    import grimp

    graph = grimp.build_graph("bagel_studio", cache_dir=None, exclude_type_checking_imports=False)
    ours = {m for m in graph.modules if m.split(".")[0] == "bagel_studio"}
    return {m: graph.find_modules_directly_imported_by(m) & ours for m in ours}


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), i.e. the circles."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in edges.get(node, ()):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def test_no_import_circle_anywhere() -> None:
    """No module of the package reaches itself through its imports: lazy ones, type-only ones,
    the desk's, and a module importing its own package whose ``__init__`` imports it back."""
    edges = _import_graph()
    assert len(edges) > 150  # the graph really holds the core and the desk
    assert any(m.startswith("bagel_studio.ui.") for m in edges)
    assert _cycles(edges) == []


def test_every_module_has_its_layer() -> None:
    """The layers contract of pyproject.toml names every top-level module of the core (a module
    in no layer could import anything)."""
    contract = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    layers = contract["tool"]["importlinter"]["contracts"][0]["layers"]
    placed = {name.strip() for layer in layers for name in layer.replace(":", "|").split("|")}
    modules = {
        f"bagel_studio.core.{path.stem if path.suffix else path.name}"
        for path in CORE.iterdir()
        if (path.suffix == ".py" and path.stem != "__init__")
        or (path.is_dir() and (path / "__init__.py").is_file())
    }
    assert len(modules) > 20
    assert sorted(modules - placed) == []


def test_the_circle_finder_finds_a_circle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
