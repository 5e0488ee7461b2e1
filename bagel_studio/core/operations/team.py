"""A review team's plan: making it and its further rounds, one transaction each.

``make_plan`` deals the project's items to the team (``core.assignment.deal``) from what the
project says of them now (their domains, and the risky ones by ``assignment.RISK_RULE``) and
stores the plan with a new id and key. ``next_round`` passes every disagreement of the current
plan to one more curator (``assignment.further_round``) as a new round. Both read and write in
the same transaction, so the plan is made from the project as it is when it is stored.
``collect`` brings the curators' packages back (``operations.handout`` writes them): every
package is checked first, and then all are merged in one transaction, or none is.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from bagel_studio.core.assignment import (
    CALIBRATION,
    RISKY_INFO_CHECKS,
    VERDICT_CATEGORY,
    Deal,
    ItemState,
    PlanError,
    PlanSettings,
    Round,
    binding,
    deal,
    further_round,
)
from bagel_studio.core.changes import Changes, Done, Part
from bagel_studio.core.checks import check_all
from bagel_studio.core.model import Review, cleaned_curator_name
from bagel_studio.core.operations.merge import (
    FileMerge,
    date_problem,
    file_sha256,
    latest_allowed,
    merge_review,
)
from bagel_studio.core.store import Store, StoreError
from bagel_studio.core.store.team import PACKAGE_META, PlanRecord


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


# -- collecting packages back -----------------------------------------------------------------


@dataclass
class PackageCollected:
    """What collecting one package did: its curator's decisions merged by the merge's rules
    (``merge``), and what it held that was left out."""

    merge: FileMerge
    curator: str
    round: int
    left_out_others: int  # decisions under another name than the package's curator
    left_out_unassigned: int  # the curator's decisions on items not in the package

    def to_json(self) -> dict[str, Any]:
        data = asdict(self.merge)
        data.update(
            curator=self.curator,
            round=self.round,
            left_out_others=self.left_out_others,
            left_out_unassigned=self.left_out_unassigned,
        )
        return data


@dataclass
class Collected:
    plan_id: str
    packages: list[PackageCollected] = field(default_factory=list)


class CollectRefused(StoreError):
    """Packages that cannot be collected, one line each naming why; nothing was collected."""

    def __init__(self, lines: list[str]) -> None:
        super().__init__("; ".join(lines))
        self.lines = lines


@dataclass(frozen=True)
class _Accepted:
    other: Store
    curator: str
    round: int
    reviews: list[Review]
    left_out_others: int
    left_out_unassigned: int


def collect(store: Store, packages: Sequence[Store]) -> Done[Collected]:
    """Merge back the decisions of ``packages`` (each open read-only): of each, only its
    curator's decisions on the items the plan gave them in its round, under their name, by the
    merge's rules (the newer of two decisions current, the older in the history). All packages
    are checked before anything is written, in one transaction: a package of another plan, not
    bound to the curator it names, with items that differ from the project's, or with a decision
    dated in the future (beyond ``CLOCK_SKEW``) or after the package was first collected, is
    refused with one line saying why (``CollectRefused``), and nothing is collected."""
    with store.transaction():
        plan = require_plan(store)
        now = store.clock()
        refusals: list[str] = []
        accepted: list[_Accepted] = []
        for other in packages:
            checked = _check_package(store, plan, other, now)
            if isinstance(checked, str):
                refusals.append(f"{other.path.name}: {checked}")
            else:
                accepted.append(checked)
        if refusals:
            raise CollectRefused(refusals)
        result = Collected(plan.id)
        touched: set[str] = set()
        historied: set[str] = set()
        for package in accepted:
            merge = FileMerge(
                path=str(package.other.path),
                name=package.other.path.name,
                sha256=file_sha256(package.other.path),
                items_matched=len(package.reviews),
                curators=[package.curator],
            )
            for review in package.reviews:
                merged = merge_review(store, review, merge)
                if merged == "current":
                    touched.add(review.item_id)
                elif merged == "older":
                    historied.add(review.item_id)
            collected = PackageCollected(
                merge,
                package.curator,
                package.round,
                package.left_out_others,
                package.left_out_unassigned,
            )
            store.team.record_collection(
                plan.id,
                package.curator,
                package.round,
                merge.path,
                merge.sha256,
                collected.to_json(),
            )
            result.packages.append(collected)
        if touched:
            check_all(store, sorted(touched))
    parts = Part.STATUS | Part.REVIEWS | (Part.FLAGS if touched else Part.NONE)
    changes = Changes.of_items(historied, Part.REVIEWS) | Changes.of_items(touched, parts)
    return Done(result, changes | Changes(team=True))


def _check_package(store: Store, plan: PlanRecord, other: Store, now: str) -> _Accepted | str:
    """The package's decisions to collect, or why it is refused (one line)."""
    meta = other.project.get_meta(PACKAGE_META)
    if not isinstance(meta, dict):
        return "not a hand-out package (a whole project's copy is merged: bagel-studio merge)"
    plan_id, curator, round_ = meta.get("plan"), meta.get("curator"), meta.get("round")
    if plan_id != plan.id:
        if isinstance(plan_id, str) and store.team.plan(plan_id) is not None:
            return f"a package of plan {plan_id}, which plan {plan.id} replaced"
        return f"a package of plan {plan_id}, not of this project's plan {plan.id}"
    if not isinstance(curator, str) or not isinstance(round_, int):
        return "its package record names no curator or round (it was edited)"
    curator = cleaned_curator_name(curator)  # " alice" is alice, as in her decisions
    if meta.get("binding") != binding(plan.secret, plan.id, curator, round_):
        owner = _bound_to(store, plan, str(meta.get("binding")))
        if owner is None:
            return (
                f"says it is {curator}'s package, but its binding matches no package of plan"
                f" {plan.id} (it was edited)"
            )
        if owner[0] != curator:
            return f"says it is {curator}'s package, but it was handed out to {owner[0]}"
        return f"says it is round {round_}, but it was handed out as round {owner[1]}"
    assigned = {a.item_id for a in store.team.assignments(plan.id, curator, round_)}
    ours = store.items.original_hashes_of(sorted(assigned))
    differing = sorted(
        i for i, h in other.items.original_hashes_of(sorted(assigned)).items() if ours.get(i) != h
    )
    if differing:
        return (
            f"{len(differing):,} of its items differ from this project's (same id, other"
            f" original content), first {differing[0]}"
        )
    limit = latest_allowed(now)
    collected_at = store.team.first_collected(plan.id, curator, round_)
    reviews: list[Review] = []
    unassigned = 0
    for review in other.reviews.of_curator(curator):
        if review.item_id not in assigned:
            unassigned += 1
            continue
        problem = date_problem(review.decided_at, limit, collected_at)
        if problem is not None:
            return f"{curator}'s decision on {review.item_id} {problem}"
        reviews.append(review)
    others = other.reviews.count_not_by(curator)
    return _Accepted(other, curator, round_, reviews, others, unassigned)


def _bound_to(store: Store, plan: PlanRecord, given: str) -> tuple[str, int] | None:
    """The curator and round whose package binding is ``given``, or None."""
    for round_ in range(1, store.team.last_round(plan.id) + 1):
        for curator in plan.settings.curators:
            if binding(plan.secret, plan.id, curator, round_) == given:
                return curator, round_
    return None
