"""Keys typed into a focused widget belong to that widget, not to the desk's one-key shortcuts."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication

from bagel_studio.ui.shortcuts import State
from tests.ui.desk_harness import close_desk, open_desk, rows
from tests.ui.desk_project import KOALA_ID, XC_ID, build_project


def test_keys_on_a_filter_combo_choose_a_filter_and_decide_nothing(
    qtbot, tmp_path: Path, data_dir: Path
) -> None:
    path = tmp_path / "desk.bagel"
    build_project(path, data_dir)
    window = open_desk(qtbot, path)
    assert window.current_item_id() == KOALA_ID

    qtbot.keyClick(window, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    domain = window.queue.filters.domain
    assert QApplication.focusWidget() is domain
    qtbot.keyClick(domain, Qt.Key.Key_Down)  # the next domain (the queue follows it)
    assert domain.currentIndex() == 1
    assert window.queue_model.queue_filter.domain == domain.currentData()
    domain.setCurrentIndex(0)
    window.show_item(KOALA_ID)

    status = window.queue.filters.status
    status.setFocus()
    qtbot.keyClick(status, Qt.Key.Key_S)  # type-ahead for 'skipped', not the skip key
    assert status.currentText() == "skipped"
    assert window.queue_model.queue_filter.status == "skipped"
    assert window.machine.state is State.EMPTY  # nothing is skipped: nothing was decided
    close_desk(window)
    assert rows(path, "SELECT item_id, decision FROM reviews") == []


def test_ctrl_chords_and_the_editor_combos(qtbot, tmp_path: Path, data_dir: Path) -> None:
    path = tmp_path / "desk.bagel"
    build_project(path, data_dir)
    window = open_desk(qtbot, path)
    window.queue.filters.level.setFocus()
    qtbot.keyClick(window.queue.filters.level, Qt.Key.Key_Slash)  # '/' is the search key...
    assert QApplication.focusWidget() is not window.queue.filters.search  # ...but typed here
    qtbot.keyClick(window, Qt.Key.Key_E)
    assert window.machine.state is State.EDIT
    level = window.item_view.editor.level
    level.setFocus()
    before = level.currentIndex()
    qtbot.keyClick(level, Qt.Key.Key_Down)  # arrows change the level in the editor
    assert level.currentIndex() == before + 1
    qtbot.keyClick(level, Qt.Key.Key_1)  # digits still set the gold while editing
    assert window.item_view.editor.gold_group.checkedId() == 0
    close_desk(window)


def test_keys_act_on_the_desk_again_after_the_help_window_closes(
    qtbot, tmp_path: Path, data_dir: Path
) -> None:
    path = tmp_path / "desk.bagel"
    build_project(path, data_dir)
    window = open_desk(qtbot, path)
    window.activateWindow()
    qtbot.keyClick(window, Qt.Key.Key_F1)
    help_window = window.menus.panels["help"]
    qtbot.waitUntil(help_window.isVisible)
    help_window.reject()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    first = window.current_item_id()
    qtbot.keyClick(QApplication.activeWindow(), Qt.Key.Key_J)
    assert window.current_item_id() != first
    close_desk(window)


def test_the_desk_opens_with_the_keys_on_the_queue(qtbot, tmp_path: Path, data_dir: Path) -> None:
    path = tmp_path / "desk.bagel"
    build_project(path, data_dir)
    window = open_desk(qtbot, path)
    # Not the first filter combo (Qt's pick), whose type-ahead swallowed A, E, R, J...
    assert QApplication.focusWidget() is window.queue.table
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_A)  # as the keyboard sends it
    qtbot.waitUntil(lambda: window.machine.state is not State.WRITING)
    close_desk(window)
    assert rows(path, "SELECT item_id, decision FROM reviews") == [(KOALA_ID, "accept")]


def test_esc_on_a_filter_gives_the_keys_back_to_the_queue(
    qtbot, tmp_path: Path, data_dir: Path
) -> None:
    path = tmp_path / "desk.bagel"
    build_project(path, data_dir)
    window = open_desk(qtbot, path)
    level = window.queue.filters.level
    level.setFocus()
    qtbot.keyClick(level, Qt.Key.Key_Escape)
    assert QApplication.focusWidget() is window.queue.table
    first = window.current_item_id()
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_J)
    assert window.current_item_id() != first

    search = window.queue.filters.search
    qtbot.keyClick(window, Qt.Key.Key_Slash)
    qtbot.keyClicks(search, "koala")
    qtbot.keyClick(search, Qt.Key.Key_Escape)  # the first Esc empties the field...
    assert search.text() == "" and QApplication.focusWidget() is search
    qtbot.keyClick(search, Qt.Key.Key_Escape)  # ...the second leaves it
    assert QApplication.focusWidget() is window.queue.table
    close_desk(window)


def test_keys_go_back_to_the_queue_after_an_edit(qtbot, tmp_path: Path, data_dir: Path) -> None:
    path = tmp_path / "desk.bagel"
    build_project(path, data_dir)
    window = open_desk(qtbot, path)
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_E)
    assert window.machine.state is State.EDIT
    assert QApplication.focusWidget() is window.item_view.editor.stem
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Escape)
    assert window.machine.state is State.REVIEW
    assert QApplication.focusWidget() is window.queue.table  # not the history list below
    close_desk(window)


def test_a_panel_closed_with_esc_gives_the_keys_back_to_the_desk(
    qtbot, tmp_path: Path, data_dir: Path
) -> None:
    path = tmp_path / "desk.bagel"
    build_project(path, data_dir)
    window = open_desk(qtbot, path)
    window.menus.open_panel("agreement")
    panel = window.menus.panels["agreement"]
    qtbot.addWidget(panel)
    qtbot.waitUntil(lambda: QApplication.activeWindow() is panel)
    qtbot.keyClick(panel, Qt.Key.Key_Escape)
    assert not panel.isVisible()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    close_desk(window)


def test_the_export_dialog_has_the_keys_and_gives_them_back(
    qtbot, tmp_path: Path, data_dir: Path
) -> None:
    path = tmp_path / "desk.bagel"
    build_project(path, data_dir)
    window = open_desk(qtbot, path)
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_E, Qt.KeyboardModifier.ControlModifier)
    dialog = window.menus.panels["export"]
    qtbot.waitUntil(lambda: QApplication.activeWindow() is dialog)  # Esc, Enter act on it
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Escape)
    assert not dialog.isVisible()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    close_desk(window)


def test_a_cancelled_import_gives_the_keys_back_to_the_desk(
    qtbot, tmp_path: Path, data_dir: Path
) -> None:
    path = tmp_path / "desk.bagel"
    build_project(path, data_dir)
    window = open_desk(qtbot, path)
    picked: list[str] = []

    def cancel() -> None:  # the file picker runs modal: cancel it once it is up
        picker = QApplication.activeModalWidget()
        if picker is None:
            QTimer.singleShot(50, cancel)
            return
        picked.append(type(picker).__name__)
        picker.close()

    QTimer.singleShot(0, cancel)
    window.menus.import_dialog()
    assert picked == ["ImportPicker"]
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    close_desk(window)


def test_enter_in_the_search_field_hands_the_keys_to_the_items_found(
    qtbot, tmp_path: Path, data_dir: Path
) -> None:
    path = tmp_path / "desk.bagel"
    build_project(path, data_dir)
    window = open_desk(qtbot, path)
    search = window.queue.filters.search
    qtbot.keyClick(window.queue.table, Qt.Key.Key_Slash)
    assert QApplication.focusWidget() is search
    qtbot.keyClicks(search, "sparrow")
    qtbot.keyClick(search, Qt.Key.Key_Return)  # searches at once, no wait for the pause
    assert QApplication.focusWidget() is window.queue.table
    assert window.queue.model.rowCount() >= 1
    assert window.current_item_id() == XC_ID  # the first item found is on the desk
    # The desk's keys act on it now instead of being typed into the search.
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_A)
    qtbot.waitUntil(lambda: window.machine.state is not State.WRITING)
    assert search.text() == "sparrow"  # the search stays: the queue still shows what it found
    close_desk(window)
    assert rows(path, "SELECT item_id, decision FROM reviews") == [(XC_ID, "accept")]


def _key(qtbot, key: Qt.Key) -> None:
    """``key`` as the keyboard sends it: to the widget with the focus, else the active window."""
    qtbot.keyClick(QApplication.focusWidget() or QApplication.activeWindow(), key)


def test_the_keys_act_in_the_listening_layout_and_go_back_to_the_queue_after_it(
    qtbot, tmp_path: Path, data_dir: Path
) -> None:
    """L hides the queue, which had the keys; L again gives them back to it (before, they
    stayed on the item's scroll area and the queue's row lost its highlight). In between and
    after, J/K, Up/Down, Space, E, R and A act as the manual says."""
    path = tmp_path / "desk.bagel"
    build_project(path, data_dir)
    window = open_desk(qtbot, path)
    window.show_item(XC_ID)
    table = window.queue.table
    assert QApplication.focusWidget() is table
    space = next(s for s in window.shortcuts if s.key().toString() == "Space")

    _key(qtbot, Qt.Key.Key_L)
    assert window.listening_wide and not window.queue.isVisible()
    assert not window.queue.isAncestorOf(QApplication.focusWidget())  # not on a hidden widget
    _key(qtbot, Qt.Key.Key_J)
    assert window.current_item_id() != XC_ID
    _key(qtbot, Qt.Key.Key_K)
    assert window.current_item_id() == XC_ID
    _key(qtbot, Qt.Key.Key_Down)
    assert window.current_item_id() != XC_ID
    _key(qtbot, Qt.Key.Key_Up)
    assert window.current_item_id() == XC_ID
    with qtbot.waitSignal(space.activated, timeout=2_000):  # Space: the desk's play key
        _key(qtbot, Qt.Key.Key_Space)
    _key(qtbot, Qt.Key.Key_Space)
    _key(qtbot, Qt.Key.Key_E)
    assert window.machine.state is State.EDIT
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Escape)
    assert window.machine.state is State.REVIEW
    _key(qtbot, Qt.Key.Key_R)
    assert window.machine.state is State.REJECT
    window.controller.reject_dialog.reject()
    qtbot.waitUntil(lambda: window.machine.state is State.REVIEW)
    with qtbot.waitSignal(window.controller.write_finished, timeout=10_000):
        _key(qtbot, Qt.Key.Key_A)

    _key(qtbot, Qt.Key.Key_L)
    assert not window.listening_wide and window.queue.isVisible()
    assert QApplication.focusWidget() is table  # the queue's row is highlighted again
    shown = window.current_item_id()
    assert window.queue_model.item_id(table.currentIndex().row()) == shown
    _key(qtbot, Qt.Key.Key_Down)
    assert window.current_item_id() != shown
    _key(qtbot, Qt.Key.Key_K)
    assert window.current_item_id() == shown
    close_desk(window)
    assert rows(path, "SELECT item_id, decision FROM reviews") == [(XC_ID, "accept")]
