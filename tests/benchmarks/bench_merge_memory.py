"""Benchmark of merging a million decisions (issue 28): peak memory of ``bagel-studio merge``.

Run: .venv/bin/python tests/benchmarks/bench_merge_memory.py [--items 200000] [--curators 5]
     [--repeat 3] [--keep DIR] [--source CHECKOUT]

Builds a project of ITEMS items (``bagel_scale.py``'s mix, written through the store) and a
copy of it in which each of CURATORS curators has decided every item (ITEMS x CURATORS
decisions: a million by default, as ``decide`` records them, one transaction per curator), then
merges the copy into a fresh copy of the project with the command line, REPEAT times, each in a
fresh interpreter that reports its own peak resident memory (``peak_memory``: VmHWM, the merge's
alone). Printed: each run's wall time and peak, the medians, the load average before and after,
against the target (under 400 MB). ``--source CHECKOUT`` runs another checkout's code (its
``bagel_studio`` first on the path) over the same files, for a before-and-after.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.benchmarks.bagel_scale import write_scale_items  # noqa: E402
from tests.benchmarks.peak_memory import module_command, read_peak_mb  # noqa: E402

TARGET_MB = 400
NAMES = ("alice", "bob", "carol", "dave", "eve", "frank", "grace", "heidi", "ivan", "judy")


def loadavg() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def build(folder: Path, items: int, curators: int) -> tuple[Path, Path]:
    """The project and the curators' copy with every item decided by each of them."""
    import json

    from bagel_studio.core.model import Decision, ItemContent
    from bagel_studio.core.operations.decisions import decide_many
    from bagel_studio.core.store import NewItem, Store

    project = folder / "project.bagel"
    source = write_scale_items(items, folder / "items.jsonl")
    with Store.open(project) as store:
        batch: list[NewItem] = []
        with open(source, encoding="utf-8") as lines:
            for line in lines:
                raw = json.loads(line)
                content = ItemContent(
                    raw["question"],
                    tuple(raw["options"]),
                    "ABCD".index(raw["answer"]),
                    raw["dimension"],
                    raw["level"],
                )
                batch.append(NewItem(raw["id"], raw["domain"], content))
                if len(batch) == 20_000:
                    store.items.add_items(batch, None)
                    batch = []
        store.items.add_items(batch, None)
        store.checkpoint()
    copy = folder / "curators.bagel"
    shutil.copyfile(project, copy)
    with Store.open(copy) as store:
        ids = store.items.ids()
        for n, curator in enumerate(NAMES[:curators]):
            start = time.perf_counter()
            if n % 2:
                decide_many(store, ids, curator, Decision.REJECT, reason="trivial")
            else:
                decide_many(store, ids, curator, Decision.ACCEPT)
            print(f"  {curator} decided {len(ids):,} items in {time.perf_counter() - start:.1f} s")
        store.checkpoint()
    return project, copy


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, default=200_000, help="items (200000)")
    parser.add_argument("--curators", type=int, default=5, help="curators deciding each (5)")
    parser.add_argument("--repeat", type=int, default=3, help="runs (3; medians printed)")
    parser.add_argument("--keep", type=Path, help="build the files in DIR and keep them")
    parser.add_argument("--source", type=Path, help="run this checkout's bagel_studio instead")
    args = parser.parse_args()

    folder = args.keep or Path(tempfile.mkdtemp(prefix="bench-merge-"))
    folder.mkdir(parents=True, exist_ok=True)
    project, copy = folder / "project.bagel", folder / "curators.bagel"
    if not (project.exists() and copy.exists()):
        print(f"building {args.items:,} items decided by {args.curators} curators in {folder}")
        project, copy = build(folder, args.items, args.curators)
    decisions = args.items * args.curators
    code = args.source or ROOT
    print(
        f"bench_merge_memory: {decisions:,} decisions ({args.items:,} items x {args.curators}"
        f" curators) merged by {code}; load average before: {loadavg()}"
    )
    peaks: list[float] = []
    walls: list[float] = []
    for run in range(1, args.repeat + 1):
        target = folder / "merge-into.bagel"
        for suffix in ("", "-wal", "-shm", ".lock"):
            Path(f"{target}{suffix}").unlink(missing_ok=True)
        shutil.copyfile(project, target)
        peak_file = folder / "peak.txt"
        peak_file.unlink(missing_ok=True)
        env = dict(os.environ, PYTHONPATH=str(code))
        start = time.perf_counter()
        done = subprocess.run(
            module_command("bagel_studio", ["merge", str(target), str(copy)], peak_file),
            env=env,
            capture_output=True,
            text=True,
        )
        walls.append(time.perf_counter() - start)
        peaks.append(read_peak_mb(peak_file))
        last = (done.stdout.strip().splitlines() or [done.stderr.strip()])[0][:160]
        print(
            f"  run {run}: {walls[-1]:.1f} s, peak {peaks[-1]:.0f} MB (exit {done.returncode}:"
            f" {last})"
        )
    peak = statistics.median(peaks)
    print(
        f"median: {statistics.median(walls):.1f} s, peak {peak:.0f} MB (target: under"
        f" {TARGET_MB} MB: {'met' if peak < TARGET_MB else 'MISSED'})"
    )
    print(f"load average after: {loadavg()}")
    if args.keep is None:
        shutil.rmtree(folder, ignore_errors=True)
    return 0 if peak < TARGET_MB else 1


if __name__ == "__main__":
    sys.exit(main())
