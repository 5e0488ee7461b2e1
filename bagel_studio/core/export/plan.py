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
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any, overload

from bagel_studio.core.checks.fixed import fixed_positions
from bagel_studio.core.checks.structural import structural_flags
from bagel_studio.core.checks.verdict import stored_fixed
from bagel_studio.core.domains import DOMAINS
from bagel_studio.core.export import stored
from bagel_studio.core.export.balance import (
    POSITIONS,
    allowed_positions,
    deal_groups,
    natural_key,
    natural_order,
    permutation,
)
from bagel_studio.core.export.collect import Decisions, collect_items
from bagel_studio.core.export.collect import blocking as collected_blocking
from bagel_studio.core.export.collect import licences as collected_licences
from bagel_studio.core.export.stored import ORIGINAL, STATUS, VERDICT, Row, StoredBatch
from bagel_studio.core.model import Decision, Item, ItemContent, Review, Status
from bagel_studio.core.store import Store
from bagel_studio.core.store.rows import released_content

Progress = Callable[[int, int], None]

RELEASED_STATUSES = (Status.ACCEPTED, Status.REVISED)
RELEASED_VALUES = frozenset(s.value for s in RELEASED_STATUSES)
REJECTED = Status.REJECTED.value
_STATUS_VALUES = {s.value: s.value for s in Status}  # an unknown status fails as decoding would
UNRESOLVED = "unresolved"  # accepted or revised, but the store holds no single content to release
TAIL_BATCH = 200  # the least items a batch of the domain planned last holds (``batch_sizes``)

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


@dataclass(slots=True)
class Slot:
    """What the plan keeps of a released item: enough to deal, count and find it again (a
    few small values, the strings and sets shared between items: 200,000 of them are a plan).
    ``movable`` and ``target`` are set once, when the gold positions are dealt; the option
    order follows from them (``order``), computed where the item is rendered."""

    item_id: str
    domain: str
    dimension: str | None
    level: str | None
    gold: int
    fixed: frozenset[int]
    licence: str | None
    digest: int  # of the released content, to tell that the project has not changed since
    movable: bool = False
    target: int = -1  # where the gold goes

    def order(self, seed: int) -> tuple[int, ...]:
        """The released option order: ``options[i]`` is the curated ``options[order[i]]``."""
        return permutation(seed, self.domain, self.item_id, self.gold, self.target, self.fixed)


class ReleasedItems(Sequence[ReleasedItem]):
    """The released items in release order, read from the project a batch at a time whenever
    they are gone through: a plan of 200,000 items holds a few small values per item, not the
    items (writing the release streams them into its files)."""

    BATCH = 1000  # items read at a time; the batches workers plan and finish (``processes``)

    def __init__(self, store: Store, slots: Sequence[Slot], seed: int) -> None:
        self.store = store
        self.slots = tuple(slots)
        self.seed = seed

    def __len__(self) -> int:
        return len(self.slots)

    @overload
    def __getitem__(self, index: int) -> ReleasedItem: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[ReleasedItem]: ...

    def __getitem__(self, index: int | slice) -> ReleasedItem | Sequence[ReleasedItem]:
        if isinstance(index, slice):
            return tuple(self._read(self.slots[index]))
        return self._read([self.slots[index]])[0]

    def __iter__(self) -> Iterator[ReleasedItem]:
        for batch in self.batches():
            yield from batch

    def batches(self) -> Iterator[list[ReleasedItem]]:
        """The released items in release order, ``BATCH`` at a time (one read each)."""
        for start in range(0, len(self.slots), self.BATCH):
            yield self.read(start, start + self.BATCH)

    def read(self, start: int, stop: int) -> list[ReleasedItem]:
        """The released items at release positions ``start`` to ``stop`` (one read)."""
        return self._read(self.slots[start:stop])

    def _read(self, slots: Sequence[Slot]) -> list[ReleasedItem]:
        items, decisions = collect_items(self.store, [s.item_id for s in slots])
        released = []
        for slot in slots:
            item = items.get(slot.item_id)
            content = _final_content(decisions, slot.item_id) if item else None
            if item is None or content is None or digest_of(content) != slot.digest:
                raise ExportError(
                    f"the project changed since this export was planned ({slot.item_id});"
                    " plan it again"
                )
            released.append(
                ReleasedItem(
                    item=item,
                    content=content,
                    fixed=slot.fixed,
                    movable=slot.movable,
                    order=slot.order(self.seed),
                    reviews=decisions.reviews.get(item.id, ()),
                    adjudication=decisions.adjudications.get(item.id),
                    recording_licence=slot.licence,
                )
            )
        return released


@dataclass(frozen=True)
class ExportPlan:
    seed: int
    items: ReleasedItems  # release order: domain, then natural id order
    blocked: tuple[BlockedItem, ...]
    left_out: dict[str, dict[str, int]]  # status -> domain -> count
    outcomes: dict[str, dict[str, int]]  # domain -> status -> count, every item of the project
    reject_reasons: dict[str, dict[str, int]]  # domain -> reason -> rejected items
    balance: dict[str, DomainBalance]
    licences: dict[str, int] = field(default_factory=dict)  # licence -> released items using it
    unknown_licence: tuple[str, ...] = ()  # recordings referenced without a known licence
    models: dict[str, Any] = field(default_factory=dict)  # the models' tables (llm.report)
    # released items per batch planned (release order): how the writer's batches follow the
    # planner's, whose workers keep each batch's prepared lines (``processes``)
    batch_sizes: tuple[int, ...] = ()

    @property
    def domains(self) -> list[str]:
        return list(self.balance)

    @cached_property
    def content_hash(self) -> str:
        """SHA-256 of the released items' approved content before shuffling (so independent of
        the seed): two projects with the same hash release the same items."""
        digest = hashlib.sha256()
        for released in self.items:
            digest.update(content_hash_line(released).encode("utf-8"))
        return digest.hexdigest()

    @cached_property
    def _kinds(self) -> Counter[tuple[str, str | None]]:
        """(domain, dimension) -> released items, counted once for every table that asks."""
        return Counter([(s.domain, s.dimension) for s in self.items.slots])

    def released_by_domain(self) -> dict[str, int]:
        counts: Counter[str] = Counter()
        for (domain, _), count in self._kinds.items():
            counts[domain] += count
        return {d: counts[d] for d in self.domains}

    def left_out_totals(self) -> dict[str, int]:
        return {status: sum(by.values()) for status, by in self.left_out.items()}

    def dimension_counts(self) -> dict[str, dict[str, int]]:
        """domain -> dimension -> released items (the paper's Table 2)."""
        table: dict[str, Counter[str]] = defaultdict(Counter)
        for (domain, dimension), count in self._kinds.items():
            table[domain][dimension or "(none)"] += count
        return {d: dict(sorted(table[d].items())) for d in self.domains}


def content_hash_line(released: ReleasedItem) -> str:
    """One released item's line of the content hash: ``json.dumps({"content", "domain", "id",
    "recording"}, sort_keys=True)``, built directly."""
    return (
        f'{{"content": {released.content.canonical_json()}, '
        f'"domain": {_SORTED(released.item.domain)}, "id": {_SORTED(released.item.id)}, '
        f'"recording": {_SORTED(recording_id(released.item))}}}\n'
    )


def digest_of(content: ItemContent) -> int:
    """A fingerprint of a released content, compared within this process only (Python's hash of
    its fields: two different contents agree with a probability of about 2**-64)."""
    return hash(
        (content.question, content.options, content.answer_index, content.dimension, content.level)
    )


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


def plan_export(
    store: Store,
    seed: int,
    progress: Progress | None = None,
    planner: Planner | None = None,
    dealt: Dealt | None = None,
    ahead: int = 0,
    workers: int = 1,
) -> ExportPlan:
    """Decide what a release with ``seed`` contains (reads the project, writes nothing);
    ``planner`` plans the batches of items (default ``plan_batches``: in this process; the
    command line plans a large project on worker processes, which keep each released item's
    prepared lines for the writer: ``processes.ExportWorkers``), and ``dealt`` hears of each
    batch as soon as the gold positions of all its items are dealt (a domain is dealt once its
    last batch is planned), so that its lines may be finished while later ones are planned;
    ``ahead``: how many batches past the one to be written next the caller may finish and hold
    (``planning_order``), ``workers``: on how many processes (``batch_sizes``)."""
    with snapshot(store), gc_paused():
        plan = _plan(store, seed, progress, planner or plan_batches, dealt, ahead, workers)
        return replace(plan, models=_model_report(store, plan))


def _model_report(store: Store, plan: ExportPlan) -> dict[str, Any]:
    """The models' tables over the released items (empty when no model was evaluated), from
    what the plan keeps of each item (no item is read again)."""
    from bagel_studio.core.llm.report import model_report  # lazy: only releases need it

    released = [(s.item_id, s.domain, s.level) for s in plan.items.slots]
    return model_report(store, released)


@dataclass
class BatchPlan:
    """What planning finds in a batch of the items a release may take (``plan_batch``): those
    it releases, given by their place in the batch, with what the deal and the tables need of
    each; those that block it; the accepted or revised items without one content to release.
    Lists, not objects per item: a worker process hands it back to the exporting process."""

    kept: list[int] = field(default_factory=list)  # places in the batch
    gold: list[int] = field(default_factory=list)
    fixed: list[frozenset[int]] = field(default_factory=list)
    dimension: list[str | None] = field(default_factory=list)
    level: list[str | None] = field(default_factory=list)
    licence: list[str | None] = field(default_factory=list)
    digest: list[int] = field(default_factory=list)
    blocked: list[BlockedItem] = field(default_factory=list)
    unresolved: Counter[str] = field(default_factory=Counter)  # domain -> items
    unknown: set[str] = field(default_factory=set)  # recordings without a known licence
    changed: str | None = None  # an item no longer accepted or revised, or gone, since ordered


# Called with each item ``plan_batch`` releases: its row, reviews, adjudication, released
# content (``stored.released``), fixed positions and licence (``render.Preparer``).
OnKept = Callable[
    [
        Row,
        Sequence[Row],
        dict[str, Any] | None,
        tuple[ItemContent, str],
        frozenset[int],
        str | None,
    ],
    None,
]


def plan_batch(
    batch: StoredBatch,
    item_ids: Sequence[str],
    licences: dict[str, str],
    blocking: dict[str, list[str]],
    on_kept: OnKept | None = None,
) -> BatchPlan:
    """Plan the items ``item_ids`` (in release order) of ``batch`` (their rows as read);
    ``licences`` and ``blocking``: the project's."""
    found = BatchPlan()
    rows = {row[0]: row for row in batch.rows}
    for place, item_id in enumerate(item_ids):
        row = rows.get(item_id)
        if row is None or row[STATUS] not in RELEASED_VALUES:
            found.changed = item_id
            return found
        domain = row[1]
        reviews = batch.reviews.get(item_id, ())
        adjudication = batch.adjudications.get(item_id)
        released = stored.released(row, reviews, adjudication)
        if released is None:
            found.unresolved[domain] += 1
            continue
        content, text = released
        recording = stored.recording_of(row)
        licence = licences.get(recording.casefold()) if recording else None
        if recording and licence is None:
            found.unknown.add(recording)
        # released as imported, with the verdict the import stored: sound, these fixed
        # positions (a stored verdict is cleared when the content columns change)
        fixed = stored_fixed(row[VERDICT]) if text == row[ORIGINAL] else None
        flags = blocking.get(item_id)
        if fixed is None or flags or (recording and is_nd_licence(licence)):
            reasons = _block_reasons(domain, content, flags or [], recording, licence)
            if reasons:
                found.blocked.append(BlockedItem(item_id, domain, reasons))
                continue
            if fixed is None:
                fixed = _shared(fixed_positions(content.options))
        found.kept.append(place)
        found.gold.append(_gold(content))
        found.fixed.append(fixed)
        # one object per distinct value (a batch from a worker pickles each once)
        found.dimension.append(_shared(content.dimension))
        found.level.append(_shared(content.level))
        found.licence.append(_shared(licence))
        found.digest.append(digest_of(content))
        if on_kept is not None:
            on_kept(row, reviews, adjudication, released, fixed, licence)
    return found


# Plans batches of items: given the project and the batches' item ids (in planning order), the
# ``BatchPlan`` of each batch in order, with the project's licences and blocking flags.
Planner = Callable[[Store, Iterable[list[str]]], Iterator[BatchPlan]]


# Told of each planned batch once its items are dealt (a domain's batches at once, when its last
# is planned): the seed, the batch's number (in planning order), its place in release order, and
# its released items (``Slot.target`` and ``Slot.movable`` set).
Dealt = Callable[[int, int, int, list["Slot"]], None]


def plan_batches(store: Store, batches: Iterable[list[str]]) -> Iterator[BatchPlan]:
    """Each batch planned in this process, in order (a ``Planner``)."""
    licences, blocking = collected_licences(store), collected_blocking(store)
    for item_ids in batches:
        yield plan_batch(stored.read_batch(store, item_ids), item_ids, licences, blocking)


def _domain_batches(store: Store, domain: str, size: int) -> Iterator[tuple[int, list[str], bool]]:
    """The items of ``domain`` a release may take (accepted or revised) in release order
    (natural id order, ties in queue order), ``size`` at a time: (the batch's place in the
    domain, its ids, whether it is the domain's last). The domain is read and sorted when its
    first batch is asked for, so that the batches before it may be planned meanwhile."""
    ids = store.items.release_candidates(domain, RELEASED_VALUES)
    ids.sort(key=natural_order)
    for start in range(0, len(ids), size):
        yield start // size, ids[start : start + size], start + size >= len(ids)


def planning_order(candidates: dict[str, int], size: int, ahead: int) -> list[str]:
    """The order in which the domains of a release are planned (``candidates``: each domain's
    items a release may take, in release order). A domain is dealt once its last batch is
    planned, and only then may its items be finished: the domain planned last is finished
    while nothing else is left to plan. So the largest domain is planned first, when the
    writer may hold all its batches (``ahead``: how many batches may be finished ahead of the
    one written next); the others follow in release order. With ``ahead`` 0 (one process,
    which finishes nothing ahead): release order."""
    order = list(candidates)
    if not order:
        return order
    largest = max(order, key=lambda d: candidates[d])
    if _batches(candidates[largest], size) <= ahead:
        order.remove(largest)
        order.insert(0, largest)
    return order


def batch_sizes(candidates: dict[str, int], order: list[str], workers: int) -> dict[str, int]:
    """Items a batch, by domain (``order``: the planning order): ``ReleasedItems.BATCH``, but
    on several ``workers`` the domain planned last comes in smaller batches, about two a worker
    (at least ``TAIL_BATCH`` items each): its items are finished once it is all planned, while
    nothing else is left to do, and small batches share that out evenly."""
    size = dict.fromkeys(candidates, ReleasedItems.BATCH)
    if workers > 1 and order:
        last = order[-1]
        size[last] = min(size[last], max(TAIL_BATCH, _batches(candidates[last], 2 * workers)))
    return size


def _batches(items: int, size: int) -> int:
    return -(-items // size)


def _plan(
    store: Store,
    seed: int,
    progress: Progress | None,
    planner: Planner,
    dealt: Dealt | None,
    ahead: int,
    workers: int,
) -> ExportPlan:
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
    release = domain_order(outcomes)
    candidates = {d: sum(outcomes[d][status] for status in RELEASED_VALUES) for d in release}
    order = planning_order(candidates, ReleasedItems.BATCH, ahead)
    size = batch_sizes(candidates, order, workers)
    first: dict[str, int] = {}  # each domain's first batch, in release order
    for domain in release:
        first[domain] = sum(_batches(candidates[d], size[d]) for d in first)
    batches: list[tuple[str, list[str], bool, int]] = []  # with each batch's place in release order

    def item_ids() -> Iterator[list[str]]:
        for domain in order:
            read = 0
            for place, ids, last in _domain_batches(store, domain, size[domain]):
                read += len(ids)
                if last and read != candidates[domain]:
                    raise ExportError(
                        f"the project changed while this export read it ({domain}); export again"
                    )
                batches.append((domain, ids, last, first[domain] + place))
                yield ids

    planned = planner(store, item_ids())
    released: dict[str, list[list[Slot]]] = {}  # each domain's batches, once dealt
    blocked: list[BlockedItem] = []
    unknown: set[str] = set()
    balance: dict[str, DomainBalance] = {}
    undealt: list[Slot] = []  # the current domain's released items planned so far
    waiting: list[tuple[int, int, list[Slot]]] = []  # its batches planned so far
    done = 0
    total = sum(candidates.values())
    for number, found in enumerate(planned):
        domain, ids, last, place = batches[number]
        if found.changed is not None:
            raise ExportError(
                f"the project changed while this export read it ({found.changed}); export again"
            )
        slots = _slots(domain, ids, found)
        undealt += slots
        waiting.append((number, place, slots))
        blocked += found.blocked
        unknown |= found.unknown
        for where, count in found.unresolved.items():
            left_out[UNRESOLVED][where] += count
        if last:  # the domain is planned: deal it, and its batches are ready
            if undealt:
                balance[domain] = _deal(seed, domain, undealt)
            undealt = []
            released[domain] = [ready_slots for _, _, ready_slots in waiting]
            for ready, ready_place, ready_slots in waiting:
                if dealt is not None and not blocked:
                    dealt(seed, ready, ready_place, ready_slots)
            waiting.clear()
        done += len(ids)
        if progress is not None:
            progress(done, max(total, done))
    assert not waiting and not undealt
    domains = domain_order([*outcomes, *balance])
    in_order = [batch for d in release for batch in released.get(d, [])]
    slots = [slot for batch in in_order for slot in batch]
    return ExportPlan(
        seed=seed,
        items=ReleasedItems(store, slots, seed),
        blocked=tuple(sorted(blocked, key=lambda b: natural_key(b.item_id))),
        left_out={s: dict(sorted(c.items())) for s, c in sorted(left_out.items())},
        outcomes={d: dict(sorted(outcomes[d].items())) for d in domains if outcomes[d]},
        reject_reasons={
            d: dict(sorted(reject_reasons[d].items())) for d in domains if reject_reasons[d]
        },
        balance={d: balance.get(d, _empty_balance()) for d in domains},
        licences=dict(sorted(Counter(s.licence for s in slots if s.licence).items())),
        unknown_licence=tuple(sorted(unknown, key=natural_key)),
        batch_sizes=tuple(len(batch) for batch in in_order),
    )


def _slots(domain: str, item_ids: list[str], found: BatchPlan) -> list[Slot]:
    """The released items of a planned batch of ``domain`` (``item_ids``: its items')."""
    slots = []
    for place, gold, fixed, dimension, level, licence, digest in zip(
        found.kept,
        found.gold,
        found.fixed,
        found.dimension,
        found.level,
        found.licence,
        found.digest,
        strict=True,
    ):
        slots.append(Slot(item_ids[place], domain, dimension, level, gold, fixed, licence, digest))
    return slots


_SHARED: dict[Any, Any] = {}  # one object per distinct small value: domains, sets, orders


def _shared(value: Any) -> Any:
    """``value``, or the equal object met before (a dimension, a level, a set of fixed
    positions or an option order is one of a few, and held once instead of once per item)."""
    if value is None:
        return None
    return _SHARED.setdefault(value, value)


def _block_reasons(
    domain: str,
    content: ItemContent,
    flags: list[str],
    recording: str | None,
    licence: str | None,
) -> tuple[str, ...]:
    """Blocking flags, a released content that fails the structural checks, an ND recording."""
    reasons = list(flags)
    reasons += [f.message for f in structural_flags(domain, content) if f.message not in flags]
    if recording and is_nd_licence(licence):
        reasons.append(f"recording {recording} is under a NoDerivatives licence ({licence})")
    return tuple(reasons)


def _final_content(decisions: Decisions, item_id: str) -> ItemContent | None:
    """``store.reviews.final_content`` from the reviews and adjudications read in bulk: the same
    rule (``released_content``), without two queries per item; ``test_export_rows`` checks that
    both agree on every item."""
    return released_content(
        decisions.adjudications.get(item_id), decisions.reviews.get(item_id, ())
    )


def _empty_balance() -> DomainBalance:
    zero = (0, 0, 0, 0)
    return DomainBalance(zero, zero, zero, 0, 0)


def _deal(seed: int, domain: str, entries: list[Slot]) -> DomainBalance:
    """Deal the gold positions of one domain's released items (in release order: natural id
    order, so each group of ``balance.deal_groups`` is in that order as it comes) and note
    where each item's gold goes (``Slot.target``, ``Slot.movable``)."""
    groups: dict[frozenset[int], list[Slot]] = defaultdict(list)
    allowed: dict[tuple[int, frozenset[int]], frozenset[int]] = {}
    before = [0] * POSITIONS  # every item's gold, curated
    kept = [0] * POSITIONS  # the golds that cannot move
    for slot in entries:
        gold = slot.target = slot.gold
        before[gold] += 1
        where = allowed.get((gold, slot.fixed))
        if where is None:
            where = allowed[gold, slot.fixed] = allowed_positions(gold, slot.fixed)
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
        immovable=len(entries) - movable,
    )


def _gold(content: ItemContent) -> int:
    assert content.answer_index is not None
    return content.answer_index
