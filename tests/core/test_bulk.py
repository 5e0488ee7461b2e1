"""The bulk helpers: the collector paused over a loop, and freed memory handed back."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest

from bagel_studio.core.bulk import _malloc_trim, give_back, paused_gc


def _resident_mb() -> float:
    for line in Path("/proc/self/status").read_text(encoding="ascii").splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS in /proc/self/status")


def test_paused_gc_restores_the_collector_as_it_found_it() -> None:
    assert gc.isenabled()
    with paused_gc():
        assert not gc.isenabled()
    assert gc.isenabled()
    gc.disable()
    try:
        with paused_gc():
            assert not gc.isenabled()
        assert not gc.isenabled()
    finally:
        gc.enable()


@pytest.mark.skipif(_malloc_trim() is None, reason="glibc's malloc_trim only")
def test_give_back_returns_the_freed_pieces_of_the_heap() -> None:
    """Pieces of 2 KB (the heap's, not mapped of their own), 15 of every 16 freed: the free runs
    lie between kept pieces, where freeing alone does not give their pages back."""
    pieces = [bytes(2000) + i.to_bytes(4, "little") for i in range(64_000)]  # about 128 MB
    kept = pieces[::16]
    del pieces
    before = _resident_mb()
    give_back()
    after = _resident_mb()
    assert before - after > 60, (before, after)
    assert len(kept) == 4000
