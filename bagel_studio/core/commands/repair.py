"""``bagel-studio repair PROJECT NEWFILE``: copy what is sound of a damaged project into a new one.

Exit status: 0 the new file holds everything, 1 it is sound but rows could not be read (each
table named, and the items lost with them), 2 usage errors and a file that cannot be repaired.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from bagel_studio.core.cli import UsageError

HELP = "copy what is sound of a damaged project into a new project file"


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "repair",
        help=HELP,
        description=(
            "Read PROJECT (never written) and write NEWFILE, a project that passes every check:"
            " PROJECT is copied through SQLite's backup API, what BAGEL Studio did not create"
            " (triggers, views, tables, indexes) is dropped, its own objects changed by hand are"
            " made again, every index and the search index rebuilt from the rows; when pages of"
            " a table are damaged, its rows are read one by one around them into a new project."
            " Items whose rows disagreed with an index are named: their text may be damaged."
        ),
        epilog=(
            "exit status: 0 everything copied, 1 some rows could not be read (listed), 2 usage"
            " error or a file that cannot be repaired (use your last good copy)"
        ),
    )
    parser.add_argument("project", metavar="PROJECT", help="the damaged project file")
    parser.add_argument("newfile", metavar="NEWFILE", help="the new project file to write")


def run(args: argparse.Namespace) -> int:
    from bagel_studio.core.store.repair import RepairError, repair

    try:
        report = repair(Path(args.project), Path(args.newfile))
    except RepairError as exc:
        raise UsageError(str(exc)) from exc
    sys.stdout.write("\n".join(report.lines()) + "\n")
    return 0 if report.complete else 1
