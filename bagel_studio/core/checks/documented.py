"""``also-documented``: the loaded GloBI records back a distractor too.

The paper's audit found GloBI items whose key was specific to one record: another option is just
as documented. For a masked participant, a distractor is also documented when a record links it
(or a member of it, for a higher taxon) to the stem's taxon by the gold record's interaction or a
compatible one (``interaction_types.compatible``: "preys on" for "eats", "found on" for "parasite
of"), in the same role: the predator offered as a possible prey is not documented as prey by the
record of it eating; an option outside the group or of another rank than the stem asks ("which
moth", "which family") is no answer, whatever the records link it to. For a masked interaction,
a distractor interaction is also documented when another record links the item's two taxa, the
same way round, by it or by a relation implying it (the gold's own record too, where it does
not say the key); one the gold's own record says, more precise than a vague key ("has
pathogen" beside "interacts with"), is underspecified-interaction's.
A stem that states what singles out the gold's record (its count or share, its year, the
authors of its source, the life stage of a taxon, as it may name its place) asks about that
record, of a participant or an interaction: a record stating other figures, another source or
another life stage ("eggs" asked, nestlings recorded) documents nothing for it. The gold
offered twice is no second answer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bagel_studio.core.checks.globi_item import (
    GlobiItem,
    describe,
    holds_marks,
    in_place,
    letter,
    role,
    stem_marks,
    stem_place,
)
from bagel_studio.core.checks.groups import asked_rank, outside, stem_groups
from bagel_studio.core.checks.interaction_types import Reading, compatible, implies, read_label
from bagel_studio.core.checks.interactions import leaked_type, leaky_words
from bagel_studio.core.checks.records import GlobiLink, format_refs
from bagel_studio.core.model import Flag, Severity
from bagel_studio.core.taxonomy import normalize_taxon, not_of_rank

ALSO_DOCUMENTED = "also-documented"
# A stem asking the partner recorded most often: another recorded partner is a second answer
# only when it is recorded at least as often as the gold.
_MOST = re.compile(
    r"\bmost (?:often|frequent(?:ly)?|common(?:ly)?|usual(?:ly)?)\b|"
    r"\b(?:mainly|chiefly|primarily|mostly|commonest|main)\b",
    re.IGNORECASE,
)
# Columns of a record that give an amount of the partner (a share or a count: "N", "%N",
# "percentOfPollenLoad", "numberOfSeedsAttacked", "prevalence"), and the figure a value starts
# with ("17.58 [0–37.39]").
_AMOUNT_COLUMN = re.compile(
    r"^n$|^%|percent|number|count|frequency|prevalence|abundance|proportion|share",
    re.IGNORECASE,
)
_LEADING_FIGURE = re.compile(r"\s*(\d+(?:\.\d+)?)")
DESCRIPTION = (
    "The loaded GloBI records also link another option (of the group and rank the stem asks, "
    "if it asks one) to the stem's taxon by the same or an equivalent interaction, in the same "
    "role and of the place the stem names, if it names one (a record-specific key): the records "
    "are named. Where the stem states figures, a source or a life stage of the gold's record "
    "(a count, a share, a year, its authors, eggs or nestlings) only records stating them too "
    "count; where it asks the main "
    "or most frequent partner, only one recorded as often and, where the records give shares "
    "or counts, as much as the gold."
)


@dataclass(frozen=True)
class Relation:
    type: str  # an interaction type (``interaction_types``)
    role: str  # "actor", "patient", "either" or "any" (role unknown)


def partners(g: GlobiItem) -> dict[str, str]:
    """{key: name} of the taxa an option must be linked to: the gold record's other taxon, or
    the taxa the stem names."""
    gold_key = g.key(g.gold) if g.gold is not None and g.gold in g.taxa else None
    link = g.gold_link
    if link is not None and gold_key in (link.source_key, link.target_key):
        other = link.target if link.source_key == gold_key else link.source
        return {normalize_taxon(other): other}
    named = {k: n for k, n in g.stem_taxa.items() if k != gold_key}
    if link is None or any(k in g.links for k in named):
        return named
    # the stem names its taxon in words no record knows ("the red fox", "the Burmese python")
    # and the linked record is of a distractor: the record's other taxon is the stem's
    offered = {g.key(i) for i in g.taxa if i != g.gold}
    for mine, other in ((link.source_key, link.target), (link.target_key, link.source)):
        if mine in offered and normalize_taxon(other) not in offered:
            return {normalize_taxon(other): other}
    return named


def links_for_option(g: GlobiItem, index: int) -> list[GlobiLink]:
    """Records linking option ``index`` (or a taxon inside it) to one of the partner taxa."""
    key = g.key(index)
    wanted = partners(g)
    found = [lk for lk in g.links.get(key, ()) if lk.partner_key(key) in wanted]
    seen = {lk.ref for lk in found}
    for partner in wanted:
        for link in g.links.get(partner, ()):
            if link.ref not in seen and key in link.partner_ancestor_keys(partner):
                found.append(link)
                seen.add(link.ref)
    return found


def _member_key(link: GlobiLink, wanted: dict[str, str]) -> str:
    """The side of ``link`` that is not a partner taxon (the option or its member)."""
    return link.target_key if link.source_key in wanted else link.source_key


def gold_relations(g: GlobiItem) -> set[Relation]:
    """How the gold taxon relates to the stem's taxon: from the gold record, else from records
    linking the two, else from the interaction words in the stem (role unknown)."""
    assert g.gold is not None
    gold_key = g.key(g.gold)
    link = g.gold_link
    if link is not None and gold_key in (link.source_key, link.target_key):
        return {Relation(read_label(link.interaction).type, role(link, gold_key))}
    wanted = partners(g)
    found = {
        Relation(read_label(lk.interaction).type, role(lk, gold_key))
        for lk in g.links.get(gold_key, ())
        if lk.partner_key(gold_key) in wanted
    }
    if found:
        return found
    return {Relation(leaked_type(w), "any") for w in leaky_words(g.item.content.question)}


def _fits(link: GlobiLink, member: str, relations: set[Relation]) -> bool:
    if not relations:
        return True  # the stem names no interaction: any documented link makes it defensible
    type_ = read_label(link.interaction).type
    own = role(link, member)
    return any(
        compatible(r.type, type_) and (r.role in ("any", "either") or own in (r.role, "either"))
        for r in relations
    )


def also_documented(g: GlobiItem) -> Flag | None:
    """The ``also-documented`` flag of a GloBI item, or None: the loaded records link a
    distractor to the stem's taxon as they link the gold (as a participant or an interaction,
    by the kind of the gold)."""
    if g.gold is None:
        return None
    if g.gold in g.taxa:
        return _documented_participants(g)
    if g.gold in g.interactions:
        return _documented_interactions(g)
    return None


def known_lineage(g: GlobiItem, index: int) -> set[str]:
    """Keys of option ``index``'s taxon and of the taxa known to contain it: the higher taxa it
    is written under, its records' lineages, any record's lineage naming it (empty when nothing
    is known of it beyond its name)."""
    key = g.key(index)
    found: set[str] = {normalize_taxon(above) for above in g.written_above.get(index, ())}
    for link in g.links.get(key, ()):
        found |= link.source_ancestor_keys if link.source_key == key else link.target_ancestor_keys
    found |= set(g.lineages.get(index, {}))
    return found | {key} if found else set()


def _documented_participants(g: GlobiItem) -> Flag | None:
    wanted = partners(g)
    if not wanted:
        return None
    relations = gold_relations(g)
    groups = stem_groups(g.item.content.question)
    if g.gold is not None and outside(groups, known_lineage(g, g.gold)):
        groups = ()  # the gold itself is outside: the stem's word means something else
    rank = asked_rank(g.item.content.question)
    if rank is not None and g.gold is not None and not_of_rank(g.taxa[g.gold], rank):
        rank = None  # the gold itself is of another rank: the stem's word says something else
    assert g.gold is not None
    gold_key = g.key(g.gold)
    if any(gold_key in _stem_lineage(g, key) for key in g.stem_taxa):
        return None  # the stem asks what its own taxon is ("to which family does X belong")
    # an option holding the gold is linked by the gold's own records: taxon-overlap's business
    gold_and_below = {gold_key} | _members(g, gold_key)
    place = stem_place(g)  # a stem asking of one place asks of the records of that place
    marks: tuple[tuple[str, tuple[str, ...]], ...] | None = None  # stated of its record
    hits: dict[int, list[GlobiLink]] = {}
    for index in g.taxa:
        if index == g.gold or g.key(index) in wanted:
            continue
        if g.key(index) == gold_key:
            continue  # the gold offered again: no second answer (options-not-distinct's)
        if outside(groups, known_lineage(g, index)):
            continue  # a spider for "which moth": no answer, whatever eats it
        if rank is not None and not_of_rank(g.taxa[index], rank):
            continue  # an order for "which family": no answer, whatever eats it
        matches = [
            lk
            for lk in links_for_option(g, index)
            if _fits(lk, _member_key(lk, wanted), relations)
            and in_place(lk, place)
            # not the gold's own records
            and _member_key(lk, wanted) not in gold_and_below
        ]
        if matches:
            # a stem stating a figure or a source of the gold record (its count, its year,
            # its authors) asks which record that is: records that state otherwise are others
            marks = stem_marks(g) if marks is None else marks
            matches = [lk for lk in matches if holds_marks(lk, marks)]
        if matches:
            hits[index] = matches
    if hits and _MOST.search(g.item.content.question):
        gold_links = [
            lk
            for lk in links_for_option(g, g.gold)
            if _fits(lk, _member_key(lk, wanted), relations)
        ]
        hits = {
            i: found
            for i, found in hits.items()
            if len(found) >= len(gold_links) and not _recorded_less(found, gold_links)
        }
    return _flag(g, hits)


def _amounts(links: list[GlobiLink]) -> dict[str, float]:
    """{column: the largest figure} of the amount columns (``_AMOUNT_COLUMN``) of records."""
    found: dict[str, float] = {}
    for link in links:
        for column, value in link.columns.items():
            if _AMOUNT_COLUMN.search(column) is None:
                continue
            figure = _LEADING_FIGURE.match(value)
            if figure is not None:
                found[column] = max(found.get(column, 0.0), float(figure.group(1)))
    return found


def _recorded_less(links: list[GlobiLink], gold_links: list[GlobiLink]) -> bool:
    """Whether an option's records give it less than the gold's records give the gold in every
    amount both give and in which they differ ("most", "main" asked of the share of the pollen
    loads or the number of prey items, not of how many records there are)."""
    mine, gold = _amounts(links), _amounts(gold_links)
    compared = [(mine[c], gold[c]) for c in mine.keys() & gold.keys() if mine[c] != gold[c]]
    return bool(compared) and all(a < b for a, b in compared)


def _stem_lineage(g: GlobiItem, key: str) -> frozenset[str]:
    """Keys of the taxa the records place the stem's taxon ``key`` in."""
    found: set[str] = set()
    for link in g.links.get(key, ()):
        found |= link.source_ancestor_keys if link.source_key == key else link.target_ancestor_keys
    return frozenset(found)


def _members(g: GlobiItem, gold_key: str) -> set[str]:
    """Keys of the taxa the loaded records of the item place inside the gold taxon."""
    found = set()
    for links in g.links.values():
        for link in links:
            if gold_key in link.source_ancestor_keys:
                found.add(link.source_key)
            if gold_key in link.target_ancestor_keys:
                found.add(link.target_key)
    return found


def _documented_interactions(g: GlobiItem) -> Flag | None:
    pair = _item_pair(g)
    if pair is None:
        return None
    first, second = pair
    key = read_label(g.interactions[g.gold]) if g.gold is not None else None
    link = g.gold_link
    # the gold's own record is another when it does not say the key (a wrong key)
    own = link.ref if link is not None and key is not None and _states(link, first, key) else None
    marks = stem_marks(g)  # of the gold's record: records stating otherwise are others
    between = [
        lk
        for lk in g.links.get(first, ())
        if lk.partner_key(first) == second and lk.ref != own and holds_marks(lk, marks)
    ]
    hits: dict[int, list[GlobiLink]] = {}
    for index, text in g.interactions.items():
        if index == g.gold:
            continue
        option = read_label(text)
        if key is not None and _vaguer_than_its_record(g, first, option, key):
            continue  # the key is vaguer than its own record: underspecified-interaction's
        matches = [lk for lk in between if _states(lk, first, option)]
        if matches:
            hits[index] = matches
    return _flag(g, hits)


def _vaguer_than_its_record(g: GlobiItem, first: str, option: Reading, key: Reading) -> bool:
    """Whether the gold record itself says what the option says, and the option says what the
    key says more precisely ("has pathogen" beside the key "interacts with", the record a "has
    pathogen" record): one answer said vaguely, not a second one."""
    link = g.gold_link
    return link is not None and _states(link, first, option) and implies(option.type, key.type)


def _states(link: GlobiLink, first: str, option: Reading) -> bool:
    """Whether ``link`` says what the interaction option says of the item's first taxon and its
    second: its relation implies the option's, the same way round."""
    record = read_label(link.interaction)
    if not implies(record.type, option.type):
        return False
    if record.symmetric or option.symmetric:
        return True
    first_acts = (link.source_key == first) != record.flipped  # in the record
    return first_acts == (not option.flipped)  # the option reads "first <option> second"


def _item_pair(g: GlobiItem) -> tuple[str, str] | None:
    link = g.gold_link
    if link is not None:
        return link.source_key, link.target_key
    keys = list(g.stem_taxa)
    return (keys[0], keys[1]) if len(keys) >= 2 else None


def _flag(g: GlobiItem, hits: dict[int, list[GlobiLink]]) -> Flag | None:
    if not hits:
        return None
    parts = []
    for index, links in sorted(hits.items()):
        parts.append(
            f"{letter(index)} {g.options[index].strip()!r} is also recorded: "
            f"{describe(links[0])} ({format_refs(links)})"
        )
    refs = sorted({lk.ref for links in hits.values() for lk in links})
    return Flag(
        ALSO_DOCUMENTED,
        Severity.WARNING,
        "; ".join(parts),
        {
            "options": [letter(i) for i in sorted(hits)],
            "records": refs,
            "by_option": {letter(i): [lk.ref for lk in links] for i, links in hits.items()},
        },
    )
