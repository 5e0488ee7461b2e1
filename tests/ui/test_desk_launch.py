"""``open --help`` and ``demo --help`` print their own usage; the demo runs headless without
waiting on a dialog nobody can see, says how to see it and writes screenshots; Ctrl+C ends it."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bagel_studio.ui.launch import launch

ROOT = Path(__file__).resolve().parents[2]


def test_open_and_demo_print_their_own_help(capsys: pytest.CaptureFixture[str]) -> None:
    assert launch(["open", "--help"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: bagel-studio open")
    assert "PROJECT" in out and "--curator" in out
    assert "BAGEL_STUDIO_TEST_SCRIPT" not in out and "demo" not in out.split("\n")[0]
    assert launch(["demo", "--help"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: bagel-studio demo")
    assert "--rebuild" in out and "data folder" in out
    assert "BAGEL_STUDIO_TEST_SCRIPT" not in out
    assert launch(["demo", "--colour"]) == 2
    assert "unrecognized arguments: --colour" in capsys.readouterr().err


def test_demo_project_is_in_this_users_data_folder(isolated_config: Path) -> None:
    from bagel_studio.core.demo import default_demo_path

    assert default_demo_path().parent == isolated_config / "data"  # the per-user data folder


def _start_headless(tmp_path: Path, *args: str, curator_env: str | None = None):
    env = dict(os.environ)
    env.update(
        QT_QPA_PLATFORM="offscreen",
        BAGEL_STUDIO_HEADLESS="1",
        BAGEL_STUDIO_CONFIG_DIR=str(tmp_path / "config"),
        BAGEL_STUDIO_HEADLESS_SCREENSHOT=str(tmp_path / "screen.png"),
        DISPLAY=":42",
        PYTHONPATH=str(ROOT),
    )
    env.pop("BAGEL_STUDIO_CURATOR", None)
    if curator_env:
        env["BAGEL_STUDIO_CURATOR"] = curator_env
    return subprocess.Popen(
        [sys.executable, "-m", "bagel_studio", "demo", *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
    )


def _wait_for(path: Path, process: subprocess.Popen[str], timeout_s: float = 120.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not path.exists():
        if process.poll() is not None:
            out, err = process.communicate()
            pytest.fail(f"the demo ended early ({process.returncode}): {out}\n{err}")
        if time.monotonic() > deadline:
            process.kill()
            pytest.fail("no screenshot of the headless desk")
        time.sleep(0.2)


@pytest.mark.slow
def test_headless_demo_says_how_to_see_it_and_never_waits_on_a_dialog(tmp_path: Path) -> None:
    screen = tmp_path / "screen.png"
    process = _start_headless(tmp_path)  # no curator anywhere: the OS user name is taken
    _wait_for(screen, process)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 0, err
    demo = tmp_path / "config" / "data" / "demo.bagel"
    assert f"building the demo project (once) in {demo}" in out
    assert f"opening {demo}" in out
    assert "virtual X display :42" in out
    assert "x11vnc -display :42" in out and "localhost:5900" in out
    assert str(screen) in out
    assert "Reviewing as" in out and "OS user name" in out
    assert screen.read_bytes().startswith(b"\x89PNG")
    assert (tmp_path / "config" / "data" / "demo.bagel").is_file()


@pytest.mark.slow
def test_headless_demo_takes_the_curator_from_the_option(
    tmp_path: Path, demo_template: Path
) -> None:
    demo = tmp_path / "config" / "data" / "demo.bagel"  # built already: the demo opens it
    demo.parent.mkdir(parents=True)
    shutil.copyfile(demo_template, demo)
    process = _start_headless(tmp_path, "--curator", "lee", curator_env="kim")
    _wait_for(tmp_path / "screen.png", process)
    process.send_signal(signal.SIGINT)
    out, _err = process.communicate(timeout=60)
    assert "Reviewing as 'lee' (from --curator" in out
