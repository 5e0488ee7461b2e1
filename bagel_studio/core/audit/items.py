"""The items an audit looks at: every item not rejected, with its final content.

An audit asks what a model could exploit in the release, so it reads each item as it stands: the
content the release rule (``rows.released_content``) gives an accepted or revised item, else the
item's current content. Rejected items never reach a release and are left out. All of it is read
in a few bulk queries (``core.collect``), since an audit reads the whole project.
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from bagel_studio.core.audit.report import LeftOut
from bagel_studio.core.collect import collect
from bagel_studio.core.model import Item, ItemContent, Status
from bagel_studio.core.store import Store
from bagel_studio.core.store.rows import released_content

# Genus + epithet as a stem writes it ("Vulpes vulpes"); sentence heads are screened below.
# ``\b`` before the genus is asked after its capital, so that a search for capitals leads.
_BINOMIAL = re.compile(r"([A-Z])(?<!\w[A-Z])([a-z]{2,}) ([a-z]{3,})\b")
_NOTHING: frozenset[str] = frozenset()
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


def load_audited(store: Store) -> tuple[list[AuditItem], LeftOut]:
    """Every item not rejected whose final content has four options and a valid gold, in queue
    order, and the items left out (``LeftOut``: how many are rejected, which lack four options
    or a gold among them), so that the audit can say what it did not see."""
    collected = collect(store)
    decisions = collected.decisions
    kept: list[tuple[Item, ItemContent, int]] = []
    rejected, unsound = 0, []
    for item in collected.items:
        if item.status is Status.REJECTED:
            rejected += 1
            continue
        content = None
        if item.status in (Status.ACCEPTED, Status.REVISED):
            content = released_content(
                decisions.adjudications.get(item.id), decisions.reviews.get(item.id, ())
            )
        content = content or item.content
        index = content.answer_index
        if len(content.options) != 4 or index is None or not 0 <= index < 4:
            unsound.append(item.id)
            continue
        kept.append((item, content, index))
    about = subjects_of([item for item, _, _ in kept], [c.question for _, c, _ in kept])
    audited = [
        AuditItem(
            item.id,
            item.domain,
            content.dimension or "(none)",
            content.question,
            content.options,
            index,
            item.recording_id,
            keys,
            content,
        )
        for (item, content, index), keys in zip(kept, about, strict=True)
    ]
    return audited, LeftOut(rejected, tuple(unsound))


def subjects(item: Item, question: str) -> frozenset[str]:
    """What an item is about, as keys two items share when they concern the same thing: its
    Wikipedia or bioRxiv text, its GloBI record, its recording, the species of its source, and
    the binomial names in its stem."""
    return subjects_of([item], [question])[0]


def subjects_of(items: Sequence[Item], questions: Sequence[str]) -> list[frozenset[str]]:
    """``subjects`` of each item with its question (the binomials of all the questions found
    in one search)."""
    return stored_subjects(
        [item.text_key for item in items],
        [item.globi_ref for item in items],
        [item.recording_id for item in items],
        _sources(items),
        questions,
    )


def stored_subjects(
    text_keys: Sequence[str | None],
    globi_refs: Sequence[str | None],
    recordings: Sequence[str | None],
    sources: Sequence[Any],
    questions: Sequence[str],
) -> list[frozenset[str]]:
    """``subjects_of`` from the items' fields as stored (the release writer reads no ``Item``);
    a source's DOI and title count as its text."""
    found: dict[int, set[str]] = {}  # position -> its subjects, for the items with some

    def add(keys: Sequence[str | None], prefix: str) -> None:
        for position, key in enumerate(keys):
            if key:
                found.setdefault(position, set()).add(prefix + key)

    add(text_keys, "text:")
    for field, prefix in (("doi", "text:doi:"), ("title", "text:title:")):
        # the source's DOI or article title too: an inline abstract's key is the item's own
        values = [s.get(field) if isinstance(s, dict) else None for s in sources]
        add([v.strip() if isinstance(v, str) and v.strip() else None for v in values], prefix)
    add(globi_refs, "record:")
    add([r.casefold() if r else None for r in recordings], "recording:")
    names = [s.get("scientific_name") if isinstance(s, dict) else None for s in sources]
    add([" ".join(n.split()).casefold() if isinstance(n, str) else None for n in names], "taxon:")
    joined = "\x00".join(questions)  # NUL: no word character, so each question stands alone
    ends = list(itertools.accumulate(len(q) + 1 for q in questions))
    for match in _BINOMIAL.finditer(joined) if _has_capital(joined) else ():
        capital, rest, epithet = match.groups()
        genus = capital + rest
        if genus.lower() not in _NOT_GENUS and not _in_a_name(joined, match.start()):
            where = bisect.bisect_right(ends, match.start())
            found.setdefault(where, set()).add(f"taxon:{genus.casefold()} {epithet}")
    return [frozenset(found[p]) if p in found else _NOTHING for p in range(len(questions))]


_WORD_BEFORE = re.compile(r"([A-Z][a-z]+)(?:['’]s)? $")  # "Sonoran Desert", "Townsend's Warbler"


def _in_a_name(text: str, start: int) -> bool:
    """Whether the capitalised word at ``start`` follows another that is no function word
    (or a possessive one): the second word of a name ("the Sonoran Desert food web", "a
    Townsend's Warbler song"), not a genus ("Which Turdus merula sings?", "eats Microtus
    arvalis")."""
    before = _WORD_BEFORE.search(text, max(0, start - 40), start)
    return before is not None and before.group(1).lower() not in _NOT_GENUS


def _has_capital(text: str) -> bool:
    """Whether ``text`` holds a capital A to Z (a binomial starts with one): looked for in numpy,
    some twenty times faster than the binomial search takes to find nothing."""
    codes = np.frombuffer(text.encode("utf-8", "surrogatepass"), dtype=np.uint8)
    return bool(np.count_nonzero((codes >= 65) & (codes <= 90)))


def _sources(items: Sequence[Item]) -> list[Any]:
    return [item.source for item in items]
