"""The item's four options drawn over the spectrogram, so each claim is seen against the sound.

Frequency claims become translucent horizontal bands; duration claims become horizontal scale
bars in the top-right corner of the visible time range (so they stay on screen while zooming and
can be lined up against a call by panning), away from the band labels on the left. The gold
option is drawn in gold with a thicker outline and a "gold" label. The clip's measured dominant
band is drawn as two dashed cyan lines, so that a mismatch with the gold band is visible at a
glance (not on a duration item: it does not ask about the band). The labels are laid out so that
none covers another and the gold's is always on screen (``_place``), and a band's label is at its
band: in full, else elided there (as much of its text as fits, then "…"; hovered, the whole),
else (no room near its band) beside the other labels with a leader line to its band; never by
itself at another frequency.
"""

from __future__ import annotations

from dataclasses import dataclass

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFontMetricsF, QPen

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


def _label(text: str, colour: QColor, anchor: tuple[float, float], z: float = 30) -> pg.TextItem:
    """A label on a dark box; a margin of 2 px instead of Qt's 4 (four rows of labels fit the
    desk's short plot at 1280x800)."""
    item = pg.TextItem(text, color=colour, anchor=anchor, fill=LABEL_FILL)
    item.textItem.document().setDocumentMargin(2)
    item.updateTextPos()
    item.setZValue(z)
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
        # per band (in the order of ``bands``): the line from its label to it, drawn when the
        # label found no room at its band
        self.leaders: list[pg.PlotCurveItem] = []
        self.bars: list[tuple[OptionClaim, list[pg.PlotCurveItem], pg.TextItem]] = []
        self.measured_items: list[pg.GraphicsObject] = []
        plot.getViewBox().sigRangeChanged.connect(self._place)
        plot.getViewBox().sigResized.connect(self._place)  # the labels' size in plot units

    # -- public ---------------------------------------------------------------------------------

    def set_options(self, options: list[OptionClaim]) -> None:
        self._options = list(options)
        self._remove_claims()
        if self._mapping is not None:
            self._build_claims(self._mapping)
            self.set_measured_band(self._measured)  # drawn or not, by the new options' kind

    def set_measured_band(self, band: tuple[float, float] | None) -> None:
        """The clip's measured dominant band, drawn unless the options claim durations (a
        duration item does not ask about the band, and its label hid the gold's there)."""
        self._measured = band
        self._remove_measured()
        durations = any(option.kind == "duration" for option in self._options)
        if self._mapping is not None and band is not None and not durations:
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
        for leader in self.leaders:
            self._plot.removeItem(leader)
        self.leaders = []
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
        label = _label(option.label, colour, anchor=(0, 0), z=31 if option.gold else 30)
        leader = pg.PlotCurveItem(pen=_pen(colour, 1.2))
        leader.setZValue(26)  # over the bands, under the labels
        leader.hide()
        self._plot.addItem(region)
        self._plot.addItem(label)
        self._plot.addItem(leader)
        self.bands.append((option, region, label))
        self.leaders.append(leader)

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
        label = _label(option.label, colour, anchor=(1, 0.5), z=31 if option.gold else 30)
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
        label = _label(text, MEASURED, anchor=(1, 1), z=29)
        self._plot.addItem(label)
        self.measured_items.append(label)

    # -- placing --------------------------------------------------------------------------------

    def _place(self, *_: object) -> None:
        """Keep labels and scale bars inside whatever part of the plot is visible, and the
        labels off each other (on the desk's short plot at 1280x800 they piled up at the top):
        the gold's label is placed first, so it always has its own place, then each other one
        at the top of its band, lower inside it, or beside the labels there; a label with no
        room at its band is elided there (its whole text on hover: at 1280x800 the bat's
        "D ~130-160 kHz" had been cut to its letter), else shown in full at the nearest free
        height with a leader line to its band (at 1280x800 a bat's "D ~130-160 kHz" was drawn
        near 25 kHz, as if it were that band's); a label that finds no free place (or whose
        band is out of view) is hidden rather than drawn over another."""
        box = self._plot.getViewBox()
        (x0, x1), (y0, y1) = box.viewRange()
        pixel = _pixel_size(box)
        view: Rect = (x0 + pixel[0], x1 - pixel[0], y0 + pixel[1], y1 - pixel[1])
        taken: list[Rect] = []
        order = sorted(
            range(len(self.bands)),
            key=lambda i: (not self.bands[i][0].gold, -max(self.bands[i][1].getRegion())),
        )
        spots: dict[int, Rect | None] = {}
        led: set[int] = set()
        for option, _region, band_label in self.bands:
            _show_text(band_label, option.label, option.label)
        # each label in full at its own band first, then elided there, then beside
        for attempt in ("full", "elided", "leader"):
            for index in order:
                option, region, band_label = self.bands[index]
                if spots.get(index) is not None:
                    continue
                low, top = sorted(region.getRegion())
                if not ((low < y1 and top > y0) or option.gold):
                    spots[index] = None  # out of view
                    continue
                if attempt == "elided":  # the shortest first, to find a place at its band
                    _show_text(band_label, f"{option.letter}{ELLIPSIS}", option.label)
                elif attempt == "leader":
                    _show_text(band_label, option.label, option.label)
                near = attempt == "leader"
                spot = self._band_spot(band_label, low, top, view, pixel, taken, near)
                if spot is not None and attempt == "elided":
                    spot = _widen(band_label, option.label, spot, view, pixel, taken)
                spots[index] = spot
                if spot is not None:
                    taken.append(spot)
                    if near and not _beside((low, top), spot):
                        led.add(index)
        for index, (_option, region, band_label) in enumerate(self.bands):
            spot = spots[index]
            band_label.setVisible(spot is not None)
            if spot is not None:
                band_label.setPos(spot[0], spot[3])
            self._lead(self.leaders[index], spot if index in led else None, region, pixel)
        self._place_bars(view, pixel, taken)
        if self.measured_items and self._mapping is not None and self._measured is not None:
            self._place_measured(view, pixel, taken)

    def _lead(
        self,
        leader: pg.PlotCurveItem,
        spot: Rect | None,
        region: pg.LinearRegionItem,
        pixel: tuple[float, float],
    ) -> None:
        """The leader from a label placed away from its band (``spot``) to the band's nearer
        edge, straight up or down from the label's left end; hidden without ``spot``."""
        if spot is None:
            leader.hide()
            return
        low, top = sorted(region.getRegion())
        x = spot[0] + 6 * pixel[0]
        start, end = (spot[3], low) if low >= spot[3] else (spot[2], top)
        leader.setData([x, x], [start, end])
        leader.show()

    def _band_spot(
        self,
        label: pg.TextItem,
        low: float,
        top: float,
        view: Rect,
        pixel: tuple[float, float],
        taken: list[Rect],
        near: bool,
    ) -> Rect | None:
        """Where a band's label goes (its rectangle, top-left anchored): at the band's top
        left, else lower inside the band, else beside the labels already there, or (``near``,
        once every label has had its own band) at the nearest free height; None when nothing
        is free (the gold, placed first, always has its place)."""
        w, h = _label_size(label, pixel)
        left, _, bottom, ceiling = view
        first = min(max(top, bottom + h), ceiling)  # an out-of-view band: at the nearest edge
        step = h + pixel[1]
        inside = [first - i * step for i in range(64) if first - i * step - h >= max(low, bottom)]
        rows = int((ceiling - bottom) // step) + 1 if step > 0 else 1
        xs = sorted({left, *(r[1] + LABEL_GAP_PX * pixel[0] for r in taken)})
        heights = sorted(
            (ceiling - i * step for i in range(min(rows, 64))), key=lambda y: abs(y - first)
        )
        for y in heights if near else [first, *inside]:
            for x in xs:
                rect = (x, x + w, y - h, y)
                if _within(rect, view) and not any(_overlap(rect, r) for r in taken):
                    return rect
        return (left, left + w, first - h, first) if not taken else None

    def _place_bars(self, view: Rect, pixel: tuple[float, float], taken: list[Rect]) -> None:
        """The duration scale bars, one row each from the top of the visible range, a label's
        height apart (rows of a fixed share of the plot piled up on a short one), each label
        right-aligned at its bar's start, or at the left edge where the bar is longer than
        the plot."""
        if not self.bars:
            return
        left, right, bottom, ceiling = view
        height = ceiling - bottom
        sizes = [_label_size(label, pixel) for _, _, label in self.bars]
        tallest = max(h for _, h in sizes)
        row_height = max(tallest + 2 * pixel[1], 0.07 * height)
        if row_height * len(self.bars) > height:  # no room: the rows share the height
            row_height = height / len(self.bars)
        tick = min(0.02 * height, tallest / 2)
        end = right - 0.02 * (right - left)
        for row, ((claim, curves, label), (w, h)) in enumerate(zip(self.bars, sizes, strict=True)):
            low = claim.low or 0.0  # "under 100 ms": from zero
            high = claim.high if claim.high is not None else low  # "over 1 s": its minimum
            y = ceiling - 2 * pixel[1] - (row + 0.5) * row_height
            start = end - high
            curves[0].setData([start, start + low], [y, y])
            curves[1].setData([start + low, start + high], [y, y])
            ends = [start, start, start + high, start + high]
            curves[2].setData(ends, [y - tick, y + tick, y - tick, y + tick])
            x = max(start - 4 * pixel[0], left + w)
            label.setPos(x, y)
            taken.append((x - w, x, y - h / 2, y + h / 2))

    def _place_measured(self, view: Rect, pixel: tuple[float, float], taken: list[Rect]) -> None:
        """The measured band's label, right-aligned: above its upper line, else under its lower
        one, else just inside the band, else without the word 'measured' (the Measurements box
        says it), wherever it is inside the plot and covers no option's label; hidden if there
        is no such place."""
        assert self._mapping is not None and self._measured is not None
        label = self.measured_items[-1]
        right = view[1] - 0.01 * (view[1] - view[0])
        upper, lower = (self._mapping.to_y(hz) for hz in (self._measured[1], self._measured[0]))
        band = f"{format_khz(self._measured[0])}–{format_khz(self._measured[1])} kHz"
        for text in (f"measured {band}", band):
            label.setText(text)
            w, h = _label_size(label, pixel)
            for anchor, y, rect in (
                ((1, 1), upper, (right - w, right, upper, upper + h)),
                ((1, 0), lower, (right - w, right, lower - h, lower)),
                ((1, 0), upper, (right - w, right, upper - h, upper)),
            ):
                if _within(rect, view) and not any(_overlap(rect, r) for r in taken):
                    label.setAnchor(anchor)
                    label.setPos(right, y)
                    label.show()
                    return
        label.hide()


Rect = tuple[float, float, float, float]  # x0, x1, y0, y1 in the plot's coordinates
ELLIPSIS = "…"
LABEL_GAP_PX = 4  # between two labels side by side (``_band_spot`` keeps it too)


def _show_text(label: pg.TextItem, text: str, whole: str) -> None:
    """``text`` on ``label``; when it is not ``whole`` (an elided label), hovering it says
    ``whole``."""
    if label.toPlainText() != text:
        label.setText(text)
    tip = "" if text == whole else whole
    if label.toolTip() != tip:
        label.setToolTip(tip)


def _whole_numbers(text: str, whole: str) -> str:
    """An elided label that does not end in part of a number: "D  ~130-1…" (read as a band
    from 130 to 1) as "D  ~130…", back to the last whole number, where one is left."""
    kept = text.removesuffix(ELLIPSIS)
    cut = whole[len(kept) : len(kept) + 1]
    if kept == text or not kept or not kept[-1].isdigit() or not cut.isdigit():
        return text
    shorter = kept.rstrip("0123456789.").rstrip(" -–~")
    return shorter + ELLIPSIS if any(c.isdigit() for c in shorter) else text


def _widen(
    label: pg.TextItem, whole: str, spot: Rect, view: Rect, pixel: tuple[float, float],
    taken: list[Rect],
) -> Rect:  # fmt: skip
    """A label placed at its band in its shortest form (``spot``, its letter and "…") given
    the room to its right, up to the next label on its row or the plot's edge: as much of
    ``whole`` as fits there, elided at its end (a band's label with its letter alone said
    nothing of the band). Returns the label's rectangle."""
    x0, _x1, y0, y1 = spot
    right = view[1]
    for rect in taken:
        if rect[2] < y1 and y0 < rect[3] and rect[0] >= x0:
            right = min(right, rect[0] - LABEL_GAP_PX * pixel[0])
    if pixel[0] <= 0:
        return spot
    margins = 2 * label.textItem.document().documentMargin()
    room = int((right - x0) / pixel[0] - margins)
    metrics = QFontMetricsF(label.textItem.font())
    text = _whole_numbers(metrics.elidedText(whole, Qt.TextElideMode.ElideRight, room), whole)
    if (len(text) > len(label.toPlainText()) and text.endswith(ELLIPSIS)) or text == whole:
        _show_text(label, text, whole)
    w, _h = _label_size(label, pixel)
    return x0, x0 + w, y0, y1


def _beside(band: tuple[float, float], rect: Rect) -> bool:
    """A label's rectangle is at its band: the two share some height."""
    return rect[2] < band[1] and band[0] < rect[3]


def _within(rect: Rect, view: Rect) -> bool:
    return view[0] <= rect[0] and rect[1] <= view[1] and view[2] <= rect[2] and rect[3] <= view[3]


def _overlap(a: Rect, b: Rect) -> bool:
    return a[0] < b[1] and b[0] < a[1] and a[2] < b[3] and b[2] < a[3]


def _pixel_size(box: pg.ViewBox) -> tuple[float, float]:
    """The plot units one screen pixel spans (x, y); zero before the plot has a size."""
    try:
        x, y = box.viewPixelSize()
    except (ZeroDivisionError, TypeError):
        return 0.0, 0.0
    return abs(float(x)), abs(float(y))


def _label_size(label: pg.TextItem, pixel: tuple[float, float]) -> tuple[float, float]:
    """A label's width and height in the plot's units (it is drawn at a fixed pixel size)."""
    rect = label.textItem.boundingRect()
    return rect.width() * pixel[0], rect.height() * pixel[1]
