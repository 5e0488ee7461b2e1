"""``bagel-studio plan PROJECT``: a review team's plan: make it, hand out its next round, or say
where it stands.

Exit status: 0 done, 1 nothing to do (``--next`` with no disagreement to pass on), 2 usage error
(bad settings, no plan, a plan already there without ``--replace``).
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Iterable

from bagel_studio.core.agreement import AgreementBlock
from bagel_studio.core.assignment import RISK_RULE, PlanError, PlanSettings
from bagel_studio.core.cli import UsageError
from bagel_studio.core.commands.common import add_wait_argument, open_project, print_json
from bagel_studio.core.operations.team import PlanMade, make_plan, next_round
from bagel_studio.core.team.status import TeamStatus, plan_lines, team_status


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "plan",
        help="plan a review team: who reviews which items, more eyes where the risk is",
        description=(
            "With --curators: deal every item to the team and store the plan in the project:"
            " --per-item curators per item, --risky-per-item for the risky ones, a calibration"
            " share every curator sees, dealt under --seed; each curator's load is within one"
            " item of the others' and no curator gets an item twice. Prints the loads and the"
            " items each pair shares. With --next: give every item whose curators have all"
            " decided and disagree to one more curator (the least loaded), up to --max-per-item"
            " curators; hand-out then writes that round's packages. With neither: where the"
            f" plan stands. The risk rule: {RISK_RULE}."
        ),
        epilog="exit status: 0 done, 1 --next found nothing to pass on, 2 usage error",
    )
    parser.add_argument("project", metavar="PROJECT", help="the project file (.bagel)")
    parser.add_argument("--curators", nargs="+", metavar="NAME", help="make a plan for them")
    parser.add_argument(
        "--per-item", type=int, default=2, metavar="N", help="curators per item (default 2)"
    )
    parser.add_argument(
        "--risky-per-item",
        type=int,
        default=3,
        metavar="N",
        help="curators per risky item (default 3; see the risk rule above)",
    )
    parser.add_argument(
        "--calibration",
        default="5%",
        metavar="P",
        help="the share of items every curator sees, as 5%% or 0.05 (default 5%%)",
    )
    parser.add_argument(
        "--seed", type=int, default=0, help="the seed the deal is drawn under (default 0)"
    )
    parser.add_argument(
        "--max-per-item",
        type=int,
        default=0,
        metavar="N",
        help="further rounds stop at N curators per item (default: one more than"
        " --risky-per-item or --per-item, at most the team)",
    )
    parser.add_argument(
        "--replace", action="store_true", help="replace the project's plan with a new one"
    )
    parser.add_argument(
        "--next", action="store_true", help="the next round: a further curator per disagreement"
    )
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    add_wait_argument(parser)


def calibration_share(text: str) -> float:
    """``5%`` or ``0.05`` as a share; a UsageError for anything else."""
    raw = text.strip()
    try:
        value = float(raw[:-1]) / 100 if raw.endswith("%") else float(raw)
    except ValueError:
        raise UsageError(f"--calibration: {text!r} is not a share (say 5% or 0.05)") from None
    if not raw.endswith("%") and value > 1:
        raise UsageError(f"--calibration: {text!r} is more than the whole (say 5% or 0.05)")
    if not 0 <= value <= 1:
        raise UsageError(f"--calibration: {text!r} is not between 0% and 100%")
    return value


def run(args: argparse.Namespace) -> int:
    if args.curators and args.next:
        raise UsageError("--curators makes a plan, --next its next round: one at a time")
    if not args.curators and not args.next:
        return _show(args)
    with open_project(args.project, wait=args.wait) as store:
        try:
            if args.next:
                result = next_round(store).result
            else:
                settings = PlanSettings(
                    curators=tuple(args.curators),
                    per_item=args.per_item,
                    risky_per_item=args.risky_per_item,
                    calibration=calibration_share(args.calibration),
                    seed=args.seed,
                    max_per_item=args.max_per_item,
                )
                made = make_plan(store, settings, replace=args.replace).result
        except PlanError as exc:
            raise UsageError(str(exc)) from exc
    if args.next:
        data = {
            "round": result.number,
            "assignments": len(result.assignments),
            "curators": _counts(a.curator for a in result.assignments),
            "at_limit": result.at_limit,
        }
        if args.json:
            print_json(data)
        else:
            sys.stdout.write("\n".join(_round_lines(data)) + "\n")
        return 0 if result.assignments else 1
    if args.json:
        print_json(plan_json(made))
    else:
        sys.stdout.write("\n".join(plan_lines(made)) + "\n")
    return 0


def _counts(names: Iterable[str]) -> dict[str, int]:
    return dict(sorted(Counter(names).items()))


def _round_lines(data: dict[str, object]) -> list[str]:
    at_limit = data["at_limit"]
    assert isinstance(at_limit, list)
    curators = data["curators"]
    assert isinstance(curators, dict)
    if not curators:
        lines = ["no disagreement to pass on: no new round"]
    else:
        given = ", ".join(f"{c} {n:,}" for c, n in curators.items())
        lines = [
            f"round {data['round']}: {data['assignments']:,} items to a further curator ({given});"
            " bagel-studio hand-out writes their packages"
        ]
    if at_limit:
        lines.append(
            f"{len(at_limit):,} disagreements already have the most curators the plan allows:"
            " the adjudicator's"
        )
    return lines


def plan_json(made: PlanMade) -> dict[str, object]:
    deal = made.deal
    return {
        "plan": made.plan_id,
        "replaced": made.replaced,
        "items": made.items,
        "settings": made.settings.to_json(),
        "calibration_items": len(deal.calibration),
        "risky_items": len(deal.risky),
        "loads": deal.loads,
        "shared": [{"a": a, "b": b, "items": n} for (a, b), n in deal.shared.items()],
        "items_by_curators": {str(k): v for k, v in deal.coverage().items()},
    }


def _show(args: argparse.Namespace) -> int:
    with open_project(args.project, read_only=True) as store:
        try:
            status = team_status(store)
        except PlanError as exc:
            raise UsageError(str(exc)) from exc
    if args.json:
        print_json(status.to_json())
    else:
        sys.stdout.write("\n".join(status_lines(status)) + "\n")
    return 0


def status_lines(status: TeamStatus) -> list[str]:
    """Where the plan stands, per curator and with the agreement and the items it is on."""
    s = status.plan.settings
    lines = [
        f"plan {status.plan.id} (made {status.plan.created_at[:16].replace('T', ' ')}):"
        f" {len(status.items):,} items, {len(s.curators)} curators, round {status.rounds}",
    ]
    width = max(7, *(len(c.curator) for c in status.curators))
    lines.append(
        f"{'curator':<{width}}  {'assigned':>8}  {'decided':>8}  {'shared':>7}  {'kappa':>6}"
        "  waiting"
    )
    for c in status.curators:
        kappa = "-" if c.kappa is None else f"{c.kappa:.2f}"
        lines.append(
            f"{c.curator:<{width}}  {c.assigned:>8,}  {c.decided:>8,}  {c.shared:>7,}"
            f"  {kappa:>6}  {c.waiting:>7,}"
        )
    lines.append(
        f"{len(status.waiting):,} items wait for a further look (plan --next);"
        f" {len(status.at_limit):,} disagreements are at the limit ({s.limit} curators):"
        " the adjudicator's"
    )
    lines.append(_agreement_line("calibration share", status.calibration))
    lines.append(_agreement_line("overlap", status.overlap))
    return lines


def _agreement_line(name: str, block: AgreementBlock) -> str:
    kappas = [p.kappa for p in block.pairs if p.kappa is not None]
    mean = f"{sum(kappas) / len(kappas):.2f}" if kappas else "-"
    fleiss = "-" if block.fleiss_kappa is None else f"{block.fleiss_kappa:.2f}"
    return (
        f"agreement on the {name}: {block.items_rated:,} items decided by two or more"
        f" ({block.fleiss_items:,} by every curator: Fleiss' kappa {fleiss});"
        f" mean Cohen's kappa of the pairs {mean}"
    )
