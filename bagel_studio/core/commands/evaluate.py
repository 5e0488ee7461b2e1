"""``bagel-studio evaluate``: the paper's closed-book evaluation of every item by one model."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from bagel_studio.core.cli import UsageError
from bagel_studio.core.commands.common import add_wait_argument, open_project, print_json
from bagel_studio.core.commands.llm_common import (
    RunSignals,
    add_profile_options,
    add_run_options,
    connected_client,
    profile_from_args,
    release_order,
    stop_after_timeouts,
    terminal_progress,
)

if TYPE_CHECKING:
    from bagel_studio.core.store import Store


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "evaluate",
        help="ask a model every item with the paper's closed-book prompt; store answers",
        description="Ask a model (any OpenAI-compatible endpoint) every item with the paper's "
        "evaluation prompt (temperature 0, seed 0) and store each answer as it arrives: the "
        "option order shown, the raw reply, the letter (strict, lenient or invalid), the option "
        "it points to, correct or not, latency and tokens. Answers already stored for the same "
        "profile, prompt, item content and option order are not asked again, so a run that was "
        "interrupted resumes. Exit status: 0 all answered, 1 some failed or invalid, 2 usage "
        "error or endpoint that cannot be reached (nothing written), or one that refused the "
        "key, route or model (401, 403, 404) during the run, which then stops, as it does after "
        "--stop-after-timeouts items in a row got no reply in time.",
    )
    parser.add_argument("project", metavar="PROJECT", help="the project file (.bagel)")
    add_profile_options(parser, model_help="a stored profile's label, or a model id")
    parser.add_argument(
        "--seed",
        type=int,
        metavar="N",
        help="ask only the items the release with this seed holds, each with its options in "
        "that release's order (a run of its own; the items the release leaves out are named, "
        "not asked)",
    )
    parser.add_argument("--items", nargs="+", metavar="ITEM_ID", help="only these items")
    parser.add_argument(
        "--options-only",
        action="store_true",
        help="the paper's prompt with the question removed: what the model picks from the "
        "options alone (the audit's options-only baseline; stored apart from full answers)",
    )
    add_run_options(parser)
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    add_wait_argument(parser)


def run(args: argparse.Namespace) -> int:
    from bagel_studio.core.llm.evaluate import evaluate, questions
    from bagel_studio.core.operations.llm import save_profile

    limit = stop_after_timeouts(args)
    with open_project(args.project, owner="bagel-studio evaluate", wait=args.wait) as store:
        profile, changed = profile_from_args(store, args)
        wanted = questions(
            store, args.items, args.seed, options_only=args.options_only, shown=release_order
        )
        left_out = _left_out(store, args, {q.item_id for q in wanted})
        client = connected_client(profile, args)
        if changed:
            save_profile(store, profile)
        try:
            with RunSignals() as signals:
                summary = evaluate(
                    store,
                    profile,
                    wanted,
                    client=client,
                    progress=terminal_progress(profile.label),
                    cancel=signals.cancel,
                    abort=signals.abort,
                    stop_after_timeouts=limit,
                )
        finally:
            client.close()
    result = summary.to_json()
    result["order"] = "project order" if args.seed is None else f"seed {args.seed}"
    result["left_out"] = len(left_out)
    if args.json:
        print_json(result)
    else:
        order = "" if args.seed is None else f", asked in the order of {_release(args.seed)}"
        print(
            f"{profile.label} ({profile.model}){order}: {result['items']} items, "
            f"{result['already_answered']} answered before, {result['asked']} asked now: "
            f"{result['strict']} strict, {result['lenient']} lenient, {result['invalid']} "
            f"invalid, {result['failed']} failed"
        )
        if left_out:
            print(f"  {_left_out_line(left_out, args.seed)}")
        print("  " + _accuracy_line(result))
        if result["no_gold"]:
            n = result["no_gold"]
            print(f"  {n} item{'s' if n > 1 else ''} without a valid gold: asked, left out of "
                  "the accuracy (fix the gold first)")  # fmt: skip
        if result["cut"]:
            print("  " + _cut_line(result["cut"]))
        if result["note"]:
            print(f"  {result['note']}")
        for error in summary.errors:
            print(f"  failed: {error}", file=sys.stderr)
        if summary.stopped:
            print(f"stopped: {summary.stopped}", file=sys.stderr)
    code = signals.ended(summary.flight)
    if code is not None:
        return code
    if summary.stopped:
        return 2
    if summary.cancelled:
        return 1
    return 1 if summary.failed or summary.invalid else 0


def _cut_line(count: int) -> str:
    from bagel_studio.core.llm.client import REPLY_LIMIT, size_text

    replies = "1 reply was" if count == 1 else f"{count} replies were"
    limit = size_text(REPLY_LIMIT)
    return f"{replies} cut at {limit} (the server sent more; the rest was not read)"


def _release(seed: int) -> str:
    return f"the release with seed {seed}"


def _left_out(store: Store, args: argparse.Namespace, asked: set[str]) -> list[str]:
    """The items not asked, in the project's order: none may be among those named with
    --items (a usage error says which and why); with --seed, the items that release leaves out
    (the caller names them), else those without four options."""
    if args.items:
        known = set(store.items.ids())
        unknown = [i for i in args.items if i not in known]
        if unknown:
            raise UsageError("no such item: " + ", ".join(unknown))
        missing = [i for i in args.items if i not in asked]
        if missing and args.seed is not None:
            raise UsageError(
                f"not in {_release(args.seed)}: {', '.join(missing)} (a release holds the "
                "accepted and revised items without a blocking flag; evaluate without --seed "
                "asks them in the project's order)"
            )
        if missing:
            raise UsageError("not four options: " + ", ".join(missing))
        return []
    return [i for i in store.items.ids() if i not in asked]


def _left_out_line(left_out: list[str], seed: int | None) -> str:
    count = f"{len(left_out)} item{'s' if len(left_out) > 1 else ''} left out"
    if seed is None:
        return f"{count}: not four options (fix or reject first)"
    shown = ", ".join(left_out[:10]) + (f" and {len(left_out) - 10} more" if len(left_out) > 10
                                        else "")  # fmt: skip
    return (
        f"{count}: not in {_release(seed)} ({shown}); a run asked in a release's order holds "
        "only its items (evaluate without --seed asks every item in the project's order)"
    )


def _accuracy_line(result: dict[str, Any]) -> str:
    """Strict and lenient accuracy over this run's replies to items with a valid gold, apart
    (lm-evaluation-harness's strict-match and flexible-extract), with the letters the replies
    held (position bias)."""
    from bagel_studio.core.llm.metrics import letters_text

    graded = result["answered"] - result["no_gold"]
    if not result["answered"]:
        return "accuracy: no reply now (bagel-studio stats PROJECT shows the stored answers)"
    letters = letters_text(result["letters"])
    if not graded:
        return f"accuracy: no reply to an item with a valid gold; letters {letters}"
    strict, lenient = result["strict_correct"], result["correct"]
    return (
        f"accuracy: strict {100 * strict / graded:.1f}% ({strict} of {graded} replies), "
        f"lenient {100 * lenient / graded:.1f}% ({lenient} of {graded}); letters {letters}"
    )
