"""Items, counts and a stopped import for the tests that kill an import during its checks (the
importers' and the store's lock tests): items whose checking phase writes flags, a count read that
tolerates a project in the middle of being written, and an import that stops at a named point and
says so, so that it is killed there and not at a polled moment."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def items_file(path: Path, count: int) -> Path:
    """Items of which every third gives its gold away in the stem (a ``gold-in-stem`` warning,
    written only by the checking phase)."""
    with open(path, "w", encoding="utf-8") as handle:
        for i in range(count):
            gold = f"Seeds of plant {i}"
            stem = f"Which food does animal {i} prefer" + (f", {gold}?" if i % 3 == 0 else "?")
            item = {
                "id": f"w{i}",
                "domain": "Wikipedia",
                "dimension": "Diet",
                "question": stem,
                "options": [gold, f"Leaves {i}", f"Fish {i}", f"Insects {i}"],
                "answer": "A",
            }
            handle.write(json.dumps(item) + "\n")
    return path


def count_rows(project: Path, sql: str) -> int:
    try:
        conn = sqlite3.connect(f"file:{project}?mode=ro", uri=True, timeout=0.05)
    except sqlite3.Error:
        return -1
    try:
        return int(conn.execute(sql).fetchone()[0])
    except sqlite3.Error:
        return -1
    finally:
        conn.close()


# ``bagel-studio import ARGS`` with a stop at a named point, where it says "stopped" on its
# standard output and waits to be killed: "checks", as the checks of its committed items begin (in
# the importing process), or "workers", as each forked check worker takes its first task. The
# line is one write (print() makes two when Python runs unbuffered, PYTHONUNBUFFERED, and two
# workers' lines then interleave as "stoppedstopped").
STOPPED_IMPORT = (
    "import os, sys, time\n"
    "from bagel_studio.core.checks import processes\n"
    "from bagel_studio.core.cli import run\n"
    "from bagel_studio.core.importers import runner\n"
    "def stop(*args, **kwargs):\n"
    "    os.write(1, b'stopped\\n')\n"
    "    time.sleep(600)\n"  # until killed
    "    raise SystemExit('not killed')\n"
    "if sys.argv[1] == 'checks':\n"
    "    runner.recheck = stop\n"
    "else:\n"
    "    processes._check = stop\n"  # the forked workers inherit it
    "sys.exit(run(['import', *sys.argv[2:]]))\n"
)


def stopped_import(point: str, *args: str, stops: int = 1) -> subprocess.Popen[str]:
    """Start the import of ``args`` in a process and return once it has said "stopped"
    ``stops`` times at ``point`` (one per worker with "workers"): kill it there."""
    process = subprocess.Popen(
        [sys.executable, "-c", STOPPED_IMPORT, point, *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert process.stdout is not None
    for _ in range(stops):
        line = process.stdout.readline()
        assert line == "stopped\n", f"the import ended before its stop at {point}: {line!r}"
    return process


def kill(process: subprocess.Popen[str]) -> None:
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    if process.stdout is not None:
        process.stdout.close()
