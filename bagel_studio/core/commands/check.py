"""``bagel-studio check``: recompute the automatic flags of a project and list them.

The flags are recomputed first, so the listing reflects the evidence loaded now (a GloBI table
imported after the items changes ``also-documented``). Exit status 1 when a listed flag blocks
acceptance, so the command can gate a release in a script.
"""

from __future__ import annotations

import argparse
import sys
import textwrap
from typing import Any

from bagel_studio.core.bulk import paused_gc
from bagel_studio.core.checks import CHECKS
from bagel_studio.core.cli import UsageError
from bagel_studio.core.commands.common import (
    TerminalProgress,
    add_wait_argument,
    add_workers_argument,
    open_project,
    print_json,
)
from bagel_studio.core.domains import DOMAINS, normalize_domain
from bagel_studio.core.model import Flag, Severity
from bagel_studio.core.store import QueueFilter, Store


def _checks_epilog() -> str:
    lines = ["check ids:"]
    for check_id, explanation in CHECKS.items():
        # whole words: a hyphenated word ("taxon-granularity") is not cut, so the help says
        # the definition word for word as docs/CHECKS.md does
        wrapped = textwrap.wrap(explanation, width=72, break_on_hyphens=False)
        lines.append(f"  {check_id}")
        lines.extend(f"      {line}" for line in wrapped)
    lines.append("")
    lines.append(
        "exit status: 0 when no listed flag is blocking, 1 when some are, 2 on usage errors"
    )
    return "\n".join(lines)


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "check",
        help="recompute the automatic flags and list them",
        description="Recompute every item's flags from its content and the evidence in the "
        "project, then list them as ITEM  SEVERITY  CHECK  MESSAGE (or JSON).",
        epilog=_checks_epilog(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("project", metavar="PROJECT", help="the project file (.bagel)")
    parser.add_argument("--json", action="store_true", help="print a JSON list of flags")
    parser.add_argument(
        "--domain", metavar="DOMAIN", help=f"only items of one domain ({', '.join(DOMAINS)})"
    )
    parser.add_argument(
        "--check",
        metavar="ID",
        action="append",
        help="list only this check (repeatable; ids below)",
    )
    parser.add_argument(
        "--no-audio",
        action="store_true",
        help="do not measure recordings first, and leave the acoustic checks out",
    )
    add_wait_argument(parser)
    add_workers_argument(parser)


def run(args: argparse.Namespace) -> int:
    domain = None
    if args.domain:
        domain = normalize_domain(args.domain)
        if domain is None:
            raise UsageError(f"unknown domain {args.domain!r} (one of: {', '.join(DOMAINS)})")
    wanted = set(args.check or ())
    unknown = sorted(wanted - set(CHECKS))
    if unknown:
        raise UsageError(f"unknown check id {', '.join(unknown)} (see bagel-studio check --help)")
    # lazy: these load the audio analysis (numpy, scipy)
    from bagel_studio.core.operations import analyze_recordings
    from bagel_studio.core.operations.project import recheck

    with open_project(args.project, wait=args.wait) as store:
        if not args.no_audio:
            with TerminalProgress("measuring clips") as progress:
                # the clips not measured yet (all cores when many)
                analyze_recordings(store, progress=progress)
        ids = store.items.ids(QueueFilter(domain=domain)) if domain else None
        _say_pending(store, ids)
        with TerminalProgress("checking") as progress:
            recheck(store, ids, progress, audio=not args.no_audio, workers=max(args.workers, 1))
        in_scope = set(ids) if ids is not None else None
        # Thousands of flags and no cycles: the collector would only walk the checks' caches.
        with paused_gc():
            listed = [
                (item_id, flag)
                for item_id, flag in store.flags.all(details=args.json)
                if (in_scope is None or item_id in in_scope)
                and (not wanted or flag.check in wanted)
            ]
    with paused_gc():
        _print(listed, as_json=args.json)
    return 1 if any(flag.severity is Severity.BLOCKING for _, flag in listed) else 0


def _print(listed: list[tuple[str, Flag]], *, as_json: bool) -> None:
    if as_json:
        print_json([_as_json(item_id, flag) for item_id, flag in listed])
        return
    sys.stdout.writelines(
        f"{item_id}  {flag.severity.value}  {flag.check}  {flag.message}\n"
        for item_id, flag in listed
    )
    items = len({item_id for item_id, _ in listed})
    sys.stderr.write(f"{len(listed)} flags on {items} items\n")


def _as_json(item_id: str, flag: Flag) -> dict[str, Any]:
    return {
        "item_id": item_id,
        "check": flag.check,
        "severity": flag.severity.value,
        "message": flag.message,
        "details": flag.details,
    }


def _say_pending(store: Store, ids: list[str] | None) -> None:
    """Tell the curator when this run finishes checks an interrupted import left undone."""
    pending = store.flags.pending_check_ids()
    if ids is not None:
        in_scope = set(ids)
        pending = [i for i in pending if i in in_scope]
    if pending:
        sys.stderr.write(
            f"bagel-studio check: {len(pending):,} items awaited their checks after an"
            " interrupted import; checking them now\n"
        )
