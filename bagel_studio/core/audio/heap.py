"""The C heap's thresholds while clips are measured, so their arrays are not page-faulted anew.

Measuring a clip allocates and frees arrays of a few hundred kilobytes to a few tens of megabytes
(samples, spectrograms, filtered copies). Left alone, glibc serves an allocation above its mmap
threshold (128 KiB at first) with a fresh ``mmap`` and unmaps it when freed, but it raises that
threshold each time such a block is freed, up to 32 MiB, so after the first clip the arrays come
from the heap and their pages stay mapped. A process whose environment sets a malloc threshold
(``MALLOC_TRIM_THRESHOLD_``, ``MALLOC_MMAP_THRESHOLD_`` or the matching ``GLIBC_TUNABLES``) loses
that adaptation for good: every large array is a new mapping, faulted in page by page. Dask's
nanny starts every worker with ``MALLOC_TRIM_THRESHOLD_=65536`` (its default
``distributed.nanny.pre-spawn-environ``, to hand memory back to the system), and there a clip took
four times the page faults and 0.06 s more system CPU (0.24 s in all, against 0.18 s on the pool).

* ``keep_for_clips()``: for a process that only measures clips (the pool's workers): the
  thresholds glibc itself would reach, for the process's life.
* ``clip_heap()``: around one clip in a process that is not ours (a Dask worker): the same
  thresholds while the clip is measured (in any number of threads at once), then the process's
  own settings back and the freed memory handed back to the system, as it would have been. In a
  process that sets no threshold this does nothing: glibc adapts there by itself, and there is no
  call that would give it that adaptation back afterwards.

Only glibc has these knobs; elsewhere both are no-ops. Results do not depend on them.
"""

from __future__ import annotations

import ctypes
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache

M_TRIM_THRESHOLD = -1  # mallopt parameters, from glibc's malloc.h
M_MMAP_THRESHOLD = -3
MMAP_THRESHOLD = 32 << 20  # glibc's own ceiling for its adaptive mmap threshold (64-bit)
TRIM_THRESHOLD = 2 * MMAP_THRESHOLD  # what glibc sets beside it when it raises the threshold
GLIBC_DEFAULT = 128 << 10  # both thresholds before any adaptation
_ENVIRONMENT = {  # environment variable and tunable of each threshold
    M_TRIM_THRESHOLD: ("MALLOC_TRIM_THRESHOLD_", "glibc.malloc.trim_threshold"),
    M_MMAP_THRESHOLD: ("MALLOC_MMAP_THRESHOLD_", "glibc.malloc.mmap_threshold"),
}

_lock = threading.Lock()
_users = 0  # clips being measured under ``clip_heap`` in this process
_kept = False  # ``keep_for_clips`` ran: the thresholds stay raised


@cache
def _glibc() -> ctypes.CDLL | None:
    try:
        if not os.confstr("CS_GNU_LIBC_VERSION"):
            return None
        return ctypes.CDLL(None)
    except (AttributeError, ValueError, OSError):  # not glibc, or no such confstr name
        return None


def configured_thresholds() -> dict[int, int]:
    """The thresholds this process's environment fixed ({mallopt parameter: bytes}); empty when
    it fixed none, and glibc adapts them by itself."""
    tunables = dict(
        part.split("=", 1)
        for part in os.environ.get("GLIBC_TUNABLES", "").split(":")
        if "=" in part
    )
    found = {}
    for param, (variable, tunable) in _ENVIRONMENT.items():
        text = os.environ.get(variable, tunables.get(tunable))
        if text is None:
            continue
        try:
            found[param] = int(text, 0)
        except ValueError:
            continue  # glibc ignores what it cannot read, so does this
    return found


def _raise(libc: ctypes.CDLL) -> None:
    libc.mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)
    libc.mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD)


def keep_for_clips() -> None:
    """Raise the thresholds for this process's life (a process that only measures clips)."""
    global _kept
    libc = _glibc()
    if libc is None:
        return
    with _lock:
        _raise(libc)
        _kept = True


@contextmanager
def clip_heap() -> Iterator[None]:
    """The raised thresholds while the block runs, when this process's environment had fixed
    them; its own settings back (and the freed memory trimmed) when the last such block ends."""
    global _users
    libc = _glibc()
    own = configured_thresholds() if libc is not None else {}
    if libc is None or not own or _kept:
        yield
        return
    with _lock:
        if _users == 0:
            _raise(libc)
        _users += 1
    try:
        yield
    finally:
        with _lock:
            _users -= 1
            if _users == 0 and not _kept:
                libc.mallopt(M_TRIM_THRESHOLD, own.get(M_TRIM_THRESHOLD, GLIBC_DEFAULT))
                libc.mallopt(M_MMAP_THRESHOLD, own.get(M_MMAP_THRESHOLD, GLIBC_DEFAULT))
                libc.malloc_trim(0)
