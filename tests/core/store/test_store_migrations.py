"""Named migrations through sqlite-utils' ``Migrations``: a project from the release that numbered
them, and one from the release that recorded them in ``schema_migrations``, migrate without loss."""

from __future__ import annotations

import gzip
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import sqlite_utils

from bagel_studio.core.store import SchemaTooNewError, Store, StoreError
from bagel_studio.core.store.migrate import BEFORE_NAMES, applied_migrations, apply_migrations
from bagel_studio.core.store.schema import MIGRATIONS, migration, migration_names

KEPT = Path(__file__).parent / "data" / "project_v2.bagel.gz"
V2_NAMES = ["m001_initial", "m002_globi_taxon_nocase_indexes"]
# A project of the release before sqlite-utils' Migrations, at its newest schema
KEPT_NAMED = Path(__file__).parent / "data" / "project_named.bagel.gz"
NAMED_LAST = "m_items_release_verdict"  # the newest migration of that release


def unpack(tmp_path: Path, kept: Path = KEPT) -> Path:
    target = tmp_path / kept.name.removesuffix(".gz")
    with gzip.open(kept, "rb") as source, target.open("wb") as out:
        shutil.copyfileobj(source, out)
    return target


def snapshot(path: Path) -> dict[str, tuple[list[str], list[tuple[Any, ...]]]]:
    """Every table's columns and rows (in rowid order), read with plain sqlite3; not the word
    index (``items_fts`` and its shadow tables), which is derived from ``items``."""
    conn = sqlite3.connect(path)
    try:
        tables = [
            r[0]
            for r in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'"
                " AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'items_fts%' ORDER BY name"
            )
        ]
        result = {}
        for table in tables:
            columns = [r[1] for r in conn.execute(f"PRAGMA table_info({table})")]
            rows = conn.execute(f"SELECT * FROM {table} ORDER BY rowid").fetchall()
            result[table] = (columns, rows)
        return result
    finally:
        conn.close()


def test_kept_file_is_a_positional_schema_2_project_with_rows_in_every_table(
    tmp_path: Path,
) -> None:
    path = unpack(tmp_path)
    before = snapshot(path)
    assert "schema_migrations" not in before
    assert {table: len(rows) for table, (_, rows) in before.items() if not rows} == {}
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 2
    conn.close()


def test_positional_file_migrates_without_loss_and_records_names(tmp_path: Path) -> None:
    path = unpack(tmp_path)
    before = snapshot(path)
    with Store.open(path, owner="test") as store:
        applied = applied_migrations(store.db)
        assert list(applied) == migration_names()
        assert [applied[name] for name in V2_NAMES] == [BEFORE_NAMES, BEFORE_NAMES]
        for name in migration_names()[len(V2_NAMES) :]:
            assert applied[name].startswith("20")  # an ISO time, when it was applied here
        # What the program reads back is what was written.
        item = store.items.get("wikipedia:koala:4")
        assert item.content.question.endswith("(edited)")
        assert item.is_revised
        assert store.adjudications.get("wikipedia:koala:0") is not None
        assert {r.curator for r in store.reviews.of_item("wikipedia:koala:0")} == {"alice", "bob"}
    after = snapshot(path)
    for table, (columns, rows) in before.items():
        new_columns, new_rows = after[table]
        assert new_columns[: len(columns)] == columns, table
        assert [row[: len(columns)] for row in new_rows] == rows, table
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)
    conn.close()


def test_migrating_twice_changes_nothing(tmp_path: Path) -> None:
    path = unpack(tmp_path)
    Store.open(path, owner="test").close()
    first = snapshot(path)
    Store.open(path, owner="test").close()
    assert snapshot(path) == first


def test_new_project_records_every_migration_with_its_time(tmp_path: Path) -> None:
    with Store.open(tmp_path / "new.bagel") as store:
        applied = applied_migrations(store.db)
    assert list(applied) == migration_names()
    assert all(at.startswith("20") for at in applied.values())


def test_a_migration_this_program_does_not_know_is_refused_and_the_file_kept(
    tmp_path: Path,
) -> None:
    path = tmp_path / "newer.bagel"
    Store.open(path).close()
    conn = sqlite3.connect(path)
    conn.execute(
        "INSERT INTO _sqlite_migrations (migration_set, name, applied_at)"
        " VALUES ('bagel-studio', 'm_from_the_future', 'x')"
    )
    conn.commit()
    conn.close()
    before = snapshot(path)
    with pytest.raises(SchemaTooNewError, match="m_from_the_future"):
        Store.open(path)
    assert snapshot(path) == before


def test_a_missing_named_migration_is_applied_whatever_its_position(tmp_path: Path) -> None:
    """A file that has a later migration but lacks an earlier one (branches that added theirs in
    another order) gets the one it lacks, recorded by name."""
    path = tmp_path / "branch.bagel"
    Store.open(path).close()
    conn = sqlite3.connect(path)
    conn.execute("DELETE FROM _sqlite_migrations WHERE name = 'm002_globi_taxon_nocase_indexes'")
    conn.execute("DROP INDEX idx_globi_records_source_taxon_nocase")
    conn.commit()
    conn.close()
    with Store.open(path) as store:
        assert set(applied_migrations(store.db)) == set(migration_names())
        indexes = {r[1] for r in store.db.execute("PRAGMA index_list(globi_records)")}
    assert "idx_globi_records_source_taxon_nocase" in indexes


def test_a_failing_migration_leaves_the_file_as_it_was(tmp_path: Path) -> None:
    path = tmp_path / "p.bagel"
    Store.open(path).close()
    before = snapshot(path)

    def m_test_broken(db: sqlite_utils.Database) -> None:
        db.conn.execute("CREATE TABLE half_done (x)")
        raise RuntimeError("disk trouble")

    MIGRATIONS.append(("m_test_broken", m_test_broken))
    try:
        db = sqlite_utils.Database(sqlite3.connect(path, isolation_level=None))
        with pytest.raises(RuntimeError, match="disk trouble"):
            apply_migrations(db)
        db.conn.close()
    finally:
        MIGRATIONS.remove(("m_test_broken", m_test_broken))
    assert snapshot(path) == before


def test_two_migrations_with_one_name_are_refused() -> None:
    def m001_initial(db: sqlite_utils.Database) -> None:
        pass

    with pytest.raises(ValueError, match="m001_initial"):
        migration(m001_initial)
    assert migration_names().count("m001_initial") == 1


def test_a_file_killed_before_its_first_migration_ended_is_ours(tmp_path: Path) -> None:
    """A process killed between recording that it would migrate (the ``schema_migrations``
    table, committed) and its first migration's commit leaves only that table: the next open
    migrates the file, it does not call it another program's database. Another program's
    table of the same name is still refused."""
    path = tmp_path / "killed.bagel"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE schema_migrations (name TEXT PRIMARY KEY, applied_at TEXT)")
    with Store.open(path) as store:
        assert list(applied_migrations(store.db)) == migration_names()
    rails = tmp_path / "rails.sqlite"
    with sqlite3.connect(rails) as conn:
        conn.execute("CREATE TABLE schema_migrations (version TEXT PRIMARY KEY)")
    with pytest.raises(StoreError, match="another program"):
        Store.open(rails)


def schema(path: Path) -> list[tuple[str, str]]:
    """(name, SQL) of every table, index and trigger but the records of migrations."""
    conn = sqlite3.connect(path)
    try:
        return conn.execute(
            "SELECT name, sql FROM sqlite_master WHERE name NOT LIKE '%migrations%'"
            " AND sql IS NOT NULL ORDER BY name"
        ).fetchall()
    finally:
        conn.close()


def test_kept_named_file_records_every_migration_in_schema_migrations(tmp_path: Path) -> None:
    path = unpack(tmp_path, KEPT_NAMED)
    before = snapshot(path)
    names = [row[0] for row in before["schema_migrations"][1]]  # every one of its release
    assert names == migration_names()[: len(names)] and names[-1] == NAMED_LAST
    assert "_sqlite_migrations" not in before
    assert {table for table, (_, rows) in before.items() if not rows} == {"pending_checks"}


def test_a_named_file_is_carried_over_to_migrations_without_migrating_again(
    tmp_path: Path,
) -> None:
    """The names and times ``schema_migrations`` recorded move to ``_sqlite_migrations``; no
    migration runs again, no row or table changes, and ``schema_migrations`` is gone, so that the
    release that wrote it, which reads ``user_version`` without it, refuses a newer file."""
    path = unpack(tmp_path, KEPT_NAMED)
    before, tables = snapshot(path), schema(path)
    recorded = dict(before.pop("schema_migrations")[1])
    later = [step for step in MIGRATIONS if step[0] not in recorded]  # added since its release
    for step in later:  # left out here: this test is about the carrying over alone
        MIGRATIONS.remove(step)
    try:
        with Store.open(path, owner="test") as store:
            assert applied_migrations(store.db) == recorded
            assert store.adjudications.get(store.reviews.all()[0].item_id) is not None
    finally:
        MIGRATIONS.extend(later)
    after = snapshot(path)
    assert "schema_migrations" not in after
    assert [row[1:3] for row in after.pop("_sqlite_migrations")[1]] == [
        ("bagel-studio", name) for name in recorded
    ]
    assert after == before
    assert schema(path) == tables
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS) - len(later)
    conn.close()
    with Store.open(path, owner="test") as store:  # the migrations added since: applied now
        assert list(applied_migrations(store.db)) == [*recorded, *(n for n, _ in later)]


def test_a_record_an_earlier_release_wrote_again_is_carried_over_again(tmp_path: Path) -> None:
    """The release before Migrations, opening an up-to-date file (no ``schema_migrations``),
    records its migrations anew as ``before-named-migrations``; the next open keeps the times
    it had and drops that record again."""
    path = tmp_path / "p.bagel"
    with Store.open(path) as store:
        applied = applied_migrations(store.db)
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE schema_migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)")
    conn.executemany(
        "INSERT INTO schema_migrations VALUES (?, ?)", [(n, BEFORE_NAMES) for n in applied]
    )
    conn.commit()
    conn.close()
    with Store.open(path) as store:
        assert applied_migrations(store.db) == applied
    assert "schema_migrations" not in snapshot(path)


def test_opening_an_up_to_date_project_does_not_import_sqlite_utils(tmp_path: Path) -> None:
    """Only a pending migration needs sqlite-utils (a tenth of a second at a command's start)."""
    path = tmp_path / "p.bagel"
    Store.open(path).close()
    probe = (
        "import sys; from bagel_studio.core.store import Store;"
        "Store.open(sys.argv[1]).close(); Store.open(sys.argv[1], read_only=True).close();"
        "print('sqlite_utils' in sys.modules)"
    )
    found = subprocess.run(
        [sys.executable, "-c", probe, str(path)], capture_output=True, text=True, check=True
    )
    assert found.stdout.strip() == "False"
