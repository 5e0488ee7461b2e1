"""Reading and writing a project file.

Every write that belongs together (a decision and its history entry, an edit, its flags and its
history entry) runs in one ``BEGIN IMMEDIATE`` transaction and is committed before the call returns,
so a curator's work survives the process being killed at any moment. The connection runs in
autocommit mode and transactions are explicit; raw SQL is used inside them because sqlite-utils'
helpers commit on their own.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bagel_studio.core.model import (
    SEVERITY_RANK,
    Flag,
    Item,
    ItemContent,
    Severity,
)
from bagel_studio.core.store.database import Database
from bagel_studio.core.store.decisions import DecisionsMixin
from bagel_studio.core.store.errors import StoreError
from bagel_studio.core.store.evidence import EvidenceMixin
from bagel_studio.core.store.lock import WriterLock
from bagel_studio.core.store.migrate import apply_migrations
from bagel_studio.core.store.paging import QueuePagingMixin
from bagel_studio.core.store.queue import NO_FLAG, QUEUE_COLUMNS, QueueFilter
from bagel_studio.core.store.reviews import ReviewsMixin
from bagel_studio.core.store.rows import (
    ITEM_COLUMNS,
    RELEASE_COLUMNS,
    ContentCache,
    NewItem,
    _dumps,
    _loads,
    _new_item_row,
    _unique_by_id,
    item_from_values,
)
from bagel_studio.core.store.schema import migration_names

Clock = Callable[[], str]
_FTS_INSERT_TRIGGER = "items_fts_insert"  # see schema.m_items_word_search


def utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


# SQLite's primary result codes for storage that refuses the request (not a bad file):
# SQLITE_NOMEM, SQLITE_READONLY, SQLITE_IOERR, SQLITE_FULL, SQLITE_CANTOPEN
_STORAGE_CODES = frozenset({7, 8, 10, 13, 14})


class Store(ReviewsMixin, DecisionsMixin, EvidenceMixin, QueuePagingMixin):
    """A project file, open for reading and (unless ``read_only``) writing."""

    def __init__(
        self,
        path: Path,
        db: Database,
        lock: WriterLock | None,
        clock: Clock = utc_now,
    ) -> None:
        self.path = path
        self.db = db
        self._lock = lock
        self._clock = clock
        self._release_columns: str | None = None  # what ``release_rows`` selects, once known

    def clock(self) -> str:
        return self._clock()

    # -- opening and closing -------------------------------------------------------------------

    @classmethod
    def open(
        cls,
        path: str | Path,
        *,
        create: bool = True,
        read_only: bool = False,
        owner: str = "",
        clock: Clock = utc_now,
        wait: float = 0.0,
    ) -> Store:
        """Open (and, if allowed, create) a project; raise ProjectLockedError if another
        writer still holds it after ``wait`` seconds."""
        path = Path(path)
        if read_only:
            if not path.exists():
                raise StoreError(f"{path}: no such project")
            if path.is_dir():
                raise StoreError(f"{path}: is a folder, not a project file")
            try:
                conn = sqlite3.connect(
                    f"file:{path}?mode=ro", uri=True, isolation_level=None, check_same_thread=False
                )
            except sqlite3.Error as exc:
                raise StoreError(f"{path}: cannot be opened ({exc})") from exc
            store = cls(path, Database(conn), None, clock)
            try:
                store._check_readable()
            except StoreError:
                conn.close()
                raise
            return store
        if not path.exists() and not create:
            raise StoreError(f"{path}: no such project")
        if path.exists() and not _looks_like_sqlite(path):
            raise StoreError(f"{path}: not a BAGEL Studio project (not an SQLite file)")
        path.parent.mkdir(parents=True, exist_ok=True)
        lock = WriterLock(path, owner, wait)
        writer: sqlite3.Connection | None = None
        try:
            writer = conn = sqlite3.connect(
                str(path), isolation_level=None, check_same_thread=False
            )
            if _foreign_database(conn):
                raise StoreError(
                    f"{path}: not a BAGEL Studio project (an SQLite database of another program)"
                )
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = FULL")
            conn.execute("PRAGMA foreign_keys = ON")
            conn.execute("PRAGMA busy_timeout = 5000")
            db = Database(conn)
            apply_migrations(db)
        except BaseException:
            if writer is not None:
                writer.close()
            lock.release()
            raise
        return cls(path, db, lock, clock)

    @classmethod
    def memory(cls, clock: Clock = utc_now) -> Store:
        """A throw-away project in memory (tests)."""
        conn = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
        db = Database(conn)
        apply_migrations(db)
        return cls(Path(":memory:"), db, None, clock)

    def _check_readable(self) -> None:
        try:
            self.db.execute("SELECT count(*) FROM items").fetchone()
        except sqlite3.DatabaseError as exc:
            if getattr(exc, "sqlite_errorcode", 0) & 0xFF in _STORAGE_CODES:
                # reading a WAL project creates its shared-memory file: a full disk refuses it
                raise StoreError(
                    f"{self.path}: cannot be read here ({exc}; disk full, read-only or failing"
                    " storage?); the project is unchanged"
                ) from exc
            raise StoreError(f"{self.path}: not a BAGEL Studio project ({exc})") from exc

    @property
    def read_only(self) -> bool:
        return self._lock is None and str(self.path) != ":memory:"

    def schema_behind(self) -> bool:
        """True when the project lacks migrations this program knows: a project an older
        release wrote, opened read-only (opening it for writing brings it up to date)."""
        version = int(self.db.execute("PRAGMA user_version").fetchone()[0])
        return version < len(migration_names())

    def close(self) -> None:
        self.db.conn.close()
        if self._lock is not None:
            self._lock.release()
            self._lock = None

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One atomic, durable write: committed on success, rolled back on any error."""
        if self.read_only:
            raise StoreError(f"{self.path.name} is open read-only")
        conn = self.db.conn
        if conn.in_transaction:  # nested: part of the caller's transaction
            yield conn
            return
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield conn
        except BaseException:
            conn.rollback()
            raise
        conn.commit()

    # -- project settings ----------------------------------------------------------------------

    def get_meta(self, key: str, default: Any = None) -> Any:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", [key]).fetchone()
        return json.loads(row[0]) if row else default

    def set_meta(self, key: str, value: Any) -> None:
        with self.transaction() as conn:
            conn.execute(
                "INSERT INTO meta(key, value) VALUES (?, ?) "
                "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                [key, _dumps(value)],
            )

    # -- releases written from the project ------------------------------------------------------

    def record_export(self, out_dir: str, seed: int, manifest: Mapping[str, Any]) -> int:
        """Note a written release in the ``exports`` table; return its id."""
        with self.transaction() as conn:
            cursor = conn.execute(
                "INSERT INTO exports (out_dir, seed, exported_at, manifest) VALUES (?,?,?,?)",
                [
                    out_dir,
                    seed,
                    self.clock(),
                    json.dumps(manifest, ensure_ascii=False, sort_keys=True),
                ],
            )
            return int(cursor.lastrowid or 0)

    def last_export_seed(self) -> int | None:
        """The seed of the newest recorded export, or None."""
        row = self.db.execute("SELECT seed FROM exports ORDER BY id DESC LIMIT 1").fetchone()
        return int(row[0]) if row and row[0] is not None else None

    # -- items ---------------------------------------------------------------------------------

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
        with self.transaction() as conn:
            batch, given = _unique_by_id(items)
            present = self.present_item_ids(list(batch))
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
        with self.transaction() as conn:
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

    def original_hashes(self) -> list[tuple[str, str]]:
        """(id, hash of the content as imported) of every item, in queue order: what merging
        matches items by."""
        rows = self.db.execute("SELECT id, original_hash, original FROM items ORDER BY seq")
        return [
            (item_id, digest or ItemContent.from_json(json.loads(original)).content_hash())
            for item_id, digest, original in rows
        ]

    def linked_item_ids(
        self, domain: str | None, recording_imports: Sequence[int], text_keys: Sequence[str]
    ) -> list[str]:
        """Items of ``domain`` (None: none), or naming a recording that one of the imports
        ``recording_imports`` of this connection wrote (see ``upsert_recordings``), or whose
        text key (lower case) is one of ``text_keys``: those whose evidence just changed."""
        recordings = "0"
        if recording_imports and self._arrived_exists():
            recordings = (
                f"recording_id IN (SELECT id FROM {self._ARRIVED}"
                " WHERE import_id IN (SELECT value FROM json_each(?)))"
            )
        query = (
            "SELECT id FROM items WHERE (? AND domain = ?)"
            f" OR {recordings}"
            " OR lower(text_key) IN (SELECT value FROM json_each(?))"
        )
        params: list[Any] = [int(domain is not None), domain or ""]
        if recordings != "0":
            params.append(json.dumps(list(recording_imports)))
        params.append(json.dumps(list(text_keys)))
        return [row[0] for row in self.db.execute(query, params)]

    def item_stat_rows(self) -> list[tuple[str, str | None, str | None, str, int | None]]:
        """(domain, dimension, level, status, answer_index) of every item: what stats count."""
        return self.db.execute(
            "SELECT domain, dimension, level, status, answer_index FROM items"
        ).fetchall()

    def blocking_messages(self) -> dict[str, list[str]]:
        """Item id -> messages of its blocking flags (by check), items in queue order."""
        rows = self.db.execute(
            "SELECT f.item_id, f.message FROM flags f JOIN items i ON i.id = f.item_id"
            " WHERE f.severity = 'blocking' ORDER BY i.seq, f.check_id"
        )
        result: dict[str, list[str]] = {}
        for item_id, message in rows:
            result.setdefault(item_id, []).append(message)
        return result

    def checkpoint(self) -> None:
        """Fold the write-ahead log into the project file (before copying or renaming it)."""
        self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    @contextmanager
    def read_snapshot(self) -> Iterator[None]:
        """Read a read-only project inside one transaction, so that every query sees the same
        moment even while another process writes (WAL readers keep their snapshot). A writable
        store's connection is shared with its writer, so it is read as is."""
        conn = self.db.conn
        if not self.read_only or conn.in_transaction:
            yield
            return
        conn.execute("BEGIN")
        try:
            yield
        finally:
            conn.rollback()

    def present_item_ids(self, ids: Sequence[str]) -> set[str]:
        """Which of ``ids`` are already items (one query, however many ids; none at all for a
        project without items, such as the one a first import fills)."""
        if not ids or not self.db.execute("SELECT EXISTS (SELECT 1 FROM items)").fetchone()[0]:
            return set()
        cursor = self.db.execute(
            "SELECT id FROM items WHERE id IN (SELECT value FROM json_each(?))",
            [json.dumps(list(ids))],
        )
        return {row[0] for row in cursor}

    def get_items(
        self, item_ids: Iterable[str] | None = None, *, contents: ContentCache | None = None
    ) -> list[Item]:
        """Many items in one query, in queue order (``seq``): those of ``item_ids`` that exist,
        or all items when None. For bulk work such as ``check_all``; ``get_item`` raises for a
        missing id, this leaves it out."""
        sql = f"SELECT {ITEM_COLUMNS} FROM items"
        params: list[Any] = []
        if item_ids is not None:
            sql += " WHERE id IN (SELECT value FROM json_each(?))"
            params.append(json.dumps(list(dict.fromkeys(item_ids))))
        cursor = self.db.execute(sql + " ORDER BY seq", params)
        contents = contents or ContentCache()
        return [item_from_values(row, contents) for row in cursor.fetchall()]

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

    def reject_reason_counts(self, rejected: str, reject: str) -> list[tuple[str, str, int]]:
        """(domain, reason, items) over the items whose status is ``rejected``: an adjudicated
        item counts under its adjudication's reason, any other under each distinct reason of
        its curators' ``reject`` decisions; a decision without a reason counts as "other"."""
        return self.db.execute(
            "SELECT domain, reason, count(*) FROM ("
            " SELECT i.domain AS domain, coalesce(nullif(a.reason, ''), 'other') AS reason"
            " FROM items AS i JOIN adjudications AS a ON a.item_id = i.id WHERE i.status = ?"
            " UNION ALL"
            " SELECT domain, reason FROM (SELECT DISTINCT i.id, i.domain AS domain,"
            " coalesce(nullif(r.reason, ''), 'other') AS reason"
            " FROM items AS i JOIN reviews AS r ON r.item_id = i.id"
            " WHERE i.status = ? AND r.decision = ?"
            " AND NOT EXISTS (SELECT 1 FROM adjudications AS a WHERE a.item_id = i.id)))"
            " GROUP BY domain, reason",
            [rejected, rejected, reject],
        ).fetchall()

    def item_batches(
        self, item_ids: Sequence[str] | None = None, size: int = 2000
    ) -> Iterator[list[Item]]:
        """The items of ``item_ids`` that exist (all when None), ``size`` at a time: bulk work
        over every item (checks, exports) holds one batch in memory, not the project. Each batch
        is read by its own query, so the caller may write between batches."""
        for items, _ in self.item_batches_with_contents(item_ids, size):
            yield items

    def item_batches_with_contents(
        self, item_ids: Sequence[str] | None = None, size: int = 2000
    ) -> Iterator[tuple[list[Item], ContentCache]]:
        """``item_batches``, each batch with the content cache its items were decoded with (to
        decode their reviews' contents with, as ``get_items(contents=...)`` allows)."""
        if item_ids is not None:
            unique = list(dict.fromkeys(item_ids))
            for start in range(0, len(unique), size):
                contents = ContentCache()
                yield self.get_items(unique[start : start + size], contents=contents), contents
            return
        last = -1
        while True:
            rows = self.db.execute(
                f"SELECT seq, {ITEM_COLUMNS} FROM items WHERE seq > ? ORDER BY seq LIMIT ?",
                [last, size],
            ).fetchall()
            if not rows:
                return
            last = rows[-1][0]
            contents = ContentCache()
            yield [item_from_values(row[1:], contents) for row in rows], contents

    def item_count(self, queue: QueueFilter | None = None) -> int:
        return self.queue_count(queue or QueueFilter())

    def item_ids(self, queue: QueueFilter | None = None) -> list[str]:
        return self.queue_ids(queue or QueueFilter())

    def queue_rows(self, ids: Sequence[str]) -> dict[str, dict[str, Any]]:
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

    def get_item(self, item_id: str) -> Item:
        row = self.db.execute(
            f"SELECT {ITEM_COLUMNS} FROM items WHERE id = ?", [item_id]
        ).fetchone()
        if row is None:
            raise StoreError(f"no item {item_id!r} in this project")
        return item_from_values(row)

    def iter_items(self, queue: QueueFilter | None = None) -> Iterator[Item]:
        q = self.queue_sql(queue or QueueFilter())
        columns = ", ".join(f"items.{c}" for c in ITEM_COLUMNS.split(", "))
        cursor = self.db.execute(
            f"SELECT {columns} FROM {q.source} WHERE {q.where} {q.order}", q.params
        )
        contents = ContentCache()
        for row in cursor.fetchall():
            yield item_from_values(row, contents)

    # -- flags ---------------------------------------------------------------------------------

    def replace_flags(self, item_id: str, flags: Sequence[Flag]) -> None:
        with self.transaction() as conn:
            self._write_flags(conn, item_id, flags)
            conn.execute("DELETE FROM pending_checks WHERE item_id = ?", [item_id])

    def replace_all_flags(self, flags_by_item: Mapping[str, Sequence[Flag]]) -> None:
        """Replace the flags of many items in one transaction (flags with an origin, the
        audit's, stay). The stored flags of the items are read in one query and only the items
        whose flags differ are rewritten (one delete, one insert of their flags); the items'
        flag summaries are updated where they differ. A re-check that changes nothing writes
        nothing. Their checks are then no longer pending."""
        if not flags_by_item:
            return
        ids = json.dumps(list(flags_by_item))
        with self.transaction() as conn:
            own: dict[str, set[tuple[str, str, str, str | None]]] = {}
            others: dict[str, list[tuple[str, str]]] = {}
            for item_id, check, severity, message, details, origin in conn.execute(
                "SELECT item_id, check_id, severity, message, details, origin FROM flags"
                " WHERE item_id IN (SELECT value FROM json_each(?))",
                [ids],
            ):
                if origin is None:
                    own.setdefault(item_id, set()).add((check, severity, message, details))
                else:
                    others.setdefault(item_id, []).append((check, severity))
            rows: list[tuple[str, str, str, str, str]] = []
            changed: list[str] = []
            summaries: list[tuple[int, str, str, int, str]] = []
            for item_id, flags in flags_by_item.items():
                new = [(f.check, f.severity.value, f.message, _dumps(f.details)) for f in flags]
                if own.get(item_id, set()) != set(new) or len(new) != len(set(new)):
                    changed.append(item_id)
                    rows += [(item_id, *flag) for flag in new]
                checks = {f.check for f in flags}  # an own flag replaces another of its check
                kept = [(c, Severity(s)) for c, s in others.get(item_id, ()) if c not in checks]
                severity, summary = _flag_summary([(f.check, f.severity) for f in flags] + kept)
                summaries.append((severity, summary, item_id, severity, summary))
            if changed:
                conn.execute(
                    "DELETE FROM flags WHERE origin IS NULL"
                    " AND item_id IN (SELECT value FROM json_each(?))",
                    [json.dumps(changed)],
                )
                conn.executemany(
                    "INSERT OR REPLACE INTO flags (item_id, check_id, severity, message, details)"
                    " VALUES (?,?,?,?,?)",
                    rows,
                )
            conn.executemany(
                "UPDATE items SET flag_severity = ?, flag_checks = ? WHERE id = ?"
                " AND (flag_severity IS NOT ? OR flag_checks IS NOT ?)",
                summaries,
            )
            if conn.execute("SELECT 1 FROM pending_checks LIMIT 1").fetchone() is not None:
                conn.execute(
                    "DELETE FROM pending_checks WHERE item_id IN (SELECT value FROM json_each(?))",
                    [ids],
                )

    # -- checks still due ----------------------------------------------------------------------

    def mark_checks_pending(self, item_ids: Iterable[str]) -> None:
        """Record that these items await their checks (inside the caller's transaction, so the
        record and the items or evidence that made them due are committed together)."""
        with self.transaction() as conn:
            conn.executemany(
                "INSERT OR IGNORE INTO pending_checks (item_id) VALUES (?)",
                [(item_id,) for item_id in item_ids],
            )

    def pending_check_ids(self) -> list[str]:
        """Items whose checks an interrupted import (or desk job) did not finish."""
        # CROSS JOIN: the few pending rows first, then sorted. With a plain JOIN SQLite walked
        # every item in queue order to probe pending_checks (0.14 s at 200,000 items, at each
        # desk start), though the table is nearly always empty.
        rows = self.db.execute(
            "SELECT p.item_id FROM pending_checks p CROSS JOIN items i ON i.id = p.item_id"
            " ORDER BY i.seq"
        ).fetchall()
        return [row[0] for row in rows]

    @staticmethod
    def _write_flags(conn: sqlite3.Connection, item_id: str, flags: Sequence[Flag]) -> None:
        """Replace an item's own flags; flags with an origin (the audit's) stay."""
        conn.execute("DELETE FROM flags WHERE item_id = ? AND origin IS NULL", [item_id])
        conn.executemany(
            "INSERT OR REPLACE INTO flags (item_id, check_id, severity, message, details)"
            " VALUES (?,?,?,?,?)",
            [(item_id, f.check, f.severity.value, f.message, _dumps(f.details)) for f in flags],
        )
        kept = conn.execute(
            "SELECT check_id, severity FROM flags WHERE item_id = ? AND origin IS NOT NULL",
            [item_id],
        ).fetchall()
        Store._write_flag_summary(
            conn, item_id, [(f.check, f.severity) for f in flags] + _summary_pairs(kept)
        )

    @staticmethod
    def _write_flag_summary(
        conn: sqlite3.Connection, item_id: str, flags: Sequence[tuple[str, Severity]]
    ) -> None:
        """The queue's copy of an item's flags: its worst severity and its check ids."""
        conn.execute(
            "UPDATE items SET flag_severity = ?, flag_checks = ? WHERE id = ?",
            [*_flag_summary(flags), item_id],
        )

    def replace_origin_flags(
        self, origin: str, flags_by_item: Mapping[str, Sequence[Flag]]
    ) -> set[str]:
        """Replace every flag of ``origin`` (the audit's) with ``flags_by_item``, in one
        transaction; return the ids of the items whose flags changed (had some, or get some)."""
        with self.transaction() as conn:
            before = {
                row[0]
                for row in conn.execute("SELECT item_id FROM flags WHERE origin = ?", [origin])
            }
            conn.execute("DELETE FROM flags WHERE origin = ?", [origin])
            present = self.present_item_ids(list(flags_by_item))
            conn.executemany(
                "INSERT OR REPLACE INTO flags (item_id, check_id, severity, message, details,"
                " origin) VALUES (?,?,?,?,?,?)",
                [
                    (item_id, f.check, f.severity.value, f.message, _dumps(f.details), origin)
                    for item_id, flags in flags_by_item.items()
                    if item_id in present
                    for f in flags
                ],
            )
            changed = before | present
            for item_id in changed:
                rows = conn.execute(
                    "SELECT check_id, severity FROM flags WHERE item_id = ? ORDER BY check_id",
                    [item_id],
                ).fetchall()
                self._write_flag_summary(conn, item_id, _summary_pairs(rows))
        return changed

    def flags(self, item_id: str) -> list[Flag]:
        rows = self.db.execute(
            "SELECT check_id, severity, message, details FROM flags WHERE item_id = ?", [item_id]
        ).fetchall()
        flags = [Flag(r[0], Severity(r[1]), r[2], _loads(r[3]) or {}) for r in rows]
        return sorted(flags, key=lambda f: (SEVERITY_RANK[f.severity], f.check))

    def all_flags(self, *, details: bool = True) -> list[tuple[str, Flag]]:
        """Every flag of the project in queue order, as (item id, flag). ``details=False``
        leaves the flags' details empty, unread (a listing of messages needs none of them)."""
        column = "f.details" if details else "NULL"
        rows = self.db.execute(
            f"SELECT f.item_id, f.check_id, f.severity, f.message, {column} FROM flags f"
            " JOIN items i ON i.id = f.item_id ORDER BY i.seq, f.check_id"
        ).fetchall()
        severity = _SEVERITIES
        return [(r[0], Flag(r[1], severity[r[2]], r[3], _loads(r[4]) or {})) for r in rows]

    def flag_counts(self) -> dict[str, int]:
        rows = self.db.execute(
            "SELECT check_id, count(*) FROM flags GROUP BY check_id ORDER BY check_id"
        ).fetchall()
        return {r[0]: int(r[1]) for r in rows}

    def blocking_flags(self, item_id: str) -> list[Flag]:
        return [f for f in self.flags(item_id) if f.severity is Severity.BLOCKING]


_SEVERITIES = {s.value: s for s in Severity}


def _flag_summary(flags: Sequence[tuple[str, Severity]]) -> tuple[int, str]:
    """The items columns the queue filters on: the most severe flag's rank, the check ids."""
    severity = min((SEVERITY_RANK[s] for _, s in flags), default=NO_FLAG)
    return severity, "," + "".join(f"{c}," for c, _ in flags)


def _summary_pairs(rows: Iterable[tuple[str, str]]) -> list[tuple[str, Severity]]:
    return [(check, Severity(severity)) for check, severity in rows]


def _foreign_database(conn: sqlite3.Connection) -> bool:
    """True for a database with tables but no BAGEL Studio schema (no migration ever ran). A
    file whose first migration never ended (a process killed right after it recorded that it
    would migrate: ``migrate.apply_migrations``) holds only our ``schema_migrations`` table:
    it is ours, and is migrated."""
    if int(conn.execute("PRAGMA user_version").fetchone()[0]) != 0:
        return False
    ours = conn.execute(
        "SELECT 1 FROM pragma_table_info('schema_migrations') WHERE name = 'applied_at'"
    ).fetchone()
    if ours is not None:
        return False
    return conn.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchone() is not None


def _looks_like_sqlite(path: Path) -> bool:
    with open(path, "rb") as handle:
        header = handle.read(16)
    return header in (b"SQLite format 3\x00", b"")
