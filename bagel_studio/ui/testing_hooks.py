"""Testing hooks read from the environment by ``launch`` (documented here; off unless set).

``BAGEL_STUDIO_TEST_SCRIPT``
    Comma-separated key sequences from the shortcut table (e.g. ``A`` or ``A,S,Ctrl+Z``), played
    one by one through the review machine once the first item is shown; each waits until the
    previous write has committed. The kill test uses it to make a decision in a separate process.
``BAGEL_STUDIO_SCREENSHOT``
    A PNG path: once the script (if any) has played, the window is grabbed into that file and the
    app quits. ``BAGEL_STUDIO_WINDOW_SIZE`` (``1600x1000``) sets the window size first.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import QApplication

from bagel_studio.ui.main_window import MainWindow
from bagel_studio.ui.shortcuts import State, action_for_key

log = logging.getLogger(__name__)
TICK_MS = 50
SETTLE_MS = 600


class ScriptPlayer(QObject):
    """Plays keys into a window's review machine, one per idle moment."""

    def __init__(self, window: MainWindow, keys: list[str], screenshot: Path | None) -> None:
        super().__init__(window)
        self.window = window
        self.keys = keys
        self.screenshot = screenshot
        self.timer = QTimer(self, interval=TICK_MS)
        self.timer.timeout.connect(self._tick)
        self.timer.start()

    def _tick(self) -> None:
        if self.window.machine.state in (State.WRITING, State.REJECT, State.NOTE):
            return
        if self.keys:
            key = self.keys.pop(0)
            action = action_for_key(key)
            if action is None:
                log.warning("testing hook: no action for key %r", key)
            else:
                self.window.machine.handle(action)
            return
        self.timer.stop()
        if self.screenshot is not None:
            QTimer.singleShot(SETTLE_MS, self._grab)

    def _grab(self) -> None:
        assert self.screenshot is not None
        self.screenshot.parent.mkdir(parents=True, exist_ok=True)
        self.window.grab().save(str(self.screenshot))
        QApplication.quit()


def install(window: MainWindow) -> ScriptPlayer | None:
    """Start the hooks that the environment asks for, if any."""
    script = os.environ.get("BAGEL_STUDIO_TEST_SCRIPT", "")
    screenshot = os.environ.get("BAGEL_STUDIO_SCREENSHOT", "")
    size = os.environ.get("BAGEL_STUDIO_WINDOW_SIZE", "")
    if size:
        width, _, height = size.partition("x")
        window.resize(int(width), int(height))
    if not script and not screenshot:
        return None
    keys = [k.strip() for k in script.split(",") if k.strip()]
    return ScriptPlayer(window, keys, Path(screenshot) if screenshot else None)
