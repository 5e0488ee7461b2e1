"""Work that follows something shown starts once the window has repainted it: a clip's
measurement started on the workers as its spectrogram was drawn slowed the drawing 2-4 times."""

from __future__ import annotations

import threading
from typing import Any

from PySide6.QtCore import QTimer
from PySide6.QtGui import QPaintEvent
from PySide6.QtWidgets import QLabel

from bagel_studio.core.prefs import Preferences
from bagel_studio.core.store import Store
from bagel_studio.ui.services import Services


class Logged(QLabel):
    def __init__(self, log: list[str]) -> None:
        super().__init__("before")
        self.log = log

    def paintEvent(self, event: QPaintEvent) -> None:
        self.log.append(f"paint {self.text()}")
        super().paintEvent(event)


def test_the_job_starts_after_the_repaint_and_is_pending_from_the_call(qtbot: Any) -> None:
    services = Services(Store.memory(), Preferences())
    log: list[str] = []
    label = Logged(log)
    qtbot.addWidget(label)
    with qtbot.waitExposed(label):
        label.show()
    qtbot.waitUntil(lambda: "paint before" in log)
    lock = threading.Lock()

    def job() -> int:
        with lock:
            log.append("job")
        return 5

    def shown() -> None:  # a key's handler: something changes on screen, work follows it
        label.setText("after")
        services.workers.submit_after_repaint(job, lambda result: log.append(f"done {result}"))
        assert services.workers.pending == 1  # waiting counts: an idle test waits for it
        QTimer.singleShot(0, lambda: log.append("queued call"))  # this ran before the paint

    log.clear()
    QTimer.singleShot(0, shown)
    qtbot.waitUntil(lambda: "done 5" in log and services.workers.pending == 0)
    assert log.index("queued call") < log.index("paint after") < log.index("job")
    assert log[-1] == "done 5"
    services.close()


def test_nothing_starts_once_the_executor_is_shut_down(qtbot: Any) -> None:
    services = Services(Store.memory(), Preferences())
    ran: list[str] = []
    services.workers.submit_after_repaint(lambda: ran.append("job"))
    services.workers.shutdown()
    qtbot.waitUntil(lambda: services.workers.pending == 0)
    qtbot.wait(50)
    assert ran == []
    services.workers.submit_after_repaint(lambda: ran.append("late"))
    assert services.workers.pending == 0
    services.close()
