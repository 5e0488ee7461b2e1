"""The desk's chords act from the search field; its plain keys and editing chords stay its own.

Qt's line edit claims Ctrl+E (end of line) where the keyboard scheme is X11's, which the offscreen
platform of the other tests does not use: one test runs the desk on a virtual X screen (Xvfb,
which the project's set-up installs) to press the real binding.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QKeyEvent, QKeySequence
from PySide6.QtWidgets import QApplication

from bagel_studio.ui.shortcuts import SHORTCUTS, State
from tests.ui.desk_harness import close_desk, open_desk, rows
from tests.ui.desk_project import KOALA_ID, build_project

ROOT = Path(__file__).resolve().parents[2]
CHORDS = [
    key
    for entry in SHORTCUTS
    for key in entry.keys
    if QKeySequence(key)[0].keyboardModifiers() & Qt.KeyboardModifier.ControlModifier
]


def _field_claims(widget, key: str) -> bool:
    """Whether ``widget`` keeps ``key`` from the window's shortcuts (Qt asks it first)."""
    combination = QKeySequence(key)[0]
    event = QKeyEvent(
        QEvent.Type.ShortcutOverride, combination.key(), combination.keyboardModifiers()
    )
    event.setAccepted(False)
    QApplication.sendEvent(widget, event)
    return event.isAccepted()


def test_the_desks_chords_act_from_the_search_field(qtbot, tmp_path: Path, data_dir: Path) -> None:
    path = tmp_path / "desk.bagel"
    build_project(path, data_dir)
    window = open_desk(qtbot, path)
    with qtbot.waitSignal(window.controller.write_finished, timeout=10_000):
        qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_A)  # a decision to keep

    qtbot.keyClick(window, Qt.Key.Key_Slash)
    search = window.queue.filters.search
    assert QApplication.focusWidget() is search
    qtbot.keyClicks(search, "ARSU koala")  # decision letters type, they decide nothing
    assert search.text() == "ARSU koala"
    assert window.machine.state is not State.WRITING
    # Every chord of the table goes to the desk, but the field's own undo (Ctrl+Z).
    assert [key for key in CHORDS if _field_claims(search, key)] == ["Ctrl+Z"]
    qtbot.keyClick(search, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert search.text() != "ARSU koala"  # the typing is undone, not the decision

    qtbot.keyClick(search, Qt.Key.Key_E, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: "export" in window.menus.panels)
    dialog = window.menus.panels["export"]
    qtbot.waitUntil(dialog.isVisible)
    dialog.close()
    close_desk(window)
    assert rows(path, "SELECT item_id, decision FROM reviews") == [(KOALA_ID, "accept")]


ON_X11 = r"""
import json, sys, time
from pathlib import Path
from PySide6.QtCore import QCoreApplication, QEvent, Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QLineEdit
from bagel_studio.core.prefs import Preferences
from bagel_studio.ui.app import DeskApp

def pump(until, limit=10.0):
    end = time.monotonic() + limit
    while not until() and time.monotonic() < end:
        QCoreApplication.processEvents()
        time.sleep(0.01)
    return until()

app = DeskApp(Preferences(curator="ana"))
app.open(Path(sys.argv[1]))
window = app.window
window.activateWindow()
active = pump(lambda: QApplication.activeWindow() is window)
# A plain line edit takes Ctrl+E here: the binding the desk must win against is in force.
probe = QKeyEvent(QEvent.Type.ShortcutOverride, Qt.Key.Key_E, Qt.KeyboardModifier.ControlModifier)
probe.setAccepted(False)
QApplication.sendEvent(QLineEdit(), probe)
window.focus_search()
search = window.queue.filters.search
QTest.keyClicks(search, "koala")
QTest.keyClick(search, Qt.Key.Key_Home)
QTest.keyClick(search, Qt.Key.Key_E, Qt.KeyboardModifier.ControlModifier)
panels = window.menus.panels
shown = pump(lambda: "export" in panels and panels["export"].isVisible(), 5.0)
print(json.dumps({"platform": QApplication.platformName(), "active": active,
                  "line_edit_takes_ctrl_e": probe.isAccepted(), "export_shown": shown,
                  "text": search.text(), "cursor": search.cursorPosition()}))
app.close_project()
"""


def test_ctrl_e_exports_from_the_search_field_on_x11(tmp_path: Path, data_dir: Path) -> None:
    xvfb_run = shutil.which("xvfb-run")
    assert xvfb_run, "xvfb-run is missing: packaging/setup.sh installs it (Debian package xvfb)"
    path = tmp_path / "keys.bagel"
    build_project(path, data_dir)
    env = {k: v for k, v in os.environ.items() if k not in ("QT_QPA_PLATFORM", "DISPLAY")}
    env["PYTHONPATH"] = str(ROOT)
    result = subprocess.run(
        [xvfb_run, "-a", sys.executable, "-c", ON_X11, str(path)],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    seen = json.loads(result.stdout.strip().splitlines()[-1])
    assert seen["platform"] == "xcb" and seen["active"]
    assert seen["line_edit_takes_ctrl_e"]
    assert seen["export_shown"]
    assert (seen["text"], seen["cursor"]) == ("koala", 0)  # the field did not move to its end
