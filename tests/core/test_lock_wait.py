"""A second writer waits for the lock (``--wait SECONDS``), then gives up naming the owner."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from bagel_studio.core.cli import run
from bagel_studio.core.store import ProjectLockedError, Store
from tests.core.test_cli import make_project
from tests.support.lock_holder import held, waits_then_runs


def test_writer_waits_for_the_lock_then_proceeds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = tmp_path / "p.bagel"
    make_project(project)
    args = ["decide", str(project), "w0", "--curator", "bob", "--accept", "--wait", "60"]
    status = waits_then_runs(project, lambda: run(args))
    assert status == 0, capsys.readouterr().err
    assert "w0: accept by bob" in capsys.readouterr().out


def test_writer_gives_up_after_wait_naming_the_owner(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = tmp_path / "p.bagel"
    make_project(project)
    with held(project):
        started = time.monotonic()
        status = run(["decide", str(project), "w0", "--curator", "bob", "--accept", "--wait", "1"])
        waited = time.monotonic() - started
        with pytest.raises(ProjectLockedError, match="alice"):
            Store.open(project, owner="carol", wait=0.2)
    assert status == 2
    assert waited >= 1.0
    err = capsys.readouterr().err
    assert "already open for writing by alice" in err and "waited 1 s" in err


@pytest.mark.parametrize("command", ["import", "decide", "check", "merge", "export"])
def test_every_writing_command_takes_wait(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert run([command, "--help"]) == 0
    assert "--wait SECONDS" in capsys.readouterr().out
