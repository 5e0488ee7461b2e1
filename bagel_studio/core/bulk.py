"""Helpers for work over every item of a project (checks, import, export).

Such loops allocate millions of small objects that live until the end of a batch and hold no
reference cycles. CPython's cyclic garbage collector runs after every 700 net allocations and, every
so often, walks every live object: over 200,000 items that walking costs as much as the work itself.
``paused_gc`` turns the collector off around such a loop (reference counting still frees what the
loop drops) and turns it back on, as it found it, afterwards.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


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
