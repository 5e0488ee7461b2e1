"""The windows opened from the desk's menus and the listening panel keep the desk up to date:
an adjudication or a merge shows in the queue and the item, Enter in the ambiguity queue brings
the item to the desk, a reopened panel shows the project as it is now, and a clip measured in the
background puts its acoustic flags on screen."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from bagel_studio.core.audio import dsp
from bagel_studio.core.merge import merge_projects
from bagel_studio.core.model import ItemContent, Status
from bagel_studio.core.store import NewItem
from bagel_studio.ui.shortcuts import State
from tests.ui.desk_harness import close_desk, listening_panel, open_desk
from tests.ui.desk_project import KOALA_ID, build_project
from tests.ui.listening.conftest import CROWNED, FREQ_OPTIONS, WRONG_GOLD_ITEM
from tests.ui.listening.conftest import build_project as build_clip_project
from tests.ui.test_adjudication import W, curator_files

FREQUENCY = "Dominant frequency range"
STATUS_COLUMN = 4
FLAGS_COLUMN = 5


@pytest.fixture
def files(tmp_path: Path, data_dir: Path) -> dict[str, Path]:
    return curator_files(tmp_path, data_dir)


def cell(window, item_id: str, column: int) -> str:
    model = window.queue_model
    return str(model.data(model.index(model.row_of(item_id), column)))


def test_merge_and_adjudication_in_their_window_show_in_the_desk(
    qtbot, files: dict[str, Path]
) -> None:
    window = open_desk(qtbot, files["dana"], curator="dana")
    window.menus.open_panel("adjudication")
    panel = window.menus.panels["adjudication"]
    qtbot.addWidget(panel)
    window.show_item(W[1])
    with qtbot.waitSignal(panel.merged, timeout=10_000):
        panel.merge_files([str(files[n]) for n in ("alice", "bob", "carol")])
    assert cell(window, W[1], STATUS_COLUMN) == Status.DISPUTED.value
    assert "status: disputed" in window.item_view.meta.text().replace("\u00a0", " ")
    assert any("merge" in line for line in window.item_view.history.texts())

    panel.queue.setCurrentRow(panel.item_ids().index(W[1]))
    with qtbot.waitSignal(panel.adjudicated, timeout=10_000):
        panel.take_version(3)  # carol's rejection
    assert cell(window, W[1], STATUS_COLUMN) == Status.REJECTED.value
    assert "status: rejected" in window.item_view.meta.text().replace("\u00a0", " ")
    assert "adjudicate" in window.item_view.history.texts()[0]
    assert window.machine.state is State.REVIEW
    panel.close()
    close_desk(window)


def test_a_reopened_adjudication_window_shows_a_merge_made_while_it_was_closed(
    qtbot, files: dict[str, Path]
) -> None:
    window = open_desk(qtbot, files["dana"], curator="dana")
    window.menus.open_panel("adjudication")
    panel = window.menus.panels["adjudication"]
    qtbot.addWidget(panel)
    assert panel.item_ids() == []
    panel.close()
    store = window.store
    paths = [str(files[n]) for n in ("alice", "bob", "carol")]
    with qtbot.waitSignal(window.controller.write_finished, timeout=10_000):
        window.services.writer.submit(
            lambda: merge_projects(store, paths), lambda _r: window.controller.write_finished.emit()
        )
    window.menus.open_panel("adjudication")
    assert panel.item_ids() == [W[1], W[2], W[3], "globi:2:0"]
    panel.close()
    close_desk(window)


def test_enter_in_the_ambiguity_queue_shows_the_item_in_the_desk(
    qtbot, tmp_path: Path, data_dir: Path
) -> None:
    path = tmp_path / "desk.bagel"
    build_project(path, data_dir)
    window = open_desk(qtbot, path)
    assert window.current_item_id() == KOALA_ID
    window.menus.open_panel("ambiguity")
    panel = window.menus.panels["ambiguity"]
    qtbot.addWidget(panel)
    qtbot.waitUntil(panel.isActiveWindow)
    flagged = panel.current_item_id()
    assert flagged is not None and flagged != KOALA_ID
    panel.queue.setFocus()
    qtbot.keyClick(panel.queue, Qt.Key.Key_Return)
    assert window.current_item_id() == flagged
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    panel.close()
    close_desk(window)


def test_flags_from_a_clip_measured_in_the_background_appear_in_the_desk(
    qtbot, tmp_path: Path, data_dir: Path
) -> None:
    # scipy.signal is imported lazily, and not safely from two threads at once (a core matter):
    # import it here so that the two clips loading below cannot race on it.
    dsp.signal.get_window("hann", 16)
    # The desk opens on an item of the other clip, so nothing measures this item's clip before
    # it is shown: its measurement surely finishes (and re-checks it) after show_item, however
    # fast or slow the machine. (On the first item of the same clip the measurement could end
    # while the desk opens, the item would then come up already flagged, and no signal follow.)
    first = NewItem(
        id="xeno-canto:white-crowned:first",
        domain="Xeno-canto",
        content=ItemContent("Which band does this call span?", FREQ_OPTIONS, 1, FREQUENCY),
        recording_id=CROWNED,
    )
    build_clip_project(tmp_path, data_dir, leading=[first]).close()
    window = open_desk(qtbot, tmp_path / "project.bagel", curator="t")
    assert window.current_item_id() == first.id
    panel = listening_panel(qtbot, window)

    # BirdNET's detection of the same clip also re-checks the item and says so, and may finish
    # first: wait for the signal after which the measurement's flag is in the project.
    def measured(item_id: str) -> bool:
        flags = window.store.flags.of_item(WRONG_GOLD_ITEM)
        return item_id == WRONG_GOLD_ITEM and "acoustic-mismatch" in {f.check for f in flags}

    with qtbot.waitSignal(
        panel.flags_changed,
        timeout=120_000,  # a clip's measurement on a loaded machine
        check_params_cb=measured,
    ):
        window.show_item(WRONG_GOLD_ITEM)
    assert "acoustic-mismatch" in {f.check for f in window.store.flags.of_item(WRONG_GOLD_ITEM)}
    assert any("acoustic-mismatch" in text for text in window.item_view.flag_texts())
    assert cell(window, WRONG_GOLD_ITEM, FLAGS_COLUMN) != ""
    close_desk(window)


def test_a_merge_in_another_window_keeps_an_edit_in_progress(qtbot, files: dict[str, Path]) -> None:
    window = open_desk(qtbot, files["dana"], curator="dana")
    window.menus.open_panel("adjudication")
    panel = window.menus.panels["adjudication"]
    qtbot.addWidget(panel)
    window.show_item(W[1])
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    qtbot.keyClick(window, Qt.Key.Key_E)
    window.item_view.editor.stem.setPlainText("A stem being rewritten")
    with qtbot.waitSignal(panel.merged, timeout=10_000):
        panel.merge_files([str(files[n]) for n in ("alice", "bob", "carol")])
    assert window.machine.state is State.EDIT
    assert window.item_view.editor.stem.toPlainText() == "A stem being rewritten"
    assert cell(window, W[1], STATUS_COLUMN) == Status.DISPUTED.value
    panel.close()
    close_desk(window)
