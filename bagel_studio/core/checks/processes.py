"""The checks of a large project on several processes (``bagel-studio check`` and ``import``).

The checks are pure Python: one process uses one core. From ``PARALLEL_MIN`` items on, and when
asked for more than one worker, ``check_all`` hands batches of item ids to forked worker processes.
Each worker opens the project read-only with its own connection and its own bulk lookups, checks
its batches and sends the flags back; the one process that writes the project stores them, in
batch order, in its single transaction. The desk never asks for workers: forking a process that
runs Qt threads is not safe.
"""

from __future__ import annotations

import gc
import multiprocessing
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from typing import TYPE_CHECKING

from bagel_studio.core.checks.context import CheckContext
from bagel_studio.core.model import Flag

if TYPE_CHECKING:
    from bagel_studio.core.store import Store

PARALLEL_MIN = 20_000  # fewer items are checked faster than worker processes start
TASK = 4_000  # item ids per task

_worker: tuple[Store, CheckContext, bool] | None = None


def can_fork(store: Store, item_count: int, workers: int) -> bool:
    """True when ``item_count`` items of ``store`` are worth checking on ``workers`` processes."""
    return (
        workers > 1
        and item_count >= PARALLEL_MIN
        and store.path.is_file()
        and "fork" in multiprocessing.get_all_start_methods()
    )


def checked_in_processes(
    store: Store, item_ids: list[str], workers: int, audio: bool
) -> Iterator[dict[str, list[Flag]]]:
    """The flags of ``item_ids``, a task's worth at a time in the order of the ids. The workers
    start (and every task is handed out) before this generator yields anything: the caller may
    open its write transaction after the first ``next``."""
    tasks = [item_ids[start : start + TASK] for start in range(0, len(item_ids), TASK)]
    context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(
        workers, mp_context=context, initializer=_start, initargs=(str(store.path), audio)
    ) as pool:
        yield from pool.map(_check, tasks)


def _start(path: str, audio: bool) -> None:
    """In a new worker: its own read-only connection and bulk lookups."""
    from bagel_studio.core.store import Store

    global _worker
    gc.disable()  # a short-lived worker of small acyclic objects (see core.bulk)
    store = Store.open(path, read_only=True)
    _worker = (store, CheckContext.bulk(store), audio)


def _check(item_ids: list[str]) -> dict[str, list[Flag]]:
    from bagel_studio.core.checks import run_checks

    assert _worker is not None
    store, ctx, audio = _worker
    return {item.id: run_checks(ctx, item, audio=audio) for item in store.get_items(item_ids)}
