"""``check_all`` on several worker processes stores exactly the flags one process stores."""

from __future__ import annotations

import multiprocessing
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bagel_studio.core.checks import check_all, processes
from bagel_studio.core.cli import run
from bagel_studio.core.importers import import_paths
from bagel_studio.core.store import Store


def _flags(path: Path) -> list[tuple[object, ...]]:
    with Store.open(path, read_only=True) as store:
        flags = store.db.execute("SELECT * FROM flags ORDER BY item_id, check_id").fetchall()
        summary = store.db.execute(
            "SELECT id, flag_severity, flag_checks FROM items ORDER BY seq"
        ).fetchall()
    return [*flags, *summary]


def test_workers_store_the_flags_one_process_stores(
    tmp_path: Path, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    one = tmp_path / "one.bagel"
    with Store.open(one) as store:
        import_paths(store, [data_dir / "items", data_dir / "globi"], full_checks=False)
    many = tmp_path / "many.bagel"
    shutil.copy(one, many)
    with Store.open(one) as store:
        flagged = check_all(store)
    monkeypatch.setattr(processes, "PARALLEL_MIN", 2)
    monkeypatch.setattr(processes, "TASK", 3)
    seen: list[tuple[int, int]] = []
    with Store.open(many) as store:
        assert processes.can_fork(store, store.items.count(), 2)
        assert check_all(store, progress=lambda d, t: seen.append((d, t)), workers=2) == flagged
    assert flagged > 0
    assert _flags(many) == _flags(one)
    assert len(seen) > 2 and seen[-1][0] == seen[-1][1]


def test_tasks_keep_every_worker_busy_to_the_end() -> None:
    # A few tasks per worker (not three of 4,000 for two workers, one of which waits).
    assert processes.task_size(11_852, 2) == 1_482
    assert processes.task_size(200_000, 2) == processes.TASK
    assert processes.task_size(3, 8) == 1


# The child: checks a project on two workers, tells the test its workers' ids at the first
# progress, then waits for a line on stdin that never comes (the test kills it first).
_CHILD = """
import multiprocessing, sys
from bagel_studio.core.checks import check_all, processes
from bagel_studio.core.cli import run
from bagel_studio.core.store import Store

processes.PARALLEL_MIN = 2
processes.TASK = 3

def progress(done, total):
    if done:
        print(*(child.pid for child in multiprocessing.active_children()), flush=True)
        sys.stdin.readline()

with Store.open(sys.argv[1]) as store:
    check_all(store, progress=progress, audio=False, workers=2)
"""


def _alive(pid: int) -> bool:
    """True while ``pid`` runs (a zombie left for its new parent to reap counts as gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="parent-death signal is Linux's")
def test_workers_die_with_a_killed_parent(tmp_path: Path, data_dir: Path) -> None:
    project = tmp_path / "p.bagel"
    with Store.open(project) as store:
        import_paths(store, [data_dir / "items", data_dir / "globi"], full_checks=False)
    with subprocess.Popen(
        [sys.executable, "-c", _CHILD, str(project)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    ) as parent:
        try:
            assert parent.stdout is not None
            workers = [int(pid) for pid in parent.stdout.readline().split()]
            assert len(workers) == 2 and all(_alive(pid) for pid in workers)
        finally:
            parent.kill()
    try:
        for _ in range(2_000):  # the kernel signals them at once; a loaded machine may be slow
            if not any(_alive(pid) for pid in workers):
                break
            time.sleep(0.01)
        assert not any(_alive(pid) for pid in workers)
    finally:
        for pid in filter(_alive, workers):  # a failure leaves no orphans behind
            os.kill(pid, signal.SIGKILL)


def test_a_worker_whose_parent_is_gone_ends_at_once() -> None:
    # The parent died before the worker asked to die with it: the worker was handed to another
    # process and must not start.
    context = multiprocessing.get_context("fork")
    worker = context.Process(target=processes.die_with_parent, args=(os.getpid() + 1_000_000,))
    worker.start()
    worker.join()
    assert worker.exitcode == 1
    same = context.Process(target=processes.die_with_parent, args=(os.getpid(),))
    same.start()
    same.join()
    assert same.exitcode == 0


def _killed(item_ids: list[str]) -> dict[str, list[object]]:
    """A worker's ``_check`` that ends the worker abruptly."""
    os._exit(9)


def test_a_worker_killed_is_a_message_not_a_traceback(
    tmp_path: Path,
    data_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A worker that ends abruptly (the kernel's out-of-memory killer, say) stops
    ``bagel-studio check --workers 2`` with one line saying so; the flags stored before stay."""
    project = tmp_path / "p.bagel"
    with Store.open(project) as store:
        import_paths(store, [data_dir / "items", data_dir / "globi"], full_checks=False)
    before = _flags(project)
    monkeypatch.setattr(processes, "PARALLEL_MIN", 2)
    monkeypatch.setattr(processes, "TASK", 3)

    monkeypatch.setattr(processes, "_check", _killed)  # the forked workers run this
    assert run(["check", str(project), "--workers", "2"]) == 1
    err = capsys.readouterr().err
    assert "a worker process ended abruptly" in err and "--workers 1" in err
    assert "Traceback" not in err
    assert _flags(project) == before
