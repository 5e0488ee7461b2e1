"""The desk shows the application's icon and names its desktop entry."""

from __future__ import annotations

from PySide6.QtWidgets import QApplication

from bagel_studio.core.resources import APP_ID
from bagel_studio.ui.app import show_identity


def test_windows_carry_the_icon_and_the_desktop_entry(qapp: QApplication) -> None:
    show_identity(qapp)
    assert qapp.desktopFileName() == APP_ID
    icon = qapp.windowIcon()
    assert not icon.isNull()
    pixmap = icon.pixmap(64, 64)
    assert pixmap.width() == 64
    image = pixmap.toImage()
    colours = {image.pixel(x, y) for x in range(0, 64, 4) for y in range(0, 64, 4)}
    assert len(colours) > 10  # a drawing, not a blank square
