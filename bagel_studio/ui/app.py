"""The desktop application: builds the QApplication, the preferences, the store, the services and
the windows, and hands each window what it needs (no singletons).

``DeskApp`` owns the one open project at a time: opening another project closes the current window,
waits for its pending writes and releases its writer lock before the next one is opened.
"""

from __future__ import annotations

import logging
import sqlite3
import sys
import time
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QEventLoop, QSettings, QThread
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication, QInputDialog, QLineEdit, QMessageBox, QWidget

from bagel_studio.core.operations.reviews import curator_name
from bagel_studio.core.prefs import Preferences, config_dir
from bagel_studio.core.resources import APP_ID, icon_path
from bagel_studio.core.store import ProjectLockedError, SchemaTooNewError, Store, StoreError
from bagel_studio.core.store.integrity import opening_error
from bagel_studio.ui.main_window import MainWindow
from bagel_studio.ui.plain import plain_message, plain_question
from bagel_studio.ui.services import Services
from bagel_studio.ui.start_screen import StartScreen

log = logging.getLogger(__name__)


def make_qapp() -> QApplication:
    existing = QApplication.instance()
    if isinstance(existing, QApplication):
        return existing
    app = QApplication(sys.argv[:1])
    app.setApplicationName("BAGEL Studio")
    app.setOrganizationName("bagel-studio")
    show_identity(app)
    return app


def show_identity(app: QApplication) -> None:
    """The icon on every window, and the desktop entry's name so that Wayland and taskbars match
    the windows to the installed entry (and its icon)."""
    app.setDesktopFileName(APP_ID)
    if icon_path().is_file():
        app.setWindowIcon(QIcon(str(icon_path())))


def desk_settings() -> QSettings:
    """Window geometry, in the same folder as the preferences (so tests stay isolated)."""
    folder = config_dir()
    folder.mkdir(parents=True, exist_ok=True)
    return QSettings(str(folder / "desk.ini"), QSettings.Format.IniFormat)


def ask_curator(prefs: Preferences, parent: QWidget | None = None) -> str:
    """Ask for the curator's name once; it is kept in the preferences from then on. A name the
    studio refuses (``curator_name``: hidden or reordering characters, several lines, too long)
    is said why, and asked again; so is one the preferences kept from before that rule, or
    that was written there by hand."""
    if prefs.curator:
        try:
            prefs.curator = curator_name(prefs.curator)
        except StoreError as exc:
            prefs.curator = ""
            plain_message(
                parent,
                QMessageBox.Icon.Warning,
                "Name not taken",
                f"The name kept in your preferences is not taken: {exc}",
            )
        else:
            return prefs.curator
    given = ""
    while True:
        name, ok = QInputDialog.getText(
            parent,
            "Who is reviewing?",
            "Your name or initials (recorded with every decision you make):",
            QLineEdit.EchoMode.Normal,
            given,
        )
        if not ok or not name.strip():
            return prefs.curator
        try:
            prefs.curator = curator_name(name)
        except StoreError as exc:
            plain_message(parent, QMessageBox.Icon.Warning, "Name not taken", str(exc))
            given = name
            continue
        prefs.save()
        return prefs.curator


DRAIN_TIMEOUT_S = 60.0


def drain(services: Services, timeout_s: float = DRAIN_TIMEOUT_S) -> bool:
    """Let pending writes and background work finish, running their callbacks (which may queue
    further writes, e.g. a finished measurement being cached), before the executors shut down.
    Returns False if work was still pending at the deadline."""
    deadline = time.monotonic() + timeout_s
    while services.pending:
        if time.monotonic() > deadline:
            log.warning("closing with work still pending")
            return False
        QCoreApplication.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 50)
        QThread.msleep(5)
    return True


class DeskApp:
    """The running application: preferences, the open project and its window."""

    def __init__(self, prefs: Preferences | None = None) -> None:
        self.qapp = make_qapp()
        self.prefs = prefs or Preferences.load()
        self.services: Services | None = None
        self.window: MainWindow | None = None
        self.start_screen: StartScreen | None = None
        self.failed: str | None = None  # why the last project could not be opened
        # nobody can answer a dialog (the command line started the desk without a visible
        # screen, ``launch``): what a dialog would say goes to stderr instead
        self.headless = False

    def open(self, path: Path, *, create: bool = False, read_only: bool = False) -> bool:
        """Open ``path`` in a new desk window; False (with a message) when it cannot be opened.

        The new window is shown before the old one closes, so the application never passes
        through a moment without a window (which would end it)."""
        if self.window is not None and self._is_open(path):
            self.window.raise_()
            return True
        store = self._open_store(path, create=create, read_only=read_only)
        if store is None:
            return False
        previous = (self.window, self.services)
        services: Services | None = None
        try:  # what the first item needs is read before the pages are checked
            if store.team.package() is None:  # a package is reviewed as its curator
                ask_curator(self.prefs)
            services = Services(store=store, prefs=self.prefs)
            window = MainWindow(
                services,
                read_only=store.read_only,
                open_project=lambda p, c: self.open(p, create=c),
                settings=desk_settings(),
            )
        except sqlite3.DatabaseError as exc:  # ... and they are damaged
            if services is not None:
                services.close()
            else:
                store.close()
            error = opening_error(path, exc)
            if error is None:
                raise
            self._cannot_open(self.window or self.start_screen, str(error))
            return False
        self.services, self.window = services, window
        self.prefs.remember_project(path)
        self.prefs.save()
        window.show()
        _retire(*previous)
        if self.start_screen is not None:
            self.start_screen.close()
            self.start_screen = None
        services.check_pages(lambda message: self._found_damaged(services, message))
        return True

    def _found_damaged(self, services: Services, message: str) -> None:
        """The check of the pages, run once the first item was shown, found the file damaged:
        nothing was written into it; said as when it is found on open, and the project closed
        (headless, the desk ends with status 2)."""
        if services is not self.services:  # closed meanwhile
            return
        self._cannot_open(self.window, message)
        if self.headless:
            self.close_project()
            self.qapp.exit(2)
            return
        self.show_start()
        self.close_project()

    def _is_open(self, path: Path) -> bool:
        return self.services is not None and Path(self.services.store.path).resolve() == (
            path.resolve()
        )

    def _open_store(self, path: Path, *, create: bool, read_only: bool) -> Store | None:
        parent = self.window or self.start_screen
        try:
            if read_only:
                store = Store.open(path, read_only=True)
            else:
                # the pages are checked once the first item is shown (``Services.check_pages``)
                store = Store.open(path, create=create, owner=self.prefs.curator, check_pages=False)
        except ProjectLockedError as exc:
            if self.headless:  # nobody could answer: said, not asked
                self._cannot_open(parent, f"{exc}; close it there, then open it again")
                return None
            if plain_question(
                parent,
                "Project in use",
                f"{exc}\n\nOpen it read-only? You can look at everything but not decide or edit.",
            ):
                return self._open_store(path, create=False, read_only=True)
            return None
        except (StoreError, SchemaTooNewError, OSError, sqlite3.Error) as exc:
            self._cannot_open(parent, str(exc))
            return None
        if store.damage is not None:  # found on open: nothing may be written into it
            message = store.damage
            store.close()
            self._cannot_open(parent, message)
            return None
        return store

    def _cannot_open(self, parent: QWidget | None, message: str) -> None:
        """Why a project cannot be opened: in a dialog, or on stderr where no one could see one
        (the desk then ends with status 2)."""
        self.failed = message
        if self.headless:
            sys.stderr.write(f"bagel-studio: cannot open project: {message}\n")
            return
        plain_message(parent, QMessageBox.Icon.Critical, "Cannot open project", message)

    def show_start(self) -> None:
        self.start_screen = StartScreen(self.prefs, lambda p, c: self.open(p, create=c))
        self.start_screen.show()

    def close_project(self) -> None:
        """Close the window (saving geometry) and wait for its writes before releasing the file."""
        _retire(self.window, self.services)
        self.window, self.services = None, None

    def exec(self) -> int:
        if self.window is None and self.start_screen is None:  # closed before the loop ran
            return 2 if self.failed is not None else 0
        self.qapp.setQuitOnLastWindowClosed(True)
        code = int(self.qapp.exec())
        self.close_project()
        return code


def _retire(window: MainWindow | None, services: Services | None) -> None:
    if window is not None:
        window.close()
        window.deleteLater()
    if services is not None:
        drain(services)
        services.close()
