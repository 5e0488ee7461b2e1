"""Transport controls and the playhead clock.

``TransportBar`` is the row of controls; ``PlaybackController`` owns the core ``Player`` and a
~30 ms timer that reads ``player.position_s()`` (the audio stream's own clock, as in Friture) and
publishes it. Every player call is guarded: a device that disappears mid-session turns the
transport off with a reason instead of raising into the desk.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtGui import QPainter, QPaintEvent, QResizeEvent
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QSizePolicy,
    QSlider,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from bagel_studio.ui.plain import plain_tooltip

SPEEDS = (0.1, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 2.0)
TICK_MS = 30


class OneLineLabel(QLabel):
    """A plain text on one line, elided at the width it has, the whole in its tooltip (and in
    ``text()``). The player's reason for no playback (how to start a sound server) wrapped into
    four lines of a narrow desk column, and the measurements below the spectrogram lost them."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setWordWrap(False)
        # its width is the column's, not its text's: a long reason does not widen the panel
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)

    def setText(self, text: str) -> None:
        super().setText(text)
        self.setToolTip(plain_tooltip(text) if text else "")

    def shown_text(self) -> str:
        """What is on screen: the text, elided at the label's width."""
        room = self.contentsRect().width()
        return self.fontMetrics().elidedText(self.text(), Qt.TextElideMode.ElideRight, room)

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        self.style().drawItemText(
            painter, self.contentsRect(), int(self.alignment()), self.palette(),
            self.isEnabled(), self.shown_text(), self.foregroundRole(),
        )  # fmt: skip


def format_clock(seconds: float) -> str:
    """``m:ss.mmm``: curators read call onsets to the millisecond."""
    seconds = max(0.0, seconds)
    minutes, rest = divmod(seconds, 60.0)
    return f"{int(minutes)}:{rest:06.3f}"


class PlaybackController(QObject):
    """Drives a core Player from the UI thread and reports its position from the stream clock.

    ``availability_changed(ok, reason)`` tells the transport whether it can play the loaded clip;
    the reason is the core's one-line explanation (no device, device refused the stream, ...).
    """

    position_changed = Signal(float)
    playing_changed = Signal(bool)
    availability_changed = Signal(bool, str)
    message = Signal(str)

    def __init__(self, player: Any, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.player = player
        self.reason = ""
        self.loaded = False
        self._was_playing = False
        self._timer = QTimer(self)
        self._timer.setInterval(TICK_MS)
        self._timer.setTimerType(Qt.TimerType.PreciseTimer)
        self._timer.timeout.connect(self.tick)

    @property
    def can_play(self) -> bool:
        return self.loaded and not self.reason

    @property
    def is_playing(self) -> bool:
        try:
            return self.loaded and bool(self.player.is_playing)
        except Exception:  # a dead stream is simply not playing
            return False

    def set_unavailable(self, reason: str) -> None:
        """No playback (no device, stream refused): the transport greys out and says why."""
        self._timer.stop()
        self.reason = reason or "audio output unavailable"
        self.availability_changed.emit(False, self.reason)
        self._publish_state(False)

    def _guard(self, action: str, call: Callable[[], Any]) -> Any:
        """Run a player call; a failure turns playback off with the reason, never raises."""
        try:
            return call()
        except Exception as exc:  # a playback failure must never reach the desk
            self.set_unavailable(f"Cannot {action}: {exc}")
            return None

    def load(self, audio: Any) -> None:
        """Hand the clip to the player (it opens the stream now, so Space starts at once)."""
        self.unload()
        self.reason = ""
        self.loaded = True
        self._guard("open the audio output", lambda: self.player.load(audio))
        if not self.reason:
            reason = self.player.unavailable_reason
            if reason:
                self.set_unavailable(str(reason))
            else:
                self.availability_changed.emit(True, "")
        self.position_changed.emit(0.0)

    def unload(self) -> None:
        if self.loaded:
            self._guard("stop", self.player.stop)
            self._guard("clear the loop", lambda: self.player.set_loop(None, None))
        self.loaded = False
        self._timer.stop()
        self._publish_state(False)
        self.position_changed.emit(0.0)

    def toggle(self) -> None:
        if not self.can_play:
            if self.reason:
                self.message.emit(f"Cannot play: {self.reason}")
            return
        if self.is_playing:
            self._guard("pause", self.player.pause)
        else:
            self._guard("play", self.player.play)
        self.tick()
        if self.is_playing:
            self._timer.start()

    def stop(self) -> None:
        if self.loaded:
            self._guard("stop", self.player.stop)
        self.tick()

    def seek(self, seconds: float) -> None:
        if not self.loaded:
            return
        self._guard("seek", lambda: self.player.seek(max(0.0, seconds)))
        self.tick()

    def seek_relative(self, delta: float) -> None:
        if self.loaded:
            self.seek(self.position() + delta)

    def position(self) -> float:
        if not self.loaded:
            return 0.0
        value = self._guard("read the position", self.player.position_s)
        return float(value) if value is not None else 0.0

    def set_loop(self, start: float | None, end: float | None) -> None:
        if not self.loaded:
            return
        try:
            self.player.set_loop(start, end)
        except ValueError as exc:  # e.g. a box too short to loop: say so, keep playing
            self.message.emit(str(exc))
        except Exception as exc:
            self.set_unavailable(f"Cannot loop: {exc}")
        self.tick()

    def set_volume(self, volume: float) -> None:
        self._guard("set the volume", lambda: self.player.set_volume(volume))

    def set_speed(self, speed: float) -> None:
        self._guard("set the speed", lambda: self.player.set_speed(speed))
        if self.loaded and not self.reason:
            reason = self.player.unavailable_reason
            if reason:
                self.set_unavailable(str(reason))
        self.tick()

    def tick(self) -> None:
        """One playhead frame: read the stream clock, publish it, notice the end of the clip."""
        self.position_changed.emit(self.position())
        playing = self.is_playing
        if not playing:
            self._timer.stop()
        self._publish_state(playing)

    def _publish_state(self, playing: bool) -> None:
        if playing != self._was_playing:
            self._was_playing = playing
            self.playing_changed.emit(playing)

    def close(self) -> None:
        self._timer.stop()
        self.loaded = False
        with contextlib.suppress(Exception):  # closing at shutdown: nothing left to tell
            self.player.close()


def _button(text: str, tip: str, checkable: bool = False) -> QToolButton:
    button = QToolButton()
    button.setText(text)
    button.setToolTip(tip)
    button.setCheckable(checkable)
    button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
    # The desk owns Space and the arrows; a focused button would swallow them.
    button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
    return button


class TransportBar(QWidget):
    """Play/pause, stop, position, speed, volume, loop and the measuring tool."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.play_button = _button("▶ Play", "Play / pause (Space); ←/→ seek 1 s, with Shift 5 s")
        self.stop_button = _button("■ Stop", "Stop and rewind (Shift+Space)")
        self.position_label = QLabel(format_clock(0) + " / " + format_clock(0))
        self.position_label.setObjectName("positionLabel")
        metrics = self.position_label.fontMetrics()
        self.position_label.setMinimumWidth(metrics.horizontalAdvance("00:00.000 / 00:00.000"))
        self.speed_combo = QComboBox()
        for speed in SPEEDS:
            self.speed_combo.addItem(f"{speed:g}×", speed)
        self.speed_combo.setCurrentIndex(SPEEDS.index(1.0))
        self.speed_combo.setToolTip(
            "Playback speed (time expansion: slower is lower in pitch); [ slower, ] faster"
        )
        self.volume_slider = QSlider(Qt.Orientation.Horizontal)
        self.volume_slider.setRange(0, 100)
        self.volume_slider.setValue(80)
        self.volume_slider.setFixedWidth(90)
        self.volume_slider.setToolTip("Volume")
        self.loop_button = _button("⟲ Loop", "Loop the measured box, or the whole clip (O)", True)
        self.measure_button = _button("▭ Measure", "Drag a box to measure (M; or Shift+drag)", True)
        self.reason_label = OneLineLabel()  # the player's error text is data: plain text
        self.reason_label.setObjectName("playerReason")
        self.reason_label.setStyleSheet("color: #b26a00;")
        self.speed_combo.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.volume_slider.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        # Two groups: play/stop/position, and speed/volume/loop/measure. They share one row when
        # the panel is wide enough and take two rows otherwise, so that nothing is ever squeezed
        # under its neighbour (the time and the Measure button were cut at 1280x800).
        self.controls = QHBoxLayout()
        self.controls.setContentsMargins(0, 0, 0, 0)
        for widget in (self.play_button, self.stop_button, self.position_label):
            self.controls.addWidget(widget)
        self.settings_group = QWidget(self)
        group = QHBoxLayout(self.settings_group)
        group.setContentsMargins(0, 0, 0, 0)
        group.addWidget(self.speed_combo)
        group.addWidget(QLabel("Vol"))
        group.addWidget(self.volume_slider)
        group.addWidget(self.loop_button)
        group.addWidget(self.measure_button)
        group.addStretch(1)
        self.controls.addWidget(self.settings_group)
        self.controls.addStretch(1)
        self.one_row = True
        self._layout = QVBoxLayout(self)  # the reason gets its own line: it can be long
        self._layout.setContentsMargins(0, 0, 0, 0)
        self._layout.setSpacing(2)
        self._layout.addLayout(self.controls)
        self._layout.addWidget(self.reason_label)
        self.reason_label.hide()

    def one_row_width(self) -> int:
        """The width the controls need on one row."""
        first = sum(
            w.sizeHint().width() for w in (self.play_button, self.stop_button, self.position_label)
        )
        spacing = max(0, self.controls.spacing()) * 4
        return first + self.settings_group.sizeHint().width() + spacing

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._arrange(event.size().width())

    def _arrange(self, width: int) -> None:
        one_row = width >= self.one_row_width()
        if one_row == self.one_row:
            return
        self.one_row = one_row
        if one_row:
            self._layout.removeWidget(self.settings_group)
            self.controls.insertWidget(3, self.settings_group)
        else:
            self.controls.removeWidget(self.settings_group)
            self._layout.insertWidget(1, self.settings_group)

    def set_playing(self, playing: bool) -> None:
        self.play_button.setText("❚❚ Pause" if playing else "▶ Play")

    def set_position(self, seconds: float, duration: float) -> None:
        self.position_label.setText(f"{format_clock(seconds)} / {format_clock(duration)}")

    def set_enabled_playback(self, enabled: bool, reason: str = "") -> None:
        """Grey out what needs a device; the measuring tool keeps working without one."""
        widgets: tuple[QWidget, ...] = (
            self.play_button, self.stop_button, self.speed_combo, self.volume_slider,
            self.loop_button,
        )  # fmt: skip
        for widget in widgets:
            widget.setEnabled(enabled)
        self.reason_label.setText(reason)
        self.reason_label.setVisible(bool(reason))

    def speed(self) -> float:
        return float(self.speed_combo.currentData())

    def volume(self) -> float:
        return self.volume_slider.value() / 100.0
