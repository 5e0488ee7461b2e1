"""The desk and the CLI commands change a project only through ``core.operations``: no module of
``bagel_studio/ui`` or ``bagel_studio/core/commands`` (nor the CLI's entry points) calls one of the
store's write methods, opens a transaction of its own or imports the store's LLM writers.

The write methods are found in the store's source (every public method that writes a row or opens
a transaction), so a new write primitive is covered without editing this test.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "bagel_studio"
STORE = PACKAGE / "core" / "store"
CALLERS = [
    *sorted((PACKAGE / "ui").rglob("*.py")),
    *sorted((PACKAGE / "core" / "commands").rglob("*.py")),
    PACKAGE / "core" / "cli.py",
    PACKAGE / "__main__.py",
]

_WRITES = re.compile(
    r"\b(INSERT|UPDATE|DELETE|REPLACE)\b"
    r"|\.(insert|insert_all|upsert|upsert_all|delete|delete_where)\("
    r"|self\.(_store\.)?transaction\(\)"
)


def store_write_methods() -> set[str]:
    """Public methods of the store's classes whose body writes (SQL or sqlite-utils) or opens a
    transaction, plus ``transaction`` itself."""
    names = {"transaction"}
    for path in sorted(STORE.glob("*.py")):
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines()
        for node in ast.walk(ast.parse(text)):
            if not isinstance(node, ast.ClassDef):
                continue
            for method in node.body:
                if isinstance(method, ast.FunctionDef) and not method.name.startswith("_"):
                    body = "\n".join(lines[method.lineno - 1 : method.end_lineno])
                    if _WRITES.search(body):
                        names.add(method.name)
    return names


def store_module_writers() -> set[str]:
    """Module-level writers of the store (none: every writer is a method of one of the store's
    parts, ``store.llm.write_profile`` as much as ``store.items.add_items``)."""
    names = set()
    for path in sorted(STORE.glob("*.py")):
        text = path.read_text(encoding="utf-8")
        for node in ast.parse(text).body:
            if (
                isinstance(node, ast.FunctionDef)
                and not node.name.startswith("_")
                and _WRITES.search(ast.get_source_segment(text, node) or "")
            ):
                names.add(node.name)
    return names


def direct_writes(path: Path, methods: set[str], writers: set[str]) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in methods
        ):
            found.append(f"line {node.lineno}: calls .{node.func.attr}()")
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
            "bagel_studio.core.store"
        ):
            found += [
                f"line {node.lineno}: imports the store's writer {alias.name}"
                for alias in node.names
                if alias.name in writers
            ]
    return found


def test_the_write_methods_are_found() -> None:
    methods = store_write_methods()
    for known in (
        "record_decisions",
        "record_edit",
        "record_undo",
        "record_adjudication",
        "record_merge",
        "record_export",
        "add_items",
        "add_rejects",
        "put_measurement",
        "replace_flags",
        "replace_all_flags",
        "mark_checks_pending",
        "set_meta",
        "transaction",
    ):
        assert known in methods
    for reader in ("get", "ids", "page", "of_item", "all", "entry"):
        assert reader not in methods
    assert {"write_profile", "write_answers", "write_verdict"} <= methods


def test_desk_and_commands_write_only_through_operations() -> None:
    methods, writers = store_write_methods(), store_module_writers()
    offenders = {
        str(path.relative_to(PACKAGE)): found
        for path in CALLERS
        if (found := direct_writes(path, methods, writers))
    }
    assert offenders == {}


def test_the_finder_sees_a_direct_write(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        "def save(store, item_id):\n"
        "    store.items.get(item_id)\n"
        "    store.llm.write_profile(item_id, {}, '')\n"
        "    with store.transaction():\n"
        "        store.reviews.record_decisions('lee', [])\n",
        encoding="utf-8",
    )
    found = direct_writes(sample, store_write_methods(), store_module_writers())
    assert found == [
        "line 3: calls .write_profile()",
        "line 4: calls .transaction()",
        "line 5: calls .record_decisions()",
    ]
