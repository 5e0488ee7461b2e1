"""The desk's one way to write: the operation on the writer thread, its change set handed to every
open window, then the caller's callback; a failure to the caller, or to the desk's report."""

from __future__ import annotations

import threading
from typing import Any

from PySide6.QtWidgets import QWidget

from bagel_studio.core.changes import Changes, Done, Part
from bagel_studio.core.prefs import Preferences
from bagel_studio.core.store import Store, StoreError
from bagel_studio.ui.app import drain
from bagel_studio.ui.services import Services

DECIDED = Changes.of_items(["a"], Part.STATUS | Part.REVIEWS)


class Window(QWidget):
    def __init__(self, services: Services, log: list[Any]) -> None:
        super().__init__()
        self.log = log
        services.listen(self)

    def apply_changes(self, changes: Changes, origin: object) -> None:
        self.log.append((self, changes, origin))


def test_every_window_hears_of_a_write_before_its_caller(qtbot: Any) -> None:
    services = Services(Store.memory(), Preferences())
    log: list[Any] = []
    first, second = Window(services, log), Window(services, log)
    threads: list[str] = []

    def op() -> Done[int]:
        threads.append(threading.current_thread().name)
        return Done(7, DECIDED)

    services.write(op, origin=first, done=lambda result: log.append(("done", result)))
    qtbot.waitUntil(lambda: len(log) == 3)
    assert log == [(first, DECIDED, first), (second, DECIDED, first), ("done", 7)]
    assert threads[0].startswith("bagel-db")
    services.tell(Changes())  # nothing changed: nobody is told
    assert len(log) == 3
    drain(services)
    services.close()


def test_a_failed_write_goes_to_its_caller_or_the_report(qtbot: Any) -> None:
    services = Services(Store.memory(), Preferences())
    log: list[Any] = []
    Window(services, log)
    reported: list[BaseException] = []
    services.report_failure = reported.append

    def refused() -> Done[None]:
        raise StoreError("a rejection needs a reason")

    failed: list[BaseException] = []
    services.write(refused, failed=failed.append)
    services.write(refused)
    qtbot.waitUntil(lambda: len(failed) == 1 and len(reported) == 1)
    assert str(failed[0]) == str(reported[0]) == "a rejection needs a reason"
    assert log == []  # nothing was written: no window redraws
    drain(services)
    services.close()


def test_a_closed_window_is_told_no_more(qtbot: Any) -> None:
    services = Services(Store.memory(), Preferences())
    log: list[Any] = []
    window = Window(services, log)
    window.destroyed.connect(lambda: log.append("destroyed"))
    window.deleteLater()
    qtbot.waitUntil(lambda: "destroyed" in log)
    assert services.windows == []
    services.close()


def test_a_run_on_its_own_thread_gathers_its_changes(qtbot: Any) -> None:
    services = Services(Store.memory(), Preferences())
    writes = services.writes_of_run()
    results: list[int] = []

    def run() -> None:
        for n in range(3):
            results.append(
                writes.write(lambda n=n: Done(n, Changes.of_items([str(n)], Part.FLAGS))).result
            )

    thread = threading.Thread(target=run)
    thread.start()
    qtbot.waitUntil(lambda: not thread.is_alive())
    assert results == [0, 1, 2]
    assert writes.changes == Changes.of_items(["0", "1", "2"], Part.FLAGS)
    drain(services)
    services.close()
