"""The option labels on the spectrogram of the desk at 1280x800 (a plot about 230 x 100 px):
no label covers another, every label is inside the plot, the gold's is whole and on top, and on a
duration item no measured-band label is drawn (there it hid the gold's scale-bar label)."""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import QRectF
from pytestqt.qtbot import QtBot

from bagel_studio.ui.listening import ListeningPanel
from bagel_studio.ui.listening.overlays import OptionClaim
from tests.ui.desk_harness import close_desk, desk_on, listening_panel
from tests.ui.desk_project import XC_ID
from tests.ui.listening.conftest import DURATION_ITEM, show_and_wait

DURATIONS = [("A", 0.08, 0.15), ("B", 0.2, 0.4), ("C", 0.8, 1.2), ("D", 1.5, 2.0)]


def _labels(panel: ListeningPanel) -> list[pg.TextItem]:
    overlays = panel.view.overlays
    shown = [label for _, _, label in overlays.bands] + [label for _, _, label in overlays.bars]
    shown += [item for item in overlays.measured_items if isinstance(item, pg.TextItem)]
    return [label for label in shown if label.isVisible()]


def _plot_rect(panel: ListeningPanel) -> QRectF:
    box = panel.view.view_box
    return box.mapRectToScene(box.rect())


def _assert_laid_out(panel: ListeningPanel, gold: str) -> None:
    panel.grab()  # painted: each label has its size on screen
    labels = _labels(panel)
    plot = _plot_rect(panel)
    assert plot.height() < 200, plot  # the short plot of the desk at 1280x800
    rects = [label.sceneBoundingRect() for label in labels]
    texts = [label.toPlainText() for label in labels]
    for text, rect in zip(texts, rects, strict=True):
        inside = rect.adjusted(1, 1, -1, -1)
        assert plot.contains(inside), (text, rect, plot)  # whole, inside the plot
    for i, a in enumerate(rects):
        for j in range(i + 1, len(rects)):
            overlap = a.intersected(rects[j])
            assert overlap.width() < 1 or overlap.height() < 1, (texts[i], texts[j])
    assert any(text.startswith(gold) and text.endswith("★ gold") for text in texts), texts


def _desk_panel(qtbot: QtBot, tmp_path, data_dir) -> tuple[object, ListeningPanel]:
    """The desk at 1280x800 on the House Sparrow's item (gold B ~3-5 kHz), its clip measured."""
    window = desk_on(qtbot, tmp_path, data_dir, XC_ID, size=(1280, 800))
    panel = listening_panel(qtbot, window)
    qtbot.waitUntil(lambda: bool(panel.measurements.rows), timeout=30_000)
    qtbot.waitUntil(lambda: bool(panel.view.overlays.measured_items), timeout=30_000)
    return window, panel


def test_no_band_is_drawn_on_a_duration_item(qtbot: QtBot, panel: ListeningPanel) -> None:
    show_and_wait(qtbot, panel, DURATION_ITEM)
    overlays = panel.view.overlays
    assert len(overlays.bars) == 4
    qtbot.waitUntil(lambda: bool(panel.measurements.rows), timeout=30_000)
    qtbot.wait(50)  # the band, if it were drawn, is drawn with the rows
    assert overlays.measured_items == []  # the band is not what a duration item asks about


def test_duration_labels_are_apart_and_no_band_label_hides_the_gold(
    qtbot: QtBot, tmp_path, data_dir
) -> None:
    window, panel = _desk_panel(qtbot, tmp_path, data_dir)
    overlays = panel.view.overlays
    overlays.set_options([
        OptionClaim(letter, f"{low:g}-{high:g} s", "duration", low, high, gold=letter == "C")
        for letter, low, high in DURATIONS
    ])  # fmt: skip
    assert overlays.measured_items == []
    _assert_laid_out(panel, "C  0.8-1.2 s")
    close_desk(window)


def test_close_bands_at_the_top_are_apart_and_inside_the_plot(
    qtbot: QtBot, tmp_path, data_dir
) -> None:
    """Four bands crowding the top of a log axis (as a bat's options do on a 375 kHz clip):
    the labels no longer run off the plot's right edge or pile up over the top."""
    window, panel = _desk_panel(qtbot, tmp_path, data_dir)
    overlays = panel.view.overlays
    crowded = [
        ("A", 12_000, 14_000), ("B", 16_000, 22_050), ("C", 9_000, 11_000), ("D", 14_000, 16_000)
    ]  # fmt: skip
    overlays.set_options([
        OptionClaim(letter, f"~{low / 1000:g}-{high / 1000:g} kHz", "frequency", low, high,
                    gold=letter == "D")
        for letter, low, high in crowded
    ])  # fmt: skip
    overlays.set_measured_band((10_500.0, 15_000.0))
    _assert_laid_out(panel, "D  ~14-16 kHz")
    close_desk(window)


def test_the_gold_label_stays_in_view_when_its_band_is_zoomed_out_of_it(
    qtbot: QtBot, tmp_path, data_dir
) -> None:
    window, panel = _desk_panel(qtbot, tmp_path, data_dir)
    _assert_laid_out(panel, "B  ~3-5 kHz")
    mapping = panel.view.mapping
    assert mapping is not None
    box = panel.view.view_box
    box.setYRange(mapping.to_y(6_000), mapping.to_y(12_000), padding=0)  # above the gold band
    _assert_laid_out(panel, "B  ~3-5 kHz")
    close_desk(window)
