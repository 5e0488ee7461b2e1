"""The evidence an item was generated from, as text for the judge and values for regeneration."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bagel_studio.core.domains import BIORXIV, GLOBI, WIKIPEDIA, XENO_CANTO
from bagel_studio.core.llm.fit import Evidence
from bagel_studio.core.model import Item
from bagel_studio.core.store import Store

MAX_TEXT = 12_000  # characters of an article or paper given to the judge at most
# The placeholder of each domain's generation prompt that holds the evidence: the only part of
# the paper's prompt that may be shortened to fit a model's context.
EVIDENCE_FIELDS = {WIKIPEDIA: "WikipediaText", BIORXIV: "paper", GLOBI: "Interaction record"}

_GLOBI_FIELDS = (
    ("source_taxon", "Source taxon"),
    ("interaction", "Interaction"),
    ("target_taxon", "Target taxon"),
    ("locality", "Locality"),
    ("date", "Date"),
    ("citation", "Reference"),
)

# What the Xeno-canto prompt's topic placeholders say for each dimension (our wording: the paper
# prints the placeholders but not their values).
XC_TOPICS: dict[str, tuple[str, str, str, str]] = {
    "Dominant frequency range": (
        "dominant frequency range",
        "Ask about the frequency band where most of the energy lies.",
        "kHz",
        "'2-4 kHz', '5-8 kHz'",
    ),
    "Call / syllable duration": (
        "call or syllable duration",
        "Ask about the typical length of one call or syllable.",
        "ms or s",
        "'50-100 ms', '0.5-1 s'",
    ),
    "Modulation pattern": (
        "modulation pattern",
        "Ask about how pitch changes within a note (rising, falling, trilled, flat).",
        "descriptive terms",
        "'rising glide', 'rapid trill'",
    ),
    "Harmonic structure / tonality vs. broadband": (
        "harmonic structure versus broadband noise",
        "Ask whether the sound is tonal with harmonics or broadband and noisy.",
        "descriptive terms",
        "'pure tone', 'harsh broadband'",
    ),
}


def _first(*values: Any) -> str:
    return next((str(v) for v in values if v), "")


def _text(store: Store, item: Item) -> dict[str, Any] | None:
    return store.evidence.find_text(item.text_key) if item.text_key else None


def _globi_summary(store: Store, item: Item) -> str:
    summary = item.source.get("summary")
    if isinstance(summary, str) and summary.strip():
        return summary.strip()
    record = store.evidence.globi_record(item.globi_ref) if item.globi_ref else None
    if not record:
        return ""
    return "; ".join(f"{label}: {record[key]}" for key, label in _GLOBI_FIELDS if record.get(key))


def focus(item: Item) -> str:
    """What the item asks (stem and options): the parts of a shortened evidence kept first."""
    return " ".join([item.content.question, *item.content.options])


def judge_evidence(store: Store, item: Item) -> tuple[Evidence, Callable[[str], str]]:
    """The item's evidence for the judge: the part that may be shortened (the article or the
    paper; a record or a recording is short and sent whole), and the whole evidence around a
    (shortened) text: the title, the text, the generator's spans and rationale."""
    before: list[str] = []
    text = ""
    after: list[str] = []
    if item.domain in (WIKIPEDIA, BIORXIV):
        found = _text(store, item)
        if found:
            before.append(str(found.get("title") or "").strip())
            text = str(found["text"]).strip()
    elif item.domain == GLOBI:
        before.append(_globi_summary(store, item))
    elif item.domain == XENO_CANTO:
        recording = store.evidence.recording(item.recording_id) if item.recording_id else None
        if recording:
            before.append(
                f"Recording {recording['id']} of {recording.get('common_name') or ''} "
                f"({recording.get('scientific_name') or ''}), vocalization type: "
                f"{recording.get('vocalization_type') or 'unknown'}"
            )
    if item.supporting_evidence:
        after.append("Supporting spans: " + " | ".join(item.supporting_evidence))
    if item.rationale:
        after.append(f"Generator's rationale: {item.rationale}")

    def render(shown: str) -> str:
        head = "\n".join(p for p in (*before, shown) if p)
        return (
            "\n\n".join(p for p in (head, *after) if p) or "(no evidence is loaded for this item)"
        )

    cap_reason = f"to the judge's cap of {MAX_TEXT:,} characters"
    return Evidence(text, focus(item), MAX_TEXT, cap_reason), render


def generation_values(store: Store, item: Item) -> dict[str, str] | None:
    """The placeholders of the domain's generation prompt, or None when the evidence is missing."""
    source = item.source
    if item.domain == WIKIPEDIA:
        text = _text(store, item)
        if not text:
            return None
        found = source.get("taxonomy")
        taxonomy: dict[str, Any] = found if isinstance(found, dict) else {}
        names = source.get("common_names")
        values = {
            "ScientificName": str(
                source.get("scientific_name") or text.get("scientific_name") or ""
            ),
            "CommonNames": ", ".join(names) if isinstance(names, list) else str(names or ""),
            "WikipediaTitle": str(text.get("title") or ""),
            "WikipediaText": str(text["text"]),
        }
        for rank in ("Kingdom", "Phylum", "Class", "Order", "Family", "Genus"):
            values[rank] = str(taxonomy.get(rank.lower()) or taxonomy.get(rank) or "")
        return values
    if item.domain == GLOBI:
        summary = _globi_summary(store, item)
        return {"Interaction record": summary} if summary else None
    if item.domain == BIORXIV:
        text = _text(store, item)
        if not text:
            return None
        return {"paper": f"{text.get('title') or ''}\n\n{text['text']}".strip()}
    if item.domain == XENO_CANTO:
        recording = store.evidence.recording(item.recording_id) if item.recording_id else None
        vt = str(
            (recording or {}).get("vocalization_type") or source.get("vocalization_type") or ""
        )
        topic = XC_TOPICS.get(item.content.dimension or "", XC_TOPICS["Dominant frequency range"])
        return {
            "common_name": str(
                (recording or {}).get("common_name") or source.get("common_name") or ""
            ),
            "scientific_name": str(
                (recording or {}).get("scientific_name") or source.get("scientific_name") or ""
            ),
            "Vocalization type": vt,
            "vt": vt,
            "topic_label": topic[0],
            "guidance": topic[1],
            "units hint": topic[2],
            "examples": topic[3],
        }
    return None
