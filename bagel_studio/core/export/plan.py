"""What a release will contain (``ExportPlan``): the items that go out, those left out and why,
those that block it; and the plan stage for one batch of items (``plan_batch``).

Planning only reads the project, so the desk can show it as a preview for any seed before anything
is written, and the writer then turns the very same plan into files (``pipeline``).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, overload

from bagel_studio.core.checks.fixed import fixed_positions
from bagel_studio.core.checks.structural import structural_flags
from bagel_studio.core.checks.verdict import stored_fixed
from bagel_studio.core.collect import Decisions, collect_items
from bagel_studio.core.domains import DOMAINS
from bagel_studio.core.export import stored
from bagel_studio.core.export.balance import (
    permutation,
)
from bagel_studio.core.export.stored import ORIGINAL, STATUS, VERDICT, Row, StoredBatch
from bagel_studio.core.model import Item, ItemContent, Review, Status
from bagel_studio.core.report.release import DomainBalance
from bagel_studio.core.store import Store
from bagel_studio.core.store.rows import released_content

Progress = Callable[[int, int], None]

RELEASED_STATUSES = (Status.ACCEPTED, Status.REVISED)
RELEASED_VALUES = frozenset(s.value for s in RELEASED_STATUSES)
REJECTED = Status.REJECTED.value
_STATUS_VALUES = {s.value: s.value for s in Status}  # an unknown status fails as decoding would
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

    BATCH = 1000  # items read at a time (also the batches the export plans, renders, writes)

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
    # domain -> released items whose recording confirms their species, does not, ...
    # (``species_section``)
    species: dict[str, dict[str, int]] = field(default_factory=dict)

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


@dataclass
class BatchPlan:
    """What planning finds in a batch of the items a release may take (``plan_batch``): those
    it releases (``Slot``s, in release order), those that block it, the accepted or revised
    items without one content to release."""

    slots: list[Slot] = field(default_factory=list)
    blocked: list[BlockedItem] = field(default_factory=list)
    unresolved: int = 0  # accepted or revised items without one content to release
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
    domain: str,
    item_ids: Sequence[str],
    licences: dict[str, str],
    blocking: dict[str, list[str]],
    on_kept: OnKept | None = None,
) -> BatchPlan:
    """Plan the items ``item_ids`` of ``domain`` (in release order) of ``batch`` (their rows as
    read); ``licences`` and ``blocking``: the project's."""
    found = BatchPlan()
    rows = {row[0]: row for row in batch.rows}
    for item_id in item_ids:
        row = rows.get(item_id)
        if row is None or row[STATUS] not in RELEASED_VALUES:
            found.changed = item_id
            return found
        reviews = batch.reviews.get(item_id, ())
        adjudication = batch.adjudications.get(item_id)
        released = stored.released(row, reviews, adjudication)
        if released is None:
            found.unresolved += 1
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
        found.slots.append(
            Slot(
                item_id,
                domain,
                # one object per distinct value, shared by the plan's slots
                _shared(content.dimension),
                _shared(content.level),
                _gold(content),
                fixed,
                _shared(licence),
                digest_of(content),
            )
        )
        if on_kept is not None:
            on_kept(row, reviews, adjudication, released, fixed, licence)
    return found


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


def _gold(content: ItemContent) -> int:
    assert content.answer_index is not None
    return content.answer_index
