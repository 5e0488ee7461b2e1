"""The recordings of the items the desk shows next, prepared while the curator is on this one.

The desk names the items that follow the one on screen (``ListeningPanel.prepare_ahead``); each is
prepared on the worker pool (``ClipLoader.prepare``: decoded, its spectrogram drawn, both cached),
one job at a time and never while the clip on screen is still loading, so that a clip the curator
is waiting for never queues behind one they may never open. Arriving at an item prepared ahead then
shows its recording at once (``ClipLoader.ready``); the first arrival of a session also finds the
decoder, the FFT and the measurement's scipy imported. The desk owns the queue and its caches from
its first item on (the recording on screen first while the panel is not built yet) and hands both
to the panel once built. Each job starts after the window's repaint, never during the drawing of
the clip just shown.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from bagel_studio.core.audio import SpectrogramSettings
from bagel_studio.core.store import Store
from bagel_studio.ui.listening.loader import ClipLoader
from bagel_studio.ui.services import Executor


class AheadQueue:
    """Prepares the named items' recordings, one at a time, whenever it is not held."""

    def __init__(
        self,
        loader: Callable[[], ClipLoader],
        store: Store,
        workers: Executor,
        settings: Callable[[], SpectrogramSettings],
    ) -> None:
        self._loader = loader  # the panel's, read at each job (tests may swap it)
        self._store = store
        self._workers = workers
        self._settings = settings
        self._waiting: list[str] = []
        self._running = False
        self._held = False
        self._closed = False
        self.prepared: list[str] = []  # the items whose recording was prepared (tests, counts)

    def set_items(self, item_ids: Sequence[str]) -> None:
        """Prepare these items next (in this order), instead of whatever was still waiting."""
        self._waiting = list(dict.fromkeys(item_ids))
        self._next()

    def hold(self) -> None:
        """The clip on screen is loading: start nothing until ``release``."""
        self._held = True

    def release(self) -> None:
        self._held = False
        self._next()

    def close(self) -> None:
        self._closed = True
        self._waiting = []

    def _next(self) -> None:
        if self._running or self._held or self._closed or not self._waiting:
            return
        item_id = self._waiting.pop(0)
        loader, store, settings = self._loader(), self._store, self._settings()
        self._running = True

        def done(prepared: Any) -> None:
            self._running = False
            if prepared is True:
                self.prepared.append(item_id)
            self._next()

        def prepare() -> bool:
            return loader.prepare(store, item_id, settings)

        # after the window's repaint: the clip just shown is drawn before this starts
        self._workers.submit_after_repaint(prepare, done, done)
