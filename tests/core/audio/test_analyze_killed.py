"""``analyze`` killed with SIGKILL leaves no process behind: its pool's workers and the
multiprocessing resource tracker end with it (each held about 150 MB and, with the tracker,
lived on after the command was gone)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.core.audio.test_analyze import build

ROOT = Path(__file__).resolve().parents[3]
pytestmark = [pytest.mark.slow, pytest.mark.timeout(120)]


def children(pid: int) -> dict[int, str]:
    """{pid: command line} of every live descendant of ``pid``."""
    parents: dict[int, int] = {}
    lines: dict[int, str] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            lines[int(entry.name)] = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:  # gone meanwhile
            continue
        state, ppid = stat.rpartition(")")[2].split()[:2]
        if state != "Z":
            parents[int(entry.name)] = int(ppid)
    found: dict[int, str] = {}
    frontier = [pid]
    while frontier:
        parent = frontier.pop()
        for child, ppid in parents.items():
            if ppid == parent and child not in found:
                found[child] = lines.get(child, "")
                frontier.append(child)
    return found


def alive(pid: int, cmdline: str) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        same = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode() == cmdline
    except OSError:
        return False
    return same and stat.rpartition(")")[2].split()[0] != "Z"


def test_a_killed_analyze_leaves_no_process_behind(tmp_path: Path, data_dir: Path) -> None:
    path = build(tmp_path / "killed", data_dir)
    process = subprocess.Popen(
        [sys.executable, "-m", "bagel_studio", "analyze", str(path), "--workers", "2"],
        env={**os.environ, "PYTHONPATH": str(ROOT)}, cwd=ROOT, start_new_session=True,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        found: dict[int, str] = {}
        while time.monotonic() < deadline:
            found = children(process.pid)
            workers = [c for c in found.values() if "spawn_main" in c]
            trackers = [c for c in found.values() if "resource_tracker" in c]
            if len(workers) >= 2 and trackers:
                break
            time.sleep(0.05)
        assert len(workers) >= 2 and trackers, found
        process.kill()
        process.wait(timeout=10)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and any(alive(p, c) for p, c in found.items()):
            time.sleep(0.05)
        left = {p: c for p, c in found.items() if alive(p, c)}
        assert not left, f"left behind: {left}"
    finally:
        with contextlib.suppress(ProcessLookupError):  # nothing may outlive a failed test
            os.killpg(process.pid, signal.SIGKILL)
