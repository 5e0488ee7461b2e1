"""The store's handle on a project's SQLite connection.

The store uses two things of sqlite-utils' ``Database``: ``execute`` and ``conn``. ``Database``
here offers just those, over the same connection settings (recursive triggers on, as
sqlite-utils sets them), so that reading a project, or opening one whose schema is up to date,
does not import sqlite-utils (a tenth of a second at every command's start). The migrations,
which use the rest of it, get a sqlite-utils ``Database`` of the same connection
(``migrate.apply_migrations``), built only when one runs.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, Sequence
from typing import Any


class Database:
    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        conn.execute("PRAGMA recursive_triggers=on;")

    def execute(
        self, sql: str, parameters: Sequence[Any] | Mapping[str, Any] | None = None
    ) -> sqlite3.Cursor:
        """Run one statement (the store's connections commit each statement outside an
        explicit transaction: ``isolation_level=None``)."""
        if parameters is None:
            return self.conn.execute(sql)
        return self.conn.execute(sql, parameters)
