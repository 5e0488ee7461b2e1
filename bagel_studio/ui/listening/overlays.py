"""The item's four options drawn over the spectrogram, so each claim is seen against the sound.

Frequency claims become translucent horizontal bands; duration claims become horizontal scale
bars in the top-right corner of the visible time range (so they stay on screen while zooming and
can be lined up against a call by panning), away from the band labels on the left. The gold
option is drawn in gold with a thicker outline and a "gold" label. The clip's measured dominant
band is drawn as two dashed cyan lines, so that a mismatch with the gold band is visible at a
glance.
"""

from __future__ import annotations

from dataclasses import dataclass

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QPen

from bagel_studio.ui.listening.frequency_axis import FrequencyMapping, format_khz

GOLD = QColor(255, 196, 0)
OTHER = QColor(235, 235, 235)
MEASURED = QColor(0, 229, 255)
LABEL_FILL = pg.mkBrush(0, 0, 0, 170)


@dataclass(frozen=True)
class OptionClaim:
    """One option of the item on screen and what it claims about the sound (if anything)."""

    letter: str
    text: str
    kind: str | None  # "frequency" (Hz) | "duration" (s) | "modulation" | "harmonicity" | None
    low: float | None
    high: float | None
    gold: bool

    @property
    def label(self) -> str:
        return f"{self.letter}  {self.text}" + ("  ★ gold" if self.gold else "")


def _pen(colour: QColor, width: float, dashed: bool = False) -> QPen:
    pen: QPen = pg.mkPen(colour, width=width)
    pen.setCosmetic(True)
    if dashed:
        pen.setStyle(Qt.PenStyle.DashLine)
    return pen


def _label(text: str, colour: QColor, anchor: tuple[float, float]) -> pg.TextItem:
    item = pg.TextItem(text, color=colour, anchor=anchor, fill=LABEL_FILL)
    item.setZValue(30)
    return item


class OptionOverlays:
    """Owns the overlay items on one plot and keeps the labels inside the visible range."""

    def __init__(self, plot: pg.PlotItem) -> None:
        self._plot = plot
        self._mapping: FrequencyMapping | None = None
        self._options: list[OptionClaim] = []
        self._measured: tuple[float, float] | None = None
        self._built = False
        self.bands: list[tuple[OptionClaim, pg.LinearRegionItem, pg.TextItem]] = []
        self.bars: list[tuple[OptionClaim, list[pg.PlotCurveItem], pg.TextItem]] = []
        self.measured_items: list[pg.GraphicsObject] = []
        plot.getViewBox().sigRangeChanged.connect(self._place)

    # -- public ---------------------------------------------------------------------------------

    def set_options(self, options: list[OptionClaim]) -> None:
        self._options = list(options)
        self._remove_claims()
        if self._mapping is not None:
            self._build_claims(self._mapping)

    def set_measured_band(self, band: tuple[float, float] | None) -> None:
        self._measured = band
        self._remove_measured()
        if self._mapping is not None and band is not None:
            self._add_measured(band, self._mapping)
            self._place()

    def set_mapping(self, mapping: FrequencyMapping | None) -> None:
        """Items are built once per item and only moved when the frequency scale changes."""
        self._mapping = mapping
        if mapping is None:
            self._remove_claims()
            self._remove_measured()
        elif not self._built:
            self._build_claims(mapping)
            self.set_measured_band(self._measured)
        else:
            self._move_to(mapping)

    def clear(self) -> None:
        self._options = []
        self._measured = None
        self._remove_claims()
        self._remove_measured()

    def band_labels(self) -> list[str]:
        return [label.toPlainText() for _, _, label in self.bands]

    def bar_labels(self) -> list[str]:
        return [label.toPlainText() for _, _, label in self.bars]

    # -- building -------------------------------------------------------------------------------

    def _remove_claims(self) -> None:
        for _, region, label in self.bands:
            self._plot.removeItem(region)
            self._plot.removeItem(label)
        for _, curves, label in self.bars:
            for curve in curves:
                self._plot.removeItem(curve)
            self._plot.removeItem(label)
        self.bands, self.bars = [], []
        self._built = False

    def _remove_measured(self) -> None:
        for item in self.measured_items:
            self._plot.removeItem(item)
        self.measured_items = []

    def _build_claims(self, mapping: FrequencyMapping) -> None:
        for option in self._options:
            if option.kind == "frequency" and (option.low, option.high) != (None, None):
                self._add_band(option, mapping)
            elif option.kind == "duration" and (option.low, option.high) != (None, None):
                self._add_bar(option)
        self._built = True
        self._place()

    def _band_ys(self, option: OptionClaim, mapping: FrequencyMapping) -> tuple[float, float]:
        """The band's edges on the y axis; an open end ("above 8 kHz") runs to the image edge."""
        bottom, top = mapping.extent()
        low = bottom if option.low is None else mapping.to_y(option.low)
        high = top if option.high is None else mapping.to_y(option.high)
        return low, high

    def _move_to(self, mapping: FrequencyMapping) -> None:
        for option, region, _label in self.bands:
            region.setRegion(self._band_ys(option, mapping))
        lines = [item for item in self.measured_items if isinstance(item, pg.InfiniteLine)]
        if self._measured is not None:
            for line, hz in zip(lines, self._measured, strict=False):
                line.setValue(mapping.to_y(hz))
        self._place()

    def _add_band(self, option: OptionClaim, mapping: FrequencyMapping) -> None:
        colour = GOLD if option.gold else OTHER
        fill = QColor(colour)
        fill.setAlpha(40 if option.gold else 22)
        region = pg.LinearRegionItem(
            values=self._band_ys(option, mapping),
            orientation="horizontal",
            movable=False,
            brush=pg.mkBrush(fill),
            pen=_pen(colour, 3.0 if option.gold else 1.2, dashed=not option.gold),
        )
        region.setZValue(20 if option.gold else 10)
        label = _label(option.label, colour, anchor=(0, 0))
        self._plot.addItem(region)
        self._plot.addItem(label)
        self.bands.append((option, region, label))

    def _add_bar(self, option: OptionClaim) -> None:
        colour = GOLD if option.gold else OTHER
        width = 5.0 if option.gold else 3.0
        curves = [
            pg.PlotCurveItem(pen=_pen(colour, width)),  # the shortest claimed duration
            pg.PlotCurveItem(pen=_pen(colour, width / 2)),  # from shortest to longest
            pg.PlotCurveItem(pen=_pen(colour, 1.5), connect="pairs"),  # end ticks
        ]
        for curve in curves:
            curve.setZValue(25)
            self._plot.addItem(curve)
        label = _label(option.label, colour, anchor=(1, 0.5))
        self._plot.addItem(label)
        self.bars.append((option, curves, label))

    def _add_measured(self, band: tuple[float, float], mapping: FrequencyMapping) -> None:
        pen = _pen(MEASURED, 1.6, dashed=True)
        for hz in band:
            line = pg.InfiniteLine(pos=mapping.to_y(hz), angle=0, pen=pen, movable=False)
            line.setZValue(22)
            self._plot.addItem(line)
            self.measured_items.append(line)
        text = f"measured {format_khz(band[0])}–{format_khz(band[1])} kHz"
        label = _label(text, MEASURED, anchor=(1, 1))
        self._plot.addItem(label)
        self.measured_items.append(label)

    # -- placing --------------------------------------------------------------------------------

    def _place(self, *_: object) -> None:
        """Keep labels and scale bars inside whatever time range is visible."""
        (x0, x1), (y0, y1) = self._plot.getViewBox().viewRange()
        width, height = x1 - x0, y1 - y0
        left = x0 + 0.01 * width
        for _band, region, band_label in self.bands:
            band_label.setPos(left, max(region.getRegion()))
        for row, (claim, curves, label) in enumerate(self.bars):
            low = claim.low or 0.0  # "under 100 ms": from zero
            high = claim.high if claim.high is not None else low  # "over 1 s": its minimum
            y = y1 - (0.06 + 0.07 * row) * height
            tick = 0.02 * height
            start = x1 - 0.02 * width - high
            curves[0].setData([start, start + low], [y, y])
            curves[1].setData([start + low, start + high], [y, y])
            ends = [start, start, start + high, start + high]
            curves[2].setData(ends, [y - tick, y + tick, y - tick, y + tick])
            label.setPos(start - 0.01 * width, y)
        if self.measured_items and self._mapping is not None and self._measured is not None:
            label = self.measured_items[-1]
            label.setPos(x1 - 0.01 * width, self._mapping.to_y(self._measured[1]))
