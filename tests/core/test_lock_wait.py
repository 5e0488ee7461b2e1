"""A second writer waits for the lock (``--wait SECONDS``), then gives up naming the owner."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from bagel_studio.core.cli import run
from bagel_studio.core.store import ProjectLockedError, Store
from tests.core.test_cli import make_project

HOLD = (
    "import sys, time\n"
    "from bagel_studio.core.store import Store\n"
    "store = Store.open(sys.argv[1], owner='alice')\n"
    "print('holding', flush=True)\n"
    "sys.stdin.readline()\n"  # until told to let go (or the test ends)
    "store.close()\n"
)


def _hold(project: Path) -> subprocess.Popen[str]:
    """Another process (alice) that holds the writer lock until a line on its input."""
    process = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(project)],
        cwd=Path(__file__).resolve().parents[2],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    assert process.stdout.readline().strip() == "holding"
    process.stdout.close()
    return process


def _release(holder: subprocess.Popen[str]) -> None:
    assert holder.stdin is not None
    holder.stdin.close()  # its readline returns: alice closes the project
    holder.wait(timeout=60)


def test_writer_waits_for_the_lock_then_proceeds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = tmp_path / "p.bagel"
    make_project(project)
    holder = _hold(project)
    status: list[int] = []
    args = ["decide", str(project), "w0", "--curator", "bob", "--accept", "--wait", "60"]
    bob = threading.Thread(target=lambda: status.append(run(args)))
    try:
        bob.start()
        bob.join(1.0)
        assert bob.is_alive()  # still waiting for alice, rather than failed at once
    finally:
        _release(holder)
        bob.join(60)
    assert status == [0], capsys.readouterr().err
    assert "w0: accept by bob" in capsys.readouterr().out


def test_writer_gives_up_after_wait_naming_the_owner(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = tmp_path / "p.bagel"
    make_project(project)
    holder = _hold(project)
    try:
        started = time.monotonic()
        status = run(["decide", str(project), "w0", "--curator", "bob", "--accept", "--wait", "1"])
        waited = time.monotonic() - started
        with pytest.raises(ProjectLockedError, match="alice"):
            Store.open(project, owner="carol", wait=0.2)
    finally:
        _release(holder)
    assert status == 2
    assert waited >= 1.0
    err = capsys.readouterr().err
    assert "already open for writing by alice" in err and "waited 1 s" in err


@pytest.mark.parametrize("command", ["import", "decide", "check", "merge", "export"])
def test_every_writing_command_takes_wait(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert run([command, "--help"]) == 0
    assert "--wait SECONDS" in capsys.readouterr().out
