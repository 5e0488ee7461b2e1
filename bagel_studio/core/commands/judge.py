"""``bagel-studio judge``: a model's second opinion on items, stored as a suggestion."""

from __future__ import annotations

import argparse
import sys

from bagel_studio.core.commands.common import add_wait_argument, open_project, print_json
from bagel_studio.core.commands.llm_common import (
    add_profile_options,
    add_run_options,
    ask_model,
    stored_items,
)

SHOWN_ERRORS = 10
HELP = "a model's second opinion on items (a JSON verdict with its reason; never decides)"


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "judge",
        help=HELP,
        description="Give a model each item with its evidence and ask for a JSON verdict: ok, "
        "ambiguous, wrong_gold, not_self_contained or unsupported, with the option it would key "
        "and a one-sentence reason. Verdicts are stored with the model and the time and shown "
        "in the desk as suggestions; they never decide. Exit status: 0 every item judged, 1 "
        "some replies failed or could not be read, 2 usage error or unreachable endpoint, or a run "
        "that stopped: a refusal every request would meet (401, 403, 404) or "
        "--stop-after-timeouts items in a row without a reply in time.",
    )
    parser.add_argument("project", metavar="PROJECT", help="the project file (.bagel)")
    parser.add_argument("items", nargs="*", metavar="ITEM_ID", help="items to judge (all if none)")
    add_profile_options(parser, model_help="a stored profile's label, or a model id")
    add_run_options(parser)
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    add_wait_argument(parser)


def run(args: argparse.Namespace) -> int:
    from bagel_studio.core.llm.judge import judge

    with open_project(args.project, owner="bagel-studio judge", wait=args.wait) as store:
        items = stored_items(store, args.items)
        profile, summary, signals = ask_model(store, args, items, judge)
    if args.json:
        print_json(summary.to_json())
    else:
        verdicts = ", ".join(f"{k} {v}" for k, v in sorted(summary.verdicts.items()))
        judged = summary.asked - summary.failed
        print(
            f"{profile.label}: {summary.asked} asked, {judged} verdicts ({verdicts or 'none'}), "
            f"{summary.failed} unreadable or failed"
        )
        for item_id in summary.disagree:
            print(f"  disagrees: {item_id}")
        for item_id, note in summary.shortened.items():
            print(f"  {item_id}: {note}")
        for error in summary.errors[:SHOWN_ERRORS]:
            print(f"  failed: {error}", file=sys.stderr)
        if len(summary.errors) > SHOWN_ERRORS:
            more = len(summary.errors) - SHOWN_ERRORS
            print(f"  ... and {more} more (each stored with its reply)", file=sys.stderr)
    code = signals.ended(summary.flight)
    if code is not None:
        return code
    if summary.stopped:
        if not args.json:
            left = len(items) - summary.asked
            print(f"stopped: {summary.stopped} ({left} not asked)", file=sys.stderr)
        return 2
    return 1 if summary.failed else 0
