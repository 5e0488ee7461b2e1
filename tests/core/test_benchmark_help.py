"""Every benchmark script answers ``--help`` with its usage, at once, without running: a curator
or engineer asking a script what it measures must not start a benchmark of several minutes
(``bench_import.py --help`` ran the whole import benchmark) or a traceback
(``bench_cli_start.py --help`` took "--help" for its number of repeats)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
ROOT = BENCHMARKS.parents[1]
MAIN = re.compile(r'^if __name__ == "__main__":', re.MULTILINE)
LIMIT_S = 120  # a guard against a script that runs its benchmark, not a measure of speed


def scripts() -> list[Path]:
    return sorted(p for p in BENCHMARKS.glob("*.py") if MAIN.search(p.read_text("utf-8")))


def test_every_benchmark_script_answers_help_without_running() -> None:
    found = scripts()
    assert len(found) >= 15 and BENCHMARKS / "bench_desk.py" in found
    env = dict(os.environ, PYTHONPATH=str(ROOT), QT_QPA_PLATFORM="offscreen")
    running = {
        path.name: subprocess.Popen(
            [sys.executable, str(path), "--help"],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for path in found
    }
    deadline = time.monotonic() + LIMIT_S
    problems = []
    for name, process in running.items():
        try:
            out, err = process.communicate(timeout=max(1.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()
            problems.append(f"{name}: still running after {LIMIT_S} s (it ran the benchmark)")
            continue
        if process.returncode != 0 or not out.startswith("usage:"):
            tail = (err or out).strip().splitlines()[-1:] or ["no output"]
            problems.append(f"{name}: exit {process.returncode}, {tail[0]}")
    assert problems == []
