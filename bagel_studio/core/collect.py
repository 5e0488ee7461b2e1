"""Reading what an export or an audit needs from a project in a few bulk queries.

An export or an audit reads every item, review and adjudication of the project. Going through
``Store``'s per-item accessors costs two queries per item, and even its bulk reads decode the same
content JSON up to three times per item (the item's original, its current content, each
curator's copy). Here every table is read in one query (the store's bulk reads), and content JSON
is decoded once per distinct text (``ContentCache``): an item accepted as is has the same
canonical JSON in its ``original`` column and in its review, so the review gets the very object
decoded for the item.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from bagel_studio.core.model import Decision, Item, Review, Status
from bagel_studio.core.store import Store
from bagel_studio.core.store.rows import ContentCache

_STATUS = {s.value: s for s in Status}
_DECISION = {d.value: d for d in Decision}


@dataclass(frozen=True)
class Decisions:
    """Every review and adjudication of the project."""

    reviews: dict[str, tuple[Review, ...]]  # item id -> its reviews, by curator
    adjudications: dict[str, dict[str, Any]]  # item id -> ``store.adjudications.get(item_id)``


@dataclass(frozen=True)
class Collected:
    items: list[Item]  # in queue order, as ``store.items.iterate()`` gives them
    decisions: Decisions
    blocking: dict[str, list[str]]  # item id -> messages of its blocking flags, by check
    licences: dict[str, str]  # casefolded recording id -> licence


def collect(store: Store) -> Collected:
    """Everything the plan reads, as of one moment if the caller holds a read transaction."""
    contents = ContentCache()
    items = _items(store, contents)
    return Collected(items, _decisions(store, contents), blocking(store), licences(store))


def _items(store: Store, contents: ContentCache) -> list[Item]:
    return store.items.get_many(contents=contents)


def collect_items(store: Store, item_ids: list[str]) -> tuple[dict[str, Item], Decisions]:
    """The items of ``item_ids`` (by id) and their decisions, read as ``collect`` reads them."""
    contents = ContentCache()
    items = {item.id: item for item in store.items.get_many(item_ids, contents=contents)}
    return items, _decisions(store, contents, item_ids)


def _decisions(
    store: Store, contents: ContentCache, item_ids: list[str] | None = None
) -> Decisions:
    """The reviews and adjudications of every item, or of ``item_ids`` only."""
    reviews: dict[str, list[Review]] = defaultdict(list)
    rows = store.reviews.rows(item_ids)
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
    for item_id, data in store.adjudications.rows(item_ids):
        data["content"] = contents.get(data["content"])
        adjudications[item_id] = data
    return Decisions({k: tuple(v) for k, v in reviews.items()}, adjudications)


def blocking(store: Store) -> dict[str, list[str]]:
    """The blocking flags' messages per item: any of them stops the export."""
    return store.flags.blocking_messages()


def licences(store: Store) -> dict[str, str]:
    """Every loaded recording's licence by id: an ND licence stops the export, the card counts
    the others."""
    return store.evidence.recording_licences()
