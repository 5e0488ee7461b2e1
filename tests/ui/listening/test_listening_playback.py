"""Real playback through the PulseAudio null sink: the playhead follows the stream's clock, pauses,
seeks and loops; and without a usable device the panel says why and keeps working."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from bagel_studio.ui.listening import ListeningPanel
from bagel_studio.ui.plain import plain_tooltip
from bagel_studio.ui.services import Services
from tests.support.pulse import record_monitor
from tests.ui.listening.conftest import FREQ_ITEM, idle, open_panel, show_and_wait


@pytest.fixture
def audio_panel(qtbot: QtBot, pulse_sink: str, services: Services) -> ListeningPanel:
    panel = open_panel(qtbot, services)
    yield panel
    panel.shutdown()
    idle(qtbot, services)


def _ready(qtbot: QtBot, panel: ListeningPanel) -> list[float]:
    show_and_wait(qtbot, panel, FREQ_ITEM)
    assert panel.transport.play_button.isEnabled(), panel.transport.reason_label.text()
    positions: list[float] = []
    panel.controller.position_changed.connect(positions.append)
    return positions


@pytest.mark.audio
def test_playhead_follows_the_stream_and_stops_at_pause(
    qtbot: QtBot, audio_panel: ListeningPanel, pulse_sink: str, tmp_path: Path
):
    panel = audio_panel
    positions = _ready(qtbot, panel)
    with record_monitor(pulse_sink, tmp_path / "heard.wav"):
        panel.toggle_play()
        assert panel.controller.is_playing
        assert panel.transport.play_button.text() == "❚❚ Pause"
        # past 1 s and seen in many playhead frames (fewer per second on a busy machine)
        qtbot.waitUntil(
            lambda: panel.view.playhead.value() > 1.0 and len({p for p in positions if p}) >= 10,
            timeout=30_000,
        )
        panel.toggle_play()
    paused_at = panel.view.playhead.value()
    assert not panel.controller.is_playing
    assert panel.transport.play_button.text() == "▶ Play"
    assert paused_at == pytest.approx(panel.controller.player.position_s())
    assert 1.0 < paused_at < 6.0  # before the clip's end
    qtbot.wait(200)
    assert panel.view.playhead.value() == paused_at  # paused: the clock stands still
    moving = [p for p in positions if p > 0]
    assert len(set(moving)) >= 10  # many playhead frames, each from the stream clock
    assert moving == sorted(moving)
    assert panel.transport.position_label.text().startswith(f"0:{paused_at:06.3f}")
    heard, _rate = sf.read(str(tmp_path / "heard.wav"), dtype="float32")
    assert float(np.sqrt(np.mean(np.square(heard)))) > 1e-3  # the clip really played


@pytest.mark.audio
def test_seek_and_stop_move_the_playhead(qtbot: QtBot, audio_panel: ListeningPanel):
    panel = audio_panel
    _ready(qtbot, panel)
    panel.seek_relative(1.0)
    assert panel.view.playhead.value() == pytest.approx(1.0)
    panel.seek_relative(5.0)
    assert panel.view.playhead.value() == pytest.approx(6.0)
    panel.seek_relative(-2.5)
    assert panel.view.playhead.value() == pytest.approx(3.5)
    panel.view.seek_requested.emit(2.25)  # a click on the spectrogram
    assert panel.view.playhead.value() == pytest.approx(2.25)
    panel.stop()
    assert panel.view.playhead.value() == pytest.approx(0.0)


@pytest.mark.audio
def test_loop_keeps_the_playhead_inside_the_box(qtbot: QtBot, audio_panel: ListeningPanel):
    panel = audio_panel
    positions = _ready(qtbot, panel)
    panel.view.set_selection(1.0, 1.4, 2000.0, 6000.0)
    panel.transport.loop_button.setChecked(True)
    assert panel.controller.player.loop == pytest.approx((1.0, 1.4))
    positions.clear()
    panel.toggle_play()

    def wrapped() -> bool:
        return any(b < a for a, b in itertools.pairwise(positions))

    qtbot.waitUntil(lambda: wrapped() and len(positions) >= 5, timeout=30_000)
    panel.toggle_play()
    assert len(positions) >= 5
    assert all(0.99 <= p <= 1.41 for p in positions), positions


@pytest.mark.audio
def test_speed_and_volume_reach_the_player(qtbot: QtBot, audio_panel: ListeningPanel):
    panel = audio_panel
    _ready(qtbot, panel)
    combo = panel.transport.speed_combo
    combo.setCurrentIndex(combo.findData(0.1))
    assert panel.controller.player.speed == pytest.approx(0.1)
    panel.transport.volume_slider.setValue(30)
    assert panel.controller.player.volume == pytest.approx(0.3)
    panel.toggle_play()
    qtbot.waitUntil(lambda: panel.view.playhead.value() > 0.05, timeout=30_000)
    panel.toggle_play()
    assert panel.transport.play_button.isEnabled()


def test_without_a_device_the_reason_takes_one_line_of_a_narrow_column(
    qtbot: QtBot, services: Services
):
    """At 1280x800 the desk's evidence column is about 380 px wide: the reason for no playback
    wrapped there into four lines the measurements below the spectrogram needed. It takes one
    line, elided, the whole reason in its tooltip."""
    column = QWidget()  # the desk's column: the panel has its width, whatever its hints
    qtbot.addWidget(column)
    panel = ListeningPanel(services, column, device="no-such-output-device")
    panel.setGeometry(0, 0, 378, 629)
    column.resize(378, 629)
    column.show()
    try:
        show_and_wait(qtbot, panel, FREQ_ITEM)
        label = panel.transport.reason_label
        qtbot.waitUntil(label.isVisible)
        reason = label.text()
        assert reason.startswith("No playback: ")
        assert label.fontMetrics().horizontalAdvance(reason) > 378  # it would wrap
        assert label.height() < 2 * label.fontMetrics().lineSpacing()  # one line
        assert panel.transport.width() <= 378 and label.width() <= panel.transport.width()
        shown = label.shown_text()
        assert shown.endswith("…") and reason.startswith(shown[:-1])
        assert label.toolTip() == plain_tooltip(reason)
    finally:
        panel.shutdown()
        idle(qtbot, services)


def test_without_a_device_the_panel_says_why_and_keeps_working(qtbot: QtBot, services: Services):
    panel = open_panel(qtbot, services, device="no-such-output-device")
    messages: list[str] = []
    panel.status_message.connect(messages.append)
    try:
        show_and_wait(qtbot, panel, FREQ_ITEM)
        assert not panel.transport.play_button.isEnabled()
        reason = panel.transport.reason_label.text()
        assert reason.startswith("No playback: ") and len(reason) > len("No playback: ")
        panel.toggle_play()  # Space with no device: a message, no exception
        assert messages and messages[-1].startswith(("Cannot play", "Playback unavailable"))
        assert panel.view.spectrogram is not None
        panel.view.set_selection(1.0, 1.1, 3000.0, 5000.0)
        assert panel.view.selection_label.text().startswith("Δt = 100 ms, 3–5 kHz")
        assert panel.transport.measure_button.isEnabled()
    finally:
        panel.shutdown()
        idle(qtbot, services)
