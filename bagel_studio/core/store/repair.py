"""``bagel-studio repair``: copy what is sound of a damaged project into a new file.

The damaged file is only read. It is first copied page by page through SQLite's backup API
(a consistent copy, whatever another reader or writer does meanwhile); in the copy, what the studio
did not create is dropped, the studio's objects that were changed or are missing are made again
as its migrations make them (a table changed by hand is rebuilt with its rows), every index is
rebuilt from its table (an index that disagreed with its rows), and the search index from the
items. When the copy then passes the full check it is the new project. When it does not (a page
of a table itself is damaged), the rows are read one table at a time from the damaged file,
around the pages that cannot be read, into a new project built by the migrations.

Either way the new project appears whole or not at all (written beside it and renamed), and the
report says what was dropped, remade and lost, and which items' rows disagreed with an index (a
flipped byte in their text: check them against the source or your last good copy).
"""

from __future__ import annotations

import os
import re
import shutil
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bagel_studio.core.store.database import Database
from bagel_studio.core.store.errors import StoreError
from bagel_studio.core.store.integrity import Findings, inspect, normalized, objects_of
from bagel_studio.core.store.migrate import (
    applied_migrations,
    apply_migrations,
    carried_over,
    create_migrations_table,
    refuse_newer,
)
from bagel_studio.core.store.schema import MIGRATIONS

CHUNK = 1000  # rows read at a time when rows are copied
_MISSING_ROW = re.compile(r"row (\d+) missing from index (\w+)")


class RepairError(StoreError):
    """A file that cannot be repaired (not a project, newer, its schema unreadable) or a target
    that would be overwritten."""


@dataclass
class RepairReport:
    """What a repair found, did and could not do."""

    source: Path
    target: Path
    found: str  # what was wrong, as the check said ("" when nothing)
    method: str = "copy"  # "copy": the backup API's copy, cleaned; "rows": rows read one by one
    dropped: list[str] = field(default_factory=list)
    remade: list[str] = field(default_factory=list)
    copied: dict[str, int] = field(default_factory=dict)  # rows per table ("rows" only)
    # per table, the stretches of rows that could not be read: (after rowid, up to rowid)
    lost: dict[str, list[tuple[int | None, int | None]]] = field(default_factory=dict)
    lost_items: list[str] = field(default_factory=list)  # ids other tables name, not copied
    suspect_items: list[str] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        return not self.lost

    def lines(self) -> list[str]:
        out = [f"{self.source}: {self.found or 'no problem found'}"]
        if self.dropped:
            out.append(f"  dropped (not created by BAGEL Studio): {', '.join(self.dropped)}")
        if self.remade:
            out.append(f"  made again as BAGEL Studio makes them: {', '.join(self.remade)}")
        if self.method == "rows":
            copied = ", ".join(f"{t} {n}" for t, n in self.copied.items() if n)
            out.append(f"  pages of tables were damaged: rows copied one by one ({copied})")
        if self.lost:
            lost = ", ".join(
                f"{table} ({len(stretches)} damaged stretch(es))"
                for table, stretches in self.lost.items()
            )
            out.append(f"  rows that could not be read, and are not in the new file: {lost}")
        if self.lost_items:
            out.append(
                "  items lost with them (named by decisions or history): "
                + ", ".join(self.lost_items[:20])
                + (f" and {len(self.lost_items) - 20} more" if len(self.lost_items) > 20 else "")
            )
        if self.suspect_items:
            shown = ", ".join(self.suspect_items[:20])
            more = len(self.suspect_items) - 20
            out.append(
                "  items whose row disagreed with an index (their text may be damaged: compare"
                f" them with their source or your last good copy): {shown}"
                + (f" and {more} more" if more > 0 else "")
            )
        out.append(
            f"{self.target}: a new project that passes every check; open it, and keep"
            f" {self.source.name} until you are sure nothing you need is missing"
        )
        return out


def repair(source: Path, target: Path) -> RepairReport:
    """Copy what is sound of ``source`` into the new project ``target`` (see the module)."""
    if not source.is_file():
        raise RepairError(f"{source}: no such project file")
    if target.exists():
        raise RepairError(f"{target}: exists; name a new file (nothing is overwritten)")
    partial = target.with_name(f".{target.name}.repairing")
    aside = target.with_name(f".{target.name}.source")
    partial.unlink(missing_ok=True)
    src = _open_source(source, aside)
    try:
        found = _checked(src, source)
        report = RepairReport(source, target, "" if found.sound else found.describe())
        report.suspect_items = _suspect_items(src, found)
        after = Findings(integrity=["the copy failed"])
        if _copy_by_backup(src, partial):
            after = _clean_copy(partial, found, report)
        if not after.sound:
            partial.unlink(missing_ok=True)
            report.method, report.remade = "rows", []
            report.dropped = [_named(k, n, str(t)) for k, n, t in found.foreign]
            _copy_rows(src, partial, report)
            after = _inspected(partial)
            if not after.sound:
                raise RepairError(
                    f"{source}: could not be repaired ({after.describe()}); use your last good copy"
                )
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    finally:
        src.close()
        aside.unlink(missing_ok=True)
    os.replace(partial, target)
    return report


def _open_source(source: Path, aside: Path) -> sqlite3.Connection:
    """A read-only connection to ``source``; to a copy of it at ``aside`` whose header says
    how many pages it really has when it was cut short (SQLite would read none of it)."""
    with open(source, "rb") as handle:
        header = handle.read(100)
    if header[:16] != b"SQLite format 3\x00":
        raise RepairError(f"{source}: not a BAGEL Studio project (not an SQLite file)")
    page_size = int.from_bytes(header[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    pages = source.stat().st_size // page_size if page_size >= 512 else 0
    if 0 < pages < int.from_bytes(header[28:32], "big"):
        shutil.copyfile(source, aside)
        with open(aside, "r+b") as handle:
            handle.truncate(pages * page_size)
            handle.seek(28)
            handle.write(pages.to_bytes(4, "big"))
        source = aside
    conn = sqlite3.connect(f"file:{source}?mode=ro", uri=True, isolation_level=None)
    try:
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except sqlite3.OperationalError:  # read-only media: no shared-memory file can be made
        conn.close()
        conn = sqlite3.connect(f"file:{source}?mode=ro&immutable=1", uri=True)
    except sqlite3.DatabaseError as exc:
        conn.close()
        raise RepairError(
            f"{source}: its schema cannot be read ({exc}): nothing can be copied out of it;"
            " use your last good copy"
        ) from exc
    return conn


def _checked(conn: sqlite3.Connection, source: Path) -> Findings:
    db = Database(conn)
    try:
        refuse_newer(db)
    except RuntimeError as exc:
        raise RepairError(str(exc)) from exc
    if "items" not in objects_of(conn):
        raise RepairError(f"{source}: not a BAGEL Studio project (no items table)")
    if carried_over(db):
        raise RepairError(
            f"{source}: written by an earlier release, whose files repair does not read; open"
            " it once with this version (which brings it up to date), or use your last good copy"
        )
    return inspect(conn, applied_migrations(db), full=True)


def _suspect_items(conn: sqlite3.Connection, found: Findings) -> list[str]:
    """The items whose row an index of theirs does not hold as it is: where a byte flipped."""
    indexes = {name for kind, name, table in _index_rows(conn) if table == "items"}
    rowids = []
    for problem in found.integrity:
        match = _MISSING_ROW.search(problem)
        if match and match.group(2) in indexes:
            rowids.append(int(match.group(1)))
    ids = []
    for rowid in dict.fromkeys(rowids):
        try:
            row = conn.execute("SELECT id FROM items NOT INDEXED WHERE rowid = ?", [rowid])
            found_row = row.fetchone()
        except sqlite3.DatabaseError:
            continue
        if found_row is not None:
            ids.append(str(found_row[0]))
    return ids


def _index_rows(conn: sqlite3.Connection) -> Iterator[tuple[str, str, str]]:
    for kind, name, table in conn.execute(
        "SELECT type, name, tbl_name FROM sqlite_master WHERE type = 'index'"
    ):
        yield str(kind), str(name), str(table)


def _copy_by_backup(src: sqlite3.Connection, partial: Path) -> bool:
    """Copy ``src`` page by page into ``partial``; False when a page could not be read."""
    dst = sqlite3.connect(partial)
    try:
        src.backup(dst)
        return True
    except sqlite3.DatabaseError:
        return False
    finally:
        dst.close()


def _clean_copy(partial: Path, found: Findings, report: RepairReport) -> Findings:
    """Drop what the studio did not create, make its changed and missing objects again,
    rebuild every index and the search index; return the copy's full check."""
    conn = sqlite3.connect(partial, isolation_level=None)
    try:
        conn.execute("PRAGMA journal_mode = DELETE")
        db = Database(conn)
        fresh = _fresh_schema(list(applied_migrations(db)))
        conn.execute("BEGIN IMMEDIATE")
        for kind, name, table in _drop_order(found.foreign):
            conn.execute(f'DROP {kind.upper()} IF EXISTS "{name}"')
            report.dropped.append(_named(kind, name, table))
        for name in _changed_or_missing(conn, fresh):
            _remake(conn, name, fresh[name])
            report.remade.append(_named(fresh[name][0], name, fresh[name][1]))
        conn.execute("REINDEX")
        if "items_fts" in fresh:
            conn.execute("INSERT INTO items_fts(items_fts) VALUES ('rebuild')")
        conn.execute("COMMIT")
    except sqlite3.DatabaseError as exc:
        return Findings(integrity=[str(exc)])
    finally:
        conn.close()
    return _inspected(partial)


def _inspected(path: Path) -> Findings:
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        return inspect(conn, applied_migrations(Database(conn)), full=True)
    except sqlite3.DatabaseError as exc:
        return Findings(integrity=[str(exc)])
    finally:
        conn.close()


# (type, table, SQL as SQLite keeps it) of the studio's objects
_Fresh = dict[str, tuple[str, str, str | None]]


def _fresh_schema(applied: list[str]) -> _Fresh:
    """The objects the migrations ``applied`` build, with their SQL as written (the check
    compares it normalized, which cannot be run)."""
    import sqlite_utils

    db = sqlite_utils.Database(memory=True)
    try:
        create_migrations_table(db)
        for name, step in MIGRATIONS:
            if name in applied:
                step(db)
        rows = db.conn.execute(
            "SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite!_%'"
            " ESCAPE '!'"
        ).fetchall()
        shadows = {
            str(r[0])
            for r in db.conn.execute("SELECT name FROM pragma_table_list WHERE type = 'shadow'")
        }
    finally:
        db.conn.close()
    # a virtual table's shadow tables are SQLite's to make: None, as the check compares them
    return {
        str(n): (str(k), str(t), None if s is None or n in shadows else str(s))
        for k, n, t, s in rows
    }


def _changed_or_missing(conn: sqlite3.Connection, fresh: _Fresh) -> list[str]:
    have = objects_of(conn)
    names = []
    for name, (kind, _table, sql) in fresh.items():
        got = have.get(name)
        if sql is None:  # SQLite's own: a virtual table's shadow tables follow it
            continue
        if got is None or got[0] != kind or got[2] != normalized(sql):
            names.append(name)
    # tables before what belongs to them
    return sorted(names, key=lambda n: fresh[n][0] != "table")


def _remake(conn: sqlite3.Connection, name: str, fresh: tuple[str, str, str | None]) -> None:
    kind, _table, sql = fresh
    assert sql is not None
    exists = conn.execute("SELECT type FROM sqlite_master WHERE name = ?", [name]).fetchone()
    if kind != "table" or exists is None:
        if exists is not None:
            conn.execute(f'DROP {str(exists[0]).upper()} "{name}"')
        conn.execute(sql)
        return
    old = f"{name}__damaged"
    conn.execute(f'ALTER TABLE "{name}" RENAME TO "{old}"')
    conn.execute(sql)
    columns = _common_columns(conn, old, name)
    conn.execute(f'INSERT INTO "{name}" ({columns}) SELECT {columns} FROM "{old}"')
    conn.execute(f'DROP TABLE "{old}"')


def _common_columns(conn: sqlite3.Connection, source: str, target: str) -> str:
    theirs = {str(r[1]) for r in conn.execute(f'PRAGMA table_info("{source}")')}
    ours = [str(r[1]) for r in conn.execute(f'PRAGMA table_info("{target}")')]
    return ", ".join(f'"{c}"' for c in ours if c in theirs)


def _drop_order(
    foreign: list[tuple[str, str, str | None]],
) -> list[tuple[str, str, str]]:
    """Triggers and views first, then indexes, then tables (what depends on a table first)."""
    rank = {"trigger": 0, "view": 1, "index": 2, "table": 3}
    return sorted(((k, n, str(t)) for k, n, t in foreign if k in rank), key=lambda o: rank[o[0]])


def _named(kind: str, name: str, table: str) -> str:
    return f"{kind} {name}" + (f" on {table}" if kind in ("trigger", "index") else "")


# -- rows read one by one ------------------------------------------------------------------------


def _copy_rows(src: sqlite3.Connection, partial: Path, report: RepairReport) -> None:
    """A new project built by the migrations, and every row of the studio's tables that can
    be read from ``src`` (in rowid order, around the pages that cannot be), then its indexes."""
    dst = sqlite3.connect(partial, isolation_level=None)
    try:
        apply_migrations(Database(dst))
        tables = [
            str(r[0])
            for r in dst.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE"
                " 'items!_fts%' ESCAPE '!' AND name NOT LIKE 'sqlite!_%' ESCAPE '!'"
                " AND name != '_sqlite_migrations'"
            )
        ]
        have = set(objects_of(src))
        triggers = dst.execute(
            "SELECT name, sql FROM sqlite_master WHERE type = 'trigger'"
        ).fetchall()
        dst.execute("BEGIN IMMEDIATE")
        for name, _sql in triggers:  # put back below: the copy is not an edit
            dst.execute(f'DROP TRIGGER "{name}"')
        for table in tables:
            if table in have:
                _copy_table(src, dst, table, report)
        for _name, sql in triggers:
            dst.execute(sql)
        dst.execute("INSERT INTO items_fts(items_fts) VALUES ('rebuild')")
        dst.execute("COMMIT")
        report.lost_items = [
            str(r[0])
            for r in dst.execute(
                "SELECT item_id FROM reviews UNION SELECT item_id FROM history"
                " EXCEPT SELECT id FROM items ORDER BY 1"
            )
        ]
    finally:
        dst.close()


def _copy_table(
    src: sqlite3.Connection, dst: sqlite3.Connection, table: str, report: RepairReport
) -> None:
    theirs = {str(r[1]) for r in src.execute(f'PRAGMA table_info("{table}")')}
    ours = [str(r[1]) for r in dst.execute(f'PRAGMA table_info("{table}")')]
    listed = ", ".join(f'"{c}"' for c in ours if c in theirs)
    marks = ", ".join("?" * (1 + sum(c in theirs for c in ours)))
    insert = f'INSERT OR IGNORE INTO "{table}" (rowid, {listed}) VALUES ({marks})'
    copied = 0
    after: int | None = None  # the last rowid read
    while True:
        rows, damaged = _rows_after(src, table, listed, after)
        dst.executemany(insert, rows)
        copied += len(rows)
        after = int(rows[-1][0]) if rows else after
        if damaged:
            resumed = _past_damage(src, table, after)
            report.lost.setdefault(table, []).append((after, resumed))
            if resumed is None:
                break
            after = resumed
        elif not rows:
            break
    report.copied[table] = copied


def _rows_after(
    src: sqlite3.Connection, table: str, listed: str, after: int | None
) -> tuple[list[tuple[Any, ...]], bool]:
    """Up to CHUNK rows after rowid ``after``, and whether a damaged page stopped them (then
    the rows before it, read one at a time)."""
    try:
        return _read(src, table, listed, after, CHUNK), False
    except sqlite3.DatabaseError:
        pass
    rows: list[tuple[Any, ...]] = []
    try:
        while len(rows) < CHUNK:
            row = _read(src, table, listed, after, 1)
            if not row:
                return rows, False
            rows.extend(row)
            after = int(row[0][0])
    except sqlite3.DatabaseError:
        return rows, True
    return rows, False


def _read(
    src: sqlite3.Connection, table: str, listed: str, after: int | None, limit: int
) -> list[tuple[Any, ...]]:
    where = "" if after is None else f"WHERE rowid > {after}"
    return src.execute(
        f'SELECT rowid, {listed} FROM "{table}" NOT INDEXED {where} ORDER BY rowid LIMIT {limit}'
    ).fetchall()


def _past_damage(src: sqlite3.Connection, table: str, after: int | None) -> int | None:
    """The rowid after which rows of ``table`` can be read again past the damage that follows
    ``after`` (reads seek through the table's interior pages to the leaves beyond it), or None
    when none can: probes at doubling distances, then halves back to the first readable one."""

    def readable(rowid: int) -> bool:
        try:
            src.execute(
                f'SELECT * FROM "{table}" NOT INDEXED WHERE rowid >= ? LIMIT 1', [rowid]
            ).fetchall()
            return True
        except sqlite3.DatabaseError:
            return False

    bad = after if after is not None else -(2**62)
    step = 1
    while not readable(bad + step):
        step *= 2
        if bad + step >= 2**62:
            return None
    good = bad + step
    while good - bad > 1:
        middle = (bad + good) // 2
        if readable(middle):
            good = middle
        else:
            bad = middle
    return good - 1
