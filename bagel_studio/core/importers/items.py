"""Turning parsed JSON records into items: flat items and the four tracks' generator envelopes.

One ``ItemBatch`` collects everything a file yields: the items, the generator's own rejections
(``usable: "false"``), inline evidence carried by envelopes, and a ``Reject`` for every record that
cannot be an item. Nothing here touches the store; the runner writes a batch in one transaction.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from bagel_studio.core.domains import (
    BIORXIV,
    DIMENSIONS,
    DOMAINS,
    GLOBI,
    WIKIPEDIA,
    XENO_CANTO,
    domain_prefix,
    normalize_dimension,
    normalize_domain,
    normalize_level,
)
from bagel_studio.core.importers import fields
from bagel_studio.core.importers.fields import NotAnItem
from bagel_studio.core.importers.globi import record_from_row
from bagel_studio.core.importers.textio import decode_line
from bagel_studio.core.importers.texts import make_text
from bagel_studio.core.model import ItemContent
from bagel_studio.core.store import GeneratorRejection, NewItem, Reject

# Keys of a flat item that point at evidence; kept in its ``source`` so the desk can show them.
FLAT_REFERENCE_KEYS = (
    "recording",
    "recording_id",
    "xc_id",
    "title",
    "doi",
    "scientific_name",
    "table",
    "row",
    "text_file",
    "extract_file",
)
_FLAT_REFERENCES = frozenset(FLAT_REFERENCE_KEYS)
_TRUE = {"true", "yes", "1"}
# Labels repeat across thousands of lines: normalise each spelling once.
_domain_of = lru_cache(maxsize=256)(normalize_domain)
_dimension_of = lru_cache(maxsize=1024)(normalize_dimension)
_level_of = lru_cache(maxsize=64)(normalize_level)
_FALSE = {"false", "no", "0"}


@dataclass
class ItemBatch:
    """Everything one item file yields, ready to be written in one transaction."""

    file: str

    def __post_init__(self) -> None:
        self.items: dict[str, NewItem] = {}
        self.rejects: list[Reject] = []
        self.generator_rejections: list[GeneratorRejection] = []
        self.globi_records: list[dict[str, Any]] = []
        self.texts: list[dict[str, Any]] = []
        self.duplicates = 0
        self.reject_chars = 0  # of the rejects' text (each holds up to its line's first MiB)
        # Items already handed over to be written: id -> (content, domain, line), the content
        # as its canonical JSON's digest, so that a file streams in bounded memory.
        self._handed_over: dict[str, tuple[int | bytes, str, int | None]] = {}

    def hand_over(self) -> None:
        """Forget what was collected so far (the caller has written it) but its items' ids,
        so that a later line repeating one is still a duplicate, or a conflicting one."""
        for item_id, item in self.items.items():
            self._handed_over[item_id] = (_digest(item.content), item.domain, item.source_line)
        self.items = {}
        self.rejects = []
        self.generator_rejections = []
        self.globi_records = []
        self.texts = []
        self.duplicates = 0
        self.reject_chars = 0

    def reject(
        self, line: int, reason: str, raw: str | bytes = "", size: int | None = None
    ) -> None:
        """A reject of ``line``; ``size`` is the line's length when ``raw`` is only its head."""
        if isinstance(raw, bytes):
            raw = decode_line(raw)
        self.rejects.append(Reject(self.file, line, reason, raw, size))
        self.reject_chars += len(raw)

    def add_record(self, record: Any, line: int, raw: str | bytes) -> None:
        """Add whatever ``record`` (one parsed JSON value from ``line``, whose text is ``raw``)
        holds."""
        if not isinstance(record, dict):
            self.reject(line, f"not a JSON object but {fields.type_name(record)}", raw)
            return
        try:
            if "output" in record:
                self._add_envelope(record, line, raw)
            else:
                domain = _domain(record, None, {})
                self._add_item(_flat_item(record, domain, self.file, line), line, raw)
        except NotAnItem as exc:
            self.reject(line, str(exc), raw)

    def _add_envelope(self, record: dict[str, Any], line: int, raw: str | bytes) -> None:
        output = record["output"]
        if not isinstance(output, dict):
            raise NotAnItem(f"'output' must be an object, not {fields.type_name(output)}")
        source = _source_dict(record.get("source"))
        domain = _domain(record, output, source)
        base_id = _given_id(record) or fields.stable_id(
            domain_prefix(domain), {"source": source, "output": output}
        )
        if not _usable(output.get("usable")):
            reason = fields.optional_text(output.get("rejection_reason")) or "unspecified"
            self.generator_rejections.append(
                GeneratorRejection(base_id, domain, reason, source, output, self.file, line)
            )
            return
        if "questions" not in output:
            item = _envelope_item(record, output, source, domain, base_id, self.file, line)
            self._add_item(item, line, raw)
            self._add_inline_evidence(item, source, domain)
            return
        questions = output["questions"]
        if not isinstance(questions, list):
            raise NotAnItem(f"'questions' must be a list, not {fields.type_name(questions)}")
        if not questions:
            raise NotAnItem("'questions' is empty")
        for index, question in enumerate(questions):
            try:
                if not isinstance(question, dict):
                    raise NotAnItem(f"not an object but {fields.type_name(question)}")
                item_id = f"{base_id}:{index}"
                item = _envelope_item(record, question, source, domain, item_id, self.file, line)
            except NotAnItem as exc:
                self.reject(line, f"questions[{index}]: {exc}", raw)
                continue
            self._add_item(item, line, raw)
            self._add_inline_evidence(item, source, domain)

    def _add_item(self, item: NewItem, line: int, raw: str | bytes) -> None:
        earlier = self.items.get(item.id)
        if earlier is not None:
            same = earlier.content == item.content and earlier.domain == item.domain
            first_line = earlier.source_line
        elif item.id in self._handed_over:
            digest, domain, first_line = self._handed_over[item.id]
            same = digest == _digest(item.content) and domain == item.domain
        else:
            self.items[item.id] = item
            return
        if same:
            self.duplicates += 1
        else:
            self.reject(
                line,
                f"duplicate id {item.id!r} (first on line {first_line}) with different content",
                raw,
            )

    def _add_inline_evidence(self, item: NewItem, source: dict[str, Any], domain: str) -> None:
        """An envelope may carry its evidence inline: a GloBI record or a text."""
        if item.globi_ref and item.globi_ref.startswith("inline:"):
            row = {str(k): "" if v is None else str(v) for k, v in source["record"].items()}
            self.globi_records.append(record_from_row(row, item.globi_ref, "inline", 0))
        if item.text_key and item.text_key.startswith("inline:"):
            kind = "biorxiv" if domain == BIORXIV else "wikipedia"
            text = make_text(
                item.text_key,
                kind,
                str(source["text"]),
                title=source.get("title"),
                doi=source.get("doi"),
                source_file=self.file,
            )
            self.texts.append(text)


def _digest(content: ItemContent) -> int | bytes:
    """What a handed-over item's content is remembered by (within this run): its hash, or, for
    content that cannot be hashed (an option that is not a string), a digest of its JSON."""
    try:
        return hash(content)
    except TypeError:
        return hashlib.blake2b(content.canonical_json().encode("utf-8"), digest_size=16).digest()


def _given_id(record: dict[str, Any]) -> str | None:
    """The item's own id, or None when it has none (an id is then made from its content). An
    id that cannot be one is refused, not replaced: a list, an object or a boolean, or text
    holding a NUL character (which would cut it short where it is read as C text)."""
    value = record.get("id")
    if value is None:
        return None
    if isinstance(value, bool | dict | list):
        raise NotAnItem(f"'id' must be text or a number, not {fields.type_name(value)}")
    text = str(value).strip()
    if "\x00" in text:
        raise NotAnItem("'id' holds a NUL character (\\u0000), which would cut it short")
    return text or None


def _source_dict(value: Any) -> dict[str, Any]:
    if isinstance(value, dict):
        return dict(value)
    return {} if value is None else {"source": value}


def _usable(value: Any) -> bool:
    if value is None or value is True:
        return True
    if value is False:
        return False
    text = str(value).strip().lower()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise NotAnItem(f'\'usable\' must be "true" or "false", not {value!r}')


def _domain(record: dict[str, Any], output: dict[str, Any] | None, source: dict[str, Any]) -> str:
    """The item's domain: its ``domain`` field, else its id's prefix, else (for an envelope) the
    shape of its output."""
    raw = record.get("domain")
    if raw is not None:
        domain = _domain_of(raw) if isinstance(raw, str) else None
        if domain is None:
            raise NotAnItem(f"unknown domain {raw!r} (one of: {', '.join(DOMAINS)})")
        return domain
    given = _given_id(record)
    if given and (domain := _domain_of(given.split(":", 1)[0])):
        return domain
    if output is not None:
        if "questions" in output:
            return WIKIPEDIA
        if "usable" in output or "table" in source or "record" in source:
            return GLOBI
        if "recording" in source:
            return XENO_CANTO
        if "doi" in source:
            return BIORXIV
    raise NotAnItem(f"no domain (one of: {', '.join(DOMAINS)})")


def _flat_item(record: dict[str, Any], domain: str, file: str, line: int) -> NewItem:
    source = _source_dict(record.get("source"))
    if not _FLAT_REFERENCES.isdisjoint(record):  # most items name their evidence in "source"
        for key in FLAT_REFERENCE_KEYS:
            if key in record and key not in source:
                source[key] = record[key]
    return _build(record, record, source, domain, _given_id(record), file, line)


def _envelope_item(
    record: dict[str, Any],
    output: dict[str, Any],
    source: dict[str, Any],
    domain: str,
    item_id: str,
    file: str,
    line: int,
) -> NewItem:
    return _build(record, output, source, domain, item_id, file, line)


def _build(
    record: dict[str, Any],
    body: dict[str, Any],
    source: dict[str, Any],
    domain: str,
    item_id: str | None,
    file: str,
    line: int,
) -> NewItem:
    """One item from ``body`` (a flat item, an envelope's output or one of its questions)."""
    question = fields.question_text(body)
    options, letters = fields.read_options(body.get("options"))
    content = ItemContent(
        question=question,
        options=options,
        answer_index=fields.gold_index(body, options, letters),
        dimension=_dimension(domain, body.get("dimension"), source.get("topic")),
        level=_level(body.get("level") or record.get("level")),
    )
    if item_id is None:
        item_id = fields.stable_id(
            domain_prefix(domain), {"domain": domain, "question": question, "options": options}
        )
    rationale = fields.optional_text(body.get("rationale") or body.get("reason"))
    given = None if content.answer_index is not None else fields.given_answer(body)
    return NewItem(
        id=item_id,
        domain=domain,
        content=content,
        source=source,
        supporting_evidence=fields.text_list(body.get("supporting_evidence")),
        rationale=rationale,
        globi_ref=_globi_ref(source, item_id) if domain == GLOBI else None,
        recording_id=_recording(source, item_id) if domain == XENO_CANTO else None,
        text_key=_text_key(source, domain, item_id),
        source_file=file,
        source_line=line,
        given_answer=given,
    )


def _dimension(domain: str, raw: Any, topic: Any) -> str | None:
    """The canonical label, or the raw label when it is unknown (the checks then block the item).
    A missing label falls back to a Xeno-canto source's ``topic`` or to bioRxiv's only label."""
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        raw = topic
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        labels = DIMENSIONS[domain]
        return labels[0] if len(labels) == 1 else None
    if isinstance(raw, str):
        return _dimension_of(domain, raw) or raw.strip()
    return str(raw)


def _level(raw: Any) -> str | None:
    return _level_of(raw) if isinstance(raw, str) else None


def _globi_ref(source: dict[str, Any], item_id: str) -> str | None:
    if isinstance(source.get("record"), dict):
        return f"inline:{item_id}"
    ref = source.get("globi_ref") or source.get("ref")
    if isinstance(ref, str) and "#" in ref:
        return ref
    table, row = source.get("table"), source.get("row")
    if table is None or row is None or isinstance(row, bool):
        return None
    name = os.path.basename(str(table).replace("\\", "/"))
    number = str(row).strip()
    if isinstance(row, float) and row.is_integer():
        number = str(int(row))
    return f"{name}#{number}"


def _recording(source: dict[str, Any], item_id: str) -> str | None:
    """The recording named in the source, else an "xc<digits>" part of the item's id."""
    for key in ("recording", "recording_id", "xc_id", "id"):
        value = source.get(key)
        if value is not None and (found := fields.recording_id(value)) is not None:
            return found
    parts = [p for p in item_id.split(":") if p[:2].lower() == "xc" and p[2:].isdigit()]
    return f"XC{int(parts[0][2:])}" if parts else None


def _text_key(source: dict[str, Any], domain: str, item_id: str) -> str | None:
    """Where the item's text is: by DOI for bioRxiv, by article title for Wikipedia, else by
    scientific name or file name; an inline text is stored under ``inline:<item id>``."""
    if domain not in (WIKIPEDIA, BIORXIV):
        return None
    if isinstance(source.get("text"), str) and source["text"].strip():
        return f"inline:{item_id}"
    order = (
        ("doi", "title", "scientific_name")
        if domain == BIORXIV
        else ("title", "scientific_name", "doi")
    )
    prefixes = {"doi": "doi", "title": "title", "scientific_name": "sci"}
    for key in order:
        value = source.get(key)
        if isinstance(value, str) and value.strip():
            return f"{prefixes[key]}:{value.strip()}"
    for key in ("extract_file", "text_file", "file"):
        value = source.get(key)
        if isinstance(value, str) and value.strip():
            return "file:" + os.path.basename(value.strip().replace("\\", "/"))
    return None
