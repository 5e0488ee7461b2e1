"""What an interrupted export leaves behind is cleaned up, and a release gets the usual modes."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bagel_studio.core.cli import run
from bagel_studio.core.export.atomic import MARKER
from tests.core.export.test_export_command import ROOT, _big_project


def _interrupt_when_writing(
    project: Path, out: Path, how: signal.Signals
) -> subprocess.Popen[bytes]:
    """Start an export in a process and send it ``how`` once its temporary folder is marked."""
    command = [
        sys.executable,
        "-m",
        "bagel_studio",
        "export",
        str(project),
        str(out),
        "--seed",
        "5",
    ]
    process = subprocess.Popen(
        command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    marked: list[Path] = []
    while process.poll() is None and not marked:
        marked = list(out.parent.glob(f"{out.name}.tmp-{process.pid}-*/{MARKER}"))
        time.sleep(0.001)
    os.kill(process.pid, how)
    process.wait(timeout=120)
    assert marked, "the export finished before it could be interrupted"
    return process


def _leftovers(parent: Path) -> list[str]:
    return sorted(p.name for p in parent.iterdir() if ".tmp-" in p.name or ".old-" in p.name)


@pytest.mark.slow
def test_terminated_export_removes_its_temporary_folder(tmp_path: Path) -> None:
    project = tmp_path / "big.bagel"
    _big_project(project)
    process = _interrupt_when_writing(project, tmp_path / "release", signal.SIGTERM)
    assert process.returncode == 143
    assert _leftovers(tmp_path) == []
    assert not (tmp_path / "release").exists()


@pytest.mark.slow
def test_next_export_anywhere_beside_it_cleans_a_killed_exports_folder(tmp_path: Path) -> None:
    project = tmp_path / "big.bagel"
    _big_project(project)
    _interrupt_when_writing(project, tmp_path / "release-a", signal.SIGKILL)
    assert len(_leftovers(tmp_path)) == 1
    assert run(["export", str(project), str(tmp_path / "release-b"), "--seed", "1"]) == 0
    assert _leftovers(tmp_path) == []
    assert not (tmp_path / MARKER).exists()
    assert not list((tmp_path / "release-b").rglob(MARKER))  # the marker is not released


def test_release_folder_gets_the_usual_permissions(tmp_path: Path, data_dir: Path) -> None:
    from tests.core.export.export_support import decide_all, new_project, paper_items

    project = tmp_path / "paper.bagel"
    with new_project(project, paper_items(data_dir)) as store:
        decide_all(store, store.item_ids())
    previous = os.umask(0o022)
    try:
        assert run(["export", str(project), str(tmp_path / "release"), "--seed", "1"]) == 0
    finally:
        os.umask(previous)
    release = tmp_path / "release"
    assert stat.S_IMODE(release.stat().st_mode) == 0o755
    assert stat.S_IMODE((release / "data").stat().st_mode) == 0o755
    assert stat.S_IMODE((release / "manifest.json").stat().st_mode) == 0o644
