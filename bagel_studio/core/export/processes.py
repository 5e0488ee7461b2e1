"""Planning and rendering a release on several processes (``bagel-studio export --workers N``).

Reading the project's items, planning them and rendering the released ones (data and provenance
lines, the content hash, the report's lengths and audit features) is pure Python: one process
uses one core. ``ExportWorkers`` forks its worker processes once for an export, from
``PLAN_MIN`` items on, and reads the project once: each worker plans batches of the items a
release may take, a domain at a time (``plan.plan_batch``, ``plan.planning_order``), and
prepares the lines of those it releases (``render.Preparer``) on the same pass. It keeps them
(up to ``HOLD`` items; past that it reads a batch again when finishing it), and hands the
exporting process only what the deal and the tables need. A batch to plan goes to the worker
with the least work still before it (``least_busy``), and the exporting process notes which.
Once it has dealt the gold positions of a batch's domain, the
worker that planned the batch finishes its lines (``render.finish``) and leaves them in a file
(``render.Rendered.spool``); the exporting process takes the results in release order, at most
``AHEAD`` rendered batches per worker ahead of the one it writes next, so that what waits stays
bounded (the workers hold their batches' prepared lines until they are finished).

Each worker opens the project read-only with its own connection and reads each batch in one
read transaction. An item no longer accepted or revised when a worker reads it stops the export
(``plan.ExportError``). The desk never asks for workers: forking a process that runs Qt threads
is not safe.
"""

from __future__ import annotations

import gc
import heapq
import multiprocessing
import os
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from pathlib import Path
from typing import Any

from bagel_studio.core.export.collect import blocking, licences
from bagel_studio.core.export.plan import BatchPlan, ExportError, ExportPlan, Slot, plan_batch
from bagel_studio.core.export.render import PreparedBatch, Preparer, Rendered, finish
from bagel_studio.core.export.stored import read_batch
from bagel_studio.core.store import Store
from bagel_studio.core.workers import die_with_parent

# a batch to finish: its number, the seed and deal, the folder to spool its lines to (or None)
Task = tuple[int, tuple[int, list[int], list[bool]], str | None]

PLAN_MIN = 4_000  # project items from which an export is worth worker processes
PLAN_AHEAD = 2  # batches a worker has in hand to plan: the one it plans, the one it plans next
# What an item costs a worker, roughly (microseconds, measured): planning it (reading, checking,
# preparing its lines) and finishing it once dealt. Only their ratio matters: a batch to plan
# goes to the worker with the least work still before it (``least_busy``).
PLAN_COST = 16
FINISH_COST = 10
AHEAD = 16  # rendered batches handed out per worker (files of about 1.8 MB) and not yet written

# planning: the project's licences and blocking flags, read by a worker when it starts
_lookups: tuple[dict[str, str], dict[str, list[str]]] = ({}, {})
_reader: Store | None = None  # a worker's own read-only connection
# released items a worker keeps prepared (about 2.6 KB each), then packed (about 1.2 KB), then
# by their ids only, to be read again (see ``_plan``)
PLAIN = 60_000
HOLD = 150_000
# a worker's planned batches, by number, until finished: prepared, or to read again (their ids
# and what planning found, to tell that nothing changed since)
_held: dict[int, PreparedBatch | tuple[list[str], BatchPlan]] = {}
_holding = 0  # released items held prepared


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
        self._planned = 0  # batches planned by the last ``plan``
        # batches dealt, to be finished: by their place in release order
        self._dealt: list[tuple[int, Task]] = []
        self._finishing: dict[int, Future[Rendered]] = {}  # handed out, by place
        self._written = 0  # the place of the next batch to hand to the writer
        self._finished = 0  # batches handed out to be finished
        self._seed: int | None = None  # of the plan dealt
        self._owner: dict[int, int] = {}  # batch number -> the worker that planned it
        # each worker's work still to do, in ``PLAN_COST`` units: its batches to plan and to
        # finish (planned or not); the finishings handed out, counted off once done
        self._work: list[int] = [0] * workers
        self._unfinished: list[tuple[Future[Rendered], int, int]] = []  # (it, worker, cost)
        # given each rendered batch, in release order, as soon as it is done: the export writes
        # it while later batches are planned (what is left when planning ends: ``rendered``)
        self.sink: Callable[[Rendered], None] | None = None
        # where the workers write each rendered batch's lines (``Rendered.spool``), if anywhere
        self.spool: Path | None = None

    @property
    def ahead(self) -> int:
        """How many batches past the one written next may be finished and held (``AHEAD``
        a worker): the planner's ``ahead``."""
        return self.workers * AHEAD

    def _started(self) -> list[ProcessPoolExecutor]:
        if not self._pools:
            context = multiprocessing.get_context("fork")
            self._pools = [
                ProcessPoolExecutor(
                    1, mp_context=context, initializer=_start, initargs=(self.path, os.getpid())
                )
                for _ in range(self.workers)
            ]
        return self._pools

    def start(self) -> None:
        """Fork the workers now rather than with the first batch to plan: each opens the
        project and reads its licences and blocking flags while this process reads the items
        a release may take."""
        for pool in self._started():
            pool.submit(_ready)

    def plans(self, store: Store) -> bool:
        """True when planning ``store`` is worth these workers."""
        return store.items.count() >= PLAN_MIN

    def plan(self, store: Store, batches: Iterable[list[str]]) -> Iterator[BatchPlan]:
        """Each batch of item ids planned, in order (a ``plan.Planner``). A batch goes to the
        worker with the least work still before it among those with fewer than ``PLAN_AHEAD``
        in hand (``least_busy``), so that one slowed down (by this process, or another program)
        plans fewer, and both end together: a worker finishes the batches it planned, and at
        the end one with more of them left kept the other waiting. The worker keeps the
        prepared lines of the items released, to finish them once they are dealt (``dealt``).
        The workers plan with the licences and blocking flags they read when they started (as
        the project was then: it is read in several transactions anyway, and an item changed
        meanwhile stops the export)."""
        self._forget()
        pools = self._started()
        tasks = enumerate(batches)
        running: dict[int, Future[BatchPlan]] = {}  # batch number -> its planning
        in_hand = [0] * len(pools)  # batches handed to each worker and not yet planned
        counted: set[int] = set()  # batch numbers planned, counted off ``in_hand``
        sizes: dict[int, int] = {}  # batch number -> its items, until planned
        more = True

        def hand_out() -> None:
            nonlocal more
            while more and min(in_hand) < PLAN_AHEAD:
                task = next(tasks, None)
                if task is None:
                    more = False
                    return
                self._count_finished()
                worker = least_busy(self._work, in_hand)
                running[task[0]] = pools[worker].submit(_plan, task)
                self._owner[task[0]] = worker
                in_hand[worker] += 1
                sizes[task[0]] = len(task[1])
                self._work[worker] += len(task[1]) * (PLAN_COST + FINISH_COST)
                self._planned += 1

        def count_off(done: Iterable[int]) -> None:
            for number in done:
                if number not in counted:
                    counted.add(number)
                    worker = self._owner[number]
                    in_hand[worker] -= 1
                    items = sizes.pop(number)
                    planned = running[number]
                    kept = items if planned.exception() else len(planned.result().kept)
                    self._work[worker] -= items * PLAN_COST + (items - kept) * FINISH_COST

        hand_out()
        following = 0
        while following in running:
            self._drain()
            if not running[following].done():
                busy: list[Future[Any]] = [f for f in running.values() if not f.done()]
                writable = self._finishing.get(self._written)
                if self.sink is not None and writable is not None:
                    busy.append(writable)
                wait(busy, return_when=FIRST_COMPLETED)
                count_off([n for n, future in running.items() if future.done()])
                hand_out()
                continue
            count_off([following])
            found = running.pop(following).result()
            hand_out()
            following += 1
            yield found

    def dealt(self, seed: int, number: int, place: int, slots: list[Slot]) -> None:
        """Batch ``number`` of the plan, at ``place`` in release order, is dealt (a
        ``plan.Dealt``): its worker may finish it. The batches up to ``ahead`` past the one
        the writer takes next are handed out, while later ones are planned; the others as the
        writer takes the rendered ones (``rendered``), so memory stays bounded."""
        self._seed = seed
        spool = None if self.spool is None else str(self.spool)
        task = (number, (seed, [s.target for s in slots], [s.movable for s in slots]), spool)
        heapq.heappush(self._dealt, (place, task))
        self._hand_out()

    def holds(self, plan: ExportPlan) -> bool:
        """True when these workers planned ``plan`` and keep the prepared lines of all its
        batches, dealt."""
        return (
            self._seed == plan.seed
            and self._planned == len(plan.batch_sizes)
            and self._finished + len(self._dealt) == self._planned
            and sum(plan.batch_sizes) == len(plan.items)
        )

    def rendered(self, plan: ExportPlan) -> Generator[Rendered, None, None]:
        """The released items of ``plan`` rendered a batch at a time, in release order, by the
        workers that planned them."""
        assert self.holds(plan)
        while self._finishing:
            done = self._finishing.pop(self._written).result()
            self._written += 1
            self._hand_out()
            yield done
        self._planned = 0  # each batch is finished once

    def _drain(self) -> None:
        """Give ``sink`` the rendered batches done at the head of the line, in order."""
        while self.sink is not None:
            writable = self._finishing.get(self._written)
            if writable is None or not writable.done():
                return
            del self._finishing[self._written]
            self._written += 1
            self._hand_out()
            self.sink(writable.result())

    def _hand_out(self) -> None:
        """Hand out the dealt batches within ``ahead`` of the one written next (in release
        order): the batch to be written next always is, so the writer never waits on a
        batch held back, and at most ``ahead`` rendered batches wait for it."""
        self._count_finished()  # (and lets go of the finished batches written)
        while self._dealt and self._dealt[0][0] < self._written + self.ahead:
            place, task = heapq.heappop(self._dealt)
            worker = self._owner[task[0]]
            finishing = self._finishing[place] = self._pools[worker].submit(_finish, task)
            self._unfinished.append((finishing, worker, len(task[1][1]) * FINISH_COST))
            self._finished += 1

    def work_left(self) -> list[int]:
        """Each worker's work still to do, in ``PLAN_COST`` units (nothing once an export's
        batches are all planned and finished)."""
        self._count_finished()
        return list(self._work)

    def _count_finished(self) -> None:
        """Count the finishings done off their workers' work still to do."""
        unfinished = []
        for future, worker, cost in self._unfinished:
            if future.done():
                self._work[worker] -= cost
            else:
                unfinished.append((future, worker, cost))
        self._unfinished = unfinished

    def _forget(self) -> None:
        for future in self._finishing.values():
            future.cancel()
        self._finishing.clear()
        self._dealt.clear()
        self._work = [0] * self.workers
        self._unfinished.clear()
        self._planned = self._finished = self._written = 0
        self._seed = None
        self._owner.clear()

    def close(self, wait: bool = False) -> None:
        """End the workers. They leave on their own: the exporting process goes on meanwhile
        (and waits for them when it ends); with ``wait``, once they are gone (none is left
        writing a rendered batch into a folder about to be removed)."""
        self._forget()
        for pool in self._pools:
            pool.shutdown(wait=wait, cancel_futures=True)
        self._pools = []


def least_busy(work: Sequence[int], in_hand: Sequence[int]) -> int:
    """The worker to plan the next batch: of those with fewer than ``PLAN_AHEAD`` batches in
    hand, the one with the least work still before it (the first of equals)."""
    return min((w for w in range(len(work)) if in_hand[w] < PLAN_AHEAD), key=work.__getitem__)


def _start(path: str, parent: int) -> None:
    """In a new worker: it dies with the exporting process, and reads the project with its own
    read-only connection, first its licences and blocking flags."""
    global _reader, _lookups
    die_with_parent(parent)
    gc.disable()  # a short-lived worker of small acyclic objects
    _reader = Store.open(path, read_only=True)
    with _reader.read_snapshot():
        _lookups = (licences(_reader), blocking(_reader))


def _ready() -> None:
    """Nothing: the first task a worker is given, to fork it (``ExportWorkers.start``)."""


def _plan(task: tuple[int, list[str]]) -> BatchPlan:
    """Plan a batch and keep its released items' lines, prepared; past ``PLAIN`` items held,
    compressed (``PreparedBatch.pack``); past ``HOLD``, only their ids: the batch is read and
    prepared again when it is finished. Memory stays bounded whatever the size of the project
    (about 300 MB a worker at most), and up to ``HOLD`` items a worker are read once."""
    global _holding
    assert _reader is not None
    number, item_ids = task
    preparer = Preparer() if _holding < HOLD else None
    with _reader.read_snapshot():
        found = plan_batch(read_batch(_reader, item_ids), item_ids, *_lookups, preparer)
    if preparer is not None:
        prepared = _held[number] = preparer.batch()
        if _holding >= PLAIN:
            prepared.pack()
        _holding += len(found.kept)
    else:
        _held[number] = (item_ids, found)
    return found


def _finish(task: Task) -> Rendered:
    number, deal, spool = task
    rendered = _finished(number, *deal)
    return rendered if spool is None else rendered.spool(Path(spool) / str(number))


def _finished(number: int, seed: int, targets: list[int], movable: list[bool]) -> Rendered:
    global _holding
    held = _held.pop(number)
    if isinstance(held, PreparedBatch):
        _holding -= len(held.items)
        return finish(held, seed, targets, movable)
    assert _reader is not None
    item_ids, planned = held
    preparer = Preparer()
    with _reader.read_snapshot():
        again = plan_batch(read_batch(_reader, item_ids), item_ids, *_lookups, preparer)
    if (again.changed, again.kept, again.digest) != (None, planned.kept, planned.digest):
        changed = _changed(item_ids, planned, again)
        raise ExportError(
            f"the project changed since this export was planned ({changed}); plan it again"
        )
    return finish(preparer.batch(), seed, targets, movable)


def _changed(item_ids: list[str], planned: BatchPlan, again: BatchPlan) -> str:
    """The first item of a batch planned ``again`` that differs from what was ``planned``."""
    if again.changed is not None:
        return again.changed
    before = dict(zip(planned.kept, planned.digest, strict=True))
    after = dict(zip(again.kept, again.digest, strict=True))
    return next(item_ids[p] for p in sorted({*before, *after}) if before.get(p) != after.get(p))
