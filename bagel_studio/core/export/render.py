"""The render stage: a batch of released items turned into what the write stage writes and gathers.

An item's lines are made in two steps. ``prepare`` writes everything that does not depend on
where its options go: its data line up to the options, its provenance line around the option
order, its line of the content hash, the lengths it adds to the report's table and what the
release audit reads of it. ``finish`` puts the options in their released order (the deal) and
completes the lines. The export prepares each item on the pass that plans it and finishes its
batch once the domain is dealt (``pipeline``); writing a plan made before reads the items again
and does both steps here (``render(store, slots)``).

Either way the batch's result (``Rendered``) is its data lines (grouped by domain, in release
order), its provenance lines, its lines of the content hash, its lengths and its features for
the release audit.

The lines are written from the project's stored rows (``store.items.release_rows``, the reviews and
adjudications as stored) rather than from decoded ``Item`` and ``Review`` objects: the store
writes content JSON canonically, so a review that stores the released content is told by
comparing text, and only what differs (an edit, another curator's content, an adjudication) is
decoded. The lines are those of ``rows.item_row`` and ``rows.provenance_row`` of the plan's
``ReleasedItem``, encoded (``test_export_render`` checks that both agree).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from json.encoder import encode_basestring as encode
from typing import Any, NamedTuple

import numpy as np

from bagel_studio.core.audit.features import AuditFeatures, AuditRows, features
from bagel_studio.core.audit.items import stored_subjects
from bagel_studio.core.domains import LETTERS
from bagel_studio.core.export.balance import permutation
from bagel_studio.core.export.plan import ExportError, Slot, content_json, digest_of
from bagel_studio.core.export.rows import (
    SORTED,
    adjudication_row,
    base_name,
    ints_json,
    json_value,
    plain_json,
    strip_paths,
)
from bagel_studio.core.export.stored import (
    Row,
    decode,
    read_batch,
    recording_of,
    released,
    source_of,
)
from bagel_studio.core.model import Decision, ItemContent
from bagel_studio.core.report.tables import LengthSums
from bagel_studio.core.store import Store

Lines = bytes | memoryview  # UTF-8 lines, in memory
_DECISIONS = {d.value: encode(d.value) for d in Decision}  # a decision's JSON, by its value
_LETTERS = [letter.encode("ascii") for letter in LETTERS]


@dataclass(frozen=True)
class Rendered:
    """A batch's lines, UTF-8."""

    segments: Sequence[tuple[str, Lines]]  # (domain, the data lines of its items), release order
    provenance: Lines
    hashed: Lines  # the batch's lines of the content hash (none if handed on: ``Preparer``)
    lengths: LengthSums
    audit: AuditFeatures
    count: int


class Prepared(NamedTuple):
    """What finishing a released item needs besides its lines (``PreparedBatch.lines``) and
    the deal, and what the audit reads of it (a domain's items are held until its deal)."""

    item_id: str
    domain: str
    gold: int  # the gold's curated position
    fixed: frozenset[int]
    dimension: str  # as the audit names it ("(none)" for none)
    recording: str | None  # the item's recording column (what the audit reads)
    texts: str | tuple[str, ...]  # the question and options (curated order), NUL between them


@dataclass
class PreparedBatch:
    """A batch's prepared items in release order with their lines, the lengths and the audit's
    subjects (``items.stored_subjects``) of each: what ``finish`` needs besides the deal; and
    the batch's lines of the content hash, unless they were handed on (``Preparer``)."""

    items: list[Prepared]
    lines: list[bytes]  # each item's lines but for its option order (``prepare``), ~1.3 KB
    lengths: LengthSums
    subjects: list[frozenset[str]]
    hashed: bytes


class Preparer:
    """Prepares the released items of one batch as planning finds them (``plan.plan_batch``
    calls it for each item it releases), then their batch.

    The lines of the content hash need no deal: given ``hashed``, the preparer hands them to
    it when the batch is made (the export's writer, which hashes them at once instead of
    holding them, a third of the prepared bytes, until the domain is dealt); otherwise they
    stay with the batch."""

    def __init__(self, hashed: Callable[[bytes], None] | None = None) -> None:
        self.items: list[Prepared] = []
        self.lines: list[bytes] = []
        self.hashed: list[bytes] = []
        self._hand_on = hashed
        self._read: list[tuple[str, tuple[str, ...], str | None, str | None, Any]] = []

    def __call__(
        self,
        row: Row,
        reviews: Sequence[Row],
        adjudication: dict[str, Any] | None,
        found: tuple[ItemContent, str],
        fixed: frozenset[int],
        licence: str | None,
    ) -> None:
        prepared, lines, hashed, source = prepare(row, reviews, adjudication, found, fixed, licence)
        self.items.append(prepared)
        self.lines.append(lines)
        self.hashed.append(hashed)
        content = found[0]
        self._read.append((content.question, content.options, row[11], row[9], source))

    def batch(self) -> PreparedBatch:
        items, read = self.items, self._read
        lengths = LengthSums()
        start = 0
        for end in range(1, len(items) + 1):  # each domain's run of items at once
            if end == len(items) or items[end].domain != items[start].domain:
                run = read[start:end]
                lengths.add_all(items[start].domain, [r[0] for r in run], [r[1] for r in run])
                start = end
        subjects = stored_subjects(
            [text_key for _, _, text_key, _, _ in read],
            [globi_ref for _, _, _, globi_ref, _ in read],
            [item.recording for item in items],
            [source for _, _, _, _, source in read],
            [question for question, _, _, _, _ in read],
        )
        hashed = b"".join(self.hashed)
        if self._hand_on is not None:
            self._hand_on(hashed)
            hashed = b""
        return PreparedBatch(items, self.lines, lengths, subjects, hashed)


def render(store: Store, slots: Sequence[Slot], seed: int) -> Rendered:
    """The release's lines of ``slots`` (in release order), read from ``store`` in one go;
    ``ExportError`` when an item is gone or its released content changed since the plan."""
    batch = read_batch(store, [slot.item_id for slot in slots])
    rows = {row[0]: row for row in batch.rows}
    preparer = Preparer()
    for slot in slots:
        row = rows.get(slot.item_id)
        reviews = batch.reviews.get(slot.item_id, [])
        adjudication = batch.adjudications.get(slot.item_id)
        found = None if row is None else released(row, reviews, adjudication)
        if row is None or found is None or digest_of(found[0]) != slot.digest:
            raise ExportError(
                f"the project changed since this export was planned ({slot.item_id}); plan it again"
            )
        preparer(row, reviews, adjudication, found, slot.fixed, slot.licence)
    return finish(
        preparer.batch(), seed, [slot.target for slot in slots], [slot.movable for slot in slots]
    )


def finish(
    batch: PreparedBatch, seed: int, targets: Sequence[int], movable: Sequence[bool]
) -> Rendered:
    """The batch's lines with each item's gold moved to its ``target`` (``movable``: whether
    it took part in the deal), the other options placed by the seed (``balance.permutation``)."""
    segments: list[tuple[str, bytes]] = []
    data: list[bytes] = []
    provenance: list[bytes] = []
    texts: list[str] = []
    answers: list[int] = []
    current = ""
    items = batch.items
    for item, lines, target, moved in zip(items, batch.lines, targets, movable, strict=True):
        order = permutation(seed, item.domain, item.item_id, item.gold, target, item.fixed)
        answer = order.index(item.gold)
        pieces = lines.split(b"\x00")
        tail, first, second, third, last = pieces[-5:]
        if item.domain != current:
            if data:
                segments.append((current, b"".join(data)))
            data, current = [], item.domain
        data.append(
            b'%s[%s], "answer": "%s", "answer_index": %d%s'
            % (
                pieces[0],
                b", ".join([pieces[1 + i] for i in order]),
                _LETTERS[answer],
                answer,
                tail,
            )
        )
        provenance.append(
            b"%s%d%s%s%s%s%s"
            % (
                first,
                answer,
                second,
                b"true" if moved else b"false",
                third,
                _order_json(order),
                last,
            )
        )
        words = item.texts.split("\x00") if type(item.texts) is str else item.texts
        texts.append(words[0])
        texts += [words[1 + i] for i in order]
        answers.append(answer)
    if data:
        segments.append((current, b"".join(data)))
    rows = AuditRows(
        [item.domain for item in items],
        [item.dimension for item in items],
        texts,
        np.array(answers, dtype=np.int64),
        [item.recording for item in items],
        batch.subjects,
    )
    return Rendered(
        segments,
        b"".join(provenance),
        batch.hashed,
        batch.lengths,
        features(rows),
        len(items),
    )


def prepare(
    row: Row,
    reviews: Sequence[Row],
    adjudication: dict[str, Any] | None,
    found: tuple[ItemContent, str],
    fixed: frozenset[int],
    licence: str | None,
) -> tuple[Prepared, bytes, bytes, Any]:
    """One item's lines but for its option order (UTF-8, NUL between the pieces, which JSON
    text does not hold: the data line up to its options, each curated option's JSON, the data
    line after its answer, the provenance line around its answer, movable and permutation in
    four pieces), what else finishing it needs, from its stored row and decisions, its line
    of the content hash (UTF-8) and its generator record (decoded on the way); ``found``: its
    released content and that content's canonical JSON (``stored.released``)."""
    item_id, domain, original = row[0], row[1], row[7]
    source_text, globi_ref, recording_column, text_key, source_file, source_line = row[8:14]
    content, text = found
    assert content.answer_index is not None  # the plan released it: its gold is an option
    source = source_of(source_text)
    recording = recording_of(row, source)
    # id, domain: text columns (their JSON is the same in every line); recording: text or None
    identity, area, recorded = encode(item_id), encode(domain), json_value(recording)
    head = (
        f'{{"id": {identity}, "domain": {area}, '
        f'"dimension": {plain_json(content.dimension)}, "level": {plain_json(content.level)}, '
        f'"question": {plain_json(content.question)}, "options": '
    )
    tail = f', "recording": {recorded}}}\n' if recording else "}\n"
    encoded = tuple(map(encode, content.options))
    if text == original:
        before = after = "null"
        revised = "false"
    else:
        first = decode(original)
        changed = content != first
        revised = "true" if changed else "false"
        before = SORTED(content_json(first)) if changed else "null"
        after = SORTED(content_json(content)) if changed else "null"
    decisions = ", ".join([_decision(review, content, text) for review in reviews])
    decided = "null"
    if adjudication is not None:
        stored = {**adjudication, "content": decode(adjudication["content"])}
        decided = SORTED(adjudication_row(stored, content))
    generator = "{}" if type(source) is dict and not source else SORTED(strip_paths(source))
    lines = [
        head,
        *encoded,
        tail,
        f'{{"adjudication": {decided}, "after": {after}, "answer_index": ',
        f', "before": {before}, "decisions": [{decisions}], "domain": {area}, '
        f'"fixed_positions": {_fixed_json(fixed)}, "id": {identity}, "movable": ',
        f', "original_answer_index": {json_value(content.answer_index)}, '
        f'"original_options": [{", ".join(encoded)}], "permutation": ',
        f', "revised": {revised}, '
        f'"source": {{"file": {_text(base_name(source_file) if source_file else None)}, '
        f'"generator": {generator}, '
        f'"globi_ref": {_text(globi_ref)}, "line": {json_value(source_line)}, '
        f'"recording": {recorded}, '
        f'"recording_licence": {_text(licence)}, '
        f'"text_key": {_text(text_key)}}}, "source_item_id": {identity}}}\n',
    ]
    hashed = f'{{"content": {text}, "domain": {area}, "id": {identity}, "recording": {recorded}}}\n'
    texts: str | tuple[str, ...] = (content.question, *content.options)
    packed = "\x00".join(texts)
    if packed.count("\x00") == len(texts) - 1:  # no text holds a NUL of its own
        texts = packed
    prepared = Prepared(
        item_id,
        domain,
        content.answer_index,
        fixed,
        content.dimension or "(none)",
        recording_column,
        texts,
    )
    return prepared, "\x00".join(lines).encode("utf-8"), hashed.encode("utf-8"), source


def _decision(review: Row, released: ItemContent, released_text: str) -> str:
    """One curator's decision as the provenance lists it (``rows.decision_row``, encoded)."""
    _, curator, decision, reason, note, stored, blind, decided_at, origin = review
    content = "null"
    if stored != released_text:
        theirs = decode(stored)
        content = "null" if theirs == released else SORTED(content_json(theirs))
    return (
        f'{{"blind_answer": {json_value(blind)}, "content": {content}, '
        f'"curator": {_text(curator)}, "decided_at": {_text(decided_at)}, '
        f'"decision": {_DECISIONS[decision]}, '
        f'"merged": {"true" if origin != "local" else "false"}, '
        f'"note": {_text(note)}, "reason": {_text(reason)}}}'
    )


def _text(value: str | None) -> str:
    """JSON of a text column's value."""
    return "null" if value is None else encode(value)


@lru_cache(maxsize=64)
def _fixed_json(fixed: frozenset[int]) -> str:
    return ints_json(sorted(fixed))


@lru_cache(maxsize=256)
def _order_json(order: tuple[int, ...]) -> bytes:
    return ints_json(order).encode("ascii")
