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

from collections.abc import Sequence
from typing import Any

from bagel_studio.core.store.database import Database
from bagel_studio.core.store.part import Part
from bagel_studio.core.store.queue import QUEUE_COLUMNS, QueueFilter, QueueSql

WORD_SOURCE = "items_fts CROSS JOIN items ON items.seq = items_fts.rowid"  # the index drives

Key = tuple[Any, ...]

# Per column: the index columns that lead to it, and the index (``schema``) they are. Every column
# before the last is NOT NULL (a NULL there would hide its rows from the seeks).
SEEK_PATHS: dict[str, tuple[tuple[str, ...], str]] = {
    "domain": (("domain",), "idx_items_domain_dimension"),
    "status": (("status",), "idx_items_status"),
    "dimension": (("domain", "dimension"), "idx_items_domain_dimension"),
    "level": (("domain", "status", "level"), "idx_items_queue_filters"),
}


def distinct_by_seeking(db: Database, table: str, path: Sequence[str], index: str) -> list[Any]:
    """The distinct non-NULL values of ``path[-1]``, sorted, by ``seek_distinct_sql`` through
    ``index``; read the plain way (every row) from a file without that index, one opened
    read-only before the migration that adds it."""
    has_index = db.execute(
        "SELECT 1 FROM pragma_index_list(?) WHERE name = ?", [table, index]
    ).fetchone()
    if has_index:
        sql = seek_distinct_sql(table, path)
    else:
        last = path[-1]
        sql = f"SELECT DISTINCT {last} FROM {table} WHERE {last} IS NOT NULL ORDER BY 1"
    return [row[0] for row in db.execute(sql)]


def seek_distinct_sql(table: str, path: Sequence[str]) -> str:
    """SQL for the distinct non-NULL values of ``path[-1]`` in ``table``, sorted, read from an
    index on ``path`` (its leading columns) by a loose index scan: a recursive step per value,
    each the least value after the one before (``min()`` over an index range is one seek), for
    each value of the columns before it. SQLite has no such scan of its own without ANALYZE."""
    ctes = []
    for depth, column in enumerate(path):
        fixed = path[:depth]

        def least(
            source: str, after: bool, fixed: Sequence[str] = fixed, column: str = column
        ) -> str:
            terms = [f"t.{c} = {source}.{c}" for c in fixed]
            if after:
                terms.append(f"t.{column} > {source}.{column}")
            where = f" WHERE {' AND '.join(terms)}" if terms else ""
            return f"(SELECT min(t.{column}) FROM {table} t{where})"

        carried = "".join(f"p.{c}, " for c in fixed)
        if depth == 0:
            first = f"SELECT {least('p', after=False)}"
        else:
            first = f"SELECT {carried}{least('p', after=False)} FROM s{depth - 1} p"
            first += f" WHERE p.{path[depth - 1]} IS NOT NULL"
        step = f"SELECT {carried}{least('p', after=True)} FROM s{depth} p"
        step += f" WHERE p.{column} IS NOT NULL"
        ctes.append(f"s{depth}({', '.join([*fixed, column])}) AS ({first} UNION ALL {step})")
    last = path[-1]
    return (
        f"WITH RECURSIVE {', '.join(ctes)} SELECT DISTINCT {last} FROM s{len(path) - 1}"
        f" WHERE {last} IS NOT NULL ORDER BY 1"
    )


class Queue(Part):
    """Reads of the queue whose cost does not grow with the number of items they match
    (``store.queue``)."""

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

    def sql(self, queue: QueueFilter) -> QueueSql:
        if queue.words(self.has_word_index()) and not queue.ambiguity_first:
            where, params = queue.where(word_index=True, joined=True)
            return QueueSql(WORD_SOURCE, where, params, ("items_fts.rowid",))
        where, params = queue.where(word_index=self.has_word_index())
        return QueueSql("items", where, params, queue.order_terms())

    def count(self, queue: QueueFilter, db: Database | None = None) -> int:
        """How many items the queue shows (a search alone is counted in the word index);
        ``db``: the connection to count on (``count_apart``), else this store's."""
        execute = (db or self.db).execute
        words = queue.words_only() if self.has_word_index() else None
        if words:
            sql = "SELECT count(*) FROM items_fts WHERE items_fts MATCH ?"
            return int(execute(sql, [words]).fetchone()[0])
        q = self.sql(queue)
        sql = f"SELECT count(*) FROM {q.source} WHERE {q.where}"
        return int(execute(sql, q.params).fetchone()[0])

    def count_apart(self, queue: QueueFilter) -> int:
        """``count`` on a read connection of its own (``Store.apart``), for another thread: a
        search for a common word counts most of 200,000 items in the word index, the longest
        part of a search, while the desk shows its first rows."""
        with self._store.apart() as db:
            return self.count(queue, db)

    def page(
        self, queue: QueueFilter, offset: int, limit: int, after: Key | None = None
    ) -> list[dict[str, Any]]:
        """Rows ``offset`` .. ``offset + limit`` of the queue, each with its order ``key``.

        ``after`` (the key of row ``offset - 1``) starts the page there instead of counting
        ``offset`` rows from the top."""
        q = self.sql(queue)
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

    def rows(self, ids: Sequence[str]) -> dict[str, dict[str, Any]]:
        """The columns the queue table shows, for the given items."""
        result: dict[str, dict[str, Any]] = {}
        for start in range(0, len(ids), 500):
            chunk = list(ids[start : start + 500])
            marks = ",".join("?" * len(chunk))
            cursor = self.db.execute(
                f"SELECT {', '.join(QUEUE_COLUMNS)} FROM items WHERE id IN ({marks})", chunk
            )
            for row in cursor:
                record = dict(zip(QUEUE_COLUMNS, row, strict=True))
                record["flag_checks"] = [c for c in record["flag_checks"].split(",") if c]
                result[record["id"]] = record
        return result

    def ids(self, queue: QueueFilter) -> list[str]:
        """Every id of the queue, in order (for bulk work and tests; the desk pages)."""
        q = self.sql(queue)
        sql = f"SELECT items.id FROM {q.source} WHERE {q.where} {q.order}"
        return [str(row[0]) for row in self.db.execute(sql, q.params)]

    def key(self, queue: QueueFilter, item_id: str) -> Key | None:
        """Where ``item_id`` sits in the queue's order (whether or not it matches the filter)."""
        row = self.db.execute(
            f"SELECT {', '.join(queue.order_terms())} FROM items WHERE id = ?", [item_id]
        ).fetchone()
        return None if row is None else tuple(row)

    def rank(self, queue: QueueFilter, item_id: str) -> int:
        """The row of ``item_id`` in the queue, or -1 when it does not match the filter."""
        key = self.key(queue, item_id)
        if key is None:
            return -1
        q = self.sql(queue)
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

    def next_id(self, queue: QueueFilter, after_id: str | None, *, wrap: bool = True) -> str | None:
        """The first item of the queue after ``after_id`` (from the top when None or unknown),
        wrapping round to the top when ``wrap``; never ``after_id`` itself."""
        q = self.sql(queue)
        key = self.key(queue, after_id) if after_id else None
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

    def distinct_values(self, column: str) -> list[str]:
        """The values ``column`` takes among the items (NULL left out), sorted: the filter
        bar's choices, asked at every desk start. Read by seeking through an index whose
        columns lead to ``column`` (``SEEK_PATHS``): one seek per value met on the way, a few
        dozen, instead of reading a row per item (50 ms at 200,000 items, per column). A file
        opened read-only before the index existed is read the plain way."""
        if column not in SEEK_PATHS:
            raise ValueError(column)
        path, index = SEEK_PATHS[column]
        return distinct_by_seeking(self.db, "items", path, index)

    def domains_in_order(self) -> list[str]:
        """The project's domains in the order the queue meets them (by their first item)."""
        firsts = []
        for domain in self.distinct_values("domain"):
            row = self.db.execute("SELECT min(seq) FROM items WHERE domain = ?", [domain])
            firsts.append((row.fetchone()[0], domain))
        return [domain for _seq, domain in sorted(firsts)]
