"""What a GloBI item is about: the taxa its stem names, what each option is (a taxon, an
interaction, or neither), its gold record, and the loaded records of all those taxa.

Read once per item and shared by the GloBI checks (``globi.py``, ``documented.py``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from bagel_studio.core.checks.interactions import family, is_interaction
from bagel_studio.core.checks.records import GlobiLink, link_from_row
from bagel_studio.core.domains import GLOBI, LETTERS
from bagel_studio.core.model import Item
from bagel_studio.core.taxonomy import TaxonName, normalize_taxon, parse_name

if TYPE_CHECKING:
    from bagel_studio.core.checks.context import CheckContext

INTERACTION_DIMENSION = "Masked interaction type inference"
_TOKEN_RE = re.compile(r"\([A-Z][a-z]+\)|[A-Za-z][A-Za-z-]*\.?")
MAX_NAME_WORDS = 4  # genus, (subgenus), species, subspecies
_LATIN_ENDINGS = ("us", "a", "um", "i", "ae", "is", "ii", "x", "on", "ensis", "oides")


@dataclass
class GlobiItem:
    item: Item
    taxa: dict[int, TaxonName]  # option index -> parsed name, for options that are taxa
    interactions: dict[int, str]  # option index -> interaction name, for interaction options
    stem_taxa: dict[str, str]  # taxon key -> the name as written in the stem
    gold_link: GlobiLink | None
    links: dict[str, list[GlobiLink]] = field(default_factory=dict)

    @property
    def gold(self) -> int | None:
        return self.item.content.answer_index

    @property
    def options(self) -> tuple[str, ...]:
        return self.item.content.options

    @property
    def asks_interaction(self) -> bool:
        """A masked-interaction item: by its dimension, or because its options are interactions."""
        return self.item.content.dimension == INTERACTION_DIMENSION or len(self.interactions) >= 2

    def key(self, index: int) -> str:
        return normalize_taxon(self.options[index])


def letter(index: int) -> str:
    """The letter of option ``index`` (A-D), or its number past the fourth, so that a malformed
    item with more options is still named in a message."""
    return LETTERS[index] if index < len(LETTERS) else str(index + 1)


def read_globi_item(ctx: CheckContext, item: Item) -> GlobiItem:
    """What a GloBI item is about, read once for all the GloBI checks: its options as taxa or
    interactions, the taxa its stem names, its gold record, and the loaded records of all of
    them."""
    taxa: dict[int, TaxonName] = {}
    interactions: dict[int, str] = {}
    for index, option in enumerate(item.content.options):
        if is_interaction(option):
            interactions[index] = option.strip()
        else:
            name = parse_name(option)
            if name is not None:
                taxa[index] = name
    gold_link = _gold_link(ctx, item)
    candidates = stem_name_candidates(item.content.question)
    names = set(candidates.values()) | {item.content.options[i] for i in taxa}
    if gold_link is not None:
        names |= {gold_link.source, gold_link.target}
    links = ctx.records.links(names)
    stem_taxa = _stem_taxa(candidates, links)
    return GlobiItem(item, taxa, interactions, stem_taxa, gold_link, links)


def is_globi(item: Item) -> bool:
    """Whether ``item`` comes from the GloBI track, the only items the GloBI checks read."""
    return item.domain == GLOBI


def stem_name_candidates(question: str) -> dict[str, str]:
    """{key: name} of every run of words in the stem shaped like a scientific name."""
    tokens = [t.rstrip(".") if not t.startswith("(") else t for t in _TOKEN_RE.findall(question)]
    found: dict[str, str] = {}
    for start in range(len(tokens)):
        if not tokens[start][:1].isupper() or tokens[start].startswith("("):
            continue
        for end in range(start + 1, min(start + MAX_NAME_WORDS, len(tokens)) + 1):
            text = " ".join(tokens[start:end])
            name = parse_name(text)
            if name is not None and len(name.canonical.split()) == end - start - _subgenera(
                tokens[start:end]
            ):
                found.setdefault(name.key, text)
    return found


def _subgenera(tokens: list[str]) -> int:
    return sum(1 for t in tokens if t.startswith("("))


def _stem_taxa(candidates: dict[str, str], links: dict[str, list[GlobiLink]]) -> dict[str, str]:
    """The taxa the stem names (``candidates``: its ``stem_name_candidates``): names the loaded
    records know, and binomials, Latin-looking trinomials and rank-suffixed uninomials; a longer
    name wins over the shorter ones inside it ("Capreolus capreolus italicus")."""
    kept: dict[str, str] = {}
    for key, text in candidates.items():
        name = parse_name(text)
        if name is None:
            continue
        known = key in links
        if len(name.epithets) == 2 and not known and not _latin(name.epithets[1]):
            continue
        if known or name.epithets or name.rank is not None:
            kept[key] = text
    return {
        k: t for k, t in kept.items() if not any(o != k and o.startswith(k + " ") for o in kept)
    }


def _latin(epithet: str) -> bool:
    """An epithet with a Latin ending (italicus, nagpurensis, alba); English words that follow
    a binomial in a sentence rarely have one."""
    return epithet.lower().endswith(_LATIN_ENDINGS)


def _gold_link(ctx: CheckContext, item: Item) -> GlobiLink | None:
    """The record the item was generated from: by ``globi_ref``, by the envelope's table and row,
    or from the raw record the envelope carries."""
    refs = [item.globi_ref] if item.globi_ref else []
    table, row = item.source.get("table"), item.source.get("row")
    if isinstance(table, str) and table and row is not None:
        refs.append(f"{table.rsplit('/', 1)[-1]}#{row}")
    for ref in refs:
        link = ctx.records.by_ref(ref)
        if link is not None:
            return link
    raw = item.source.get("record")
    if isinstance(raw, dict):
        return _link_from_raw(raw)
    return None


def _link_from_raw(raw: dict[str, Any]) -> GlobiLink | None:
    source = raw.get("sourceTaxonName") or raw.get("source_taxon")
    target = raw.get("targetTaxonName") or raw.get("target_taxon")
    interaction = raw.get("interactionTypeName") or raw.get("interaction")
    if not (isinstance(source, str) and isinstance(target, str) and isinstance(interaction, str)):
        return None
    row = (
        "",
        "",
        0,
        source,
        interaction,
        target,
        raw.get("sourceTaxonPathNames"),
        raw.get("targetTaxonPathNames"),
        json.dumps(raw),
    )
    return link_from_row(row)


def role(link: GlobiLink, key: str) -> str:
    """The part the taxon ``key`` plays in the record: "actor", "patient" or "either"."""
    _, direction = family(link.interaction)
    if direction == 0:
        return "either"
    is_source = link.source_key == key
    return "actor" if is_source == (direction > 0) else "patient"


def describe(link: GlobiLink) -> str:
    """A record as the flags' messages name it: source, interaction, target."""
    return f"{link.source} {link.interaction} {link.target}"
