"""The project's full check runs beside the export (``Store.sound_beside``): the release is written
into a temporary folder meanwhile and kept only when the file is sound; a damaged file leaves
nothing behind and is named as damaged, whatever the export met in it first."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from bagel_studio.core.export import ExportCancelled, export_release
from bagel_studio.core.export.pipeline import ITEMS_SHARE
from bagel_studio.core.store import Store
from bagel_studio.core.store.integrity import DamagedProjectError
from tests.support.hostile import break_page_of, flip, project_with_history


def _project(folder: Path) -> Path:
    folder.mkdir()
    return project_with_history(folder, items=20)


def _checks_running() -> list[str]:
    return [t.name for t in threading.enumerate() if t.name == "project-check"]


def test_a_damage_only_the_full_check_finds_keeps_nothing_of_the_written_release(
    tmp_path: Path,
) -> None:
    """A flipped byte in a stem reads as any other text: every stage runs and writes its files,
    and only the check beside them (the search index against the items) finds it."""
    project = _project(tmp_path / "project")
    flip(project, b"animal number 7 eat", b"animal number 7 e2t")
    parent = tmp_path / "releases"
    parent.mkdir()
    seen: list[int] = []
    with Store.open(project, read_only=True) as store:
        assert store.damage is None  # the quick check on open does not see it
        with pytest.raises(DamagedProjectError) as raised:
            export_release(store, parent / "release", 1, progress=lambda done, _: seen.append(done))
        assert store.damage is not None  # and nothing is written through this store after
    message = str(raised.value)
    assert "search index" in message and f"bagel-studio repair {project}" in message
    assert max(seen) >= ITEMS_SHARE  # the items were written before the verdict was asked
    assert list(parent.iterdir()) == []  # neither the release nor its temporary folder
    assert _checks_running() == []


def test_what_a_damaged_page_makes_the_export_meet_is_named_as_damage(tmp_path: Path) -> None:
    project = _project(tmp_path / "project")
    break_page_of(project, "reviews")
    parent = tmp_path / "releases"
    parent.mkdir()
    with Store.open(project, read_only=True) as store, pytest.raises(DamagedProjectError) as raised:
        export_release(store, parent / "release", 1)
    assert "the file is damaged" in str(raised.value)
    assert list(parent.iterdir()) == []
    assert _checks_running() == []


def test_a_cancelled_export_stops_its_check_and_keeps_nothing(tmp_path: Path) -> None:
    project = _project(tmp_path / "project")
    parent = tmp_path / "releases"
    parent.mkdir()

    def cancel(done: int, total: int) -> None:
        raise ExportCancelled("cancelled")

    with Store.open(project, read_only=True) as store, pytest.raises(ExportCancelled):
        export_release(store, parent / "release", 1, progress=cancel)
    assert list(parent.iterdir()) == []
    assert _checks_running() == []


def test_a_sound_project_is_released_with_its_check_done(tmp_path: Path) -> None:
    project = _project(tmp_path / "project")
    with Store.open(project, read_only=True) as store:
        result = export_release(store, tmp_path / "release", 1)
        assert store.damage is None
    assert result.released == 20
    assert (tmp_path / "release" / "manifest.json").is_file()
    assert _checks_running() == []
