"""Reading and writing a project file.

Every write that belongs together (a decision and its history entry, an edit, its flags and its
history entry) runs in one ``BEGIN IMMEDIATE`` transaction and is committed before the call returns,
so a curator's work survives the process being killed at any moment. The connection runs in
autocommit mode and transactions are explicit; raw SQL is used inside them because sqlite-utils'
helpers commit on their own.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import quote

from bagel_studio.core.store.adjudications import Adjudications
from bagel_studio.core.store.database import Database
from bagel_studio.core.store.errors import StoreError
from bagel_studio.core.store.evidence import Evidence
from bagel_studio.core.store.flags import Flags
from bagel_studio.core.store.history import History
from bagel_studio.core.store.imports import Imports
from bagel_studio.core.store.integrity import (
    DAMAGE_CODES,
    STORAGE_CODES,
    CheckBeside,
    DamagedProjectError,
    Findings,
    inspect,
    integrity_problems,
    opening_error,
)
from bagel_studio.core.store.items import Items
from bagel_studio.core.store.llm import Llm
from bagel_studio.core.store.lock import WriterLock
from bagel_studio.core.store.migrate import (
    applied_migrations,
    apply_migrations,
    carried_over,
    refuse_newer,
)
from bagel_studio.core.store.paging import Queue
from bagel_studio.core.store.project import Project
from bagel_studio.core.store.reviews import Reviews
from bagel_studio.core.store.schema import migration_names
from bagel_studio.core.store.team import Team

Clock = Callable[[], str]


def utc_now() -> str:
    """The time now in UTC, ISO 8601 to the millisecond: the store's default clock for decisions
    and history entries."""
    return datetime.now(UTC).isoformat(timespec="milliseconds")


class Store:
    """A project file, open for reading and (unless ``read_only``) writing.

    The store owns the connection, the writer lock, the transaction and the clock; its parts,
    one per subject, hold the SQL: ``items``, ``queue`` (filters, paging, search), ``flags``,
    ``reviews`` (the curators' decisions), ``adjudications``, ``history`` (edits, undo and the
    append-only history), ``imports`` (import runs, rejects), ``evidence`` (GloBI records,
    texts, recordings, audio measurements), ``llm``, ``project`` (settings, releases and
    merges recorded) and ``team`` (review plans, assignments, packages collected)."""

    def __init__(
        self,
        path: Path,
        db: Database,
        lock: WriterLock | None,
        clock: Clock = utc_now,
    ) -> None:
        self.path = path
        self.db = db
        self.findings: Findings | None = None  # what the check on open found (None: not run)
        # False while SQLite's check of the pages is still to run (``open(check_pages=False)``)
        self.pages_checked = True
        # what was found wrong, as one line with how to recover (None: nothing); every write
        # refuses while it is set (``transaction``)
        self.damage: str | None = None
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
        self.team = Team(self)

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
        check_pages: bool = True,
    ) -> Store:
        """Open (and, if allowed, create) a project; raise ProjectLockedError if another
        writer still holds it after ``wait`` seconds.

        The file is checked first (``integrity``): its schema against the one its migrations
        build, and SQLite's quick check of its pages. A file that fails is opened all the same,
        with ``findings`` saying what was found: nothing is written into it (``transaction``
        refuses) and it is not migrated. A file whose schema cannot even be read raises
        DamagedProjectError.

        ``check_pages=False`` leaves the quick check of the pages (most of the check's time on a
        large file) to the caller, who runs ``check_pages`` before its first write (the desk:
        on the writer thread, once the first item is shown; the export command: its full check
        beside the export checks them, ``take_verdict``); a file with a migration pending is
        checked whole all the same, since it is only migrated once its pages are sound."""
        path = Path(path)
        if read_only:
            return cls._open_read_only(path, clock, check_pages)
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
            findings, pages_checked = _checked_and_migrated(db, pages=check_pages)
        except sqlite3.DatabaseError as exc:
            if writer is not None:
                writer.close()
            lock.release()
            error = opening_error(path, exc)
            if error is None:  # storage refused: the command says so as for any write
                raise
            raise error from exc
        except BaseException:
            if writer is not None:
                writer.close()
            lock.release()
            raise
        store = cls(path, db, lock, clock)
        store.found(findings)
        store.pages_checked = pages_checked
        return store

    @classmethod
    def _open_read_only(cls, path: Path, clock: Clock, check_pages: bool) -> Store:
        if not path.exists():
            raise StoreError(f"{path}: no such project")
        if path.is_dir():
            raise StoreError(f"{path}: is a folder, not a project file")
        if not _looks_like_sqlite(path):
            raise StoreError(f"{path}: not a BAGEL Studio project (not an SQLite file)")
        conn = _connect_read_only(path)
        store = cls(path, Database(conn), None, clock)
        try:
            if _foreign_database(conn):
                raise StoreError(
                    f"{path}: not a BAGEL Studio project (an SQLite database of another program)"
                )
            store._check_readable()
            refuse_newer(store.db)
            if not carried_over(store.db):
                store.found(store.inspect(full=False if check_pages else None))
                store.pages_checked = check_pages
        except sqlite3.DatabaseError as exc:
            conn.close()
            error = opening_error(path, exc)
            if error is None:
                raise
            raise error from exc
        except BaseException:
            conn.close()
            raise
        return store

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
            code = getattr(exc, "sqlite_errorcode", 0) & 0xFF
            if code in STORAGE_CODES:
                # reading a WAL project creates its shared-memory file: a full disk refuses it
                raise StoreError(
                    f"{self.path}: cannot be read here ({exc}; disk full, read-only or failing"
                    " storage?); the project is unchanged"
                ) from exc
            if code in DAMAGE_CODES:
                raise
            raise StoreError(f"{self.path}: not a BAGEL Studio project ({exc})") from exc

    # -- whether the file is sound ---------------------------------------------------------------

    def found(self, findings: Findings) -> None:
        """Note what a check of the file found (``damage``: what writes are refused with)."""
        self.findings = findings
        self.damage = None if findings.sound else findings.message(self.path)

    def inspect(self, *, full: bool | None) -> Findings:
        """The file's schema compared with what its migrations build, and SQLite's check of it
        (``full``: ``integrity_check`` and the search index against the items, False: the quick
        check, None: none): ``integrity.inspect``."""
        return inspect(self.db.conn, applied_migrations(self.db), full=full)

    @contextmanager
    def apart(self) -> Iterator[Database]:
        """A read connection of its own to the project, for another thread (a search's count,
        the check of the pages), while this store's connection serves the desk; a store in
        memory lends its own."""
        if str(self.path) == ":memory:":
            yield self.db
            return
        conn = _connect_read_only(self.path)
        try:
            yield Database(conn)
        finally:
            conn.close()

    def check_pages(self) -> Findings:
        """SQLite's quick check of the pages, where ``open(check_pages=False)`` left it out:
        read through a connection of its own (so it may run on another thread while this
        store's connection is read), its verdict noted as the check on open notes it
        (``found``): a damaged file refuses every later write."""
        if self.pages_checked:
            return self.findings or Findings()
        try:
            with self.apart() as db:
                problems = integrity_problems(db.conn, full=False)
        except StoreError as exc:  # the file cannot even be read again: not known sound
            problems = [str(exc)]
        self.found(replace(self.findings or Findings(), integrity=problems))
        self.pages_checked = True
        return self.findings or Findings()

    def take_verdict(self, findings: Findings) -> None:
        """Note the verdict of a full check of this file that another store of it ran moments
        ago (the export command's, before it records the export) as this store's check of the
        pages: the pages are not checked again before the first write. A verdict that is not
        sound refuses every write, as the check's own would."""
        if self.pages_checked:
            return
        self.found(replace(self.findings or Findings(), integrity=list(findings.integrity)))
        if not findings.sound and self.damage is None:
            self.damage = findings.message(self.path)
        self.pages_checked = True

    def require_sound(self, *, full: bool = True) -> None:
        """Raise DamagedProjectError unless the file is sound: what an export, a merge and a
        collect call before they read a project as the truth. A failure also refuses every
        later write through this store."""
        findings = self.inspect(full=full)
        if not findings.sound:
            self.found(findings)
            raise DamagedProjectError(findings.message(self.path))

    @contextmanager
    def sound_beside(self) -> Iterator[Callable[[], None]]:
        """``require_sound``'s check run beside the caller's reading (``integrity.CheckBeside``:
        a connection and a thread of its own), for an export to write its release meanwhile
        into a temporary place. Yields ``require()``, which waits for the verdict and raises as
        ``require_sound`` does; the caller calls it before keeping anything it wrote. An error
        leaving the block is replaced by DamagedProjectError when the file is damaged (what a
        damaged file makes a reader meet says less than the check); one that is not an
        ``Exception`` (an interruption) stops the check instead. A project in memory is
        checked at once."""
        if str(self.path) == ":memory:":
            self.require_sound()
            yield lambda: None
            return
        path = self.path
        check = CheckBeside(lambda: _connect_read_only(path), applied_migrations(self.db))

        def require() -> None:
            findings = check.findings()
            self.found(findings)  # the full check: what a check of the pages would find too
            self.pages_checked = True
            if not findings.sound:
                raise DamagedProjectError(findings.message(self.path))

        try:
            yield require
        except Exception:
            require()  # the damage, if any, is what the caller hears of
            raise
        finally:
            check.stop()

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
        """One atomic, durable write: committed on success, rolled back on any error. A file
        whose pages are not checked yet (``open(check_pages=False)``) is checked first."""
        if self.read_only:
            raise StoreError(f"{self.path.name} is open read-only")
        if not self.pages_checked:
            self.check_pages()
        if self.damage is not None:
            raise DamagedProjectError(self.damage)
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

    def copy_to(self, dest: str | Path) -> Path:
        """Write a consistent copy of the project to ``dest`` with SQLite's online backup API
        and return its path. The copy is read through a connection of its own, in one read
        transaction: it holds every committed write, the ones still in the write-ahead log
        too, and none half-done, while this store (the desk) or another process goes on
        writing; copying the file itself then gives the last checkpoint's state, or a file that
        is not a project. The copy is one file (no log beside it), written beside ``dest`` and
        renamed into place; a ``dest`` with a log beside it (open, or not closed cleanly) is
        refused rather than replaced."""
        target = Path(dest)
        if str(self.path) != ":memory:" and target.resolve() == self.path.resolve():
            raise StoreError(f"{target}: is this project itself")
        if Path(f"{target}-wal").exists():
            raise StoreError(
                f"{target}: is open (or was not closed cleanly): a copy does not replace it"
            )
        partial = target.with_name(f".{target.name}.copying")
        partial.unlink(missing_ok=True)
        if str(self.path) == ":memory:":
            source, own = self.db.conn, False
        else:
            uri = f"file:{quote(str(self.path.resolve()))}?mode=ro"
            source, own = sqlite3.connect(uri, uri=True), True
        try:
            copy = sqlite3.connect(partial)
            try:
                source.backup(copy)
                copy.execute("PRAGMA journal_mode = DELETE")
            finally:
                copy.close()
            Path(f"{target}-shm").unlink(missing_ok=True)
            os.replace(partial, target)
        finally:
            if own:
                source.close()
            partial.unlink(missing_ok=True)
        return target

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


def _checked_and_migrated(db: Database, *, pages: bool) -> tuple[Findings, bool]:
    """Check a file opened for writing, and bring it up to date when it is sound; return what
    was found and whether its pages were checked. A file an earlier release wrote (its
    migrations recorded elsewhere) is compared after migrating. Without ``pages`` the quick
    check of the pages is left out, unless a migration is pending (only a file known sound is
    migrated)."""
    refuse_newer(db)
    earlier = carried_over(db)
    applied = applied_migrations(db)
    pages = pages or earlier or not set(migration_names()) <= set(applied)
    findings = (
        Findings(integrity=integrity_problems(db.conn, full=False))
        if earlier
        else inspect(db.conn, applied, full=False if pages else None)
    )
    if not findings.sound:
        return findings, pages
    apply_migrations(db)
    if earlier:
        findings = inspect(db.conn, applied_migrations(db), full=None)
    return findings, pages


def _connect_read_only(path: Path) -> sqlite3.Connection:
    """A read-only connection. On read-only media, where SQLite cannot make the project's
    shared-memory file beside it, the file is read as it lies (``immutable``: nothing can write
    it there), unless a write-ahead log waits beside it, whose changes that would not see."""
    try:
        conn = sqlite3.connect(
            f"file:{path}?mode=ro", uri=True, isolation_level=None, check_same_thread=False
        )
    except sqlite3.Error as exc:
        raise StoreError(f"{path}: cannot be opened ({exc})") from exc
    if os.access(path.parent, os.W_OK):
        return conn
    try:
        conn.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchone()
        return conn
    except sqlite3.OperationalError:
        conn.close()
    log = Path(f"{path}-wal")
    if log.exists() and log.stat().st_size > 0:
        raise StoreError(
            f"{path}: cannot be read on read-only media: changes wait in its write-ahead log"
            f" ({log.name}), which only writable storage can fold in; copy the project and"
            f" {log.name} to a writable folder and open the copy"
        )
    return sqlite3.connect(
        f"file:{path}?mode=ro&immutable=1", uri=True, isolation_level=None, check_same_thread=False
    )


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
