"""The desk hands the listening panel the items that follow the one on screen: a curator who
presses J from the item before a recording finds the recording's spectrogram there at once."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt

from bagel_studio.core.model import Item
from tests.ui.desk_harness import close_desk, desk_on, listening_panel, open_desk
from tests.ui.desk_project import BIORXIV_ID, XC_ID
from tests.ui.listening.conftest import FREQ_ITEM
from tests.ui.listening.conftest import build_project as build_clip_project


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


def test_the_next_recording_is_prepared_before_the_panel_is_built(
    qtbot, tmp_path: Path, data_dir: Path
) -> None:
    """The desk prepares from its first item on, not once the panel is built: on a loaded
    machine the warm-up took longer than a curator's first pause, and the first arrival at a
    recording waited for its clip to load."""
    window = desk_on(qtbot, tmp_path, data_dir, BIORXIV_ID)
    evidence = window.evidence
    evidence.warmup.stop()  # as if the curator had kept the desk busy since it opened
    services = window.services
    qtbot.waitUntil(lambda: XC_ID in evidence.ahead.prepared, timeout=30_000)
    assert evidence.listening is None
    qtbot.waitUntil(lambda: not services.workers.pending)
    qtbot.keyClick(window, Qt.Key.Key_J)
    assert window.current_item_id() == XC_ID
    panel = evidence.listening_now()  # built now: it finds the clip in the desk's caches
    assert panel is not None
    assert panel.clip is not None and panel.clip.recording_id == "XC625750"  # no "Loading…"
    close_desk(window)


def test_the_recording_on_screen_is_prepared_while_the_panel_is_built(
    qtbot, tmp_path: Path, data_dir: Path
) -> None:
    build_clip_project(tmp_path, data_dir).close()
    window = open_desk(qtbot, tmp_path / "project.bagel", curator="t")
    assert window.current_item_id() == FREQ_ITEM  # the desk opens on a recording
    evidence = window.evidence
    evidence.warmup.stop()
    qtbot.waitUntil(lambda: FREQ_ITEM in evidence.ahead.prepared, timeout=30_000)
    assert evidence.listening is None
    panel = evidence.listening_now()
    assert panel is not None and panel.clip is not None  # on screen as the panel is
    close_desk(window)


def test_from_a_text_item_the_panel_gets_the_recording_with_its_tab_on_screen(
    qtbot, tmp_path: Path, data_dir: Path
) -> None:
    """The recording tab is shown and laid out before the panel draws the clip: drawn first on
    the hidden tab, its plot and labels were laid out again as the tab appeared, while the
    clip's measurement had started on the workers (the first arrival took 2-3 times a later
    one)."""
    window = desk_on(qtbot, tmp_path, data_dir, BIORXIV_ID)
    panel = listening_panel(qtbot, window)
    evidence = window.evidence
    assert evidence.currentIndex() == 0  # the bioRxiv item's text
    seen: list[tuple[int, bool, bool]] = []
    show = panel.show_item

    def recorded(item: Item) -> None:
        seen.append((evidence.currentIndex(), evidence.isTabVisible(2), panel.isVisible()))
        show(item)

    panel.show_item = recorded  # type: ignore[method-assign]
    qtbot.keyClick(window, Qt.Key.Key_J)
    assert window.current_item_id() == XC_ID
    assert seen == [(2, True, True)]
    close_desk(window)
