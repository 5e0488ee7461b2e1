"""GloBI interaction types: which ones mean the same relation, and which words give them away.

Each interaction name maps to a family and a direction: +1 when the record's source is the actor
(the parasite, the eater, the flower visitor), -1 when the target is ("has endoparasite", "host
of"), 0 for symmetric relations. Two records are equivalent evidence when family and the roles of
the two taxa agree, so "Procyon lotor has endoparasite Pearsonema plica" and "Pearsonema plica
endoparasite of Procyon lotor" say the same thing.
"""

from __future__ import annotations

import re

FEEDING = "feeding"
PARASITISM = "parasitism"
FLOWER_VISITING = "flower visiting"
VISITING = "visiting"
HABITAT = "habitat"
GENERIC = "interaction"

_FAMILIES: dict[str, tuple[str, int]] = {
    "eats": (FEEDING, 1),
    "preys on": (FEEDING, 1),
    "consumes": (FEEDING, 1),
    "acquires nutrients from": (FEEDING, 1),
    "eaten by": (FEEDING, -1),
    "is eaten by": (FEEDING, -1),
    "preyed upon by": (FEEDING, -1),
    "preyed on by": (FEEDING, -1),
    "has predator": (FEEDING, -1),
    "kills": ("killing", 1),
    "killed by": ("killing", -1),
    "parasite of": (PARASITISM, 1),
    "endoparasite of": (PARASITISM, 1),
    "ectoparasite of": (PARASITISM, 1),
    "parasitoid of": (PARASITISM, 1),
    "pathogen of": (PARASITISM, 1),
    "has host": (PARASITISM, 1),
    "infects": (PARASITISM, 1),
    "host of": (PARASITISM, -1),
    "has parasite": (PARASITISM, -1),
    "has endoparasite": (PARASITISM, -1),
    "has ectoparasite": (PARASITISM, -1),
    "has parasitoid": (PARASITISM, -1),
    "has pathogen": (PARASITISM, -1),
    "pollinates": (FLOWER_VISITING, 1),
    "visits flowers of": (FLOWER_VISITING, 1),
    "pollinated by": (FLOWER_VISITING, -1),
    "flowers visited by": (FLOWER_VISITING, -1),
    "has flowers visited by": (FLOWER_VISITING, -1),
    "visits": (VISITING, 1),
    "visited by": (VISITING, -1),
    "mutualist of": ("mutualism", 0),
    "symbiont of": ("symbiosis", 0),
    "commensalist of": ("commensalism", 0),
    "interacts with": (GENERIC, 0),
    "co-occurs with": (GENERIC, 0),
    "ecologically co-occurs with": (GENERIC, 0),
    "ecologically related to": (GENERIC, 0),
    "adjacent to": (GENERIC, 0),
    "associated with": (GENERIC, 0),
    "has habitat": (HABITAT, 1),
    "habitat of": (HABITAT, -1),
    "lives in": (HABITAT, 1),
    "lives on": (HABITAT, 1),
    "inhabits": (HABITAT, 1),
    "epiphyte of": (HABITAT, 1),
    "has epiphyte": (HABITAT, -1),
    "nests in": (HABITAT, 1),
    "roosts in": (HABITAT, 1),
    "develops in": (HABITAT, 1),
    "lays eggs on": (HABITAT, 1),
    "lays eggs in": (HABITAT, 1),
    "saproxylic": (HABITAT, 1),
    "causally influenced by": ("influence", -1),
    "influences": ("influence", 1),
}

# Interactions that leave the actual relation open, and the families each one admits.
ALL_FAMILIES = frozenset(f for f, _ in _FAMILIES.values())
VAGUE: dict[str, frozenset[str]] = {
    "visits flowers of": frozenset({FLOWER_VISITING, FEEDING, VISITING}),
    "flowers visited by": frozenset({FLOWER_VISITING, FEEDING, VISITING}),
    "visits": frozenset({VISITING, FLOWER_VISITING, FEEDING, HABITAT}),
    "visited by": frozenset({VISITING, FLOWER_VISITING, FEEDING, HABITAT}),
    "interacts with": ALL_FAMILIES,
    "co-occurs with": ALL_FAMILIES,
    "ecologically co-occurs with": ALL_FAMILIES,
    "ecologically related to": ALL_FAMILIES,
    "associated with": ALL_FAMILIES,
    "adjacent to": ALL_FAMILIES,
}
_VAGUE_STEM_RE = re.compile(
    r"\b(visit(?:s|ed|ing)? (?:the )?flowers? of|flowers? visited by|visit(?:s|ed|ing)?|"
    r"interact(?:s|ed|ing)? with|(?:ecologically )?co-?occur(?:s|red|ring)? with|"
    r"associated with|ecologically related to|found (?:on|with|near))\b",
    re.IGNORECASE,
)

# The paper's forbidden words for stems (they give the masked interaction away), with the
# families each reveals.
LEAKY_RE = re.compile(
    r"\b(consum(?:e|es|ed|ing)|eat(?:s|en|ing)?|ate|predat(?:e|es|ed|ing)(?: on| upon)?|"
    r"predators?|preys?(?: on| upon)?|preyed(?: on| upon)?|preying(?: on| upon)?|"
    r"parasiti[sz](?:e|es|ed|ing)|(?:endo|ecto)?parasit(?:e|es|ic|ism|oids?)|"
    r"pollinat(?:e|es|ed|ing|ors?|ion)|infect(?:s|ed|ing|ion)?|hosts?|hosted|hosting|"
    r"mutualis(?:t|ts|tic|m)|commensal(?:s|ism|ist|istic)?)\b",
    re.IGNORECASE,
)
_LEAK_FAMILY = (
    ("pollinat", FLOWER_VISITING),
    ("parasit", PARASITISM),
    ("infect", PARASITISM),
    ("host", PARASITISM),
    ("mutualis", "mutualism"),
    ("commensal", "commensalism"),
)


def normalize_interaction(text: str) -> str:
    """An interaction type as the checks compare it: underscores as spaces, whitespace collapsed,
    case folded, no final period, since tables and generators spell the same type differently."""
    return " ".join(text.replace("_", " ").split()).casefold().rstrip(".")


def family(interaction: str) -> tuple[str, int]:
    """(family, direction) of an interaction name; an unknown name is a family of its own."""
    name = normalize_interaction(interaction)
    return _FAMILIES.get(name, (name, 1))


def is_interaction(text: str) -> bool:
    """True when ``text`` is a known GloBI interaction name (an option of a masked-interaction
    item such as "parasite of")."""
    return normalize_interaction(text) in _FAMILIES


def leaked_family(word: str) -> str:
    """The family a forbidden word reveals (feeding for eats/consumes/predator/prey...)."""
    lower = word.lower()
    for stem, fam in _LEAK_FAMILY:
        if stem in lower:
            return fam
    return FEEDING


def leaky_words(stem: str) -> list[str]:
    """The paper's forbidden interaction words in ``stem``, in order, without repeats."""
    found: list[str] = []
    for match in LEAKY_RE.finditer(stem):
        word = match.group(0)
        if word.lower() not in (w.lower() for w in found):
            found.append(word)
    return found


def vague_phrases(stem: str) -> list[str]:
    """The vague interaction phrases of a stem (visits flowers of, interacts with...), as
    written."""
    return [m.group(0) for m in _VAGUE_STEM_RE.finditer(stem)]


def vague_families(phrase: str) -> frozenset[str]:
    """The families a vague phrase from a stem admits ("visits flowers of" admits pollination,
    nectar feeding and plain visits)."""
    text = normalize_interaction(phrase)
    if "flower" in text:
        return VAGUE["visits flowers of"]
    if text.startswith("visit"):
        return VAGUE["visits"]
    return ALL_FAMILIES
