"""Whether a project file is what BAGEL Studio wrote: its schema, and SQLite's own checks.

A project is an SQLite file that anyone may open with any SQLite tool, so it may hold what the
studio did not put there: a trigger that runs on the studio's own writes (one that deletes the
append-only history on every decision, or rewrites a stem), a view, a table or an index; or pages
damaged by failing storage or by hand (flipped bytes, a truncated copy), which SQLite reads back
as wrong text without an error. Such a file is still read (a curator may look, and copy what is
sound out of it: ``bagel-studio repair``), but the store refuses to write into it, and the
export, merge and collect refuse to read it as sound (``Store.require_sound``).

The schema a file should have is the one its recorded migrations build. ``objects/`` holds, for
each migration, the objects it creates or changes and the ones it drops, as SQLite records them
(``sqlite_master``, its text normalized), so that opening a file compares the two without
running a migration: ``python -m bagel_studio.core.store.write_objects`` writes them after a
migration is added, and a test checks that they are what the migrations build. A migration
without its file is built in memory (slower, and that test says so).
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from bagel_studio.core.store.errors import StoreError
from bagel_studio.core.store.schema import MIGRATIONS

OBJECTS = Path(__file__).with_name("objects")  # one JSON file per migration
SHOWN_PROBLEMS = 3  # integrity problems named in the one-line message (the rest counted)
CHECKED_PROBLEMS = 100  # integrity problems SQLite is asked for at most
# SQLite's primary result codes of a damaged file: SQLITE_CORRUPT, SQLITE_NOTADB
DAMAGE_CODES = frozenset({11, 26})
# ... and of storage that refuses the request (not a bad file): SQLITE_NOMEM, SQLITE_READONLY,
# SQLITE_IOERR, SQLITE_FULL, SQLITE_CANTOPEN
STORAGE_CODES = frozenset({7, 8, 10, 13, 14})
READONLY = 8

# One schema object: (type, table it belongs to, its SQL normalized; None where SQLite writes it:
# a virtual table's shadow tables, compared by name)
SchemaObject = tuple[str, str, str | None]


class DamagedProjectError(StoreError):
    """A project file that is damaged, or holds what the studio did not create: it may be read,
    but nothing is written into it and nothing is exported or merged from it."""


def recovery(path: Path | str) -> str:
    """How to get a sound project back, said at the end of every damage message."""
    return (
        f"writes and exports are refused; `bagel-studio repair {path} NEWFILE` copies what is"
        " sound into a new project file (or use your last good copy)"
    )


@dataclass
class Findings:
    """What a project file holds that the studio's schema does not, and what SQLite's own check
    of its pages and indexes reported."""

    foreign: list[SchemaObject] = field(default_factory=list)  # (type, name, table)
    foreign_names: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    integrity: list[str] = field(default_factory=list)

    @property
    def sound(self) -> bool:
        return not (self.foreign_names or self.changed or self.missing or self.integrity)

    def describe(self) -> str:
        """What was found, in a few words (one line)."""
        parts = []
        if self.integrity:
            shown = "; ".join(_one_line(p) for p in self.integrity[:SHOWN_PROBLEMS])
            more = len(self.integrity) - SHOWN_PROBLEMS
            parts.append(
                f"the file is damaged (SQLite's check: {shown}"
                + (f"; {more} more problem(s)" if more > 0 else "")
                + ")"
            )
        if self.foreign_names:
            parts.append(
                "it holds what BAGEL Studio did not create: " + ", ".join(self.foreign_names)
            )
        if self.changed:
            parts.append("changed from what BAGEL Studio created: " + ", ".join(self.changed))
        if self.missing:
            parts.append("missing from its schema: " + ", ".join(self.missing))
        return "; ".join(parts)

    def message(self, path: Path | str) -> str:
        return f"{path}: {self.describe()}; {recovery(path)}"


def inspect(conn: sqlite3.Connection, applied: Iterable[str], *, full: bool | None) -> Findings:
    """Compare the file's schema with what the migrations ``applied`` build, and run SQLite's
    ``quick_check`` of its pages, or (``full``) its ``integrity_check``, which also compares
    every index with its table, and the search index's own check against the items' text (what
    finds a flipped byte in a row: no other index holds the stems); ``full=None``: the schema
    only."""
    findings = Findings()
    try:
        found = objects_of(conn)
    except sqlite3.DatabaseError as exc:  # the schema itself cannot be read
        findings.integrity.append(str(exc))
        return findings
    compare(found, expected_objects(tuple(applied)), findings)
    if full is not None:
        findings.integrity.extend(integrity_problems(conn, full=full))
    if full and not findings.integrity and "items_fts" in found:
        findings.integrity.extend(search_index_problems(conn))
    return findings


class CheckBeside:
    """The full check (``inspect(full=True)``) of a project file on a connection and a thread of
    their own, started at once, so that a reader goes on meanwhile: SQLite checks the pages and
    the search index with Python's GIL released. ``findings`` waits for its verdict; ``stop``
    interrupts it (a reader that gave up does not wait for the whole check)."""

    def __init__(self, connect: Callable[[], sqlite3.Connection], applied: Iterable[str]) -> None:
        self._connect = connect
        self._applied = tuple(applied)
        self._findings: Findings | None = None
        self._error: BaseException | None = None
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None
        self._stopped = False
        self._thread = threading.Thread(target=self._run, name="project-check", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            conn = self._connect()
        except BaseException as exc:  # handed to the caller of ``findings``
            self._error = exc
            return
        with self._lock:
            if self._stopped:
                conn.close()
                return
            self._conn = conn
        try:
            self._findings = inspect(conn, self._applied, full=True)
        except BaseException as exc:
            self._error = exc
        finally:
            with self._lock:
                self._conn = None
            conn.close()

    def findings(self) -> Findings:
        """What the check found, once it is done (its own error raised, if it met one)."""
        self._thread.join()
        if self._error is not None:
            raise self._error
        if self._findings is None:
            raise StoreError("the project's check was stopped before its verdict")
        return self._findings

    def stop(self) -> None:
        """Interrupt the check if it still runs, and wait until its thread is gone."""
        with self._lock:
            self._stopped = True
        while self._thread.is_alive():
            with self._lock:
                if self._conn is not None:
                    self._conn.interrupt()
            self._thread.join(0.05)


def compare(
    found: Mapping[str, SchemaObject], expected: Mapping[str, SchemaObject], findings: Findings
) -> None:
    """What ``found`` holds beyond ``expected`` or differently, and what it lacks. An object
    of a migration the file has not recorded, as that migration makes it, is the studio's too
    (a migration that ran whole but whose record was lost runs again harmlessly)."""
    known = expected_objects(tuple(name for name, _ in MIGRATIONS))
    for name, (kind, table, sql) in found.items():
        want = expected.get(name)
        if want is not None and _same(want, (kind, table, sql)):
            continue
        if name in known and _same(known[name], (kind, table, sql)):
            continue
        if want is None and name not in known:
            findings.foreign.append((kind, name, table))
            findings.foreign_names.append(_named(kind, name, table))
        else:
            findings.changed.append(_named(kind, name, table))
    for name, (kind, table, _sql) in expected.items():
        if name not in found:
            findings.missing.append(_named(kind, name, table))


def _same(want: SchemaObject, got: SchemaObject) -> bool:
    return want[0] == got[0] and (want[2] is None or want[2] == got[2])


def integrity_problems(conn: sqlite3.Connection, *, full: bool) -> list[str]:
    """SQLite's own check of the file: [] when it says ok, else the problems it lists."""
    pragma = "integrity_check" if full else "quick_check"
    try:
        rows = conn.execute(f"PRAGMA {pragma}({CHECKED_PROBLEMS})").fetchall()
    except sqlite3.DatabaseError as exc:
        return [str(exc)]
    problems = [str(row[0]) for row in rows]
    return [] if problems == ["ok"] else problems


def search_index_problems(conn: sqlite3.Connection) -> list[str]:
    """FTS5's check of the items' search index against the items' text: [] when they agree.

    The check is asked as a write (SQLite refuses it on a read-only connection), though it
    writes nothing: a read-only store asks it through a connection of its own, unless the file
    cannot be written where it lies (then it is not asked)."""
    check = "INSERT INTO items_fts(items_fts, rank) VALUES ('integrity-check', 1)"
    try:
        conn.execute(check)
        return []
    except sqlite3.DatabaseError as exc:
        code = getattr(exc, "sqlite_errorcode", 0) & 0xFF
        if code not in DAMAGE_CODES and code != READONLY:
            raise
        if code in DAMAGE_CODES:
            return [f"the search index disagrees with the items' text ({exc})"]
    path = next(str(row[2]) for row in conn.execute("PRAGMA database_list") if row[1] == "main")
    if not path or not os.access(path, os.W_OK) or not os.access(os.path.dirname(path), os.W_OK):
        return []
    other = sqlite3.connect(path, isolation_level=None, timeout=5)
    try:
        other.execute(check)
        return []
    except sqlite3.DatabaseError as exc:
        if getattr(exc, "sqlite_errorcode", 0) & 0xFF not in DAMAGE_CODES:
            return []  # busy or refused: not asked
        return [f"the search index disagrees with the items' text ({exc})"]
    finally:
        other.close()


def opening_error(path: Path | str, exc: sqlite3.DatabaseError) -> StoreError | None:
    """The error to raise for ``exc`` met while opening ``path`` when the file is damaged
    (saying so, and how to recover); None for any other (storage that refused, a busy file:
    the caller's own message for those)."""
    if getattr(exc, "sqlite_errorcode", 0) & 0xFF in DAMAGE_CODES:
        return DamagedProjectError(f"{path}: the file is damaged ({exc}); {recovery(path)}")
    return None


def objects_of(conn: sqlite3.Connection) -> dict[str, SchemaObject]:
    """{name: (type, table, normalized SQL)} of a database's schema, but SQLite's own objects
    (``sqlite_*``: automatic indexes, statistics), which follow from the rest."""
    rows = conn.execute(
        "SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite!_%'"
        " ESCAPE '!'"
    ).fetchall()
    return {
        str(name): (str(kind), str(table), normalized(sql) if sql is not None else None)
        for kind, name, table, sql in rows
    }


def normalized(sql: str) -> str:
    """SQL text as compared: without quoting of names (``[x]``, ``"x"``, `` `x` ``: versions of
    sqlite-utils quote them differently) and with runs of blanks as one space."""
    text = re.sub(r"[\[\]\"`']", "", sql)
    text = re.sub(r"\s+", " ", text).strip()
    return re.sub(r" ?([(),;=]) ?", r"\1", text)


# -- the schema the migrations build -------------------------------------------------------------


@dataclass(frozen=True)
class Delta:
    """What one migration does to the schema: the objects it creates or changes, and the names
    it drops."""

    creates: dict[str, SchemaObject]
    drops: tuple[str, ...]

    def to_json(self) -> dict[str, object]:
        return {
            "creates": {name: list(obj) for name, obj in sorted(self.creates.items())},
            "drops": sorted(self.drops),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> Delta:
        creates = data.get("creates", {})
        drops = data.get("drops", [])
        assert isinstance(creates, dict) and isinstance(drops, list)
        objects = {
            n: (str(o[0]), str(o[1]), None if o[2] is None else str(o[2]))
            for n, o in creates.items()
        }
        return cls(objects, tuple(str(d) for d in drops))


def expected_objects(applied: tuple[str, ...]) -> dict[str, SchemaObject]:
    """The schema the migrations ``applied`` build, in the order the program lists them."""
    wanted = set(applied)
    schema: dict[str, SchemaObject] = {}
    for name, _ in MIGRATIONS:
        if name not in wanted:
            continue
        delta = delta_of(name)
        for dropped in delta.drops:
            schema.pop(dropped, None)
        schema.update(delta.creates)
    return schema


@cache
def delta_of(name: str) -> Delta:
    """One migration's delta: its file in ``objects/``, else built in memory."""
    path = OBJECTS / f"{name}.json"
    try:
        return Delta.from_json(json.loads(path.read_text(encoding="utf-8")))
    except FileNotFoundError:
        return built_deltas()[name]


@cache
def built_deltas() -> dict[str, Delta]:
    """Every migration's delta, by running them one by one on an empty database in memory (the
    first one's also holds the table the migrations are recorded in)."""
    import sqlite_utils

    from bagel_studio.core.store.migrate import create_migrations_table

    db = sqlite_utils.Database(memory=True)
    create_migrations_table(db)
    before: dict[str, SchemaObject] = {}
    deltas: dict[str, Delta] = {}
    for name, step in MIGRATIONS:
        step(db)
        after = _with_shadows(db.conn, objects_of(db.conn))
        deltas[name] = Delta(
            {n: o for n, o in after.items() if before.get(n) != o},
            tuple(n for n in before if n not in after),
        )
        before = after
    return deltas


def _with_shadows(
    conn: sqlite3.Connection, objects: dict[str, SchemaObject]
) -> dict[str, SchemaObject]:
    """``objects`` with a virtual table's shadow tables (which SQLite creates, and writes the
    SQL of) compared by name only."""
    shadows = {
        str(row[0])
        for row in conn.execute("SELECT name FROM pragma_table_list WHERE type = 'shadow'")
    }
    return {n: (o[0], o[1], None) if n in shadows else o for n, o in objects.items()}


def write_objects(folder: Path = OBJECTS) -> list[Path]:
    """Write every migration's delta into ``folder`` (after adding a migration)."""
    folder.mkdir(exist_ok=True)
    written = []
    for name, delta in built_deltas().items():
        path = folder / f"{name}.json"
        path.write_text(json.dumps(delta.to_json(), indent=1) + "\n", encoding="utf-8")
        written.append(path)
    return written


def _named(kind: str, name: str, table: str) -> str:
    on = f" on {table}" if kind in ("trigger", "index") and table != name else ""
    return f"{kind} {name}{on}"


def _one_line(text: str) -> str:
    return " ".join(text.split())
