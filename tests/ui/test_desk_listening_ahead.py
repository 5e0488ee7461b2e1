"""The desk hands the listening panel the items that follow the one on screen: a curator who
presses J from the item before a recording finds the recording's spectrogram there at once."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt

from tests.ui.desk_harness import close_desk, desk_on, listening_panel
from tests.ui.desk_project import BIORXIV_ID, XC_ID


def test_j_from_the_item_before_a_recording_finds_it_ready(
    qtbot, tmp_path: Path, data_dir: Path
) -> None:
    window = desk_on(qtbot, tmp_path, data_dir, BIORXIV_ID)
    panel = listening_panel(qtbot, window)
    services = window.services
    qtbot.waitUntil(lambda: not services.workers.pending and not services.writer.pending)
    assert window.queue_model.item_id(window.queue_model.row_of(BIORXIV_ID) + 1) == XC_ID
    qtbot.keyClick(window, Qt.Key.Key_J)
    assert window.current_item_id() == XC_ID
    assert panel.clip is not None and panel.clip.recording_id == "XC625750"  # no wait
    assert panel.stack.currentWidget() is panel.view
    close_desk(window)
