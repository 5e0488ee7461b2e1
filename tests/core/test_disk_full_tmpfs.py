"""A really full disk (a small tmpfs, ENOSPC from the kernel), as a curator meets it: every command
ends in one clear line and exit status 2, and the project stays intact.

``test_storage_errors`` refuses writes with RLIMIT_FSIZE; this module fills a real file system.
Mounting needs root; elsewhere these tests are skipped.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from bagel_studio.core.store import Store

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 2 MB tmpfs mounted for the test."""
    folder = tmp_path / "disk"
    folder.mkdir()
    mount = shutil.which("mount")
    if os.geteuid() != 0 or mount is None:
        pytest.skip("mounting a small tmpfs needs root and mount(8)")
    mounted = subprocess.run(
        [mount, "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(folder)], capture_output=True
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.decode().strip()}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)


def _fill(folder: Path) -> Path:
    """Take every free byte of ``folder``'s file system; returns the filler to remove."""
    filler = folder / "filler"
    with open(filler, "wb", buffering=0) as handle, contextlib.suppress(OSError):
        while True:
            handle.write(b"\0" * 4096)
    return filler


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bagel_studio", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )


def _one_line(result: subprocess.CompletedProcess[str], command: str) -> str:
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith(f"bagel-studio {command}: ")
    return lines[0]


def _items(path: Path, count: int, prefix: str = "w") -> Path:
    with open(path, "w", encoding="utf-8") as handle:
        for i in range(count):
            item = {
                "id": f"{prefix}{i}",
                "domain": "Wikipedia",
                "dimension": "Diet",
                "question": f"What does animal number {i} eat most of the year in the wild?",
                "options": [f"Leaves {i}", f"Seeds {i}", f"Insects {i}", f"Fish {i}"],
                "answer": "A",
            }
            handle.write(json.dumps(item) + "\n")
    return path


def _intact(project: Path) -> int:
    conn = sqlite3.connect(f"file:{project}?mode=ro", uri=True)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        return int(conn.execute("SELECT count(*) FROM items").fetchone()[0])
    finally:
        conn.close()


@pytest.mark.slow
def test_import_onto_a_full_disk_is_one_line_and_keeps_the_earlier_file(
    small_disk: Path, tmp_path: Path
) -> None:
    project = small_disk / "p.bagel"
    first = _items(tmp_path / "first.jsonl", 20, prefix="first")
    big = _items(tmp_path / "big.jsonl", 12_000)
    line = _one_line(_cli("import", str(project), str(first), str(big)), "import")
    assert "could not write" in line and "disk" in line
    assert _intact(project) == 20  # the first file came in; the one that filled the disk did not


@pytest.mark.slow
def test_decide_and_reads_on_a_full_disk(small_disk: Path, tmp_path: Path) -> None:
    project = small_disk / "p.bagel"
    assert _cli("import", str(project), str(_items(tmp_path / "i.jsonl", 30))).returncode == 0
    filler = _fill(small_disk)
    line = _one_line(_cli("decide", str(project), "w0", "--curator", "ana", "--accept"), "decide")
    assert "could not write" in line
    # a read needs room too (SQLite creates the project's shared-memory file): it must say so,
    # not call the project something else
    for command in (["stats"], ["check", "--no-audio"]):
        line = _one_line(_cli(command[0], str(project), *command[1:]), command[0])
        assert "not a BAGEL Studio project" not in line
        assert "disk full" in line
    filler.unlink()
    assert _intact(project) == 30
    with Store.open(project, read_only=True) as store:
        assert store.reviews("w0") == []
    assert _cli("decide", str(project), "w0", "--curator", "ana", "--accept").returncode == 0
