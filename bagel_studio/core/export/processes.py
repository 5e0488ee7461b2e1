"""Rendering a large release on several processes (``bagel-studio export --workers N``).

Reading the released items back and rendering them (data and provenance lines, the content
hash, the report's lengths and audit features) is pure Python: one process uses one core. From
``PARALLEL_MIN`` released items on, and when asked for more than one worker, the writer hands
batches of release positions to forked worker processes. Each worker inherits the plan, opens the
project read-only with its own connection, reads and renders its batches (each in one read
transaction) and sends the results back; the writer takes them in release order, at most two
per worker ahead, so memory stays bounded. A worker that finds the project changed since the
plan raises the plan's ``ExportError``, which reaches the writer. The desk never asks for
workers: forking a process that runs Qt threads is not safe.
"""

from __future__ import annotations

import gc
import multiprocessing
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from itertools import islice
from pathlib import Path
from typing import TypeVar

from bagel_studio.core.export.plan import ExportPlan, ReleasedItems, Tally, TallySource, tally
from bagel_studio.core.export.render import Rendered, render
from bagel_studio.core.export.stored import read_batch
from bagel_studio.core.store import Store

T = TypeVar("T")
R = TypeVar("R")

PARALLEL_MIN = 4_000  # fewer released items are written faster than worker processes start
AHEAD = 2  # tasks handed out per worker beyond the one the writer waits for

PLAN_MIN = 20_000  # project items from which planning is worth worker processes

_plan: ExportPlan | None = None  # the plan being written, inherited by the forked workers
_worker: ReleasedItems | None = None
# planning: the project's licences and blocking flags (inherited), a worker's own connection
_lookups: tuple[dict[str, str], dict[str, list[str]]] = ({}, {})
_reader: Store | None = None


def can_fork(plan: ExportPlan, workers: int) -> bool:
    """True when the plan's release is worth rendering on ``workers`` processes."""
    path = Path(str(plan.items.store.path))
    return (
        workers > 1
        and len(plan.items) >= PARALLEL_MIN
        and path.is_file()
        and "fork" in multiprocessing.get_all_start_methods()
    )


def rendered_in_processes(plan: ExportPlan, workers: int) -> Iterator[Rendered]:
    """The plan's released items rendered a batch at a time, in release order."""
    global _plan
    size = plan.items.BATCH
    tasks = iter([(start, start + size) for start in range(0, len(plan.items), size)])
    _plan = plan
    pool = ProcessPoolExecutor(
        workers,
        mp_context=multiprocessing.get_context("fork"),
        initializer=_start,
        initargs=(str(plan.items.store.path),),
    )
    try:
        yield from _in_order(pool, _render, tasks, workers * AHEAD)
    finally:
        _plan = None
        pool.shutdown(wait=True, cancel_futures=True)


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
    """In a new worker: the plan's items over its own read-only connection."""
    global _worker
    gc.disable()  # a short-lived worker of small acyclic objects
    assert _plan is not None
    _worker = ReleasedItems(Store.open(path, read_only=True), _plan.items.slots)


def _render(bounds: tuple[int, int]) -> Rendered:
    assert _worker is not None
    start, stop = bounds
    with _worker.store.read_snapshot():
        return render(_worker.store, _worker.slots[start:stop])


def can_fork_plan(store: Store, workers: int) -> bool:
    """True when planning ``store`` is worth ``workers`` processes."""
    return (
        workers > 1
        and Path(str(store.path)).is_file()
        and "fork" in multiprocessing.get_all_start_methods()
        and store.item_count() >= PLAN_MIN
    )


def tally_source(store: Store, workers: int) -> TallySource | None:
    """A ``plan_export`` reader of ``store``'s items on ``workers`` processes, or None when
    not worth it."""
    if not can_fork_plan(store, workers):
        return None

    def tallies(
        store: Store, licences: dict[str, str], blocking: dict[str, list[str]]
    ) -> Iterator[Tally]:
        return tallies_in_processes(store, licences, blocking, workers)

    return tallies


def tallies_in_processes(
    store: Store, licences: dict[str, str], blocking: dict[str, list[str]], workers: int
) -> Iterator[Tally]:
    """The tallies of the project's items (``plan.tally``), a batch at a time in queue order."""
    global _lookups
    ids = store.item_ids()
    size = ReleasedItems.BATCH
    tasks = iter([ids[start : start + size] for start in range(0, len(ids), size)])
    _lookups = (licences, blocking)
    pool = ProcessPoolExecutor(
        workers,
        mp_context=multiprocessing.get_context("fork"),
        initializer=_start_planning,
        initargs=(str(store.path),),
    )
    try:
        yield from _in_order(pool, _tally, tasks, workers * AHEAD)
    finally:
        _lookups = ({}, {})
        pool.shutdown(wait=True, cancel_futures=True)


def _start_planning(path: str) -> None:
    global _reader
    gc.disable()
    _reader = Store.open(path, read_only=True)


def _tally(item_ids: list[str]) -> Tally:
    assert _reader is not None
    with _reader.read_snapshot():
        return tally(read_batch(_reader, item_ids), *_lookups)
