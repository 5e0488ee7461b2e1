"""Render the SVG icon in resources/desktop to the PNG beside it (run after editing the SVG):
    python packaging/render_icon.py
Uses Qt's SVG renderer, so the PNG looks like what Qt itself would draw."""

from __future__ import annotations

import sys
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication, QImage, QPainter
from PySide6.QtSvg import QSvgRenderer

DESKTOP = Path(__file__).resolve().parents[1] / "resources" / "desktop"
APP_ID = "io.github.bagelstudio.BagelStudio"


def render(size: int = 256) -> Path:
    renderer = QSvgRenderer(str(DESKTOP / f"{APP_ID}.svg"))
    if not renderer.isValid():
        raise SystemExit(f"render_icon: {APP_ID}.svg is not valid SVG")
    image = QImage(size, size, QImage.Format.Format_ARGB32)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    renderer.render(painter)
    painter.end()
    target = DESKTOP / f"{APP_ID}.png"
    image.save(str(target))
    return target


if __name__ == "__main__":
    app = QGuiApplication(sys.argv[:1])
    print(render())
