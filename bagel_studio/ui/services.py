"""The services the windows share, built once by the app and handed to every window.

STYLE: one single-thread executor for database writes and a separate pool for audio analysis and
LLM calls; results come back to the main thread through signals, and no widget is touched inside
an operation.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import QObject, Signal

from bagel_studio.core.prefs import Preferences
from bagel_studio.core.store import Store

Callback = Callable[[Any], None]
ErrorCallback = Callable[[BaseException], None]


class _Relay(QObject):
    """Carries a finished operation's callback from a worker thread to the main thread."""

    finished = Signal(object)

    def __init__(self) -> None:
        super().__init__()
        self.finished.connect(lambda call: call())


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

    def shutdown(self) -> None:
        self.closed = True
        self._pool.shutdown(wait=True, cancel_futures=False)


@dataclass
class Services:
    """What a window needs: the open project, the preferences and the executors."""

    store: Store
    prefs: Preferences
    writer: Executor = field(default_factory=lambda: Executor(1, "bagel-db"))
    workers: Executor = field(default_factory=lambda: Executor(2, "bagel-work"))

    @property
    def curator(self) -> str:
        return self.prefs.curator

    def close(self) -> None:
        self.writer.shutdown()
        self.workers.shutdown()
        self.store.close()
