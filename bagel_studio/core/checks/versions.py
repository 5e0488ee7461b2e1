"""What stands behind each version of a disputed item: the flags its content gets, and what the
item's evidence says of its gold.

The adjudication window shows the item as imported and as each curator left it; an adjudicator
choosing between them needs what the desk showed each curator: the checks on that content (one
curator's edit fixed the gold, another's kept a distractor the records also back) and the
evidence (the sentence of the article that supports a gold, the GloBI records, the recording).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from bagel_studio.core.checks.run import check_item
from bagel_studio.core.checks.support import support_spans
from bagel_studio.core.domains import BIORXIV, GLOBI, WIKIPEDIA, XENO_CANTO
from bagel_studio.core.model import Flag, Item, ItemContent
from bagel_studio.core.store import Store

QUOTE_CHARS = 240  # of a supporting sentence, quoted


@dataclass(frozen=True)
class Behind:
    """One version's flags (the checks on its content) and the sentences of the item's text
    that support its gold (None: the item has no text, or the version no gold)."""

    flags: list[Flag]
    support: list[str] | None


def behind_versions(store: Store, item: Item, contents: list[ItemContent]) -> list[Behind]:
    """For each of ``contents`` (versions of ``item``), what stands behind it."""
    text = store.evidence.find_text(item.text_key) if item.domain in (WIKIPEDIA, BIORXIV) else None
    body = str(text["text"]) if text else ""
    found = []
    for content in contents:
        flags = check_item(store, replace(item, content=content))
        support = None
        if body and content.answer_text:
            spans = support_spans(body, content.answer_text)
            support = [_quote(body[start:end]) for start, end in spans]
        found.append(Behind(flags, support))
    return found


def evidence_lines(store: Store, item: Item) -> list[str]:
    """The item's evidence in a few lines: the article or paper, the GloBI record, the
    recording (or that it is not in the project)."""
    if item.domain in (WIKIPEDIA, BIORXIV):
        text = store.evidence.find_text(item.text_key)
        if text is None:
            return ["No text of this item is in the project."]
        what = "Article" if item.domain == WIKIPEDIA else "Paper"
        named = text.get("title") or text.get("key")
        doi = f" (doi {text['doi']})" if text.get("doi") else ""
        return [f"{what}: {named}{doi}, {len(str(text['text'])):,} characters"]
    if item.domain == GLOBI:
        record = store.evidence.globi_record(item.globi_ref) if item.globi_ref else None
        if record is None:
            return ["The GloBI record it was generated from is not in the project."]
        return [
            f"Generated from: {record.get('source_taxon') or '?'} —"
            f"{record.get('interaction') or '?'}→ {record.get('target_taxon') or '?'}"
            f" ({record.get('table_name') or '?'} row {record.get('row') or '?'})"
        ]
    if item.domain == XENO_CANTO:
        recording = store.evidence.recording(item.recording_id)
        if recording is None:
            return [f"Recording {item.recording_id or '(none named)'} is not in the project."]
        parts = [
            str(recording.get(key))
            for key in ("scientific_name", "common_name", "vocalization_type")
            if recording.get(key)
        ]
        return [f"Recording {recording['id']}: " + " · ".join(parts)]
    return []


def _quote(sentence: str) -> str:
    text = " ".join(sentence.split())
    return text if len(text) <= QUOTE_CHARS else text[: QUOTE_CHARS - 1] + "…"
