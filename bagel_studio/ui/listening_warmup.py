"""Building the listening panel a small step at a time, while the desk is idle.

The panel needs pyqtgraph, whose import costs the main thread 0.15-0.3 s: about half of it reading
every class of PySide6's QtCore, QtGui and QtWidgets (pyqtgraph copies them into its own modules,
and PySide6 creates each class's Python type on first use), the rest its own hundred-odd modules.
It cannot run on a worker: PySide6 creating a type on one thread while the other paints failed the
painting or crashed. So the main thread does it, in steps of a few milliseconds (the PySide6
classes a few dozen at a time, then pyqtgraph, then the panel's modules, then the panel), and only
once the desk has been idle for ``IDLE_MS``: every item shown, filter change or state change of the
review keys pushes the next step back. A curator moving through the queue never waits on it; one
who stops for a moment gets the panel built in the pause.
"""

from __future__ import annotations

import contextlib
import importlib
import time
from collections.abc import Callable, Iterator

from PySide6.QtCore import QObject, QTimer, Signal

IDLE_MS = 250  # the desk must have been idle this long before a step runs
CLASSES_PER_STEP = 40
QT_MODULES = ("PySide6.QtCore", "PySide6.QtGui", "PySide6.QtWidgets")
EXTRA_QT_MODULES = ("PySide6.QtSvg", "PySide6.QtOpenGLWidgets", "PySide6.QtTest")  # pyqtgraph's


def _steps(build: Callable[[], object]) -> Iterator[str]:
    """The warm-up, one ``yield`` per step (each names what it did)."""
    for name in QT_MODULES:
        module = importlib.import_module(name)
        names = dir(module)
        for start in range(0, len(names), CLASSES_PER_STEP):
            for attribute in names[start : start + CLASSES_PER_STEP]:
                getattr(module, attribute, None)
            yield f"{name} {start}"
    for name in EXTRA_QT_MODULES:
        with contextlib.suppress(ImportError):  # pyqtgraph does without them
            importlib.import_module(name)
        yield name
    for name in ("pyqtgraph", "bagel_studio.ui.listening.panel"):
        try:
            importlib.import_module(name)
        except ImportError:  # build() says that listening is not available
            break
        yield name
    build()  # the last step: the generator ends with it


class ListeningWarmup(QObject):
    """Runs ``build`` (which makes the listening panel) after the warm-up steps, each one only
    when nothing happened in the desk for ``idle_ms``."""

    finished = Signal()

    def __init__(
        self, build: Callable[[], object], parent: QObject | None = None, idle_ms: int = IDLE_MS
    ) -> None:
        super().__init__(parent)
        self._steps = _steps(build)
        self._idle_ms = idle_ms
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self._step)
        self.started = False
        self.done = False
        self.steps_run = 0
        self.longest_step_ms = 0.0  # wall time of the longest step
        self.longest_step_cpu_ms = 0.0  # main-thread CPU of the longest step

    def start(self) -> None:
        """Begin once the desk is idle (again after every ``poke``)."""
        if self.done:
            return
        self.started = True
        self._timer.start(self._idle_ms)

    def poke(self) -> None:
        """Something happened in the desk: the next step waits for another idle pause."""
        if self.started and not self.done:
            self._timer.start(self._idle_ms)

    def stop(self) -> None:
        self._timer.stop()
        self.started = False

    def finish_now(self) -> None:
        """Run every step left at once (the curator asked for the recording: play, seek...)."""
        self._timer.stop()
        while not self.done:
            self._run_one()

    def _step(self) -> None:
        self._run_one()
        if not self.done:
            self._timer.start(0)  # the next step after the events waiting now, if none pokes

    def _run_one(self) -> None:
        wall, cpu = time.perf_counter(), time.thread_time()
        try:
            next(self._steps)
        except StopIteration:
            self.done = True
        wall_ms = (time.perf_counter() - wall) * 1000
        if wall_ms > self.longest_step_ms:
            self.longest_step_ms = wall_ms
            self.longest_step_cpu_ms = (time.thread_time() - cpu) * 1000
        self.steps_run += 1
        if self.done:
            self.finished.emit()
