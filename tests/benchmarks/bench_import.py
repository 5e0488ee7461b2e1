"""Benchmark of issue 2's import: 11,852 items against plain json.loads + executemany.

Run: .venv/bin/python tests/benchmarks/bench_import.py
Prints the import time (items with their structural, blocking flags: what ``import_paths(...,
full_checks=False)`` commits), the baseline, their ratio (target: within 3x), the input it read
(each file once: its size), the re-import of the unchanged file (its time, and the input read:
none, its stat being the one noted at the import), then the full checks of the imported items
on their own (``run_full_checks``, what the CLI runs next and the desk runs on its worker) and
the peak memory of the process that imports (a fresh one, without the set-up).

Run: .venv/bin/python tests/benchmarks/bench_import.py --malformed N
Imports a JSON Lines file of N malformed lines (each a truncated item of about 4 KB) and prints
the import's time and its own peak memory against the target (the rejects are written to the
project as they come; memory keeps their count and the first few the summary lists, so it must
not grow with N: under 400 MB at 200,000) and the figure before.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.benchmarks.peak_memory import own_peak_mb
from tests.benchmarks.synthetic import write_items

SETTLE_S = 2.5  # older than importers.reading.SETTLED_NS, so a re-import may trust its stat
# Before each file was read once (median of 3, load average about 11): the import read the file
# twice (hashed, then parsed), the re-import hashed it whole.
BEFORE = {"read": "12.6 MB (twice)", "again": "cpu 24.0 ms, 6.3 MB read"}


def baseline(items_path: Path, db_path: Path) -> tuple[float, float]:
    """The narrow floor, (wall, CPU): parse every line and insert eight of its fields into a
    bare table, nothing else (bench_scale.py also has a floor of the rows the import stores)."""
    start, cpu = time.perf_counter(), time.process_time()
    rows = []
    with items_path.open(encoding="utf-8") as handle:
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
                    json.dumps(d["source"]),
                )
            )
    conn = sqlite3.connect(db_path)
    conn.execute(
        "CREATE TABLE items (id TEXT PRIMARY KEY, domain TEXT, dimension TEXT,"
        " level TEXT, question TEXT, options TEXT, answer TEXT, source TEXT)"
    )
    with conn:
        conn.executemany("INSERT INTO items VALUES (?,?,?,?,?,?,?,?)", rows)
    conn.close()
    return time.perf_counter() - start, time.process_time() - cpu


def measure(folder: Path, items_path: Path, texts: list[Path]) -> dict[str, float | int]:
    """The measured part, run in a fresh process (``--measure``): the imports and the checks,
    and that process's own peak memory (not the set-up's: see peak_memory)."""
    from bagel_studio.core.importers import import_paths, run_full_checks
    from bagel_studio.core.store import Store

    with Store.open(folder / "texts.bagel") as store:
        import_paths(store, texts)  # evidence, timed separately below
    start, cpu = time.perf_counter(), time.process_time()
    with Store.open(folder / "bench.bagel") as store:
        report = import_paths(store, [items_path], full_checks=False)
        added = sum(report.added_by_domain.values())
    took, took_cpu = time.perf_counter() - start, time.process_time() - cpu
    start, cpu = time.perf_counter(), time.process_time()
    with Store.open(folder / "bench.bagel") as store:
        again = import_paths(store, [items_path], full_checks=False)
    again_took, again_cpu = time.perf_counter() - start, time.process_time() - cpu
    with Store.open(folder / "bench.bagel") as store:
        flags = run_full_checks(store, report)
    checks = report.timings["checks"]
    start = time.perf_counter()
    with Store.open(folder / "bench.bagel") as store:
        import_paths(store, texts)
    evidence = time.perf_counter() - start
    return {
        "added": added,
        "took": took,
        "took_cpu": took_cpu,
        "read": getattr(report, "bytes_read", None),  # None: a version that did not count
        "again": again_took,
        "again_cpu": again_cpu,
        "again_read": getattr(again, "bytes_read", None),
        "size": items_path.stat().st_size,
        "flags": flags,
        "checks": checks,
        "evidence": evidence,
        "peak_mb": own_peak_mb(),
    }


MALFORMED_TARGET_MB = 400  # at 200,000 lines (any N: it must not grow with N)
MALFORMED_LINE_CHARS = 4000
# Before the rejects were written as they came (every one kept in the import's report, and in
# the parser's batch until the end of the file): median of 3, load average about 0.8.
MALFORMED_BEFORE = {200_000: "922 MB, the import 10.2 s, cpu 9.5 s"}


def write_malformed(path: Path, count: int) -> int:
    """One good item, then ``count`` lines of a truncated item (its options cut off) of about
    4 KB each."""
    from tests.support.items import good

    filler = "x" * MALFORMED_LINE_CHARS
    with path.open("w", encoding="utf-8") as handle:
        handle.write(json.dumps(good("good:0")) + "\n")
        for n in range(count):
            handle.write(f'{{"id": "bad:{n}", "question": "{filler}", "options": ["A", "B"\n')
    return path.stat().st_size


def measure_malformed(folder: Path, path: Path) -> dict[str, float | int]:
    """The measured part of ``--malformed``, in a fresh process: the import and its peak."""
    from bagel_studio.core.importers import import_paths
    from bagel_studio.core.store import Store

    start, cpu = time.perf_counter(), time.process_time()
    with Store.open(folder / "malformed.bagel") as store:
        report = import_paths(store, [path], full_checks=False)
        stored = store.imports.reject_count()
    took, took_cpu = time.perf_counter() - start, time.process_time() - cpu
    counted = getattr(report, "reject_count", None)
    return {
        "rejected": counted if counted is not None else len(report.rejects),
        "stored": stored,
        "summary": len(report.summary_lines()),
        "took": took,
        "took_cpu": took_cpu,
        "peak_mb": own_peak_mb(),
    }


def malformed(count: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        path = folder / "malformed.jsonl"
        size = write_malformed(path, count)
        child = [sys.executable, __file__, "--measure-malformed", str(folder), str(path)]
        done = subprocess.run(child, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise SystemExit(done.stderr)
        result = json.loads(done.stdout.strip().splitlines()[-1])
    print(f"malformed lines            {count:,} ({size / 1e6:.0f} MB)")
    print(f"load average               {' '.join(Path('/proc/loadavg').read_text().split()[:3])}")
    print(f"rejects reported / stored  {result['rejected']:,} / {result['stored']:,}")
    print(f"summary lines              {result['summary']}")
    print(f"import                     {result['took']:8.1f} s    cpu {result['took_cpu']:8.1f} s")
    before = MALFORMED_BEFORE.get(count, "not measured at this N")
    print(
        f"peak RSS (the import's own) {result['peak_mb']:7.1f} MB   (target < "
        f"{MALFORMED_TARGET_MB} MB at 200,000; before: {before})"
    )


def main() -> None:
    if sys.argv[1:2] == ["--measure-malformed"]:
        print(json.dumps(measure_malformed(Path(sys.argv[2]), Path(sys.argv[3]))))
        return
    if sys.argv[1:2] == ["--measure"]:
        folder, items_path, *texts = map(Path, sys.argv[2:])
        print(json.dumps(measure(folder, items_path, texts)))
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--malformed",
        type=int,
        nargs="?",
        const=200_000,
        metavar="LINES",
        help="instead: the import of a file of LINES malformed lines (default 200,000)",
    )
    args = parser.parse_args()
    if args.malformed is not None:
        malformed(args.malformed)
        return
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        items_path, texts, count = write_items(folder / "input")
        time.sleep(SETTLE_S)  # as a curator's files are: written a while before the import
        base, base_cpu = min(baseline(items_path, folder / f"baseline{n}.db") for n in range(3))
        child = [sys.executable, __file__, "--measure", str(folder), str(items_path)]
        done = subprocess.run(
            child + [str(p) for p in texts], capture_output=True, text=True, check=False
        )
        if done.returncode != 0:
            raise SystemExit(done.stderr)
        result = json.loads(done.stdout.strip().splitlines()[-1])
    took, took_cpu = result["took"], result["took_cpu"]
    print(f"items generated            {count}")
    print(f"items imported             {result['added']}")
    print(f"load average               {' '.join(Path('/proc/loadavg').read_text().split()[:3])}")
    print(f"baseline json+executemany  {base * 1000:8.1f} ms   cpu {base_cpu * 1000:8.1f} ms")
    print(
        f"import (structural checks) {took * 1000:8.1f} ms   cpu {took_cpu * 1000:8.1f} ms"
        f"   ratio {took / base:5.2f}x, cpu {took_cpu / base_cpu:5.2f}x (target <= 3x)"
    )
    size_mb = result["size"] / 1e6

    def read(key: str) -> str:
        value = result.get(key)
        return "n/a" if value is None else f"{value / 1e6:.1f} MB"

    print(
        f"  input read                 {read('read')} of the file's {size_mb:.1f} MB"
        f"   (before: {BEFORE['read']})"
    )
    print(
        f"re-import of the same file {result['again'] * 1000:8.1f} ms   cpu"
        f" {result['again_cpu'] * 1000:8.1f} ms   input read {read('again_read')}"
        f"   (before: {BEFORE['again']})"
    )
    print(
        f"full checks of the items   {result['checks'] * 1000:8.1f} ms   ({result['flags']} flags)"
    )
    print(f"import of 200 texts        {result['evidence'] * 1000:8.1f} ms")
    print(f"peak RSS (the import's own) {result['peak_mb']:7.1f} MB")


if __name__ == "__main__":
    main()
