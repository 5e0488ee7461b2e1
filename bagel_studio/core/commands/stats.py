"""``bagel-studio stats``: counts per domain x dimension, status, level, rejects, gold positions."""

from __future__ import annotations

import argparse
import sys

from bagel_studio.core.commands.common import open_project, print_json
from bagel_studio.core.stats import format_stats, project_stats


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "stats",
        help="counts per domain, dimension, status and level; rejects; gold positions",
        description="Print what is in a project: items per domain x dimension, per status and "
        "level, rejected input lines, generator rejections, flags and gold positions per domain.",
    )
    parser.add_argument("project", metavar="PROJECT", help="the project file (.bagel)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")


def run(args: argparse.Namespace) -> int:
    with open_project(args.project, read_only=True) as store:
        stats = project_stats(store)
    if args.json:
        print_json(stats)
    else:
        sys.stdout.write("\n".join(format_stats(stats)) + "\n")
    return 0
