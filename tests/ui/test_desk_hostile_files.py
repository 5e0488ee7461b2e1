"""The desk on a file that is not a sound project (issue 26): a text file, a project of a newer
release, a truncated one, one with a trigger added by hand. Headless, it prints the message the
command line would and exits 2 (it used to print nothing and never end, or give a traceback);
with a screen, the same message is shown in a dialog."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from PySide6.QtCore import QEventLoop, QTimer
from PySide6.QtWidgets import QApplication, QMessageBox

from tests.support.hostile import add_by_hand, break_page_of, history_rows, project_with_history

ROOT = Path(__file__).resolve().parents[2]


def _desk_headless(tmp_path: Path, project: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env.update(
        QT_QPA_PLATFORM="offscreen",
        BAGEL_STUDIO_HEADLESS="1",
        BAGEL_STUDIO_CONFIG_DIR=str(tmp_path / "config"),
        BAGEL_STUDIO_HEADLESS_SCREENSHOT=str(tmp_path / "screen.png"),
        BAGEL_STUDIO_CURATOR="ana",
        PYTHONPATH=str(ROOT),
    )
    return subprocess.run(
        [sys.executable, "-m", "bagel_studio", "open", str(project)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def _hostile(kind: str, tmp_path: Path) -> tuple[Path, str]:
    """A file of the given kind and what the message about it must say."""
    if kind == "text":
        path = tmp_path / "notes.bagel"
        path.write_text("just some notes\n", encoding="utf-8")
        return path, "not an SQLite file"
    project = project_with_history(tmp_path, items=20)
    if kind == "newer":
        add_by_hand(
            project,
            "INSERT INTO _sqlite_migrations (migration_set, name, applied_at)"
            " VALUES ('bagel-studio', 'm_from_the_future', 'x')",
        )
        return project, "newer BAGEL Studio"
    if kind == "truncated":
        data = project.read_bytes()
        project.write_bytes(data[: len(data) // 2])
        return project, "damaged"
    if kind == "page":  # a page the first item does not need: found after it is shown
        break_page_of(project, "merges")
        return project, "damaged"
    add_by_hand(
        project, "CREATE TRIGGER wipe AFTER INSERT ON reviews BEGIN DELETE FROM history; END"
    )
    return project, "trigger wipe on reviews"


@pytest.mark.parametrize("kind", ["text", "newer", "truncated", "page", "trigger"])
def test_headless_desk_on_a_hostile_file_says_why_and_exits_2(kind: str, tmp_path: Path) -> None:
    path, says = _hostile(kind, tmp_path)
    result = _desk_headless(tmp_path, path)
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    assert says in result.stderr


def _closing_the_next_message_box() -> list[str]:
    """Close the next message box the desk shows (polled every 50 ms from the event loop);
    the list it returns receives that box's text."""
    shown: list[str] = []

    def close_the_box() -> None:
        box = QApplication.activeModalWidget()
        if isinstance(box, QMessageBox):
            shown.append(box.text())
            box.accept()
        else:
            QTimer.singleShot(50, close_the_box)

    QTimer.singleShot(50, close_the_box)
    return shown


def test_the_desk_shows_the_same_message_in_a_dialog(qapp: QApplication, tmp_path: Path) -> None:
    from bagel_studio.ui.app import DeskApp

    path, says = _hostile("trigger", tmp_path)
    shown = _closing_the_next_message_box()
    desk = DeskApp()
    assert desk.open(path) is False
    assert shown and says in shown[0] and "repair" in shown[0]


def test_damaged_pages_found_after_the_first_item_are_said_and_nothing_is_written(
    qapp: QApplication, tmp_path: Path
) -> None:
    """The desk shows the first item before SQLite's check of the pages ends (it runs on the
    writer in the background): a decision made meanwhile waits for its verdict, and on a
    damaged file it is not written; the desk says why, as when the damage is found on open,
    and closes the project."""
    from bagel_studio.core.model import Decision
    from bagel_studio.core.prefs import Preferences
    from bagel_studio.ui.app import DeskApp

    path, says = _hostile("page", tmp_path)
    before = history_rows(path)
    shown = _closing_the_next_message_box()
    desk = DeskApp(Preferences(curator="bo"))
    assert desk.open(path) is True
    assert desk.window is not None and desk.window.controller.item is not None
    desk.window.controller.decide(Decision.ACCEPT)
    deadline = time.monotonic() + 60
    while not shown and time.monotonic() < deadline:
        QApplication.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 50)
    assert shown and says in shown[0] and "repair" in shown[0]
    assert desk.window is None and desk.start_screen is not None
    assert history_rows(path) == before
    desk.start_screen.close()


def test_damaged_pages_the_first_item_needs_are_said_as_on_open(
    qapp: QApplication, tmp_path: Path
) -> None:
    """The first item is read before the pages are checked: when that read meets the damage,
    the desk says so as the check would have, and opens nothing."""
    from bagel_studio.core.prefs import Preferences
    from bagel_studio.ui.app import DeskApp

    path = project_with_history(tmp_path, items=20)
    break_page_of(path, "items")
    shown = _closing_the_next_message_box()
    desk = DeskApp(Preferences(curator="bo"))
    assert desk.open(path) is False
    assert desk.window is None
    assert shown and "damaged" in shown[0] and "repair" in shown[0]


def test_a_hidden_curator_name_from_outside_is_refused(tmp_path: Path) -> None:
    """``BAGEL_STUDIO_CURATOR`` (and ``--curator``) go through the same rule as every name."""
    project = project_with_history(tmp_path, items=3)
    env = dict(os.environ)
    env.update(
        QT_QPA_PLATFORM="offscreen",
        BAGEL_STUDIO_HEADLESS="1",
        BAGEL_STUDIO_CONFIG_DIR=str(tmp_path / "config"),
        BAGEL_STUDIO_HEADLESS_SCREENSHOT=str(tmp_path / "screen.png"),
        BAGEL_STUDIO_CURATOR="\u202eecila",
        PYTHONPATH=str(ROOT),
    )
    for extra in ([], ["--curator", "ali\u200bce"]):
        result = subprocess.run(
            [sys.executable, "-m", "bagel_studio", "open", str(project), *extra],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert result.returncode == 2, result.stderr
        assert ("U+202E" if not extra else "U+200B") in result.stderr


def test_the_name_dialog_asks_again_after_a_hidden_name(
    qapp: QApplication, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bagel_studio.core.prefs import Preferences
    from bagel_studio.ui import app

    answers = iter([("\u202eecila", True), ("alice", True)])
    told: list[str] = []
    monkeypatch.setattr(app.QInputDialog, "getText", lambda *a, **k: next(answers))
    monkeypatch.setattr(app, "plain_message", lambda parent, icon, title, text: told.append(text))
    prefs = Preferences.load()
    prefs.curator = ""
    assert app.ask_curator(prefs) == "alice"
    assert told and "U+202E" in told[0]


def test_a_hidden_name_kept_in_the_preferences_is_asked_again(
    qapp: QApplication, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A name the preferences file kept from before the rule (or written there by hand) goes
    through the same rule: the desk says why and asks for another."""
    from bagel_studio.core.prefs import Preferences
    from bagel_studio.ui import app

    told: list[str] = []
    monkeypatch.setattr(app.QInputDialog, "getText", lambda *a, **k: ("alice", True))
    monkeypatch.setattr(app, "plain_message", lambda parent, icon, title, text: told.append(text))
    prefs = Preferences.load()
    prefs.curator = "\u202eecila"
    assert app.ask_curator(prefs) == "alice"
    assert told and "U+202E" in told[0] and "preferences" in told[0]
    assert Preferences.load().curator == "alice"


def test_a_kept_name_is_recorded_in_its_composed_form(qapp: QApplication) -> None:
    import unicodedata

    from bagel_studio.core.prefs import Preferences
    from bagel_studio.ui import app

    prefs = Preferences.load()
    prefs.curator = unicodedata.normalize("NFD", "Zoë")
    assert app.ask_curator(prefs) == "Zoë"


def test_headless_desk_with_a_hidden_name_in_its_preferences_exits_2(tmp_path: Path) -> None:
    """Nobody could answer the dialog that would ask for another name: the desk says why and
    how to give one, and ends."""
    project = project_with_history(tmp_path, items=3)
    config = tmp_path / "config"
    config.mkdir()
    (config / "preferences.toml").write_text('curator = "\\u202eecila"\n', encoding="utf-8")
    env = dict(os.environ)
    env.pop("BAGEL_STUDIO_CURATOR", None)
    env.update(
        QT_QPA_PLATFORM="offscreen",
        BAGEL_STUDIO_HEADLESS="1",
        BAGEL_STUDIO_CONFIG_DIR=str(config),
        BAGEL_STUDIO_HEADLESS_SCREENSHOT=str(tmp_path / "screen.png"),
        PYTHONPATH=str(ROOT),
    )
    result = subprocess.run(
        [sys.executable, "-m", "bagel_studio", "open", str(project)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    assert "U+202E" in result.stderr and "--curator" in result.stderr
