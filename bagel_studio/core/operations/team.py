"""A review team's plan: making it and its further rounds, one transaction each.

``make_plan`` deals the project's items to the team (``core.assignment.deal``) from what the
project says of them now (their domains, and the risky ones by ``assignment.RISK_RULE``) and
stores the plan with a new id and key. ``next_round`` passes every disagreement of the current
plan to one more curator (``assignment.further_round``) as a new round. Both read and write in
the same transaction, so the plan is made from the project as it is when it is stored.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable
from dataclasses import dataclass

from bagel_studio.core.assignment import (
    CALIBRATION,
    RISKY_INFO_CHECKS,
    VERDICT_CATEGORY,
    Deal,
    ItemState,
    PlanError,
    PlanSettings,
    Round,
    deal,
    further_round,
)
from bagel_studio.core.changes import Changes, Done
from bagel_studio.core.store import Store
from bagel_studio.core.store.team import PlanRecord


@dataclass(frozen=True)
class PlanMade:
    """A plan stored: its id and settings, and its first round's deal."""

    plan_id: str
    settings: PlanSettings
    deal: Deal
    items: int
    replaced: str | None  # the plan it replaced as current, if any


def make_plan(store: Store, settings: PlanSettings, *, replace: bool = False) -> Done[PlanMade]:
    """Deal every item of ``store`` to ``settings.curators`` and store the plan as the current
    one. A project that has a plan already keeps it unless ``replace`` (its packages are then
    refused when collected): raises ``PlanError`` saying so."""
    with store.transaction():
        current = store.team.current_plan()
        if current is not None and not replace:
            raise PlanError(
                f"this project already has a review plan ({current.id}, made"
                f" {current.created_at[:16].replace('T', ' ')}); a new one replaces it, and its"
                " packages could no longer be collected: say --replace to make it anyway"
            )
        rows = store.team.item_domains()
        if not rows:
            raise PlanError("the project has no items to plan a review of")
        item_ids = [item_id for item_id, _domain in rows]
        risky = store.team.risky_ids(RISKY_INFO_CHECKS)
        dealt = deal(item_ids, dict(rows), risky, settings)
        plan_id = _new_id(store)
        store.team.add_plan(plan_id, settings, secrets.token_hex(16))
        store.team.add_assignments(plan_id, dealt.assignments)
    made = PlanMade(plan_id, settings, dealt, len(item_ids), current.id if current else None)
    return Done(made, Changes(team=True))


def _new_id(store: Store) -> str:
    """A plan id no plan of this project has (eight hex digits: short enough to say aloud)."""
    taken = set(store.team.plan_ids())
    while (plan_id := secrets.token_hex(4)) in taken:
        continue
    return plan_id


def item_states(store: Store, plan_id: str) -> list[ItemState]:
    """Where each item of the plan stands (its curators, their verdicts by the agreement's
    categories: ``assignment.VERDICT_CATEGORY``), the items in queue order."""
    return list(_states(store.team.item_rows(plan_id)))


def _states(rows: Iterable[tuple[str, str, str, str | None, bool]]) -> Iterable[ItemState]:
    current: str | None = None
    curators: list[str] = []
    decided: dict[str, str] = {}
    verdicts: dict[str, str] = {}
    adjudicated = calibration = False
    for item_id, curator, reason, decision, judged in rows:
        if item_id != current:
            if current is not None:
                yield ItemState(
                    current, tuple(curators), verdicts, adjudicated, calibration, decided
                )
            current, curators, decided, verdicts = item_id, [], {}, {}
            adjudicated, calibration = judged, reason == CALIBRATION
        curators.append(curator)
        if decision is not None:
            decided[curator] = decision
        if decision in VERDICT_CATEGORY:
            verdicts[curator] = VERDICT_CATEGORY[decision]
    if current is not None:
        yield ItemState(current, tuple(curators), verdicts, adjudicated, calibration, decided)


def require_plan(store: Store) -> PlanRecord:
    """The current plan, or ``PlanError`` saying there is none."""
    plan = store.team.current_plan()
    if plan is None:
        raise PlanError(
            "this project has no review plan yet: make one with bagel-studio plan PROJECT"
            " --curators NAME..."
        )
    return plan


def next_round(store: Store) -> Done[Round]:
    """One more curator for every item of the current plan whose curators have all decided and
    disagree, below the plan's limit, as a new round (none is stored when no item needs one)."""
    with store.transaction():
        plan = require_plan(store)
        states = item_states(store, plan.id)
        number = store.team.last_round(plan.id) + 1
        result = further_round(states, plan.settings, store.team.loads(plan.id), number)
        if result.assignments:
            store.team.add_assignments(plan.id, result.assignments)
    return Done(result, Changes(team=bool(result.assignments)))
