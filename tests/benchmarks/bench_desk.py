"""Benchmark of the desk at any size (default 11,852 items, BAGEL's; issue 11 asks 200,000 too).

Run: .venv/bin/python tests/benchmarks/bench_desk.py [N] [--keep FILE | --project FILE]
Builds a project of N items from ``bagel_scale.py`` in a temporary folder (or reuses one), then
starts the desk in a fresh process (offscreen) and prints, beside the baseline and the target:
cold start to the first item on screen (target < 2 s), queue filter change (< 50 ms), next item
(< 30 ms), decision -> next item on screen (includes the committed write), peak RSS (< 400 MB).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

CHILD = r"""
import json, os, sys, time
t0 = float(os.environ["BENCH_T0"])
from PySide6.QtCore import QCoreApplication, QEventLoop
from bagel_studio.core.prefs import Preferences
from bagel_studio.core.store import QueueFilter
from bagel_studio.ui.app import DeskApp

shown = []
app = DeskApp(Preferences(curator="bench"))
app.open(__import__("pathlib").Path(sys.argv[1]))
window = app.window
window.controller.item_shown.connect(lambda item_id: shown.append((time.perf_counter(), item_id)))
QCoreApplication.processEvents()
first = time.time() - t0

def pump_until(predicate, limit=10.0):
    end = time.perf_counter() + limit
    while not predicate() and time.perf_counter() < end:
        QCoreApplication.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 5)

filters = [QueueFilter(domain="GloBI"), QueueFilter(status="unreviewed", domain="Xeno-canto"),
           QueueFilter(search="forest"), QueueFilter(level="hard", domain="Wikipedia"),
           QueueFilter()]
filter_ms = []
for n in range(25):
    start = time.perf_counter()
    window.set_filter(filters[n % len(filters)])
    QCoreApplication.processEvents()
    filter_ms.append((time.perf_counter() - start) * 1000)

window.set_filter(QueueFilter())
QCoreApplication.processEvents()
next_ms = []
for _ in range(60):
    start = time.perf_counter()
    window.controller.step(1)
    QCoreApplication.processEvents()
    next_ms.append((time.perf_counter() - start) * 1000)

decide_ms = []
from bagel_studio.core.model import Decision
for _ in range(40):
    before = len(shown)
    start = time.perf_counter()
    window.controller.decide(Decision.ACCEPT)
    pump_until(lambda: len(shown) > before)
    decide_ms.append((shown[-1][0] - start) * 1000)

# VmHWM, not ru_maxrss: that one includes the peak of the benchmark that started this process
from tests.benchmarks.peak_memory import own_peak_mb
rss = own_peak_mb()
app.close_project()
print(json.dumps({"first_item_s": first, "filter_ms": filter_ms, "next_ms": next_ms,
                  "decide_ms": decide_ms, "rss_mb": rss}))
"""


BASELINE = {  # issue 11, measured before the queue paged from SQLite (one run each)
    11_852: {"first": "1.6-2.3 s", "filter": "74 ms", "next": "58 ms"},
    200_000: {"first": "3.1 s", "filter": "342 ms", "next": "61 ms"},
}


def build_project(folder: Path, count: int) -> Path:
    from bagel_studio.core.importers import import_paths
    from bagel_studio.core.store import Store
    from tests.benchmarks.bagel_scale import write_scale_items

    items = write_scale_items(count, folder / "items.jsonl")
    project = folder / "bench.bagel"
    with Store.open(project) as store:
        import_paths(store, [items])
        store.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return project


def summary(values: list[float]) -> str:
    ordered = sorted(values)
    p95 = ordered[int(len(ordered) * 0.95) - 1]
    return f"median {statistics.median(values):6.1f}  p95 {p95:6.1f}  max {max(values):6.1f}"


def run_desk(project: Path, config: Path) -> dict[str, Any]:
    env = dict(
        os.environ,
        QT_QPA_PLATFORM="offscreen",
        BAGEL_STUDIO_CONFIG_DIR=str(config),
        PYTHONPATH=str(ROOT),
    )
    env["BENCH_T0"] = repr(time.time())
    result = subprocess.run(
        [sys.executable, "-c", CHILD, str(project)],
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    if result.returncode != 0:
        raise SystemExit(result.stderr)
    data: dict[str, Any] = json.loads(result.stdout.strip().splitlines()[-1])
    return data


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("count", nargs="?", type=int, default=11_852, help="items (bagel_scale)")
    parser.add_argument("--project", type=Path, help="a project built before (skips the import)")
    parser.add_argument("--keep", type=Path, help="copy the built project here for later runs")
    args = parser.parse_args()
    base = BASELINE.get(args.count, {"first": "?", "filter": "?", "next": "?"})
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        project = args.project
        if project is None:
            start = time.perf_counter()
            project = build_project(folder, args.count)
            print(f"project built (import + all checks)  {time.perf_counter() - start:6.2f} s")
            if args.keep is not None:
                shutil.copy(project, args.keep)
        data = run_desk(project, folder / "config")
    print(f"load average: {Path('/proc/loadavg').read_text().strip()}")
    print(
        f"cold start to first item             {data['first_item_s']:6.2f} s"
        f"   (baseline {base['first']}, target < 2 s)"
    )
    print(
        f"filter change (ms)                   {summary(data['filter_ms'])}"
        f"   (baseline {base['filter']}, target < 50)"
    )
    print(
        f"next item (ms)                       {summary(data['next_ms'])}"
        f"   (baseline {base['next']}, target < 30)"
    )
    print(f"accept -> next item shown (ms)       {summary(data['decide_ms'])}")
    print(f"peak RSS                             {data['rss_mb']:6.1f} MB   (target < 400)")


if __name__ == "__main__":
    main()
