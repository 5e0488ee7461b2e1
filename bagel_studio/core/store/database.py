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

from bagel_studio.core.model import cleaned_curator_name


def add_functions(conn: sqlite3.Connection) -> None:
    """The SQL functions the store's queries use: ``cleaned_curator(name)``, a curator's name as
    every decision records it (``model.cleaned_curator_name``), so that a plan's rows edited by
    hand into " alice" are read, counted and handed out as alice's."""
    conn.create_function(
        "cleaned_curator", 1, lambda name: cleaned_curator_name(str(name)), deterministic=True
    )


class Database:
    """A project's connection (``conn``) and its ``execute``: the connection's own, so that a
    query runs no code of the store between its caller and SQLite."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        # the store's connections commit each statement outside an explicit transaction
        # (``isolation_level=None``)
        self.execute = conn.execute
        conn.execute("PRAGMA recursive_triggers=on;")
        add_functions(conn)
