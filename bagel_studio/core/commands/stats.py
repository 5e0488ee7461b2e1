"""``bagel-studio stats``: counts per domain x dimension, status, level, rejects, gold positions;
with ``--rejects``, every rejected input line again, by file."""

from __future__ import annotations

import argparse
import sys

from bagel_studio.core.commands.common import open_project, print_json
from bagel_studio.core.stats import format_stats, project_stats, reject_listing, reject_summary
from bagel_studio.core.store import Store


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "stats",
        help="counts per domain, dimension, status and level; rejects; gold positions",
        description="Print what is in a project: items per domain x dimension, per status and "
        "level, rejected input lines, generator rejections, flags and gold positions per domain. "
        "With --rejects, every rejected input line the project keeps, as file:line: reason, "
        "file by file in the order they were imported.",
    )
    parser.add_argument("project", metavar="PROJECT", help="the project file (.bagel)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument(
        "--rejects",
        action="store_true",
        help="list every rejected input line (file:line: reason), by file",
    )
    parser.add_argument(
        "--match",
        metavar="TEXT",
        help="with --rejects: only the lines whose file or reason holds TEXT (any case)",
    )


def run(args: argparse.Namespace) -> int:
    if args.match and not args.rejects:
        sys.stderr.write("stats: --match goes with --rejects\n")
        return 2
    with open_project(args.project, read_only=True) as store:
        if args.rejects:
            return _rejects(store, args)
        stats = project_stats(store)
    if args.json:
        print_json(stats)
    else:
        sys.stdout.write("\n".join(format_stats(stats)) + "\n")
    return 0


def _rejects(store: Store, args: argparse.Namespace) -> int:
    files: dict[str, int] = {}
    if args.json:
        listed = []
        for file, line, reason in reject_listing(store, args.match):
            files[file] = files.get(file, 0) + 1
            listed.append({"file": file, "line": line, "reason": reason})
        print_json({"rejects": listed, "files": files})
        return 0
    count = 0
    for file, line, reason in reject_listing(store, args.match):
        files[file] = files.get(file, 0) + 1
        count += 1
        sys.stdout.write(f"{file}:{line}: {reason}\n")
    sys.stdout.write(reject_summary(len(files), count, args.match) + "\n")
    return 0
