"""The desk driven by keyboard: decide, reject, edit, skip, undo; then the project file is read."""

from __future__ import annotations

import json
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from bagel_studio.core.store import Store
from bagel_studio.ui.shortcuts import State
from tests.ui.desk_harness import close_desk, open_desk, rows
from tests.ui.desk_project import (
    BIORXIV_ID,
    BROKEN_ID,
    GLOBI_ID,
    KOALA_ID,
    XC_ID,
    build_project,
)


def press(qtbot, window, key, modifier=Qt.KeyboardModifier.NoModifier):
    """A decision key: wait until its write has committed and the next item is on screen."""
    with qtbot.waitSignal(window.controller.write_finished, timeout=10_000):
        qtbot.keyClick(window, key, modifier)


def test_keyboard_session_is_in_the_project_file(qtbot, tmp_path: Path, data_dir: Path) -> None:
    path = tmp_path / "desk.bagel"
    build_project(path, data_dir)
    window = open_desk(qtbot, path)
    assert window.current_item_id() == KOALA_ID

    press(qtbot, window, Qt.Key.Key_A)  # accept
    assert window.current_item_id() == GLOBI_ID

    qtbot.keyClick(window, Qt.Key.Key_R)  # reject: reason 2, a note, Enter
    dialog = window.controller.reject_dialog
    assert dialog is not None and window.machine.state is State.REJECT
    qtbot.keyClick(dialog.list, Qt.Key.Key_2)
    qtbot.keyClicks(dialog.note, "two hosts fit")
    with qtbot.waitSignal(window.controller.write_finished, timeout=10_000):
        qtbot.keyClick(dialog.note, Qt.Key.Key_Return)
    assert window.current_item_id() == BIORXIV_ID
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)

    qtbot.keyClick(window, Qt.Key.Key_E)  # edit the stem and the gold, then save
    assert window.machine.state is State.EDIT
    editor = window.item_view.editor
    editor.stem.selectAll()
    qtbot.keyClicks(editor.stem, "What lowered each bat's risk of capture by hawks?")
    editor.gold_buttons[0].setFocus()
    qtbot.keyClick(window, Qt.Key.Key_2)  # gold B (unchanged) chosen by key
    qtbot.keyClick(window, Qt.Key.Key_1)  # then gold A ...
    qtbot.keyClick(window, Qt.Key.Key_2)  # ... and back to B: only the stem changes
    press(qtbot, window, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    assert window.current_item_id() == XC_ID

    press(qtbot, window, Qt.Key.Key_S)  # skip, then take the skip back
    assert window.current_item_id() != XC_ID
    press(qtbot, window, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert window.current_item_id() == XC_ID
    assert "[undone]" in window.item_view.history.texts()[1]
    close_desk(window)

    with Store.open(path, read_only=True) as store:
        decisions = {r.item_id: r for r in store.reviews.all()}
        assert set(decisions) == {KOALA_ID, GLOBI_ID, BIORXIV_ID}
        assert decisions[KOALA_ID].decision.value == "accept"
        assert decisions[GLOBI_ID].decision.value == "reject"
        assert decisions[GLOBI_ID].reason == "several-answers"
        assert decisions[GLOBI_ID].note == "two hosts fit"
        assert decisions[BIORXIV_ID].decision.value == "revise"
        edited = store.items.get(BIORXIV_ID).content
        assert edited.question == "What lowered each bat's risk of capture by hawks?"
        assert edited.answer_index == 1
        assert all(r.curator == "ana" for r in decisions.values())
    history = rows(path, "SELECT item_id, action, after FROM history ORDER BY id")
    assert [(h[0], h[1]) for h in history] == [
        (KOALA_ID, "decide"),
        (GLOBI_ID, "decide"),
        (BIORXIV_ID, "edit"),
        (BIORXIV_ID, "decide"),
        (XC_ID, "decide"),
        (XC_ID, "undo"),
    ]
    assert json.loads(history[4][2])["decision"] == "skip"


def test_accept_with_a_blocking_flag_is_refused(qtbot, tmp_path: Path, data_dir: Path) -> None:
    path = tmp_path / "blocked.bagel"
    build_project(path, data_dir, tricky=True)
    window = open_desk(qtbot, path)
    window.show_item(BROKEN_ID)
    assert any("BLOCKING" in text for text in window.item_view.flag_texts())

    press(qtbot, window, Qt.Key.Key_A)
    assert window.current_item_id() == BROKEN_ID
    assert window.item_view.banner.isVisible()
    assert "cannot be accepted" in window.item_view.banner.text()
    assert window.machine.state is State.REVIEW
    close_desk(window)
    assert rows(path, "SELECT count(*) FROM reviews") == [(0,)]


def test_keys_are_ignored_while_a_write_is_in_flight(qtbot, tmp_path: Path, data_dir: Path) -> None:
    path = tmp_path / "busy.bagel"
    build_project(path, data_dir)
    window = open_desk(qtbot, path)
    window.machine.set_state(State.WRITING)
    qtbot.keyClick(window, Qt.Key.Key_A)
    qtbot.keyClick(window, Qt.Key.Key_J)
    assert window.current_item_id() == KOALA_ID
    window.machine.set_state(State.REVIEW)
    close_desk(window)
    assert rows(path, "SELECT count(*) FROM reviews") == [(0,)]


def test_blind_mode_hides_gold_and_stores_the_answer(qtbot, tmp_path: Path, data_dir: Path) -> None:
    path = tmp_path / "blind.bagel"
    build_project(path, data_dir)
    window = open_desk(qtbot, path, blind=True)
    options = window.item_view.options
    assert window.machine.state is State.BLIND
    assert not any("gold" in label.text() for label in options)

    qtbot.keyClick(window, Qt.Key.Key_A)  # accepting before answering is not possible
    assert window.machine.state is State.BLIND
    qtbot.keyClick(window, Qt.Key.Key_3)  # answer C; the gold (B) is revealed
    assert window.machine.state is State.REVIEW
    assert "✓ gold" in options[1].text()
    assert "your answer" in options[2].text()
    press(qtbot, window, Qt.Key.Key_A)
    close_desk(window)
    assert rows(path, "SELECT item_id, blind_answer, decision FROM reviews") == [
        (KOALA_ID, 2, "accept")
    ]


def test_navigation_and_undo_with_nothing_to_undo(qtbot, tmp_path: Path, data_dir: Path) -> None:
    path = tmp_path / "nav.bagel"
    ids = build_project(path, data_dir)
    window = open_desk(qtbot, path)
    qtbot.keyClick(window, Qt.Key.Key_J)
    assert window.current_item_id() == ids[1]
    qtbot.keyClick(window, Qt.Key.Key_Down)
    assert window.current_item_id() == ids[2]
    qtbot.keyClick(window, Qt.Key.Key_K)
    assert window.current_item_id() == ids[1]
    press(qtbot, window, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert "Nothing left to undo" in window.item_view.banner.text()
    qtbot.keyClick(window, Qt.Key.Key_E)
    qtbot.keyClick(window, Qt.Key.Key_Escape)  # cancel the edit: nothing is written
    assert window.machine.state is State.REVIEW
    close_desk(window)
    assert rows(path, "SELECT count(*) FROM history") == [(0,)]
