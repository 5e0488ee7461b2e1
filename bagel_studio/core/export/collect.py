"""Reading what an export needs from a project in a few bulk queries.

An export reads every item, review and adjudication of the project. Going through ``Store``'s
per-item accessors costs two queries per item, and even its bulk reads decode the same content
JSON up to three times per item (the item's original, its current content, each curator's copy).
Here every table is read in one query, and content JSON is decoded once per distinct text: an item
accepted as is has the same canonical JSON in its ``original`` column and in its review, so the
review gets the very object decoded for the item.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from json.encoder import encode_basestring
from typing import Any

from bagel_studio.core.model import Decision, Item, ItemContent, Review, Status
from bagel_studio.core.store import Store
from bagel_studio.core.store.rows import _ITEM_COLUMNS  # in the order _item unpacks them

_STATUS = {s.value: s for s in Status}
_DECISION = {d.value: d for d in Decision}


class _Contents:
    """Content JSON decoded once per distinct text (the store writes it canonically)."""

    def __init__(self) -> None:
        self._decoded: dict[str, ItemContent] = {}

    def put(self, text: str, content: ItemContent) -> ItemContent:
        """Remember ``content`` as what ``text`` decodes to (the caller checked that it does)."""
        return self._decoded.setdefault(text, content)

    def get(self, text: str) -> ItemContent:
        content = self._decoded.get(text)
        if content is None:
            content = self._decoded[text] = ItemContent.from_json(json.loads(text))
        return content


@dataclass(frozen=True)
class Decisions:
    """Every review and adjudication of the project."""

    reviews: dict[str, tuple[Review, ...]]  # item id -> its reviews, by curator
    adjudications: dict[str, dict[str, Any]]  # item id -> ``Store.adjudication(item_id)``


@dataclass(frozen=True)
class Collected:
    items: list[Item]  # in queue order, as ``Store.iter_items()`` gives them
    decisions: Decisions
    blocking: dict[str, list[str]]  # item id -> messages of its blocking flags, by check
    licences: dict[str, str]  # casefolded recording id -> licence


def collect(store: Store) -> Collected:
    """Everything the plan reads, as of one moment if the caller holds a read transaction."""
    contents = _Contents()
    items = _items(store, contents)
    return Collected(items, _decisions(store, contents), blocking(store), licences(store))


def _items(store: Store, contents: _Contents) -> list[Item]:
    rows = store.db.execute(f"SELECT {_ITEM_COLUMNS} FROM items ORDER BY seq").fetchall()
    return [_item(row, contents) for row in rows]


def collect_batches(store: Store, size: int = 2000) -> Iterator[tuple[list[Item], Decisions]]:
    """The items in queue order, ``size`` at a time, each batch with its items' decisions: what
    ``collect`` reads, in memory bounded by the batch (the blocking flags and licences, small,
    come from ``blocking`` and ``licences``)."""
    last = -1
    while True:
        rows = store.db.execute(
            f"SELECT seq, {_ITEM_COLUMNS} FROM items WHERE seq > ? ORDER BY seq LIMIT ?",
            [last, size],
        ).fetchall()
        if not rows:
            return
        last = rows[-1][0]
        contents = _Contents()
        items = [_item(row[1:], contents) for row in rows]
        yield items, _decisions(store, contents, [item.id for item in items])


def collect_items(store: Store, item_ids: list[str]) -> tuple[dict[str, Item], Decisions]:
    """The items of ``item_ids`` (by id) and their decisions, read as ``collect`` reads them."""
    contents = _Contents()
    rows = store.db.execute(
        f"SELECT {_ITEM_COLUMNS} FROM items WHERE id IN (SELECT value FROM json_each(?))",
        [json.dumps(item_ids)],
    ).fetchall()
    items = {item.id: item for item in (_item(row, contents) for row in rows)}
    return items, _decisions(store, contents, item_ids)


def _item(row: Any, contents: _Contents) -> Item:
    item_id, domain, question, options, answer_index, dimension, level, original = row[:8]
    status, source, evidence, *links = row[8:]
    if _canonical(question, options, answer_index, dimension, level) == original:
        # Not edited since import (the common case): one content, decoded from the columns.
        content = first = contents.put(
            original, ItemContent(question, _options(options), answer_index, dimension, level)
        )
    else:
        first = contents.get(original)
        content = ItemContent(question, _options(options), answer_index, dimension, level)
    return Item(
        item_id,
        domain,
        content,
        first,
        _STATUS[status],
        {} if source in (None, "", "{}") else json.loads(source) or {},
        () if evidence in (None, "", "[]") else tuple(json.loads(evidence) or ()),
        *links,  # rationale, globi_ref, recording_id, text_key, source_file, source_line
    )


def _canonical(
    question: Any, options: Any, answer_index: Any, dimension: Any, level: Any
) -> str | None:
    """``ItemContent.canonical_json()`` of an item's content columns (``options`` is stored as
    JSON already), or None for values of unexpected types, which then take the slow path."""
    if not (
        type(question) is str
        and type(options) is str
        and (answer_index is None or type(answer_index) is int)
        and (dimension is None or type(dimension) is str)
        and (level is None or type(level) is str)
    ):
        return None
    return (
        f'{{"answer_index": {"null" if answer_index is None else answer_index}, '
        f'"dimension": {"null" if dimension is None else encode_basestring(dimension)}, '
        f'"level": {"null" if level is None else encode_basestring(level)}, '
        f'"options": {options}, "question": {encode_basestring(question)}}}'
    )


def _options(text: str) -> tuple[str, ...]:
    """An item's options column, as ``ItemContent.from_json`` reads a content's options."""
    values = json.loads(text)
    if all(type(v) is str for v in values):
        return tuple(values)
    return tuple(str(v) for v in values)


def _decisions(store: Store, contents: _Contents, item_ids: list[str] | None = None) -> Decisions:
    """The reviews and adjudications of every item, or of ``item_ids`` only."""
    where, params = "", []
    if item_ids is not None:
        where, params = " WHERE item_id IN (SELECT value FROM json_each(?))", [json.dumps(item_ids)]
    reviews: dict[str, list[Review]] = defaultdict(list)
    rows = store.db.execute(
        "SELECT item_id, curator, decision, reason, note, content, blind_answer, decided_at,"
        f" origin FROM reviews{where} ORDER BY item_id, curator",
        params,
    )
    for item_id, curator, decision, reason, note, content, blind, decided_at, origin in rows:
        reviews[item_id].append(
            Review(
                item_id,
                curator,
                _DECISION[decision],
                reason,
                note,
                contents.get(content),
                blind,
                decided_at,
                origin,
            )
        )
    adjudications: dict[str, dict[str, Any]] = {}
    keys = ("adjudicator", "decision", "reason", "note", "content", "decided_at")
    rows = store.db.execute(
        f"SELECT item_id, adjudicator, decision, reason, note, content, decided_at"
        f" FROM adjudications{where}",
        params,
    )
    for item_id, *values in rows:
        data = dict(zip(keys, values, strict=True))
        data["content"] = contents.get(data["content"])
        adjudications[item_id] = data
    return Decisions({k: tuple(v) for k, v in reviews.items()}, adjudications)


def blocking(store: Store) -> dict[str, list[str]]:
    rows = store.db.execute(
        "SELECT f.item_id, f.message FROM flags f JOIN items i ON i.id = f.item_id"
        " WHERE f.severity = 'blocking' ORDER BY i.seq, f.check_id"
    )
    result: dict[str, list[str]] = defaultdict(list)
    for item_id, message in rows:
        result[item_id].append(message)
    return dict(result)


def licences(store: Store) -> dict[str, str]:
    rows = store.db.execute("SELECT id, licence FROM recordings WHERE licence IS NOT NULL")
    return {str(r[0]).casefold(): str(r[1]) for r in rows if str(r[1]).strip()}
