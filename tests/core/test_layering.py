"""The core never imports Qt (STYLE.md): checked on the source and in a fresh interpreter."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

CORE = Path(__file__).resolve().parents[2] / "bagel_studio" / "core"
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


def _core_import_graph() -> dict[str, set[str]]:
    """Every bagel_studio.core module and the core modules it imports (also lazily, inside
    functions; not those under TYPE_CHECKING, for annotations only), as grimp (import-linter's
    engine) reads them."""
    import grimp

    graph = grimp.build_graph("bagel_studio", cache_dir=None, exclude_type_checking_imports=True)
    core = {m for m in graph.modules if m.startswith("bagel_studio.core")}
    return {m: graph.find_modules_directly_imported_by(m) & core for m in core}


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


def test_no_import_circle_in_the_core() -> None:
    """No module of the core reaches itself through its imports (lazy ones included). A module
    importing its own package (``from bagel_studio.core.store import X`` inside the store, while
    the package's ``__init__`` imports that module) is left out: that is how packages re-export
    their parts, not a circle between parts."""
    edges = {
        module: {t for t in targets if not (module + ".").startswith(t + ".")}
        for module, targets in _core_import_graph().items()
    }
    assert len(edges) > 50  # the graph really holds the core
    assert _cycles(edges) == []


def test_the_circle_finder_finds_a_circle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
