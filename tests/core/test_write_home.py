"""Every write has one home: no module outside ``core/operations`` (and the store itself) calls a
store method that writes, nor the lower layers' writers that operations call (the checks, which
store flags; the clip measurement cache; the spectrogram settings). The desk, the commands, the
importers, export, merge, the LLM features and the audit all write through operations."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.core.test_writes_through_operations import (
    PACKAGE,
    STORE,
    direct_writes,
    store_module_writers,
    store_write_methods,
)

OPERATIONS = PACKAGE / "core" / "operations"

# The lower layers' writers: each writes through the store on the operations' behalf (checks are
# re-run by the operation that touched an item), and may be called only there and at home.
LOWER_WRITERS = {
    "check_all": PACKAGE / "core" / "checks",
    "recheck_item": PACKAGE / "core" / "checks",
    "store_result": PACKAGE / "core" / "audio",
    "store_detection_result": PACKAGE / "core" / "audio",
    "save_settings": PACKAGE / "core" / "audio",
}
# Store write methods that those lower layers call, module by module.
LOWER_STORE_WRITES = {
    "core/checks/run.py": {"replace_flags", "replace_all_flags", "transaction"},
    "core/audio/project.py": {"put_measurement"},
    "core/audio/species_project.py": {"put_detection"},
    "core/audio/spectrogram.py": {"set_meta"},
}


def calls(path: Path, names: set[str]) -> list[tuple[int, str]]:
    """(line, name) of every call of a function or method named in ``names``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
            if name in names:
                found.append((node.lineno, str(name)))
    return found


def test_store_writes_only_from_operations() -> None:
    """The finder of tests/core/test_writes_through_operations.py (which holds the desk and the
    commands to this), over every module but the store's and the operations' own."""
    methods, writers = store_write_methods(), store_module_writers()
    offenders = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        if STORE in path.parents or OPERATIONS in path.parents:
            continue
        module = str(path.relative_to(PACKAGE))
        allowed = LOWER_STORE_WRITES.get(module, set())
        found = direct_writes(path, methods - allowed, writers)
        if found:
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


def test_the_finder_sees_the_import_writes_and_lower_writers(tmp_path: Path) -> None:
    methods = store_write_methods()
    assert {"add_items", "record_import", "mark_checks_pending", "upsert_recordings"} <= methods
    assert {"add_texts", "add_globi_records", "finish_import", "items_in_bulk"} <= methods
    sample = tmp_path / "sample.py"
    sample.write_text(
        "store.items.add_items(items, 1)\nrun.store.items.get('x')\ncheck_all(store)\n"
        "record_export(store, result)\n",
        encoding="utf-8",
    )
    assert direct_writes(sample, methods, set()) == ["line 1: calls .add_items()"]
    assert calls(sample, set(LOWER_WRITERS)) == [(3, "check_all")]
