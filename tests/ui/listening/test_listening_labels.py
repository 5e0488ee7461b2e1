"""The option labels on the spectrogram of the desk at 1280x800 (a plot about 230 x 100 px):
no label covers another, every label is inside the plot, the gold's is whole and on top, and on a
duration item no measured-band label is drawn (there it hid the gold's scale-bar label)."""

from __future__ import annotations

import json
from pathlib import Path

import pyqtgraph as pg
import pytest
from PySide6.QtCore import QEvent, QPointF, QRectF
from PySide6.QtGui import QHelpEvent
from PySide6.QtWidgets import QApplication, QToolTip
from pytestqt.qtbot import QtBot

from bagel_studio.core.importers import import_paths
from bagel_studio.core.store import Store
from bagel_studio.ui.listening import ListeningPanel
from bagel_studio.ui.listening.overlays import OptionClaim
from bagel_studio.ui.main_window import MainWindow
from tests.ui.desk_harness import close_desk, desk_on, listening_panel, open_desk
from tests.ui.desk_project import XC_ID, build_project
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


def _assert_laid_out(panel: ListeningPanel, gold: str, *, short: bool = True) -> None:
    panel.grab()  # painted: each label has its size on screen
    labels = _labels(panel)
    plot = _plot_rect(panel)
    assert plot.height() < 200 or not short, plot  # the short plot of the desk at 1280x800
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


BAT_ID = "xeno-canto:carollia-sowelli:0"
BAT_ITEM = {
    "id": BAT_ID, "domain": "Xeno-canto", "dimension": "Dominant frequency range",
    "level": "medium", "recording": "XC826198",
    "question": "What is the dominant frequency range of the echolocation calls of Sowell's"
    " short-tailed bat (Carollia sowelli)?",
    "options": ["~60-110 kHz", "~20-30 kHz", "~5-10 kHz", "~130-160 kHz"], "answer": "A",
}  # fmt: skip


def _band_heights(panel: ListeningPanel, region: pg.LinearRegionItem) -> tuple[float, float]:
    """A band's top and bottom on the screen (scene y, growing downwards)."""
    box = panel.view.view_box
    ys = [box.mapViewToScene(QPointF(0.0, v)).y() for v in region.getRegion()]
    return min(ys), max(ys)


def _bat_desk(
    qtbot: QtBot, tmp_path: Path, data_dir: Path, size: tuple[int, int]
) -> tuple[MainWindow, ListeningPanel]:
    """The desk at ``size`` on the bat's item, imported as a curator would (the recording's
    folder and the item), its clip measured and its labels painted."""
    path = tmp_path / "desk.bagel"
    build_project(path, data_dir)
    items = tmp_path / "bat_items.jsonl"
    items.write_text(json.dumps(BAT_ITEM) + "\n", encoding="utf-8")
    with Store.open(path) as store:
        import_paths(store, [data_dir / "bats", items])
    window = open_desk(qtbot, path)
    window.resize(*size)
    window.show_item(BAT_ID)
    panel = listening_panel(qtbot, window)
    qtbot.waitUntil(lambda: len(panel.view.overlays.bands) == 4, timeout=30_000)
    qtbot.waitUntil(lambda: bool(panel.view.overlays.measured_items), timeout=30_000)
    panel.grab()  # painted: each label has its size on screen
    return window, panel


@pytest.mark.parametrize("size", [(1280, 800), (1600, 1000)], ids=["1280x800", "1600x1000"])
def test_each_band_label_is_at_its_band_or_led_to_it(
    qtbot: QtBot, tmp_path: Path, data_dir: Path, size: tuple[int, int]
) -> None:
    """The bat's item imported as a curator would (the recording's folder and the item): on
    a 375 kHz clip its four bands crowd the log axis' top at 1280x800, and D (~130-160 kHz)
    found no free row near its band; its label was drawn near 25 kHz, over B's band, as if it
    were B's. Every label shown now shares some height with its band, or a leader line runs
    from it to its band."""
    window, panel = _bat_desk(qtbot, tmp_path, data_dir, size)
    overlays = panel.view.overlays
    placed = {}
    for (option, region, label), leader in zip(overlays.bands, overlays.leaders, strict=True):
        top, bottom = _band_heights(panel, region)
        if not label.isVisible():
            assert not leader.isVisible()
            continue
        rect = label.sceneBoundingRect()
        at_band = rect.top() < bottom and top < rect.bottom()
        assert at_band != leader.isVisible(), (option.letter, label.toPlainText())
        if leader.isVisible():
            xs, ys = leader.getData()
            box = panel.view.view_box
            ends = [box.mapViewToScene(QPointF(x, y)) for x, y in zip(xs, ys, strict=True)]
            assert any(rect.top() - 1 <= p.y() <= rect.bottom() + 1 for p in ends)
            assert any(top - 1 <= p.y() <= bottom + 1 for p in ends)  # reaches its band
        placed[option.letter] = (label.toPlainText(), at_band)
    assert placed.get("A", ("", False))[0].endswith("★ gold")  # the gold's whole, at its band
    assert "D" in placed, placed  # D's band is in view: its label is shown, at it or led to it
    _assert_laid_out(panel, "A  ~60-110 kHz", short=size == (1280, 800))
    close_desk(window)


def test_a_label_with_no_room_at_its_band_is_led_to_it(qtbot: QtBot, tmp_path, data_dir) -> None:
    """The gold's label, placed first, takes the row of the band just above it and the plot's
    width (its text made as long as fits): D's label has no room at its band, even elided to
    "D…", and is drawn at the nearest free height with a line from it to its band."""
    window, panel = _desk_panel(qtbot, tmp_path, data_dir)
    overlays = panel.view.overlays
    overlays.set_measured_band(None)
    plot = _plot_rect(panel)

    def claims(gold: str) -> list[OptionClaim]:
        bands = [
            ("A", gold, 14_000, 16_000),
            ("B", "~3-5 kHz", 3_000, 5_000),
            ("C", "~1-2 kHz", 1_000, 2_000),
            ("D", "~16.5-17 kHz", 16_500, 17_000),
        ]
        return [
            OptionClaim(letter, text, "frequency", low, high, gold=letter == "A")
            for letter, text, low, high in bands
        ]

    for length in range(60, 0, -1):  # the longest gold's label the plot holds whole
        gold = "~14-16 kHz " + "m" * length
        overlays.set_options(claims(gold))
        panel.grab()
        if plot.contains(overlays.bands[0][2].sceneBoundingRect().adjusted(1, 1, -1, -1)):
            break
    _option, region, label = overlays.bands[3]
    leader = overlays.leaders[3]
    top, bottom = _band_heights(panel, region)
    rect = label.sceneBoundingRect()
    assert label.isVisible() and label.toPlainText() == "D  ~16.5-17 kHz"
    assert not (rect.top() < bottom and top < rect.bottom())  # not at its band: led to it
    assert leader.isVisible()
    box = panel.view.view_box
    xs, ys = leader.getData()
    ends = sorted(box.mapViewToScene(QPointF(x, y)).y() for x, y in zip(xs, ys, strict=True))
    assert ends[0] == pytest.approx(bottom, abs=1)  # from the band's lower edge
    assert ends[1] == pytest.approx(rect.top(), abs=2)  # down to the label's top
    assert all(not leader.isVisible() for leader in overlays.leaders[:3])
    _assert_laid_out(panel, f"A  {gold}")
    close_desk(window)


def test_every_band_label_reads_whole_or_elided_with_its_text_on_hover(
    qtbot: QtBot, tmp_path: Path, data_dir: Path
) -> None:
    """At 1280x800 (the smallest size the desk is made for) the bat's D (~130-160 kHz) was
    squeezed to "D" beside the gold's label: a letter that said nothing of its band. Each band's
    label now shows its whole text, or as much of it as fits followed by "…", and then its whole
    text when hovered."""
    window, panel = _bat_desk(qtbot, tmp_path, data_dir, (1280, 800))
    overlays = panel.view.overlays
    shortened = []
    for option, _region, label in overlays.bands:
        assert label.isVisible(), option.label
        text = label.toPlainText()
        if text == option.label:
            continue
        assert text.endswith("…") and option.label.startswith(text[:-1]), (text, option.label)
        assert len(text) > len(f"{option.letter}  …"), text  # more than its letter: its band
        cut = option.label[len(text) - 1]
        assert not (text[-2].isdigit() and cut.isdigit()), text  # "~130-1…" read as 130 to 1
        assert label.toolTip() == option.label
        shortened.append(label)
    assert shortened, overlays.band_labels()  # at 1280x800 the bat's D does not fit whole
    # hovered, the plot says the label's whole text
    label = shortened[0]
    view = panel.view.plot_widget
    at = view.mapFromScene(label.sceneBoundingRect().center())
    QApplication.sendEvent(
        view.viewport(), QHelpEvent(QEvent.Type.ToolTip, at, view.viewport().mapToGlobal(at))
    )
    qtbot.waitUntil(lambda: QToolTip.isVisible() and QToolTip.text() == label.toolTip())
    QToolTip.hideText()
    _assert_laid_out(panel, "A  ~60-110 kHz")
    close_desk(window)
