"""``bagel-studio merge PROJECT OTHER.bagel...``: bring other curators' decisions in.

Exit status: 0 when everything merged (or was already here), 1 when some items could not be
merged (same id with other content, or items this project lacks), 2 when a file is unreadable or
not a project (then nothing is merged).
"""

from __future__ import annotations

import argparse
import sys

from bagel_studio.core.cli import UsageError
from bagel_studio.core.commands.common import add_wait_argument, open_project, print_json
from bagel_studio.core.merge import MergeError, merge_projects


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "merge",
        help="merge other curators' project files into a project",
        description=(
            "Bring in the decisions, edits and adjudications of other curators' project files."
            " Items are matched by id and original content; nothing is overwritten; merging the"
            " same file twice changes nothing. Items on which curators disagree become disputed."
        ),
    )
    parser.add_argument("project", metavar="PROJECT", help="the project to merge into")
    parser.add_argument("others", metavar="OTHER.bagel", nargs="+", help="files to merge in")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    add_wait_argument(parser)


def run(args: argparse.Namespace) -> int:
    store = open_project(args.project, wait=args.wait)
    try:
        report = merge_projects(store, args.others).result
    except MergeError as exc:
        raise UsageError(str(exc)) from exc
    finally:
        store.close()
    if args.json:
        print_json(report.to_json())
    else:
        sys.stdout.write("\n".join(report.lines()) + "\n")
    return 0 if report.complete else 1
