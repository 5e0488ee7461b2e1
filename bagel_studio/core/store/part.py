"""What every part of the store has: the store it belongs to and its connection.

A part (``store.items``, ``store.flags``, ``store.reviews``...) holds the SQL of one subject. It
reads through ``self.db`` and writes inside ``self._store.transaction()``, which joins the
caller's transaction when there is one: the store owns the connection, the writer lock, the
transaction and the clock; its parts own none of them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bagel_studio.core.store.database import Database
    from bagel_studio.core.store.store import Store


class Part:
    """One subject of a project file, a part of its ``Store``."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self.db: Database = store.db
