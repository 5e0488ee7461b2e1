"""Another process that holds a project's writer lock, for the tests of ``--wait``: it takes the
lock as alice, says so on a line, and lets go when its input closes, so a test hands the lock over
at a point it chooses rather than after a delay."""

from __future__ import annotations

import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HOLD = (
    "import sys\n"
    "from bagel_studio.core.store import Store\n"
    "store = Store.open(sys.argv[1], owner='alice')\n"
    "print('holding', flush=True)\n"
    "sys.stdin.readline()\n"  # until told to let go (or the test ends)
    "store.close()\n"
)


def hold(project: Path) -> subprocess.Popen[str]:
    """Start alice's process and return once it holds the writer lock."""
    process = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(project)],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    assert process.stdout.readline().strip() == "holding"
    process.stdout.close()
    return process


def release(holder: subprocess.Popen[str]) -> None:
    """Let go of the lock: alice's readline returns and she closes the project."""
    assert holder.stdin is not None
    holder.stdin.close()
    holder.wait(timeout=60)


@contextmanager
def held(project: Path) -> Iterator[subprocess.Popen[str]]:
    """The lock held by alice for the block, and let go after it whatever happens."""
    holder = hold(project)
    try:
        yield holder
    finally:
        release(holder)


def waits_then_runs(project: Path, command: Callable[[], int]) -> int:
    """Run ``command`` (a writer given ``--wait``) in a thread while alice holds the lock, check it
    is still waiting a second later rather than failed at once, then let go; its exit status."""
    status: list[int] = []
    writer = threading.Thread(target=lambda: status.append(command()))
    with held(project):
        writer.start()
        writer.join(1.0)
        waiting = writer.is_alive()
    writer.join(60)
    assert waiting, "the writer gave up at once instead of waiting for the lock"
    assert len(status) == 1, "the writer did not finish once the lock was free"
    return status[0]
