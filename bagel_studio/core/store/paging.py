"""The queue read a page at a time: count, page, rank and "the next one", all in SQL.

The desk never holds the ids of a whole queue: at 200,000 items reading them (and building an
id-to-row map over them) made every filter change cost a third of a second. A filter change is a
``count``; a screenful is one ``page`` (by key after the previous page, so stepping down the queue
never scans what it passed); where an item sits is a ``rank`` (a count of the items before it);
the next item to review is one indexed query from the current item's place in the order.
"""

from __future__ import annotations

from typing import Any

import sqlite_utils

from bagel_studio.core.store.queue import QueueFilter

QUEUE_COLUMNS = (
    "id",
    "domain",
    "dimension",
    "level",
    "status",
    "question",
    "flag_severity",
    "flag_checks",
)

Key = tuple[Any, ...]


def _after(terms: tuple[str, ...], op: str = ">") -> str:
    """SQL that is true for the rows after a key given as parameters, in the order of ``terms``
    (``op="<="``: the rows up to and including it)."""
    if len(terms) == 1:
        return f"{terms[0]} {op} ?"
    return f"({', '.join(terms)}) {op} ({', '.join('?' * len(terms))})"


class QueuePagingMixin:
    """Reads of the queue that cost the same at 1,000 items as at 200,000."""

    db: sqlite_utils.Database
    _word_index: bool | None = None

    def queue_where(self, queue: QueueFilter) -> tuple[str, list[Any]]:
        """``queue.where()`` for this project (with or without its full-text index)."""
        if self._word_index is None:
            found = self.db.execute(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'items_fts'"
            ).fetchone()
            self._word_index = found is not None
        return queue.where(word_index=self._word_index)

    def queue_page(
        self, queue: QueueFilter, offset: int, limit: int, after: Key | None = None
    ) -> list[dict[str, Any]]:
        """Rows ``offset`` .. ``offset + limit`` of the queue, each with its order ``key``.

        ``after`` (the key of row ``offset - 1``) starts the page there instead of counting
        ``offset`` rows from the top."""
        where, params = self.queue_where(queue)
        terms = queue.order_terms()
        sql = f"SELECT {', '.join('items.' + c for c in QUEUE_COLUMNS)}, {', '.join(terms)}"
        if after is not None:
            sql += f" FROM items WHERE ({where}) AND {_after(terms)} {queue.order()} LIMIT ?"
            params = [*params, *after, limit]
        else:
            sql += f" FROM items WHERE {where} {queue.order()} LIMIT ? OFFSET ?"
            params = [*params, limit, offset]
        width = len(QUEUE_COLUMNS)
        records = []
        for row in self.db.execute(sql, params):
            record = dict(zip(QUEUE_COLUMNS, row[:width], strict=True))
            record["flag_checks"] = [c for c in str(record["flag_checks"] or "").split(",") if c]
            record["key"] = tuple(row[width:])
            records.append(record)
        return records

    def queue_key(self, queue: QueueFilter, item_id: str) -> Key | None:
        """Where ``item_id`` sits in the queue's order (whether or not it matches the filter)."""
        row = self.db.execute(
            f"SELECT {', '.join(queue.order_terms())} FROM items WHERE id = ?", [item_id]
        ).fetchone()
        return None if row is None else tuple(row)

    def queue_rank(self, queue: QueueFilter, item_id: str) -> int:
        """The row of ``item_id`` in the queue, or -1 when it does not match the filter."""
        where, params = self.queue_where(queue)
        found = self.db.execute(
            f"SELECT {', '.join(queue.order_terms())} FROM items WHERE id = ? AND ({where})",
            [item_id, *params],
        ).fetchone()
        if found is None:
            return -1
        sql = f"SELECT count(*) FROM items WHERE ({where}) AND {_after(queue.order_terms(), '<=')}"
        before = self.db.execute(sql, [*params, *found]).fetchone()[0]
        return int(before) - 1

    def queue_next(
        self, queue: QueueFilter, after_id: str | None, *, wrap: bool = True
    ) -> str | None:
        """The first item of the queue after ``after_id`` (from the top when None or unknown),
        wrapping round to the top when ``wrap``; never ``after_id`` itself."""
        where, params = self.queue_where(queue)
        key = self.queue_key(queue, after_id) if after_id else None
        head = f"SELECT items.id FROM items WHERE ({where})"
        if key is not None:
            row = self.db.execute(
                f"{head} AND {_after(queue.order_terms())} {queue.order()} LIMIT 1",
                [*params, *key],
            ).fetchone()
            if row is not None or not wrap:
                return None if row is None else str(row[0])
        row = self.db.execute(
            f"{head} AND items.id != ? {queue.order()} LIMIT 1", [*params, after_id or ""]
        ).fetchone()
        return None if row is None else str(row[0])

    def domains_in_queue_order(self) -> list[str]:
        """The project's domains in the order the queue meets them (by their first item)."""
        firsts = []
        for (domain,) in self.db.execute("SELECT DISTINCT domain FROM items").fetchall():
            row = self.db.execute("SELECT min(seq) FROM items WHERE domain = ?", [domain])
            firsts.append((row.fetchone()[0], domain))
        return [domain for _seq, domain in sorted(firsts)]
