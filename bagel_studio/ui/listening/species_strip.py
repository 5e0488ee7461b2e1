"""Under the spectrogram: BirdNET's confidence of the item's species over the clip.

A narrow plot on the spectrogram's time axis (the same seconds, the same pixels: its plot area is
kept aligned with the spectrogram's) draws the item's species' confidence in each 3 s window
(a point at the window's middle, joined), the 0.5 line at which it counts as heard, and shades
the windows where it is the most confident of all labels. A line below (two in a narrow column)
names the verdict and the clip's three strongest labels with their confidences. The answer comes
from the core (``species.answer`` on the cached detection), so the strip and the checks agree.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import pyqtgraph as pg
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import QGraphicsRectItem, QVBoxLayout, QWidget

from bagel_studio.core.audio.birdnet import WINDOW_S
from bagel_studio.core.audio.species import THRESHOLD, SpeciesAnswer
from bagel_studio.ui.plain import plain_label
from bagel_studio.ui.shortcuts import key_hint, key_tip

STRIP_PX = 40  # the plot's height: a sparkline, not a second spectrogram
CURVE = (120, 220, 140)
LEADS = QColor(120, 220, 140, 60)
STRIP_TIP = (
    "BirdNET's confidence that the item's species is heard, from 0 to 1, a point for each"
    f" {WINDOW_S:g} s window of the clip, on the spectrogram's time axis; dashed line:"
    f" {THRESHOLD:g}, counted as heard; shaded: the windows where it is the most confident of"
    " all BirdNET's labels"
)


def species_text(found: SpeciesAnswer) -> str:
    """What the strip says under its plot: the verdict, then the clip's top labels with their
    confidences (the tests read it too)."""
    top = ", ".join(f"{h.label.common} {h.best:.2f}" for h in found.top)
    clip_top = f" · clip's top: {top}" if top else ""
    if not found.covered or found.label is None:
        return f"BirdNET: {found.species} not covered (not in its list){clip_top}"
    windows = len(found.starts)
    name = found.label.common
    if not found.detected:
        verdict = f"BirdNET: {name} not heard (best {found.best:.2f})"
    else:
        heard = f"{len(found.heard)}/{windows} windows"
        play = key_hint("play_species")  # the table's key: the line names the key that acts
        verdict = f"BirdNET: {name} heard in {heard}, best {found.best:.2f} (play it {play})"
    if found.rival is not None:
        verdict += f"; {found.rival.label.common} leads {len(found.rival.windows)}/{windows}"
    return verdict + clip_top


BLIND_SPECIES = "BirdNET: its species names an option: shown once you have answered (blind mode)"


def names_an_option(found: SpeciesAnswer, options: Sequence[str]) -> bool:
    """Whether BirdNET's answer names (by scientific or common name) a species that one of
    the options names, or an option that one of its names holds ("Sparrow"): its line would
    then say which option the clip supports."""
    labels = [found.label, *(h.label for h in (found.other, found.rival, *found.top) if h)]
    names = {found.species.lower()}
    for label in labels:
        if label is not None:
            names |= {label.scientific.lower(), label.common.lower()}
    for option in options:
        text = " ".join(option.lower().split())
        if len(text) < 3:
            continue
        for name in names:
            if _holds(text, name) or _holds(name, text):
                return True
    return False


def _holds(text: str, phrase: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(phrase)}(?!\w)", text) is not None


def merged(spans: tuple[tuple[float, float], ...]) -> list[tuple[float, float]]:
    """(start, length) windows as (start, end) runs, overlapping windows joined."""
    runs: list[tuple[float, float]] = []
    for start, length in sorted(spans):
        if runs and start <= runs[-1][1]:
            runs[-1] = (runs[-1][0], max(runs[-1][1], start + length))
        else:
            runs.append((start, start + length))
    return runs


class SpeciesStrip(QWidget):
    """The item's species' confidence per window, aligned under the spectrogram."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.answer: SpeciesAnswer | None = None
        # Blind mode: the item's options while the gold is hidden (a line naming one waits)
        self.hidden_options: tuple[str, ...] = ()
        self.plot_widget = pg.PlotWidget(background="#1e1e1e")
        self.plot_widget.setFixedHeight(STRIP_PX)
        self.plot_widget.setToolTip(STRIP_TIP)  # a plot without a title or a time axis
        self.plot = self.plot_widget.getPlotItem()
        self.plot.hideButtons()
        self.plot.setMenuEnabled(False)
        self.plot.setMouseEnabled(x=False, y=False)
        self.plot.hideAxis("bottom")
        left = self.plot.getAxis("left")
        left.setTicks([[(0.0, "0"), (THRESHOLD, f"{THRESHOLD:g}"), (1.0, "1")]])
        self.plot.setYRange(0.0, 1.0, padding=0.05)
        self.curve = pg.PlotDataItem(pen=pg.mkPen(CURVE, width=2), symbol="o", symbolSize=5,
                                     symbolBrush=CURVE, symbolPen=None)  # fmt: skip
        self.plot.addItem(self.curve)
        dashed = pg.mkPen((200, 200, 200, 140), width=1, style=Qt.PenStyle.DashLine)
        self.plot.addItem(pg.InfiniteLine(pos=THRESHOLD, angle=0, pen=dashed), ignoreBounds=True)
        self._shades: list[QGraphicsRectItem] = []
        self.verdict = plain_label("", self, selectable=False)
        self.verdict.setObjectName("speciesVerdict")
        self.verdict.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(1)
        layout.addWidget(self.plot_widget)
        layout.addWidget(self.verdict)
        self.show_message("")

    def link_to(self, view: Any) -> None:
        """Share the spectrogram's time range, and keep the plot area under its own."""
        self.plot.setXLink(view.plot)
        self._spectrogram = view
        view.view_box.sigResized.connect(self._align)

    def _align(self, *_: object) -> None:
        """The spectrogram's axis on the left and colour bar on the right take room the strip
        does not have: give its plot area the same left and right edges."""
        box = self._spectrogram.view_box.sceneBoundingRect()
        outer = self._spectrogram.plot_widget.width()
        self.plot.getAxis("left").setWidth(max(int(box.left()), 20))
        right = max(int(outer - box.right()), 0)
        self.plot.layout.setContentsMargins(0, 2, right, 2)

    def show_message(self, text: str) -> None:
        """No curve: only a line (not detected yet, not installed, unreadable)."""
        self.answer = None
        self.curve.setData([], [])
        self._shade(())
        self.plot_widget.setVisible(False)
        self.verdict.setText(text)
        self.verdict.setToolTip("")

    def set_hidden_options(self, options: Sequence[str]) -> None:
        """Blind mode: ``options`` of the item while its gold is hidden (empty once revealed);
        the line under the plot waits for the answer when it names one of them."""
        self.hidden_options = tuple(options)
        if self.answer is not None:
            self.verdict.setText(self._text(self.answer))

    def _text(self, found: SpeciesAnswer) -> str:
        if self.hidden_options and names_an_option(found, self.hidden_options):
            return BLIND_SPECIES
        return species_text(found)

    def show_answer(self, found: SpeciesAnswer) -> None:
        self.answer = found
        self.verdict.setText(self._text(found))
        self.verdict.setToolTip(key_tip("play_species") if found.detected else "")
        covered = found.covered and bool(found.curve)
        self.plot_widget.setVisible(covered)
        if not covered:
            self.curve.setData([], [])
            self._shade(())
            return
        middles = [start + found.window_s / 2 for start in found.starts]
        self.curve.setData(middles, list(found.curve))
        self._shade(tuple((found.starts[w], found.window_s) for w in found.leads))

    def _shade(self, spans: tuple[tuple[float, float], ...]) -> None:
        for item in self._shades:
            self.plot.removeItem(item)
        self._shades = []
        for start, end in merged(spans):
            rect = QGraphicsRectItem(QRectF(start, 0.0, end - start, 1.0))
            rect.setBrush(QBrush(LEADS))
            rect.setPen(pg.mkPen(None))
            rect.setZValue(-10)
            self.plot.addItem(rect, ignoreBounds=True)
            self._shades.append(rect)
