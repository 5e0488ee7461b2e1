"""A batch of released items turned into what the release writer writes and gathers.

``render(store, slots)`` gives the batch's data lines (grouped by domain, in release order), its
provenance lines, its lines of the content hash, the lengths it adds to the report's table and
its features for the release audit: everything the writer needs of the items, in values that
do not depend on the process that computed them, so that worker processes may render batches
and the writer take them in release order (``processes``) with the same bytes as a
single process.

The lines are written from the project's stored rows (``Store.release_rows``, the reviews and
adjudications as stored) rather than from decoded ``Item`` and ``Review`` objects: the store
writes content JSON canonically, so a review that stores the released content is told by
comparing text, and only what differs (an edit, another curator's content, an adjudication) is
decoded. The lines are those of ``rows.item_row`` and ``rows.provenance_row`` of the plan's
``ReleasedItem``, encoded (``test_export_render`` checks that both agree).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from json.encoder import encode_basestring as encode
from typing import Any, NamedTuple

import numpy as np

from bagel_studio.core.audit.features import AuditFeatures, AuditRows, features
from bagel_studio.core.audit.items import stored_subjects
from bagel_studio.core.domains import LETTERS
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
    StoredBatch,
    decode,
    read_batch,
    recording_of,
    released,
    source_of,
)
from bagel_studio.core.export.tables import LengthSums
from bagel_studio.core.model import Decision, ItemContent, json_strings
from bagel_studio.core.store import Store

_DECISIONS = {d.value: encode(d.value) for d in Decision}  # a decision's JSON, by its value


@dataclass(frozen=True)
class Rendered:
    """A batch's lines, UTF-8 (encoded where they were rendered: on a worker, in parallel)."""

    segments: list[tuple[str, bytes]]  # (domain, the data lines of its items), release order
    provenance: bytes
    hashed: bytes  # the batch's lines of the content hash
    lengths: LengthSums
    audit: AuditFeatures
    count: int


class _Lines(NamedTuple):
    """One released item's lines and what the report gathers of it."""

    domain: str
    data: str
    provenance: str
    hashed: str
    content: ItemContent  # released, in curated order
    options: list[str]  # released, in released order
    answer: int  # the gold's released position
    recording: str | None  # the item's recording column (what the audit reads)
    text_key: str | None
    globi_ref: str | None
    source: Any  # the generator's record


def render(store: Store, slots: Sequence[Slot], seed: int) -> Rendered:
    """The release's lines of ``slots`` (in release order), read from ``store`` in one go;
    ``ExportError`` when an item is gone or its released content changed since the plan."""
    batch = read_batch(store, [slot.item_id for slot in slots])
    rows = {row[0]: row for row in batch.rows}
    segments: list[tuple[str, bytes]] = []
    lines: list[str] = []
    current = ""
    rendered: list[_Lines] = []
    for slot in slots:
        row = rows.get(slot.item_id)
        found = None if row is None else item_lines(row, slot, batch, seed)
        if found is None:
            raise ExportError(
                f"the project changed since this export was planned ({slot.item_id}); plan it again"
            )
        if found.domain != current:
            if lines:
                segments.append((current, "".join(lines).encode("utf-8")))
            lines, current = [], found.domain
        lines.append(found.data)
        rendered.append(found)
    if lines:
        segments.append((current, "".join(lines).encode("utf-8")))
    lengths = LengthSums()
    for item in rendered:
        lengths.add(item.domain, item.content.question, item.content.options)
    return Rendered(
        segments,
        "".join([item.provenance for item in rendered]).encode("utf-8"),
        "".join([item.hashed for item in rendered]).encode("utf-8"),
        lengths,
        features(_audit_rows(rendered)),
        len(slots),
    )


def _audit_rows(rendered: list[_Lines]) -> AuditRows:
    """The batch as the release audit reads it (``audit_section.release_rows``' fields)."""
    texts: list[str] = []
    for item in rendered:
        texts.append(item.content.question)
        texts += item.options
    return AuditRows(
        [item.domain for item in rendered],
        [item.content.dimension or "(none)" for item in rendered],
        texts,
        np.array([item.answer for item in rendered], dtype=np.int64),
        [item.recording for item in rendered],
        stored_subjects(
            [item.text_key for item in rendered],
            [item.globi_ref for item in rendered],
            [item.recording for item in rendered],
            [item.source for item in rendered],
            [item.content.question for item in rendered],
        ),
    )


def item_lines(row: Row, slot: Slot, batch: StoredBatch, seed: int) -> _Lines | None:
    """One item's lines from its stored row and decisions in ``batch``; None when it has no
    released content, or not the planned one."""
    item_id, domain, original = row[0], row[1], row[7]
    source_text, globi_ref, recording_column, text_key, source_file, source_line = row[8:14]
    reviews = batch.reviews.get(item_id, [])
    adjudication = batch.adjudications.get(item_id)
    found = released(row, reviews, adjudication)
    if found is None or digest_of(found[0]) != slot.digest:
        return None
    content, text = found
    assert content.answer_index is not None  # the plan released it: its gold is an option
    order = slot.order(seed)
    shuffled = [content.options[i] for i in order]
    answer = order.index(content.answer_index)
    source = source_of(source_text)
    recording = recording_of(row, source)
    # id, domain: text columns (their JSON is the same in every line); recording: text or None
    identity, area, recorded = encode(item_id), encode(domain), json_value(recording)
    data = (
        f'{{"id": {identity}, "domain": {area}, '
        f'"dimension": {plain_json(content.dimension)}, "level": {plain_json(content.level)}, '
        f'"question": {plain_json(content.question)}, "options": {json_strings(shuffled)}, '
        f'"answer": "{LETTERS[answer]}", "answer_index": {answer}'
        + (f', "recording": {recorded}}}\n' if recording else "}\n")
    )
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
    provenance = (
        f'{{"adjudication": {decided}, "after": {after}, "answer_index": {answer}, '
        f'"before": {before}, "decisions": [{decisions}], "domain": {area}, '
        f'"fixed_positions": {_fixed_json(slot.fixed)}, "id": {identity}, '
        f'"movable": {"true" if slot.movable else "false"}, '
        f'"original_answer_index": {json_value(content.answer_index)}, '
        f'"original_options": {json_strings(content.options)}, '
        f'"permutation": {_order_json(order)}, "revised": {revised}, '
        f'"source": {{"file": {_text(base_name(source_file) if source_file else None)}, '
        f'"generator": {generator}, '
        f'"globi_ref": {_text(globi_ref)}, "line": {json_value(source_line)}, '
        f'"recording": {recorded}, '
        f'"recording_licence": {_text(slot.licence)}, '
        f'"text_key": {_text(text_key)}}}, "source_item_id": {identity}}}\n'
    )
    hashed = f'{{"content": {text}, "domain": {area}, "id": {identity}, "recording": {recorded}}}\n'
    return _Lines(
        domain,
        data,
        provenance,
        hashed,
        content,
        shuffled,
        answer,
        recording_column,
        text_key,
        globi_ref,
        source,
    )


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
def _order_json(order: tuple[int, ...]) -> str:
    return ints_json(order)
