"""One writer per project file, across processes.

The lock is an advisory ``flock`` on a sidecar file (``NAME.bagel.lock``) rather than on the
database itself: SQLite's own POSIX locks are dropped when any descriptor of the database is closed
in the process, so sharing the file would be fragile. The operating system releases the lock when
the holder dies, even by SIGKILL, so a crash never leaves a project locked. A ``flock`` belongs to
the open file, which a forked child shares: a worker process forked by a writer (the checks of a
large import run on such workers) would keep the project locked after its parent was killed. So
every forked child closes its copies of the lock at once (``os.register_at_fork``); closing a copy
never unlocks the parent's.

A writer that finds the lock taken may wait for it (``wait`` seconds, polled), so that scripts
running one after another need not retry by hand.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import IO
from weakref import WeakSet

POLL_SECONDS = 0.1

_HELD: WeakSet[WriterLock] = WeakSet()  # the locks this process holds


def _close_in_child() -> None:
    """In a forked child: drop the inherited copies of the parent's locks (no unlock)."""
    for lock in list(_HELD):
        lock.forget()


class ProjectLockedError(RuntimeError):
    """Raised when another process already has the project open for writing."""


def lock_path(project: Path) -> Path:
    """The lock file of a project: ``NAME.bagel.lock`` beside it."""
    return project.with_name(project.name + ".lock")


def _try_lock(handle: IO[str]) -> bool:
    if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
        import msvcrt

        try:
            msvcrt.locking(handle.fileno(), msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True
    import fcntl

    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False
    return True


class WriterLock:
    """Holds the writer lock of one project until ``release``."""

    def __init__(self, project: Path, owner: str, wait: float = 0.0) -> None:
        self.path = lock_path(project)
        self._handle: IO[str] | None = open(self.path, "a+", encoding="utf-8")  # noqa: SIM115
        deadline = time.monotonic() + max(wait, 0.0)
        while not _try_lock(self._handle):
            if time.monotonic() < deadline:
                time.sleep(min(POLL_SECONDS, max(deadline - time.monotonic(), 0.0)))
                continue
            self._handle.seek(0)
            holder = self._describe(self._handle.read())
            self._handle.close()
            self._handle = None
            waited = f" (waited {wait:g} s)" if wait > 0 else ""
            raise ProjectLockedError(
                f"{project.name} is already open for writing by {holder}{waited}. "
                "Close it there first, or open it read-only."
            )
        info = {
            "pid": os.getpid(),
            "host": _host(),
            "owner": owner,
            "since": datetime.now(UTC).isoformat(timespec="seconds"),
        }
        self._handle.seek(0)
        self._handle.truncate()
        self._handle.write(json.dumps(info))
        self._handle.flush()
        _HELD.add(self)

    @staticmethod
    def _describe(text: str) -> str:
        try:
            info = json.loads(text)
            return (
                f"{info.get('owner') or 'another curator'} "
                f"(process {info.get('pid')} on {info.get('host')}, since {info.get('since')})"
            )
        except (ValueError, AttributeError):
            return "another process"

    def release(self) -> None:
        _HELD.discard(self)
        if self._handle is not None:
            self._handle.close()
            self._handle = None

    def forget(self) -> None:
        """Close this process's descriptor without unlocking: another process (the parent this one
        was forked from) holds the lock through the same open file."""
        _HELD.discard(self)
        if self._handle is not None:
            with contextlib.suppress(OSError):
                self._handle.close()  # closes the descriptor; an flock is only undone by LOCK_UN
            self._handle = None


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_close_in_child)


def _host() -> str:
    """This machine's name (``socket.gethostname``, without importing socket at start-up)."""
    if hasattr(os, "uname"):
        return os.uname().nodename
    import socket  # pragma: no cover - Windows

    return socket.gethostname()
