"""``bagel-studio import PROJECT PATH...``: bring items and evidence into a project.

Exit status: 0 when everything came in, 1 when some input was rejected (the rejects are kept in the
project and listed), 2 for usage errors, paths not read (devices, FIFOs, unreadable files), a
release refused by its verification and writes the machine refused.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from bagel_studio.core.cli import UsageError
from bagel_studio.core.commands.common import (
    TerminalProgress,
    add_wait_argument,
    add_workers_argument,
    open_project,
    print_json_listing,
)
from bagel_studio.core.importers.report import KEPT_REJECTS

REJECT_LISTING = KEPT_REJECTS


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "import",
        help="import items and evidence (format detected from content)",
        description=(
            "Import items (flat release items, generator outputs of all four tracks) and their"
            " evidence (GloBI tables, Wikipedia and bioRxiv texts, Xeno-canto metadata and"
            " audio) into PROJECT, creating it if needed. Folders are walked. Lines that cannot"
            " become items are kept in the project as rejects and listed as file:line: reason."
            " Importing the same file again changes nothing."
        ),
        epilog=(
            "exit status: 0 all imported, 1 some input rejected, 2 usage error, a path not read"
            " (device, FIFO, unreadable file), a release that fails verification, or a failed"
            " write"
        ),
    )
    parser.add_argument("project", metavar="PROJECT", help="project file (created if missing)")
    parser.add_argument("paths", metavar="PATH", nargs="+", help="input files or folders")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    add_wait_argument(parser)
    parser.add_argument(
        "--max-line-mb",
        metavar="MB",
        type=float,
        default=None,
        help="reject lines longer than this many megabytes without parsing them (default 10)",
    )
    parser.add_argument(
        "--max-document-mb",
        metavar="MB",
        type=float,
        default=None,
        help="refuse a file read whole (a JSON document rather than JSON Lines: an array of"
        " items, Xeno-canto's API JSON, a text as JSON) larger than this many megabytes"
        " (default 64); JSON Lines, tables and plain texts are read as a stream in any size",
    )
    parser.add_argument(
        "--no-verify",
        action="store_true",
        help="import a release folder even when it differs from its manifest (see verify)",
    )
    add_workers_argument(parser)


def run(args: argparse.Namespace) -> int:
    from bagel_studio.core.importers import import_paths

    missing = [p for p in args.paths if not Path(p).exists()]
    if missing:
        raise UsageError(f"{missing[0]}: no such file or folder")
    store = open_project(args.project, create=True, wait=args.wait)
    try:
        limit = round(args.max_line_mb * 1e6) if args.max_line_mb else None
        document = round(args.max_document_mb * 1e6) if args.max_document_mb else None
        with TerminalProgress("importing") as progress:
            report = import_paths(
                store,
                args.paths,
                progress,
                verify=not args.no_verify,
                max_line_bytes=limit,
                max_document_bytes=document,
                workers=max(args.workers, 1),
                check_progress=progress.stage("checking"),
            )
        totals = (store.items.count(), store.imports.reject_count())
        if args.json:  # every reject of the run, read back from the project as it is written
            rejects = (
                {"file": file, "line": line, "reason": reason}
                for file, line, reason in store.imports.reject_rows_after(report.rejects_after)
            )
            data = report.to_json() | {"project_items": totals[0], "project_rejects": totals[1]}
            print_json_listing(data, "rejects", rejects)
    finally:
        store.close()
    if not args.json:
        out = sys.stdout
        out.write(f"Imported into {args.project}:\n")
        for line in report.summary_lines(reject_limit=REJECT_LISTING):
            out.write(f"  {line}\n")
        out.write(f"Project now holds {totals[0]:,} items and {totals[1]:,} rejected lines.\n")
    for name in report.unreadable:
        sys.stderr.write(f"bagel-studio import: {name}: not imported (the summary says why)\n")
    return report.exit_status
