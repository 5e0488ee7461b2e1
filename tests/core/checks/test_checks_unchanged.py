"""The checks' results do not move when their code is made faster.

Two projects are checked and their flags (every column) and the items' flag summaries compared
with the ones kept in ``data/``, which the checks wrote before their speed work: the demo project's
sources (real evidence of every domain, the items with planted problems, the paper's items) and a
sample of the scale benchmark's items. A deliberate change of a check's rule rewrites the kept
files: ``python -m tests.core.checks.test_checks_unchanged`` (from the repository's root), and the
diff of the files shows what the change did.

Re-checking a project whose flags are current writes nothing; flags or summaries that differ
from what the checks compute are rewritten.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from bagel_studio.core.checks import check_all, text
from bagel_studio.core.demo import demo_sources
from bagel_studio.core.importers import import_paths
from bagel_studio.core.store import Store
from tests.benchmarks.bagel_scale import write_scale_items

DATA = Path(__file__).resolve().parent / "data"
SCALE_ITEMS = 800


def _state(store: Store) -> dict[str, Any]:
    """Every flag and every item's flag summary, in a stable order."""
    flags = store.db.execute(
        "SELECT item_id, check_id, severity, message, details, origin FROM flags"
        " ORDER BY item_id, check_id"
    ).fetchall()
    summaries = store.db.execute(
        "SELECT id, flag_severity, flag_checks FROM items ORDER BY seq"
    ).fetchall()
    return {"flags": [list(row) for row in flags], "summaries": [list(row) for row in summaries]}


def _demo(folder: Path) -> Path:
    path = folder / "demo.bagel"
    with Store.open(path) as store:
        import_paths(store, demo_sources())
    return path


def _scale(folder: Path) -> Path:
    path = folder / "scale.bagel"
    items = write_scale_items(SCALE_ITEMS, folder / "scale.jsonl", seed=3)
    with Store.open(path) as store:
        import_paths(store, [items])
    return path


@pytest.fixture(scope="module")
def scale_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The scale sample, imported once for this module's tests (each checks a copy)."""
    return _scale(tmp_path_factory.mktemp("scale"))


def _copy(path: Path, folder: Path) -> Path:
    return Path(shutil.copy(path, folder / path.name))


def _kept(name: str) -> dict[str, Any]:
    kept: dict[str, Any] = json.loads((DATA / f"flags_{name}.json").read_text(encoding="utf-8"))
    return kept


def _assert_same(found: dict[str, Any], kept: dict[str, Any]) -> None:
    # Compared per row first, so that a failure names the rows that moved.
    found_flags = {tuple(row[:2]): row for row in found["flags"]}
    kept_flags = {tuple(row[:2]): row for row in kept["flags"]}
    moved = {k: (kept_flags.get(k), found_flags.get(k)) for k in found_flags | kept_flags}
    assert {k: v for k, v in moved.items() if v[0] != v[1]} == {}
    assert found["summaries"] == kept["summaries"]


def test_demo_flags_are_the_kept_ones(tmp_path: Path) -> None:
    with Store.open(_demo(tmp_path)) as store:
        imported = _state(store)
        assert check_all(store) == len(imported["flags"])
        rechecked = _state(store)
    kept = _kept("demo")
    assert len(kept["flags"]) > 25  # the checks flag the planted problems (fewer false alarms)
    _assert_same(imported, kept)
    _assert_same(rechecked, kept)


def test_scale_sample_flags_are_the_kept_ones(scale_project: Path, tmp_path: Path) -> None:
    with Store.open(_copy(scale_project, tmp_path)) as store:
        imported = _state(store)
        check_all(store)
        rechecked = _state(store)
    kept = _kept("scale")
    assert {row[1] for row in kept["flags"]} >= {"gold-in-stem", "vocalization-missing"}
    _assert_same(imported, kept)
    _assert_same(rechecked, kept)


def test_a_recheck_that_changes_nothing_writes_nothing(scale_project: Path, tmp_path: Path) -> None:
    with Store.open(_copy(scale_project, tmp_path)) as store:
        before = store.db.conn.total_changes
        check_all(store)
        assert store.db.conn.total_changes == before


def test_flags_and_summaries_that_differ_are_rewritten(scale_project: Path, tmp_path: Path) -> None:
    with Store.open(_copy(scale_project, tmp_path)) as store:
        expected = _state(store)
        flagged, other_flagged, unflagged = (
            expected["flags"][0][0],
            expected["flags"][-1][0],
            next(row[0] for row in expected["summaries"] if row[2] == ","),
        )
        with store.transaction() as conn:
            conn.execute("UPDATE flags SET message = 'stale' WHERE item_id = ?", [flagged])
            conn.execute("DELETE FROM flags WHERE item_id = ?", [other_flagged])
            conn.execute(
                "INSERT INTO flags (item_id, check_id, severity, message, details)"
                " VALUES (?, 'gold-in-stem', 'warning', 'not so', '{}')",
                [unflagged],
            )
            conn.execute("UPDATE items SET flag_checks = ',x,', flag_severity = 0")
        before = store.db.conn.total_changes
        check_all(store)
        assert _state(store) == expected
        # Three items' flags and every item's summary rewritten, nothing else.
        assert store.db.conn.total_changes - before < len(expected["summaries"]) + 10


def _write_kept() -> None:
    """Rewrite the kept files from the checks as they are now."""
    import tempfile

    DATA.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        for name, build in (("demo", _demo), ("scale", _scale)):
            with Store.open(build(Path(tmp))) as store:
                state = _state(store)
            lines = [
                f'"{key}": [\n' + ",\n".join(json.dumps(row, ensure_ascii=False) for row in rows)
                for key, rows in state.items()
            ]
            text = "{" + "\n],\n".join(lines) + "\n]}\n"  # one row a line: diffs read well
            (DATA / f"flags_{name}.json").write_text(text, encoding="utf-8")
            print(f"{name}: {len(state['flags'])} flags on {len(state['summaries'])} items")


if __name__ == "__main__":
    _write_kept()


def test_a_bulk_check_keeps_none_of_its_prepared_options(
    scale_project: Path, tmp_path: Path
) -> None:
    # Kept, they would be walked by the cyclic collector on every full collection and at exit.
    with Store.open(_copy(scale_project, tmp_path)) as store:
        assert check_all(store) > 0
    assert text._option.cache_info().currsize == 0
