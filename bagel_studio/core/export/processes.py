"""Planning and rendering a release on several processes (``bagel-studio export --workers N``).

Reading the project's items, planning them and rendering the released ones (data and provenance
lines, the content hash, the report's lengths and audit features) is pure Python: one process
uses one core. ``ExportWorkers`` forks worker processes once for an export and hands them
batches: of the project's items to plan (``plan.tally``), from ``PLAN_MIN`` items on, then of
the released items' slots to render (``render``), from ``PARALLEL_MIN`` on. Each worker opens
the project read-only with its own connection and reads each batch in one read transaction; the
exporting process takes the results in order, at most ``AHEAD`` per worker ahead, so memory
stays bounded. A worker that finds the project changed since the plan raises the plan's
``ExportError``, which reaches the exporting process. The desk never asks for workers: forking
a process that runs Qt threads is not safe.
"""

from __future__ import annotations

import gc
import multiprocessing
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from itertools import islice
from pathlib import Path
from typing import TypeVar

from bagel_studio.core.export.plan import ReleasedItems, Slot, Tally, tally
from bagel_studio.core.export.render import Rendered, render
from bagel_studio.core.export.stored import read_after
from bagel_studio.core.store import Store

T = TypeVar("T")
R = TypeVar("R")

PARALLEL_MIN = 4_000  # released items from which rendering is worth worker processes
PLAN_MIN = 4_000  # project items from which planning is worth worker processes
AHEAD = 2  # tasks handed out per worker beyond the one the exporting process waits for

# planning: the project's licences and blocking flags, inherited by the forked workers
_lookups: tuple[dict[str, str], dict[str, list[str]]] = ({}, {})
_reader: Store | None = None  # a worker's own read-only connection


def can_fork(path: Path | str, workers: int) -> bool:
    """True when the project at ``path`` (a file) may be read by ``workers`` > 1 forked
    processes."""
    return (
        workers > 1
        and Path(str(path)).is_file()
        and "fork" in multiprocessing.get_all_start_methods()
    )


class ExportWorkers:
    """Worker processes of one export, forked when first given work (and then inheriting the
    lookups ``tallies`` sets); ``close`` ends them."""

    def __init__(self, path: Path | str, workers: int) -> None:
        self.path = str(path)
        self.workers = workers
        self._pool: ProcessPoolExecutor | None = None

    def _started(self) -> ProcessPoolExecutor:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(
                self.workers,
                mp_context=multiprocessing.get_context("fork"),
                initializer=_start,
                initargs=(self.path,),
            )
        return self._pool

    def plans(self, store: Store) -> bool:
        """True when planning ``store`` is worth these workers."""
        return store.item_count() >= PLAN_MIN

    def renders(self, released: int) -> bool:
        """True when rendering ``released`` items is worth these workers."""
        return released >= PARALLEL_MIN

    def tallies(
        self, store: Store, licences: dict[str, str], blocking: dict[str, list[str]]
    ) -> Iterator[Tally]:
        """The tallies of the project's items (``plan.tally``), a batch at a time in queue
        order: a ``plan.TallySource``."""
        global _lookups
        size = ReleasedItems.BATCH
        tasks = iter([(start, size) for start in store.batch_starts(size)])
        _lookups = (licences, blocking)
        try:
            yield from _in_order(self._started(), _tally, tasks, self.workers * AHEAD)
        finally:
            _lookups = ({}, {})

    def rendered(self, slots: Sequence[Slot], size: int, seed: int) -> Iterator[Rendered]:
        """The released items of ``slots`` rendered ``size`` at a time, in release order."""
        tasks = iter(
            [(tuple(slots[start : start + size]), seed) for start in range(0, len(slots), size)]
        )
        yield from _in_order(self._started(), _render, tasks, self.workers * AHEAD)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None


def _in_order(
    pool: ProcessPoolExecutor, work: Callable[[T], R], tasks: Iterator[T], ahead: int
) -> Iterator[R]:
    """``work`` of every task on ``pool``, yielded in the tasks' order, with at most ``ahead``
    tasks submitted and not yet taken (memory stays bounded whatever the number of tasks)."""
    pending: deque[Future[R]] = deque(pool.submit(work, task) for task in islice(tasks, ahead))
    while pending:
        done = pending.popleft().result()
        following = next(tasks, None)
        if following is not None:
            pending.append(pool.submit(work, following))
        yield done


def _start(path: str) -> None:
    """In a new worker: its own read-only connection to the project."""
    global _reader
    gc.disable()  # a short-lived worker of small acyclic objects
    _reader = Store.open(path, read_only=True)


def _tally(batch: tuple[int, int]) -> Tally:
    assert _reader is not None
    with _reader.read_snapshot():
        return tally(read_after(_reader, *batch), *_lookups)


def _render(task: tuple[tuple[Slot, ...], int]) -> Rendered:
    assert _reader is not None
    with _reader.read_snapshot():
        return render(_reader, *task)
