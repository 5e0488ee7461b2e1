"""``bagel-studio batch-import``: a Batch API output file's answers, stored as evaluate would."""

from __future__ import annotations

import argparse
from pathlib import Path

from bagel_studio.core.cli import UsageError
from bagel_studio.core.commands.common import add_wait_argument, open_project, print_json
from bagel_studio.core.commands.llm_common import (
    add_profile_options,
    profile_from_args,
    release_order,
)

HELP = "read a Batch API output file and store its answers as evaluate would"


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "batch-import",
        help=HELP,
        description="Read the output of the OpenAI Batch API or `vllm run-batch` for a file "
        "written by batch-export, join each line on custom_id and store the answer exactly as "
        "evaluate would have (strict, lenient or invalid; a line with an error is stored as a "
        "failed answer with its error; a line whose custom_id came before is named and left "
        "out). Exit status: 0 all stored and valid, 1 some errors, invalid replies, repeated "
        "ids or lines that match no item, 2 usage error or unreadable file.",
    )
    parser.add_argument("project", metavar="PROJECT", help="the project file (.bagel)")
    parser.add_argument("results", metavar="RESULTS.jsonl", help="the batch output file")
    add_profile_options(parser, model_help="the profile the batch was written for")
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    add_wait_argument(parser)


def run(args: argparse.Namespace) -> int:
    from bagel_studio.core.llm.batch import BatchError, import_results
    from bagel_studio.core.operations.llm import save_profile

    path = Path(args.results)
    if not path.is_file():
        raise UsageError(f"{path}: no such file")
    with open_project(args.project, owner="bagel-studio batch-import", wait=args.wait) as store:
        profile, changed = profile_from_args(store, args)
        if changed:
            save_profile(store, profile)
        try:
            result = import_results(store, profile, path, release_order)
        except BatchError as exc:
            raise UsageError(str(exc)) from exc
    if args.json:
        print_json(result.to_json())
    else:
        parses = ", ".join(f"{k} {v}" for k, v in sorted(result.parses.items()))
        print(f"{profile.label}: {result.stored} answers stored ({parses or 'none'}) "
              f"from {result.lines} lines")  # fmt: skip
        for bad in result.bad_lines[:20]:
            print(f"  {path}:{bad}")
        for line, first in result.repeated[:20]:
            print(f"  {path}:{line}: custom_id repeats line {first} (the first is kept)")
        if len(result.repeated) > 20:
            print(f"  ... and {len(result.repeated) - 20} more repeated custom_ids")
        if result.answered_before:
            print(f"  {result.answered_before} answers were stored before: not stored again")
        if result.unmatched:
            print(f"  {len(result.unmatched)} lines match no current item (changed or removed)")
    problems = result.parses["failed"] + result.parses["invalid"]
    return 1 if problems or result.unmatched or result.bad_lines or result.repeated else 0
