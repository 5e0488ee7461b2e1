"""The GloBI checks (the paper's Appendix G buckets): taxa that overlap or collide as options,
the stem's own taxon offered as an option, interaction words that leak the masked answer, and
interactions too vague to tell the options apart. ``documented.py`` holds the record-based one."""

from __future__ import annotations

import re
from collections.abc import Callable

from bagel_studio.core.checks.documented import DESCRIPTION as ALSO_DOCUMENTED_DESCRIPTION
from bagel_studio.core.checks.documented import also_documented, links_for_option
from bagel_studio.core.checks.globi_item import (
    GlobiItem,
    in_place,
    latin_shaped,
    letter,
    stem_place,
)
from bagel_studio.core.checks.groups import asked_rank
from bagel_studio.core.checks.interaction_types import (
    VAGUE,
    active_interaction,
    implies,
    read_label,
    same_way,
)
from bagel_studio.core.checks.interactions import (
    leaky_words,
    vague_option,
    vague_phrases,
    vague_type,
)
from bagel_studio.core.checks.records import format_refs
from bagel_studio.core.model import Flag, Item, Severity
from bagel_studio.core.taxonomy import (
    SUBSPECIES,
    TaxonName,
    ancestors,
    formed_from_genus,
    normalize_taxon,
    not_of_rank,
    parse_name,
    suffix_rank,
)

TAXON_OVERLAP = "taxon-overlap"
TAXON_GRANULARITY = "taxon-granularity"
SUBSPECIES_COLLISION = "subspecies-collision"
STEM_TAXON_IN_OPTIONS = "stem-taxon-in-options"
ALSO_DOCUMENTED = "also-documented"
LEAKY_VERB = "leaky-verb"
UNDERSPECIFIED = "underspecified-interaction"

DESCRIPTIONS = {
    TAXON_OVERLAP: "One option is a higher taxon known to contain another option, so both are "
    "right: from the GloBI records' lineages and rank columns, the name's structure (a genus "
    "holds its binomials; a family is named from its type genus, Rallidae holds Rallus "
    "elegans, and Soricidae, from the stem of Sorex's genitive, Sorex araneus), the codes' "
    'nested endings (Homininae lies in Hominidae), an option written "Order: Family", the '
    "lineage the item's source gives, or a binomial its text gives "
    "one of the source's kinds (any domain). Where containment is not known, see "
    "taxon-granularity.",
    TAXON_GRANULARITY: "Options mix a taxon of genus rank or higher (known as one by its rank "
    "ending, a lineage, or a record naming it under a Latin name; a common name such as "
    '"Caribou" is no rank) with species it is not known to contain (e.g. Cichlidae beside '
    "Channa striata): check the ranks are comparable. Not set beside taxon-overlap.",
    SUBSPECIES_COLLISION: "A species and one of its own subspecies are both options (in any "
    "domain).",
    STEM_TAXON_IN_OPTIONS: "A taxon the stem names (a GloBI taxon the records know, or in any "
    "domain a scientific name as the stem writes it) is offered as a wrong option; the stem's "
    "taxon as the gold is no flaw and is not flagged.",
    ALSO_DOCUMENTED: ALSO_DOCUMENTED_DESCRIPTION,
    LEAKY_VERB: "A masked-interaction stem uses one of the paper's forbidden words (consumes, "
    "eats, predates on, parasitizes, pollinates, infects, hosts, mutualist, commensal, parasite, "
    "predator, prey), which gives the interaction away. Every word of their roots counts, in "
    "any case (eats, ate, eaten, eating, eater, seed-eaters, consumed, consumer, consumption, "
    "preyed on, predators, predation, predatory, pollinator, pollination, hosted, parasitic, "
    "parasitism, parasitoid, ectoparasite, kleptoparasitism, infection, infectious, mutualism, "
    'commensalism); words of other roots do not (hostile, consummate), nor "feeds" or '
    '"symbiont"; only a stem whose item asks the interaction is read.',
    UNDERSPECIFIED: "The interaction is vague (visits flowers of, interacts with, found on, has "
    "host...) and more than one option fits it: a vague interaction option beside a specific one "
    "it covers, or a vague stem and records linking several options. Where the item asks the "
    'interaction, the flag is set whichever of the two is the gold: a vague gold ("interacts '
    'with", "visits flowers of") beside a distractor it covers ("pollinates") is flagged as a '
    "specific gold beside a vague distractor is; a vague and a specific distractor, neither of "
    "them the gold, are not. Options in words are read so too: a gold that says no more than "
    '"They interact with each other" beside a distractor saying what one does to the other ("The '
    'bat hunts the midge"; where they live is not enough), and the reverse. For options the '
    'message says why one covers the other ("pollinates" implies "visits flowers of" in GloBI\'s '
    "interaction types), not a record: records are read only for a vague stem, and that message "
    "names them.",
}


def globi_flags(g: GlobiItem) -> list[Flag]:
    """Every GloBI check's flag for one item, read once with its records (``read_globi_item``)."""
    overlap, overlap_pairs = _taxon_overlap(g)
    flags = [
        overlap,
        _taxon_granularity(g, overlap_pairs),
        _subspecies_collision(g),
        _stem_taxon_in_options(g),
        also_documented(g),
        _leaky_verb(g),
        _underspecified(g),
    ]
    return [f for f in flags if f is not None]


def _option_lineage(g: GlobiItem, index: int) -> dict[str, str]:
    """{ancestor key: ref or "name"} for option ``index``: from the records of that taxon, from
    any record's lineage naming it, and from the name itself (its structure, or the higher taxa
    it is written under: "Lepidoptera: Noctuidae")."""
    key = g.key(index)
    refs: dict[str, str] = {}
    for link in g.links.get(key, ()):
        own = link.source_ancestor_keys if link.source_key == key else link.target_ancestor_keys
        for ancestor in own:
            refs.setdefault(ancestor, link.ref)
    for ancestor, ref in g.lineages.get(index, {}).items():
        refs.setdefault(ancestor, ref)
    found = dict.fromkeys(ancestors(g.taxa[index].canonical), "name")
    lineage = {k: refs.get(k, v) for k, v in found.items()}
    lineage |= {k: r for k, r in refs.items() if k != key}
    # the higher taxa the option writes itself under: its own words say so first
    lineage |= {normalize_taxon(above): "name" for above in g.written_above.get(index, ())}
    return lineage


def _taxon_overlap(g: GlobiItem) -> tuple[Flag | None, set[frozenset[int]]]:
    if len(g.taxa) < 2:
        return None, set()  # no two taxa to overlap (most items: settled before reading the stem)
    # an option of another rank than the stem asks ("which family": an order) is no answer, so
    # holds no second one (unless the gold itself is of another rank: the word means else)
    rank = asked_rank(g.item.content.question)
    gold = g.taxa.get(g.gold) if g.gold is not None else None
    if rank is not None and (gold is None or not_of_rank(gold, rank)):
        rank = None
    pairs: list[tuple[int, int, str]] = []
    for low in g.taxa:
        lineage = _option_lineage(g, low)
        for high in g.taxa:
            if high == low or _is_subspecies_pair(g, high, low):
                continue
            if rank is not None and not_of_rank(g.taxa[high], rank):
                continue
            evidence = lineage.get(g.key(high))
            if evidence is None and _named_from(g.taxa[high], g.taxa[low]):
                evidence = "genus"
            if evidence is not None:
                pairs.append((high, low, evidence))
    if not pairs:
        return None, set()
    refs = sorted({e for _, _, e in pairs if e not in ("name", "genus")})
    parts = []
    for high, low, evidence in pairs:
        if evidence == "name":
            how = "by its name"
        elif evidence == "genus":
            how = _from_genus(g.taxa[low])
        else:
            how = _ref_text(g, low, evidence)
        parts.append(
            f"{letter(high)} {g.options[high].strip()!r} contains {letter(low)} "
            f"{g.options[low].strip()!r} ({how})"
        )
    letters = sorted({letter(i) for h, lo, _ in pairs for i in (h, lo)})
    flag = Flag(
        TAXON_OVERLAP,
        Severity.WARNING,
        "Overlapping taxa: " + "; ".join(parts),
        {"options": letters, "records": refs},
    )
    return flag, {frozenset((h, lo)) for h, lo, _ in pairs}


def _from_genus(lower: TaxonName) -> str:
    return f"by its name, formed from the genus {lower.genus}"


def _named_from(upper: TaxonName, lower: TaxonName) -> bool:
    """Whether the family or subfamily ``upper`` is named from the genus of ``lower`` (a genus,
    or a species of it), so holds it: Rallidae holds Rallus elegans."""
    return (
        not upper.epithets
        and suffix_rank(lower.genus) is None
        and formed_from_genus(upper.genus, lower.genus)
    )


def _ref_text(g: GlobiItem, index: int, ref: str) -> str:
    links = [link for link in g.links.get(g.key(index), ()) if link.ref == ref]
    if links:
        return f"lineage in {format_refs(links)}"
    table, _, row = ref.rpartition("#")
    return f"lineage in {table} row {row}" if table and row.isdigit() else f"lineage in {ref}"


def _is_subspecies_pair(g: GlobiItem, a: int, b: int) -> bool:
    return _subspecies_pair(g.taxa[a], g.taxa[b])


def _subspecies_pair(name_a: TaxonName, name_b: TaxonName) -> bool:
    for sub, spec in ((name_a, name_b), (name_b, name_a)):
        parent = f"{sub.genus} {sub.epithets[0]}".casefold() if sub.epithets else ""
        if sub.rank == SUBSPECIES and len(spec.epithets) == 1 and parent == spec.key:
            return True
    return False


def _taxon_granularity(g: GlobiItem, overlapping: set[frozenset[int]]) -> Flag | None:
    if overlapping:
        return None  # taxon-overlap already says the ranks collide
    # a genus or above: known as one by its rank's ending ("Cichlidae") or by the records' ranks
    # (a lineage of its own, or another taxon's lineage naming it), not by a record of it alone:
    # a table of common names ("Caribou") names no rank, nor does a word of a name's shape
    higher = [
        i
        for i, n in g.taxa.items()
        if not n.epithets and (n.rank is not None or _ranked(g, i) or g.lineages.get(i))
    ]
    species = [i for i, n in g.taxa.items() if n.epithets]
    pairs = [(h, s) for h in higher for s in species if frozenset((h, s)) not in overlapping]
    if not pairs:
        return None
    high = pairs[0][0]
    rank = g.taxa[high].rank or "genus or higher"
    lower = ", ".join(f"{letter(s)} {g.options[s].strip()!r}" for h, s in pairs if h == high)
    return Flag(
        TAXON_GRANULARITY,
        Severity.INFO,
        f"Options mix ranks: {letter(high)} {g.options[high].strip()!r} ({rank}) beside "
        f"species {lower}, which it is not known to contain",
        {"options": sorted({letter(i) for p in pairs for i in p}), "records": []},
    )


def _ranked(g: GlobiItem, index: int) -> bool:
    """Whether the records rank option ``index``: one of them carries a lineage for it, or
    names it under a Latin name ("Stomatopoda"; a table of common names ranks no "Caribou")."""
    key = g.key(index)
    links = g.links.get(key, ())
    if links and latin_shaped(g.options[index]):
        return True
    return any(link.lineage_of(key) for link in links)


def _subspecies_collision(g: GlobiItem) -> Flag | None:
    return _subspecies_of(g.taxa, g.options)


def subspecies_flags(item: Item) -> list[Flag]:
    """``subspecies-collision`` for an item of any domain ("Panthera leo" beside "Panthera leo
    leo" in a Wikipedia item), by the options' names alone."""
    options = item.content.options
    taxa = {}
    for index, option in enumerate(options):
        if "A" <= option.lstrip()[:1] <= "Z" and " " in option.strip():
            # a common name with its scientific name in brackets: "Tiger (Panthera tigris)"
            bracketed = _BRACKETED.search(option) if "(" in option else None
            name = parse_name(bracketed.group(1) if bracketed else option)
            if name is not None and name.epithets:
                taxa[index] = name
    if len(taxa) < 2:
        return []
    flag = _subspecies_of(taxa, options)
    return [flag] if flag is not None else []


_BRACKETED = re.compile(r"\(([A-Z][a-z]+ [a-z][a-z-]+(?: [a-z][a-z-]+)?)\)")


def stem_taxon_flags(item: Item) -> list[Flag]:
    """``stem-taxon-in-options`` for an item of any domain but GloBI (whose check reads the
    records): a distractor that is a scientific name the stem writes ("relative of Pongo" with
    "Pongo" offered as a wrong answer). The name must be written as one in the stem (a
    binomial, or a capitalized word that does not open the sentence) and known as a taxon: a
    binomial, a rank's ending, or a name of the lineage the item's source gives ("Borneo" set
    aside by the stem is no taxon)."""
    question = item.content.question
    known: frozenset[str] | None = None  # the source's taxa, read when first needed
    hits = []
    for index, option in enumerate(item.content.options):
        text = option.strip()
        if not text or text not in question or index == item.content.answer_index:
            continue  # most options: settled by one substring search
        if not "A" <= text[:1] <= "Z":
            continue
        name = parse_name(text)
        if name is None or name.canonical != text:
            continue
        if not name.epithets and name.rank is None:
            known = _source_taxa(item) if known is None else known
            if name.key not in known:
                continue
        found = re.search(rf"(?<![\w-]){re.escape(text)}(?![\w-])", question)
        if found is None or (found.start() == 0 and not name.epithets):
            continue
        hits.append(index)
    if not hits:
        return []
    named = ", ".join(f"{letter(i)} {item.content.options[i].strip()!r}" for i in hits)
    return [
        Flag(
            STEM_TAXON_IN_OPTIONS,
            Severity.WARNING,
            f"The stem's own taxon is offered as an option: {named} (named in the stem)",
            {"options": [letter(i) for i in hits], "records": []},
        )
    ]


# The codes' rank endings, highest first (zoological, then botanical): a name with one ending
# lies in the name of the same root with a higher one (the nominotypical subfamily Homininae in
# Hominidae, the family Lemuridae in Lemuroidea).
_NESTED_ENDINGS = (("oidea", "idae", "inae", "ini"), ("ales", "aceae", "oideae", "eae"))
_LINEAGE_RANKS = ("kingdom", "phylum", "class", "order", "superfamily", "family", "subfamily")


def _root(name: str) -> tuple[int, int, str] | None:
    """(code, depth, root) of a name with one of the codes' nested endings, or None."""
    lower = name.casefold()
    for code, endings in enumerate(_NESTED_ENDINGS):
        for depth, ending in sorted(enumerate(endings), key=lambda e: -len(e[1])):
            if lower.endswith(ending) and len(lower) > len(ending) + 2:
                return code, depth, lower[: -len(ending)]
    return None


def _source_taxa(item: Item) -> frozenset[str]:
    """Keys of the taxa an item's source names: its scientific name and its lineage."""
    source = item.source
    names = [source.get("scientific_name")]
    taxonomy = source.get("taxonomy")
    if isinstance(taxonomy, dict):
        names += list(taxonomy.values())
    return frozenset(n.strip().casefold() for n in names if isinstance(n, str) and n.strip())


def taxon_overlap_flags(item: Item, texts: Callable[[], list[str]]) -> list[Flag]:
    """``taxon-overlap`` for an item of any domain but GloBI (whose check reads the records):
    one option a higher taxon holding another, by the name's structure ("Macropus" holds
    "Macropus fuliginosus"), the codes' endings ("Hominidae" holds "Homininae"), the lineage
    the item's source gives its taxon, or a binomial the text gives one of the source's kinds
    ("The swamp wallaby (Wallabia bicolor)": Wallabia lies in the article's Macropodidae).
    ``texts``: the item's evidence texts, read only when needed."""
    names = {}
    for index, option in enumerate(item.content.options):
        text = option.strip()
        if "A" <= text[:1] <= "Z":
            name = parse_name(text)
            if name is not None and name.canonical == text:
                names[index] = name
    if len(names) < 2:
        return []
    rank = asked_rank(item.content.question)
    source = item.source
    taxonomy = source.get("taxonomy")
    lineage = [
        str(taxonomy[r]).strip().casefold()
        for r in _LINEAGE_RANKS
        if isinstance(taxonomy, dict) and isinstance(taxonomy.get(r), str)
    ]
    subject = source.get("scientific_name")
    subject_key = subject.strip().casefold() if isinstance(subject, str) else ""
    placed: list[dict[str, str]] = []  # the genera the text places, read when first needed

    def text_places(genus: str) -> str | None:
        if not placed:
            placed.append(_placed_genera(texts(), source.get("common_names")))
        return placed[0].get(genus)

    pairs: list[tuple[int, int, str]] = []
    for high, upper in names.items():
        for low, lower in names.items():
            if high == low or (rank is not None and not_of_rank(upper, rank)):
                continue
            if _subspecies_pair(upper, lower):
                continue  # a species beside its own subspecies: subspecies-collision says so
            how = _contains(upper, lower, lineage, subject_key, text_places)
            if how is not None:
                pairs.append((high, low, how))
    if not pairs:
        return []
    options = item.content.options
    parts = [
        f"{letter(h)} {options[h].strip()!r} contains {letter(lo)} {options[lo].strip()!r} ({how})"
        for h, lo, how in pairs
    ]
    letters = sorted({letter(i) for h, lo, _ in pairs for i in (h, lo)})
    return [
        Flag(
            TAXON_OVERLAP,
            Severity.WARNING,
            "Overlapping taxa: " + "; ".join(parts),
            {"options": letters, "records": []},
        )
    ]


def _contains(
    upper: TaxonName,
    lower: TaxonName,
    lineage: list[str],
    subject_key: str,
    text_places: Callable[[str], str | None],
) -> str | None:
    """How ``upper`` is known to hold ``lower`` (for the message), or None."""
    if upper.key in (p.casefold() for p in lower.parents()):
        return "by its name"
    a, b = _root(upper.genus), _root(lower.genus)
    if a and b and a[0] == b[0] and a[2] == b[2] and a[1] < b[1] and not lower.epithets:
        return "by the codes' rank endings"
    if _named_from(upper, lower):
        return _from_genus(lower)
    if upper.key in lineage and lower.key in lineage:
        if lineage.index(upper.key) < lineage.index(lower.key):
            return "by the lineage of the item's source"
        return None
    if lower.rank is not None or lower.epithets:
        return None
    above = lineage[: lineage.index(subject_key) + 1] if subject_key in lineage else []
    if upper.key != subject_key and upper.key not in above:
        return None
    words = text_places(lower.key)
    return f"the text: {words!r}" if words is not None else None


def _placed_genera(texts: list[str], common: object) -> dict[str, str]:
    """{genus key: the words} of the binomials the texts give one of the source's kinds by its
    common name ("The swamp wallaby (Wallabia bicolor)" with "wallaby" a common name)."""
    names = (
        [c.strip() for c in common if isinstance(c, str) and c.strip()]
        if isinstance(common, list)
        else []
    )
    if not names:
        return {}
    kinds = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
    pattern = re.compile(
        rf"\b((?:[A-Za-z'-]+\s+){{0,3}}(?:{kinds})(?:e?s)?)\s*\(([A-Z][a-z]+) [a-z][a-z-]+\)",
        re.IGNORECASE,
    )
    found: dict[str, str] = {}
    for text in texts:
        for match in pattern.finditer(text):
            found.setdefault(match.group(2).casefold(), " ".join(match.group(0).split()))
    return found


def _subspecies_of(taxa: dict[int, TaxonName], options: tuple[str, ...]) -> Flag | None:
    indexes = sorted(taxa)
    for a in indexes:
        for b in indexes:
            if a < b and _subspecies_pair(taxa[a], taxa[b]):
                sub, spec = (a, b) if taxa[a].rank == SUBSPECIES else (b, a)
                return Flag(
                    SUBSPECIES_COLLISION,
                    Severity.WARNING,
                    f"{letter(sub)} {options[sub].strip()!r} is a subspecies of "
                    f"{letter(spec)} {options[spec].strip()!r}",
                    {"options": sorted([letter(a), letter(b)]), "records": []},
                )
    return None


def _stem_taxon_in_options(g: GlobiItem) -> Flag | None:
    hits = [i for i in g.taxa if i != g.gold and g.key(i) in g.stem_taxa]
    if not hits:
        return None
    named = ", ".join(f"{letter(i)} {g.options[i].strip()!r}" for i in hits)
    refs = sorted({link.ref for i in hits for link in links_for_option(g, i)})
    return Flag(
        STEM_TAXON_IN_OPTIONS,
        Severity.WARNING,
        f"The stem's own taxon is offered as an option: {named}",
        {"options": [letter(i) for i in hits], "records": refs},
    )


def _leaky_verb(g: GlobiItem) -> Flag | None:
    if not g.asks_interaction:
        return None
    found = leaky_words(g.item.content.question)
    if not found:
        return None
    quoted = ", ".join(f'"{w}"' for w in found)
    return Flag(
        LEAKY_VERB,
        Severity.WARNING,
        f"The stem gives the masked interaction away with {quoted} (forbidden by the paper's "
        "generation prompt)",
        {"words": found},
    )


def _underspecified(g: GlobiItem) -> Flag | None:
    if g.asks_interaction:
        return _vague_interaction_options(g)
    question = g.item.content.question
    phrases = vague_phrases(question)
    if not phrases or not g.stem_taxa:
        return None
    vague = vague_type(phrases[0])
    place = stem_place(g)  # none: the stem does not say where, records of every place fit
    fits: dict[int, list[str]] = {}
    kinds: dict[int, str] = {}
    for index in g.taxa:
        for link in links_for_option(g, index):
            if not in_place(link, place):
                continue  # a record of another place than the one the stem names
            if implies(read_label(link.interaction).type, vague):
                fits.setdefault(index, []).append(link.ref)
                kinds.setdefault(index, link.interaction.strip())
    if len({g.key(i) for i in fits}) < 2:
        return None  # one taxon, however often it is offered, is one answer
    named = ", ".join(f"{letter(i)} {g.options[i].strip()!r} ({kinds[i]})" for i in sorted(fits))
    return Flag(
        UNDERSPECIFIED,
        Severity.INFO,  # under 0.8 precision on the labeled corpus (docs/CHECKS.md)
        f'"{phrases[0]}" leaves the interaction open and the records link {named} to the stem\'s '
        "taxon",
        {
            "options": [letter(i) for i in sorted(fits)],
            "records": sorted({r for refs in fits.values() for r in refs}),
        },
    )


def _vague_interaction_options(g: GlobiItem) -> Flag | None:
    """Interaction options of which one is a vague reading of another ("visits flowers of"
    beside "pollinates", "has host" beside "parasite of", "interacts with" beside anything),
    the same way round, with the gold among them; or, in words, an option that says no more than
    "it interacts with it" beside a gold that says more, or such a gold beside an option that
    says what one does to the other ("The bat hunts the midge")."""
    pairs = []
    gold = g.gold
    if gold is not None and gold not in g.interactions:
        if vague_option(g.options[gold]) is None:
            pairs += [
                (index, gold)
                for index, option in enumerate(g.options)
                if index != gold and vague_option(option) is not None
            ]
        else:
            pairs += [
                (gold, index)
                for index, option in enumerate(g.options)
                if index != gold and vague_option(option) is None and _does_to_other(option)
            ]
    for vague, text in g.interactions.items() if not pairs else ():
        reading = read_label(text)
        if reading.type not in VAGUE:
            continue
        for other, other_text in g.interactions.items():
            specific = read_label(other_text)
            fits = (
                other != vague
                and specific.type != reading.type
                and implies(specific.type, reading.type)
                and same_way(specific, reading)
            )
            if fits and g.gold in (vague, other):
                pairs.append((vague, other))
    if not pairs:
        return None
    vague, other = pairs[0]
    if vague in g.interactions and other in g.interactions:
        why = (
            f"in GloBI's interaction types {g.options[other].strip()!r} implies "
            f"{g.options[vague].strip()!r}"
        )
    else:
        why = (
            f"{letter(vague)} says no more than that the two interact, which "
            f"{letter(other)} says too"
        )
    return Flag(
        UNDERSPECIFIED,
        Severity.INFO,  # under 0.8 precision on the labeled corpus (docs/CHECKS.md)
        f"{letter(vague)} {g.options[vague].strip()!r} is a vague reading of {letter(other)} "
        f"{g.options[other].strip()!r}: {why}, so if {letter(other)} is right, "
        f"{letter(vague)} is too",
        {"options": sorted({letter(i) for p in pairs for i in p}), "records": []},
    )


def _does_to_other(option: str) -> bool:
    """Whether a free-text option says what one taxon does to the other in active words
    ("The bat hunts the midge"), not only where it lives ("They roost in the same caves")."""
    found = active_interaction(option)
    return found is not None and any(not implies(t, "has habitat") for t in found[0])
