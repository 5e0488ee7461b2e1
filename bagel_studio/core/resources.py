"""Where the bundled resources are (demo sources, third-party data with its licences, the icon and
desktop files).

In an installed wheel and in the PyInstaller bundle they are package data,
``bagel_studio/resources`` (``setup.py`` maps the repository's top-level ``resources/`` there); in
a source checkout they are that top-level folder itself. Nothing else in the code names the folder.
"""

from __future__ import annotations

from pathlib import Path

PACKAGED = Path(__file__).resolve().parents[1] / "resources"
SOURCE_TREE = Path(__file__).resolve().parents[2] / "resources"
APP_ID = "io.github.bagelstudio.BagelStudio"


def find_resources() -> Path:
    """The resources folder: the packaged one if present, else the source tree's (which may be
    missing too, in a broken install: callers say so when they look for a file in it)."""
    return PACKAGED if PACKAGED.is_dir() else SOURCE_TREE


RESOURCES = find_resources()


def icon_path() -> Path:
    """The application's icon (PNG, 256 px; the SVG it is rendered from lies beside it)."""
    return RESOURCES / "desktop" / f"{APP_ID}.png"
