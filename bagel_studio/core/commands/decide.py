"""``bagel-studio decide``: record curators' decisions from scripts, exactly as the desk does."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from bagel_studio.core import operations
from bagel_studio.core.cli import UsageError
from bagel_studio.core.commands.common import add_wait_argument, open_project
from bagel_studio.core.model import REJECT_REASONS, Decision, Review
from bagel_studio.core.operations.desk import EditsError, load_edits, revise
from bagel_studio.core.store import StoreError


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "decide",
        help="record decisions on items (accept, revise, reject, skip, uncertain)",
        description="Record a curator's decision on one or more items, committed to the project "
        "with its history entry, as the desk does. Items with a blocking flag cannot be accepted.",
        epilog="Reject reasons: " + ", ".join(REJECT_REASONS),
    )
    parser.add_argument("project", metavar="PROJECT", help="the project file (.bagel)")
    parser.add_argument("item_ids", metavar="ITEM_ID", nargs="+", help="item ids")
    parser.add_argument("--curator", required=True, help="the curator's name")
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--accept", action="store_true", help="accept the items")
    group.add_argument(
        "--revise",
        metavar="EDITS",
        help="edit, then accept as revised (one transaction per item): EDITS is a JSON object "
        "with any of question, options (four texts), answer (letter A-D, index 0-3 or the "
        "option's text), dimension, level; or @FILE to read that JSON from a file. Example: "
        '--revise \'{"question": "Which ...?", "answer": "B"}\'',
    )
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


def _edits(text: str) -> dict[str, Any]:
    """The --revise edits from the argument, or from the file it names with '@'."""
    if text.startswith("@"):
        try:
            text = Path(text[1:]).read_text(encoding="utf-8-sig")
        except (OSError, UnicodeDecodeError) as exc:
            raise UsageError(f"cannot read the edits from {text[1:]}: {exc}") from None
    try:
        return load_edits(text)
    except EditsError as exc:
        raise UsageError(f"--revise: {exc}") from None


def _decision(args: argparse.Namespace) -> Decision:
    if args.accept or args.revise is not None:
        return Decision.ACCEPT
    if args.reject:
        return Decision.REJECT
    if args.skip:
        return Decision.SKIP
    return Decision.UNCERTAIN


def run(args: argparse.Namespace) -> int:
    if not args.curator.strip():
        raise UsageError("--curator must name someone")
    decision = _decision(args)
    edits = _edits(args.revise) if args.revise is not None else None
    failures = 0
    with open_project(args.project, owner=args.curator, wait=args.wait) as store:
        for item_id in args.item_ids:
            try:
                review: Review
                if edits is not None:
                    review = revise(store, item_id, args.curator, edits, note=args.note)
                else:
                    review = operations.decide(
                        store, item_id, args.curator, decision, reason=args.reject, note=args.note
                    )
            except (StoreError, EditsError) as exc:
                failures += 1
                message = str(exc)  # some messages name the item already: say it once
                prefix = "" if message.startswith(item_id) else f"{item_id}: "
                sys.stderr.write(f"{prefix}{message}\n")
                continue
            sys.stdout.write(f"{item_id}: {review.decision.value} by {review.curator}\n")
    return 1 if failures else 0
