"""Project files that are not what they seem, made for the tests: a project with a history, a
trigger or other object someone added by hand, bytes flipped inside a row, a damaged page."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from bagel_studio.core.model import Decision
from bagel_studio.core.operations import decide
from bagel_studio.core.store import Store
from tests.support.storage import cli, items_file


def project_with_history(folder: Path, items: int = 50) -> Path:
    """A project of ``items`` Wikipedia items (ids w0, w1, ...), each accepted by ana: as many
    rows of the append-only history."""
    project = folder / "p.bagel"
    source = items_file(folder / "items.jsonl", items)
    result = cli("import", str(project), str(source))
    assert result.returncode == 0, result.stderr
    with Store.open(project) as store:
        for i in range(items):
            decide(store, f"w{i}", "ana", Decision.ACCEPT)
    return project


def history_rows(project: Path) -> int:
    conn = sqlite3.connect(f"file:{project}?mode=ro", uri=True)
    try:
        return int(conn.execute("SELECT count(*) FROM history").fetchone()[0])
    finally:
        conn.close()


def add_by_hand(project: Path, *statements: str) -> None:
    """Run SQL on the project as any SQLite tool would (the file is then closed cleanly)."""
    conn = sqlite3.connect(project, isolation_level=None)
    try:
        for statement in statements:
            conn.execute(statement)
    finally:
        conn.close()


def flip(project: Path, old: bytes, new: bytes) -> None:
    """Overwrite every place the file holds ``old`` with ``new`` (as long), as failing storage
    would: no SQLite involved (a row rewritten by a decision may have left older copies in free
    pages: they are flipped too, and matter to no one)."""
    assert len(old) == len(new)
    data = project.read_bytes()
    assert old in data
    project.write_bytes(data.replace(old, new))


def break_page_of(project: Path, table: str) -> None:
    """Overwrite the b-tree page header of ``table``'s root page (the page type byte), as a bad
    sector would: SQLite's quick check and every read of that table find the page malformed."""
    conn = sqlite3.connect(f"file:{project}?mode=ro", uri=True)
    try:
        root = int(
            conn.execute("SELECT rootpage FROM sqlite_master WHERE name = ?", [table]).fetchone()[0]
        )
        page_size = int(conn.execute("PRAGMA page_size").fetchone()[0])
    finally:
        conn.close()
    with open(project, "r+b") as handle:
        handle.seek((root - 1) * page_size)
        handle.write(b"\x07\xff\xff\xff\xff")


@contextmanager
def read_only_mount(source: Path, target: Path) -> Iterator[Path]:
    """``source`` seen at ``target`` on read-only media: a read-only bind mount as root (root
    ignores file modes), else ``source`` itself with modes that refuse writing."""
    if os.geteuid() != 0:
        for path in [*source.iterdir(), source]:
            path.chmod(0o555 if path.is_dir() else 0o444)
        try:
            yield source
        finally:
            for path in [source, *source.iterdir()]:
                path.chmod(0o755 if path.is_dir() else 0o644)
        return
    mount = shutil.which("mount")
    if mount is None:
        pytest.skip("no mount command to make read-only media as root")
    target.mkdir()
    bound = subprocess.run(
        [mount, "--bind", "-o", "ro", str(source), str(target)], capture_output=True
    )
    if bound.returncode != 0:
        pytest.skip(f"cannot bind-mount as root here: {bound.stderr.decode().strip()}")
    try:
        subprocess.run([mount, "-o", "remount,bind,ro", str(target)], check=True)
        yield target
    finally:
        subprocess.run(["umount", str(target)], check=False)
