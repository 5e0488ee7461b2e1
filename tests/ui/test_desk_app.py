"""Starting the desk: launch arguments, the app's project handling, read-only, import, help."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, Qt, QTimer
from PySide6.QtWidgets import QApplication, QInputDialog, QMessageBox

from bagel_studio.core.prefs import Preferences
from bagel_studio.core.store import Store
from bagel_studio.ui.app import DeskApp
from bagel_studio.ui.launch import launch
from bagel_studio.ui.shortcuts import SHORTCUTS, State, action_for_key, button_text
from bagel_studio.ui.shortcuts_help import shortcut_lines
from tests.ui.desk_harness import close_desk, open_desk, rows
from tests.ui.desk_project import KOALA_ID, build_project


def test_help_and_bad_arguments(capsys: pytest.CaptureFixture[str]) -> None:
    assert launch(["--help"]) == 0
    assert "bagel-studio open PROJECT" in capsys.readouterr().out
    assert launch(["open"]) == 2
    assert "PROJECT" in capsys.readouterr().err
    assert launch(["open", "a.bagel", "b.bagel"]) == 2
    assert "unrecognized arguments: b.bagel" in capsys.readouterr().err


def test_app_opens_creates_and_remembers(qtbot, tmp_path: Path, isolated_config: Path) -> None:
    Preferences(curator="lee").save()
    desk = DeskApp()
    path = tmp_path / "new.bagel"
    assert desk.open(path, create=True)
    assert desk.window is not None and desk.window.isVisible()
    assert desk.window.machine.state is State.EMPTY
    assert "new.bagel" in desk.window.windowTitle() and "lee" in desk.window.windowTitle()
    desk.close_project()
    assert Preferences.load().recent_projects == [str(path.resolve())]
    settings = QSettings(str(isolated_config / "desk.ini"), QSettings.Format.IniFormat)
    assert settings.value("desk/geometry") is not None
    with Store.open(path) as store:  # the lock was released on close
        assert store.items.count() == 0


def test_read_only_view_of_a_locked_project(qtbot, tmp_path: Path, data_dir: Path) -> None:
    path = tmp_path / "locked.bagel"
    build_project(path, data_dir)
    with Store.open(path, owner="someone else"):  # another desk holds the writer lock
        window = open_desk(qtbot, path, read_only=True)
        assert window.machine.state is State.READ_ONLY
        assert "read-only" in window.windowTitle()
        assert not window.decision_bar.buttons["accept"].isEnabled()
        assert not window.menus.actions["import"].isEnabled()
        qtbot.keyClick(window, Qt.Key.Key_A)
        qtbot.keyClick(window, Qt.Key.Key_J)  # moving on still works
        assert window.current_item_id() != KOALA_ID
        close_desk(window)
    assert rows(path, "SELECT count(*) FROM reviews") == [(0,)]


def test_buttons_and_help_come_from_the_shortcut_table(qtbot, tmp_path, data_dir) -> None:
    path = tmp_path / "help.bagel"
    build_project(path, data_dir)
    window = open_desk(qtbot, path)
    assert window.decision_bar.buttons["accept"].text() == "Accept [A]"
    assert window.decision_bar.buttons["undo"].text() == button_text("undo") == "Undo [Ctrl+Z]"
    help_text = "\n".join(shortcut_lines())
    for shortcut in SHORTCUTS:
        assert shortcut.label in help_text
        assert all(action_for_key(key) == shortcut.action for key in shortcut.keys)
    qtbot.keyClick(window, Qt.Key.Key_F1)
    assert window.menus.panels["help"].isVisible()
    window.menus.panels["help"].close()
    close_desk(window)


@pytest.mark.skipif(
    importlib.util.find_spec("bagel_studio.core.importers") is None,
    reason="the importer is part of another change",
)
def test_import_with_progress_fills_the_queue(qtbot, tmp_path: Path, data_dir: Path) -> None:
    path = tmp_path / "imported.bagel"
    Store.open(path).close()
    window = open_desk(qtbot, path)
    assert window.queue_model.rowCount() == 0
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "x:1", "domain": "Wikipedia", "question": "no options"}\n', "utf-8")
    dialog = window.menus.run_import([data_dir / "items" / "paper_examples.jsonl", bad])
    qtbot.waitUntil(lambda: dialog.completed, timeout=30_000)
    assert dialog.error is None
    assert window.queue_model.rowCount() == 17
    summary = dialog.summary.toPlainText()
    assert "Wikipedia: 8 added" in summary
    assert "bad.jsonl:1:" in summary  # the rejected line, as file:line: reason
    assert window.current_item_id() == "wikipedia:andean-flamingo:0"
    assert window.queue.progress.label.text().startswith("0 / 17 reviewed")
    dialog.close()
    close_desk(window)
    assert rows(path, "SELECT count(*) FROM items") == [(17,)]


def _answer_modal(qtbot, answer) -> None:
    """Answer the next modal dialog the way a curator would (it blocks the caller meanwhile)."""

    def act() -> None:
        dialog = QApplication.activeModalWidget()
        if dialog is None:
            QTimer.singleShot(20, act)
            return
        answer(dialog)

    QTimer.singleShot(20, act)


def test_locked_project_offers_a_read_only_view(qtbot, tmp_path, data_dir) -> None:
    path = tmp_path / "taken.bagel"
    build_project(path, data_dir)
    Preferences(curator="lee").save()
    desk = DeskApp()
    with Store.open(path, owner="kim"):
        seen: list[str] = []

        def yes(box: QMessageBox) -> None:
            seen.append(box.text())
            box.button(QMessageBox.StandardButton.Yes).click()

        _answer_modal(qtbot, yes)
        assert desk.open(path)
        assert "read-only" in seen[0]
        assert desk.window is not None and desk.window.read_only
        assert desk.window.machine.state is State.READ_ONLY
        desk.close_project()


def test_curator_is_asked_once_and_kept(qtbot, tmp_path: Path) -> None:
    desk = DeskApp()
    assert desk.prefs.curator == ""

    def type_name(dialog: QInputDialog) -> None:
        dialog.setTextValue("Mia")
        dialog.accept()

    _answer_modal(qtbot, type_name)
    assert desk.open(tmp_path / "first.bagel", create=True)
    assert desk.window is not None and "Mia" in desk.window.windowTitle()
    desk.close_project()
    assert Preferences.load().curator == "Mia"
    assert desk.open(tmp_path / "second.bagel", create=True)  # no dialog this time
    desk.close_project()


def test_opening_another_project_releases_the_first(qtbot, tmp_path, data_dir) -> None:
    first, second = tmp_path / "first.bagel", tmp_path / "second.bagel"
    build_project(first, data_dir)
    Preferences(curator="lee").save()
    desk = DeskApp()
    assert desk.open(first)
    old_window = desk.window
    assert desk.open(first)  # already open: the same window
    assert desk.window is old_window
    assert desk.open(second, create=True)
    assert desk.window is not old_window and desk.window is not None
    assert desk.window.isVisible()
    with Store.open(first) as store:  # the first project's lock is free again
        assert store.items.count() > 0
    desk.close_project()
    assert Preferences.load().recent_projects[:2] == [str(second.resolve()), str(first.resolve())]


def test_cannot_open_message_shows_markup_literally(qtbot, tmp_path: Path) -> None:
    bad = tmp_path / "<b>not<b> a project.bagel"
    bad.write_bytes(b"<img src=http://example.invalid/x.png> garbage, not SQLite" * 10)
    Preferences(curator="lee").save()
    desk = DeskApp()
    seen: list[tuple[str, object]] = []

    def close(box: QMessageBox) -> None:
        seen.append((box.text(), box.textFormat()))
        box.button(QMessageBox.StandardButton.Ok).click()

    _answer_modal(qtbot, close)
    assert not desk.open(bad)
    text, text_format = seen[0]
    assert "<b>not<b> a project.bagel" in text
    assert text_format == Qt.TextFormat.PlainText


def test_open_recent_names_projects_as_the_start_screen_does(
    qtbot, tmp_path: Path, data_dir: Path
) -> None:
    """File > Open recent: each project by its file name and folder ("~" for the home folder,
    "(missing)" for a file that is gone), the whole path in the tooltip, "&" shown as itself;
    choosing one opens it."""
    path = tmp_path / "desk.bagel"
    build_project(path, data_dir)
    window = open_desk(qtbot, path)
    try:
        home_project = Path.home() / "bagel" / "R&D round.bagel"
        gone = tmp_path / "deep" / "gone.bagel"
        window.services.prefs.recent_projects = [str(path), str(home_project), str(gone)]
        opened: list[Path] = []
        window.open_project = lambda chosen, create: opened.append(chosen)  # type: ignore[assignment]
        menus = window.menus
        menus._fill_recent()
        actions = menus.recent_menu.actions()
        assert [a.text().split("  —  ")[0] for a in actions] == [
            "desk.bagel",
            "R&&D round.bagel   (missing)",
            "gone.bagel   (missing)",
        ]
        assert actions[1].text().endswith("  —  ~/bagel")
        assert str(tmp_path) in actions[0].text() or "…" in actions[0].text()
        assert str(path) in actions[0].toolTip() and "Missing" not in actions[0].toolTip()
        assert f"Missing: {gone}" in actions[2].toolTip()
        assert menus.recent_menu.toolTipsVisible()
        actions[0].trigger()
        assert opened == [path]
    finally:
        close_desk(window)
