"""What a GloBI item is about: the taxa its stem names, what each option is (a taxon, an
interaction, or neither), its gold record, and the loaded records of all those taxa.

Read once per item and shared by the GloBI checks (``globi.py``, ``documented.py``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from bagel_studio.core.checks.interaction_types import classify_option, read_label
from bagel_studio.core.checks.records import GlobiLink, link_from_row
from bagel_studio.core.checks.words import stem
from bagel_studio.core.domains import GLOBI, LETTERS
from bagel_studio.core.model import Item
from bagel_studio.core.taxonomy import TaxonName, normalize_taxon, parse_name

if TYPE_CHECKING:
    from bagel_studio.core.checks.context import CheckContext

INTERACTION_DIMENSION = "Masked interaction type inference"
# a word, a subgenus in brackets, or a pair of epithets ("Pterois volitans/miles")
_TOKEN_RE = re.compile(r"\([A-Z][a-z]+\)|[A-Za-z][A-Za-z-]*(?:/[a-z][a-z-]*)?\.?")
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
    # option index -> the higher taxa it writes itself under ("Lepidoptera: Noctuidae")
    written_above: dict[int, tuple[str, ...]] = field(default_factory=dict)
    # option index -> {ancestor key: ref} from any record's lineage naming it (options without
    # records of their own)
    lineages: dict[int, dict[str, str]] = field(default_factory=dict)

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
        name = self.taxa.get(index)
        return name.key if name is not None else normalize_taxon(self.options[index])


_PLACE_WORD = re.compile(r"[^\W\d_]{3,}")


def stem_place(g: GlobiItem) -> tuple[str, ...]:
    """The parts of the gold record's place the stem names ("in Italy", "at Euglah Cave,
    Mount Kaputar"), folded: the parts of its locality between commas the stem holds as words,
    else the locality's words the stem writes with a capital inside the sentence (a place's
    name). Empty when the stem does not say where: records of every place fit it."""
    locality = g.gold_link.locality if g.gold_link is not None else ""
    if not locality:
        return ()
    question = g.item.content.question
    folded = " ".join(question.split()).casefold()
    parts = tuple(p.strip() for p in locality.split(",") if p.strip() and within(p.strip(), folded))
    if parts:
        return parts
    named = set(_PLACE_WORD.findall(locality))
    capitals = [
        m.group(0).casefold()
        for m in _PLACE_WORD.finditer(question)
        if m.start() > 0 and m.group(0)[0].isupper()
    ]
    return tuple(dict.fromkeys(w for w in capitals if w in named))


def in_place(link: GlobiLink, place: tuple[str, ...]) -> bool:
    """Whether a record is of the place the stem names (``stem_place``; a record that names no
    place fits any)."""
    return not link.locality or all(within(p, link.locality) for p in place)


# A figure standing alone ("176", "17.58", "1990"), not one inside a code ("L406", "3d4a").
_FIGURE = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?![\w])")
_WORD = re.compile(r"[^\W\d_][\w'’-]*")
_LIFE_STAGE = "LifeStageName"  # the columns of a record's life stages (GloBI's table)


def stem_marks(g: GlobiItem) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """What the stem states of the gold record beyond its taxa, each figure or word with the
    record's columns that hold it: a figure the stem writes ("numbered 176 items (17.58%)": the
    record's N and %N; "in 1990": its date), a name the stem writes with a capital inside the
    sentence ("reported by Lilley and Cerenius": its citation) and a word of the record's life
    stages in any form ("the eggs of Sylvia atricapilla": its target's "shelled egg"). The
    words of the options and of the stem's taxa are none: every record of those taxa holds
    them. Empty when the stem states nothing of the record: records of every kind fit it."""
    link = g.gold_link
    if link is None or not link.columns:
        return ()
    question = g.item.content.question
    figures = set(_FIGURE.findall(question))
    taxa = " ".join((*g.options, *g.stem_taxa.values())).casefold()
    names = {
        m.group(0)
        for m in _WORD.finditer(question)
        if m.start() > 0 and m.group(0)[0].isupper() and m.group(0).casefold() not in taxa
    }
    said = {stem(w.casefold()) for w in _WORD.findall(question)}
    held: dict[str, list[str]] = {}
    for column, value in link.columns.items():
        found = figures.intersection(_FIGURE.findall(value)) if figures else set()
        if names:
            found |= names.intersection(_WORD.findall(value))
        if column.endswith(_LIFE_STAGE):
            found |= {w for w in _WORD.findall(value) if stem(w.casefold()) in said}
        for mark in found:
            held.setdefault(mark, []).append(column)
    return tuple((mark, tuple(columns)) for mark, columns in sorted(held.items()))


def holds_marks(link: GlobiLink, marks: tuple[tuple[str, tuple[str, ...]], ...]) -> bool:
    """Whether a record states what the stem states of the gold record (``stem_marks``): one of
    the columns holding each figure or word holds it here too, or the record has none of those
    columns (a record that says nothing of it fits)."""
    for mark, columns in marks:
        values = [link.columns[c] for c in columns if c in link.columns]
        if not values:
            continue
        find = _FIGURE.findall if mark[:1].isdigit() else _WORD.findall
        if not any(mark in find(value) for value in values):
            return False
    return True


def within(place: str, text: str) -> bool:
    """Whether ``text`` names ``place`` as words ("UK, Hertfordshire" names the "UK";
    "Kessipoughou cave" does not name "Zadie cave")."""
    return re.search(rf"(?<!\w){re.escape(place)}(?!\w)", text) is not None


def letter(index: int) -> str:
    """The option letter of ``index`` (A-D; a number past them), for messages."""
    return LETTERS[index] if index < len(LETTERS) else str(index + 1)


def read_globi_item(ctx: CheckContext, item: Item) -> GlobiItem:
    """What a GloBI item is about, read once for all its checks: which options are taxa (an
    "Order: Family" option under its written higher taxa), interactions or neither, the taxa
    its stem names, its gold record, and the loaded records and lineages of all of them."""
    taxa: dict[int, TaxonName] = {}
    interactions: dict[int, str] = {}
    written_above: dict[int, tuple[str, ...]] = {}
    for index, option in enumerate(item.content.options):
        label, named = classify_option(option)
        if label:
            interactions[index] = option.strip()
        elif named is not None:
            continue  # an interaction named by a noun ("Predation"): no taxon
        else:
            parts = ranked_parts(option)
            name = parse_name(parts[-1]) if parts else parse_name(option)
            if name is not None:
                taxa[index] = name
                if parts:
                    written_above[index] = tuple(parts[:-1])
    gold_link = _gold_link(ctx, item)
    candidates = stem_name_candidates(item.content.question)
    names = set(candidates.values()) | {n.canonical for n in taxa.values()}
    if gold_link is not None:
        names |= {gold_link.source, gold_link.target}
    links = ctx.records.links(names)
    stem_taxa = _stem_taxa(candidates, links)
    lineages = {
        index: found
        for index, name in taxa.items()
        if name.key not in links and (found := ctx.records.lineage(name.canonical))
    }
    return GlobiItem(item, taxa, interactions, stem_taxa, gold_link, links, written_above, lineages)


_RANK_SEPARATOR = re.compile(r"\s*[:>]\s*")


def ranked_parts(option: str) -> list[str]:
    """The names of an option that writes a taxon under its higher taxa ("Lepidoptera:
    Noctuidae", "Insecta > Coleoptera > Carabidae"), highest first; empty for anything else."""
    if ":" not in option and ">" not in option:
        return []
    parts = [p for p in _RANK_SEPARATOR.split(option.strip()) if p]
    if len(parts) < 2 or any(parse_name(p) is None for p in parts):
        return []
    return parts


def is_globi(item: Item) -> bool:
    """Whether ``item`` is of the GloBI domain."""
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


def latin_shaped(name: str) -> bool:
    """A one-word name with a Latin ending ("Stomatopoda", "Mustela"), not an English common
    name ("Caribou", "Moose", "Beaver")."""
    return _latin(name.strip())


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
    """The part the taxon ``key`` plays in the record: "actor", "patient" or "either" (the
    eater, the parasite, the visitor is the actor; "eaten by" names the patient first)."""
    reading = read_label(link.interaction)
    if reading.symmetric:
        return "either"
    is_source = link.source_key == key
    return "actor" if is_source != reading.flipped else "patient"


def describe(link: GlobiLink) -> str:
    """The record in one line, as a message quotes it ("Vulpes vulpes eats Microtus arvalis")."""
    return f"{link.source} {link.interaction} {link.target}"
