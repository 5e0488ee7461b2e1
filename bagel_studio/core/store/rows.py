"""Conversions between the store's rows and the core's types (an item's row and its content
columns, a history entry), and the release rule. A review's row and the status rule live in
``reviews.py``, beside the SQL that writes them."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from json.encoder import encode_basestring
from typing import Any

from bagel_studio.core.model import (
    SEVERITY_RANK,
    Decision,
    Flag,
    HistoryEntry,
    Item,
    ItemContent,
    Review,
    Status,
    json_strings,
)
from bagel_studio.core.store.queue import NO_FLAG


@dataclass(frozen=True)
class NewItem:
    """An item on its way in from an importer."""

    id: str
    domain: str
    content: ItemContent
    source: dict[str, Any] = field(default_factory=dict)
    supporting_evidence: tuple[str, ...] = ()
    rationale: str | None = None
    globi_ref: str | None = None
    recording_id: str | None = None
    text_key: str | None = None
    source_file: str | None = None
    source_line: int | None = None
    given_answer: str | None = None  # the gold as given, when it matched no option


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def _loads(value: str | None) -> Any:
    return json.loads(value) if value else None


def released_content(
    adjudication: dict[str, Any] | None, reviews: Iterable[Review]
) -> ItemContent | None:
    """The content to release for an item, from its adjudication (as ``store.adjudications.get``
    gives it) and its curators' reviews, else None.

    The adjudicator's content if they accepted; without an adjudication, the one content every
    non-skipping curator accepted. ``store.reviews.final_content`` and the export's bulk plan
    both ask this.
    """
    if adjudication is not None:
        if adjudication["decision"] in (Decision.ACCEPT, Decision.REVISE):
            content: ItemContent = adjudication["content"]
            return content
        return None
    verdicts = [r for r in reviews if r.decision is not Decision.SKIP]
    if verdicts and all(r.decision in (Decision.ACCEPT, Decision.REVISE) for r in verdicts):
        contents = {r.content for r in verdicts}
        if len(contents) == 1:
            return contents.pop()
    return None


def _unique_by_id(items: Iterable[NewItem]) -> tuple[dict[str, NewItem], int]:
    """Items by id (the first of repeated ids kept), and how many items were given."""
    unique: dict[str, NewItem] = {}
    given = 0
    for item in items:
        given += 1
        unique.setdefault(item.id, item)
    return unique, given


_CANONICAL = json.JSONEncoder(ensure_ascii=False, sort_keys=True)


def _canonical(value: dict[str, Any]) -> str:
    """``_dumps(value)``, cheaper for the usual flat dict of strings (no encoder per call)."""
    if not value:
        return "{}"
    try:
        pairs = [
            f"{encode_basestring(k)}: {encode_basestring(v)}" for k, v in sorted(value.items())
        ]
    except TypeError:  # a key or value that is not a string
        return _CANONICAL.encode(value)
    return "{" + ", ".join(pairs) + "}"


def _new_item_row(
    item: NewItem, seq: int, import_id: int | None, flags: Sequence[Flag], verdict: int | None
) -> tuple[Any, ...]:
    """The ``items`` row of a new item (columns in ``add_items``' order)."""
    content = item.content
    options = content.options_json()
    original = content.canonical_json(options)
    severity, checks = NO_FLAG, ","
    if flags:
        severity = min(SEVERITY_RANK[f.severity] for f in flags)
        checks += "".join(f"{f.check}," for f in flags)
    return (
        item.id,
        seq,
        item.domain,
        content.dimension,
        content.level,
        content.question,
        options,
        content.answer_index,
        original,
        Status.UNREVIEWED.value,
        severity,
        checks,
        _canonical(item.source),
        _json_list(item.supporting_evidence),
        item.rationale,
        item.globi_ref,
        item.recording_id,
        item.text_key,
        import_id,
        item.source_file,
        item.source_line,
        hashlib.sha256(original.encode("utf-8")).hexdigest()[:16],
        verdict,
    )


def _json_list(values: Sequence[Any]) -> str:
    if not values:
        return "[]"
    try:
        return json_strings(tuple(values))
    except TypeError:  # not all strings
        return _dumps(list(values))


_ITEM_FIELDS = (
    "id",
    "domain",
    "question",
    "options",
    "answer_index",
    "dimension",
    "level",
    "original",
    "status",
    "source",
    "supporting_evidence",
    "rationale",
    "globi_ref",
    "recording_id",
    "text_key",
    "source_file",
    "source_line",
)
ITEM_COLUMNS = ", ".join(_ITEM_FIELDS)  # the columns ``item_from_values`` decodes, in order
# ... followed by the generator's answer (``Items.item_columns``): from its own table, where the
# project has it (``schema.m_given_answers``); an item's row holds none
GIVEN_ANSWER = "(SELECT answer FROM given_answers WHERE given_answers.item_id = items.id)"
# The columns a release is planned and written from (``release_rows``; ``export.stored``).
RELEASE_COLUMNS = (
    "id, domain, question, options, answer_index, dimension, level, original, source,"
    " globi_ref, recording_id, text_key, source_file, source_line, status, release_verdict"
)


class ContentCache:
    """Content JSON decoded once per distinct text (the store writes it canonically), so that a
    bulk read shares one ``ItemContent`` between an item's original and every review of it."""

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


_STATUS = {s.value: s for s in Status}


def item_from_values(row: Sequence[Any], contents: ContentCache | None = None) -> Item:
    """THE decoder from an ``items`` row (``ITEM_COLUMNS``, in that order, then the generator's
    answer: ``Items.item_columns``) to an ``Item``.

    An item not edited since import (the common case) has its content columns equal to its
    ``original`` JSON: one content is built from the columns and serves as both, without parsing
    the JSON. ``contents`` shares decoded contents across a bulk read (the export's)."""
    item_id, domain, question, options, answer_index, dimension, level, original = row[:8]
    status, source, evidence, *links = row[8:]
    contents = contents or ContentCache()
    content = ItemContent(question, options_of(options), answer_index, dimension, level)
    if content_columns_json(question, options, answer_index, dimension, level) == original:
        content = first = contents.put(original, content)
    else:
        first = contents.get(original)
    return Item(
        item_id,
        domain,
        content,
        first,
        _STATUS[status],
        {} if source in (None, "", "{}") else json.loads(source) or {},
        () if evidence in (None, "", "[]") else tuple(json.loads(evidence) or ()),
        *links,  # rationale, globi_ref, recording_id, text_key, source_file, source_line,
        # given_answer
    )


def content_columns_json(
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


def options_of(text: str) -> tuple[str, ...]:
    """An item's options column, as ``ItemContent.from_json`` reads a content's options."""
    values = stored_json(text)
    try:
        "".join(values)  # every value a string (the usual case): one call, no loop
    except TypeError:
        return tuple(str(v) for v in values)
    return tuple(values)


_raw_decode = json.JSONDecoder().raw_decode


def stored_json(text: str) -> Any:
    """``json.loads(text)`` of a JSON text the store wrote (nothing around the value): its C
    scanner alone, without the two whitespace searches ``json.loads`` makes around it, which
    took a third of the time on an options column; any other text goes to ``json.loads``."""
    try:
        value, end = _raw_decode(text)
    except (ValueError, TypeError):
        return json.loads(text)
    return value if end == len(text) else json.loads(text)


def _history_from_row(row: Sequence[Any]) -> HistoryEntry:
    return HistoryEntry(
        id=int(row[0]),
        item_id=row[1],
        curator=row[2],
        at=row[3],
        action=row[4],
        before=_loads(row[5]),
        after=_loads(row[6]),
        undone=bool(row[7]),
    )
