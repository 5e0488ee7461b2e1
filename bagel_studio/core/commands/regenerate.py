"""``bagel-studio regenerate``: new items from rejected items' evidence (the paper's prompts)."""

from __future__ import annotations

import argparse
import sys

from bagel_studio.core.cli import UsageError
from bagel_studio.core.commands.common import add_wait_argument, open_project, print_json
from bagel_studio.core.commands.llm_common import (
    add_profile_options,
    add_run_options,
    ask_model,
    stored_items,
)

HELP = "regenerate items from their evidence with the paper's generation prompts"


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "regenerate",
        help=HELP,
        description="Send each item's evidence through the paper's generation prompt for its "
        "domain, read the prompt's output schema, run the structural checks and the other "
        "checks, and store the result as a new unreviewed item linked to the one it replaces "
        '(ID~regenN); a usable: "false" reply is stored as a generator rejection with its '
        "reason. Exit status: 0 every item regenerated, 1 some rejected by the generator, "
        "unreadable, failed or without evidence, 2 usage error or unreachable endpoint, or a run "
        "that stopped: a refusal every request would meet (401, 403, 404) or "
        "--stop-after-timeouts items in a row without a reply in time.",
    )
    parser.add_argument("project", metavar="PROJECT", help="the project file (.bagel)")
    parser.add_argument("items", nargs="+", metavar="ITEM_ID", help="the items to regenerate")
    add_profile_options(parser, model_help="a stored profile's label, or a model id")
    add_run_options(parser)
    parser.add_argument("--json", action="store_true", help="print the outcome per item as JSON")
    add_wait_argument(parser)


def run(args: argparse.Namespace) -> int:
    from bagel_studio.core.llm.regenerate import CREATED, regenerate

    with open_project(args.project, owner="bagel-studio regenerate", wait=args.wait) as store:
        items = stored_items(store, args.items)
        if not items:
            raise UsageError("name the items to regenerate")
        _, summary, signals = ask_model(store, args, items, regenerate)
    if args.json:
        print_json(summary.to_json())
    else:
        for item_id, outcome in summary.outcomes.items():
            detail = summary.created.get(item_id) or summary.reasons.get(item_id, "")
            print(f"{item_id}: {outcome} {detail}".rstrip())
            if item_id in summary.shortened:
                print(f"  {summary.shortened[item_id]}")
        if summary.stopped:
            left = len(items) - len(summary.outcomes)
            print(f"stopped: {summary.stopped} ({left} not asked)", file=sys.stderr)
    code = signals.ended(summary.flight)
    if code is not None:
        return code
    if summary.stopped:
        return 2
    return 0 if all(o == CREATED for o in summary.outcomes.values()) else 1
