"""Every write has one home: no module outside ``core/operations`` (and the store itself) calls a
store method that writes, nor the lower layers' writers that operations call (the checks, which
store flags; the clip measurement cache; the spectrogram settings). The desk, the commands, the
importers, export, merge, the LLM features and the audit all write through operations."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "bagel_studio"
STORE = PACKAGE / "core" / "store"
OPERATIONS = PACKAGE / "core" / "operations"

# The lower layers' writers: each writes through the store on the operations' behalf (checks are
# re-run by the operation that touched an item), and may be called only there and at home.
LOWER_WRITERS = {
    "check_all": PACKAGE / "core" / "checks",
    "recheck_item": PACKAGE / "core" / "checks",
    "store_result": PACKAGE / "core" / "audio",
    "save_settings": PACKAGE / "core" / "audio",
}
# Store write methods that those lower layers call, module by module.
LOWER_STORE_WRITES = {
    "core/checks/__init__.py": {"replace_flags", "replace_all_flags"},
    "core/audio/project.py": {"put_measurement"},
    "core/audio/spectrogram.py": {"set_meta"},
}


def store_write_methods() -> set[str]:
    """Public store methods that open a write transaction (``self.transaction()``)."""
    found = set()
    for path in STORE.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ClassDef):
                continue
            for method in node.body:
                if (
                    isinstance(method, ast.FunctionDef)
                    and not method.name.startswith("_")
                    and method.name != "transaction"
                    and "self.transaction()" in ast.unparse(method)
                ):
                    found.add(method.name)
    return found


def calls(path: Path, names: set[str], *, methods_only: bool = False) -> list[tuple[int, str]]:
    """(line, name) of every call of a function or method named in ``names`` (with
    ``methods_only``, of ``something.name(...)`` only: how a store method is called)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute):
                name: str | None = func.attr
            else:
                name = None if methods_only else getattr(func, "id", None)
            if name in names:
                found.append((node.lineno, str(name)))
    return found


def test_store_writes_only_from_operations() -> None:
    writes = store_write_methods()
    offenders = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        if STORE in path.parents or OPERATIONS in path.parents:
            continue
        module = str(path.relative_to(PACKAGE))
        allowed = LOWER_STORE_WRITES.get(module, set())
        if found := [c for c in calls(path, writes, methods_only=True) if c[1] not in allowed]:
            offenders[module] = found
    assert offenders == {}


def test_lower_writers_only_from_operations() -> None:
    offenders = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        if OPERATIONS in path.parents:
            continue
        names = {name for name, home in LOWER_WRITERS.items() if home not in path.parents}
        if found := calls(path, names):
            offenders[str(path.relative_to(PACKAGE))] = found
    assert offenders == {}


def test_the_finder_sees_writes(tmp_path: Path) -> None:
    writes = store_write_methods()
    # the import's primitives, a curator's, the checks' and the settings are all found
    assert {"add_items", "record_import", "mark_checks_pending", "upsert_recordings"} <= writes
    assert {"record_decision", "replace_all_flags", "set_meta", "put_measurement"} <= writes
    assert not {"get_item", "item_ids", "present_item_ids", "find_import"} & writes
    sample = tmp_path / "sample.py"
    sample.write_text(
        "store.add_items(items, 1)\nrun.store.get_item('x')\ncheck_all(store)\n"
        "record_export(store, result)\n",
        encoding="utf-8",
    )
    assert calls(sample, writes, methods_only=True) == [(1, "add_items")]
    assert calls(sample, set(LOWER_WRITERS)) == [(3, "check_all")]
