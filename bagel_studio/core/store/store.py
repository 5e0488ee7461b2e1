"""Reading and writing a project file.

Every write that belongs together (a decision and its history entry, an edit, its flags and its
history entry) runs in one ``BEGIN IMMEDIATE`` transaction and is committed before the call returns,
so a curator's work survives the process being killed at any moment. The connection runs in
autocommit mode and transactions are explicit; raw SQL is used inside them because sqlite-utils'
helpers commit on their own.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

from bagel_studio.core.store.adjudications import Adjudications
from bagel_studio.core.store.database import Database
from bagel_studio.core.store.errors import StoreError
from bagel_studio.core.store.evidence import Evidence
from bagel_studio.core.store.flags import Flags
from bagel_studio.core.store.history import History
from bagel_studio.core.store.imports import Imports
from bagel_studio.core.store.items import Items
from bagel_studio.core.store.llm import Llm
from bagel_studio.core.store.lock import WriterLock
from bagel_studio.core.store.migrate import apply_migrations
from bagel_studio.core.store.paging import Queue
from bagel_studio.core.store.project import Project
from bagel_studio.core.store.reviews import Reviews
from bagel_studio.core.store.schema import migration_names

Clock = Callable[[], str]


def utc_now() -> str:
    """The time now in UTC, ISO 8601 to the millisecond: the store's default clock for decisions
    and history entries."""
    return datetime.now(UTC).isoformat(timespec="milliseconds")


# SQLite's primary result codes for storage that refuses the request (not a bad file):
# SQLITE_NOMEM, SQLITE_READONLY, SQLITE_IOERR, SQLITE_FULL, SQLITE_CANTOPEN
_STORAGE_CODES = frozenset({7, 8, 10, 13, 14})


class Store:
    """A project file, open for reading and (unless ``read_only``) writing.

    The store owns the connection, the writer lock, the transaction and the clock; its parts,
    one per subject, hold the SQL: ``items``, ``queue`` (filters, paging, search), ``flags``,
    ``reviews`` (the curators' decisions), ``adjudications``, ``history`` (edits, undo and the
    append-only history), ``imports`` (import runs, rejects), ``evidence`` (GloBI records,
    texts, recordings, audio measurements), ``llm`` and ``project`` (settings, releases and
    merges recorded)."""

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
        self.items = Items(self)
        self.queue = Queue(self)
        self.flags = Flags(self)
        self.reviews = Reviews(self)
        self.adjudications = Adjudications(self)
        self.history = History(self)
        self.imports = Imports(self)
        self.evidence = Evidence(self)
        self.llm = Llm(self)
        self.project = Project(self)

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


def _foreign_database(conn: sqlite3.Connection) -> bool:
    """True for a database with tables but no BAGEL Studio schema (no migration ever ran). A
    file whose first migration never ended under a release before sqlite-utils' ``Migrations``
    (killed right after it recorded that it would migrate) holds only that release's
    ``schema_migrations`` table: it is ours, and is migrated. Since then, a file's first
    migrations commit with their record, or nothing does."""
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
