"""Planning and rendering a release on several processes (``bagel-studio export --workers N``).

Reading the project's items, planning them and rendering the released ones (data and provenance
lines, the content hash, the report's lengths and audit features) is pure Python: one process
uses one core. ``ExportWorkers`` forks its worker processes once for an export, from
``PLAN_MIN`` items on, and reads the project once: each worker plans batches of the items a
release may take, in release order (``plan.plan_batch``), and prepares the lines of those it
releases (``render.Preparer``) on the same pass. It keeps them, and hands the exporting process
only what the deal and the tables need. Once the exporting process has dealt the gold positions,
the worker that planned a batch finishes its lines (``render.finish``). Batch ``k`` goes to
worker ``k mod N``, so each knows which batches it holds; the exporting process takes the
results in order, at most ``AHEAD`` rendered batches per worker ahead, so that its memory stays
bounded (the workers hold their batches' prepared lines until they are written).

Each worker opens the project read-only with its own connection and reads each batch in one
read transaction. An item no longer accepted or revised when a worker reads it stops the export
(``plan.ExportError``). The desk never asks for workers: forking a process that runs Qt threads
is not safe.
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

from bagel_studio.core.export.plan import BatchPlan, ExportPlan, ReleasedItems, plan_batch
from bagel_studio.core.export.render import PreparedBatch, Preparer, Rendered, finish
from bagel_studio.core.export.stored import read_batch
from bagel_studio.core.store import Store

T = TypeVar("T")
R = TypeVar("R")

PLAN_MIN = 4_000  # project items from which an export is worth worker processes
AHEAD = 2  # rendered batches handed out per worker beyond the one the exporting process waits for

# planning: the project's licences and blocking flags, inherited by the forked workers
_lookups: tuple[dict[str, str], dict[str, list[str]]] = ({}, {})
_reader: Store | None = None  # a worker's own read-only connection
_held: dict[int, PreparedBatch] = {}  # a worker's planned batches, by number, until finished


def can_fork(path: Path | str, workers: int) -> bool:
    """True when the project at ``path`` (a file) may be read by ``workers`` > 1 forked
    processes."""
    return (
        workers > 1
        and Path(str(path)).is_file()
        and "fork" in multiprocessing.get_all_start_methods()
    )


class ExportWorkers:
    """The worker processes of one export, each a pool of one process (so that the batches it
    planned come back to it), forked when first given work (inheriting the lookups ``plan``
    sets); ``close`` ends them."""

    def __init__(self, path: Path | str, workers: int) -> None:
        self.path = str(path)
        self.workers = workers
        self._pools: list[ProcessPoolExecutor] = []
        self._planned: ReleasedItems | None = None  # the released items of the plan they hold

    def _pool(self, number: int) -> ProcessPoolExecutor:
        if not self._pools:
            context = multiprocessing.get_context("fork")
            self._pools = [
                ProcessPoolExecutor(
                    1, mp_context=context, initializer=_start, initargs=(self.path,)
                )
                for _ in range(self.workers)
            ]
        return self._pools[number % self.workers]

    def plans(self, store: Store) -> bool:
        """True when planning ``store`` is worth these workers."""
        return store.item_count() >= PLAN_MIN

    def plan(
        self,
        store: Store,
        batches: list[list[str]],
        licences: dict[str, str],
        blocking: dict[str, list[str]],
    ) -> Iterator[BatchPlan]:
        """Each batch of item ids planned, in order (a ``plan.Planner``); the workers keep the
        prepared lines of the items released."""
        global _lookups
        self._planned = None
        tasks = iter(enumerate(batches))
        _lookups = (licences, blocking)
        try:
            yield from self._in_order(_plan, tasks, len(batches))
        finally:
            _lookups = ({}, {})

    def holds(self, plan: ExportPlan) -> bool:
        """True when these workers planned ``plan`` and keep its prepared lines."""
        return self._planned is plan.items and sum(plan.batch_sizes) == len(plan.items)

    def planned(self, plan: ExportPlan) -> None:
        """Note that ``plan`` is the one these workers just planned (``plan.plan_export``)."""
        self._planned = plan.items

    def rendered(self, plan: ExportPlan) -> Iterator[Rendered]:
        """The released items of ``plan`` rendered a batch at a time, in release order, by the
        workers that planned them."""
        slots = plan.items.slots
        tasks: list[tuple[int, tuple[int, list[int], list[bool]]]] = []
        start = 0
        for number, size in enumerate(plan.batch_sizes):
            part = slots[start : start + size]
            tasks.append((number, (plan.seed, [s.target for s in part], [s.movable for s in part])))
            start += size
        self._planned = None  # each batch is finished once
        yield from self._in_order(_finish, iter(tasks), self.workers * AHEAD)

    def _in_order(
        self, work: Callable[[tuple[int, T]], R], tasks: Iterator[tuple[int, T]], ahead: int
    ) -> Iterator[R]:
        """``work`` of every numbered task, each on the worker its number names, yielded in
        the tasks' order, with at most ``ahead`` tasks submitted and not yet taken."""
        pending: deque[Future[R]] = deque(
            self._pool(task[0]).submit(work, task) for task in islice(tasks, ahead)
        )
        while pending:
            done = pending.popleft().result()
            following = next(tasks, None)
            if following is not None:
                pending.append(self._pool(following[0]).submit(work, following))
            yield done

    def close(self) -> None:
        for pool in self._pools:
            pool.shutdown(wait=True, cancel_futures=True)
        self._pools = []
        self._planned = None


def _start(path: str) -> None:
    """In a new worker: its own read-only connection to the project."""
    global _reader
    gc.disable()  # a short-lived worker of small acyclic objects
    _reader = Store.open(path, read_only=True)


def _plan(task: tuple[int, list[str]]) -> BatchPlan:
    assert _reader is not None
    number, item_ids = task
    preparer = Preparer()
    with _reader.read_snapshot():
        found = plan_batch(read_batch(_reader, item_ids), item_ids, *_lookups, preparer)
    _held[number] = preparer.batch()
    return found


def _finish(task: tuple[int, tuple[int, list[int], list[bool]]]) -> Rendered:
    number, (seed, targets, movable) = task
    return finish(_held.pop(number), seed, targets, movable)
