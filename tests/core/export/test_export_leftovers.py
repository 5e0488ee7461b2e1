"""What an interrupted export leaves behind is cleaned up, and a release gets the usual modes."""

from __future__ import annotations

import os
import signal
import stat
from pathlib import Path

from bagel_studio.core.cli import run
from bagel_studio.core.export.atomic import MARKER
from tests.core.export.export_support import interrupt_export


def _leftovers(parent: Path) -> list[str]:
    return sorted(p.name for p in parent.iterdir() if ".tmp-" in p.name or ".old-" in p.name)


def test_terminated_export_removes_its_temporary_folder(
    paper_project: Path, tmp_path: Path
) -> None:
    process, _ = interrupt_export(paper_project, tmp_path / "release", signal.SIGTERM)
    assert process.returncode == 143
    assert _leftovers(tmp_path) == []
    assert not (tmp_path / "release").exists()


def test_next_export_anywhere_beside_it_cleans_a_killed_exports_folder(
    paper_project: Path, tmp_path: Path
) -> None:
    process, _ = interrupt_export(paper_project, tmp_path / "release-a", signal.SIGKILL)
    assert process.returncode == -signal.SIGKILL
    assert len(_leftovers(tmp_path)) == 1
    assert run(["export", str(paper_project), str(tmp_path / "release-b"), "--seed", "1"]) == 0
    assert _leftovers(tmp_path) == []
    assert not (tmp_path / MARKER).exists()
    assert not list((tmp_path / "release-b").rglob(MARKER))  # the marker is not released


def test_release_folder_gets_the_usual_permissions(paper_project: Path, tmp_path: Path) -> None:
    previous = os.umask(0o022)
    try:
        assert run(["export", str(paper_project), str(tmp_path / "release"), "--seed", "1"]) == 0
    finally:
        os.umask(previous)
    release = tmp_path / "release"
    assert stat.S_IMODE(release.stat().st_mode) == 0o755
    assert stat.S_IMODE((release / "data").stat().st_mode) == 0o755
    assert stat.S_IMODE((release / "manifest.json").stat().st_mode) == 0o644
