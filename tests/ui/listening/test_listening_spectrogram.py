"""The spectrogram of a real clip: image geometry, kHz axis, option overlays, box and crosshair."""

from __future__ import annotations

import re

import numpy as np
import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from pytestqt.qtbot import QtBot

from bagel_studio.ui.listening import ListeningPanel
from tests.ui.listening.conftest import (
    CROWNED_ITEM,
    DURATION_ITEM,
    FREQ_ITEM,
    SPARROW,
    idle,
    show_and_wait,
)


def test_linear_image_is_placed_in_seconds_by_hertz(qtbot: QtBot, linear_panel: ListeningPanel):
    show_and_wait(qtbot, linear_panel, FREQ_ITEM)
    view, spec = linear_panel.view, linear_panel.clip.spectrogram
    assert spec.settings.scale == "linear"
    assert linear_panel.stack.currentWidget() is view
    assert view.image.image.shape == spec.db.shape == (513, spec.times_s.size)
    rect = view.image.mapRectToParent(view.image.boundingRect())
    step_hz = spec.freqs_hz[1] - spec.freqs_hz[0]
    # QRectF's top is its smallest y: the lowest frequency edge.
    assert rect.top() == pytest.approx(-step_hz / 2)
    assert rect.bottom() == pytest.approx(22050 + step_hz / 2)
    assert rect.left() <= 0.0 < 6.0 <= rect.right()
    assert rect.right() == pytest.approx(6.0, abs=0.01)
    assert view.image.levels[0] == pytest.approx(-80) and view.image.levels[1] == pytest.approx(0)
    # The frequency axis is labelled in kHz whatever the plot's coordinate is.
    assert "kHz" in view.freq_axis.labelString()
    assert view.freq_axis.tickStrings([5000.0, 12500.0], 1.0, 5000.0) == ["5", "12.5"]
    assert "House Sparrow" in linear_panel.header.text()
    assert "44.1 kHz 2 ch" in linear_panel.header.text()


def test_log_scale_rows_are_labelled_in_khz(qtbot: QtBot, panel: ListeningPanel):
    show_and_wait(qtbot, panel, FREQ_ITEM)
    view, spec = panel.view, panel.clip.spectrogram
    assert spec.settings.scale == "log"
    rect = view.image.mapRectToParent(view.image.boundingRect())
    assert (rect.top(), rect.bottom()) == pytest.approx((-0.5, spec.freqs_hz.size - 0.5))
    ticks = view.freq_axis.tickValues(*view.view_box.viewRange()[1], 400)
    labels = view.freq_axis.tickStrings(ticks[0][1], 1.0, 1.0)
    assert {"0.2", "1", "10"} <= set(labels)  # the log axis starts at 150 Hz
    assert len(labels) >= 6
    # Every tick sits where that frequency's row is.
    for y, label in zip(ticks[0][1], labels, strict=True):
        row = round(y)
        assert spec.freqs_hz[row] == pytest.approx(float(label) * 1000, rel=0.03)


def test_option_ranges_are_drawn_with_gold_marked(qtbot: QtBot, panel: ListeningPanel):
    show_and_wait(qtbot, panel, FREQ_ITEM)
    overlays, mapping = panel.view.overlays, panel.view.mapping
    assert overlays.band_labels() == [
        "A  ~9-11 kHz", "B  ~3-5 kHz  ★ gold", "C  ~6-8 kHz", "D  ~1-2 kHz",
    ]  # fmt: skip
    bands = {option.letter: region for option, region, _ in overlays.bands}
    low, high = (mapping.to_hz(v) for v in bands["B"].getRegion())
    assert (low, high) == pytest.approx((3000, 5000), rel=1e-6)
    gold_pen = bands["B"].lines[0].pen.widthF()
    assert gold_pen > bands["A"].lines[0].pen.widthF()
    assert bands["B"].lines[0].pen.color().name() != bands["A"].lines[0].pen.color().name()
    assert overlays.bar_labels() == []


def test_duration_claims_are_drawn_as_scale_bars(qtbot: QtBot, panel: ListeningPanel):
    show_and_wait(qtbot, panel, DURATION_ITEM)
    overlays = panel.view.overlays
    assert overlays.band_labels() == []
    assert overlays.bar_labels() == [
        "A  80-150 ms  ★ gold", "B  200-400 ms", "C  0.8-1.2 s", "D  1.5-2.0 s",
    ]  # fmt: skip
    lengths = []
    for _, curves, _label in overlays.bars:
        shortest, whole = curves[0].getData()[0], curves[1].getData()[0]
        lengths += [shortest[1] - shortest[0], whole[1] - shortest[0]]
    assert lengths == pytest.approx([0.08, 0.15, 0.2, 0.4, 0.8, 1.2, 1.5, 2.0])
    (x0, x1), _ = panel.view.view_box.viewRange()
    for _, curves, _label in overlays.bars:  # inside the visible time range
        xs = curves[1].getData()[0]
        assert x0 <= xs[0] and xs[1] <= x1


def test_box_reads_duration_and_band(qtbot: QtBot, panel: ListeningPanel):
    show_and_wait(qtbot, panel, FREQ_ITEM)
    panel.view.set_selection(1.0, 1.123, 2100.0, 4800.0)
    assert panel.view.selection_label.text().startswith("Δt = 123 ms, 2.1–4.8 kHz")
    t0, t1, low, high = panel.view.selection()
    assert (t0, t1, low, high) == pytest.approx((1.0, 1.123, 2100.0, 4800.0), rel=1e-6)


def test_box_survives_a_change_of_scale(qtbot: QtBot, panel: ListeningPanel):
    show_and_wait(qtbot, panel, FREQ_ITEM)
    panel.view.set_selection(2.0, 2.25, 3000.0, 6000.0)
    panel.settings_bar.scale_combo.setCurrentIndex(panel.settings_bar.scale_combo.findData("mel"))
    idle(qtbot, panel.services)
    assert panel.view.spectrogram.settings.scale == "mel"
    assert panel.view.selection_label.text().startswith("Δt = 250 ms, 3–6 kHz")


def _viewport_point(panel: ListeningPanel, t: float, hz: float) -> QPoint:
    view = panel.view
    scene = view.view_box.mapViewToScene(QPointF(t, view.mapping.to_y(hz)))
    return view.plot_widget.mapFromScene(scene)


def test_shift_drag_draws_a_box(qtbot: QtBot, linear_panel: ListeningPanel):
    show_and_wait(qtbot, linear_panel, FREQ_ITEM)
    viewport = linear_panel.view.plot_widget.viewport()
    start = _viewport_point(linear_panel, 1.0, 8000.0)
    end = _viewport_point(linear_panel, 2.0, 2000.0)
    shift = Qt.KeyboardModifier.ShiftModifier
    qtbot.mousePress(viewport, Qt.MouseButton.LeftButton, shift, start)
    for step in range(1, 11):
        point = start + (end - start) * step / 10
        qtbot.mouseMove(viewport, point)
    qtbot.mouseRelease(viewport, Qt.MouseButton.LeftButton, shift, end)
    selection = linear_panel.view.selection()
    assert selection is not None
    t0, t1, low, high = selection
    (x0, x1), (y0, y1) = linear_panel.view.view_box.viewRange()
    pixel_s = (x1 - x0) / linear_panel.view.view_box.width()
    pixel_hz = (y1 - y0) / linear_panel.view.view_box.height()
    assert t0 == pytest.approx(1.0, abs=2 * pixel_s) and t1 == pytest.approx(2.0, abs=2 * pixel_s)
    assert low == pytest.approx(2000, abs=2 * pixel_hz)
    assert high == pytest.approx(8000, abs=2 * pixel_hz)
    text = linear_panel.view.selection_label.text()
    assert re.match(r"Δt = (99\d|100\d) ms, ", text), text


def test_crosshair_reads_time_frequency_and_level(qtbot: QtBot, linear_panel: ListeningPanel):
    show_and_wait(qtbot, linear_panel, FREQ_ITEM)
    view, spec = linear_panel.view, linear_panel.clip.spectrogram
    point = _viewport_point(linear_panel, 2.0, 4000.0)
    qtbot.mouseMove(view.plot_widget.viewport(), point)
    text = view.crosshair_label.text()
    match = re.fullmatch(r"t = ([\d.]+) s   f = ([\d.]+) kHz   (-?[\d.]+) dB", text)
    assert match, text
    exact = view.view_box.mapSceneToView(view.plot_widget.mapToScene(point))
    assert float(match.group(1)) == pytest.approx(exact.x(), abs=5e-4)
    assert float(match.group(2)) * 1000 == pytest.approx(exact.y(), abs=10)
    assert float(match.group(1)) == pytest.approx(2.0, abs=0.02)
    assert float(match.group(2)) == pytest.approx(4.0, abs=0.1)
    row = round((exact.y() - spec.freqs_hz[0]) / (spec.freqs_hz[1] - spec.freqs_hz[0]))
    col = int(np.argmin(np.abs(spec.times_s - exact.x())))
    assert float(match.group(3)) == pytest.approx(float(spec.db[row, col]), abs=0.051)
    assert view.cross_v.isVisible() and view.cross_v.value() == pytest.approx(exact.x())


def test_a_later_item_wins_over_an_earlier_one_still_loading(qtbot: QtBot, panel: ListeningPanel):
    store = panel.services.store
    panel.show_item(store.items.get(FREQ_ITEM))
    panel.show_item(store.items.get(CROWNED_ITEM))
    idle(qtbot, panel.services)
    assert panel.clip is not None and panel.clip.recording_id == "XC236243"
    assert "White-crowned Sparrow" in panel.header.text()
    assert SPARROW not in panel.header.text()


def test_labels_never_cover_each_other_on_a_narrow_plot(qtbot: QtBot, panel: ListeningPanel):
    panel.resize(380, 560)  # the evidence column at 1280x800
    show_and_wait(qtbot, panel, FREQ_ITEM)
    overlays = panel.view.overlays
    qtbot.waitUntil(lambda: bool(overlays.measured_items))  # the measured band's label too
    close = [
        ("C", "~6-8 kHz"), ("A", "~9-11 kHz"), ("B", "~3-5 kHz"), ("D", "~4-6 kHz")
    ]  # fmt: skip
    from bagel_studio.ui.listening.overlays import OptionClaim

    overlays.set_options([
        OptionClaim(letter, text, "frequency", *(float(v) * 1000 for v in text[1:-4].split("-")),
                    gold=letter == "B")
        for letter, text in close
    ])  # fmt: skip
    panel.grab()  # painted: each label has its size on screen
    labels = [label for _, _, label in overlays.bands] + [overlays.measured_items[-1]]
    rects = [label.sceneBoundingRect() for label in labels]
    for i, a in enumerate(rects):
        for j in range(i + 1, len(rects)):
            overlap = a.intersected(rects[j])
            assert overlap.width() < 1 or overlap.height() < 1, (
                labels[i].toPlainText(),
                labels[j].toPlainText(),
            )
