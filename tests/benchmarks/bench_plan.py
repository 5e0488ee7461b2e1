"""Benchmark of a review plan (issue 28): ``bagel-studio plan`` of an N-item project for a team.

Run: .venv/bin/python tests/benchmarks/bench_plan.py [N] [--curators 5] [--repeat 3] [--keep DIR]

The items come from ``bagel_scale.py N`` (default 11,852, the paper's mix), imported and checked
through the command line (so the risky items are those the checks flag). Each of REPEAT runs
takes a fresh copy of that project and times, in this process, ``operations.team.make_plan``
(reading the items and their flags, the deal, writing the plan in one transaction) for the team
at 2 per item, 3 per risky item and a 5% calibration share; then ``bagel-studio plan`` as a
command on another fresh copy (a new interpreter: start-up and imports included). Printed: each
run, the medians, the load average before and after, each curator's load and whether the loads
are within one item (the target: the plan made in under 2 s, balanced).
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

TARGET_S = 2.0
NAMES = ("alice", "bob", "carol", "dave", "eve", "frank", "grace", "heidi", "ivan", "judy")


def loadavg() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def build(count: int, folder: Path) -> Path:
    """An N-item project, imported and checked by the command line."""
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


def fresh_copy(project: Path, name: str) -> Path:
    target = project.with_name(name)
    for suffix in ("", "-wal", "-shm"):
        Path(str(target) + suffix).unlink(missing_ok=True)
    shutil.copyfile(project, target)
    return target


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("count", nargs="?", type=int, default=11_852, help="items (11852)")
    parser.add_argument("--curators", type=int, default=5, help="curators in the team (5)")
    parser.add_argument("--repeat", type=int, default=3, help="runs (3; medians printed)")
    parser.add_argument("--keep", type=Path, help="build the project in DIR and keep it")
    args = parser.parse_args()

    from bagel_studio.core.assignment import PlanSettings
    from bagel_studio.core.operations.team import make_plan
    from bagel_studio.core.store import Store

    team = NAMES[: args.curators]
    settings = PlanSettings(team, per_item=2, risky_per_item=3, calibration=0.05, seed=0)
    folder = args.keep or Path(tempfile.mkdtemp(prefix="bench-plan-"))
    folder.mkdir(parents=True, exist_ok=True)
    project = folder / "project.bagel"
    if not project.exists():
        print(f"building a {args.count:,}-item project in {folder} ...", flush=True)
        project = build(args.count, folder)
    print(f"bench_plan: {args.count:,} items, {len(team)} curators, 2 per item, 3 per risky item,")
    print(f"  5% calibration; load average before: {loadavg()}")
    in_process: list[float] = []
    commands: list[float] = []
    balanced = True
    for run in range(1, args.repeat + 1):
        copy = fresh_copy(project, "run.bagel")
        with Store.open(copy) as store:
            start = time.perf_counter()
            made = make_plan(store, settings).result
            seconds = time.perf_counter() - start
        loads = made.deal.loads
        balanced &= max(loads.values()) - min(loads.values()) <= 1
        in_process.append(seconds)
        copy = fresh_copy(project, "command.bagel")
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        start = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "bagel_studio", "plan", str(copy), "--curators", *team],
            check=True,
            env=env,
            stdout=subprocess.DEVNULL,
        )
        commands.append(time.perf_counter() - start)
        print(
            f"  run {run}: make_plan {seconds:.3f} s, the command {commands[-1]:.3f} s;"
            f" {len(made.deal.calibration):,} calibration, {len(made.deal.risky):,} risky items;"
            f" loads {', '.join(f'{c} {n:,}' for c, n in loads.items())}"
        )
    median = statistics.median(in_process)
    print(
        f"median: make_plan {median:.3f} s, the command {statistics.median(commands):.3f} s"
        f" (target: under {TARGET_S:g} s: {'met' if median < TARGET_S else 'MISSED'});"
        f" loads within one item: {'yes' if balanced else 'NO'}"
    )
    print(f"load average after: {loadavg()}")
    if args.keep is None:
        shutil.rmtree(folder, ignore_errors=True)
    return 0 if balanced and median < TARGET_S else 1


if __name__ == "__main__":
    sys.exit(main())
