"""What a release will contain: the items that go out, those left out and why, those that block it.

Planning only reads the project, so the desk can show it as a preview for any seed before anything
is written, and the writer then turns the very same plan into files.
"""

from __future__ import annotations

import gc
import hashlib
import json
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any

from bagel_studio.core.checks.structural import structural_flags
from bagel_studio.core.domains import DOMAINS
from bagel_studio.core.export.balance import (
    Movable,
    allowed_positions,
    deal_targets,
    natural_key,
    permutation,
    position_counts,
)
from bagel_studio.core.export.collect import Decisions, collect
from bagel_studio.core.export.fixed import fixed_positions
from bagel_studio.core.model import Decision, Item, ItemContent, Review, Status
from bagel_studio.core.store import Store
from bagel_studio.core.store.rows import released_content

Progress = Callable[[int, int], None]

RELEASED_STATUSES = (Status.ACCEPTED, Status.REVISED)
UNRESOLVED = "unresolved"  # accepted or revised, but the store holds no single content to release

# ``json.dumps(value, ensure_ascii=False, sort_keys=True)`` without a new encoder per call.
_SORTED = json.JSONEncoder(ensure_ascii=False, sort_keys=True).encode
_ND = re.compile(r"(?:^|[^a-z])nd(?:[^a-z]|$)|noderiv|no[ -]?derivative", re.IGNORECASE)


class ExportError(RuntimeError):
    """An export that cannot go ahead, with a message meant for the curator."""


def is_nd_licence(licence: str | None) -> bool:
    """True for a NoDerivatives licence (URL or name): such evidence may not enter a release."""
    return bool(licence) and bool(_ND.search(licence or ""))


@dataclass(frozen=True)
class BlockedItem:
    """An item that would be released but must not be, and why."""

    item_id: str
    domain: str
    reasons: tuple[str, ...]

    def __str__(self) -> str:
        return f"{self.item_id} ({self.domain}): " + "; ".join(self.reasons)


@dataclass(frozen=True)
class ReleasedItem:
    """One released item: the approved content and where its options go."""

    item: Item
    content: ItemContent  # the approved content, in its curated (pre-shuffle) order
    fixed: frozenset[int]
    movable: bool
    order: tuple[int, ...]  # new options[i] is content.options[order[i]]
    reviews: tuple[Review, ...]
    adjudication: dict[str, Any] | None
    recording_licence: str | None

    @property
    def options(self) -> tuple[str, ...]:
        return tuple(self.content.options[i] for i in self.order)

    @property
    def answer_index(self) -> int:
        assert self.content.answer_index is not None  # released items passed the structure check
        return self.order.index(self.content.answer_index)


@dataclass(frozen=True)
class DomainBalance:
    """Gold positions of one domain before and after shuffling."""

    before: tuple[int, ...]  # curated order, every released item
    after: tuple[int, ...]  # shuffled, every released item
    movable_after: tuple[int, ...]  # shuffled, only the items whose gold could move
    movable: int
    immovable: int

    @property
    def spread(self) -> int:
        """Largest difference between two positions among the movable items (the target is <= 1)."""
        return max(self.movable_after) - min(self.movable_after) if self.movable else 0


@dataclass(frozen=True)
class ExportPlan:
    seed: int
    items: tuple[ReleasedItem, ...]  # release order: domain, then natural id order
    blocked: tuple[BlockedItem, ...]
    left_out: dict[str, dict[str, int]]  # status -> domain -> count
    outcomes: dict[str, dict[str, int]]  # domain -> status -> count, every item of the project
    reject_reasons: dict[str, dict[str, int]]  # domain -> reason -> rejected items
    balance: dict[str, DomainBalance]
    licences: dict[str, int] = field(default_factory=dict)  # licence -> released items using it
    unknown_licence: tuple[str, ...] = ()  # recordings referenced without a known licence
    models: dict[str, Any] = field(default_factory=dict)  # the models' tables (llm.report)

    @property
    def domains(self) -> list[str]:
        return list(self.balance)

    @cached_property
    def content_hash(self) -> str:
        """SHA-256 of the released items' approved content before shuffling (so independent of
        the seed): two projects with the same hash release the same items."""
        lines = [
            # json.dumps({"id", "domain", "content", "recording"}, sort_keys=True), built directly
            f'{{"content": {r.content.canonical_json()}, "domain": {_SORTED(r.item.domain)}, '
            f'"id": {_SORTED(r.item.id)}, "recording": {_SORTED(recording_id(r.item))}}}\n'
            for r in self.items
        ]
        return hashlib.sha256("".join(lines).encode("utf-8")).hexdigest()

    def released_by_domain(self) -> dict[str, int]:
        counts = Counter(r.item.domain for r in self.items)
        return {d: counts[d] for d in self.domains}

    def left_out_totals(self) -> dict[str, int]:
        return {status: sum(by.values()) for status, by in self.left_out.items()}

    def dimension_counts(self) -> dict[str, dict[str, int]]:
        """domain -> dimension -> released items (the paper's Table 2)."""
        table: dict[str, Counter[str]] = defaultdict(Counter)
        for r in self.items:
            table[r.item.domain][r.content.dimension or "(none)"] += 1
        return {d: dict(sorted(table[d].items())) for d in self.domains}


def domain_order(domains: Iterable[str]) -> list[str]:
    """BAGEL's domains in the paper's order, any others after them alphabetically."""
    present = set(domains)
    return [d for d in DOMAINS if d in present] + sorted(present - set(DOMAINS))


def content_json(content: ItemContent) -> dict[str, Any]:
    """``ItemContent.to_json()`` without ``dataclasses.asdict`` (which is slow on 12k items)."""
    return {
        "question": content.question,
        "options": list(content.options),
        "answer_index": content.answer_index,
        "dimension": content.dimension,
        "level": content.level,
    }


def recording_id(item: Item) -> str | None:
    """The Xeno-canto recording an item was generated from, if any."""
    if item.recording_id:
        return item.recording_id
    value = item.source.get("recording") if isinstance(item.source, dict) else None
    return str(value) if value else None


@contextmanager
def snapshot(store: Store) -> Iterator[None]:
    """Read a read-only project inside one transaction, so that every query sees the same moment
    even while the desk keeps writing (WAL readers keep their snapshot). A writable store's
    connection is shared with its writer, so it is read as is."""
    with store.read_snapshot():
        yield


@contextmanager
def gc_paused() -> Iterator[None]:
    """Hold off the cyclic garbage collector while an export builds its ~100k small objects.

    They hold no cycles (reference counting frees them), yet their sheer number makes the
    collector run its full passes again and again: a fifth of the planning time. The pause is
    process-wide but lasts only as long as the export.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def plan_export(store: Store, seed: int, progress: Progress | None = None) -> ExportPlan:
    """Decide what a release with ``seed`` contains (reads the project, writes nothing)."""
    with snapshot(store), gc_paused():
        plan = _plan(store, seed, progress)
        return replace(plan, models=_model_report(store, plan))


def _model_report(store: Store, plan: ExportPlan) -> dict[str, Any]:
    """The models' tables over the released items (empty when no model was evaluated)."""
    from bagel_studio.core.llm.report import model_report  # lazy: only releases need it

    return model_report(store, [(r.item.id, r.item.domain, r.content.level) for r in plan.items])


def _plan(store: Store, seed: int, progress: Progress | None) -> ExportPlan:
    collected = collect(store)
    items = collected.items
    total = len(items)
    outcomes: dict[str, Counter[str]] = defaultdict(Counter)
    left_out: dict[str, Counter[str]] = defaultdict(Counter)
    reject_reasons: dict[str, Counter[str]] = defaultdict(Counter)
    blocked: list[BlockedItem] = []
    kept: list[tuple[Item, ItemContent, str | None]] = []
    licences = collected.licences
    unknown: set[str] = set()
    blocking = collected.blocking
    decisions = collected.decisions
    for done, item in enumerate(items, start=1):
        outcomes[item.domain][item.status.value] += 1
        if item.status is Status.REJECTED:
            reject_reasons[item.domain].update(_reject_reasons(decisions, item.id))
        if item.status in RELEASED_STATUSES:
            content = _final_content(decisions, item.id)
            if content is None:
                left_out[UNRESOLVED][item.domain] += 1
            else:
                recording = recording_id(item)
                licence = licences.get(recording.casefold()) if recording else None
                if recording and licence is None:
                    unknown.add(recording)
                reasons = _block_reasons(
                    item, content, blocking.get(item.id, []), recording, licence
                )
                if reasons:
                    blocked.append(BlockedItem(item.id, item.domain, reasons))
                else:
                    kept.append((item, content, licence))
        else:
            left_out[item.status.value][item.domain] += 1
        if progress is not None and (done % 500 == 0 or done == total):
            progress(done, total)
    released, balance = _shuffle(decisions, seed, kept)
    domains = domain_order([*outcomes, *balance])
    return ExportPlan(
        seed=seed,
        items=released,
        blocked=tuple(sorted(blocked, key=lambda b: natural_key(b.item_id))),
        left_out={s: dict(sorted(c.items())) for s, c in sorted(left_out.items())},
        outcomes={d: dict(sorted(outcomes[d].items())) for d in domains if outcomes[d]},
        reject_reasons={
            d: dict(sorted(reject_reasons[d].items())) for d in domains if reject_reasons[d]
        },
        balance={d: balance.get(d, _empty_balance()) for d in domains},
        licences=dict(
            sorted(Counter(r.recording_licence for r in released if r.recording_licence).items())
        ),
        unknown_licence=tuple(sorted(unknown, key=natural_key)),
    )


def _block_reasons(
    item: Item,
    content: ItemContent,
    flags: list[str],
    recording: str | None,
    licence: str | None,
) -> tuple[str, ...]:
    """Blocking flags, a released content that fails the structural checks, an ND recording."""
    reasons = list(flags)
    reasons += [f.message for f in structural_flags(item.domain, content) if f.message not in flags]
    if recording and is_nd_licence(licence):
        reasons.append(f"recording {recording} is under a NoDerivatives licence ({licence})")
    return tuple(reasons)


def _final_content(decisions: Decisions, item_id: str) -> ItemContent | None:
    """``Store.final_content`` from the reviews and adjudications read in bulk: the same rule
    (``released_content``), without two queries per item; ``test_export_rows`` checks that both
    agree on every item."""
    return released_content(
        decisions.adjudications.get(item_id), decisions.reviews.get(item_id, ())
    )


def _reject_reasons(decisions: Decisions, item_id: str) -> set[str]:
    adjudication = decisions.adjudications.get(item_id)
    if adjudication is not None:
        return {adjudication["reason"] or "other"}
    reviews = decisions.reviews.get(item_id, ())
    return {r.reason or "other" for r in reviews if r.decision is Decision.REJECT}


def _empty_balance() -> DomainBalance:
    zero = (0, 0, 0, 0)
    return DomainBalance(zero, zero, zero, 0, 0)


def _shuffle(
    decisions: Decisions, seed: int, kept: list[tuple[Item, ItemContent, str | None]]
) -> tuple[tuple[ReleasedItem, ...], dict[str, DomainBalance]]:
    """Deal the gold positions of each domain and permute every item's options accordingly."""
    by_domain: dict[str, list[tuple[Item, ItemContent, str | None]]] = defaultdict(list)
    for entry in kept:
        by_domain[entry[0].domain].append(entry)
    released: list[ReleasedItem] = []
    balance: dict[str, DomainBalance] = {}
    for domain in domain_order(by_domain):
        entries = sorted(by_domain[domain], key=lambda e: natural_key(e[0].id))
        fixed = {e[0].id: fixed_positions(e[1].options) for e in entries}
        movable = []
        for item, content, _ in entries:
            allowed = allowed_positions(_gold(content), fixed[item.id])
            if len(allowed) >= 2:
                movable.append(Movable(item.id, allowed))
        targets = deal_targets(seed, domain, movable)
        group = []
        for item, content, licence in entries:
            gold = _gold(content)
            order = permutation(
                seed, domain, item.id, gold, targets.get(item.id, gold), fixed[item.id]
            )
            group.append(
                ReleasedItem(
                    item=item,
                    content=content,
                    fixed=fixed[item.id],
                    movable=item.id in targets,
                    order=order,
                    reviews=decisions.reviews.get(item.id, ()),
                    adjudication=decisions.adjudications.get(item.id),
                    recording_licence=licence,
                )
            )
        released.extend(group)
        balance[domain] = DomainBalance(
            before=tuple(position_counts([_gold(r.content) for r in group])),
            after=tuple(position_counts([r.answer_index for r in group])),
            movable_after=tuple(position_counts([r.answer_index for r in group if r.movable])),
            movable=len(movable),
            immovable=len(group) - len(movable),
        )
    return tuple(released), balance


def _gold(content: ItemContent) -> int:
    assert content.answer_index is not None
    return content.answer_index
