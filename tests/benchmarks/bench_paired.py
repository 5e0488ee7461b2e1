"""Before and after on a shared machine: the import, check and export commands of N items run by
two source trees in turn, each with its own Python, so that both see the same moments of load.

Run: .venv/bin/python tests/benchmarks/bench_paired.py N BEFORE_TREE BEFORE_PYTHON
        [--after-tree TREE --after-python PYTHON] [--repeat 3] [--items FILE]
        [--steps import,check,export]
The after tree is this one (its .venv) unless given. The items come from ``bagel_scale.py N``
unless FILE is given (both trees import the same file). Every command runs once in each tree in
turn, the trees' order turning run by run (before, after; after, before; ...), and is timed as
``bench_scale.command`` times it (a fresh interpreter: wall, CPU of the command and of any worker
process it started, its own peak RSS). Each tree's first import makes the project its exports
and checks (on a copy) read, once every item without a blocking flag is accepted
(``decide --ids-from``, not timed); then come the exports, the checks and the other imports
(``--steps``: only the steps named; the first imports are made, and shown, in any case).
Printed: each run with the load average at its start, then per step and tree the medians of
REPEAT runs and after / before of the medians; the load average before and after, and
``machine.parallel_check``.

``bench_scale`` prints more rows (the floors, check on one process, decide) for one tree; this
script is for the question "is it slower than before", which on a machine whose load moves from
2 to 16 within minutes only runs alternated can answer (CPU time beside the wall time).
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
from tests.benchmarks.bench_scale import Run, load  # noqa: E402
from tests.benchmarks.machine import parallel_check  # noqa: E402
from tests.benchmarks.peak_memory import (  # noqa: E402
    _REPORT_PEAK_AT_EXIT,
    adopt_orphans,
    read_peak_mb,
    reap_orphans,
)

STEPS = ("import", "check", "export")


def command(python: Path, tree: Path, args: list[str], stdin: Path | None = None) -> Run:
    """``bagel-studio ARGS`` of ``tree`` run by ``python``, timed as ``bench_scale.command``."""
    env = dict(os.environ, PYTHONPATH=str(tree))
    with (
        open(stdin or os.devnull) as feed,
        tempfile.TemporaryDirectory() as scratch,
    ):
        peak_file = Path(scratch) / "peak"
        start = time.perf_counter()
        process = subprocess.Popen(
            [str(python), "-c", _REPORT_PEAK_AT_EXIT, str(peak_file), "bagel_studio", *args],
            env=env,
            cwd=tree,
            stdin=feed,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - start
        workers_cpu, workers_peak = reap_orphans()
        rss_mb = max(read_peak_mb(peak_file), workers_peak)
    cpu = usage.ru_utime + usage.ru_stime + workers_cpu
    return Run(wall, cpu, rss_mb, "", os.waitstatus_to_exitcode(status))


def accept_all(python: Path, tree: Path, project: Path, folder: Path) -> None:
    """Every item without a blocking flag accepted, as ``bench_scale`` does (not timed)."""
    ids = folder / f"ids-{project.stem}.txt"
    connection = sqlite3.connect(project)
    ids.write_text(
        "".join(
            f"{row[0]}\n"
            for row in connection.execute(
                "SELECT id FROM items WHERE id NOT IN"
                " (SELECT item_id FROM flags WHERE severity = 'blocking') ORDER BY seq"
            )
        ),
        encoding="utf-8",
    )
    connection.close()
    done = command(
        python, tree, ["decide", str(project), "--ids-from", "-", "--curator", "b", "--accept"], ids
    )
    if done.status:
        raise SystemExit(f"decide failed in {tree}: exit status {done.status}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("count", type=int, help="number of items")
    parser.add_argument("before_tree", type=Path)
    parser.add_argument("before_python", type=Path)
    parser.add_argument("--after-tree", type=Path, default=ROOT)
    parser.add_argument("--after-python", type=Path, default=ROOT / ".venv" / "bin" / "python")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--items", type=Path, help="an item file instead of bagel_scale's")
    parser.add_argument(
        "--steps",
        default=",".join(STEPS),
        help="the steps timed, comma-separated (default: %(default)s)",
    )
    args = parser.parse_args()
    steps = [step for step in STEPS if step in args.steps.split(",")]
    if not steps:
        parser.error(f"--steps: name one or more of {', '.join(STEPS)}")
    trees = {
        "before": (args.before_python.absolute(), args.before_tree.absolute()),
        "after": (args.after_python.absolute(), args.after_tree.absolute()),
    }
    for python, tree in trees.values():  # compiled first, as an installed tool is
        subprocess.run([python, "-m", "compileall", "-q", str(tree / "bagel_studio")], check=True)
    adopt_orphans()
    print(f"{args.count:,} items, median of {args.repeat}, alternated; load average {load()}")
    print(parallel_check())
    runs: dict[tuple[str, str], list[Run]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        items = args.items or write_scale_items(args.count, folder / "items.jsonl")

        def run(step: str, who: str, n: int) -> None:
            python, tree = trees[who]
            project = folder / f"{who}0.bagel"
            at = load()
            if step == "import":
                target = folder / f"{who}{n}.bagel"
                done = command(python, tree, ["import", str(target), str(items)])
            elif step == "check":
                copy = folder / f"{who}-check.bagel"
                shutil.copy(project, copy)
                done = command(python, tree, ["check", str(copy)])
            else:
                out = folder / f"{who}-release{n}"
                done = command(python, tree, ["export", str(project), str(out), "--seed", "1"])
                shutil.rmtree(out, ignore_errors=True)
            runs.setdefault((step, who), []).append(done)
            print(
                f"  {step:<7} {who:<6} run {n + 1}: wall {done.wall:7.2f} s  cpu {done.cpu:7.2f} s"
                f"  rss {done.rss_mb:5.0f} MB  load {at}"
                + (f"  (exit status {done.status})" if done.status > 1 else ""),
                flush=True,
            )

        # The first import of each tree makes the project its checks and exports read; the
        # other imports come last, so that the exports (the likeliest to have moved) come first.
        order = [("before", "after"), ("after", "before")]
        for who in order[0]:
            run("import", who, 0)
            accept_all(*trees[who], folder / f"{who}0.bagel", folder)
        for step in ("export", "check", "import"):
            if step not in steps:
                continue
            for n in range(1 if step == "import" else 0, args.repeat):
                for who in order[n % 2]:
                    run(step, who, n)
    print("medians: before | after | after / before")
    for step in steps:
        both = {}
        for who in ("before", "after"):
            done = runs[(step, who)]
            both[who] = (
                statistics.median(r.wall for r in done),
                statistics.median(r.cpu for r in done),
                max(r.rss_mb for r in done),
            )
        (bw, bc, br), (aw, ac, ar) = both["before"], both["after"]
        print(
            f"{step:<7} wall {bw:7.2f} s cpu {bc:6.2f} s {br:5.0f} MB | wall {aw:7.2f} s cpu"
            f" {ac:6.2f} s {ar:5.0f} MB | wall {aw / bw:4.2f}x cpu {ac / bc:4.2f}x"
            f" rss {ar / br:4.2f}x"
        )
    print(f"load average after: {load()}")
    print(parallel_check())


if __name__ == "__main__":
    main()
