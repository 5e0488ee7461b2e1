"""Zoom as in Raven and Audacity: the wheel zooms time only, Shift+wheel frequency only, Z zooms
to the measuring box and 0 shows the whole clip again; the keys are in the desk's one table and
F1 lists them with the wheel's gestures."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from bagel_studio.ui.listening import ListeningPanel
from bagel_studio.ui.shortcuts import BY_ACTION, MOUSE
from bagel_studio.ui.shortcuts_help import ShortcutsHelp
from tests.ui.desk_harness import close_desk, desk_on, listening_panel
from tests.ui.desk_project import XC_ID
from tests.ui.listening.conftest import FREQ_ITEM, show_and_wait


def _wheel(panel: ListeningPanel, steps: int, modifiers=Qt.KeyboardModifier.NoModifier) -> None:
    viewport = panel.view.plot_widget.viewport()
    box = panel.view.view_box
    centre = panel.view.plot_widget.mapFromScene(box.sceneBoundingRect().center())
    event = QWheelEvent(
        QPointF(centre), QPointF(viewport.mapToGlobal(centre)), QPoint(0, 0),
        QPoint(0, 120 * steps), Qt.MouseButton.NoButton, modifiers,
        Qt.ScrollPhase.NoScrollPhase, False,
    )  # fmt: skip
    QApplication.sendEvent(viewport, event)


def _range(panel: ListeningPanel) -> tuple[tuple[float, float], tuple[float, float]]:
    (x0, x1), (y0, y1) = panel.view.view_box.viewRange()
    return (x0, x1), (y0, y1)


def _same(a: tuple[tuple[float, float], ...], b: tuple[tuple[float, float], ...]) -> bool:
    return all(x == pytest.approx(y) for x, y in zip(a, b, strict=True))


def test_the_wheel_zooms_time_only(qtbot: QtBot, panel: ListeningPanel):
    show_and_wait(qtbot, panel, FREQ_ITEM)
    (x0, x1), ys = _range(panel)
    _wheel(panel, 3)
    (a, b), after = _range(panel)
    assert b - a < 0.9 * (x1 - x0)  # zoomed in on time
    assert after == pytest.approx(ys)  # the frequency range as it was


def test_shift_wheel_zooms_frequency_only(qtbot: QtBot, panel: ListeningPanel):
    show_and_wait(qtbot, panel, FREQ_ITEM)
    xs, (y0, y1) = _range(panel)
    _wheel(panel, 3, Qt.KeyboardModifier.ShiftModifier)
    after, (a, b) = _range(panel)
    assert b - a < 0.9 * (y1 - y0)
    assert after == pytest.approx(xs)


def test_z_zooms_to_the_box_and_0_shows_all(qtbot: QtBot, panel: ListeningPanel):
    show_and_wait(qtbot, panel, FREQ_ITEM)
    whole = _range(panel)
    messages: list[str] = []
    panel.status_message.connect(messages.append)
    panel.zoom_to_selection()  # no box yet: says how to draw one
    assert _same(_range(panel), whole)
    assert "measuring box" in messages[-1]
    panel.view.set_selection(1.0, 2.5, 3000.0, 6000.0)
    panel.zoom_to_selection()
    (x0, x1), (y0, y1) = _range(panel)
    mapping = panel.view.mapping
    assert (x0, x1) == pytest.approx((1.0, 2.5), abs=1e-6)
    assert (mapping.to_hz(y0), mapping.to_hz(y1)) == pytest.approx((3000.0, 6000.0), rel=1e-6)
    panel.show_all()
    assert _same(_range(panel), whole)


def test_zoom_keys_are_in_the_one_table_and_f1_lists_the_wheel(qtbot: QtBot) -> None:
    assert BY_ACTION["zoom_selection"].keys == ("Z",)
    assert BY_ACTION["zoom_all"].keys == ("0",)
    assert {"Wheel", "Shift+wheel"} <= {gesture for gesture, _ in MOUSE}
    help_dialog = ShortcutsHelp()
    qtbot.addWidget(help_dialog)
    text = help_dialog.text.toPlainText()
    for needle in ("Zoom to the measuring box", "Show the whole recording", "Shift+wheel"):
        assert needle in text


def test_z_and_0_in_the_desk(qtbot: QtBot, tmp_path: Path, data_dir: Path) -> None:
    window = desk_on(qtbot, tmp_path, data_dir, XC_ID)
    panel = listening_panel(qtbot, window)
    qtbot.waitUntil(lambda: panel.clip is not None, timeout=30_000)
    whole = _range(panel)
    panel.view.set_selection(2.0, 3.0, 2000.0, 5000.0)
    qtbot.keyClick(window, Qt.Key.Key_Z)
    assert _range(panel)[0] == pytest.approx((2.0, 3.0), abs=1e-6)
    qtbot.keyClick(window, Qt.Key.Key_0)
    assert _same(_range(panel), whole)
    close_desk(window)
