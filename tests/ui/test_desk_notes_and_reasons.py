"""A note on an accept (Shift+A: the curator says why an item flagged for review is fine), and
reject reasons for an item off the domain's topic and for one whose dimension fits none of the
domain's labels, in the fixed list the reject dialog numbers."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt

from bagel_studio.core.model import REJECT_REASONS
from bagel_studio.ui.shortcuts import State
from tests.ui.desk_harness import close_desk, open_desk, rows
from tests.ui.desk_project import GLOBI_ID, KOALA_ID, build_project


def test_an_accept_with_a_note(qtbot, tmp_path: Path, data_dir: Path) -> None:
    path = tmp_path / "desk.bagel"
    build_project(path, data_dir)
    window = open_desk(qtbot, path)
    assert window.current_item_id() == KOALA_ID
    qtbot.keyClick(window, Qt.Key.Key_A, Qt.KeyboardModifier.ShiftModifier)
    dialog = window.controller.note_dialog
    assert dialog is not None and window.machine.state is State.NOTE
    qtbot.keyClicks(dialog.note, "the flag is about the stub, not the koala's diet")
    with qtbot.waitSignal(window.controller.write_finished, timeout=10_000):
        qtbot.keyClick(dialog.note, Qt.Key.Key_Return)
    assert window.current_item_id() == GLOBI_ID
    stored = rows(path, "SELECT decision, note FROM reviews WHERE item_id = ?", (KOALA_ID,))
    assert stored == [("accept", "the flag is about the stub, not the koala's diet")]

    # Esc: no decision, back to the item
    qtbot.keyClick(window, Qt.Key.Key_A, Qt.KeyboardModifier.ShiftModifier)
    dialog = window.controller.note_dialog
    assert dialog is not None
    qtbot.keyClick(dialog.note, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: window.machine.state is State.REVIEW)
    assert window.current_item_id() == GLOBI_ID
    assert rows(path, "SELECT count(*) FROM reviews WHERE item_id = ?", (GLOBI_ID,)) == [(0,)]
    close_desk(window)


def test_off_topic_and_invalid_dimension_are_reasons_to_reject(
    qtbot, tmp_path: Path, data_dir: Path
) -> None:
    assert {"off-topic", "invalid-dimension"} <= set(REJECT_REASONS)
    assert list(REJECT_REASONS)[-1] == "other"
    path = tmp_path / "desk.bagel"
    build_project(path, data_dir)
    window = open_desk(qtbot, path)
    qtbot.keyClick(window, Qt.Key.Key_R)
    dialog = window.controller.reject_dialog
    assert dialog is not None
    labels = [dialog.list.item(row).text() for row in range(dialog.list.count())]
    assert labels[8].startswith("9  ") and labels[9].startswith("0  ")
    assert labels[-1] == "X  Other (see note)"
    reasons = dict(zip(dialog.reasons, labels, strict=True))
    assert "Off topic" in reasons["off-topic"]
    assert "dimension" in reasons["invalid-dimension"].lower()
    key_of = {9: Qt.Key.Key_0, 8: Qt.Key.Key_9}
    index = dialog.reasons.index("invalid-dimension")
    qtbot.keyClick(dialog.list, key_of.get(index, Qt.Key(Qt.Key.Key_1 + index)))
    assert dialog.reason() == "invalid-dimension"
    qtbot.keyClick(dialog.note, Qt.Key.Key_Escape)
    qtbot.keyClick(window, Qt.Key.Key_R)
    dialog = window.controller.reject_dialog
    assert dialog is not None
    qtbot.keyClick(dialog.list, Qt.Key.Key_X)
    assert dialog.reason() == "other"
    index = dialog.reasons.index("off-topic")
    qtbot.keyClick(dialog.list, key_of.get(index, Qt.Key(Qt.Key.Key_1 + index)))
    with qtbot.waitSignal(window.controller.write_finished, timeout=10_000):
        qtbot.keyClick(dialog.note, Qt.Key.Key_Return)
    stored = rows(path, "SELECT reason FROM reviews WHERE item_id = ?", (KOALA_ID,))
    assert stored == [("off-topic",)]
    close_desk(window)
