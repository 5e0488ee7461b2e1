"""The items: adding them, reading them one, many or a batch at a time, and the bulk reads of
the export and the statistics (``store.items``)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

from bagel_studio.core.model import Flag, Item, ItemContent
from bagel_studio.core.store.errors import StoreError
from bagel_studio.core.store.part import Part
from bagel_studio.core.store.queue import QueueFilter
from bagel_studio.core.store.rows import (
    GIVEN_ANSWER,
    ITEM_COLUMNS,
    RELEASE_COLUMNS,
    ContentCache,
    NewItem,
    _dumps,
    _new_item_row,
    _unique_by_id,
    item_from_values,
)

_FTS_INSERT_TRIGGER = "items_fts_insert"  # see schema.m_items_word_search


class Items(Part):
    """The ``items`` table."""

    _release_columns: str | None = None  # what ``release_rows`` selects, once known
    _given_answer: str | None = None  # how an item's read selects its generator's answer

    def item_columns(self, prefix: str = "") -> str:
        """What an item's read selects, in ``item_from_values``' order: ``ITEM_COLUMNS`` (each
        after ``prefix``) and the generator's answer. A project from before
        ``m_given_answers`` (opened read-only, so not migrated) reads as one without any."""
        if self._given_answer is None:
            stored = self.db.execute(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'given_answers'"
            ).fetchone()
            self._given_answer = GIVEN_ANSWER if stored else "NULL"
        columns = ", ".join(f"{prefix}{c}" for c in ITEM_COLUMNS.split(", "))
        return f"{columns}, {self._given_answer}"

    # -- writing -------------------------------------------------------------------------------

    def add_items(
        self,
        items: Iterable[NewItem],
        import_id: int | None,
        flags: Mapping[str, Sequence[Flag]] | None = None,
        verdicts: Mapping[str, int | None] | None = None,
    ) -> tuple[int, int]:
        """Insert items not yet in the project; return (added, already present).

        ``flags`` (by item id) are written with the items they belong to, in the same
        transaction, so an importer's blocking flags exist the moment its items do; items
        already present keep theirs. ``verdicts`` (by item id): their release verdicts
        (``checks.verdict``), NULL for the others. Rows are built with precomputed JSON (see
        ``ItemContent.canonical_json``) and written by one ``executemany``: an import of the
        whole benchmark passes through here.
        """
        flags = flags or {}
        verdicts = verdicts or {}
        with self._store.transaction() as conn:
            batch, given = _unique_by_id(items)
            present = self.present_ids(list(batch))
            next_seq = int(conn.execute("SELECT coalesce(max(seq), 0) FROM items").fetchone()[0])
            rows = []
            flag_rows = []
            for item in batch.values():
                if item.id in present:
                    continue
                next_seq += 1
                item_flags = flags.get(item.id, ())
                rows.append(
                    _new_item_row(item, next_seq, import_id, item_flags, verdicts.get(item.id))
                )
                flag_rows += [
                    (item.id, f.check, f.severity.value, f.message, _dumps(f.details))
                    for f in item_flags
                ]
            conn.executemany(
                "INSERT OR IGNORE INTO items (id, seq, domain, dimension, level, question, options,"
                " answer_index, original, status, flag_severity, flag_checks, source,"
                " supporting_evidence, rationale, globi_ref, recording_id, text_key, import_id,"
                " source_file, source_line, original_hash, release_verdict)"
                " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                rows,
            )
            conn.executemany(
                "INSERT OR IGNORE INTO given_answers (item_id, answer) VALUES (?, ?)",
                [
                    (item.id, item.given_answer)
                    for item in batch.values()
                    if item.given_answer is not None and item.id not in present
                ],
            )
            conn.executemany(
                "INSERT OR REPLACE INTO flags (item_id, check_id, severity, message, details)"
                " VALUES (?,?,?,?,?)",
                flag_rows,
            )
        return len(rows), given - len(rows)

    @contextmanager
    def items_in_bulk(self) -> Iterator[None]:
        """Inside the caller's transaction: items added within the block are indexed for search
        (``items_fts``) and marked as awaiting their checks by one statement each at its end,
        instead of row by row. The search index's insert trigger is dropped for the block and
        put back as it was, in the same transaction, so a crash leaves trigger and index as
        they were; any other write path keeps the trigger. Row by row, the trigger rewrote the
        index's pages thousands of times (most of an import's time and I/O)."""
        with self._store.transaction() as conn:
            found = conn.execute(
                "SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = ?",
                [_FTS_INSERT_TRIGGER],
            ).fetchone()
            if found is None:  # nested in another bulk block: that one indexes these too
                yield
                return
            start = int(conn.execute("SELECT coalesce(max(seq), 0) FROM items").fetchone()[0])
            conn.execute(f"DROP TRIGGER {_FTS_INSERT_TRIGGER}")
            try:
                yield
            finally:
                if conn.in_transaction:
                    conn.execute(
                        "INSERT INTO items_fts (rowid, id, question, options)"
                        " SELECT seq, id, question, options FROM items WHERE seq > ?",
                        [start],
                    )
                    conn.execute(
                        "INSERT OR IGNORE INTO pending_checks (item_id)"
                        " SELECT id FROM items WHERE seq > ?",
                        [start],
                    )
                    conn.execute(found[0])

    @staticmethod
    def write_content(conn: sqlite3.Connection, item_id: str, content: ItemContent) -> None:
        """Set an item's current content (inside the caller's transaction: an edit, an undo)."""
        conn.execute(
            "UPDATE items SET question = ?, options = ?, answer_index = ?, dimension = ?,"
            " level = ? WHERE id = ?",
            [
                content.question,
                _dumps(list(content.options)),
                content.answer_index,
                content.dimension,
                content.level,
                item_id,
            ],
        )

    # -- reading -------------------------------------------------------------------------------

    def get(self, item_id: str) -> Item:
        row = self.db.execute(
            f"SELECT {self.item_columns()} FROM items WHERE id = ?", [item_id]
        ).fetchone()
        if row is None:
            raise StoreError(f"no item {item_id!r} in this project")
        return item_from_values(row)

    def get_many(
        self, item_ids: Iterable[str] | None = None, *, contents: ContentCache | None = None
    ) -> list[Item]:
        """Many items in one query, in queue order (``seq``): those of ``item_ids`` that exist,
        or all items when None. For bulk work such as ``check_all``; ``get`` raises for a
        missing id, this leaves it out."""
        sql = f"SELECT {self.item_columns()} FROM items"
        params: list[Any] = []
        if item_ids is not None:
            sql += " WHERE id IN (SELECT value FROM json_each(?))"
            params.append(json.dumps(list(dict.fromkeys(item_ids))))
        cursor = self.db.execute(sql + " ORDER BY seq", params)
        contents = contents or ContentCache()
        return [item_from_values(row, contents) for row in cursor.fetchall()]

    def present_ids(self, ids: Sequence[str]) -> set[str]:
        """Which of ``ids`` are already items (one query, however many ids; none at all for a
        project without items, such as the one a first import fills)."""
        if not ids or not self.db.execute("SELECT EXISTS (SELECT 1 FROM items)").fetchone()[0]:
            return set()
        cursor = self.db.execute(
            "SELECT id FROM items WHERE id IN (SELECT value FROM json_each(?))",
            [json.dumps(list(ids))],
        )
        return {row[0] for row in cursor}

    def with_recording(self) -> set[str]:
        """The ids of the items whose recording column names a recording (one query over the
        column's index: a release's species table reads only these items)."""
        cursor = self.db.execute(
            "SELECT id FROM items WHERE recording_id IS NOT NULL AND recording_id != ''"
        )
        return {row[0] for row in cursor}

    def count(self, queue: QueueFilter | None = None) -> int:
        return self._store.queue.count(queue or QueueFilter())

    def ids(self, queue: QueueFilter | None = None) -> list[str]:
        return self._store.queue.ids(queue or QueueFilter())

    def iterate(self, queue: QueueFilter | None = None) -> Iterator[Item]:
        q = self._store.queue.sql(queue or QueueFilter())
        columns = self.item_columns("items.")
        cursor = self.db.execute(
            f"SELECT {columns} FROM {q.source} WHERE {q.where} {q.order}", q.params
        )
        contents = ContentCache()
        for row in cursor.fetchall():
            yield item_from_values(row, contents)

    def batches(
        self, item_ids: Sequence[str] | None = None, size: int = 2000
    ) -> Iterator[list[Item]]:
        """The items of ``item_ids`` that exist (all when None), ``size`` at a time: bulk work
        over every item (checks, exports) holds one batch in memory, not the project. Each batch
        is read by its own query, so the caller may write between batches."""
        for items, _ in self.batches_with_contents(item_ids, size):
            yield items

    def batches_with_contents(
        self, item_ids: Sequence[str] | None = None, size: int = 2000
    ) -> Iterator[tuple[list[Item], ContentCache]]:
        """``batches``, each batch with the content cache its items were decoded with (to decode
        their reviews' contents with, as ``get_many(contents=...)`` allows)."""
        if item_ids is not None:
            unique = list(dict.fromkeys(item_ids))
            for start in range(0, len(unique), size):
                contents = ContentCache()
                yield self.get_many(unique[start : start + size], contents=contents), contents
            return
        last = -1
        while True:
            rows = self.db.execute(
                f"SELECT seq, {self.item_columns()} FROM items WHERE seq > ? ORDER BY seq LIMIT ?",
                [last, size],
            ).fetchall()
            if not rows:
                return
            last = rows[-1][0]
            contents = ContentCache()
            yield [item_from_values(row[1:], contents) for row in rows], contents

    def without_text(self, domain: str) -> list[tuple[str, str]]:
        """(id, stem) of the items of ``domain`` that name no text, in queue order."""
        rows = self.db.execute(
            "SELECT id, question FROM items WHERE domain = ? AND text_key IS NULL ORDER BY seq",
            [domain],
        )
        return [(str(item_id), str(stem)) for item_id, stem in rows]

    def link_texts(self, links: Sequence[tuple[str, str]]) -> None:
        """Give each (item id, text key) item that names no text that text (inside the caller's
        transaction)."""
        with self._store.transaction() as conn:
            conn.executemany(
                "UPDATE items SET text_key = ? WHERE id = ? AND text_key IS NULL",
                [(key, item_id) for item_id, key in links],
            )

    def original_hashes(self) -> list[tuple[str, str]]:
        """(id, hash of the content as imported) of every item, in queue order: what merging
        matches items by."""
        rows = self.db.execute("SELECT id, original_hash, original FROM items ORDER BY seq")
        return [
            (item_id, digest or ItemContent.from_json(json.loads(original)).content_hash())
            for item_id, digest, original in rows
        ]

    def original_hashes_of(self, item_ids: Sequence[str]) -> dict[str, str]:
        """Id -> hash of the content as imported, of those of ``item_ids`` in the project."""
        rows = self.db.execute(
            "SELECT id, original_hash, original FROM items"
            " WHERE id IN (SELECT value FROM json_each(?))",
            [json.dumps(list(item_ids))],
        )
        return {
            item_id: digest or ItemContent.from_json(json.loads(original)).content_hash()
            for item_id, digest, original in rows
        }

    # -- bulk reads of the export and the statistics --------------------------------------------

    def release_rows(self, item_ids: Sequence[str]) -> list[tuple[Any, ...]]:
        """The stored columns a release is planned and written from (``RELEASE_COLUMNS``) of
        those of ``item_ids`` that exist, as raw rows in no particular order (the export finds
        them by id, and need not wait for a thousand wide rows to be sorted): the export reads
        them without decoding whole items (``export.stored``)."""
        if self._release_columns is None:
            # a project from before ``m_items_release_verdict`` (opened read-only, so not
            # migrated) reads as one whose items have no verdict stored
            stored = self.db.execute(
                "SELECT 1 FROM pragma_table_info('items') WHERE name = 'release_verdict'"
            ).fetchone()
            self._release_columns = (
                RELEASE_COLUMNS if stored else RELEASE_COLUMNS.replace("release_verdict", "NULL")
            )
        return self.db.execute(
            f"SELECT {self._release_columns} FROM items"
            " WHERE id IN (SELECT value FROM json_each(?))",
            [json.dumps(list(item_ids))],
        ).fetchall()

    def release_candidates(self, domain: str, statuses: Iterable[str]) -> list[str]:
        """The ids of the items of ``domain`` whose status is one of ``statuses``, in queue
        order: the items a release may take, put in release order before any of them is read
        (from the index of items by domain and queue position alone: ``m_items_release_order``)."""
        rows = self.db.execute(
            "SELECT id FROM items WHERE domain = ? AND status IN (SELECT value FROM json_each(?))"
            " ORDER BY seq",
            [domain, json.dumps(sorted(statuses))],
        ).fetchall()
        return [row[0] for row in rows]

    def status_counts(self) -> list[tuple[str, str, int]]:
        """(domain, status, items) of every domain and status the project's items have."""
        return self.db.execute(
            "SELECT domain, status, count(*) FROM items GROUP BY domain, status"
        ).fetchall()

    def level_counts(self) -> list[tuple[str, str | None, int]]:
        """(domain, level, items) over the project."""
        rows = self.db.execute("SELECT domain, level, count(*) FROM items GROUP BY domain, level")
        return [(r[0], r[1], int(r[2])) for r in rows]

    def stat_rows(self) -> list[tuple[str, str | None, str | None, str, int | None]]:
        """(domain, dimension, level, status, answer_index) of every item: what stats count."""
        return self.db.execute(
            "SELECT domain, dimension, level, status, answer_index FROM items"
        ).fetchall()
