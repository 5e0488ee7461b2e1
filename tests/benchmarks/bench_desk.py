"""Benchmark of the desk on a fresh, a fully reviewed and a merged project, at any size (default
BAGEL's 11,852 items and 200,000, issues 11 and 27).

Run: .venv/bin/python tests/benchmarks/bench_desk.py [COUNT ...] [--states fresh reviewed merged]
     [--runs 3] [--keep DIR]
For each COUNT it builds, from ``bagel_scale.py`` items: the freshly imported project (import and
all checks); the same with every item decided by the desk's curator (accepted, a blocked one
rejected): where a curator is at the end of a pass; and a merged one: three curators (ana, ben,
cleo) each decided every item in their own copy (ben rejects one item in twenty, cleo marks one
in fifty uncertain), ben's and cleo's files merged into ana's, which the desk opens as ana. Each
state's desk then runs RUNS times (default 3), each in a fresh process (offscreen) on its own
copy of the project, and the table gives the median of the runs' medians: cold start to the
first item (target < 2 s, with the process's CPU, and when the check of the project's pages
ended, which the desk runs from then on: the samples but the first start after it), the filter
bar's choices, a filter change (< 50 ms), a search (< 60 ms: its rows on screen; and until its count
arrived), next item (< 30 ms), decision -> next item on screen (includes the committed write),
the listening panel built while idle, the next Xeno-canto item, and peak RSS (< 400 MB); with
the main-thread CPU of the timed samples (a loaded machine stretches wall time, not that) and the
load average before and after each state. --keep DIR keeps the built projects there and reuses
them in later runs. BENCH_DESK_SOURCE=TREE measures the desk of another source tree (an older
commit, for a baseline).
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
# In the order the desk's entry point imports them: the desk (with the core) before PySide6.
from bagel_studio.ui.app import DeskApp
from PySide6.QtCore import QCoreApplication, QEventLoop
from bagel_studio.core.prefs import Preferences
from bagel_studio.core.store import QueueFilter

shown = []
app = DeskApp(Preferences(curator=sys.argv[2]))
app.open(__import__("pathlib").Path(sys.argv[1]))
window = app.window
window.controller.item_shown.connect(lambda item_id: shown.append((time.perf_counter(), item_id)))
QCoreApplication.processEvents()
first = time.time() - t0
first_cpu = time.process_time()  # this process's CPU from its start (interpreter included)

def pump_until(predicate, limit=10.0):
    end = time.perf_counter() + limit
    while not predicate() and time.perf_counter() < end:
        QCoreApplication.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 5)

def timed(action):
    # wall and main-thread CPU (ms) of an action and the events it leaves behind
    start, cpu = time.perf_counter(), time.thread_time()
    action()
    QCoreApplication.processEvents()
    return (time.perf_counter() - start) * 1000, (time.thread_time() - cpu) * 1000

def sample(actions, count):
    walls, cpus = [], []
    for n in range(count):
        wall, cpu = timed(actions[n % len(actions)])
        walls.append(wall)
        cpus.append(cpu)
    return walls, cpus

# The filter bar's choices (domains, dimensions, levels, curators), read at every desk start.
choices_ms, choices_cpu = sample([window.queue.filters.refresh_choices], 7)

# A desk that checks the project's pages once the first item is shown (on its writer thread):
# the samples below start once it has, for what the desk does from then on (events are not
# processed meanwhile: the listening panel's warm-up waits as in a desk that checks on open).
while not getattr(window.store, "pages_checked", True):
    time.sleep(0.005)
checked = time.time() - t0 - first
QCoreApplication.processEvents()  # what waited meanwhile (the verdict), not in the samples

# Each filter moves the queue, and the item on screen when it is not in the new queue: the
# first item there this curator has not decided (or the first one).
filters = [QueueFilter(domain="GloBI"), QueueFilter(status="unreviewed", domain="Xeno-canto"),
           QueueFilter(level="hard", domain="Wikipedia"), QueueFilter(domain="bioRxiv"),
           QueueFilter()]
filter_ms, filter_cpu = sample([lambda f=f: window.set_filter(f) for f in filters], 25)
# A search, as Enter in the search field sets it (whole words; a prefix; two words): its rows
# on screen, then (not timed in the sample) until its count has arrived from the thread that
# counts it (a desk that counts on the main thread has it with the rows).
searches = [QueueFilter(search=text) for text in ("forest", "dawn chorus", "migr*", "nest",
                                                  "predator prey")]
search_ms, search_cpu, counted_ms = [], [], []
for n in range(25):
    start = time.perf_counter()
    wall, cpu = timed(lambda: window.set_filter(searches[n % len(searches)]))
    pump_until(lambda: not getattr(window.queue_model, "counting", False))
    search_ms.append(wall)
    search_cpu.append(cpu)
    counted_ms.append((time.perf_counter() - start) * 1000)

window.set_filter(QueueFilter())
QCoreApplication.processEvents()
next_ms, next_cpu = sample([lambda: window.controller.step(1)], 60)

decide_ms = []
from bagel_studio.core.model import Decision
for _ in range(40):
    before = len(shown)
    start = time.perf_counter()
    window.controller.decide(Decision.ACCEPT)
    pump_until(lambda: len(shown) > before)
    decide_ms.append((shown[-1][0] - start) * 1000)

# The listening panel is built a step at a time while the desk is idle: none of the samples
# above waited on it (it had not started). Now leave the desk idle until it is built.
# (An older desk without the warm-up, measured for a baseline, reports zeros here.)
warmup = getattr(window.evidence, "warmup", None)
idle_start = time.perf_counter()
pump_until(lambda: window.evidence.listening is not None, limit=60.0)
listening = {
    "built_s": time.perf_counter() - idle_start,
    "steps": getattr(warmup, "steps_run", 0),
    "longest_ms": getattr(warmup, "longest_step_ms", 0.0),
    "longest_cpu_ms": getattr(warmup, "longest_step_cpu_ms", 0.0),
}

# Xeno-canto items with the panel built: the item, its card and the panel's start on screen
# (the clip is decoded and its spectrogram computed on workers, then drawn).
window.set_filter(QueueFilter(domain="Xeno-canto"))
QCoreApplication.processEvents()
clip_ms, clip_cpu = sample([lambda: window.controller.step(1)], 30)

# VmHWM, not ru_maxrss: that one includes the peak of the benchmark that started this process
from tests.benchmarks.peak_memory import own_peak_mb
rss = own_peak_mb()
app.close_project()
print(json.dumps({"first_item_s": first, "first_cpu_s": first_cpu, "checked_s": checked,
                  "choices_ms": choices_ms,
                  "choices_cpu": choices_cpu, "filter_ms": filter_ms,
                  "filter_cpu": filter_cpu, "search_ms": search_ms, "search_cpu": search_cpu,
                  "counted_ms": counted_ms,
                  "next_ms": next_ms, "next_cpu": next_cpu,
                  "decide_ms": decide_ms, "listening": listening, "clip_ms": clip_ms,
                  "clip_cpu": clip_cpu, "rss_mb": rss}))
"""

STATES = ("fresh", "reviewed", "merged")
CURATOR = {"fresh": "bench", "reviewed": "bench", "merged": "ana"}  # who opens the desk
BEFORE = {  # issue 27: the same operations as a curator found them (ms)
    "fresh": {"next": "10-14", "filter": "21-42", "search": "21-38"},
    "reviewed": {"next": "67-88", "filter": "86-102", "search": "88-150"},
}
TARGETS = {"first": "< 2 s", "filter": "< 50", "search": "< 60", "next": "< 30", "rss": "< 400"}


def build_fresh(folder: Path, count: int) -> Path:
    from bagel_studio.core.importers import import_paths
    from bagel_studio.core.store import Store
    from tests.benchmarks.bagel_scale import write_scale_items

    items = write_scale_items(count, folder / "items.jsonl")
    project = folder / f"fresh-{count}.bagel"
    with Store.open(project) as store:
        import_paths(store, [items])
        store.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    items.unlink()
    return project


def decide_all(path: Path, curator: str, every: dict[int, Any] | None = None) -> None:
    """``curator`` decides every item of ``path``: accepted (rejected when blocked), but every
    ``n``-th item of ``every`` ({n: Decision}) gets that decision instead."""
    from bagel_studio.core.model import Decision
    from bagel_studio.core.operations.decisions import decide_many
    from bagel_studio.core.store import Store

    with Store.open(path, owner=curator) as store:
        blocked = {
            str(row[0])
            for row in store.db.execute("SELECT item_id FROM flags WHERE severity = 'blocking'")
        }
        ids = [str(row[0]) for row in store.db.execute("SELECT id FROM items ORDER BY seq")]
        chosen: dict[Any, list[str]] = {}
        for number, item_id in enumerate(ids):
            decision = next((d for n, d in (every or {}).items() if number % n == 0), None)
            if item_id in blocked and decision in (None, Decision.ACCEPT):
                decision = Decision.REJECT
            chosen.setdefault(decision or Decision.ACCEPT, []).append(item_id)
        for decision, decided in chosen.items():
            reason = "other" if decision is Decision.REJECT else None
            decide_many(store, decided, curator, decision, reason=reason)
        store.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")


def build_state(folder: Path, count: int, state: str, fresh: Path) -> Path:
    from bagel_studio.core.model import Decision

    project = folder / f"{state}-{count}.bagel"
    if state == "fresh":
        return fresh
    if state == "reviewed":
        shutil.copy(fresh, project)
        decide_all(project, CURATOR[state])
        return project
    from bagel_studio.core.merge import merge_projects
    from bagel_studio.core.store import Store

    others = []
    for curator, every in (("ben", {20: Decision.REJECT}), ("cleo", {50: Decision.UNCERTAIN})):
        other = folder / f"{curator}-{count}.bagel"
        shutil.copy(fresh, other)
        decide_all(other, curator, every)
        others.append(other)
    shutil.copy(fresh, project)
    decide_all(project, "ana")
    with Store.open(project, owner="ana") as store:
        merge_projects(store, others)
        store.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    for other in others:
        other.unlink()
    return project


def project_for(folder: Path, keep: Path | None, count: int, state: str) -> Path:
    """The project of ``state`` at ``count`` items: kept from an earlier run, or built."""
    if keep is not None and (keep / f"{state}-{count}.bagel").is_file():
        return keep / f"{state}-{count}.bagel"
    where = keep or folder
    where.mkdir(parents=True, exist_ok=True)
    fresh = where / f"fresh-{count}.bagel"
    if not fresh.is_file():
        start = time.perf_counter()
        build_fresh(where, count)
        print(f"built fresh-{count} (import + all checks) in {time.perf_counter() - start:.0f} s")
    if state == "fresh":
        return fresh
    start = time.perf_counter()
    project = build_state(where, count, state, fresh)
    print(f"built {state}-{count} in {time.perf_counter() - start:.0f} s", flush=True)
    return project


def run_desk(project: Path, curator: str, config: Path) -> dict[str, Any]:
    source = os.environ.get("BENCH_DESK_SOURCE", str(ROOT))  # another tree: for a baseline
    env = dict(
        os.environ,
        QT_QPA_PLATFORM="offscreen",
        BAGEL_STUDIO_CONFIG_DIR=str(config),
        PYTHONPATH=source,
    )
    env["BENCH_T0"] = repr(time.time())
    result = subprocess.run(
        [sys.executable, "-c", CHILD, str(project.resolve()), curator],
        env=env,
        cwd=source,  # "python -c" puts the working folder first on the path
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    if result.returncode != 0:
        raise SystemExit(result.stderr)
    data: dict[str, Any] = json.loads(result.stdout.strip().splitlines()[-1])
    return data


def measure(project: Path, curator: str, runs: int, folder: Path) -> list[dict[str, Any]]:
    """``runs`` desks, each in a fresh process on a fresh copy of ``project`` (its decisions
    change it)."""
    source = os.environ.get("BENCH_DESK_SOURCE", str(ROOT))
    # The desk's modules compiled to bytecode first, as pip does when it installs the wheel:
    # with PYTHONDONTWRITEBYTECODE set (or a read-only tree) every start compiled them again,
    # some 0.15 s of the cold start that no installed desk pays.
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", str(Path(source) / "bagel_studio")],
        check=True,
    )
    results = []
    for run in range(runs):
        copy = folder / f"run-{run}.bagel"
        shutil.copy(project, copy)
        results.append(run_desk(copy, curator, folder / "config"))
        copy.unlink()
    return results


def median_of_runs(results: list[dict[str, Any]], key: str) -> float:
    """The median over runs of each run's median (a run's samples are one desk's)."""
    values = [r[key] for r in results]
    if isinstance(values[0], list):
        return statistics.median(statistics.median(v) for v in values)
    return statistics.median(values)


def load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


ROWS = (  # label, key, unit, target key
    ("cold start to first item", "first_item_s", "s", "first"),
    ("  CPU of the process", "first_cpu_s", "s", None),
    ("  pages checked after it", "checked_s", "s", None),
    ("filter bar's choices", "choices_ms", "ms", None),
    ("filter change", "filter_ms", "ms", "filter"),
    ("  main-thread CPU", "filter_cpu", "ms", None),
    ("search", "search_ms", "ms", "search"),
    ("  main-thread CPU", "search_cpu", "ms", None),
    ("  until counted", "counted_ms", "ms", None),
    ("next item", "next_ms", "ms", "next"),
    ("  main-thread CPU", "next_cpu", "ms", None),
    ("accept -> next item shown", "decide_ms", "ms", None),
    ("next Xeno-canto item", "clip_ms", "ms", None),
    ("peak RSS", "rss_mb", "MB", "rss"),
)


def table(columns: dict[str, list[dict[str, Any]]]) -> list[str]:
    names = list(columns)
    width = max(14, *(len(n) for n in names))
    lines = [f"{'(median of runs)':<28}" + "".join(f"{n:>{width}}" for n in names) + "   target"]
    for label, key, unit, target in ROWS:
        cells = "".join(
            f"{median_of_runs(columns[n], key):>{width - 3}.{2 if unit == 's' else 1}f} {unit:<2}"
            for n in names
        )
        lines.append(f"{label:<28}{cells}   {TARGETS.get(target or '', '')}")
    built = "".join(
        f"{median_of_runs([r['listening'] for r in columns[n]], 'built_s'):>{width - 3}.2f} s "
        for n in names
    )
    lines.append(f"{'listening panel built, idle':<28}{built}")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "counts", nargs="*", type=int, default=[11_852, 200_000], help="items (bagel_scale)"
    )
    parser.add_argument("--states", nargs="+", choices=STATES, default=list(STATES))
    parser.add_argument("--runs", type=int, default=3, help="desks per state (fresh processes)")
    parser.add_argument("--keep", type=Path, help="keep the built projects here, and reuse them")
    args = parser.parse_args()
    print(f"load average at the start: {load()}")
    for count in args.counts:
        columns: dict[str, list[dict[str, Any]]] = {}
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp)
            for state in args.states:
                project = project_for(folder, args.keep, count, state)
                before = load()
                columns[state] = measure(project, CURATOR[state], args.runs, folder)
                print(f"{state} {count:,}: load average {before} before, {load()} after")
        print(f"\n{count:,} items, {args.runs} runs each")
        for line in table(columns):
            print(line)
        for state, figures in BEFORE.items():
            if state in columns and count == 200_000:
                described = ", ".join(f"{k} {v} ms" for k, v in figures.items())
                print(f"  issue 27 found on {state} 200,000: {described}")
        print()


if __name__ == "__main__":
    main()
