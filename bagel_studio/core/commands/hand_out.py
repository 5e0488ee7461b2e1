"""``bagel-studio hand-out PROJECT OUTDIR``: one package per curator of the plan's newest round.

Exit status: 0 written, 2 usage error (no plan, no such round or curator, a package already
there, an unreadable project).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from bagel_studio.core.assignment import PlanError
from bagel_studio.core.cli import UsageError
from bagel_studio.core.commands.common import open_project, print_json
from bagel_studio.core.operations.handout import hand_out


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "hand-out",
        help="write one project file per curator of the review plan, with their audio",
        description=(
            "Write a package for each curator of the plan's newest round (or --round N):"
            " OUTDIR/CURATOR/PROJECT-CURATOR.bagel holding that curator's items in the plan's"
            " order, with their evidence, flags, model answers and their recordings'"
            " measurements and species detections, and OUTDIR/CURATOR/audio/ with those"
            " recordings' files. Each package is bound to its curator and the plan; the curator"
            " opens it with bagel-studio open and the desk reviews as them; collect brings it"
            " back. The project is only read (a copy made with SQLite's backup API), so this"
            " works while the desk has it open. An existing package is never overwritten."
        ),
        epilog="exit status: 0 written, 2 usage error",
    )
    parser.add_argument("project", metavar="PROJECT", help="the project file (.bagel)")
    parser.add_argument("out_dir", metavar="OUTDIR", help="where the curators' folders go")
    parser.add_argument("--round", type=int, metavar="N", help="this round (default the newest)")
    parser.add_argument(
        "--curator", nargs="+", metavar="NAME", help="only these curators' packages"
    )
    parser.add_argument("--json", action="store_true", help="print what was written as JSON")


def run(args: argparse.Namespace) -> int:
    with open_project(args.project, read_only=True) as store:
        try:
            result = hand_out(
                store, Path(args.out_dir), round_=args.round, curators=args.curator
            ).result
        except PlanError as exc:
            raise UsageError(str(exc)) from exc
    if args.json:
        print_json(
            {
                "plan": result.plan_id,
                "round": result.round,
                "packages": [p.to_json() for p in result.packages],
            }
        )
        return 0
    sys.stdout.write(f"plan {result.plan_id}, round {result.round}:\n")
    for p in result.packages:
        missing = f" ({len(p.audio_missing)} audio files not found)" if p.audio_missing else ""
        sys.stdout.write(
            f"  {p.curator}: {p.path} ({p.items:,} items, {p.recordings:,} recordings{missing})\n"
        )
    return 0
