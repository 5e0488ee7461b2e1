"""A screenshot of the panel on a real clip, kept in the test's temporary folder for a person to
look at (axes, bands, labels, colour bar); the test checks the picture is a drawn spectrogram."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PySide6.QtGui import QImage
from pytestqt.qtbot import QtBot

from bagel_studio.ui.listening import ListeningPanel
from tests.ui.listening.conftest import WRONG_GOLD_ITEM, show_and_wait


def _pixels(image: QImage) -> np.ndarray:
    """(height, width, RGB) from a QImage (RGB888 rows may be padded to 4 bytes)."""
    image = image.convertToFormat(QImage.Format.Format_RGB888)
    buffer = np.frombuffer(image.constBits(), dtype=np.uint8)
    rows = buffer.reshape(image.height(), image.bytesPerLine())
    # Copy: the array must not outlive the converted QImage that owns the memory.
    return rows[:, : image.width() * 3].reshape(image.height(), image.width(), 3).copy()


def test_screenshot_of_a_real_clip(qtbot: QtBot, panel: ListeningPanel, tmp_path: Path):
    show_and_wait(qtbot, panel, WRONG_GOLD_ITEM)
    panel.view.set_selection(2.0, 2.16, 2800.0, 5200.0)
    panel.controller.seek(1.5)
    qtbot.wait(50)
    path = tmp_path / "listening_panel.png"
    assert panel.grab().save(str(path))
    image = QImage(str(path))
    assert (image.width(), image.height()) == (panel.width(), panel.height())
    plot = panel.view.plot_widget
    corner = plot.mapTo(panel, plot.rect().topLeft())
    region = _pixels(image)[
        corner.y() : corner.y() + plot.height(), corner.x() : corner.x() + plot.width()
    ]
    colours = np.unique(region.reshape(-1, 3), axis=0)
    assert len(colours) > 200  # a spectrogram, not an empty plot
    red, green, blue = (region[..., i].astype(int) for i in range(3))
    gold = (red > 220) & (green > 150) & (green < 215) & (blue < 60)  # (255, 196, 0), blended
    assert gold.sum() > 500  # the gold band's outline and label are drawn
