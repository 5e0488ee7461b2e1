"""A writer killed while a process it forked lives on leaves the project unlocked.

The writer lock is an ``flock``, which a forked child shares with its parent. The checks of a large
import run on forked worker processes; before the fix, SIGKILL of such an import left its workers
holding the lock, and the next ``import``, ``check`` or desk open was told the project was "already
open for writing" by the dead process, so the interrupted import's checks could not be finished.
Real processes, real SIGKILL.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from bagel_studio.core.checks.processes import PARALLEL_MIN
from bagel_studio.core.cli import run
from bagel_studio.core.store import Store
from tests.support.kill_items import count_rows, items_file, kill, stopped_import

ROOT = Path(__file__).resolve().parents[3]
WORKERS = ["--workers", "2"]

FORK_AND_HOLD = (
    "import os, sys, time\n"
    "from bagel_studio.core.store import Store\n"
    "store = Store.open(sys.argv[1], owner='alice')\n"
    "child = os.fork()\n"
    "if child == 0:\n"
    "    os.write(1, f'child {os.getpid()}\\n'.encode())\n"  # its at-fork handlers have run
    "    time.sleep(120)\n"
    "    os._exit(0)\n"
    "os.write(1, f'parent {child}\\n'.encode())\n"  # each line in one write: never interleaved
    "time.sleep(120)\n"
)


def _processes_naming(text: str) -> list[int]:
    """Ids of this user's live processes whose command line names ``text``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if text in cmdline:
            found.append(int(entry.name))
    return found


def _kill(pids: list[int]) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


@pytest.fixture
def project(tmp_path: Path) -> Iterator[Path]:
    """A project path; every process left naming it is killed afterwards (they are ours)."""
    path = tmp_path / "p.bagel"
    yield path
    _kill(_processes_naming(str(path)))


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork is POSIX")
def test_a_killed_writers_forked_child_does_not_keep_the_project_locked(project: Path) -> None:
    Store.open(project).close()
    writer = subprocess.Popen(
        [sys.executable, "-c", FORK_AND_HOLD, str(project)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert writer.stdout is not None
    # Both lines, in either order: the child's says it has dropped its copy of the lock (its
    # at-fork handler runs before fork returns in it), which a busy machine may delay well past
    # the parent's line.
    said = dict(writer.stdout.readline().split() for _ in range(2))
    writer.stdout.close()
    child = int(said["child"])
    assert int(said["parent"]) == child
    try:
        os.kill(writer.pid, signal.SIGKILL)
        writer.wait()
        assert child in _processes_naming(str(project))  # the forked child still lives
        with Store.open(project, owner="bob", wait=0) as store:  # yet the project is free
            assert not store.read_only
    finally:
        _kill([child])


@pytest.mark.slow
def test_import_killed_while_its_check_workers_run_is_finished_by_check(
    tmp_path: Path, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The size at which the import's checks run on two worker processes; SIGKILL once both
    workers have taken a task, then ``check --wait 0`` must get the project and finish the
    checks."""
    items = items_file(tmp_path / "items.jsonl", PARALLEL_MIN)
    # both workers forked and each at its first task (the checks' write transaction not open)
    kill(stopped_import("workers", str(project), str(items), *WORKERS, stops=2))
    waiting = count_rows(project, "SELECT count(*) FROM pending_checks")
    assert waiting == PARALLEL_MIN
    assert run(["check", str(project), "--no-audio", "--wait", "0"]) == 0
    err = capsys.readouterr().err
    assert f"{waiting:,} items awaited their checks after an interrupted import" in err
    assert count_rows(project, "SELECT count(*) FROM pending_checks") == 0
    gold_in_stem = "SELECT count(*) FROM flags WHERE check_id = 'gold-in-stem'"
    assert count_rows(project, gold_in_stem) == len(range(0, PARALLEL_MIN, 3))
