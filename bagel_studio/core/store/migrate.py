"""Applying the migrations of ``schema.py`` to a project file, through sqlite-utils' ``Migrations``.

``Migrations`` records each applied migration by name, with the time it was applied, in the
``_sqlite_migrations`` table (set ``bagel-studio``), and runs each pending one in a transaction
with its record. What this module adds to it is only what files of earlier releases, and earlier
releases themselves, need:

* Carrying an earlier file's record over. Releases before sqlite-utils' ``Migrations`` recorded
  the migrations by name in ``schema_migrations`` (name, applied_at); releases before named
  migrations only counted them in ``PRAGMA user_version``, a file of ``user_version`` N having had
  the first N of the list. Such a record is copied into ``_sqlite_migrations`` (the same names and
  times; ``BEFORE_NAMES`` for the counted ones) and ``schema_migrations`` dropped, in the
  transaction that then applies what the file lacks: no migration runs twice, and none is lost.
* ``PRAGMA user_version`` keeps the number of applied migrations, so that an earlier release (which
  reads ``schema_migrations`` if there is one, else that number) refuses a newer file rather than
  misread it.
* A file that records a migration this program does not know (or, without names, more
  migrations than it knows) was written by a newer release: it is refused, unchanged.
* Opening a file that is up to date reads its record with plain SQL and does not import
  sqlite-utils (a tenth of a second at every command's start): the ``Migrations`` of the
  registered steps is built only when one is pending.

All of it, record carried over, migrations applied and ``user_version``, is one transaction: a
failure (or a killed process) leaves the file as it was.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bagel_studio.core.store.database import Database
from bagel_studio.core.store.schema import MIGRATIONS, SchemaTooNewError, migration_names

if TYPE_CHECKING:
    import sqlite_utils
    from sqlite_utils.migrations import Migrations

MIGRATION_SET = "bagel-studio"  # the name of the project's migrations in ``_sqlite_migrations``
TABLE = "_sqlite_migrations"  # ``Migrations.migrations_table``
EARLIER_TABLE = "schema_migrations"  # where releases before ``Migrations`` recorded them
# The applied time recorded for migrations a file had before names were recorded.
BEFORE_NAMES = "before-named-migrations"


def applied_migrations(db: Database) -> dict[str, str]:
    """{name: applied at} of the migrations a project file records, in the order applied (what
    ``Migrations.applied`` reads; empty before any)."""
    if not _has_table(db, TABLE):
        return {}
    rows = db.execute(
        f"SELECT name, applied_at FROM {TABLE} WHERE migration_set = ? ORDER BY rowid",
        [MIGRATION_SET],
    ).fetchall()
    return {str(name): str(at) for name, at in rows}


def apply_migrations(db: Database) -> int:
    """Bring ``db`` up to the newest schema; return how many migrations it has applied."""
    known = migration_names()
    applied = applied_migrations(db)
    earlier = _earlier_record(db)
    _refuse_newer(db, known, [*applied, *(earlier or {})])
    if earlier is None and set(known) <= set(applied):
        return len(applied)
    import sqlite_utils

    migrating = sqlite_utils.Database(db.conn)
    migrations = _migrations()
    with _transaction(db):
        migrations.ensure_migrations_table(migrating)
        _carry_over(db, migrating, known, earlier)
        migrations.apply(migrating)
        count = len(applied_migrations(db))
        db.conn.execute(f"PRAGMA user_version = {count}")
    return count


def create_migrations_table(db: sqlite_utils.Database) -> None:
    """The table the migrations are recorded in, as ``Migrations`` creates it."""
    _migrations().ensure_migrations_table(db)


def refuse_newer(db: Database) -> None:
    """Raise SchemaTooNewError when ``db`` records a migration this program does not know."""
    _refuse_newer(db, migration_names(), [*applied_migrations(db), *(_earlier_record(db) or {})])


def carried_over(db: Database) -> bool:
    """True when ``db`` holds an earlier release's record, which migrating carries over."""
    return _has_table(db, EARLIER_TABLE) or (not _has_table(db, TABLE) and _user_version(db) > 0)


def _migrations() -> Migrations:
    """sqlite-utils' ``Migrations`` of the steps ``schema.py`` registered, in their order."""
    from sqlite_utils.migrations import Migrations

    migrations = Migrations(MIGRATION_SET)
    for name, step in MIGRATIONS:
        migrations(name=name)(step)
    return migrations


def _earlier_record(db: Database) -> dict[str, str] | None:
    """{name: applied at} of an earlier release's ``schema_migrations``; None without one."""
    if not _has_table(db, EARLIER_TABLE):
        return None
    rows = db.execute(f"SELECT name, applied_at FROM {EARLIER_TABLE} ORDER BY rowid").fetchall()
    return {str(name): str(at) for name, at in rows}


def _refuse_newer(db: Database, known: list[str], recorded: list[str]) -> None:
    version = _user_version(db)
    unknown = [name for name in dict.fromkeys(recorded) if name not in known]
    if unknown or (not recorded and version > len(known)):
        what = f"migrations {', '.join(unknown)}" if unknown else f"schema {version}"
        raise SchemaTooNewError(
            f"this project was written by a newer BAGEL Studio ({what}; this program knows "
            f"{len(known)} migrations): update BAGEL Studio to open it"
        )


def _carry_over(
    db: Database,
    migrating: sqlite_utils.Database,
    known: list[str],
    earlier: dict[str, str] | None,
) -> None:
    """Record in ``_sqlite_migrations`` the migrations an earlier release applied (by name in
    ``schema_migrations``, which is dropped, or by number in ``user_version``)."""
    if earlier is None and applied_migrations(db):
        return
    if earlier is None:
        earlier = {name: BEFORE_NAMES for name in known[: _user_version(db)]}
    migrating.table(TABLE).insert_all(
        [{"migration_set": MIGRATION_SET, "name": n, "applied_at": a} for n, a in earlier.items()],
        ignore=True,
    )
    if _has_table(db, EARLIER_TABLE):
        migrating.table(EARLIER_TABLE).drop()


def _user_version(db: Database) -> int:
    return int(db.execute("PRAGMA user_version").fetchone()[0])


class _transaction:
    """``BEGIN IMMEDIATE`` ... commit, or roll back on any error."""

    def __init__(self, db: Database) -> None:
        self.conn = db.conn

    def __enter__(self) -> None:
        self.conn.execute("BEGIN IMMEDIATE")

    def __exit__(self, exc_type: object, *rest: object) -> None:
        if exc_type is None:
            self.conn.commit()
        else:
            self.conn.rollback()


def _has_table(db: Database, name: str) -> bool:
    row = db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", [name])
    return row.fetchone() is not None
