"""Benchmark of a project file's checks (issue 26): what the check on open and the full check cost.

Run: .venv/bin/python tests/benchmarks/bench_integrity.py [N] [--repeat 3] [--keep DIR]

The items come from ``bagel_scale.py N`` (default 11,852, the paper's mix), imported through the
command line. Each of REPEAT runs times, in this process: ``Store.open`` of the project (the
schema compared with what the migrations build, and SQLite's ``quick_check``), SQLite's
``quick_check`` alone on a plain connection beside it, and ``Store.require_sound`` (SQLite's full
``integrity_check`` and the search index compared with the items: what export, merge and collect
run first). Printed: each run, the medians, the file's size and the load average before and
after.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.benchmarks.bagel_scale import write_scale_items  # noqa: E402


def loadavg() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def build(count: int, folder: Path) -> Path:
    """An N-item project, imported by the command line."""
    items = write_scale_items(count, folder / "items.jsonl")
    project = folder / "project.bagel"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    subprocess.run(
        [sys.executable, "-m", "bagel_studio", "import", str(project), str(items)],
        check=True,
        env=env,
        stdout=subprocess.DEVNULL,
    )
    return project


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("count", nargs="?", type=int, default=11_852, help="items (11852)")
    parser.add_argument("--repeat", type=int, default=3, help="runs (3; medians printed)")
    parser.add_argument("--keep", type=Path, help="build the project in DIR and keep it")
    args = parser.parse_args()

    from bagel_studio.core.store import Store

    folder = args.keep or Path(tempfile.mkdtemp(prefix="bench-integrity-"))
    folder.mkdir(parents=True, exist_ok=True)
    project = folder / "project.bagel"
    if not project.exists():
        print(f"building a {args.count:,}-item project in {folder} ...", flush=True)
        project = build(args.count, folder)
    size = project.stat().st_size
    print(f"bench_integrity: {args.count:,} items, {size / 1e6:.1f} MB")
    print(f"  load average before: {loadavg()}")
    opened: list[float] = []
    quick: list[float] = []
    full: list[float] = []
    for run in range(1, args.repeat + 1):
        start = time.perf_counter()
        with Store.open(project) as store:
            opened.append(time.perf_counter() - start)
            assert store.damage is None, store.damage
            start = time.perf_counter()
            store.require_sound()
            full.append(time.perf_counter() - start)
        conn = sqlite3.connect(project)
        start = time.perf_counter()
        assert conn.execute("PRAGMA quick_check").fetchone()[0] == "ok"
        quick.append(time.perf_counter() - start)
        conn.close()
        print(
            f"  run {run}: Store.open and its checks {opened[-1]:.3f} s (quick_check alone"
            f" {quick[-1]:.3f} s), require_sound {full[-1]:.3f} s"
        )
    print(
        f"median: Store.open {statistics.median(opened):.3f} s, quick_check alone"
        f" {statistics.median(quick):.3f} s, require_sound {statistics.median(full):.3f} s"
    )
    print(f"load average after: {loadavg()}")
    if args.keep is None:
        shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
