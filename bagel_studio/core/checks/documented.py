"""``also-documented``: the loaded GloBI records back a distractor too.

The paper's audit found GloBI items whose key was specific to one record: another option is just
as documented. For a masked participant, a distractor is also documented when a record links it
(or a member of it, for a higher taxon) to the stem's taxon by the gold record's interaction or an
equivalent one, in the same role. For a masked interaction, a distractor interaction is also
documented when a record links the item's two taxa by it (or an equivalent one).
"""

from __future__ import annotations

from dataclasses import dataclass

from bagel_studio.core.checks.globi_item import GlobiItem, describe, letter, role
from bagel_studio.core.checks.interactions import family, leaked_family, leaky_words
from bagel_studio.core.checks.records import GlobiLink, format_refs
from bagel_studio.core.model import Flag, Severity
from bagel_studio.core.taxonomy import normalize_taxon

ALSO_DOCUMENTED = "also-documented"
DESCRIPTION = (
    "The loaded GloBI records also link another option to the stem's taxon by the same or an "
    "equivalent interaction (a record-specific key): the records are named."
)


@dataclass(frozen=True)
class Relation:
    family: str
    role: str  # "actor", "patient", "either" or "any" (role unknown)


def partners(g: GlobiItem) -> dict[str, str]:
    """{key: name} of the taxa an option must be linked to: the gold record's other taxon, or
    the taxa the stem names."""
    gold_key = g.key(g.gold) if g.gold is not None and g.gold in g.taxa else None
    link = g.gold_link
    if link is not None and gold_key in (link.source_key, link.target_key):
        other = link.target if link.source_key == gold_key else link.source
        return {normalize_taxon(other): other}
    return {k: n for k, n in g.stem_taxa.items() if k != gold_key}


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
        return {Relation(family(link.interaction)[0], role(link, gold_key))}
    wanted = partners(g)
    found = {
        Relation(family(lk.interaction)[0], role(lk, gold_key))
        for lk in g.links.get(gold_key, ())
        if lk.partner_key(gold_key) in wanted
    }
    if found:
        return found
    return {Relation(leaked_family(w), "any") for w in leaky_words(g.item.content.question)}


def _fits(link: GlobiLink, member: str, relations: set[Relation]) -> bool:
    if not relations:
        return True  # the stem names no interaction: any documented link makes it defensible
    fam = family(link.interaction)[0]
    own = role(link, member)
    return any(
        r.family == fam and (r.role in ("any", "either") or own in (r.role, "either"))
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


def _documented_participants(g: GlobiItem) -> Flag | None:
    wanted = partners(g)
    if not wanted:
        return None
    relations = gold_relations(g)
    hits: dict[int, list[GlobiLink]] = {}
    for index in g.taxa:
        if index == g.gold or g.key(index) in wanted:
            continue
        matches = [
            lk for lk in links_for_option(g, index) if _fits(lk, _member_key(lk, wanted), relations)
        ]
        if matches:
            hits[index] = matches
    return _flag(g, hits)


def _documented_interactions(g: GlobiItem) -> Flag | None:
    pair = _item_pair(g)
    if pair is None:
        return None
    first, second = pair
    between = [lk for lk in g.links.get(first, ()) if lk.partner_key(first) == second]
    hits: dict[int, list[GlobiLink]] = {}
    for index, text in g.interactions.items():
        if index == g.gold:
            continue
        fam = family(text)[0]
        matches = [lk for lk in between if family(lk.interaction)[0] == fam]
        if matches:
            hits[index] = matches
    return _flag(g, hits)


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
