"""Benchmark of issue 2's desk at BAGEL size (11,852 items with evidence).

Run: .venv/bin/python tests/benchmarks/bench_desk.py
Builds a project in a temporary folder, then starts the desk in a fresh process (offscreen) and
prints: cold start to the first item on screen (target < 2 s), queue filter change (< 50 ms),
next item (< 30 ms), decision -> next item on screen (includes the committed write), peak RSS
(< 400 MB).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

CHILD = r"""
import json, os, resource, sys, time
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

rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
app.close_project()
print(json.dumps({"first_item_s": first, "filter_ms": filter_ms, "next_ms": next_ms,
                  "decide_ms": decide_ms, "rss_mb": rss}))
"""


def build_project(folder: Path) -> Path:
    from bagel_studio.core.importers import import_paths
    from bagel_studio.core.store import Store
    from tests.benchmarks.synthetic import write_items

    items, texts, _count = write_items(folder / "input")
    project = folder / "bench.bagel"
    with Store.open(project) as store:
        import_paths(store, [*texts, items])
        store.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return project


def summary(values: list[float]) -> str:
    ordered = sorted(values)
    p95 = ordered[int(len(ordered) * 0.95) - 1]
    return f"median {statistics.median(values):6.1f}  p95 {p95:6.1f}  max {max(values):6.1f}"


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        start = time.perf_counter()
        project = build_project(folder)
        built = time.perf_counter() - start
        env = dict(
            os.environ,
            QT_QPA_PLATFORM="offscreen",
            BENCH_T0=repr(time.time()),
            BAGEL_STUDIO_CONFIG_DIR=str(folder / "config"),
            PYTHONPATH=str(ROOT),
        )
        env["BENCH_T0"] = repr(time.time())
        result = subprocess.run(
            [sys.executable, "-c", CHILD, str(project)],
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        if result.returncode != 0:
            raise SystemExit(result.stderr)
        data = json.loads(result.stdout.strip().splitlines()[-1])
    print(f"project built (import + all checks)  {built:6.2f} s")
    print(f"cold start to first item             {data['first_item_s']:6.2f} s   (target < 2 s)")
    print(f"filter change (ms)                   {summary(data['filter_ms'])}   (target < 50)")
    print(f"next item (ms)                       {summary(data['next_ms'])}   (target < 30)")
    print(f"accept -> next item shown (ms)       {summary(data['decide_ms'])}")
    print(f"peak RSS                             {data['rss_mb']:6.1f} MB   (target < 400)")


if __name__ == "__main__":
    main()
