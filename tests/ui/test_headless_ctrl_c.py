"""The headless desk (README command 1 without a display) quits on Ctrl+C before its virtual
screen ends: the desk saves what it must, nothing prints an X11 error, and the screen is gone."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.ui.desk_harness import rows
from tests.ui.desk_project import KOALA_ID, build_project

ROOT = Path(__file__).resolve().parents[2]
DEADLINE_S = 60


def _processes_naming(text: str) -> list[str]:
    """Command lines of the running processes that mention ``text``."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if text in cmdline:
            found.append(cmdline)
    return found


def test_ctrl_c_ends_the_desk_then_its_virtual_screen(tmp_path: Path, data_dir: Path) -> None:
    project = tmp_path / "headless.bagel"
    build_project(project, data_dir)
    config = tmp_path / "config"
    config.mkdir()
    screenshot = tmp_path / "desk.png"
    env = {k: v for k, v in os.environ.items() if k not in ("QT_QPA_PLATFORM", "DISPLAY")}
    env.update(
        BAGEL_STUDIO_HEADLESS="1",
        BAGEL_STUDIO_CONFIG_DIR=str(config),
        BAGEL_STUDIO_HEADLESS_SCREENSHOT=str(screenshot),
        BAGEL_STUDIO_TEST_SCRIPT="A",  # a decision, through the shortcut table
        PYTHONPATH=str(ROOT),
        TMPDIR=str(tmp_path),  # where the screen keeps its cookie
    )
    command = [sys.executable, "-m", "bagel_studio", "open", str(project), "--curator", "kim"]
    process = subprocess.Popen(
        ["bash", str(ROOT / "packaging" / "virtual-screen.sh"), "1280x800x24", *command],
        env=env,
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,  # its own process group, as a terminal's foreground job
    )
    try:
        deadline = time.monotonic() + DEADLINE_S
        while not (screenshot.exists() and rows(project, "SELECT 1 FROM reviews")):
            assert process.poll() is None, process.communicate()
            assert time.monotonic() < deadline, "the desk did not come up"
            time.sleep(0.1)
        assert _processes_naming(str(tmp_path / "bagel-screen."))  # the screen runs
        os.killpg(process.pid, signal.SIGINT)  # what Ctrl+C in the terminal does
        out, err = process.communicate(timeout=DEADLINE_S)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
    assert process.returncode == 0, err
    assert err.decode() == ""  # no X11 error, no traceback
    assert "Ctrl+C here to quit" in out.decode()
    settings = (config / "desk.ini").read_text(encoding="utf-8")  # saved as the desk closed
    assert "geometry" in settings
    assert rows(project, "SELECT item_id, curator, decision FROM reviews") == [
        (KOALA_ID, "kim", "accept")
    ]
    assert _processes_naming(str(tmp_path / "bagel-screen.")) == []  # the screen is gone
    assert not list(tmp_path.glob("bagel-screen.*"))  # and its cookie


def test_ctrl_c_while_the_demo_is_built_says_so_in_one_line(tmp_path: Path) -> None:
    """Ctrl+C as soon as the demo says it is being built (while it imports its modules, reads
    the files, probes the clips or measures them): one line, and nothing left half-built. (A
    Ctrl+C that came while the clips were probed or the measuring workers started was lost,
    and the desk opened.)"""
    config = tmp_path / "config"
    env = dict(os.environ)
    env.update(
        QT_QPA_PLATFORM="offscreen",
        BAGEL_STUDIO_HEADLESS="1",
        BAGEL_STUDIO_CONFIG_DIR=str(config),
        PYTHONPATH=str(ROOT),
    )
    process = subprocess.Popen(
        [sys.executable, "-m", "bagel_studio", "demo", "--curator", "kim"],
        env=env,
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        assert process.stdout is not None
        assert "building the demo project" in process.stdout.readline()
        os.killpg(process.pid, signal.SIGINT)  # Ctrl+C while it imports and measures the clips
        _out, err = process.communicate(timeout=DEADLINE_S)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
    # 130, or killed by SIGINT, which a shell reports as 130 too: about one run in ten, the
    # interpreter ends so after the launcher has handled the interrupt (cause not found).
    assert process.returncode in (130, -signal.SIGINT)
    assert err == "bagel-studio: interrupted before the desk was open\n"  # no traceback
    assert not (config / "data" / "demo.bagel").exists()  # nothing half-built to open
