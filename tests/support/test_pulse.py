"""The tests' private PulseAudio ends with them: at the end of the block, and also when the
process running the tests dies without tearing anything down."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.pulse import running_null_sink

ROOT = Path(__file__).resolve().parents[2]

DIE_INSIDE = """
import os, sys
from tests.support.pulse import running_null_sink
with running_null_sink():
    print(os.environ["PULSE_SERVER"], flush=True)
    os._exit(9)  # no clean-up runs, as when a CI job is killed
"""


def _answers(server: str) -> bool:
    env = dict(os.environ, PULSE_SERVER=server)
    probe = subprocess.run(["pactl", "info"], env=env, capture_output=True, timeout=30)
    return probe.returncode == 0


def _stops_answering(server: str) -> bool:
    deadline = time.monotonic() + 60
    while _answers(server) and time.monotonic() < deadline:
        time.sleep(0.1)
    return not _answers(server)


@pytest.fixture(autouse=True)
def _needs_pulseaudio() -> None:
    if shutil.which("pulseaudio") is None or shutil.which("pactl") is None:
        pytest.skip("PulseAudio is not installed")


def test_the_server_ends_with_the_block() -> None:
    with running_null_sink():
        server = os.environ["PULSE_SERVER"]
        assert _answers(server)
    assert _stops_answering(server)


def test_the_server_ends_when_the_test_process_dies() -> None:
    done = subprocess.run(
        [sys.executable, "-c", DIE_INSIDE], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 9, done.stderr
    server = done.stdout.strip()
    assert server.startswith("unix:")
    try:
        assert _stops_answering(server)
    finally:
        shutil.rmtree(Path(server.removeprefix("unix:")).parent.parent, ignore_errors=True)
