"""``bagel-studio levels``: the paper's reference levels from two models' answers (its Table 3)."""

from __future__ import annotations

import argparse

from bagel_studio.core.cli import UsageError
from bagel_studio.core.commands.common import add_wait_argument, open_project, print_json


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "levels",
        help="reference levels from two models (easy/medium/hard, the paper's Table 3)",
        description="Grade every item as the BAGEL authors did: easy if both models answered it "
        "correctly, medium if one did, hard if neither (from the answers `evaluate` stored). "
        "Prints the counts per domain with percentages; with --apply, sets each item's level "
        "(an edit by 'model-levels' in its history, undoable; a level a curator edited is kept). "
        "A reply without a letter A-D (invalid) counts as wrong, so it makes an item harder: "
        "the command says how many each model gave, and --apply refuses a model with more than "
        "a tenth of them unless --allow-invalid. "
        "Exit status: 0, 1 when some items lack an answer of either model, 2 usage error.",
    )
    parser.add_argument("project", metavar="PROJECT", help="the project file (.bagel)")
    parser.add_argument(
        "--models",
        nargs=2,
        required=True,
        metavar=("LABEL_A", "LABEL_B"),
        help="the two profiles' labels",
    )
    parser.add_argument(
        "--seed",
        type=int,
        metavar="N",
        help="grade from the answers the models gave in the order of the release with this "
        "seed (evaluate --seed N); by default from those asked in the project's order",
    )
    parser.add_argument("--apply", action="store_true", help="set the items' levels")
    parser.add_argument(
        "--allow-invalid",
        action="store_true",
        help="apply levels even from a model more than a tenth of whose replies held no letter",
    )
    parser.add_argument("--json", action="store_true", help="print JSON")
    add_wait_argument(parser)


def run(args: argparse.Namespace) -> int:
    from bagel_studio.core.llm.metrics import (
        INVALID_WARN_SHARE,
        answers_by_profile,
        format_level_table,
        invalid_note,
        level_table,
        order_name,
        reference_levels,
    )
    from bagel_studio.core.llm.parse import INVALID
    from bagel_studio.core.llm.project import find_profile
    from bagel_studio.core.operations.llm import apply_levels

    with open_project(
        args.project, read_only=not args.apply, owner="bagel-studio levels", wait=args.wait
    ) as store:
        if args.models[0] == args.models[1]:
            raise UsageError("name two different profiles: levels compare two models' answers")
        profiles = []
        for label in args.models:
            profile = find_profile(store, label)
            if profile is None:
                raise UsageError(f"no model profile {label!r} in this project (run evaluate)")
            profiles.append(profile)
        order = _order(args.seed)
        levels, domains, missing = reference_levels(store, profiles[0], profiles[1], args.seed)
        if not levels:
            other = "--seed N reads those asked in a release's order" if args.seed is None else \
                "without --seed, those asked in the project's order"  # fmt: skip
            raise UsageError(
                f"no item has an answer from both models asked in {order}: run evaluate first "
                f"({other})"
            )
        table = level_table(levels, domains)
        invalid: dict[str, tuple[int, int]] = {}  # label: (invalid, answered) over graded items
        graded = answers_by_profile(store, profiles, set(levels), seed=args.seed)
        for label, answers in graded.items():
            invalid[label] = (sum(a["parse"] == INVALID for a in answers), len(answers))
        too_many = [label for label, (bad, n) in invalid.items() if bad > INVALID_WARN_SHARE * n]
        if args.apply and too_many and not args.allow_invalid:
            notes = [f"{label}: {invalid_note(invalid[label][1], invalid[label][0])}"
                     for label in too_many]  # fmt: skip
            raise UsageError(
                "; ".join(notes) + ". Nothing applied: such levels grade the reply format, "
                "not the items (--allow-invalid applies them anyway)"
            )
        source = {"models": list(args.models), "order": order_name(args.seed)}
        applied = apply_levels(store, levels, source).result if args.apply else None
    if args.json:
        print_json(
            {
                "levels": table,
                "missing": len(missing),
                "invalid": {label: bad for label, (bad, _) in invalid.items()},
                "applied": applied,
            }
        )
    else:
        print(f"Reference levels from {args.models[0]} and {args.models[1]}, asked in {order}:")
        print("\n".join(format_level_table(table)))
        for label, (bad, n) in invalid.items():
            note = invalid_note(n, bad)
            if note:
                print(f"{label}: {note}")
        if missing:
            print(f"{len(missing)} items lack an answer of either model and have no level")
        if applied is not None:
            print(
                f"applied: {applied['changed']} levels set, {applied['unchanged']} already so, "
                f"{applied['curator_level_kept']} kept as a curator edited them"
            )
    return 1 if missing else 0


def _order(seed: int | None) -> str:
    return "the project's order" if seed is None else f"the order of the release with seed {seed}"
