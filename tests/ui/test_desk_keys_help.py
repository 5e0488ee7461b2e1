"""Seeking by keyboard in the desk (Shift moves 5 s) and the F1 overlay's layout."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QApplication, QLabel

from bagel_studio.core.model import Severity
from bagel_studio.ui.desk_menus import PANEL_SIZES, PANELS
from bagel_studio.ui.queue_model import SEVERITY_MARK
from bagel_studio.ui.secondary import DEFAULT_SIZE
from bagel_studio.ui.shortcuts import SHORTCUTS
from bagel_studio.ui.shortcuts_help import ShortcutsHelp, help_lines, shortcut_lines
from tests.ui.desk_harness import close_desk, listening_panel, open_desk, open_window
from tests.ui.desk_project import XC_ID, build_project

FLAGS_COLUMN = 5
SEVERITY_ORDER = [Severity.BLOCKING, Severity.WARNING, Severity.INFO]


def test_help_lists_each_group_once_with_keys_apart_from_labels() -> None:
    lines = shortcut_lines()
    headings = [line for line in lines if line and not line.startswith(" ")]
    assert len(headings) == len(set(headings))
    assert "FILE" in headings
    rows = [line for line in lines if line.startswith("  ")]
    assert len(rows) == len(SHORTCUTS)
    for shortcut, row in zip(
        sorted(SHORTCUTS, key=lambda s: headings.index(s.group.upper())), rows, strict=True
    ):
        keys = " / ".join(shortcut.keys)
        assert row.startswith(f"  {keys}   ")  # at least three spaces before the description
        assert row.rstrip().endswith(shortcut.label)
    save = next(row for row in rows if "Ctrl+Return" in row)
    assert "Ctrl+EnterSave" not in save
    label_column = {
        row.index(s.label, 2 + len(" / ".join(s.keys)))
        for s, row in zip(
            sorted(SHORTCUTS, key=lambda s: headings.index(s.group.upper())), rows, strict=True
        )
    }
    assert len(label_column) == 1  # every description starts in the same column


@pytest.mark.audio
def test_shift_arrows_seek_five_seconds(qtbot, pulse_sink: str, tmp_path: Path, data_dir) -> None:
    path = tmp_path / "seek.bagel"
    build_project(path, data_dir)
    window = open_desk(qtbot, path)
    window.show_item(XC_ID)
    panel = listening_panel(qtbot, window)
    qtbot.waitUntil(lambda: panel.controller.loaded, timeout=30_000)
    qtbot.keyClick(window, Qt.Key.Key_Right)
    assert panel.view.playhead.value() == pytest.approx(1.0)
    qtbot.keyClick(window, Qt.Key.Key_Right, Qt.KeyboardModifier.ShiftModifier)
    assert panel.view.playhead.value() == pytest.approx(6.0)
    qtbot.keyClick(window, Qt.Key.Key_Left, Qt.KeyboardModifier.ShiftModifier)
    assert panel.view.playhead.value() == pytest.approx(1.0)
    qtbot.keyClick(window, Qt.Key.Key_Left)
    assert panel.view.playhead.value() == pytest.approx(0.0)
    close_desk(window)


@pytest.mark.parametrize("name", [*PANELS, "help"])  # every panel, the future ones too
@pytest.mark.parametrize("key", ["Escape", "Ctrl+W"])
def test_secondary_windows_open_roomy_and_close_by_keyboard(
    qtbot, tmp_path: Path, data_dir: Path, name: str, key: str
) -> None:
    path = tmp_path / "windows.bagel"
    build_project(path, data_dir)
    window = open_desk(qtbot, path)
    panel = open_window(qtbot, window, name)
    room = panel.screen().availableGeometry()
    if name != "help":  # the panels fill a useful share of the screen, never their bare hint
        wanted = PANEL_SIZES.get(name, DEFAULT_SIZE)
        assert panel.width() >= min(wanted.width(), int(room.width() * 0.9)) - 1
        assert panel.height() >= min(wanted.height(), int(room.height() * 0.9)) - 1
        assert panel.width() > 316 and panel.height() > 280
    assert panel.width() <= room.width() and panel.height() <= room.height()
    panel.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is panel, timeout=5_000)
    sequence = QKeySequence(key)
    combo = sequence[0]
    qtbot.keyClick(panel, combo.key(), combo.keyboardModifiers())
    qtbot.waitUntil(lambda: not panel.isVisible(), timeout=5_000)
    close_desk(window)


def test_queue_marks_the_worst_flag_and_counts_them_all(qtbot, tmp_path, data_dir) -> None:
    path = tmp_path / "flags.bagel"
    build_project(path, data_dir)
    window = open_desk(qtbot, path)
    model = window.queue_model
    seen = []
    for row in range(model.rowCount()):
        item_id = model.item_id(row)
        flags = window.store.flags.of_item(item_id)
        text = str(model.data(model.index(row, FLAGS_COLUMN)))
        if not flags:
            assert text == ""
            continue
        worst = min(flags, key=lambda f: SEVERITY_ORDER.index(f.severity)).severity.value
        assert text == f"{SEVERITY_MARK[worst]} {len(flags)}"  # "▲ 2": the same form in every row
        seen.append(len(flags))
    assert max(seen) > 1  # the project has an item with more than one flag
    close_desk(window)


def test_export_dialog_shows_no_literal_ampersand(qtbot, tmp_path, data_dir) -> None:
    path = tmp_path / "export.bagel"
    build_project(path, data_dir)
    window = open_desk(qtbot, path)
    window.menus.export_dialog()
    dialog = window.menus.panels["export"]
    qtbot.addWidget(dialog)
    labels = dialog.findChildren(QLabel)
    folder = next(label for label in labels if label.text() == "&Folder:")
    assert folder.buddy() is dialog.out_edit  # shown as 'Folder:', Alt+F goes to the field
    mnemonics = [label for label in labels if label.text().startswith("&")]
    assert len(mnemonics) >= 2 and all(label.buddy() is not None for label in mnemonics)
    dialog.close()
    close_desk(window)


def test_help_shows_every_line_whole(qtbot) -> None:
    help_window = ShortcutsHelp()
    qtbot.addWidget(help_window)
    with qtbot.waitExposed(help_window):
        help_window.show()
    text = help_window.text
    assert text.horizontalScrollBar().maximum() == 0  # no line runs off to the side
    assert text.toPlainText().count("\n") + 1 == len(help_lines())  # the keys, the mouse
