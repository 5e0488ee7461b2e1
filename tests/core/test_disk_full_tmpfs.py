"""A really full disk (a small tmpfs, ENOSPC from the kernel), as a curator meets it: every command
ends in one clear line and exit status 2, and the project stays intact.

``test_storage_errors`` refuses writes with RLIMIT_FSIZE; this module fills a real file system.
Mounting needs root; elsewhere these tests are skipped.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from bagel_studio.core.store import Store
from tests.support.storage import cli, intact, items_file, one_line


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


@pytest.mark.slow
def test_import_onto_a_full_disk_is_one_line_and_keeps_the_earlier_file(
    small_disk: Path, tmp_path: Path
) -> None:
    project = small_disk / "p.bagel"
    first = items_file(tmp_path / "first.jsonl", 20, prefix="first")
    big = items_file(tmp_path / "big.jsonl", 12_000)
    line = one_line(cli("import", str(project), str(first), str(big)), "import")
    assert "could not write" in line and "disk" in line
    assert intact(project) == 20  # the first file came in; the one that filled the disk did not


@pytest.mark.slow
def test_decide_and_reads_on_a_full_disk(small_disk: Path, tmp_path: Path) -> None:
    project = small_disk / "p.bagel"
    assert cli("import", str(project), str(items_file(tmp_path / "i.jsonl", 30))).returncode == 0
    filler = _fill(small_disk)
    line = one_line(cli("decide", str(project), "w0", "--curator", "ana", "--accept"), "decide")
    assert "could not write" in line
    # a read needs room too (SQLite creates the project's shared-memory file): it must say so,
    # not call the project something else
    for command in (["stats"], ["check", "--no-audio"]):
        line = one_line(cli(command[0], str(project), *command[1:]), command[0])
        assert "not a BAGEL Studio project" not in line
        assert "disk full" in line
    filler.unlink()
    assert intact(project) == 30
    with Store.open(project, read_only=True) as store:
        assert store.reviews.of_item("w0") == []
    assert cli("decide", str(project), "w0", "--curator", "ana", "--accept").returncode == 0
