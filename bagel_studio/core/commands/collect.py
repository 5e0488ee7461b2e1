"""``bagel-studio collect PROJECT PACKAGE.bagel...``: the curators' packages merged back.

Exit status: 0 collected, 1 a package was refused (one line each saying why; nothing was
collected, the project is unchanged), 2 usage error (no plan, an unreadable project).
"""

from __future__ import annotations

import argparse
import sys

from bagel_studio.core.assignment import PlanError
from bagel_studio.core.cli import UsageError
from bagel_studio.core.commands.common import add_wait_argument, open_project, print_json
from bagel_studio.core.team.collect import CollectRefused, collect_packages


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "collect",
        help="collect the curators' packages back into the project",
        description=(
            "Merge the packages written by hand-out back into the project: of each, only its"
            " curator's decisions on the items the plan gave them, under their name, by the"
            " merge's rules (the newer of a curator's two decisions is current, the older kept"
            " in the history). A package of another plan, bound to another curator than it"
            " says, whose items differ from the project's, or holding a decision dated in the"
            " future (more than 5 minutes ahead of this machine's clock) or after the package"
            " was first collected, is refused with one line saying why, and then nothing is"
            " collected: all packages are checked first and written in one transaction."
        ),
        epilog="exit status: 0 collected, 1 refused (the project unchanged), 2 usage error",
    )
    parser.add_argument("project", metavar="PROJECT", help="the project file (.bagel)")
    parser.add_argument("packages", metavar="PACKAGE", nargs="+", help="the packages")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    add_wait_argument(parser)


def run(args: argparse.Namespace) -> int:
    with open_project(args.project, wait=args.wait) as store:
        try:
            result = collect_packages(store, args.packages).result
        except CollectRefused as exc:
            sys.stderr.write("".join(f"bagel-studio collect: {line}\n" for line in exc.lines))
            sys.stderr.write("bagel-studio collect: nothing was collected\n")
            return 1
        except PlanError as exc:
            raise UsageError(str(exc)) from exc
    if args.json:
        print_json({"plan": result.plan_id, "packages": [p.to_json() for p in result.packages]})
        return 0
    for p in result.packages:
        m = p.merge
        left = p.left_out_others + p.left_out_unassigned
        sys.stdout.write(
            f"{m.name}: {p.curator}, round {p.round}: {m.reviews_added:,} decisions added,"
            f" {m.reviews_updated:,} updated, {m.reviews_unchanged:,} already here,"
            f" {m.reviews_older:,} older than ours (kept in history)"
            + (f"; {left:,} not the curator's own on their items, left out" if left else "")
            + "\n"
        )
    return 0
