"""The export as named stages, run one after another on one process.

    collect -> plan -> deal -> render -> write -> report

* collect (``collect``): what the project holds: its items per domain and status, the reject
  reasons, the recordings' licences and the blocking flags;
* plan (``plan_domain``): which of a domain's items the release takes, a batch at a time, in
  release order (natural id order): each batch read once (``stored.read_batch``), each item
  checked and its lines prepared but for its option order (``plan.plan_batch``,
  ``render.Preparer``);
* deal (``deal``): the domain's gold positions dealt out in exact proportions, each item's place
  noted (``Slot.target``);
* render (``render.finish``): each batch's lines completed with its options in dealt order;
* write (``release.ItemWriter``): the lines streamed into the data and provenance files, the
  content hash, lengths and audit features gathered on the way (the content hash takes each
  batch as soon as it is prepared: its lines need no deal);
* report (``release.write_documents``): the report, the dataset card and the manifest.

``export_release`` runs them a domain at a time, while the project's full check
(``Store.sound_beside``) runs beside them on a thread of its own: the release is written into a
temporary folder and kept only if the check finds the file sound (a damaged file would be
released as it reads). A domain's items are read once, and written as soon as the domain is
dealt, so memory holds one domain's prepared lines at most. A blocked item
found on the way stops the writing (the folder is removed: nothing is left behind) and the rest
is planned only to name every blocked item. ``plan_export`` stops after the deal (the desk's
preview; a model shown the release's order); ``write_release`` writes such a plan, reading its
items again and stopping if one changed since.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from bagel_studio.core.bulk import give_back, paused_gc
from bagel_studio.core.collect import blocking, licences
from bagel_studio.core.export.atomic import check_out_dir
from bagel_studio.core.export.balance import (
    POSITIONS,
    allowed_positions,
    deal_groups,
    natural_key,
    natural_order,
)
from bagel_studio.core.export.plan import (
    REJECTED,
    RELEASED_VALUES,
    UNRESOLVED,
    BlockedItem,
    ExportError,
    ExportPlan,
    ReleasedItems,
    Slot,
    domain_order,
    plan_batch,
    snapshot,
)
from bagel_studio.core.export.release import (
    ExportBlockedError,
    ExportResult,
    ItemWriter,
    NothingToReleaseError,
    Progress,
    Signer,
    write_documents,
    writing,
)
from bagel_studio.core.export.render import PreparedBatch, Preparer, finish, render
from bagel_studio.core.export.stored import read_batch
from bagel_studio.core.model import Decision, ItemContent, Status
from bagel_studio.core.report.release import DomainBalance
from bagel_studio.core.store import Store

PERCENT = 100  # export_release reports progress in percent
ITEMS_SHARE = 90  # the part of it spent on the items (the report, card and manifest: the rest)
_STATUS_VALUES = frozenset(s.value for s in Status)


@dataclass(frozen=True)
class Project:
    """What the collect stage reads of the project (as of one moment: one read transaction)."""

    outcomes: dict[str, Counter[str]]  # domain -> status -> items
    left_out: dict[str, Counter[str]]  # status -> domain -> items not released
    reject_reasons: dict[str, Counter[str]]  # domain -> reason -> rejected items
    candidates: dict[str, int]  # domain -> items a release may take, domains in release order
    licences: dict[str, str]  # casefolded recording id -> licence
    blocking: dict[str, list[str]]  # item id -> messages of its blocking flags

    @property
    def total(self) -> int:
        return sum(self.candidates.values())


@dataclass
class DomainPlan:
    """What the plan stage finds in one domain: its released items (``slots``, per batch), the
    lines prepared for them (per batch, when asked for), the blocked items, the accepted or
    revised items without one content to release, the recordings without a known licence."""

    batches: list[list[Slot]] = field(default_factory=list)
    prepared: list[PreparedBatch] = field(default_factory=list)
    blocked: list[BlockedItem] = field(default_factory=list)
    unresolved: int = 0
    unknown: set[str] = field(default_factory=set)
    balance: DomainBalance | None = None  # once dealt

    @property
    def slots(self) -> list[Slot]:
        return [slot for batch in self.batches for slot in batch]


def collect(store: Store) -> Project:
    """Stage 1: the project's counts and lookups."""
    outcomes: dict[str, Counter[str]] = defaultdict(Counter)
    left_out: dict[str, Counter[str]] = defaultdict(Counter)
    for domain, status, count in store.items.status_counts():
        if status not in _STATUS_VALUES:
            raise ExportError(f"an item of {domain} has an unknown status: {status!r}")
        outcomes[domain][status] += count
        if status not in RELEASED_VALUES:
            left_out[status][domain] += count
    reject_reasons: dict[str, Counter[str]] = defaultdict(Counter)
    for domain, reason, count in store.reviews.reject_reason_counts(
        REJECTED, Decision.REJECT.value
    ):
        reject_reasons[domain][reason] += count
    candidates = {
        domain: sum(outcomes[domain][status] for status in RELEASED_VALUES)
        for domain in domain_order(outcomes)
    }
    return Project(outcomes, left_out, reject_reasons, candidates, licences(store), blocking(store))


def plan_domain(
    store: Store,
    project: Project,
    domain: str,
    planned: Callable[[int], None],
    prepare: Callable[[bytes], None] | None = None,
) -> DomainPlan:
    """Stage 2: the items of ``domain`` a release may take, read and planned a batch at a time
    in release order (natural id order, ties in queue order); ``planned`` hears how many items
    each batch held. Given ``prepare``, their lines are prepared too, and ``prepare`` takes
    each batch's lines of the content hash at once (they need no deal: ``render.Preparer``)."""
    ids = store.items.release_candidates(domain, RELEASED_VALUES)
    if len(ids) != project.candidates[domain]:
        raise ExportError(f"the project changed while this export read it ({domain}); export again")
    ids.sort(key=natural_order)
    found = DomainPlan()
    size = ReleasedItems.BATCH
    for start in range(0, len(ids), size):
        batch = ids[start : start + size]
        preparer = Preparer(prepare) if prepare is not None else None
        done = plan_batch(
            read_batch(store, batch), domain, batch, project.licences, project.blocking, preparer
        )
        if done.changed is not None:
            raise ExportError(
                f"the project changed while this export read it ({done.changed}); export again"
            )
        found.batches.append(done.slots)
        if preparer is not None:
            found.prepared.append(preparer.batch())
        found.blocked += done.blocked
        found.unresolved += done.unresolved
        found.unknown |= done.unknown
        planned(len(batch))
    return found


def deal(seed: int, domain: str, slots: list[Slot]) -> DomainBalance:
    """Stage 3: deal the gold positions of one domain's released items (in release order:
    natural id order, so each group of ``balance.deal_groups`` is in that order as it comes)
    and note where each item's gold goes (``Slot.target``, ``Slot.movable``)."""
    groups: dict[frozenset[int], list[Slot]] = defaultdict(list)
    before = [0] * POSITIONS  # every item's gold, curated
    kept = [0] * POSITIONS  # the golds that cannot move
    for slot in slots:
        gold = slot.target = slot.gold
        before[gold] += 1
        where = allowed_positions(gold, slot.fixed)
        if len(where) >= 2:
            groups[where].append(slot)
        else:
            kept[gold] += 1
    moved = [0] * POSITIONS  # where the movable golds go
    for slot, target in deal_groups(seed, domain, groups):
        slot.target = target
        slot.movable = True
        moved[target] += 1
    movable = sum(moved)
    return DomainBalance(
        before=tuple(before),
        after=tuple(k + m for k, m in zip(kept, moved, strict=True)),
        movable_after=tuple(moved),
        movable=movable,
        immovable=len(slots) - movable,
    )


def plan_export(store: Store, seed: int, progress: Progress | None = None) -> ExportPlan:
    """Decide what a release with ``seed`` contains (collect, plan, deal: reads the project,
    writes nothing); ``progress(done, total)`` per batch of items planned."""
    with snapshot(store), paused_gc():
        project = collect(store)
        counter = _Counter(project.total, progress)
        domains = {}
        for domain in project.candidates:
            domains[domain] = plan_domain(store, project, domain, counter.add)
        return _assembled(store, seed, project, domains)


def export_release(
    store: Store,
    out_dir: str | Path,
    seed: int,
    force: bool = False,
    progress: Progress | None = None,
    sign: Signer | None = None,
) -> ExportResult:
    """Write the release of ``store`` under ``seed`` to ``out_dir``: every stage, a domain at a
    time (see the module docstring); ``progress(done, 100)`` in percent; ``sign``: the manifest
    is signed with it (``importers.signing``), its signature written beside it."""
    out = Path(out_dir).absolute()
    check_out_dir(out, force, None if str(store.path) == ":memory:" else store.path)
    # a damaged file would be released as it reads: checked beside the stages, the release
    # kept only if it is sound (``Store.sound_beside``)
    with (
        store.sound_beside() as sound,
        snapshot(store),
        paused_gc(),
        writing(out) as (folder, items),
    ):
        project = collect(store)
        counter = _Counter(project.total, _percent(progress, 0, ITEMS_SHARE))
        domains = {}
        for domain in project.candidates:
            found = plan_domain(store, project, domain, counter.add, items.hash)
            domains[domain] = found
            if any(d.blocked for d in domains.values()):
                continue  # nothing more is written: the release will not be
            _render_and_write(seed, domain, found, items)
        plan = _assembled(store, seed, project, domains)
        _releasable(plan)
        return write_documents(
            plan, folder, items, _percent(progress, ITEMS_SHARE, PERCENT), sign, sound
        )


def write_release(
    plan: ExportPlan,
    out_dir: Path,
    force: bool = False,
    progress: Progress | None = None,
    project: Path | None = None,
) -> ExportResult:
    """Render and write an already computed plan (the desk plans once for the preview, then
    may write it): its items are read again, a batch at a time (``render.render``), and the
    export stops if one changed since the plan."""
    if plan.blocked:
        raise ExportBlockedError(plan.blocked)
    check_out_dir(out_dir, force, project)
    items = plan.items
    with (
        items.store.sound_beside() as sound,
        snapshot(items.store),
        paused_gc(),
        writing(out_dir) as (folder, writer),
    ):
        counter = _Counter(len(items), _percent(progress, 0, ITEMS_SHARE))
        for start in range(0, len(items), items.BATCH):
            batch = items.slots[start : start + items.BATCH]
            writer.add(render(items.store, batch, items.seed))
            counter.add(len(batch))
        return write_documents(
            plan, folder, writer, _percent(progress, ITEMS_SHARE, PERCENT), sound=sound
        )


def shown_order(store: Store, seed: int) -> dict[str, tuple[ItemContent, tuple[int, ...]]]:
    """The released items as the release with ``seed`` shows them: item id -> (released
    content, option order); what the models are asked with a seed (``llm.evaluate.Shown``)."""
    plan = plan_export(store, seed)
    return {r.item.id: (r.content, tuple(r.order)) for r in plan.items}


def _render_and_write(seed: int, domain: str, found: DomainPlan, items: ItemWriter) -> None:
    """Stages 3 to 5 for a planned domain: deal it, finish each batch's lines, write them."""
    found.balance = deal(seed, domain, found.slots) if found.slots else None
    for prepared, slots in zip(found.prepared, found.batches, strict=True):
        targets, movable = [s.target for s in slots], [s.movable for s in slots]
        items.add(finish(prepared, seed, targets, movable))
    found.prepared.clear()  # written: the lines may go
    give_back()  # and the memory they took, before the next domain's (``bulk.give_back``)


def _assembled(
    store: Store, seed: int, project: Project, domains: dict[str, DomainPlan]
) -> ExportPlan:
    """The plan of the planned ``domains`` (dealt here if not yet), with the models' tables and
    what the recordings say of their items' species."""
    left_out = project.left_out
    balance: dict[str, DomainBalance] = {}
    for domain, found in domains.items():
        slots = found.slots
        if slots:
            balance[domain] = found.balance or deal(seed, domain, slots)
        if found.unresolved:
            left_out[UNRESOLVED][domain] += found.unresolved
    every = domain_order([*project.outcomes, *balance])
    outcomes, reasons = project.outcomes, project.reject_reasons
    slots = [slot for found in domains.values() for slot in found.slots]
    blocked = [b for found in domains.values() for b in found.blocked]
    unknown = {recording for found in domains.values() for recording in found.unknown}
    plan = ExportPlan(
        seed=seed,
        items=ReleasedItems(store, slots, seed),
        blocked=tuple(sorted(blocked, key=lambda b: natural_key(b.item_id))),
        left_out={s: dict(sorted(c.items())) for s, c in sorted(left_out.items())},
        outcomes={d: dict(sorted(outcomes[d].items())) for d in every if outcomes[d]},
        reject_reasons={d: dict(sorted(reasons[d].items())) for d in every if reasons[d]},
        balance={d: balance.get(d, _empty_balance()) for d in every},
        licences=dict(sorted(Counter(s.licence for s in slots if s.licence).items())),
        unknown_licence=tuple(sorted(unknown, key=natural_key)),
    )
    from bagel_studio.core.export.species_section import species_counts

    return replace(plan, models=_model_report(store, plan), species=species_counts(store, plan))


def _model_report(store: Store, plan: ExportPlan) -> dict[str, Any]:
    """The models' tables over the released items (empty when no model was evaluated), from
    what the plan keeps of each item (no item is read again)."""
    from bagel_studio.core.llm.report import model_report  # lazy: only releases need it

    return model_report(
        store, [(s.item_id, s.domain, s.level) for s in plan.items.slots], plan.seed
    )


def _releasable(plan: ExportPlan) -> None:
    """Raise when ``plan`` cannot be released: blocked items, or nothing accepted."""
    if plan.blocked:
        raise ExportBlockedError(plan.blocked)
    if not plan.items:
        left_out = ", ".join(f"{n} {s}" for s, n in plan.left_out_totals().items())
        raise NothingToReleaseError(f"nothing to release: no item is accepted ({left_out})")


def _empty_balance() -> DomainBalance:
    zero = (0,) * POSITIONS
    return DomainBalance(zero, zero, zero, 0, 0)


class _Counter:
    """Counts the items done and tells ``progress`` (done, total)."""

    def __init__(self, total: int, progress: Progress | None) -> None:
        self.total, self.done, self.progress = total, 0, progress

    def add(self, items: int) -> None:
        self.done += items
        if self.progress is not None:
            self.progress(self.done, max(self.total, self.done))


def _percent(progress: Progress | None, start: int, end: int) -> Progress | None:
    """``progress`` in percent, ``done / total`` of the way from ``start`` to ``end``."""
    if progress is None:
        return None

    def told(done: int, total: int) -> None:
        progress(start + (end - start) * done // max(total, 1), PERCENT)

    return told
