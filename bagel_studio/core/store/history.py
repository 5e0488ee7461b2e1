"""The append-only history of every change a curator made, and the edits and undos that write
to it (``store.history``).

Each entry holds its curator, time, action and what was current before and after; an undo is an
entry of its own that names the entry it undoes. Each write joins the caller's transaction (or
opens its own).
"""

from __future__ import annotations

import sqlite3
from typing import Any

from bagel_studio.core.model import HistoryEntry, ItemContent, Review
from bagel_studio.core.store.errors import StoreError
from bagel_studio.core.store.part import Part
from bagel_studio.core.store.rows import _dumps, _history_from_row

_ENTRY = (
    "SELECT h.id, h.item_id, h.curator, h.at, h.action, h.before, h.after,"
    " EXISTS (SELECT 1 FROM history u WHERE u.undoes = h.id) FROM history h"
)


class History(Part):
    """The ``history`` table."""

    def record_edit(
        self, item_id: str, curator: str, before: ItemContent, after: ItemContent
    ) -> None:
        """Write an item's new current content, with its history entry."""
        with self._store.transaction() as conn:
            self._store.items.write_content(conn, item_id, after)
            self.append_entry(conn, item_id, curator, "edit", before.to_json(), after.to_json())

    def last_undoable(self, curator: str) -> HistoryEntry | None:
        """``curator``'s newest local decision or edit not yet undone, or None."""
        row = self.db.execute(
            "SELECT id FROM history h WHERE curator = ? AND action IN ('decide', 'edit')"
            " AND origin = 'local'"
            " AND NOT EXISTS (SELECT 1 FROM history u WHERE u.undoes = h.id)"
            " ORDER BY id DESC LIMIT 1",
            [curator],
        ).fetchone()
        return None if row is None else self.entry(int(row[0]))

    def record_undo(self, entry: HistoryEntry) -> dict[str, Any] | None:
        """Put back what ``entry`` (a decision or an edit) replaced, with an ``undo`` history
        entry and the item's new status; return what was current before (review or content)."""
        curator = entry.curator
        reviews = self._store.reviews
        with self._store.transaction() as conn:
            current: dict[str, Any] | None
            if entry.action == "decide":
                review = reviews.get(entry.item_id, curator)
                current = review.to_json() if review else None
                if entry.before is None:
                    conn.execute(
                        "DELETE FROM reviews WHERE item_id = ? AND curator = ?",
                        [entry.item_id, curator],
                    )
                else:
                    reviews.write_review(conn, Review.from_json(entry.before))
                reviews.refresh_status(conn, entry.item_id)
            else:
                current = self._store.items.get(entry.item_id).content.to_json()
                assert entry.before is not None
                self._store.items.write_content(
                    conn, entry.item_id, ItemContent.from_json(entry.before)
                )
            self.append_entry(
                conn, entry.item_id, curator, "undo", current, entry.before, undoes=entry.id
            )
        return current

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
    ) -> None:
        """Append one entry (inside the caller's transaction, beside the change it records)."""
        conn.execute(
            "INSERT INTO history (item_id, curator, at, action, before, after, undoes, origin)"
            " VALUES (?,?,?,?,?,?,?,?)",
            [
                item_id,
                curator,
                self._store.clock(),
                action,
                None if before is None else _dumps(before),
                None if after is None else _dumps(after),
                undoes,
                origin,
            ],
        )

    def of_item(self, item_id: str) -> list[HistoryEntry]:
        """An item's entries, oldest first."""
        rows = self.db.execute(f"{_ENTRY} WHERE item_id = ? ORDER BY id", [item_id]).fetchall()
        return [_history_from_row(r) for r in rows]

    def entry(self, entry_id: int) -> HistoryEntry:
        row = self.db.execute(f"{_ENTRY} WHERE id = ?", [entry_id]).fetchone()
        if row is None:
            raise StoreError(f"no history entry {entry_id}")
        return _history_from_row(row)
