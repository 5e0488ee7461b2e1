"""Running the desk where no one can see it (a virtual X screen, Qt's offscreen platform).

``bash packaging/bagel.sh demo`` on a machine without a display starts the desk on Xvfb and sets
``BAGEL_STUDIO_HEADLESS=1``. Then the desk must neither wait on a dialog nobody can see (the
curator's name comes from ``--curator``, ``BAGEL_STUDIO_CURATOR``, the preferences or the OS user
name) nor leave the user guessing: it prints where it runs, how to attach a VNC viewer to that
screen, and writes a screenshot of the desk every few seconds to a path it prints. Ctrl+C ends it.
"""

from __future__ import annotations

import getpass
import os
import shutil
import signal
import sys
from pathlib import Path

from PySide6.QtCore import QObject, QTimer
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication, QWidget

from bagel_studio.core.prefs import Preferences, config_dir

HEADLESS_ENV = "BAGEL_STUDIO_HEADLESS"
CURATOR_ENV = "BAGEL_STUDIO_CURATOR"
SCREENSHOT_ENV = "BAGEL_STUDIO_HEADLESS_SCREENSHOT"
SCREENSHOT_EVERY_MS = 5000
HEADLESS_PLATFORMS = ("offscreen", "minimal", "vnc")


def is_headless() -> bool:
    """True when the desk's window cannot be seen: told so, or on a screen-less Qt platform."""
    if os.environ.get(HEADLESS_ENV, "") not in ("", "0"):
        return True
    app = QGuiApplication.instance()
    platform = QGuiApplication.platformName() if app is not None else ""
    return platform in HEADLESS_PLATFORMS or os.environ.get("QT_QPA_PLATFORM") in (
        HEADLESS_PLATFORMS
    )


def os_user_name() -> str:
    """The OS user name, or 'curator' where there is none (containers without a passwd entry)."""
    try:
        return getpass.getuser() or "curator"
    except (KeyError, OSError):
        return "curator"


def refused_kept_name(prefs: Preferences, given: str | None) -> str | None:
    """Why the name the preferences kept cannot be used (``curator_name``), when it is the one
    the desk would use (neither ``--curator`` nor the environment gives one); else None."""
    from bagel_studio.core.operations.reviews import curator_name
    from bagel_studio.core.store import StoreError

    if not prefs.curator or (given and given.strip()) or os.environ.get(CURATOR_ENV, "").strip():
        return None
    try:
        curator_name(prefs.curator)
    except StoreError as exc:
        return (
            f"the curator name kept in {config_dir() / 'preferences.toml'} is not taken: {exc};"
            f" give one with --curator NAME or {CURATOR_ENV}"
        )
    return None


def curator_from_outside(given: str | None) -> tuple[str, str] | None:
    """(name, where it came from) from --curator or the environment, or None; a StoreError
    when the name is one the studio refuses (``curator_name``)."""
    from bagel_studio.core.operations.reviews import curator_name

    if given and given.strip():
        return curator_name(given), "--curator"
    env = os.environ.get(CURATOR_ENV, "")
    if env.strip():
        return curator_name(env), CURATOR_ENV
    return None


def how_to_see(display: str | None, screenshot: Path) -> str:
    """What to tell someone whose desk runs on a screen they cannot see."""
    lines = ["bagel-studio: the desk is running without a visible screen"]
    if display:
        lines[0] += f" (virtual X display {display})"
        vnc = f"x11vnc -display {display} -localhost -nopw -forever"
        if shutil.which("x11vnc") is None:
            vnc = "apt-get install x11vnc; " + vnc
        lines += [
            "  To see and use it: run   " + vnc,
            "  then point a VNC viewer at localhost:5900 (over ssh: ssh -L 5900:localhost:5900 …).",
        ]
    lines += [
        f"  A screenshot of the desk is written every {SCREENSHOT_EVERY_MS // 1000} s to "
        f"{screenshot}",
        "  To work in a window instead, run from a desktop session (or ssh -X).",
        "  Press Ctrl+C here to quit.",
    ]
    return "\n".join(lines) + "\n"


class HeadlessWatcher(QObject):
    """Writes the desk's screenshot periodically and lets Ctrl+C end the Qt loop."""

    def __init__(self, window_of: object, screenshot: Path) -> None:
        super().__init__()
        self.window_of = window_of  # a callable returning the desk window (it may be replaced)
        self.screenshot = screenshot
        self.written = 0
        self.timer = QTimer(self, interval=SCREENSHOT_EVERY_MS)
        self.timer.timeout.connect(self.write)
        self.timer.start()
        QTimer.singleShot(1500, self.write)  # the first one soon after the desk is up
        # Qt's loop does not return to Python on its own: a short tick lets SIGINT be handled.
        self.tick = QTimer(self, interval=200)
        self.tick.timeout.connect(lambda: None)
        self.tick.start()
        signal.signal(signal.SIGINT, lambda *_: QApplication.quit())

    def write(self) -> None:
        window = self.window_of() if callable(self.window_of) else None
        if not isinstance(window, QWidget) or not window.isVisible():
            return
        self.screenshot.parent.mkdir(parents=True, exist_ok=True)
        partial = self.screenshot.with_name(self.screenshot.name + ".part.png")
        if window.grab().save(str(partial)):
            partial.replace(self.screenshot)  # a viewer never sees a half-written file
            self.written += 1


def announce(text: str) -> None:
    sys.stdout.write(text)
    sys.stdout.flush()
