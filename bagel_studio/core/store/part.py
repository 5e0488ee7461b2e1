"""What every part of the store has: the store it belongs to and its connection.

A part (``store.items``, ``store.flags``, ``store.reviews``...) holds the SQL of one subject. It
reads through ``self.db`` and writes inside ``self._store.transaction()``, which joins the
caller's transaction when there is one: the store owns the connection, the writer lock, the
transaction and the clock; its parts own none of them.

A part knows its store by what it asks of it (``Owner``: the connection, the clock, the
transaction, and the few calls one part makes on another), not by the ``Store`` class, which
imports every part: so no part and the store import each other, even for annotations.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from bagel_studio.core.model import Item, ItemContent, Review
    from bagel_studio.core.store.database import Database
    from bagel_studio.core.store.queue import QueueFilter, QueueSql


class _Items(Protocol):
    def get(self, item_id: str) -> Item: ...
    def present_ids(self, ids: Sequence[str]) -> set[str]: ...
    def count(self, queue: QueueFilter | None = None) -> int: ...
    @staticmethod
    def write_content(conn: sqlite3.Connection, item_id: str, content: ItemContent) -> None: ...


class _Queue(Protocol):
    def sql(self, queue: QueueFilter) -> QueueSql: ...
    def count(self, queue: QueueFilter) -> int: ...
    def ids(self, queue: QueueFilter) -> list[str]: ...


class _Reviews(Protocol):
    def get(self, item_id: str, curator: str) -> Review | None: ...
    @staticmethod
    def write_review(conn: sqlite3.Connection, review: Review) -> None: ...
    @staticmethod
    def refresh_status(conn: sqlite3.Connection, item_id: str) -> None: ...


class _Adjudications(Protocol):
    def get(self, item_id: str) -> dict[str, Any] | None: ...


class _History(Protocol):
    def append_entry(
        self,
        conn: sqlite3.Connection,
        item_id: str,
        curator: str,
        action: str,
        before: dict[str, Any] | None,
        after: dict[str, Any] | None,
        *,
        undoes: int | None = None,
        origin: str = "local",
    ) -> None: ...


class Owner(Protocol):
    """What a part asks of the store it belongs to (``Store`` is one)."""

    @property
    def db(self) -> Database: ...
    @property
    def items(self) -> _Items: ...
    @property
    def queue(self) -> _Queue: ...
    @property
    def reviews(self) -> _Reviews: ...
    @property
    def adjudications(self) -> _Adjudications: ...
    @property
    def history(self) -> _History: ...
    def clock(self) -> str: ...
    def transaction(self) -> AbstractContextManager[sqlite3.Connection]: ...
    def apart(self) -> AbstractContextManager[Database]: ...


class Part:
    """One subject of a project file, a part of its ``Store``."""

    def __init__(self, store: Owner) -> None:
        self._store = store
        self.db: Database = store.db
