"""docs/ARCHITECTURE.md stays a true map of the code.

* Its ``## Files`` tree names every module of ``bagel_studio``: a file's name on a line under its
  folder (``rows.py`` under ``store/``; a package's ``__init__.py`` is named by its folder), or its
  path (``core/store/rows.py``) or dotted name (``core.store.rows``) anywhere in the document. A
  module added or moved without its line fails here with what to add where; a file the tree names
  that is gone fails too.
* Its ``## One user action's path`` section names, row by row, the modules that run when a
  curator accepts an item and what runs in each; each must still exist, so a reshaped path fails
  here until the text follows it.
"""

from __future__ import annotations

import importlib
import importlib.util
import re
from collections import defaultdict
from pathlib import Path
from types import ModuleType

import pytest

from bagel_studio.core.store import Store

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "bagel_studio"
ARCHITECTURE = ROOT / "docs" / "ARCHITECTURE.md"
FILE_NAME = re.compile(r"(?<![\w./-])([A-Za-z_]\w*\.py)\b")
FOLDER = re.compile(r"[A-Za-z_][\w.]*/")


def section(title: str) -> str:
    """The text under ``## title`` (a heading starting so), up to the next ``## `` heading."""
    text = ARCHITECTURE.read_text(encoding="utf-8")
    match = re.search(rf"^## {re.escape(title)}[^\n]*\n(.*?)(?=^## |\Z)", text, re.M | re.S)
    assert match, f"docs/ARCHITECTURE.md has no '## {title}' section"
    return match.group(1)


def files_tree() -> list[str]:
    """The lines of the first code block of the ``## Files`` section."""
    block = re.search(r"^```\n(.*?)^```", section("Files"), re.M | re.S)
    assert block, "the '## Files' section has no ``` block"
    return block.group(1).splitlines()


def named_in_tree(lines: list[str]) -> tuple[set[str], set[str]]:
    """(files, folders) the tree names, as paths from the repository's top (``bagel_studio/
    core/store/rows.py``, ``bagel_studio/core/store/``).

    A line whose first word ends in ``/`` opens that folder under the nearest less indented
    folder above it; every ``NAME.py`` on a line (in the name column or in its description, and
    on the description's continuation lines) is a file of the innermost folder open at that
    line's indentation."""
    files: set[str] = set()
    folders: set[str] = set()
    open_folders: list[tuple[int, str]] = []  # (indentation, path)
    for line in lines:
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip(" "))
        while open_folders and open_folders[-1][0] >= indent:
            open_folders.pop()
        base = open_folders[-1][1] if open_folders else ""
        first = line.split()[0]
        if FOLDER.fullmatch(first):
            base += first
            folders.add(base)
            open_folders.append((indent, base))
        files.update(base + name for name in FILE_NAME.findall(line))
    return files, folders


def modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)


def is_named(module: Path, files: set[str], folders: set[str], text: str) -> bool:
    path = module.relative_to(ROOT).as_posix()
    if module.name == "__init__.py" and path.removesuffix("__init__.py") in folders:
        return True
    if path in files:
        return True
    inner = module.relative_to(PACKAGE).with_suffix("")
    dotted = ".".join(inner.parts).removesuffix(".__init__")
    spelled = (path, module.relative_to(PACKAGE).as_posix(), f"bagel_studio.{dotted}", dotted)
    if "." not in dotted:  # a top-level module (``__main__``) only by its path
        spelled = spelled[:2]
    return any(re.search(rf"(?<![\w./]){re.escape(s)}(?![\w/])", text) for s in spelled)


def where_to_add(missing: list[Path], folders: set[str]) -> str:
    """Missing modules by folder, each folder saying where in the tree it goes."""
    by_folder: dict[str, list[str]] = defaultdict(list)
    for module in missing:
        by_folder[module.parent.relative_to(ROOT).as_posix() + "/"].append(module.name)
    lines = []
    for folder, names in sorted(by_folder.items()):
        if folder in folders:
            lines.append(f"  under `{folder}`: {', '.join(names)}")
        else:
            parent, _, name = folder.rstrip("/").rpartition("/")
            lines.append(
                f"  under `{folder}`, a folder the tree does not have yet (add `{name}/` under"
                f" `{parent}/` first): {', '.join(names)}"
            )
    return "\n".join(lines)


def test_the_files_tree_names_every_module() -> None:
    files, folders = named_in_tree(files_tree())
    text = ARCHITECTURE.read_text(encoding="utf-8")
    all_modules = modules()
    missing = [m for m in all_modules if not is_named(m, files, folders, text)]
    assert len(all_modules) > 150  # the package really was read
    if missing:
        pytest.fail(
            f"docs/ARCHITECTURE.md does not name {len(missing)} of the {len(all_modules)}"
            " modules of bagel_studio. In its '## Files' tree, put each file's name, with a few"
            " words on what it is for, on a line under its folder (or name it by its path,"
            " core/x/y.py, anywhere in the document); a package's __init__.py is named by its"
            " folder's line:\n" + where_to_add(missing, folders),
            pytrace=False,
        )


def test_every_module_and_folder_the_tree_names_exists() -> None:
    files, folders = named_in_tree(files_tree())
    gone = sorted(f for f in files if f.startswith("bagel_studio/") and not (ROOT / f).is_file())
    gone += sorted(f for f in folders if f.startswith("bagel_studio/") and not (ROOT / f).is_dir())
    assert gone == [], (
        "docs/ARCHITECTURE.md's '## Files' tree names files or folders that are no longer there"
        f" (moved, renamed or removed): take them out or write where they went: {gone}"
    )


def path_rows() -> list[tuple[str, str]]:
    """(module path, what the text says runs there) for each row of the accepting path's block;
    a row's description may continue on the lines below it."""
    block = re.search(r"^```\n(.*?)^```", section("One user action's path"), re.M | re.S)
    assert block, "the path of accepting an item has no ``` block"
    rows: list[tuple[str, str]] = []
    for line in block.group(1).splitlines():
        match = re.match(r"^((?:ui|core)/[\w/]+\.py)\s+(.*)$", line)
        if match:
            rows.append((match.group(1), match.group(2)))
        elif rows and line.strip():
            rows[-1] = (rows[-1][0], f"{rows[-1][1]} {line.strip()}")
    return rows


def module_of(path: str) -> ModuleType:
    return importlib.import_module("bagel_studio." + path.removesuffix(".py").replace("/", "."))


def has(owner: object, attribute: str) -> bool:
    """Whether ``owner`` (a module: or one of its classes) has ``attribute``."""
    if hasattr(owner, attribute):
        return True
    return isinstance(owner, ModuleType) and any(
        hasattr(value, attribute) for value in vars(owner).values() if isinstance(value, type)
    )


CLASS_ATTRIBUTE = re.compile(r"\b([A-Z]\w*)\.([a-z_]\w*)")
CALL = re.compile(r"(?<![.\w])([a-z_]\w*)\(\)")
STORE_PART = re.compile(r"(?<![.\w])store\.([a-z_]\w*)\.([a-z_]\w*)")
MODULE_NAME = re.compile(r"(?<![.\w/])([a-z_]\w*)\.([a-z_]\w*)\b(?![.\w])")
FILE = re.compile(r"[\w/]+\.py\b")


def module_attribute_missing(name: str, attribute: str) -> bool:
    """``name.attribute`` names a module of the desk or the core (``queue_model.refresh_items``,
    ``operations.decide``) that has no such attribute, nor any class of it."""
    if name == "store" or attribute == "py":
        return False
    found = [
        f"bagel_studio.{layer}.{name}"
        for layer in ("ui", "core")
        if importlib.util.find_spec(f"bagel_studio.{layer}.{name}") is not None
    ]
    return bool(found) and not any(has(importlib.import_module(f), attribute) for f in found)


def missing_in_row(path: str, text: str, modules: list[ModuleType], store: Store) -> list[str]:
    """What a row of the path names that is not there: ``Class.method`` (of the row's module or
    another row's), ``function()`` of the row's module, ``store.part.method`` of the store's
    parts, ``module.name`` of the desk or the core, and ``.py`` files."""
    module = module_of(path)
    missing = []
    for name, attribute in CLASS_ATTRIBUTE.findall(text):
        owner = next((vars(m)[name] for m in [module, *modules] if name in vars(m)), None)
        if owner is None or not hasattr(owner, attribute):
            missing.append(f"{name}.{attribute}")
    missing += [f"{name}()" for name in CALL.findall(text) if not hasattr(module, name)]
    for part, attribute in STORE_PART.findall(text):
        if not hasattr(getattr(store, part, None), attribute):
            missing.append(f"store.{part}.{attribute}")
    for name, attribute in MODULE_NAME.findall(text):
        if module_attribute_missing(name, attribute):
            missing.append(f"{name}.{attribute}")
    for mentioned in FILE.findall(text):
        if not any((base / mentioned).is_file() for base in (PACKAGE, PACKAGE / "core")):
            missing.append(mentioned)
    return [f"{path}: {what}" for what in missing]


def test_the_path_of_accepting_an_item_names_code_that_exists() -> None:
    rows = path_rows()
    assert len(rows) >= 6, "the path names its steps as rows: a module's path, what runs there"
    missing = [path for path, _ in rows if not (PACKAGE / path).is_file()]
    modules = [module_of(path) for path, _ in rows if path not in missing]
    with Store.memory() as store:
        for path, text in rows:
            if path not in missing:
                missing += missing_in_row(path, text, modules, store)
    assert missing == [], (
        "docs/ARCHITECTURE.md's path of accepting an item names code that is not there any more;"
        f" write the path as it runs now: {missing}"
    )
