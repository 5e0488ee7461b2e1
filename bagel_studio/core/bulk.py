"""Helpers for work over every item of a project (checks, import, export).

Such loops allocate millions of small objects that live until the end of a batch and hold no
reference cycles. CPython's cyclic garbage collector runs after every 700 net allocations and, every
so often, walks every live object: over 200,000 items that walking costs as much as the work itself.
``paused_gc`` turns the collector off around such a loop (reference counting still frees what the
loop drops) and turns it back on, as it found it, afterwards.

What such a loop frees goes back to the C allocator, not to the system: glibc keeps the freed
pieces of its heap for later allocations, so a process's memory stays at the largest it was,
and the next large part of the work is added on top of what fragments remain. ``give_back``
hands the free part of the heap back (glibc's ``malloc_trim``; elsewhere it does nothing): the
export calls it after each domain it has written.
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import cache


@contextmanager
def paused_gc() -> Iterator[None]:
    """No cyclic garbage collection inside the block (reference counting still runs)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def give_back() -> None:
    """Return the C heap's free memory to the system (glibc only: a no-op elsewhere)."""
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


@cache
def _malloc_trim() -> Callable[[int], int] | None:
    if not sys.platform.startswith("linux"):
        return None
    import ctypes  # only where it is called

    try:
        trim: Callable[[int], int] = ctypes.CDLL(None).malloc_trim  # the C library's
    except (OSError, AttributeError):  # not glibc (musl has no malloc_trim)
        return None
    return trim
