"""A full disk, a read-only project and failing writes end in one clear line and exit status 2,
with the project intact (real limits: RLIMIT_FSIZE on a real process, a read-only mount)."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from bagel_studio.core.store import Store
from tests.core.test_cli import make_project
from tests.support.storage import ROOT, cli, intact, items_file, one_line

DEMO = ROOT / "resources" / "demo"


def test_disk_full_during_import_is_one_line_and_the_project_survives(tmp_path: Path) -> None:
    project = tmp_path / "p.bagel"
    with Store.open(project):
        pass
    big = items_file(tmp_path / "big.jsonl", 5_000, prefix="big-")  # ~3.5 MB: past the limit
    demo_items = DEMO / "wikipedia_generator_outputs.jsonl"
    inputs = (str(demo_items), str(big))
    result = cli("import", str(project), *inputs, file_limit=project.stat().st_size + 1_000_000)
    one_line(result, "import", "could not write")
    kept = intact(project)
    assert kept > 0  # the first file came in before the disk filled
    again = cli("import", str(project), *inputs)  # room again: the rest comes in
    assert again.returncode == 0, again.stderr
    fresh = tmp_path / "fresh.bagel"
    assert cli("import", str(fresh), *inputs).returncode == 0
    assert intact(project) == intact(fresh) == kept + 5_000


def test_disk_full_during_decide_keeps_the_decision_out(tmp_path: Path) -> None:
    project = tmp_path / "p.bagel"
    make_project(project)
    result = cli("decide", str(project), "w0", "--curator", "ana", "--accept", file_limit=4096)
    one_line(result, "decide", "could not write")
    intact(project)
    with Store.open(project, read_only=True) as store:
        assert store.reviews.of_item("w0") == []


@pytest.fixture
def read_only_folder(tmp_path: Path) -> Iterator[Path]:
    """A folder whose files cannot be written: a read-only bind mount as root (root ignores file
    modes), else modes without write permission."""
    source = tmp_path / "source"
    source.mkdir()
    target = tmp_path / "ro"
    target.mkdir()
    if os.geteuid() != 0:
        yield source
        for path in [source, *source.iterdir()]:
            path.chmod(0o755 if path.is_dir() else 0o644)
        return
    mount = shutil.which("mount")
    if mount is None:
        pytest.skip("no mount command to make a read-only folder as root")
    bound = subprocess.run([mount, "--bind", str(source), str(target)], capture_output=True)
    if bound.returncode != 0:
        pytest.skip(f"cannot bind-mount as root here: {bound.stderr.decode().strip()}")
    try:
        yield target
    finally:
        subprocess.run(["umount", str(target)], check=False)


def test_read_only_project_is_one_line(read_only_folder: Path) -> None:
    project = read_only_folder / "p.bagel"
    make_project(project)
    if os.geteuid() == 0:
        remount = ["mount", "-o", "remount,bind,ro", str(read_only_folder)]
        subprocess.run(remount, check=True)
    else:
        for path in read_only_folder.iterdir():
            path.chmod(0o444)
        read_only_folder.chmod(0o555)
    result = cli("decide", str(project), "w0", "--curator", "ana", "--accept")
    one_line(result, "decide")
    assert intact(project, on_read_only_media=True) == 7
    assert "read-only" in result.stderr.lower() or "readonly" in result.stderr.lower()
