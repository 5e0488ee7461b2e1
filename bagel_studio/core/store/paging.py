"""The queue read a page at a time: count, page, rank and "the next one", all in SQL.

The desk never holds the ids of a whole queue: at 200,000 items reading them (and building an
id-to-row map over them) made every filter change cost a third of a second. A filter change is a
``count``; a screenful is one ``page`` (by key after the previous page, so stepping down the queue
never scans what it passed); where an item sits is a ``rank`` (a count of the items before it);
the next item to review is one indexed query from the current item's place in the order.

A whole-word search reads the word index first (``items_fts``, whose rowid is the item's ``seq``,
so it lists matches in queue order) and joins each match to its item: a page of a search for a
word in most items stops after its rows instead of first listing every match.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bagel_studio.core.store.database import Database
from bagel_studio.core.store.queue import QUEUE_COLUMNS, QueueFilter

WORD_SOURCE = "items_fts CROSS JOIN items ON items.seq = items_fts.rowid"  # the index drives

Key = tuple[Any, ...]


@dataclass(frozen=True)
class QueueSql:
    """How to read one queue: FROM, WHERE and its parameters, and the order as SQL terms."""

    source: str
    where: str
    params: list[Any]
    terms: tuple[str, ...]

    @property
    def order(self) -> str:
        return "ORDER BY " + ", ".join(self.terms)

    def after(self, op: str = ">") -> str:
        """True for the rows after a key given as parameters (``op="<="``: up to and with it)."""
        if len(self.terms) == 1:
            return f"{self.terms[0]} {op} ?"
        return f"({', '.join(self.terms)}) {op} ({', '.join('?' * len(self.terms))})"


class QueuePagingMixin:
    """Reads of the queue whose cost does not grow with the number of items they match."""

    db: Database
    _word_index: bool | None = None

    def has_word_index(self) -> bool:
        """The project has ``m_items_word_search``'s index (a file opened read-only before that
        migration has not: its search then matches inside words)."""
        if self._word_index is None:
            found = self.db.execute(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'items_fts'"
            ).fetchone()
            self._word_index = found is not None
        return self._word_index

    def queue_sql(self, queue: QueueFilter) -> QueueSql:
        if queue.words(self.has_word_index()) and not queue.ambiguity_first:
            where, params = queue.where(word_index=True, joined=True)
            return QueueSql(WORD_SOURCE, where, params, ("items_fts.rowid",))
        where, params = queue.where(word_index=self.has_word_index())
        return QueueSql("items", where, params, queue.order_terms())

    def queue_count(self, queue: QueueFilter) -> int:
        """How many items the queue shows (a search alone is counted in the word index)."""
        words = queue.words_only() if self.has_word_index() else None
        if words:
            sql = "SELECT count(*) FROM items_fts WHERE items_fts MATCH ?"
            return int(self.db.execute(sql, [words]).fetchone()[0])
        q = self.queue_sql(queue)
        sql = f"SELECT count(*) FROM {q.source} WHERE {q.where}"
        return int(self.db.execute(sql, q.params).fetchone()[0])

    def queue_page(
        self, queue: QueueFilter, offset: int, limit: int, after: Key | None = None
    ) -> list[dict[str, Any]]:
        """Rows ``offset`` .. ``offset + limit`` of the queue, each with its order ``key``.

        ``after`` (the key of row ``offset - 1``) starts the page there instead of counting
        ``offset`` rows from the top."""
        q = self.queue_sql(queue)
        columns = ", ".join(f"items.{c}" for c in QUEUE_COLUMNS)
        keys = ", ".join(queue.order_terms())
        sql = f"SELECT {columns}, {keys} FROM {q.source} WHERE ({q.where})"
        if after is not None:
            sql += f" AND {q.after()} {q.order} LIMIT ?"
            params = [*q.params, *after, limit]
        else:
            sql += f" {q.order} LIMIT ? OFFSET ?"
            params = [*q.params, limit, offset]
        width = len(QUEUE_COLUMNS)
        records = []
        for row in self.db.execute(sql, params):
            record = dict(zip(QUEUE_COLUMNS, row[:width], strict=True))
            record["flag_checks"] = [c for c in str(record["flag_checks"] or "").split(",") if c]
            record["key"] = tuple(row[width:])
            records.append(record)
        return records

    def queue_ids(self, queue: QueueFilter) -> list[str]:
        """Every id of the queue, in order (for bulk work and tests; the desk pages)."""
        q = self.queue_sql(queue)
        sql = f"SELECT items.id FROM {q.source} WHERE {q.where} {q.order}"
        return [str(row[0]) for row in self.db.execute(sql, q.params)]

    def queue_key(self, queue: QueueFilter, item_id: str) -> Key | None:
        """Where ``item_id`` sits in the queue's order (whether or not it matches the filter)."""
        row = self.db.execute(
            f"SELECT {', '.join(queue.order_terms())} FROM items WHERE id = ?", [item_id]
        ).fetchone()
        return None if row is None else tuple(row)

    def queue_rank(self, queue: QueueFilter, item_id: str) -> int:
        """The row of ``item_id`` in the queue, or -1 when it does not match the filter."""
        key = self.queue_key(queue, item_id)
        if key is None:
            return -1
        q = self.queue_sql(queue)
        found = self.db.execute(
            f"SELECT 1 FROM {q.source} WHERE ({q.where}) AND {q.after('=')} AND items.id = ?",
            [*q.params, *key, item_id],
        ).fetchone()
        if found is None:
            return -1
        words = queue.words_only() if self.has_word_index() else None
        if words:  # a search alone: counted in the word index
            sql = "SELECT count(*) FROM items_fts WHERE items_fts MATCH ? AND rowid <= ?"
            before = self.db.execute(sql, [words, *key]).fetchone()[0]
        else:
            sql = f"SELECT count(*) FROM {q.source} WHERE ({q.where}) AND {q.after('<=')}"
            before = self.db.execute(sql, [*q.params, *key]).fetchone()[0]
        return int(before) - 1

    def queue_next(
        self, queue: QueueFilter, after_id: str | None, *, wrap: bool = True
    ) -> str | None:
        """The first item of the queue after ``after_id`` (from the top when None or unknown),
        wrapping round to the top when ``wrap``; never ``after_id`` itself."""
        q = self.queue_sql(queue)
        key = self.queue_key(queue, after_id) if after_id else None
        head = f"SELECT items.id FROM {q.source} WHERE ({q.where})"
        if key is not None:
            row = self.db.execute(
                f"{head} AND {q.after()} {q.order} LIMIT 1", [*q.params, *key]
            ).fetchone()
            if row is not None or not wrap:
                return None if row is None else str(row[0])
        row = self.db.execute(
            f"{head} AND items.id != ? {q.order} LIMIT 1", [*q.params, after_id or ""]
        ).fetchone()
        return None if row is None else str(row[0])

    def domains_in_queue_order(self) -> list[str]:
        """The project's domains in the order the queue meets them (by their first item)."""
        firsts = []
        for (domain,) in self.db.execute("SELECT DISTINCT domain FROM items").fetchall():
            row = self.db.execute("SELECT min(seq) FROM items WHERE domain = ?", [domain])
            firsts.append((row.fetchone()[0], domain))
        return [domain for _seq, domain in sorted(firsts)]
