"""Reading and writing a project file.

Every write that belongs together (a decision and its history entry, an edit, its flags and its
history entry) runs in one ``BEGIN IMMEDIATE`` transaction and is committed before the call returns,
so a curator's work survives the process being killed at any moment. The connection runs in
autocommit mode and transactions are explicit; raw SQL is used inside them because sqlite-utils'
helpers commit on their own.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from json.encoder import encode_basestring
from pathlib import Path
from typing import Any

import sqlite_utils

from bagel_studio.core.model import (
    DECISION_STATUS,
    SEVERITY_RANK,
    Decision,
    Flag,
    HistoryEntry,
    Item,
    ItemContent,
    Review,
    Severity,
    Status,
    json_strings,
)
from bagel_studio.core.store.evidence import EvidenceMixin
from bagel_studio.core.store.lock import WriterLock
from bagel_studio.core.store.schema import apply_migrations

NO_FLAG = 9  # flag_severity of an item without flags (sorts after every severity)

Clock = Callable[[], str]


def utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


class StoreError(RuntimeError):
    """A request the store refuses, with a message meant for the curator."""


class BlockedError(StoreError):
    """Accepting an item that still has a blocking flag."""


@dataclass(frozen=True)
class NewItem:
    """An item on its way in from an importer."""

    id: str
    domain: str
    content: ItemContent
    source: dict[str, Any] = field(default_factory=dict)
    supporting_evidence: tuple[str, ...] = ()
    rationale: str | None = None
    globi_ref: str | None = None
    recording_id: str | None = None
    text_key: str | None = None
    source_file: str | None = None
    source_line: int | None = None


@dataclass(frozen=True)
class QueueFilter:
    """What the queue shows: every field narrows, None means any."""

    domain: str | None = None
    dimension: str | None = None
    level: str | None = None
    status: str | None = None
    check: str | None = None  # a check id, or "any" for items with any flag
    curator: str | None = None  # items this curator has reviewed
    unreviewed_by: str | None = None  # items this curator has not reviewed yet
    search: str | None = None
    ambiguity_first: bool = False

    def where(self) -> tuple[str, list[Any]]:
        clauses: list[str] = []
        params: list[Any] = []
        for column in ("domain", "dimension", "level", "status"):
            value = getattr(self, column)
            if value:
                clauses.append(f"items.{column} = ?")
                params.append(value)
        if self.check == "any":
            clauses.append(f"items.flag_severity < {NO_FLAG}")
        elif self.check:
            clauses.append("items.flag_checks LIKE ?")
            params.append(f"%,{self.check},%")
        if self.curator:
            clauses.append(
                "EXISTS (SELECT 1 FROM reviews r WHERE r.item_id = items.id AND r.curator = ?)"
            )
            params.append(self.curator)
        if self.unreviewed_by:
            clauses.append(
                "NOT EXISTS (SELECT 1 FROM reviews r WHERE r.item_id = items.id "
                "AND r.curator = ? AND r.decision != 'skip')"
            )
            params.append(self.unreviewed_by)
        if self.search:
            pattern = f"%{self.search}%"
            clauses.append("(items.question LIKE ? OR items.options LIKE ? OR items.id LIKE ?)")
            params.extend([pattern, pattern, pattern])
        return (" AND ".join(clauses) or "1"), params

    def order(self) -> str:
        if self.ambiguity_first:
            return (
                "ORDER BY (items.domain != 'GloBI'), items.flag_severity, "
                "length(items.flag_checks) DESC, items.seq"
            )
        return "ORDER BY items.seq"


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def _loads(value: str | None) -> Any:
    return json.loads(value) if value else None


class Store(EvidenceMixin):
    """A project file, open for reading and (unless ``read_only``) writing."""

    def __init__(
        self,
        path: Path,
        db: sqlite_utils.Database,
        lock: WriterLock | None,
        clock: Clock = utc_now,
    ) -> None:
        self.path = path
        self.db = db
        self._lock = lock
        self._clock = clock

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
    ) -> Store:
        """Open (and, if allowed, create) a project; raise ProjectLockedError if taken."""
        path = Path(path)
        if read_only:
            if not path.exists():
                raise StoreError(f"{path}: no such project")
            conn = sqlite3.connect(
                f"file:{path}?mode=ro", uri=True, isolation_level=None, check_same_thread=False
            )
            store = cls(path, sqlite_utils.Database(conn), None, clock)
            store._check_readable()
            return store
        if not path.exists() and not create:
            raise StoreError(f"{path}: no such project")
        if path.exists() and not _looks_like_sqlite(path):
            raise StoreError(f"{path}: not a BAGEL Studio project (not an SQLite file)")
        path.parent.mkdir(parents=True, exist_ok=True)
        lock = WriterLock(path, owner)
        try:
            conn = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = FULL")
            conn.execute("PRAGMA foreign_keys = ON")
            conn.execute("PRAGMA busy_timeout = 5000")
            db = sqlite_utils.Database(conn)
            apply_migrations(db)
        except BaseException:
            lock.release()
            raise
        return cls(path, db, lock, clock)

    @classmethod
    def memory(cls, clock: Clock = utc_now) -> Store:
        """A throw-away project in memory (tests)."""
        conn = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
        db = sqlite_utils.Database(conn)
        apply_migrations(db)
        return cls(Path(":memory:"), db, None, clock)

    def _check_readable(self) -> None:
        try:
            self.db.execute("SELECT count(*) FROM items").fetchone()
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{self.path}: not a BAGEL Studio project ({exc})") from exc

    @property
    def read_only(self) -> bool:
        return self._lock is None and str(self.path) != ":memory:"

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

    # -- items ---------------------------------------------------------------------------------

    def add_items(
        self,
        items: Iterable[NewItem],
        import_id: int | None,
        flags: Mapping[str, Sequence[Flag]] | None = None,
    ) -> tuple[int, int]:
        """Insert items not yet in the project; return (added, already present).

        ``flags`` (by item id) are written with the items they belong to, in the same
        transaction, so an importer's blocking flags exist the moment its items do; items
        already present keep theirs. Rows are built with precomputed JSON (see
        ``ItemContent.canonical_json``) and written by one ``executemany``: an import of the
        whole benchmark passes through here.
        """
        flags = flags or {}
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
                rows.append(_new_item_row(item, next_seq, import_id, item_flags))
                flag_rows += [
                    (item.id, f.check, f.severity.value, f.message, _dumps(f.details))
                    for f in item_flags
                ]
            conn.executemany(
                "INSERT OR IGNORE INTO items (id, seq, domain, dimension, level, question, options,"
                " answer_index, original, status, flag_severity, flag_checks, source,"
                " supporting_evidence, rationale, globi_ref, recording_id, text_key, import_id,"
                " source_file, source_line, original_hash)"
                " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                rows,
            )
            conn.executemany(
                "INSERT OR REPLACE INTO flags (item_id, check_id, severity, message, details)"
                " VALUES (?,?,?,?,?)",
                flag_rows,
            )
        return len(rows), given - len(rows)

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

    def get_items(self, item_ids: Iterable[str] | None = None) -> list[Item]:
        """Many items in one query, in queue order (``seq``): those of ``item_ids`` that exist,
        or all items when None. For bulk work such as ``check_all``; ``get_item`` raises for a
        missing id, this leaves it out."""
        sql = f"SELECT {_ITEM_COLUMNS} FROM items"
        params: list[Any] = []
        if item_ids is not None:
            sql += " WHERE id IN (SELECT value FROM json_each(?))"
            params.append(json.dumps(list(dict.fromkeys(item_ids))))
        cursor = self.db.execute(sql + " ORDER BY seq", params)
        return [_item_from_values(row) for row in cursor.fetchall()]

    def item_count(self, queue: QueueFilter | None = None) -> int:
        where, params = (queue or QueueFilter()).where()
        return int(
            self.db.execute(f"SELECT count(*) FROM items WHERE {where}", params).fetchone()[0]
        )

    def item_ids(self, queue: QueueFilter | None = None) -> list[str]:
        queue = queue or QueueFilter()
        where, params = queue.where()
        sql = f"SELECT id FROM items WHERE {where} {queue.order()}"
        return [row[0] for row in self.db.execute(sql, params)]

    def queue_rows(self, ids: Sequence[str]) -> dict[str, dict[str, Any]]:
        """The columns the queue table shows, for the given items."""
        result: dict[str, dict[str, Any]] = {}
        for start in range(0, len(ids), 500):
            chunk = list(ids[start : start + 500])
            marks = ",".join("?" * len(chunk))
            cursor = self.db.execute(
                "SELECT id, domain, dimension, level, status, question, flag_severity, flag_checks"
                f" FROM items WHERE id IN ({marks})",
                chunk,
            )
            columns = [c[0] for c in cursor.description]
            for row in cursor:
                record = dict(zip(columns, row, strict=True))
                record["flag_checks"] = [c for c in record["flag_checks"].split(",") if c]
                result[record["id"]] = record
        return result

    def get_item(self, item_id: str) -> Item:
        row = self.db.execute("SELECT * FROM items WHERE id = ?", [item_id]).fetchone()
        if row is None:
            raise StoreError(f"no item {item_id!r} in this project")
        columns = [c[0] for c in self.db.execute("SELECT * FROM items LIMIT 0").description]
        return _item_from_row(dict(zip(columns, row, strict=True)))

    def iter_items(self, queue: QueueFilter | None = None) -> Iterator[Item]:
        queue = queue or QueueFilter()
        where, params = queue.where()
        cursor = self.db.execute(f"SELECT * FROM items WHERE {where} {queue.order()}", params)
        columns = [c[0] for c in cursor.description]
        for row in cursor.fetchall():
            yield _item_from_row(dict(zip(columns, row, strict=True)))

    def distinct_values(self, column: str) -> list[str]:
        if column not in {"domain", "dimension", "level", "status"}:
            raise ValueError(column)
        sql = f"SELECT DISTINCT {column} FROM items WHERE {column} IS NOT NULL ORDER BY 1"
        return [row[0] for row in self.db.execute(sql)]

    # -- flags ---------------------------------------------------------------------------------

    def replace_flags(self, item_id: str, flags: Sequence[Flag]) -> None:
        with self.transaction() as conn:
            self._write_flags(conn, item_id, flags)

    def replace_all_flags(self, flags_by_item: Mapping[str, Sequence[Flag]]) -> None:
        with self.transaction() as conn:
            for item_id, flags in flags_by_item.items():
                self._write_flags(conn, item_id, flags)

    @staticmethod
    def _write_flags(conn: sqlite3.Connection, item_id: str, flags: Sequence[Flag]) -> None:
        conn.execute("DELETE FROM flags WHERE item_id = ?", [item_id])
        conn.executemany(
            "INSERT OR REPLACE INTO flags (item_id, check_id, severity, message, details)"
            " VALUES (?,?,?,?,?)",
            [(item_id, f.check, f.severity.value, f.message, _dumps(f.details)) for f in flags],
        )
        severity = min((SEVERITY_RANK[f.severity] for f in flags), default=NO_FLAG)
        checks = "," + "".join(f"{f.check}," for f in flags)
        conn.execute(
            "UPDATE items SET flag_severity = ?, flag_checks = ? WHERE id = ?",
            [severity, checks, item_id],
        )

    def flags(self, item_id: str) -> list[Flag]:
        rows = self.db.execute(
            "SELECT check_id, severity, message, details FROM flags WHERE item_id = ?", [item_id]
        ).fetchall()
        flags = [Flag(r[0], Severity(r[1]), r[2], _loads(r[3]) or {}) for r in rows]
        return sorted(flags, key=lambda f: (SEVERITY_RANK[f.severity], f.check))

    def all_flags(self) -> list[tuple[str, Flag]]:
        rows = self.db.execute(
            "SELECT f.item_id, f.check_id, f.severity, f.message, f.details FROM flags f"
            " JOIN items i ON i.id = f.item_id ORDER BY i.seq, f.check_id"
        ).fetchall()
        return [(r[0], Flag(r[1], Severity(r[2]), r[3], _loads(r[4]) or {})) for r in rows]

    def flag_counts(self) -> dict[str, int]:
        rows = self.db.execute(
            "SELECT check_id, count(*) FROM flags GROUP BY check_id ORDER BY check_id"
        ).fetchall()
        return {r[0]: int(r[1]) for r in rows}

    def blocking_flags(self, item_id: str) -> list[Flag]:
        return [f for f in self.flags(item_id) if f.severity is Severity.BLOCKING]

    # -- decisions, edits and their history ----------------------------------------------------

    def decide(
        self,
        item_id: str,
        curator: str,
        decision: Decision,
        *,
        reason: str | None = None,
        note: str | None = None,
        blind_answer: int | None = None,
    ) -> Review:
        """Record ``curator``'s decision on an item, durably, with its history entry.

        Accepting an item whose content was edited records it as accepted with revision.
        Accepting an item with a blocking flag is refused.
        """
        curator = _require_curator(curator)
        item = self.get_item(item_id)
        if decision in (Decision.ACCEPT, Decision.REVISE):
            blocking = self.blocking_flags(item_id)
            if blocking:
                raise BlockedError(
                    f"{item_id} cannot be accepted until fixed: "
                    + "; ".join(f.message for f in blocking)
                )
            decision = Decision.REVISE if item.is_revised else Decision.ACCEPT
        if decision is Decision.REJECT and not reason:
            raise StoreError("a rejection needs a reason")
        review = Review(
            item_id=item_id,
            curator=curator,
            decision=decision,
            reason=reason,
            note=note or None,
            content=item.content,
            blind_answer=blind_answer,
            decided_at=self.clock(),
            origin="local",
        )
        with self.transaction() as conn:
            before = self._review_json(conn, item_id, curator)
            self._write_review(conn, review)
            self._append_history(conn, item_id, curator, "decide", before, _review_to_json(review))
            self._refresh_status(conn, item_id)
            if blind_answer is not None or (before or {}).get("blind_answer") is not None:
                self._recheck(item_id)  # a blind answer can raise or clear a flag
        return review

    def edit(self, item_id: str, curator: str, content: ItemContent) -> bool:
        """Change an item's current content; return False when nothing changed."""
        curator = _require_curator(curator)
        item = self.get_item(item_id)
        if content == item.content:
            return False
        with self.transaction() as conn:
            self._write_content(conn, item_id, content)
            self._append_history(
                conn, item_id, curator, "edit", item.content.to_json(), content.to_json()
            )
            self._recheck(item_id)
        return True

    def _recheck(self, item_id: str) -> None:
        """Re-run the checks of an item whose content changed (inside the caller's transaction)."""
        from bagel_studio.core.checks import recheck_item  # lazy: checks import the store

        recheck_item(self, item_id)

    def undo(self, curator: str) -> HistoryEntry | None:
        """Take back ``curator``'s newest decision or edit not yet undone; None if none is left."""
        curator = _require_curator(curator)
        row = self.db.execute(
            "SELECT id FROM history h WHERE curator = ? AND action IN ('decide', 'edit')"
            " AND origin = 'local'"
            " AND NOT EXISTS (SELECT 1 FROM history u WHERE u.undoes = h.id)"
            " ORDER BY id DESC LIMIT 1",
            [curator],
        ).fetchone()
        if row is None:
            return None
        entry = self.history_entry(int(row[0]))
        with self.transaction() as conn:
            if entry.action == "decide":
                current = self._review_json(conn, entry.item_id, curator)
                if entry.before is None:
                    conn.execute(
                        "DELETE FROM reviews WHERE item_id = ? AND curator = ?",
                        [entry.item_id, curator],
                    )
                else:
                    self._write_review(conn, _review_from_json(entry.before))
                self._refresh_status(conn, entry.item_id)
                if any((r or {}).get("blind_answer") is not None for r in (current, entry.before)):
                    self._recheck(entry.item_id)
            else:
                current = self.get_item(entry.item_id).content.to_json()
                assert entry.before is not None
                self._write_content(conn, entry.item_id, ItemContent.from_json(entry.before))
                self._recheck(entry.item_id)
            self._append_history(
                conn, entry.item_id, curator, "undo", current, entry.before, undoes=entry.id
            )
        return entry

    def adjudicate(
        self,
        item_id: str,
        adjudicator: str,
        decision: Decision,
        content: ItemContent | None = None,
        *,
        reason: str | None = None,
        note: str | None = None,
    ) -> None:
        """Record the adjudicator's final decision, which overrides the curators' ones."""
        adjudicator = _require_curator(adjudicator)
        item = self.get_item(item_id)
        content = content or item.content
        if decision in (Decision.ACCEPT, Decision.REVISE):
            decision = Decision.REVISE if content != item.original else Decision.ACCEPT
        with self.transaction() as conn:
            before_row = conn.execute(
                "SELECT adjudicator, decision, reason, note, content FROM adjudications"
                " WHERE item_id = ?",
                [item_id],
            ).fetchone()
            after = {
                "adjudicator": adjudicator,
                "decision": decision.value,
                "reason": reason,
                "note": note,
                "content": content.to_json(),
            }
            conn.execute(
                "INSERT OR REPLACE INTO adjudications"
                " (item_id, adjudicator, decision, reason, note, content, decided_at)"
                " VALUES (?,?,?,?,?,?,?)",
                [
                    item_id,
                    adjudicator,
                    decision.value,
                    reason,
                    note,
                    _dumps(content.to_json()),
                    self.clock(),
                ],
            )
            before = None
            if before_row:
                before = dict(
                    zip(("adjudicator", "decision", "reason", "note"), before_row[:4], strict=True)
                )
                before["content"] = _loads(before_row[4])
            self._append_history(conn, item_id, adjudicator, "adjudicate", before, after)
            self._refresh_status(conn, item_id)

    def adjudication(self, item_id: str) -> dict[str, Any] | None:
        row = self.db.execute(
            "SELECT adjudicator, decision, reason, note, content, decided_at FROM adjudications"
            " WHERE item_id = ?",
            [item_id],
        ).fetchone()
        if row is None:
            return None
        keys = ("adjudicator", "decision", "reason", "note", "content", "decided_at")
        data = dict(zip(keys, row, strict=True))
        data["content"] = ItemContent.from_json(_loads(data["content"]))
        return data

    def import_review(self, review: Review, source: str) -> bool:
        """Bring in another curator's decision (merge); False when it was already here."""
        with self.transaction() as conn:
            existing = self._review_json(conn, review.item_id, review.curator)
            incoming = _review_to_json(review)
            if existing is not None and _same_review(existing, incoming):
                return False
            if existing is not None and existing["decided_at"] >= review.decided_at:
                return False  # ours is newer: nothing is overwritten
            self._write_review(conn, review)
            self._append_history(
                conn, review.item_id, review.curator, "merge", existing, incoming, origin=source
            )
            self._refresh_status(conn, review.item_id)
        return True

    def reviews(self, item_id: str) -> list[Review]:
        rows = self.db.execute(
            "SELECT item_id, curator, decision, reason, note, content, blind_answer, decided_at,"
            " origin FROM reviews WHERE item_id = ? ORDER BY curator",
            [item_id],
        ).fetchall()
        return [_review_from_row(r) for r in rows]

    def all_reviews(self) -> list[Review]:
        rows = self.db.execute(
            "SELECT r.item_id, r.curator, r.decision, r.reason, r.note, r.content, r.blind_answer,"
            " r.decided_at, r.origin FROM reviews r JOIN items i ON i.id = r.item_id"
            " ORDER BY i.seq, r.curator"
        ).fetchall()
        return [_review_from_row(r) for r in rows]

    def curators(self) -> list[str]:
        return [r[0] for r in self.db.execute("SELECT DISTINCT curator FROM reviews ORDER BY 1")]

    def history(self, item_id: str) -> list[HistoryEntry]:
        rows = self.db.execute(
            "SELECT h.id, h.item_id, h.curator, h.at, h.action, h.before, h.after,"
            " EXISTS (SELECT 1 FROM history u WHERE u.undoes = h.id)"
            " FROM history h WHERE item_id = ? ORDER BY id",
            [item_id],
        ).fetchall()
        return [_history_from_row(r) for r in rows]

    def history_entry(self, entry_id: int) -> HistoryEntry:
        row = self.db.execute(
            "SELECT h.id, h.item_id, h.curator, h.at, h.action, h.before, h.after,"
            " EXISTS (SELECT 1 FROM history u WHERE u.undoes = h.id)"
            " FROM history h WHERE id = ?",
            [entry_id],
        ).fetchone()
        if row is None:
            raise StoreError(f"no history entry {entry_id}")
        return _history_from_row(row)

    def final_content(self, item_id: str) -> ItemContent | None:
        """The content to release for an accepted or revised item, else None."""
        adjudication = self.adjudication(item_id)
        if adjudication is not None:
            if adjudication["decision"] in (Decision.ACCEPT, Decision.REVISE):
                content: ItemContent = adjudication["content"]
                return content
            return None
        verdicts = [r for r in self.reviews(item_id) if r.decision is not Decision.SKIP]
        if verdicts and all(r.decision in (Decision.ACCEPT, Decision.REVISE) for r in verdicts):
            contents = {r.content for r in verdicts}
            if len(contents) == 1:
                return contents.pop()
        return None

    def progress(self, curator: str | None = None) -> tuple[int, int]:
        """(reviewed, total): reviewed by ``curator``, or by anyone when None."""
        total = self.item_count()
        if curator:
            reviewed = self.db.execute(
                "SELECT count(*) FROM reviews WHERE curator = ? AND decision != 'skip'", [curator]
            ).fetchone()[0]
        else:
            reviewed = self.db.execute(
                "SELECT count(*) FROM items WHERE status NOT IN ('unreviewed', 'skipped')"
            ).fetchone()[0]
        return int(reviewed), total

    # -- internals -----------------------------------------------------------------------------

    @staticmethod
    def _review_json(conn: sqlite3.Connection, item_id: str, curator: str) -> dict[str, Any] | None:
        row = conn.execute(
            "SELECT item_id, curator, decision, reason, note, content, blind_answer, decided_at,"
            " origin FROM reviews WHERE item_id = ? AND curator = ?",
            [item_id, curator],
        ).fetchone()
        return _review_to_json(_review_from_row(row)) if row else None

    @staticmethod
    def _write_review(conn: sqlite3.Connection, review: Review) -> None:
        conn.execute(
            "INSERT OR REPLACE INTO reviews (item_id, curator, decision, reason, note, content,"
            " blind_answer, decided_at, origin) VALUES (?,?,?,?,?,?,?,?,?)",
            [
                review.item_id,
                review.curator,
                review.decision.value,
                review.reason,
                review.note,
                _dumps(review.content.to_json()),
                review.blind_answer,
                review.decided_at,
                review.origin,
            ],
        )

    @staticmethod
    def _write_content(conn: sqlite3.Connection, item_id: str, content: ItemContent) -> None:
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

    def _append_history(
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
        conn.execute(
            "INSERT INTO history (item_id, curator, at, action, before, after, undoes, origin)"
            " VALUES (?,?,?,?,?,?,?,?)",
            [
                item_id,
                curator,
                self.clock(),
                action,
                None if before is None else _dumps(before),
                None if after is None else _dumps(after),
                undoes,
                origin,
            ],
        )

    @staticmethod
    def _refresh_status(conn: sqlite3.Connection, item_id: str) -> None:
        adjudicated = conn.execute(
            "SELECT decision FROM adjudications WHERE item_id = ?", [item_id]
        ).fetchone()
        if adjudicated:
            status = DECISION_STATUS[Decision(adjudicated[0])]
        else:
            rows = conn.execute(
                "SELECT decision, content FROM reviews WHERE item_id = ?", [item_id]
            ).fetchall()
            status = derive_status([(Decision(r[0]), r[1]) for r in rows])
        conn.execute("UPDATE items SET status = ? WHERE id = ?", [status.value, item_id])


def derive_status(reviews: Sequence[tuple[Decision, str]]) -> Status:
    """The status of an item from its curators' (decision, content) pairs.

    Skips are not verdicts. Curators agree when they reach the same decision on the same content;
    otherwise the item is disputed and waits for an adjudicator.
    """
    verdicts = [(d, c) for d, c in reviews if d is not Decision.SKIP]
    if not verdicts:
        return Status.SKIPPED if reviews else Status.UNREVIEWED
    decisions = {d for d, _ in verdicts}
    if len(decisions) == 1:
        decision = decisions.pop()
        keeps = decision in (Decision.ACCEPT, Decision.REVISE)
        if keeps and len({c for _, c in verdicts}) > 1:
            return Status.DISPUTED
        return DECISION_STATUS[decision]
    return Status.DISPUTED


def _unique_by_id(items: Iterable[NewItem]) -> tuple[dict[str, NewItem], int]:
    """Items by id (the first of repeated ids kept), and how many items were given."""
    unique: dict[str, NewItem] = {}
    given = 0
    for item in items:
        given += 1
        unique.setdefault(item.id, item)
    return unique, given


_CANONICAL = json.JSONEncoder(ensure_ascii=False, sort_keys=True)


def _canonical(value: dict[str, Any]) -> str:
    """``_dumps(value)``, cheaper for the usual flat dict of strings (no encoder per call)."""
    if not value:
        return "{}"
    try:
        pairs = [
            f"{encode_basestring(k)}: {encode_basestring(v)}" for k, v in sorted(value.items())
        ]
    except TypeError:  # a key or value that is not a string
        return _CANONICAL.encode(value)
    return "{" + ", ".join(pairs) + "}"


def _new_item_row(
    item: NewItem, seq: int, import_id: int | None, flags: Sequence[Flag]
) -> tuple[Any, ...]:
    """The ``items`` row of a new item (columns in ``add_items``' order)."""
    content = item.content
    options = content.options_json()
    original = content.canonical_json(options)
    severity, checks = NO_FLAG, ","
    if flags:
        severity = min(SEVERITY_RANK[f.severity] for f in flags)
        checks += "".join(f"{f.check}," for f in flags)
    return (
        item.id,
        seq,
        item.domain,
        content.dimension,
        content.level,
        content.question,
        options,
        content.answer_index,
        original,
        Status.UNREVIEWED.value,
        severity,
        checks,
        _canonical(item.source),
        _json_list(item.supporting_evidence),
        item.rationale,
        item.globi_ref,
        item.recording_id,
        item.text_key,
        import_id,
        item.source_file,
        item.source_line,
        hashlib.sha256(original.encode("utf-8")).hexdigest()[:16],
    )


def _json_list(values: Sequence[Any]) -> str:
    if not values:
        return "[]"
    try:
        return json_strings(tuple(values))
    except TypeError:  # not all strings
        return _dumps(list(values))


def _require_curator(curator: str) -> str:
    name = (curator or "").strip()
    if not name:
        raise StoreError("a curator name is needed to record decisions")
    return name


def _looks_like_sqlite(path: Path) -> bool:
    with open(path, "rb") as handle:
        header = handle.read(16)
    return header in (b"SQLite format 3\x00", b"")


def _item_from_row(row: dict[str, Any]) -> Item:
    original = ItemContent.from_json(json.loads(row["original"]))
    content = ItemContent(
        question=row["question"],
        options=tuple(json.loads(row["options"])),
        answer_index=row["answer_index"],
        dimension=row["dimension"],
        level=row["level"],
    )
    return Item(
        id=row["id"],
        domain=row["domain"],
        content=content,
        original=original,
        status=Status(row["status"]),
        source=_loads(row["source"]) or {},
        supporting_evidence=tuple(_loads(row["supporting_evidence"]) or ()),
        rationale=row["rationale"],
        globi_ref=row["globi_ref"],
        recording_id=row["recording_id"],
        text_key=row["text_key"],
        source_file=row["source_file"],
        source_line=row["source_line"],
    )


_ITEM_FIELDS = (
    "id",
    "domain",
    "question",
    "options",
    "answer_index",
    "dimension",
    "level",
    "original",
    "status",
    "source",
    "supporting_evidence",
    "rationale",
    "globi_ref",
    "recording_id",
    "text_key",
    "source_file",
    "source_line",
)
_ITEM_COLUMNS = ", ".join(_ITEM_FIELDS)


def _item_from_values(row: Sequence[Any]) -> Item:
    """An item from a row of ``_ITEM_COLUMNS``: what ``_item_from_row`` builds, without a dict
    per row and without parsing the common empty ``{}`` / ``[]`` (bulk reads of every item)."""
    item_id, domain, question, options, answer_index, dimension, level, original = row[:8]
    status, source, evidence, *links = row[8:]
    content = ItemContent(question, tuple(json.loads(options)), answer_index, dimension, level)
    return Item(
        item_id,
        domain,
        content,
        ItemContent.from_json(json.loads(original)),
        Status(status),
        {} if source in (None, "", "{}") else json.loads(source) or {},
        () if evidence in (None, "", "[]") else tuple(json.loads(evidence) or ()),
        *links,  # rationale, globi_ref, recording_id, text_key, source_file, source_line
    )


def _review_to_json(review: Review) -> dict[str, Any]:
    return {
        "item_id": review.item_id,
        "curator": review.curator,
        "decision": review.decision.value,
        "reason": review.reason,
        "note": review.note,
        "content": review.content.to_json(),
        "blind_answer": review.blind_answer,
        "decided_at": review.decided_at,
        "origin": review.origin,
    }


def _review_from_json(data: dict[str, Any]) -> Review:
    return Review(
        item_id=data["item_id"],
        curator=data["curator"],
        decision=Decision(data["decision"]),
        reason=data.get("reason"),
        note=data.get("note"),
        content=ItemContent.from_json(data["content"]),
        blind_answer=data.get("blind_answer"),
        decided_at=data["decided_at"],
        origin=data.get("origin", "local"),
    )


def _review_from_row(row: Sequence[Any]) -> Review:
    return Review(
        item_id=row[0],
        curator=row[1],
        decision=Decision(row[2]),
        reason=row[3],
        note=row[4],
        content=ItemContent.from_json(json.loads(row[5])),
        blind_answer=row[6],
        decided_at=row[7],
        origin=row[8],
    )


def _same_review(a: dict[str, Any], b: dict[str, Any]) -> bool:
    keys = ("decision", "reason", "note", "content", "blind_answer", "decided_at")
    return all(a.get(k) == b.get(k) for k in keys)


def _history_from_row(row: Sequence[Any]) -> HistoryEntry:
    return HistoryEntry(
        id=int(row[0]),
        item_id=row[1],
        curator=row[2],
        at=row[3],
        action=row[4],
        before=_loads(row[5]),
        after=_loads(row[6]),
        undone=bool(row[7]),
    )
