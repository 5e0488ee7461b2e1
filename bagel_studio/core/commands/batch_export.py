"""``bagel-studio batch-export``: the evaluation as an OpenAI Batch API input file."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from bagel_studio.core.cli import UsageError
from bagel_studio.core.commands.common import add_wait_argument, open_project
from bagel_studio.core.commands.llm_common import (
    add_profile_options,
    profile_from_args,
    release_order,
)

HELP = "write the evaluation as an OpenAI Batch API input file (for a cluster)"


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "batch-export",
        help=HELP,
        description="Write one request per item the model has not answered yet (custom_id, "
        "method, url, body with the paper's prompt, temperature 0, seed 0), to run with the "
        "OpenAI Batch API or `vllm run-batch` (--target); `batch-import` reads the results back. "
        "Exit status: 0, 2 usage error or unwritable file.",
    )
    parser.add_argument("project", metavar="PROJECT", help="the project file (.bagel)")
    parser.add_argument("out", metavar="OUT.jsonl", help="the batch input file to write")
    add_profile_options(parser, model_help="a stored profile's label, or a model id")
    parser.add_argument(
        "--seed",
        type=int,
        metavar="N",
        help="only the items of the release with this seed, their options in its order",
    )
    parser.add_argument(
        "--target",
        choices=("openai", "vllm"),
        default="openai",
        help="who runs the file: OpenAI's Batch API (default; chat and plain completions) or "
        "vllm run-batch (chat only: it takes no /v1/completions); neither takes llama.cpp's "
        "grammar, so a profile that asks with it is refused",
    )
    add_wait_argument(parser)


def run(args: argparse.Namespace) -> int:
    from bagel_studio.core.llm.batch import TARGETS, target_refusal, write_batch
    from bagel_studio.core.llm.evaluate import questions
    from bagel_studio.core.operations.llm import save_profile

    out = Path(args.out)
    with open_project(args.project, owner="bagel-studio batch-export", wait=args.wait) as store:
        profile, changed = profile_from_args(store, args)
        refusal = target_refusal(profile, args.target)
        if refusal is not None:
            raise UsageError(refusal)
        if changed:
            save_profile(store, profile)
        wanted = questions(store, seed=args.seed, shown=release_order)
        outside = len(store.items.ids()) - len(wanted) if args.seed is not None else 0
        partial = out.with_name(out.name + ".partial")
        try:
            with partial.open("w", encoding="utf-8") as handle:
                count = write_batch(store, profile, wanted, handle)
            os.replace(partial, out)
        except OSError as exc:
            partial.unlink(missing_ok=True)
            raise UsageError(f"{out}: {exc.strerror or exc}") from exc
    other = "" if args.target == "vllm" else " (--target vllm for vllm run-batch)"
    print(
        f"{count} requests for {profile.label} ({profile.model}) written to {out} for "
        f"{TARGETS[args.target]}{other}"
    )
    if outside:
        print(
            f"  {outside} items left out: not in the release with seed {args.seed} (a run asked "
            "in a release's order holds only its items)",
            file=sys.stderr,
        )
    if count < len(wanted):
        print(
            f"  {len(wanted) - count} of {len(wanted)} items are answered already by "
            f"{profile.label} under these settings: not asked again",
            file=sys.stderr,
        )
    return 0
