"""The export command checks the file once: the full check beside the export
(``Store.sound_beside``); neither of its two openings (to read, to record the export) runs
SQLite's quick check of the pages again. Counted by SQLite itself: every statement any
connection runs reaches its trace callback, set on each connection as it is made."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bagel_studio.core.cli import run
from bagel_studio.core.store import Store
from tests.support.hostile import break_page_of, project_with_history

PAGE_CHECKS = ("PRAGMA quick_check", "PRAGMA integrity_check")


def _traced(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The checks of the file's pages every connection made from now on runs."""
    checks: list[str] = []
    connect: Callable[..., sqlite3.Connection] = sqlite3.connect

    def traced(*args: Any, **kwargs: Any) -> sqlite3.Connection:
        conn = connect(*args, **kwargs)
        conn.set_trace_callback(
            lambda sql: checks.append(sql) if sql.startswith(PAGE_CHECKS) else None
        )
        return conn

    monkeypatch.setattr(sqlite3, "connect", traced)
    return checks


def _exports(project: Path) -> int:
    with Store.open(project, read_only=True) as store:
        return int(store.db.execute("SELECT count(*) FROM exports").fetchone()[0])


def test_the_export_command_checks_the_file_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    project = project_with_history(tmp_path, items=20)
    checks = _traced(monkeypatch)
    out = tmp_path / "release"
    assert run(["export", str(project), str(out), "--seed", "1"]) == 0
    assert "Not recorded" not in capsys.readouterr().out
    assert [c.split("(")[0] for c in checks] == ["PRAGMA integrity_check"]
    monkeypatch.undo()
    assert (out / "manifest.json").is_file()
    assert _exports(project) == 1  # recorded under the export's verdict


def test_a_damaged_page_is_still_refused_with_no_release_and_no_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without the quick check on opening, the full check beside the export finds the damage:
    the same exit status and message, nothing released, nothing recorded."""
    project = project_with_history(tmp_path, items=20)
    break_page_of(project, "reviews")
    checks = _traced(monkeypatch)
    parent = tmp_path / "releases"
    parent.mkdir()
    assert run(["export", str(project), str(parent / "release"), "--seed", "1"]) == 2
    err = capsys.readouterr().err
    assert "the file is damaged" in err and f"bagel-studio repair {project}" in err
    assert [c.split("(")[0] for c in checks] == ["PRAGMA integrity_check"]
    monkeypatch.undo()
    assert list(parent.iterdir()) == []
    assert _exports(project) == 0


def test_a_store_that_takes_an_unsound_verdict_refuses_to_write(tmp_path: Path) -> None:
    """``Store.take_verdict``: the verdict of another store's full check stands for this
    store's check of the pages, a damaged one as much as a sound one."""
    project = project_with_history(tmp_path, items=20)
    break_page_of(project, "reviews")
    with Store.open(project, read_only=True) as reader:
        found = reader.inspect(full=True)
    assert not found.sound
    with Store.open(project, check_pages=False) as store:
        assert not store.pages_checked and store.damage is None
        store.take_verdict(found)
        assert store.pages_checked and store.damage is not None
        assert "the file is damaged" in store.damage
