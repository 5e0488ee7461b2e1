"""The spectrogram plot: image, kHz axis, colour bar, crosshair, measuring box and playhead.

Mouse, as in Raven and Audacity: the wheel zooms time, Shift+wheel frequency; left-drag pans, a
click seeks, Shift+left-drag (or any left-drag while the "Measure" tool is on) draws a
time-frequency box whose duration and band are read out; the box keeps its handles so it can be
adjusted. ``zoom_to_selection`` (Z) shows the box's time and band, ``show_all`` (0) the whole clip.
The playhead is a vertical line that can be dragged to seek.

The view draws a spectrogram handed to it; it never computes one (that happens on the worker pool).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from bagel_studio.ui.listening.frequency_axis import FrequencyMapping, KilohertzAxis, format_khz
from bagel_studio.ui.listening.overlays import OptionOverlays


def colour_map(name: str) -> pg.ColorMap:
    """pyqtgraph's colour map for a settings name ("gray" is CET-L1, a linear grey ramp)."""
    try:
        return pg.colormap.get("CET-L1" if name in ("grey", "gray", "greys") else name)
    except (FileNotFoundError, KeyError, ValueError):
        return pg.colormap.get("viridis")


class MeasureViewBox(pg.ViewBox):  # type: ignore[misc]
    """Turns Shift+drag (or any drag in measure mode) into a box, and a click into a seek."""

    box_dragged = Signal(QPointF, QPointF)  # two opposite corners, in plot coordinates
    clicked = Signal(QPointF)

    def __init__(self) -> None:
        super().__init__()
        self.measure_mode = False
        self.setMouseMode(pg.ViewBox.PanMode)

    def mouseDragEvent(self, ev: Any, axis: int | None = None) -> None:
        shift = bool(ev.modifiers() & Qt.KeyboardModifier.ShiftModifier)
        if ev.button() == Qt.MouseButton.LeftButton and (shift or self.measure_mode):
            ev.accept()
            start = self.mapSceneToView(ev.buttonDownScenePos())
            end = self.mapSceneToView(ev.scenePos())
            self.box_dragged.emit(start, end)
            return
        super().mouseDragEvent(ev, axis)

    def wheelEvent(self, ev: Any, axis: int | None = None) -> None:
        """The wheel zooms time (x) only, Shift+wheel frequency (y) only: pyqtgraph zoomed
        both at once."""
        shift = bool(ev.modifiers() & Qt.KeyboardModifier.ShiftModifier)
        super().wheelEvent(ev, 1 if shift else 0)

    def mouseClickEvent(self, ev: Any) -> None:
        if ev.button() == Qt.MouseButton.LeftButton:
            ev.accept()
            self.clicked.emit(self.mapSceneToView(ev.scenePos()))
            return
        super().mouseClickEvent(ev)


BOX_HINT = "Shift+drag on the spectrogram to measure a call"
# The state first: "(M: off)" at the end was read as the state, while the box was on.
BOX_HINT_MEASURING = "Measuring box on: drag to measure a call (M turns it off)"


def _cosmetic_pen(colour: Any, width: float, style: Qt.PenStyle = Qt.PenStyle.SolidLine) -> Any:
    pen = pg.mkPen(colour, width=width, style=style)
    pen.setCosmetic(True)
    return pen


class SpectrogramView(QWidget):
    """Shows one spectrogram with everything a curator measures on it."""

    seek_requested = Signal(float)
    selection_changed = Signal(object)  # (t0, t1, low_hz, high_hz) or None

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.spectrogram: Any = None
        self.mapping: FrequencyMapping | None = None
        self._colour_map_name = "viridis"
        self._build_plot()
        self.crosshair_label = QLabel("")
        self.selection_label = QLabel(BOX_HINT)
        self.crosshair_label.setObjectName("crosshairReadout")
        self.selection_label.setObjectName("selectionReadout")
        for label in (self.crosshair_label, self.selection_label):
            label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(self.plot_widget, 1)
        layout.addWidget(self.crosshair_label)
        layout.addWidget(self.selection_label)

    def _build_plot(self) -> None:
        self.view_box = MeasureViewBox()
        self.freq_axis = KilohertzAxis()
        time_axis = pg.AxisItem("bottom")
        time_axis.setLabel("Time", units="s")
        time_axis.enableAutoSIPrefix(False)
        self.plot_widget = pg.PlotWidget(
            viewBox=self.view_box, axisItems={"left": self.freq_axis, "bottom": time_axis}
        )
        self.plot_widget.setBackground("#1e1e1e")
        self.plot = self.plot_widget.getPlotItem()
        self.plot.hideButtons()
        self.plot.setMenuEnabled(False)
        self.image = pg.ImageItem(axisOrder="row-major")
        self.plot.addItem(self.image)
        self.colour_bar = pg.ColorBarItem(
            values=(-80, 0), colorMap=colour_map("viridis"), label="Level (dB)",
            interactive=False, width=14,
        )  # fmt: skip
        self.colour_bar.setImageItem(self.image, insert_in=self.plot)
        self.overlays = OptionOverlays(self.plot)
        self._build_markers()
        self.view_box.box_dragged.connect(self._on_box_dragged)
        self.view_box.clicked.connect(self._on_clicked)
        self.plot.scene().sigMouseMoved.connect(self._on_mouse_moved)

    def _build_markers(self) -> None:
        self.playhead = pg.InfiniteLine(
            pos=0.0, angle=90, movable=True, pen=_cosmetic_pen((255, 80, 80), 2.0),
            hoverPen=_cosmetic_pen((255, 160, 160), 3.0),
        )  # fmt: skip
        self.playhead.setZValue(40)
        self.playhead.sigDragged.connect(lambda line: self.seek_requested.emit(float(line.value())))
        dotted = _cosmetic_pen((255, 255, 255, 110), 1.0, Qt.PenStyle.DotLine)
        self.cross_v = pg.InfiniteLine(angle=90, movable=False, pen=dotted)
        self.cross_h = pg.InfiniteLine(angle=0, movable=False, pen=dotted)
        # Its handles adjust it; its body does not carry it: among the labels of a short plot an
        # old box is soon under the pointer, and a drag there must draw the new one asked for.
        self.box = pg.RectROI(
            [0, 0], [1, 1], pen=_cosmetic_pen((255, 255, 255), 1.5), movable=False
        )
        self.box.addScaleHandle([0, 0], [1, 1])
        self.box.setZValue(35)
        self.box.sigRegionChanged.connect(self._on_box_changed)
        for item in (self.playhead, self.cross_v, self.cross_h, self.box):
            self.plot.addItem(item, ignoreBounds=True)
        for item in (self.playhead, self.cross_v, self.cross_h, self.box):
            item.hide()

    # -- showing a spectrogram ------------------------------------------------------------------

    def set_spectrogram(self, spectrogram: Any) -> None:
        """Draw ``spectrogram`` (a core Spectrogram) and keep any selection at the same Hz."""
        selection = self.selection()
        self.spectrogram = spectrogram
        self.mapping = FrequencyMapping(spectrogram.settings.scale, spectrogram.freqs_hz)
        levels = (-float(spectrogram.settings.db_range), 0.0)
        self.image.setImage(spectrogram.db, autoLevels=False, levels=levels)
        if spectrogram.settings.colormap != self._colour_map_name:
            self._colour_map_name = spectrogram.settings.colormap
            self.colour_bar.setColorMap(colour_map(self._colour_map_name))
        if tuple(self.colour_bar.levels()) != levels:
            self.colour_bar.setLevels(levels)
        x0, x1 = self._time_extent()
        y0, y1 = self.mapping.extent()
        self.image.setRect(QRectF(x0, y0, x1 - x0, y1 - y0))
        self.freq_axis.set_mapping(self.mapping)
        self.view_box.setLimits(xMin=x0, xMax=x1, yMin=y0, yMax=y1)
        self.view_box.setRange(xRange=(x0, x1), yRange=(y0, y1), padding=0)
        self.overlays.set_mapping(self.mapping)
        self.image.show()
        self.playhead.show()
        if selection is not None:
            self.set_selection(*selection)

    def show_all(self) -> None:
        """The whole clip: every second and every frequency drawn (0)."""
        if self.spectrogram is None or self.mapping is None:
            return
        x0, x1 = self._time_extent()
        y0, y1 = self.mapping.extent()
        self.view_box.setRange(xRange=(x0, x1), yRange=(y0, y1), padding=0)

    def zoom_to_selection(self) -> bool:
        """Show the measuring box's time and band (Z); False when there is no box."""
        selection = self.selection()
        if selection is None or self.mapping is None:
            return False
        t0, t1, low, high = selection
        y0, y1 = sorted((self.mapping.to_y(low), self.mapping.to_y(high)))
        self.view_box.setRange(xRange=(t0, t1), yRange=(y0, y1), padding=0)
        return True

    def _time_extent(self) -> tuple[float, float]:
        times = np.asarray(self.spectrogram.times_s, dtype=np.float64)
        duration = float(self.spectrogram.duration_s)
        if times.size < 2:
            return 0.0, max(duration, 1e-3)
        step = float(times[1] - times[0])
        return min(0.0, float(times[0]) - step / 2), max(duration, float(times[-1]) + step / 2)

    def clear(self) -> None:
        self.spectrogram = None
        self.mapping = None
        self.image.clear()
        self.image.hide()
        self.overlays.clear()
        self.overlays.set_mapping(None)
        self.clear_selection()
        for item in (self.playhead, self.cross_v, self.cross_h):
            item.hide()
        self.crosshair_label.setText("")

    def set_playhead(self, seconds: float) -> None:
        """Move the playhead (unless the curator is dragging it)."""
        if not self.playhead.moving:
            self.playhead.setValue(seconds)

    # -- crosshair ------------------------------------------------------------------------------

    def readout(self, t: float, y: float) -> str | None:
        """Time, frequency and level under plot coordinate (t, y), or None outside the image."""
        spec, mapping = self.spectrogram, self.mapping
        if spec is None or mapping is None:
            return None
        x0, x1 = self._time_extent()
        row = mapping.row_at(y)
        if row is None or not x0 <= t < x1:
            return None
        times = np.asarray(spec.times_s)
        col = int(np.clip(np.searchsorted(times, t), 0, times.size - 1))
        if col > 0 and abs(times[col - 1] - t) < abs(times[col] - t):
            col -= 1
        level = float(spec.db[row, col])
        return f"t = {t:.3f} s   f = {format_khz(mapping.to_hz(y))} kHz   {level:.1f} dB"

    def _on_mouse_moved(self, scene_pos: QPointF) -> None:
        if self.spectrogram is None or not self.view_box.sceneBoundingRect().contains(scene_pos):
            self.cross_v.hide()
            self.cross_h.hide()
            return
        point = self.view_box.mapSceneToView(scene_pos)
        text = self.readout(point.x(), point.y())
        self.crosshair_label.setText(text or "")
        visible = text is not None
        self.cross_v.setVisible(visible)
        self.cross_h.setVisible(visible)
        if visible:
            self.cross_v.setValue(point.x())
            self.cross_h.setValue(point.y())

    # -- the measuring box ----------------------------------------------------------------------

    def set_measure_mode(self, on: bool) -> None:
        """A plain drag draws the box while ``on``; until a box is drawn, the line under the
        plot says how (M pressed the button down and changed nothing else on screen)."""
        self.view_box.measure_mode = on
        if self.selection() is None:
            self.selection_label.setText(self._box_hint())

    def _box_hint(self) -> str:
        return BOX_HINT_MEASURING if self.view_box.measure_mode else BOX_HINT

    def set_selection(self, t0: float, t1: float, low_hz: float, high_hz: float) -> None:
        """Place the box at a time range and frequency band (also how the mouse draws it)."""
        if self.mapping is None:
            return
        y0, y1 = sorted((self.mapping.to_y(low_hz), self.mapping.to_y(high_hz)))
        t0, t1 = sorted((t0, t1))
        self.box.setPos((t0, y0), update=False, finish=False)
        self.box.setSize((max(t1 - t0, 1e-6), max(y1 - y0, 1e-9)), finish=False)
        self.box.show()
        self._on_box_changed()

    def selection(self) -> tuple[float, float, float, float] | None:
        """The box as (start s, end s, low Hz, high Hz), or None when there is none."""
        if not self.box.isVisible() or self.mapping is None:
            return None
        x, y = self.box.pos()
        w, h = self.box.size()
        return float(x), float(x + w), self.mapping.to_hz(y), self.mapping.to_hz(y + h)

    def clear_selection(self) -> None:
        self.box.hide()
        self.selection_label.setText(self._box_hint())
        self.selection_changed.emit(None)

    def _on_box_dragged(self, start: QPointF, end: QPointF) -> None:
        if self.mapping is None:
            return
        low, high = sorted((self.mapping.to_hz(start.y()), self.mapping.to_hz(end.y())))
        self.set_selection(start.x(), end.x(), low, high)

    def _on_box_changed(self, *_: object) -> None:
        selection = self.selection()
        if selection is None:
            return
        t0, t1, low, high = selection
        duration_ms = (t1 - t0) * 1000.0
        shown = f"{duration_ms:.0f}" if duration_ms >= 10 else f"{duration_ms:.2g}"  # bat pulses
        self.selection_label.setText(
            f"Δt = {shown} ms, {format_khz(low)}–{format_khz(high)} kHz   ({t0:.3f}–{t1:.3f} s)"
        )
        self.selection_changed.emit(selection)

    def _on_clicked(self, point: QPointF) -> None:
        if self.spectrogram is not None:
            x0, x1 = self._time_extent()
            self.seek_requested.emit(float(np.clip(point.x(), max(x0, 0.0), x1)))
