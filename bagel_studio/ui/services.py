"""The services the windows share, built once by the app and handed to every window.

STYLE: one single-thread executor for database writes and a separate pool for audio analysis and
LLM calls; results come back to the main thread through signals, and no widget is touched inside
an operation.

Every write of the desk goes through ``Services.write``: the operation (``core.operations``, which
returns ``Done(result, changes)``) runs on the writer thread; once it has committed, its change set
is handed to every open window (``listen``), each deciding in its one method, ``apply_changes``,
what to redraw; then the caller's ``done`` gets the result. A failure goes to the caller's
``failed``, or else to ``report_failure`` (the desk's status bar). A run on another thread (an
evaluation, measuring every clip) writes through ``Services.writes_of_run`` instead: each write
waits on the writer, and their changes reach the windows once, when the run ends.

The desk opens a project without SQLite's check of its pages (most of the check on open's time on a
large file) and runs it with ``check_pages`` once the first item is shown: on the writer thread,
so every write queued after it waits for its verdict, and a write queued before runs it first
(``Store.transaction``); a damaged file refuses them all, and the desk says why.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from PySide6.QtCore import QCoreApplication, QEvent, QObject, Qt, Signal

from bagel_studio.core.changes import NOTHING, Changes, Done
from bagel_studio.core.prefs import Preferences
from bagel_studio.core.store import Store

T = TypeVar("T")
Callback = Callable[[Any], None]
ErrorCallback = Callable[[BaseException], None]


class Window(Protocol):
    """A window told of every write: it redraws what ``changes`` says changed (``origin`` is
    whoever asked for the write, so that a window can leave its own follow-up to its callback)."""

    def apply_changes(self, changes: Changes, origin: object) -> None: ...


class _Relay(QObject):
    """Carries a finished operation's callback from a worker thread to the main thread, and
    runs a call after the events waiting now (``later``)."""

    finished = Signal(object)
    LATER = QEvent.Type(QEvent.registerEventType())

    def __init__(self) -> None:
        super().__init__()
        # queued even when emitted on the main thread (a job done before ``submit`` returned
        # calls back at once): a callback never runs inside the ``submit`` that asked for it
        self.finished.connect(lambda call: call(), Qt.ConnectionType.QueuedConnection)
        self._later: list[Callable[[], None]] = []

    def later(self, call: Callable[[], None]) -> None:
        """``call`` once the events posted before it have been handled, the window's repaint
        among them (Qt posts that at low priority: a 0 ms timer or a queued call ran before it)."""
        self._later.append(call)
        low = Qt.EventPriority.LowEventPriority.value
        QCoreApplication.postEvent(self, QEvent(self.LATER), low)

    def event(self, event: QEvent) -> bool:
        if event.type() != self.LATER:
            return super().event(event)
        if self._later:
            self._later.pop(0)()
        return True


class Executor:
    """Runs functions on worker threads; callbacks run later on the main (Qt) thread."""

    def __init__(self, workers: int, name: str) -> None:
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix=name)
        self._relay = _Relay()
        self.pending = 0
        self.closed = False

    def submit(
        self,
        func: Callable[[], Any],
        on_done: Callback | None = None,
        on_error: ErrorCallback | None = None,
    ) -> Future[Any]:
        """Run ``func`` on a worker. After ``shutdown`` nothing new starts: the returned future
        is already cancelled and no callback runs (late results of a closing window are dropped)."""
        if self.closed:
            dropped: Future[Any] = Future()
            dropped.cancel()
            return dropped
        self.pending += 1
        future = self._pool.submit(func)

        def deliver(done: Future[Any]) -> None:
            def call() -> None:
                self.pending -= 1
                error = done.exception()
                if error is not None:
                    if on_error is not None:
                        on_error(error)
                    else:
                        traceback.print_exception(error)
                elif on_done is not None:
                    on_done(done.result())

            self._relay.finished.emit(call)

        future.add_done_callback(deliver)
        return future

    def submit_after_repaint(
        self,
        func: Callable[[], Any],
        on_done: Callback | None = None,
        on_error: ErrorCallback | None = None,
    ) -> None:
        """``submit`` once the window has repainted what the caller just changed: background
        work that follows something shown (a clip's measurement, the next clips' preparation)
        then does not slow its drawing (on two cores it made the frame 2-4 times slower). It
        counts as pending from now."""
        if self.closed:
            return
        self.pending += 1

        def start() -> None:
            self.submit(func, on_done, on_error)
            self.pending -= 1

        self._relay.later(start)

    def shutdown(self) -> None:
        self.closed = True
        self._pool.shutdown(wait=True, cancel_futures=False)


class RunWrites:
    """The writes of a run on another thread: each one on the writer, waited for (``write``
    is what ``core`` runs take as their ``write``); the changes gathered, for the windows when
    the run ends (``Services.tell``)."""

    def __init__(self, writer: Executor) -> None:
        self._writer = writer
        self.changes = NOTHING

    def write(self, op: Callable[[], Done[T]]) -> Done[T]:
        done: Done[T] = self._writer.submit(op).result()
        self.changes |= done.changes
        return done


@dataclass
class Services:
    """What a window needs: the open project, the preferences and the executors, and the one way
    to write (``write``) that tells every open window what changed."""

    store: Store
    prefs: Preferences
    writer: Executor = field(default_factory=lambda: Executor(1, "bagel-db"))
    workers: Executor = field(default_factory=lambda: Executor(2, "bagel-work"))

    def __post_init__(self) -> None:
        self.windows: list[Window] = []
        # reads that would keep the main thread waiting (a search's count), each on a
        # connection of its own: never behind a write or an analysis
        self.reader = Executor(1, "bagel-read")
        # a curator's package of a review plan (hand-out) is reviewed as that curator
        self.package: dict[str, Any] | None = self.store.team.package()
        # how a failed write nobody asked to hear of is reported (the desk: its status bar)
        self.report_failure: ErrorCallback = traceback.print_exception

    @property
    def curator(self) -> str:
        """Who decides: the curator a package is bound to, else the one in the preferences."""
        if self.package is not None:
            return str(self.package["curator"])
        return self.prefs.curator

    def listen(self, window: Window) -> None:
        """Tell ``window`` of every write from now on, until it is destroyed."""
        self.windows.append(window)
        if isinstance(window, QObject):
            window.destroyed.connect(lambda _object=None: self._forget(window))

    def _forget(self, window: Window) -> None:
        if window in self.windows:
            self.windows.remove(window)

    def write(
        self,
        op: Callable[[], Done[T]],
        *,
        origin: object = None,
        done: Callable[[T], None] | None = None,
        failed: ErrorCallback | None = None,
    ) -> None:
        """Run the operation ``op`` on the writer thread. Once it has committed, every open
        window redraws what it changed, then ``done(result)``; a failure goes to ``failed``
        (or ``report_failure``). Callbacks run on the main thread."""

        def committed(outcome: Done[T]) -> None:
            self.tell(outcome.changes, origin)
            if done is not None:
                done(outcome.result)

        self.writer.submit(op, committed, failed or self.report_failure)

    def check_pages(self, damaged: Callable[[str], None]) -> None:
        """Run the check of the pages the store was opened without (``Store.check_pages``) on
        the writer, ahead of every write from now on; ``damaged(message)`` on the main thread
        when the file is damaged (every write is then refused)."""

        def verdict(_findings: object) -> None:
            if self.store.damage is not None:
                damaged(self.store.damage)

        self.writer.submit(self.store.check_pages, verdict, self.report_failure)

    def writes_of_run(self) -> RunWrites:
        """The ``write`` of a run on another thread; ``tell`` its changes when it ends."""
        return RunWrites(self.writer)

    def tell(self, changes: Changes, origin: object = None) -> None:
        """Hand ``changes`` to every open window (on the main thread)."""
        if not changes:
            return
        for window in list(self.windows):
            window.apply_changes(changes, origin)

    @property
    def pending(self) -> bool:
        """Whether a write, an analysis or a read is still running or waits for its callback."""
        return bool(self.writer.pending or self.workers.pending or self.reader.pending)

    def close(self) -> None:
        self.writer.shutdown()
        self.workers.shutdown()
        self.reader.shutdown()
        self.store.close()
