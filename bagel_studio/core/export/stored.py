"""Released contents read from the project's stored rows, by the release rule.

The store writes content JSON canonically (``ItemContent.canonical_json``), so the reviews of an
item accepted as shown store its own content's canonical JSON: planning and writing a release
tell the released content by comparing texts, and decode only a text that differs (an edit,
another curator's content, an adjudication, a content some other program wrote). What they read
is the ``RELEASE_COLUMNS`` of each item (``store.items.release_rows``) with its reviews and
adjudication as stored, a batch at a time.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bagel_studio.core.model import Decision, ItemContent
from bagel_studio.core.store import Store
from bagel_studio.core.store.rows import content_columns_json, options_of

Row = tuple[Any, ...]  # a ``release_rows`` row: RELEASE_COLUMNS, in their order
ORIGINAL = 7  # the content as imported (its canonical JSON)
STATUS = 14
VERDICT = 15  # the release verdict the import stored (``checks.verdict``), or None

_SKIP = Decision.SKIP.value
_KEEPS = (Decision.ACCEPT.value, Decision.REVISE.value)


@dataclass(frozen=True)
class StoredBatch:
    """Some items' rows (in no particular order), with their reviews (by curator) and
    adjudications."""

    rows: list[Row]
    reviews: dict[str, list[Row]]  # item id -> its ``review_rows``
    adjudications: dict[str, dict[str, Any]]  # item id -> its ``adjudication_rows`` entry


def read_batch(store: Store, item_ids: Sequence[str]) -> StoredBatch:
    """The stored rows of those of ``item_ids`` that exist (one query per table)."""
    return _with_decisions(store, store.items.release_rows(item_ids))


def _with_decisions(store: Store, rows: list[Row]) -> StoredBatch:
    ids = [row[0] for row in rows]
    reviews: dict[str, list[Row]] = defaultdict(list)
    for review in store.reviews.rows(ids):
        reviews[review[0]].append(review)
    return StoredBatch(rows, reviews, dict(store.adjudications.rows(ids)))


def columns_content(row: Row) -> ItemContent:
    """The item's current content, from its content columns."""
    return ItemContent(row[2], options_of(row[3]), row[4], row[5], row[6])


def released(
    row: Row, reviews: Sequence[Row], adjudication: dict[str, Any] | None
) -> tuple[ItemContent, str] | None:
    """The content to release (``rows.released_content``) and its canonical JSON, from the
    stored texts: the item's current content when the deciding text is its canonical JSON (the
    usual case: accepted as shown), else the text decoded; None when there is none."""
    if adjudication is not None:
        if adjudication["decision"] not in _KEEPS:
            return None
        texts = {adjudication["content"]}
    elif len(reviews) == 1:  # one curator: the usual case
        if reviews[0][2] not in _KEEPS:
            return None
        texts = {reviews[0][5]}
    else:
        verdicts = [review for review in reviews if review[2] != _SKIP]
        if not verdicts or any(review[2] not in _KEEPS for review in verdicts):
            return None
        texts = {review[5] for review in verdicts}
    if len(texts) == 1:
        text = next(iter(texts))
        # an item released as imported whose content columns are as imported: it has a release
        # verdict, which is cleared when any of them changes (``m_items_release_verdict``)
        if row[VERDICT] is not None and text == row[ORIGINAL]:
            return columns_content(row), text
        # the columns' canonical JSON from their text (the options column is stored as JSON):
        # a review of the item as shown stores exactly that
        if text == content_columns_json(row[2], row[3], row[4], row[5], row[6]):
            return columns_content(row), text
        content = decode(text)
        return content, content.canonical_json()
    decoded = {decode(text) for text in texts}
    if len(decoded) != 1:
        return None
    content = decoded.pop()
    return content, content.canonical_json()


def decode(text: str) -> ItemContent:
    """A stored content JSON, as ``ContentCache`` decodes it."""
    return ItemContent.from_json(json.loads(text))


def source_of(text: str | None) -> Any:
    """The generator's record, as ``item_from_values`` decodes it."""
    return {} if text in (None, "", "{}") else json.loads(text) or {}


def recording_of(row: Row, source: Any = None) -> str | None:
    """``plan.recording_id`` of the item: its recording column, else the generator record's
    ``recording`` (``source``: the record if decoded already)."""
    if row[10]:
        return str(row[10])  # a text column
    if source is None:
        source = source_of(row[8])
    value = source.get("recording") if isinstance(source, dict) else None
    return str(value) if value else None
