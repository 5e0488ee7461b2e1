"""Applying the named migrations of ``schema.py`` to a project file.

``schema_migrations`` records each applied migration by name with the time it was applied.
``PRAGMA user_version`` keeps the number of applied migrations, so that a release from before
named migrations (which compared it with the length of its list) still refuses newer files; a
file from such a release (``user_version`` N, no ``schema_migrations`` table) had the first N
migrations of the list applied, and is brought up to date without loss.
"""

from __future__ import annotations

from datetime import UTC, datetime

from bagel_studio.core.store.database import Database
from bagel_studio.core.store.schema import MIGRATIONS, SchemaTooNewError, migration_names

# The applied time recorded for migrations a file had before names were recorded.
BEFORE_NAMES = "before-named-migrations"


def applied_migrations(db: Database) -> dict[str, str]:
    """{name: applied at} of the migrations a project file records (empty before any)."""
    if not _has_table(db, "schema_migrations"):
        return {}
    rows = db.execute("SELECT name, applied_at FROM schema_migrations ORDER BY rowid").fetchall()
    return {str(name): str(at) for name, at in rows}


def apply_migrations(db: Database) -> int:
    """Bring ``db`` up to the newest schema; return how many migrations it has applied. A
    migration is handed a sqlite-utils ``Database`` of the same connection (imported only
    when one runs)."""
    known = migration_names()
    version = int(db.execute("PRAGMA user_version").fetchone()[0])
    applied = applied_migrations(db)
    unknown = [name for name in applied if name not in known]
    if unknown or (not applied and version > len(known)):
        what = f"migrations {', '.join(unknown)}" if unknown else f"schema {version}"
        raise SchemaTooNewError(
            f"this project was written by a newer BAGEL Studio ({what}; this program knows "
            f"{len(known)} migrations): update BAGEL Studio to open it"
        )
    if not _has_table(db, "schema_migrations"):
        with _transaction(db):
            db.conn.execute(
                "CREATE TABLE schema_migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)"
            )
            db.conn.executemany(
                "INSERT INTO schema_migrations (name, applied_at) VALUES (?, ?)",
                [(name, BEFORE_NAMES) for name in known[:version]],
            )
        applied = applied_migrations(db)
    pending = [(name, step) for name, step in MIGRATIONS if name not in applied]
    if pending:
        import sqlite_utils

        migrating = sqlite_utils.Database(db.conn)
    for name, step in pending:
        with _transaction(db):
            step(migrating)
            db.conn.execute(
                "INSERT INTO schema_migrations (name, applied_at) VALUES (?, ?)",
                [name, datetime.now(UTC).isoformat(timespec="milliseconds")],
            )
            count = int(db.conn.execute("SELECT count(*) FROM schema_migrations").fetchone()[0])
            db.conn.execute(f"PRAGMA user_version = {count}")
        applied[name] = ""
    return len(applied)


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
