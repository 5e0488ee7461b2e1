"""``bagel-studio decide``: record curators' decisions from scripts, exactly as the desk does."""

from __future__ import annotations

import argparse
import sys

from bagel_studio.core.cli import UsageError
from bagel_studio.core.commands.common import add_wait_argument, open_project
from bagel_studio.core.model import REJECT_REASONS, Decision
from bagel_studio.core.operations.decisions import DecisionRefused, decide_many
from bagel_studio.core.store import StoreError


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "decide",
        help="record decisions on items (accept, reject, skip, uncertain)",
        description="Record a curator's decision on one or more items, with their history "
        "entries, as the desk does, in one transaction: all are recorded or, when some item "
        "cannot take the decision (it does not exist, or an accept meets a blocking flag), none "
        "is and every such item is listed.",
        epilog="Reject reasons: " + ", ".join(REJECT_REASONS) + "\n"
        "exit status: 0 recorded, 1 some item cannot take the decision (nothing recorded), "
        "2 usage error",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("project", metavar="PROJECT", help="the project file (.bagel)")
    parser.add_argument("item_ids", metavar="ITEM_ID", nargs="*", help="item ids")
    parser.add_argument(
        "--ids-from",
        metavar="FILE",
        help="also the item ids in FILE, one per line ('-' reads them from standard input)",
    )
    parser.add_argument("--curator", required=True, help="the curator's name")
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--accept", action="store_true", help="accept the items")
    group.add_argument(
        "--reject",
        metavar="REASON",
        choices=sorted(REJECT_REASONS),
        help="reject with a reason: " + ", ".join(REJECT_REASONS),
    )
    group.add_argument("--skip", action="store_true", help="skip the items for now")
    group.add_argument("--uncertain", action="store_true", help="mark the items uncertain")
    parser.add_argument("--note", default=None, help="a note kept with the decision")
    add_wait_argument(parser)


def _decision(args: argparse.Namespace) -> Decision:
    if args.accept:
        return Decision.ACCEPT
    if args.reject:
        return Decision.REJECT
    if args.skip:
        return Decision.SKIP
    return Decision.UNCERTAIN


def run(args: argparse.Namespace) -> int:
    if not args.curator.strip():
        raise UsageError("--curator must name someone")
    item_ids = list(args.item_ids) + (_ids_from(args.ids_from) if args.ids_from else [])
    if not item_ids:
        raise UsageError("no item ids: give ITEM_ID... or --ids-from FILE")
    decision = _decision(args)
    with open_project(args.project, owner=args.curator, wait=args.wait) as store:
        try:
            reviews = decide_many(
                store, item_ids, args.curator, decision, reason=args.reject, note=args.note
            )
        except DecisionRefused as exc:
            sys.stderr.write("".join(f"{r.item_id}: {r.reason}\n" for r in exc.refusals))
            sys.stderr.write(f"bagel-studio decide: {exc}\n")
            return 1
        except StoreError as exc:
            raise UsageError(str(exc)) from exc
    sys.stdout.write("".join(f"{r.item_id}: {r.decision.value} by {r.curator}\n" for r in reviews))
    return 0


def _ids_from(name: str) -> list[str]:
    """The ids in a file (or standard input for '-'), one per line; blank lines are skipped."""
    try:
        if name == "-":
            text = sys.stdin.read()
        else:
            with open(name, encoding="utf-8-sig") as handle:
                text = handle.read()
    except OSError as exc:
        raise UsageError(f"{name}: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise UsageError(f"{name}: not UTF-8 text ({exc.reason} at byte {exc.start})") from exc
    return [line.strip() for line in text.splitlines() if line.strip()]
