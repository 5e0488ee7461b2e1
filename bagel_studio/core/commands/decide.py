"""``bagel-studio decide``: record curators' decisions from scripts, exactly as the desk does."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from bagel_studio.core.cli import UsageError
from bagel_studio.core.commands.common import add_wait_argument, open_project
from bagel_studio.core.model import REJECT_REASONS, Decision, Review
from bagel_studio.core.operations.decisions import DecisionRefused, decide_many
from bagel_studio.core.operations.desk import EditsError, load_edits, revise
from bagel_studio.core.operations.reviews import curator_name
from bagel_studio.core.store import StoreError


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "decide",
        help="record decisions on items (accept, revise, reject, skip, uncertain)",
        description="Record a curator's decision on one or more items, with their history "
        "entries, as the desk does. Accept, reject, skip and uncertain run in one transaction: "
        "all are recorded or, when some item cannot take the decision (it does not exist, or an "
        "accept meets a blocking flag), none is and every such item is listed. --revise edits "
        "and accepts each item in its own transaction.",
        epilog="Reject reasons: " + ", ".join(REJECT_REASONS) + "\n"
        "exit status: 0 recorded, 1 some item cannot take the decision (with --accept, --reject, "
        "--skip, --uncertain: nothing recorded), 2 usage error",
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
    try:
        args.curator = curator_name(args.curator)
    except StoreError as exc:
        raise UsageError(f"--curator: {exc}") from None
    item_ids = list(args.item_ids) + (_ids_from(args.ids_from) if args.ids_from else [])
    if not item_ids:
        raise UsageError("no item ids: give ITEM_ID... or --ids-from FILE")
    decision = _decision(args)
    if args.revise is not None:
        return _revise_each(args, item_ids, _edits(args.revise))
    with open_project(args.project, owner=args.curator, wait=args.wait) as store:
        try:
            reviews = decide_many(
                store, item_ids, args.curator, decision, reason=args.reject, note=args.note
            ).result
        except DecisionRefused as exc:
            sys.stderr.write("".join(f"{r.item_id}: {r.reason}\n" for r in exc.refusals))
            sys.stderr.write(f"bagel-studio decide: {exc}\n")
            return 1
        except StoreError as exc:
            raise UsageError(str(exc)) from exc
    sys.stdout.write("".join(f"{r.item_id}: {r.decision.value} by {r.curator}\n" for r in reviews))
    return 0


def _revise_each(args: argparse.Namespace, item_ids: list[str], edits: dict[str, Any]) -> int:
    """--revise: each item edited and accepted in its own transaction (as the desk saves)."""
    failures = 0
    with open_project(args.project, owner=args.curator, wait=args.wait) as store:
        for item_id in item_ids:
            try:
                review: Review = revise(store, item_id, args.curator, edits, note=args.note).result
            except (StoreError, EditsError) as exc:
                failures += 1
                message = str(exc)  # some messages name the item already: say it once
                prefix = "" if message.startswith(item_id) else f"{item_id}: "
                sys.stderr.write(f"{prefix}{message}\n")
                continue
            sys.stdout.write(f"{item_id}: {review.decision.value} by {review.curator}\n")
    return 1 if failures else 0


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
