"""The checks of a large project on several processes (``bagel-studio check`` and ``import``).

The checks are pure Python: one process uses one core. From ``PARALLEL_MIN`` items on, and when
asked for more than one worker, ``check_all`` hands slices of the item ids to forked worker
processes. The lookups every item shares (the GloBI record index, the recordings, the models'
answers) are built once, before the fork, and the workers inherit them; each worker opens the
project read-only with its own connection, reads and checks its slices and sends the flags back;
the one process that writes the project stores them, in order, in its single transaction. The
desk never asks for workers: forking a process that runs Qt threads is not safe.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from typing import TYPE_CHECKING, Protocol

from bagel_studio.core.checks.context import CheckContext
from bagel_studio.core.model import Flag, Item
from bagel_studio.core.workers import die_with_parent

if TYPE_CHECKING:
    from bagel_studio.core.store import Store

# Below this many items a second process saves little time and costs CPU: each worker
# prepares the options and indexes the evidence texts of its own items again (at 11,852
# items with evidence, two processes took 1.4-1.6x the CPU of one).
PARALLEL_MIN = 20_000
TASK = 4_000  # at most this many item ids per task
TASKS_PER_WORKER = 4  # smaller tasks at the end keep every worker busy until the last one


class Check(Protocol):
    """Checks one item: ``run.run_checks``, handed over by ``run`` (which imports this module)."""

    def __call__(self, ctx: CheckContext, item: Item, *, audio: bool = True) -> list[Flag]: ...


_inherited: CheckContext | None = None  # built by the parent, handed to the forked workers
_worker: tuple[Store, CheckContext, bool, Check] | None = None


def can_fork(store: Store, item_count: int, workers: int) -> bool:
    """True when ``item_count`` items of ``store`` are worth checking on ``workers`` processes."""
    return (
        workers > 1
        and item_count >= PARALLEL_MIN
        and store.path.is_file()
        and "fork" in multiprocessing.get_all_start_methods()
    )


def task_size(item_count: int, workers: int) -> int:
    """Item ids per task: a few tasks per worker, so that they finish together."""
    return max(1, min(TASK, -(-item_count // (workers * TASKS_PER_WORKER))))


def checked_in_processes(
    store: Store, item_ids: list[str], workers: int, audio: bool, check: Check
) -> Iterator[dict[str, list[Flag]]]:
    """The flags of ``item_ids`` (each item's ``check``), a task's worth at a time in the order
    of the ids. The workers
    start (and every task is handed out) before this generator yields anything: the caller may
    open its write transaction after the first ``next``."""
    global _inherited
    size = task_size(len(item_ids), workers)
    tasks = [item_ids[start : start + size] for start in range(0, len(item_ids), size)]
    context = multiprocessing.get_context("fork")
    _inherited = CheckContext.bulk(store)
    try:
        with ProcessPoolExecutor(
            min(workers, len(tasks)),
            mp_context=context,
            initializer=_start,
            initargs=(str(store.path), audio, os.getpid(), check),
        ) as pool:
            results = pool.map(_check, tasks)  # forks the workers and hands out every task
            _inherited = None
            yield from results
    finally:
        _inherited = None


def _start(path: str, audio: bool, parent: int, check: Check) -> None:
    """In a new worker: its own read-only connection, the parent's lookups."""
    from bagel_studio.core.store import Store

    global _worker
    die_with_parent(parent)
    gc.disable()  # a short-lived worker of small acyclic objects (see core.bulk)
    store = Store.open(path, read_only=True)
    ctx = _inherited if _inherited is not None else CheckContext.bulk(store)
    ctx.store = store  # the parent's connection is not for this process
    _worker = (store, ctx, audio, check)


def _check(item_ids: list[str]) -> dict[str, list[Flag]]:
    assert _worker is not None
    store, ctx, audio, check = _worker
    return {item.id: check(ctx, item, audio=audio) for item in store.items.get_many(item_ids)}
