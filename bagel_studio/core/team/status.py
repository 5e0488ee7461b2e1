"""How far a review team has come: per curator, per item, and the agreement measured on which
items.

Per curator: the items assigned (every round), those decided (a skip is not a decision), the
agreement with the others on the items they share (Cohen's kappa over every pair of this
curator's verdict and another's on an item both decided, pooled), and of their items those
waiting for a further look (their curators disagree and no further round has given them to
another curator yet). Per item: who has it and who has decided what (``operations.team.
item_states``). Agreement is said with the items it was measured on: the calibration share
(every curator, so Fleiss' kappa is defined) and the overlap (every item two or more curators
decided; Cohen's kappa per pair, on the items each pair shares). ``plan_lines`` is a new
plan as ``bagel-studio plan`` prints it and the desk's Team view shows it.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from bagel_studio.core.agreement import AgreementBlock, agreement_block, cohen_kappa
from bagel_studio.core.assignment import RISK_RULE, ItemState, PlanError
from bagel_studio.core.operations.team import PlanMade, item_states, require_plan
from bagel_studio.core.store import Store
from bagel_studio.core.store.team import Collection, PlanRecord


@dataclass(frozen=True)
class CuratorStatus:
    curator: str
    assigned: int
    decided: int
    shared: int  # items this curator and another both decided
    kappa: float | None  # agreement with the others on those items (pooled Cohen's kappa)
    waiting: int  # of this curator's items, those waiting for a further look

    def to_json(self) -> dict[str, Any]:
        return {
            "curator": self.curator,
            "assigned": self.assigned,
            "decided": self.decided,
            "shared_decided": self.shared,
            "kappa_with_others": None if self.kappa is None else round(self.kappa, 4),
            "waiting_for_further_look": self.waiting,
        }


@dataclass
class TeamStatus:
    """A plan's state now (``team_status``)."""

    plan: PlanRecord
    curators: list[CuratorStatus]
    items: list[ItemState]
    rounds: int
    waiting: list[str]  # disagreements a further round would give to one more curator
    at_limit: list[str]  # disagreements at the plan's limit: the adjudicator's
    calibration: AgreementBlock  # measured on the calibration share
    overlap: AgreementBlock  # measured on every item two or more curators decided
    collections: list[Collection] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        settings = self.plan.settings
        return {
            "plan": self.plan.id,
            "created_at": self.plan.created_at,
            "settings": settings.to_json(),
            "items": len(self.items),
            "rounds": self.rounds,
            "curators": [c.to_json() for c in self.curators],
            "waiting_for_further_look": len(self.waiting),
            "at_limit": len(self.at_limit),
            "agreement": {
                "calibration": _block_json(self.calibration, "the calibration share"),
                "overlap": _block_json(self.overlap, "every item two or more curators decided"),
            },
            "collected": [
                {"curator": c.curator, "round": c.round, "at": c.collected_at, "path": c.path}
                for c in self.collections
            ],
        }


def _block_json(block: AgreementBlock, measured_on: str) -> dict[str, Any]:
    data = block.to_json()
    data["measured_on"] = measured_on
    return data


def team_status(store: Store) -> TeamStatus:
    """The current plan's state; ``PlanError`` when the project has none."""
    plan = require_plan(store)
    states = item_states(store, plan.id)
    limit = plan.settings.limit
    disagreements = [s for s in states if s.disagreement()]
    waiting = [s.item_id for s in disagreements if len(s.curators) < limit]
    at_limit = [s.item_id for s in disagreements if len(s.curators) >= limit]
    waiting_set = set(waiting)
    assigned: Counter[str] = Counter()
    decided: Counter[str] = Counter()
    waits: Counter[str] = Counter()
    pairs: dict[str, list[tuple[str, str]]] = {c: [] for c in plan.settings.curators}
    shared: Counter[str] = Counter()
    for state in states:
        for curator in state.curators:
            assigned[curator] += 1
            if state.item_id in waiting_set:
                waits[curator] += 1
        for curator, verdict in state.verdicts.items():
            decided[curator] += 1
            others = [(verdict, v) for c, v in state.verdicts.items() if c != curator]
            if others:
                shared[curator] += 1
                pairs.setdefault(curator, []).extend(others)
    curators = [
        CuratorStatus(
            c, assigned[c], decided[c], shared[c], cohen_kappa(pairs.get(c, [])), waits[c]
        )
        for c in plan.settings.curators
    ]
    calibration_ids = {s.item_id for s in states if s.calibration}
    ratings = {s.item_id: dict(s.verdicts) for s in states if len(s.verdicts) >= 2}
    calibration = {i: r for i, r in ratings.items() if i in calibration_ids}
    return TeamStatus(
        plan=plan,
        curators=curators,
        items=states,
        rounds=store.team.last_round(plan.id),
        waiting=waiting,
        at_limit=at_limit,
        calibration=agreement_block("calibration", calibration),
        overlap=agreement_block("overlap", ratings),
        collections=store.team.collections(plan.id),
    )


def plan_lines(made: PlanMade) -> list[str]:
    """The plan as a person reads it: settings, loads, each pair's shared items."""
    s, deal = made.settings, made.deal
    curators = list(s.curators)
    lines = [
        f"plan {made.plan_id}: {made.items:,} items, {len(curators)} curators,"
        f" {s.per_item} per item, {s.risky_per_item} per risky item, seed {s.seed}",
        f"  calibration: {len(deal.calibration):,} items ({s.calibration:.1%}) seen by every"
        " curator",
        f"  {len(deal.risky):,} risky items outside it ({RISK_RULE})",
        f"  further rounds: up to {s.limit} curators per item",
    ]
    if made.replaced:
        lines.append(f"  replaces plan {made.replaced}: its packages can no longer be collected")
    width = max(len(c) for c in curators)
    lines.append("")
    lines.append(f"{'curator':<{width}}  items")
    lines.extend(f"{c:<{width}}  {deal.loads.get(c, 0):>5,}" for c in curators)
    if len(curators) > 1:
        lines.append("")
        lines.append("items each pair shares (calibration included):")
        cell = max(6, *(len(c) for c in curators[1:]))
        lines.append(" " * width + "".join(f"  {c:>{cell}}" for c in curators[1:]))
        for i, a in enumerate(curators[:-1]):
            row = ["" for _ in curators[1 : i + 1]]
            row += [f"{deal.shared.get(_pair(a, b), 0):,}" for b in curators[i + 1 :]]
            lines.append(f"{a:<{width}}" + "".join(f"  {v:>{cell}}" for v in row))
    coverage = ", ".join(f"{n:,} by {k}" for k, n in deal.coverage().items())
    lines.append("")
    lines.append(f"items seen: {coverage}")
    return lines


def _pair(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a <= b else (b, a)


__all__ = ["CuratorStatus", "PlanError", "TeamStatus", "plan_lines", "team_status"]
