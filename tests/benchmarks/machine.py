"""How fast this machine runs one process and two at once, right now: printed by the benchmarks of
parallel work beside their figures.

On a shared machine (a virtual one whose cores another tenant may be using) two processes at once
sometimes each run at nearly half the speed of one alone, for minutes at a time. The export, the
check on workers and the clip analysis then take up to 60% more CPU for the same work, and a
figure measured then is not a regression. The same fixed piece of work, timed on one process and
then on two at once, points to such a spell (not to every one: it leaves out reading and writing
files and the work of other processes).
"""

from __future__ import annotations

import json
import multiprocessing
import subprocess
import sys
import time

ROWS = 30_000  # rows made, dumped and read back: about 0.2 s of one core here


def _work(_: int = 0) -> float:
    """CPU seconds of a fixed piece of work much like the export's: many small objects made,
    turned into JSON and read back (allocation and string work more than arithmetic)."""
    start = time.process_time()
    rows = [
        {"id": f"item:{n}", "options": [f"option {n} {k}" for k in range(4)], "n": n}
        for n in range(ROWS)
    ]
    text = "\n".join(map(json.dumps, rows))
    assert len([json.loads(line) for line in text.split("\n")]) == ROWS
    return time.process_time() - start


def measure() -> str:
    """One line: the work's CPU seconds on one process, then on each of two at once (best of 3
    each, so that a moment's hiccup does not count)."""
    alone = min(_work() for _ in range(3))
    with multiprocessing.get_context("fork").Pool(2) as pool:
        pairs = [pool.map(_work, [0, 1]) for _ in range(3)]
    both = min(pairs, key=max)
    slower = max(both) / alone
    verdict = "as fast as one" if slower < 1.25 else f"{slower:.1f}x slower each: a slow spell"
    return (
        f"machine: a fixed piece of work takes {alone:.3f} s of CPU on one process,"
        f" {both[0]:.3f} / {both[1]:.3f} s on each of two at once ({verdict})"
    )


def parallel_check() -> str:
    """``measure`` in a process of its own: the benchmark's process stays as small as it was
    (a command it starts counts its size at the start in its peak RSS)."""
    done = subprocess.run([sys.executable, __file__], capture_output=True, text=True, check=True)
    return done.stdout.strip()


if __name__ == "__main__":
    import argparse

    argparse.ArgumentParser(description=__doc__.split("\n\n")[0]).parse_args()
    print(measure())
