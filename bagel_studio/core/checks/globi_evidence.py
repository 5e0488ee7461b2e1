"""What the record a GloBI item links says of its gold, and whether the generator's summary is
about that record at all.

The generator wrote the item from one record (``globi_ref``, or the table and row of its
envelope); the summary it was shown is a wording of that record. So a gold taxon that is one of
the record's taxa (or contains one: "Sus scrofa" for the record's "Sus scrofa domesticus"), or a
gold interaction compatible with the record's ("parasite of" for its "ectoparasite of"), is
supported however the summary words it ("feeds on wild boar"); a gold the record contradicts is
not; and a summary that names other taxa than the record's is about another record, and is not
the item's evidence.
"""

from __future__ import annotations

from dataclasses import dataclass

from bagel_studio.core.checks.globi_item import GlobiItem, describe, stem_name_candidates
from bagel_studio.core.checks.interaction_types import (
    compatible,
    loosely_compatible,
    option_type,
    recorded_types,
    types_in,
)
from bagel_studio.core.checks.records import GlobiLink
from bagel_studio.core.taxonomy import (
    TaxonName,
    normalize_taxon,
    parse_name,
    structural_parents,
)

_LATIN_ENDINGS = ("us", "a", "um", "i", "ae", "is", "ii", "x", "on", "ensis", "oides", "es", "os")


@dataclass(frozen=True)
class RecordVerdict:
    """Whether the linked record supports the gold, and what the record says (for a message)."""

    supported: bool
    says: str


def record_taxa(link: GlobiLink) -> set[str]:
    """Keys of the taxa the record names and of every taxon containing them (its lineages,
    the structure of its names)."""
    keys = {link.source_key, link.target_key}
    keys |= link.source_ancestor_keys | link.target_ancestor_keys
    for name in (link.source, link.target):
        keys.update(structural_parents(name))
    for lineage in (link.source_lineage, link.target_lineage):
        if lineage:
            keys.add(normalize_taxon(lineage[-1]))
    return keys


def record_verdict(g: GlobiItem) -> RecordVerdict | None:
    """The linked record's verdict on the gold, or None when it cannot tell (no record, a gold
    that is neither a taxon nor an interaction, a name that may be a common name). A gold that
    describes the relation in words is read by the interactions its words name ("feeds on",
    "predator of", "nectar"): supported when one of them is compatible with the record's. A
    record's label the table does not know is read by its words too (``recorded_types``)."""
    link = g.gold_link
    gold = g.gold
    if link is None or gold is None or not 0 <= gold < len(g.options):
        return None
    says = f"{describe(link)} ({link.ref})"
    wanted = option_type(g.options[gold])
    recorded = recorded_types(link.interaction)
    if wanted is not None:
        return RecordVerdict(any(compatible(r, wanted.type) for r in recorded), says)
    if gold in g.taxa:
        key = g.key(gold)
        if key in record_taxa(link):
            return RecordVerdict(True, says)
        if set(structural_parents(g.options[gold])) & {link.source_key, link.target_key}:
            return None  # narrower than the record's taxon: the record cannot tell
        if not _scientific(g.taxa[gold]):
            return None  # perhaps a common name ("Wild boar")
        return RecordVerdict(False, says)
    named = types_in(g.options[gold])  # a relation in words: "The fox feeds on the vole"
    if not named:
        return None
    return RecordVerdict(any(loosely_compatible(r, t) for r in recorded for t in named), says)


def option_types(g: GlobiItem) -> set[int]:
    """Indexes of the options the records judge (taxa and interactions): ``also-documented``
    reads them with their roles, so the words of a summary do not."""
    judged = set(g.taxa) | set(g.interactions)
    judged |= {i for i, option in enumerate(g.options) if option_type(option) is not None}
    return judged


def about_record(summary: str, link: GlobiLink) -> bool:
    """Whether the summary speaks of the record: it names one of the record's taxa, or names no
    scientific name at all (then nothing says it is about another record)."""
    folded = " ".join(summary.split()).casefold()
    names = {link.source, link.target}
    for lineage in (link.source_lineage, link.target_lineage):
        if lineage:
            names.add(lineage[-1])
    for name in names:
        key = normalize_taxon(name)
        if key and (key in folded or " ".join(name.split()).casefold() in folded):
            return True
    for text in stem_name_candidates(summary).values():
        other = parse_name(text)
        if other is not None and other.epithets and _scientific(other):
            return False  # it names another species than the record's
    return True


def _scientific(name: TaxonName) -> bool:
    """A binomial with a Latin epithet, or a name whose suffix gives its rank: not a common
    name that happens to have a name's shape."""
    if name.epithets:
        return name.epithets[-1].lower().endswith(_LATIN_ENDINGS)
    return name.rank is not None
