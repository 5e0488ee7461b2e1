"""The measuring box: the line under the plot says whether the box tool is on, and a drag that
starts on an option's label (they cover much of a short plot) draws the box like any other."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from pytestqt.qtbot import QtBot

from bagel_studio.ui.listening import ListeningPanel
from tests.ui.listening.conftest import DURATION_ITEM, FREQ_ITEM, show_and_wait


def test_the_line_under_the_plot_says_the_box_is_on_while_it_is(
    qtbot: QtBot, panel: ListeningPanel
):
    show_and_wait(qtbot, panel, FREQ_ITEM)
    readout = panel.view.selection_label
    assert "Shift+drag" in readout.text()
    panel.toggle_measure()
    assert readout.text().startswith("Measuring box on")
    assert "off" not in readout.text().split(":")[0]  # no "(M: off)" read as the state
    panel.toggle_measure()
    assert "Shift+drag" in readout.text()


def _drag(qtbot: QtBot, panel: ListeningPanel, start: QPoint, end: QPoint, shift: bool) -> None:
    """A drag as a hand makes it: the pointer comes to ``start``, then presses and moves (each
    move 15 ms after the last: pyqtgraph drops moves closer than 10 ms)."""
    viewport = panel.view.plot_widget.viewport()
    modifiers = Qt.KeyboardModifier.ShiftModifier if shift else Qt.KeyboardModifier.NoModifier
    for point in (start + QPoint(3, 3), start):
        qtbot.mouseMove(viewport, point)
        qtbot.wait(15)
    qtbot.mousePress(viewport, Qt.MouseButton.LeftButton, modifiers, start)
    for step in range(1, 6):
        qtbot.wait(15)
        qtbot.mouseMove(viewport, start + (end - start) * step / 5)
    qtbot.mouseRelease(viewport, Qt.MouseButton.LeftButton, modifiers, end)


def _label_centre(panel: ListeningPanel, label) -> QPoint:
    return panel.view.plot_widget.mapFromScene(label.sceneBoundingRect().center())


@pytest.mark.parametrize(
    "item, shift", [(FREQ_ITEM, True), (FREQ_ITEM, False), (DURATION_ITEM, True)]
)
def test_a_drag_that_starts_on_a_label_draws_the_box(
    qtbot: QtBot, panel: ListeningPanel, item: str, shift: bool
):
    panel.resize(380, 560)  # the evidence column at 1280x800: labels cover much of the plot
    show_and_wait(qtbot, panel, item)
    if not shift:
        panel.toggle_measure()
    overlays = panel.view.overlays
    qtbot.waitUntil(lambda: bool(panel.measurements.rows))  # (a duration item draws no band)
    panel.grab()  # painted: the labels have their places
    labels = [label for _, _, label in overlays.bands] + [label for _, _, label in overlays.bars]
    labels += [i for i in overlays.measured_items if hasattr(i, "toPlainText") and i.isVisible()]
    view = panel.view
    for label in labels:
        view.clear_selection()
        start = _label_centre(panel, label)
        _drag(qtbot, panel, start, start + QPoint(-40, 30), shift)
        selection = view.selection()
        assert selection is not None, f"no box from a drag on {label.toPlainText()!r}"
        begin = view.view_box.mapSceneToView(view.plot_widget.mapToScene(start))
        (x0, x1), _ = view.view_box.viewRange()
        pixel = (x1 - x0) / view.view_box.width()
        assert max(selection[:2]) == pytest.approx(begin.x(), abs=3 * pixel), label.toPlainText()


def test_a_drag_inside_a_box_already_drawn_draws_a_new_one(qtbot: QtBot, panel: ListeningPanel):
    """Among the labels of a short plot a box is soon under the pointer: a drag there used to
    carry the old box along instead of drawing the one asked for (its handles still adjust it)."""
    panel.resize(380, 560)
    show_and_wait(qtbot, panel, FREQ_ITEM)
    view = panel.view
    view.set_selection(1.0, 3.0, 2000.0, 8000.0)
    panel.grab()
    inside = view.plot_widget.mapFromScene(
        view.view_box.mapViewToScene(QPointF(2.0, view.mapping.to_y(4000.0)))
    )
    _drag(qtbot, panel, inside, inside + QPoint(30, 25), shift=True)
    t0, t1, _low, high = view.selection()
    begin = view.view_box.mapSceneToView(view.plot_widget.mapToScene(inside))
    (x0, x1), _ = view.view_box.viewRange()
    pixel = (x1 - x0) / view.view_box.width()
    assert t0 == pytest.approx(begin.x(), abs=3 * pixel)  # a new box from where the drag began
    assert t1 - t0 < 1.0 and high < 4100.0


def test_the_boxs_handles_still_adjust_it(qtbot: QtBot, panel: ListeningPanel):
    show_and_wait(qtbot, panel, FREQ_ITEM)
    view = panel.view
    view.set_selection(1.0, 3.0, 2000.0, 8000.0)
    panel.grab()
    corner = next(h for h in view.box.getHandles() if h.pos().x() > 0.5)  # the (end, top) one
    start = view.plot_widget.mapFromScene(corner.scenePos())
    _drag(qtbot, panel, start, start + QPoint(40, 0), shift=False)
    t0, t1, _low, _high = view.selection()
    assert t0 == pytest.approx(1.0) and t1 > 3.1  # longer, from the same start
