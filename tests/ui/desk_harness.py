"""Opening a real desk on a real project file for a test, and closing it the way the app does."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication, QWidget

from bagel_studio.core.prefs import Preferences
from bagel_studio.core.store import Store
from bagel_studio.ui.app import drain
from bagel_studio.ui.main_window import MainWindow
from bagel_studio.ui.services import Services
from tests.ui.desk_project import build_project

if TYPE_CHECKING:
    from bagel_studio.ui.listening import ListeningPanel


def open_desk(
    qtbot: Any,
    path: Path,
    *,
    curator: str = "ana",
    blind: bool = False,
    read_only: bool = False,
    settings_dir: Path | None = None,
) -> MainWindow:
    prefs = Preferences(curator=curator, blind_mode=blind)
    prefs.save()
    store = Store.open(path, read_only=True) if read_only else Store.open(path, owner=curator)
    services = Services(store=store, prefs=prefs)
    settings = QSettings(
        str((settings_dir or path.parent) / "desk.ini"), QSettings.Format.IniFormat
    )
    window = MainWindow(services, read_only=read_only, settings=settings)
    qtbot.addWidget(window)
    with qtbot.waitExposed(window):
        window.show()
    window.activateWindow()  # window-wide shortcuts act only in the active window
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window, timeout=5_000)
    return window


def desk_on(
    qtbot: Any,
    folder: Path,
    data_dir: Path,
    item_id: str | None = None,
    *,
    size: tuple[int, int] = (1280, 800),
    name: str = "desk.bagel",
    **options: Any,
) -> MainWindow:
    """A desk (``open_desk`` with ``options``) at ``size`` on the test project built in
    ``folder`` (``desk_project.build_project``), showing ``item_id`` when one is given."""
    path = folder / name
    build_project(path, data_dir)
    window = open_desk(qtbot, path, **options)
    window.resize(*size)
    if item_id is not None:
        window.show_item(item_id)
    qtbot.wait(50)
    return window


def wait_exposed(qtbot: Any, widget: QWidget) -> None:
    """Wait until ``widget``, shown by the code under test (a menu opened a panel), is on screen.
    ``qtbot.waitExposed`` is a context manager around the ``show()``; called alone, it waits for
    nothing."""
    qtbot.waitUntil(lambda: widget.windowHandle() is not None and widget.windowHandle().isExposed())


def open_window(qtbot: Any, window: MainWindow, name: str) -> QWidget:
    """Open one of the desk's windows by its name in ``window.menus.panels`` ("help", "export",
    or a panel of ``desk_menus.PANELS``) as its menu does, and wait until it is on screen."""
    if name == "help":
        window.menus.show_help()
    elif name == "export":
        window.menus.export_dialog()
    else:
        window.menus.open_panel(name)
    panel: QWidget = window.menus.panels[name]
    qtbot.addWidget(panel)
    wait_exposed(qtbot, panel)
    return panel


def listening_panel(qtbot: Any, window: MainWindow) -> ListeningPanel:
    """The desk's listening panel, once built: the desk builds it in steps while it is idle,
    and waiting here leaves it idle. If the item on screen has a recording, the panel has it."""
    qtbot.waitUntil(lambda: window.evidence.listening is not None)
    panel = window.evidence.listening
    assert panel is not None
    return panel


def close_desk(window: MainWindow) -> None:
    """Close like the app: the window saves its geometry, the services wait for their writes."""
    window.close()
    drain(window.services)
    window.services.close()


def rows(path: Path, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Read the project file with a plain read-only sqlite3 connection."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return conn.execute(sql, params).fetchall()
    finally:
        conn.close()
