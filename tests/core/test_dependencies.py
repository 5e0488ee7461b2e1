"""The runtime dependencies in pyproject.toml are what the package imports, no more, no less.

A dependency the package never imports costs every install its download (librosa, with numba and
LLVM, was one: only the tests compare against it, so it is a test extra); an import of a package
that is not declared works only where it happens to be installed. The imports are read from the
source (plain and ``from`` imports, and the names given to ``importlib.import_module`` and
``lazy_import``), and mapped to the distributions that provide them by the installed metadata.
"""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from collections import defaultdict
from importlib.metadata import packages_distributions
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "bagel_studio"
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))

# The user's fixed list of packages: the README's commands (packaging/setup.sh installs the
# project with its `dev` extra) must install every one of them.
USER_PACKAGES = (
    "PySide6",
    "pyqtgraph",
    "sounddevice",
    "soundfile",
    "librosa",
    "sqlite-utils",
    "openai",
    "pytest-qt",
)
# Names given as a string to these functions are imports too.
DYNAMIC_IMPORTERS = {"import_module", "lazy_import"}
TOOL_EXTRAS = {"dev", "bundle"}


def normalized(name: str) -> str:
    """A distribution's name as PEP 503 compares them."""
    return re.sub(r"[-_.]+", "-", name).lower()


def requirement_name(requirement: str) -> str:
    """``"dask[distributed]>=2024.8"`` -> ``"dask"``."""
    match = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", requirement)
    assert match, requirement
    return normalized(match.group(1))


def declared(*extras: str) -> set[str]:
    """The runtime dependencies, with those of ``extras``."""
    project = PYPROJECT["project"]
    requirements = list(project["dependencies"])
    for extra in extras:
        requirements += project["optional-dependencies"][extra]
    return {requirement_name(r) for r in requirements}


def _imported_names(tree: ast.AST) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
        elif (
            isinstance(node, ast.Call)
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            function = node.func
            called = function.attr if isinstance(function, ast.Attribute) else None
            called = function.id if isinstance(function, ast.Name) else called
            if called in DYNAMIC_IMPORTERS and not node.args[0].value.startswith("."):
                names.add(node.args[0].value)
    return names


def third_party_imports() -> dict[str, list[str]]:
    """{top-level module the package imports from outside it and the standard library: the
    package's files that import it}."""
    found: dict[str, set[str]] = defaultdict(set)
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for name in _imported_names(tree):
            top = name.partition(".")[0]
            if top != "bagel_studio" and top not in sys.stdlib_module_names:
                found[top].add(str(path.relative_to(ROOT)))
    return {top: sorted(files) for top, files in sorted(found.items())}


def distributions_of(module: str) -> set[str]:
    return {normalized(d) for d in packages_distributions().get(module, [])}


def feature_extras() -> list[str]:
    """The extras that add a feature to the program (``birdnet``), not tools (``dev``, the
    tests' and linters'; ``bundle``, the build's)."""
    return [e for e in PYPROJECT["project"]["optional-dependencies"] if e not in TOOL_EXTRAS]


def test_every_third_party_import_of_the_package_is_a_declared_dependency() -> None:
    """Declared in [project] dependencies or, for an optional feature (which says how to get it
    when it is missing), in that feature's extra. A module not installed here is matched to a
    distribution of its own name."""
    imports = third_party_imports()
    assert {"numpy", "PySide6", "sqlite_utils", "scipy", "openai"} <= set(imports)  # read them
    wanted = declared(*feature_extras())
    undeclared = {
        module: files
        for module, files in imports.items()
        if not (distributions_of(module) or {normalized(module)}) & wanted
    }
    assert undeclared == {}, (
        "the package imports these, but neither pyproject.toml's [project] dependencies nor a"
        f" feature's extra declares the distribution that provides them: {undeclared}"
    )


def test_every_runtime_dependency_is_imported_by_the_package() -> None:
    provided: set[str] = set()
    for module in third_party_imports():
        provided |= distributions_of(module)
    unused = sorted(declared() - provided)
    assert unused == [], (
        f"pyproject.toml's [project] dependencies {unused} are imported nowhere in bagel_studio:"
        " move them to the extra that uses them (tests: `dev`; the bundle: `bundle`)"
    )


def test_the_readme_commands_install_the_users_packages() -> None:
    """``bash packaging/bagel.sh demo|test`` run packaging/setup.sh, which installs the project
    with its ``dev`` extra: that must hold the user's whole list."""
    setup = (ROOT / "packaging" / "setup.sh").read_text(encoding="utf-8")
    assert 'pip install -q -e ".[dev]"' in setup
    installed = declared("dev")
    # PySide6 is declared as its essentials wheel, which provides the `PySide6` package.
    installed |= {"pyside6"} if "pyside6-essentials" in installed else set()
    missing = [name for name in USER_PACKAGES if normalized(name) not in installed]
    assert missing == []
