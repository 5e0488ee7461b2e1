"""The listening panel is built in small steps while the desk is idle, never in a curator's way."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from PySide6.QtCore import QObject, Qt, QTimer

from bagel_studio.ui.evidence_view import LISTENING_PREPARING
from bagel_studio.ui.listening_warmup import ListeningWarmup
from tests.ui.desk_harness import close_desk, listening_panel, open_desk
from tests.ui.listening.conftest import FREQ_ITEM
from tests.ui.listening.conftest import build_project as build_clip_project


def test_the_warmup_waits_while_the_desk_is_busy_then_builds_once(qtbot) -> None:
    built: list[str] = []
    owner = QObject()
    warmup = ListeningWarmup(lambda: built.append("panel"), owner, idle_ms=100)
    busy = QTimer(owner, interval=20)  # a curator acting every 20 ms
    busy.timeout.connect(warmup.poke)
    busy.start()
    warmup.start()
    qtbot.wait(400)
    assert warmup.steps_run == 0 and not built  # never idle for 100 ms: nothing ran
    busy.stop()
    qtbot.waitUntil(lambda: warmup.done)
    assert built == ["panel"]
    assert warmup.steps_run > 10  # PySide's classes a few dozen at a time, then the imports
    warmup.start()  # done: starting again does nothing
    qtbot.wait(150)
    assert built == ["panel"]


def test_a_recording_shown_before_the_panel_gets_it_once_built(
    qtbot, tmp_path: Path, data_dir: Path
) -> None:
    build_clip_project(tmp_path, data_dir).close()
    window = open_desk(qtbot, tmp_path / "project.bagel", curator="t")
    assert window.current_item_id() == FREQ_ITEM  # a Xeno-canto item first
    evidence = window.evidence
    # The item and its recording's card are on screen at once; the panel comes when idle.
    assert evidence.recording.values["Species"] == "Passer domesticus"
    if evidence.listening is None:
        assert evidence._listening_slot.text() == LISTENING_PREPARING
    panel = listening_panel(qtbot, window)
    assert panel.item is not None and panel.item.id == FREQ_ITEM
    qtbot.waitUntil(lambda: panel.clip is not None)
    close_desk(window)


def test_a_listening_key_builds_the_panel_at_once(qtbot, tmp_path: Path, data_dir: Path) -> None:
    build_clip_project(tmp_path, data_dir).close()
    window = open_desk(qtbot, tmp_path / "project.bagel", curator="t")
    window.evidence.warmup.stop()  # as if the curator had kept the desk busy since it opened
    assert window.evidence.listening is None
    qtbot.keyClick(window, Qt.Key.Key_M)  # the measuring box: the curator wants the clip now
    panel = window.evidence.listening
    assert panel is not None and panel.transport.measure_button.isChecked()
    assert panel.item is not None and panel.item.id == FREQ_ITEM
    close_desk(window)


def test_the_desk_starts_without_pyqtgraph() -> None:
    """The desk prepares recordings (``listening.loader``, ``listening.ahead``) from its first
    item on, but the panel's pyqtgraph is left to the warm-up's idle steps: importing the package
    does not import the panel."""
    code = (
        "import sys\n"
        "import bagel_studio.ui.main_window\n"
        "import bagel_studio.ui.listening.ahead, bagel_studio.ui.listening.loader\n"
        "heavy = ('pyqtgraph', 'bagel_studio.ui.listening.panel')\n"
        "print(sorted(m for m in heavy if m in sys.modules))\n"
    )
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    )
    assert done.stdout.strip() == "[]"
    from bagel_studio.ui.listening import ListeningPanel  # the name still imports it

    assert ListeningPanel.__name__ == "ListeningPanel"
