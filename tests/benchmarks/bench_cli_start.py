"""Benchmark of issue 11 point 7: how long ``bagel-studio --help`` and each command's start take.

Run: .venv/bin/python tests/benchmarks/bench_cli_start.py [REPEATS]
Each figure is the median wall time of REPEATS (default 5) fresh interpreters running
``python -m bagel_studio ARGS`` (a command's ``--help`` is its start: the parser is built after
the command's module is imported), printed beside the baseline measured before subcommands were
loaded lazily (1.7-3 s on a busy machine, issue 11) and the target (0.3 s). The load average is
printed with them: the machine is shared.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bagel_studio.core.cli import COMMANDS  # noqa: E402

TARGET_S = 0.3
BASELINE = "1.7-3 s"


def seconds(args: list[str], repeats: int) -> float:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "bagel_studio", *args],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            check=False,
        )
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("repeats", type=int, nargs="?", default=5, help="fresh runs per figure")
    repeats = parser.parse_args().repeats
    print(f"load average: {Path('/proc/loadavg').read_text().split()[:3]}")
    print(f"{'command':<28} {'median':>8}  baseline  target")
    bare = []
    for _ in range(repeats):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        bare.append(time.perf_counter() - start)
    print(f"{'(python -c pass)':<28} {statistics.median(bare):>7.3f}s")
    for args in (["--help"], *([name, "--help"] for name in COMMANDS)):
        took = seconds(args, repeats)
        verdict = "ok" if took < TARGET_S else "OVER"
        print(f"{' '.join(args):<28} {took:>7.3f}s  {BASELINE:>8}  <{TARGET_S} s {verdict}")


if __name__ == "__main__":
    main()
