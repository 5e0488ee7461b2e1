"""Benchmark of issue 11 (speed at scale): import, check, decide and export of N items through
the command line, as a curator runs them, against their floors and targets.

Run: .venv/bin/python tests/benchmarks/bench_scale.py N [--repeat 3] [--items FILE]
The items come from ``bagel_scale.py N`` (the paper's domain x dimension mix) unless FILE is
given. Every figure is the median of REPEAT runs on a fresh copy of the project, printed as wall
time, CPU time (user + system: what an idle machine would take, the machine being shared) and
peak RSS of the command's process, beside the baseline measured before issue 11 and the target.
The load average is printed before and after, and after the figures whether two processes at
once run as fast as one right now (``machine.parallel_check``).

Rows: import (the whole command, with every check; its loading part from the report against two
floors, see below), check (on one process per CPU, as the command runs by default, and on one
process: check/1), decide through ``--ids-from`` of every id without a blocking flag (one blocked
id refuses them all), export against a plain JSONL write of the released rows
(``plain_jsonl``), as a command like the export itself and in this process.

The import's floors, each timed in this process (wall and CPU), median of REPEAT:
* narrow floor: json.loads of every line and one executemany of seven of its fields (id, domain,
  dimension, level, question, options, answer) into a bare table with a primary key: the floor
  issue 11 was stated against. It stores less than the project needs: no canonical content, no
  source, no status or flag summary, none of the queue's indexes, no search index.
* same-rows floor: json.loads of every line, then the very rows the import stored for these
  items (read back from an imported project beforehand, not timed) written by one executemany
  into a new project's items table with all its indexes, the search index filled from them by
  one statement, and the commit. What any import of these items into this schema must do; the
  import's work beyond it is turning records into items (validation, normalisation, canonical
  JSON, ids), their structural checks, the duplicate and contradiction bookkeeping and the
  pending-checks rows.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.benchmarks.bagel_scale import write_scale_items  # noqa: E402
from tests.benchmarks.machine import parallel_check  # noqa: E402
from tests.benchmarks.peak_memory import (  # noqa: E402
    adopt_orphans,
    module_command,
    read_peak_mb,
    reap_orphans,
)
from tests.benchmarks.plain_jsonl import jsonl_floor, jsonl_floor_command  # noqa: E402

BASELINES = {  # issue 11, one run each on this machine before the work
    11_852: {"import": "7.4 s", "check": "7.0 s", "export": "2.7 s", "decide": "~2 min"},
    200_000: {
        "import": "115 s, 787 MB",
        "check": "~120 s, 739 MB",
        "export": "37.7 s, 1.16 GB",
        "decide": "33 min",
    },
}
RSS_TARGET_MB = 400


@dataclass
class Run:
    wall: float
    cpu: float
    rss_mb: float
    stdout: str
    status: int = 0


def command(args: list[str], stdin: Path | None = None) -> Run:
    """Run ``bagel-studio ARGS`` in a fresh interpreter; its wall, CPU time and peak RSS (its
    own VmHWM: wait4's ru_maxrss would include this process's peak, see peak_memory), with the
    CPU of the worker processes it leaves to end with it and the largest of their peaks."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    with (
        tempfile.TemporaryFile("w+", encoding="utf-8") as out,
        open(stdin or os.devnull) as feed,
        tempfile.TemporaryDirectory() as scratch,
    ):
        peak_file = Path(scratch) / "peak"
        start = time.perf_counter()
        process = subprocess.Popen(
            module_command("bagel_studio", args, peak_file),
            env=env,
            stdin=feed,
            stdout=out,
            stderr=subprocess.DEVNULL,
        )
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - start
        process.returncode = os.waitstatus_to_exitcode(status)
        # worker processes the command left to end with it: their CPU counts, and their peak
        workers_cpu, workers_peak = reap_orphans()
        out.seek(0)
        text = out.read()
        rss_mb = max(read_peak_mb(peak_file), workers_peak)
    cpu = usage.ru_utime + usage.ru_stime + workers_cpu
    return Run(wall, cpu, rss_mb, text, process.returncode)


def load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def raw_floor(items: Path, folder: Path) -> tuple[float, float]:
    """(wall, CPU) of the narrow floor (see the module's docstring)."""
    db = folder / "floor.db"
    db.unlink(missing_ok=True)
    start, cpu = time.perf_counter(), time.process_time()
    rows = []
    with items.open(encoding="utf-8") as handle:
        for line in handle:
            d = json.loads(line)
            rows.append(
                (
                    d["id"],
                    d["domain"],
                    d["dimension"],
                    d["level"],
                    d["question"],
                    json.dumps(d["options"]),
                    d["answer"],
                )
            )
    conn = sqlite3.connect(db)
    conn.execute(
        "CREATE TABLE items (id TEXT PRIMARY KEY, domain TEXT, dimension TEXT, level TEXT,"
        " question TEXT, options TEXT, answer TEXT)"
    )
    with conn:
        conn.executemany("INSERT INTO items VALUES (?,?,?,?,?,?,?)", rows)
    conn.close()
    return time.perf_counter() - start, time.process_time() - cpu


def same_rows_floor(items: Path, imported: Path, folder: Path) -> tuple[float, float]:
    """(wall, CPU) of the same-rows floor (see the module's docstring)."""
    from bagel_studio.core.store import Store

    source = sqlite3.connect(f"file:{imported}?mode=ro", uri=True)
    columns = [row[1] for row in source.execute("PRAGMA table_info(items)")]
    rows = source.execute(f"SELECT {','.join(columns)} FROM items ORDER BY seq").fetchall()
    source.close()
    target = folder / "floor.bagel"
    for leftover in (target, Path(f"{target}-wal"), Path(f"{target}-shm")):
        leftover.unlink(missing_ok=True)
    Store.open(target).close()  # the project's schema, made before the clock starts
    conn = sqlite3.connect(target, isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = FULL")
    conn.execute("DROP TRIGGER items_fts_insert")  # filled by one statement below instead
    start, cpu = time.perf_counter(), time.process_time()
    with items.open(encoding="utf-8") as handle:
        parsed = [json.loads(line) for line in handle]
    conn.execute("BEGIN IMMEDIATE")
    marks = ",".join("?" * len(columns))
    conn.executemany(f"INSERT INTO items ({','.join(columns)}) VALUES ({marks})", rows)
    conn.execute(
        "INSERT INTO items_fts (rowid, id, question, options)"
        " SELECT seq, id, question, options FROM items"
    )
    conn.execute("COMMIT")
    took = time.perf_counter() - start, time.process_time() - cpu
    conn.close()
    assert len(parsed) >= len(rows)
    return took


def compiled() -> None:
    """The project's modules compiled to bytecode first, as a first run leaves them: with
    PYTHONDONTWRITEBYTECODE set (as in some environments) every run compiled them again, some
    0.08 s of an export that no installed tool pays (``bench_desk`` does the same)."""
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", str(ROOT / "bagel_studio")], check=True
    )


def median_run(runs: list[Run]) -> Run:
    ordered = sorted(runs, key=lambda r: r.wall)
    middle = ordered[len(ordered) // 2]
    return Run(
        middle.wall,
        statistics.median(r.cpu for r in runs),
        max(r.rss_mb for r in runs),
        middle.stdout,
        max(r.status for r in runs),
    )


def line(name: str, run: Run, baseline: str, target: str) -> None:
    print(
        f"{name:<8} wall {run.wall:7.2f} s  cpu {run.cpu:7.2f} s  rss {run.rss_mb:6.0f} MB"
        f"   baseline {baseline:<16} target {target}"
        + (f"  (exit status {run.status})" if run.status else "")
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("count", type=int, help="number of items")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--items", type=Path, help="an item file instead of bagel_scale's")
    args = parser.parse_args()
    compiled()
    adopt_orphans()
    baseline = BASELINES.get(args.count, {})
    print(f"{args.count:,} items, median of {args.repeat}; load average {load()}")
    print(parallel_check())
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        items = args.items or write_scale_items(args.count, folder / "items.jsonl")
        narrow = [raw_floor(items, folder) for _ in range(args.repeat)]
        floor = statistics.median(n[0] for n in narrow)
        floor_cpu = statistics.median(n[1] for n in narrow)
        imports, loading, loading_cpu = [], [], []
        for n in range(args.repeat):
            project = folder / f"import{n}.bagel"
            imports.append(command(["import", str(project), str(items), "--json"]))
            timings = json.loads(imports[-1].stdout)["timings"]
            loading.append(timings["import"])
            loading_cpu.append(timings.get("import_cpu", float("nan")))
        project = folder / "import0.bagel"
        imported = median_run(imports)
        load_s = statistics.median(loading)
        load_cpu = statistics.median(loading_cpu)
        same = [same_rows_floor(items, project, folder) for _ in range(args.repeat)]
        same_wall = statistics.median(s[0] for s in same)
        same_cpu = statistics.median(s[1] for s in same)
        print(
            f"narrow floor (json.loads + executemany of 7 fields) {floor:.2f} s,"
            f" cpu {floor_cpu:.2f} s"
        )
        print(
            f"same-rows floor (json.loads + the stored rows, indexes, search index)"
            f" {same_wall:.2f} s, cpu {same_cpu:.2f} s"
        )
        line("import", imported, baseline.get("import", "?"), f"< {RSS_TARGET_MB} MB")
        print(
            f"         loading {load_s:.2f} s, cpu {load_cpu:.2f} s = {load_s / floor:.1f}x"
            f" (cpu {load_cpu / floor_cpu:.1f}x) the narrow floor, {load_s / same_wall:.1f}x"
            f" (cpu {load_cpu / same_cpu:.1f}x) the"
            " same-rows floor (target <= 3x); the rest of the wall time is start-up and the checks"
        )
        target = "< 1.5 s" if args.count <= 11_852 else "< 25 s"
        # As the command runs by default (one process per CPU), then on one process.
        for name, extra in (("check", []), ("check/1", ["--workers", "1"])):
            checks = []
            for _ in range(args.repeat):
                copy = folder / "check.bagel"
                shutil.copy(project, copy)
                checks.append(command(["check", str(copy), *extra]))
            line(name, median_run(checks), baseline.get("check", "?"), target)
        ids = folder / "ids.txt"
        ids.write_text(
            "".join(
                f"{r[0]}\n"
                for r in sqlite3.connect(project).execute(
                    "SELECT id FROM items WHERE id NOT IN"
                    " (SELECT item_id FROM flags WHERE severity = 'blocking') ORDER BY seq"
                )
            ),
            encoding="utf-8",
        )
        decides = []
        for n in range(args.repeat):
            copy = folder / f"decide{n}.bagel"
            shutil.copy(project, copy)
            decides.append(
                command(
                    ["decide", str(copy), "--ids-from", "-", "--curator", "bench", "--accept"], ids
                )
            )
        line("decide", median_run(decides), baseline.get("decide", "?"), "< 20 s, all or nothing")
        decided = folder / "decide0.bagel"
        plains: list[float] = []
        plain_commands: list[float] = []
        exports: list[Run] = []
        for n in range(args.repeat):  # each export right after its own floors (bench_export)
            plains.append(jsonl_floor(decided, folder / f"plain{n}.jsonl"))
            plain_commands.append(jsonl_floor_command(decided, folder / f"plain{n}c.jsonl"))
            exports.append(
                command(["export", str(decided), str(folder / f"release{n}"), "--seed", "1"])
            )
        plain = statistics.median(plains)
        plain_command = statistics.median(plain_commands)
        ratio = statistics.median(e.wall / p for e, p in zip(exports, plains, strict=True))
        ratio_command = statistics.median(
            e.wall / p for e, p in zip(exports, plain_commands, strict=True)
        )
        exported = median_run(exports)
        print(
            f"plain JSONL write of the released rows (plain_jsonl.py): {plain_command:.2f} s as"
            f" a command, {plain:.2f} s in this process (medians)"
        )
        line(
            "export",
            exported,
            baseline.get("export", "?"),
            f"<= 5x plain ({ratio_command:.1f}x the write as a command, {ratio:.1f}x the write in"
            " this process: the medians of each run's ratios to the floors measured right before"
            f" it), < {RSS_TARGET_MB} MB",
        )
    print(f"load average after: {load()}")
    print(parallel_check())


if __name__ == "__main__":
    main()
