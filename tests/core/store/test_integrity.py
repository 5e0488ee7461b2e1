"""The schema a project should have (``store/objects/``, one file per migration) is the one the
migrations build, and a file is compared with the part of it that its own migrations built."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from bagel_studio.core.store import Store
from bagel_studio.core.store.integrity import (
    OBJECTS,
    Delta,
    built_deltas,
    delta_of,
    expected_objects,
    normalized,
    objects_of,
)
from bagel_studio.core.store.schema import migration_names


def test_the_objects_of_each_migration_are_what_it_builds() -> None:
    built = built_deltas()
    for name in migration_names():
        path = OBJECTS / f"{name}.json"
        assert path.exists(), (
            f"no {path.name}: run python -m bagel_studio.core.store.write_objects after adding a"
            " migration"
        )
        stored = Delta.from_json(json.loads(path.read_text(encoding="utf-8")))
        assert stored == built[name], (
            f"{path.name} is not what {name} builds: run python -m"
            " bagel_studio.core.store.integrity"
        )
    assert {p.stem for p in OBJECTS.glob("*.json")} == set(migration_names())


def test_a_new_project_has_exactly_the_schema_of_its_migrations(tmp_path: Path) -> None:
    with Store.open(tmp_path / "p.bagel") as store:
        found = objects_of(store.db.conn)
    expected = expected_objects(tuple(migration_names()))
    assert set(found) == set(expected)
    assert store.findings is not None and store.findings.sound


def test_a_file_is_compared_with_what_its_own_migrations_built(tmp_path: Path) -> None:
    """A file read-only, before a migration it lacks: what that migration adds is not missing."""
    path = tmp_path / "p.bagel"
    Store.open(path).close()
    conn = sqlite3.connect(path)
    conn.execute("DELETE FROM _sqlite_migrations WHERE name = 'm_reviews_curator_index'")
    conn.execute("DROP INDEX idx_reviews_curator")
    conn.commit()
    conn.close()
    with Store.open(path, read_only=True) as store:
        assert store.damage is None


def test_a_missing_object_is_named(tmp_path: Path) -> None:
    path = tmp_path / "p.bagel"
    Store.open(path).close()
    conn = sqlite3.connect(path)
    conn.execute("DROP TRIGGER items_fts_update")
    conn.commit()
    conn.close()
    with Store.open(path, read_only=True) as store:
        assert store.damage is not None
        assert "missing from its schema: trigger items_fts_update on items" in store.damage


def test_quoting_and_blanks_do_not_count() -> None:
    assert normalized('CREATE TABLE [a] (\n   "b" TEXT,\n   `c` INT\n)') == normalized(
        "CREATE TABLE a(b TEXT, c INT)"
    )


def test_a_delta_is_read_from_its_file() -> None:
    delta_of.cache_clear()
    built_deltas.cache_clear()
    delta_of("m_llm_tables")
    assert built_deltas.cache_info().currsize == 0
