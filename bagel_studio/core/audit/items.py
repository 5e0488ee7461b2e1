"""The items an audit looks at: every item not rejected, with its final content.

An audit asks what a model could exploit in the release, so it reads each item as it stands: the
content the release rule (``rows.released_content``) gives an accepted or revised item, else the
item's current content. Rejected items never reach a release and are left out. All of it is read
in a few bulk queries (``export.collect``), since an audit reads the whole project.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property

from bagel_studio.core.audit.words import content_words
from bagel_studio.core.model import Item, ItemContent, Status
from bagel_studio.core.store import Store
from bagel_studio.core.store.rows import released_content

# Genus + epithet as a stem writes it ("Vulpes vulpes"); sentence heads are screened below.
_BINOMIAL = re.compile(r"\b([A-Z][a-z]{2,}) ([a-z]{3,})\b")
_NOT_GENUS = frozenset(
    """which what where when why how who whom whose the this that these those there their
    they in on of for by with from to at is are it its both all none some most many one two
    and or not no as if than between among during after before has have was were be can may
    does do did only while according based given""".split()  # noqa: SIM905
)


@dataclass(frozen=True)
class AuditItem:
    """One item as the audit sees it: final content, and what it is about (``subjects``)."""

    id: str
    domain: str
    dimension: str
    question: str
    options: tuple[str, ...]
    answer_index: int
    recording_id: str | None
    subjects: frozenset[str]  # keys of the species, record, recording or text it is about
    content: ItemContent  # the final content the fields above come from

    @property
    def gold(self) -> str:
        return self.options[self.answer_index]

    @cached_property
    def question_words(self) -> frozenset[int]:
        return content_words(self.question)

    @cached_property
    def option_words(self) -> tuple[frozenset[int], ...]:
        return tuple(content_words(o) for o in self.options)

    @property
    def gold_words(self) -> frozenset[int]:
        return self.option_words[self.answer_index]


def load_items(store: Store) -> list[AuditItem]:
    """Every item not rejected whose final content has four options and a valid gold, in queue
    order."""
    # Deferred: the export's report audits the release, so the export imports the audit.
    from bagel_studio.core.export.collect import collect

    collected = collect(store)
    decisions = collected.decisions
    result: list[AuditItem] = []
    for item in collected.items:
        if item.status is Status.REJECTED:
            continue
        content = None
        if item.status in (Status.ACCEPTED, Status.REVISED):
            content = released_content(
                decisions.adjudications.get(item.id), decisions.reviews.get(item.id, ())
            )
        content = content or item.content
        index = content.answer_index
        if len(content.options) != 4 or index is None or not 0 <= index < 4:
            continue
        result.append(
            AuditItem(
                item.id,
                item.domain,
                content.dimension or "(none)",
                content.question,
                content.options,
                index,
                item.recording_id,
                subjects(item, content.question),
                content,
            )
        )
    return result


def subjects(item: Item, question: str) -> frozenset[str]:
    """What an item is about, as keys two items share when they concern the same thing: its
    Wikipedia or bioRxiv text, its GloBI record, its recording, the species of its source, and
    the binomial names in its stem."""
    return subjects_of(item.text_key, item.globi_ref, item.recording_id, item.source, question)


def subjects_of(
    text_key: str | None,
    globi_ref: str | None,
    recording_id: str | None,
    source: object,
    question: str,
) -> frozenset[str]:
    """``subjects`` from an item's stored fields (the release writer has no ``Item``)."""
    keys: set[str] = set()
    if text_key:
        keys.add(f"text:{text_key}")
    if globi_ref:
        keys.add(f"record:{globi_ref}")
    if recording_id:
        keys.add(f"recording:{recording_id.casefold()}")
    name = source.get("scientific_name") if isinstance(source, dict) else None
    if isinstance(name, str) and name.strip():
        keys.add(f"taxon:{' '.join(name.split()).casefold()}")
    for genus, epithet in _BINOMIAL.findall(question):
        if genus.lower() not in _NOT_GENUS:
            keys.add(f"taxon:{genus.casefold()} {epithet}")
    return frozenset(keys)
