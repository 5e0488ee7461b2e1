"""Long commands show how far they have come on a terminal, and only there."""

from __future__ import annotations

import io
import os
import pty
import subprocess
import sys
from pathlib import Path

from bagel_studio.core import operations
from bagel_studio.core.commands.common import TerminalProgress
from bagel_studio.core.model import Decision
from bagel_studio.core.store import Store
from tests.core.test_cli import make_project

ROOT = Path(__file__).resolve().parents[2]


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_line_is_redrawn_in_place_and_wiped_at_the_end() -> None:
    screen = _Terminal()
    with TerminalProgress("exporting", screen) as progress:
        progress(0, 200)
        progress(100, 200)  # within a tenth of a second of the last: not drawn
        progress(200, 200)  # the end is always drawn
    text = screen.getvalue()
    assert text.startswith("\rexporting [....................]   0%")
    assert "50%" not in text
    drawn = "\rexporting [####################] 100%"
    assert drawn in text and text.endswith("\r" + " " * (len(drawn) - 1) + "\r")


def test_a_next_stage_shows_on_the_same_line_under_its_own_name() -> None:
    screen = _Terminal()
    with TerminalProgress("importing", screen) as progress:
        progress(10, 10)
        checking = progress.stage("checking")
        checking(0, 4)
        checking(4, 4)
    lines = screen.getvalue().split("\r")
    assert lines[1].startswith("importing [####################] 100%")
    assert lines[2] == "checking [....................]   0%".ljust(len(lines[1]))
    assert lines[3].startswith("checking [####################] 100%") and lines[-1] == ""


def test_nothing_is_written_where_stderr_is_not_a_terminal() -> None:
    log = io.StringIO()
    with TerminalProgress("checking", log) as progress:
        progress(5, 10)
        progress(10, 10)
    assert log.getvalue() == ""


def _shown_on_a_terminal(command: list[str]) -> tuple[int, bytes, bytes]:
    """Run ``command`` with its stderr on a pseudo-terminal: its exit status, what the
    terminal showed and its stdout."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    main, terminal = pty.openpty()
    try:
        done = subprocess.run(
            command, env=env, stdout=subprocess.PIPE, stderr=terminal, timeout=120
        )
        os.close(terminal)
        shown = b""
        while True:
            try:
                chunk = os.read(main, 4096)
            except OSError:  # the terminal's other end is closed: all was read
                break
            if not chunk:
                break
            shown += chunk
    finally:
        os.close(main)
    return done.returncode, shown, done.stdout


def _project(tmp_path: Path) -> Path:
    path = tmp_path / "p.bagel"
    make_project(path)
    with Store.open(path) as store:
        for item_id in ("w0", "w1", "w2"):
            operations.decide(store, item_id, "ana", Decision.ACCEPT)
    return path


def test_export_shows_its_progress_on_a_terminal_and_not_in_a_pipe(tmp_path: Path) -> None:
    project = _project(tmp_path)
    command = [sys.executable, "-m", "bagel_studio", "export", str(project)]
    status, shown, out = _shown_on_a_terminal([*command, str(tmp_path / "one"), "--seed", "1"])
    assert status == 0
    assert b"exporting [####################] 100%" in shown and shown.endswith(b"\r")
    assert out.startswith(b"Released 3 items")
    piped = subprocess.run(
        [*command, str(tmp_path / "two"), "--seed", "1"],
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
        capture_output=True,
        timeout=120,
    )
    assert piped.returncode == 0 and piped.stderr == b""


def test_import_shows_reading_then_checking(tmp_path: Path, data_dir: Path) -> None:
    project = tmp_path / "p.bagel"
    command = [sys.executable, "-m", "bagel_studio", "import", str(project), str(data_dir)]
    status, shown, out = _shown_on_a_terminal(command)
    assert status in (0, 1), shown  # 1: the data holds lines the import rejects, on purpose
    assert b"importing [####################] 100%" in shown
    assert b"checking [####################] 100%" in shown
    assert out.startswith(b"Imported into")
