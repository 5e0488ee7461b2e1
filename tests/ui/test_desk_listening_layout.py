"""The listening layout has room: at 1280x800 the transport's controls are whole and apart, the
queue's columns fit without sideways scrolling, and L gives the recording the queue's width
(remembered with the window)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from PySide6.QtCore import QRect, Qt
from PySide6.QtWidgets import QBoxLayout, QWidget

from bagel_studio.ui.main_window import state_hint
from bagel_studio.ui.shortcuts import BY_ACTION, State
from tests.ui.desk_harness import close_desk, desk_on, listening_panel, open_desk
from tests.ui.desk_project import KOALA_ID, XC_ID


def _rect(widget: QWidget, ancestor: QWidget) -> QRect:
    return QRect(widget.mapTo(ancestor, widget.rect().topLeft()), widget.size())


def _xc_on_screen(qtbot, folder: Path, data_dir: Path, size: tuple[int, int]):
    """The desk at ``size`` on the Xeno-canto item, its clip loaded: (window, listening panel)."""
    window = desk_on(qtbot, folder, data_dir, XC_ID, size=size)
    panel = listening_panel(qtbot, window)
    qtbot.waitUntil(lambda: panel.clip is not None, timeout=30_000)
    qtbot.wait(50)
    return window, panel


@pytest.mark.parametrize("size", [(1280, 800), (1600, 1000), (1920, 1080)])
def test_transport_and_queue_fit(qtbot, tmp_path: Path, data_dir: Path, size) -> None:
    window, panel = _xc_on_screen(qtbot, tmp_path, data_dir, size)
    transport = panel.transport
    controls = [
        transport.play_button,
        transport.stop_button,
        transport.position_label,
        transport.speed_combo,
        transport.volume_slider,
        transport.loop_button,
        transport.measure_button,
    ]
    rects = [_rect(w, transport) for w in controls]
    for widget, rect in zip(controls, rects, strict=True):
        assert widget.isVisible()
        assert rect.width() >= widget.minimumSizeHint().width(), widget  # not squeezed
        assert transport.rect().contains(rect), widget
    for i, a in enumerate(rects):
        for b in rects[i + 1 :]:
            assert not a.intersects(b)
    label = transport.position_label
    assert label.width() >= label.fontMetrics().horizontalAdvance(label.text())

    table = window.queue.table
    assert table.horizontalScrollBar().maximum() == 0  # no sideways scrolling
    widths = [table.columnWidth(c) for c in range(table.model().columnCount())]
    assert sum(widths) <= table.viewport().width() + 1
    assert widths[-1] >= 60  # the question column keeps some room
    close_desk(window)


def test_l_gives_the_recording_the_queue_width_and_is_remembered(
    qtbot, tmp_path: Path, data_dir: Path
) -> None:
    window = desk_on(qtbot, tmp_path, data_dir, XC_ID)
    before = window.splitter.sizes()
    qtbot.keyClick(window, Qt.Key.Key_L)
    assert window.listening_wide and not window.queue.isVisible()
    assert window.evidence.currentIndex() == 2  # the recording
    wide = window.splitter.sizes()
    assert wide[2] > before[2] + before[0] * 0.8  # the evidence took the queue's width
    assert wide[1] == window.splitter.widget(1).minimumWidth()
    qtbot.keyClick(window, Qt.Key.Key_J)  # the review keys keep working
    qtbot.keyClick(window, Qt.Key.Key_L)
    assert not window.listening_wide and window.queue.isVisible()
    assert window.splitter.sizes() == before
    qtbot.keyClick(window, Qt.Key.Key_L)
    close_desk(window)  # closed in the listening layout

    again = open_desk(qtbot, tmp_path / "desk.bagel")  # the project desk_on built
    assert again.listening_wide and not again.queue.isVisible()
    qtbot.keyClick(again, Qt.Key.Key_L)
    assert again.queue.isVisible()
    assert again.splitter.sizes()[0] >= again.queue.minimumWidth()  # the queue has its room
    close_desk(again)


def test_the_recording_is_described_once_and_the_measurements_have_room(
    qtbot, tmp_path: Path, data_dir: Path
) -> None:
    """At 1280x800 the card above the spectrogram names the recording (species, type,
    recordist, licence), whole, without scrolling; the panel's header does not say it again,
    only what the decoded file is, on one line, and the height goes to the
    measurements below the spectrogram."""
    window, panel = _xc_on_screen(qtbot, tmp_path, data_dir, (1280, 800))
    recording = window.evidence.recording
    card = recording.text()
    header = panel.header.text()
    # the whole card is on screen, no row scrolled away or cut: every field, the title too
    assert set(recording.labels) >= {"Type", "Recordist", "Licence", "URL", "File", "Length"}
    assert recording.visibleRegion().boundingRect() == recording.rect()
    for label in [recording.title, *recording.labels.values()]:
        assert label.isVisible()
        assert recording.rect().contains(_rect(label, recording)), label.text()
        assert label.height() >= label.heightForWidth(label.width())  # no line cut off
    assert recording.labels["Licence"].text() == "CC BY-NC-SA 4.0"  # the URL in its tooltip
    assert "creativecommons.org" in recording.labels["Licence"].toolTip()
    assert _rect(recording, window).bottom() < _rect(panel, window).top()  # above, not over
    assert "Passer domesticus" in card and "House Sparrow" in card
    assert "House Sparrow" not in header and "Passer domesticus" not in header
    assert header.startswith("Decoded: ") and "kHz" in header and "peak" in header
    assert "XC625750" not in header  # the card's title names it
    assert panel.header.height() <= 2 * panel.header.fontMetrics().lineSpacing()
    scroll = panel.measurement_scroll
    assert panel.body.direction() == QBoxLayout.Direction.TopToBottom  # a narrow column
    assert scroll.height() >= 190
    assert panel.view.height() >= 200  # the spectrogram keeps its room
    close_desk(window)


def test_the_status_bar_names_the_frequent_keys_whole_at_1280(
    qtbot, tmp_path: Path, data_dir: Path
) -> None:
    """The key hint names what applies: Space where the item has a recording, 1-4 in blind
    mode, and stays whole at 1280x800 in every state."""
    window, _ = _xc_on_screen(qtbot, tmp_path, data_dir, (1280, 800))
    label = window.state_label

    def whole() -> str:
        assert label.isVisible()
        text = label.text()
        assert label.width() >= label.fontMetrics().horizontalAdvance(text)  # not cut off
        return text

    text = whole()
    for key in ("A accept", "Space play", "J/K move", "/ search", "Ctrl+Z undo", "F1 keys"):
        assert key in text
    qtbot.keyClick(window, Qt.Key.Key_B, Qt.KeyboardModifier.ControlModifier)  # blind mode
    qtbot.waitUntil(lambda: "1-4" in label.text())
    text = whole()
    assert "answer 1-4" in text and "Space play" in text and "A accept" not in text
    window.show_item(KOALA_ID)  # no recording: no Space
    qtbot.waitUntil(lambda: window.current_item_id() == KOALA_ID)
    text = whole()
    assert "answer 1-4" in text and "Space" not in text
    qtbot.keyClick(window, Qt.Key.Key_B, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: "A accept" in label.text())
    assert "Space" not in whole()
    close_desk(window)


@pytest.mark.parametrize(("size", "spectrogram"), [((1280, 800), 240), ((1600, 1000), 300)])
def test_the_measurements_are_whole_below_the_spectrogram(
    qtbot, tmp_path: Path, data_dir: Path, size, spectrogram
) -> None:
    """The measurements below the spectrogram show every line, down to the last option's
    verdict (it scrolled out of sight at 1600x1000, and at 1280x800 'Options vs the clip'
    lost its last line), and the spectrogram keeps its room."""
    window, panel = _xc_on_screen(qtbot, tmp_path, data_dir, size)
    qtbot.waitUntil(lambda: bool(panel.measurements.verdicts), timeout=30_000)
    scroll = panel.measurement_scroll
    assert panel.body.direction() == QBoxLayout.Direction.TopToBottom
    assert "Options vs the clip" in panel.measurements.body.text()
    qtbot.waitUntil(lambda: scroll.verticalScrollBar().maximum() == 0, timeout=5_000)
    inner = panel.measurements
    assert inner.heightForWidth(scroll.viewport().width()) <= scroll.viewport().height()
    assert scroll.height() >= 190
    assert panel.view.height() >= spectrogram
    close_desk(window)


def test_the_play_hint_names_the_tables_key(monkeypatch: pytest.MonkeyPatch) -> None:
    """The status bar's 'Space play' is written from the shortcut table, as the species line's
    [H] is: a key rebound there is the key the hint names."""
    assert "Space play · J/K move" in state_hint(State.REVIEW.value, has_recording=True)
    play = BY_ACTION["play"]
    monkeypatch.setitem(BY_ACTION, "play", replace(play, keys=("P", *play.keys)))
    assert "P play · J/K move" in state_hint(State.REVIEW.value, has_recording=True)
    assert " play" not in state_hint(State.REVIEW.value, has_recording=False)
