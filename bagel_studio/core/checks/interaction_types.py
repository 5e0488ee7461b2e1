"""GloBI's interaction types: which labels name one relation, which way round, and which
relations a relation implies.

GloBI maps the interaction names of its sources to Relations Ontology terms (``eats``
RO_0002470, ``parasite of`` RO_0002444, ...), each with its inverse (``eaten by``) and a few more
general relations it implies (a parasitoid eats and kills its host; an ectoparasite is a
parasite and lives on its host; whatever eats something interacts with it; a pathogen is a
parasite but does not eat its host). This table follows
those terms and GloBI's own mapping of source wordings ("found on" is ``adjacent to``, "ex." is
``has host``, "larval foodplant" is ``eats``), with the verbs a summary or a stem writes them in
("feeds on", "parasitizes"). Every label reads as a relation of its actor (the eater, the
parasite, the visitor) to its patient; ``flipped`` when the label names the patient first
("eaten by", "host of").

Two relations are compatible evidence when one implies the other ("preys on" for "eats"), or
when one relation implies both ("found on" and "parasite of": an ectoparasite is both); the
generic relations (``interacts with``, ``co-occurs with``) are compatible only with what implies
them. A small curated table, not an ontology reasoner: each line can be checked by eye.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

INTERACTS_WITH = "interacts with"
CO_OCCURS_WITH = "co-occurs with"
GENERIC = frozenset({INTERACTS_WITH, CO_OCCURS_WITH, "ecologically related to"})

# type -> (every type it implies, as GloBI lists them, symmetric?)
_I = INTERACTS_WITH
_TYPES: dict[str, tuple[tuple[str, ...], bool]] = {
    INTERACTS_WITH: ((), True),
    CO_OCCURS_WITH: ((), True),
    "ecologically related to": ((), True),
    "adjacent to": ((_I,), True),
    "symbiont of": ((_I,), True),
    "mutualist of": (("symbiont of", _I), True),
    "commensalist of": (("symbiont of", _I), True),
    "lives with": ((_I,), True),
    "acquires nutrients from": ((_I,), False),
    "eats": (("acquires nutrients from", _I), False),
    "preys on": (("eats", "kills", "acquires nutrients from", _I), False),
    "kills": ((_I,), False),
    "has host": (("symbiont of", _I), False),
    "parasite of": (
        ("eats", "has host", "lives with", "symbiont of", "acquires nutrients from", _I),
        False,
    ),
    "endoparasite of": (
        ("parasite of", "lives inside of", "has host", "eats", "symbiont of", _I),
        False,
    ),
    "ectoparasite of": (
        ("parasite of", "lives on", "adjacent to", "has host", "eats", "symbiont of", _I),
        False,
    ),
    "hyperparasite of": (("parasite of", "has host", "eats", "symbiont of", _I), False),
    "kleptoparasite of": (("parasite of", "has host", "eats", "symbiont of", _I), False),
    "parasitoid of": (
        ("parasite of", "has host", "eats", "kills", "lives with", "symbiont of", _I),
        False,
    ),
    "pathogen of": (("parasite of", "has host", "symbiont of", _I), False),
    "vector of": (("symbiont of", _I), False),
    "dispersal vector of": ((_I,), False),
    "visits": ((_I,), False),
    "visits flowers of": (("visits", "has host", _I), False),
    "pollinates": (("visits flowers of", "visits", "has host", "symbiont of", _I), False),
    "lays eggs on": (("has host", "visits", _I), False),
    "lays eggs in": (("has host", _I), False),
    "has habitat": ((_I,), False),
    "lives on": (("has habitat", "adjacent to", _I), False),
    "lives in": (("has habitat", _I), False),
    "lives inside of": (("has habitat", _I), False),
    "lives under": (("has habitat", _I), False),
    "lives near": (("has habitat", _I), False),
    "inhabits": (("has habitat", _I), False),
    "nests in": (("has habitat", _I), False),
    "roosts in": (("has habitat", _I), False),
    "develops in": (("has habitat", _I), False),
    "epiphyte of": (("lives on", "has habitat", "adjacent to", _I), False),
    "guest of": (("has habitat", _I), False),
    "farms": (("eats", _I), False),
    "damages": ((_I,), False),
    "influences": ((_I,), False),
}
# What a type does not take over from the types it implies: a pathogen is a parasite of its
# host, but an infection is no meal (a curator does not read "is eaten by" from "has pathogen").
_NOT_INHERITED: dict[str, frozenset[str]] = {"pathogen of": frozenset({"eats"})}
# Types too broad to make two others compatible by being implied by a third with them.
_BROAD = GENERIC | {"symbiont of", "acquires nutrients from"}

# label -> (type, flipped): GloBI's labels and inverses, its mapped source wordings, and verbs.
_LABELS: dict[str, tuple[str, bool]] = {name: (name, False) for name in _TYPES}
_INVERSES = {
    "eats": ("eaten by", "is eaten by", "food of", "consumed by", "prey of", "stomach contents of"),
    "preys on": ("preyed upon by", "preyed on by", "has predator", "predated by", "hunted by"),
    "kills": ("killed by",),
    "parasite of": ("has parasite", "parasitized by", "parasitised by"),
    "endoparasite of": ("has endoparasite", "has endoparasitoid"),
    "ectoparasite of": ("has ectoparasite", "has ectoparasitoid"),
    "hyperparasite of": ("has hyperparasite",),
    "kleptoparasite of": ("has kleptoparasite",),
    "parasitoid of": ("has parasitoid",),
    "pathogen of": ("has pathogen", "infected by"),
    "has host": ("host of", "hosts", "host to"),
    "vector of": ("has vector",),
    "dispersal vector of": ("has dispersal vector",),
    "visits": ("visited by",),
    "visits flowers of": ("flowers visited by", "has flowers visited by", "has flower visitor"),
    "pollinates": ("pollinated by", "has pollinator"),
    "lays eggs on": ("has eggs laid on by", "has eggs layed on by"),
    "has habitat": ("habitat of", "is habitat of", "creates habitat for", "provides habitat for"),
    "lives on": ("lived on by",),
    "lives inside of": ("lived inside of by",),
    "lives under": ("lived under by",),
    "lives near": ("lived near by",),
    "inhabits": ("inhabited by",),
    "epiphyte of": ("has epiphyte",),
    "guest of": ("has guest", "has guest of"),
    "farms": ("farmed by",),
    "damages": ("damaged by",),
    "influences": ("causally influenced by", "influenced by"),
    "acquires nutrients from": ("provides nutrients for",),
}
for _type, _inverses in _INVERSES.items():
    for _label in _inverses:
        _LABELS[_label] = (_type, True)
_SYNONYMS = {
    "ecologically co-occurs with": CO_OCCURS_WITH,
    "co-occurs with": CO_OCCURS_WITH,
    "cooccurs with": CO_OCCURS_WITH,
    "co-roosts with": CO_OCCURS_WITH,
    "associated with": INTERACTS_WITH,
    "related to": "ecologically related to",
    "ate": "eats",
    "eat": "eats",
    "feeds on": "eats",
    "feeds upon": "eats",
    "feeding on": "eats",
    "consumes": "eats",
    "larval foodplant": "eats",
    "stomach contents": "eats",
    "has stomach contents": "eats",
    "preys upon": "preys on",
    "predator of": "preys on",
    "predates": "preys on",
    "predates on": "preys on",
    "hunts": "preys on",
    "parasitizes": "parasite of",
    "parasitises": "parasite of",
    "parasitoid": "parasitoid of",
    "endoparasitoid of": "endoparasite of",
    "ectoparasitoid of": "ectoparasite of",
    "infects": "pathogen of",
    "host": "has host",
    "ex": "has host",
    "ex.": "has host",
    "reared ex": "has host",
    "reared ex.": "has host",
    "flower visitor": "visits flowers of",
    "visits flowers": "visits flowers of",
    "pollinator": "pollinates",
    "pollinator of": "pollinates",
    "seed disperser": "dispersal vector of",
    "disperses seeds of": "dispersal vector of",
    "found on": "adjacent to",
    "collected on": "adjacent to",
    "perching on": "adjacent to",
    "perches on": "adjacent to",
    "lives within": "lives inside of",
    "saproxylic": "acquires nutrients from",
    "hyperparasitoid of": "hyperparasite of",
    "symbiotic with": "symbiont of",
    "mutualistic with": "mutualist of",
    "commensal of": "commensalist of",
    "commensal with": "commensalist of",
}
for _label, _type in _SYNONYMS.items():
    _LABELS.setdefault(_label, (_type, False))

# Relations that leave the actual relation open: any more specific relation fits them.
VAGUE = frozenset(
    {
        INTERACTS_WITH,
        CO_OCCURS_WITH,
        "ecologically related to",
        "adjacent to",
        "symbiont of",
        "has host",
        "visits",
        "visits flowers of",
        "has habitat",
        "acquires nutrients from",
    }
)


@dataclass(frozen=True)
class Reading:
    """What an interaction label says: its type, and whether it names the patient first."""

    type: str
    flipped: bool = False

    @property
    def symmetric(self) -> bool:
        return _TYPES.get(self.type, ((), False))[1]

    @property
    def known(self) -> bool:
        return self.type in _TYPES


_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")
_CAMEL_PAIR = re.compile(r"[a-z][A-Z]")  # where _CAMEL matches, found faster than by _CAMEL


def normalize_label(text: str) -> str:
    """A label as the table reads it: "visitsFlowersOf", "visits_flowers_of" and " Visits
    flowers of." are all "visits flowers of"."""
    if "_" in text or _CAMEL_PAIR.search(text) is not None:
        text = _CAMEL.sub(" ", text.strip()).replace("_", " ")
    return " ".join(text.split()).casefold().rstrip(".").strip("()")


# A parasitism said to be inside or outside the host ("is parasitized externally by",
# "internal parasite of") is GloBI's endo- or ectoparasitism.
_SIDE = re.compile(r"\s*\b(in|ex)ternal(?:ly)?\b")
_SIDED = {"in": "endoparasite of", "ex": "ectoparasite of"}


def _lookup(label: str) -> tuple[str, bool] | None:
    """(type, flipped) of a normalised label the table reads, "is" before it or not."""
    found = _LABELS.get(label)
    if found is None and label.startswith("is "):
        found = _LABELS.get(label[3:])
    if found is None and "ternal" in label and (side := _SIDE.search(label)) is not None:
        plain = _lookup(" ".join(_SIDE.sub("", label).split()))
        if plain is not None and plain[0] in ("parasite of", "parasitoid of"):
            return _SIDED[side.group(1)], plain[1]
    return found


@lru_cache(maxsize=4096)
def read_label(text: str) -> Reading:
    """The reading of an interaction label; an unknown label is a type of its own."""
    label = normalize_label(text)
    found = _lookup(label)
    return Reading(label) if found is None else Reading(*found)


@lru_cache(maxsize=4096)
def is_known_label(text: str) -> bool:
    """Whether ``text`` is a label the table reads (GloBI's, an inverse, a mapped wording)."""
    return _lookup(normalize_label(text)) is not None


@lru_cache(maxsize=4096)
def implied(type_: str) -> frozenset[str]:
    """Every type ``type_`` implies, itself included (an unknown type implies only the generic
    one)."""
    if type_ not in _TYPES:
        return frozenset({type_, INTERACTS_WITH})
    found = {type_}
    for parent in _TYPES[type_][0]:
        found |= implied(parent)
    return frozenset(found) - _NOT_INHERITED.get(type_, frozenset())


def implies(specific: str, general: str) -> bool:
    """Whether the type ``specific`` implies ``general`` (or is it)."""
    return general in implied(specific)


@lru_cache(maxsize=4096)
def compatible(first: str, second: str) -> bool:
    """One type implies the other, or a third type is directly both (``found on`` and
    ``parasite of``: an ectoparasite is a parasite and is found on its host). The generic types
    share no third type, and a relation two steps away does not count (an ectoparasite lives on
    its host, which is its habitat, but "has habitat" says nothing of eating)."""
    if implies(first, second) or implies(second, first):
        return True
    if first in GENERIC or second in GENERIC:
        return False
    return any({first, second} <= {third, *parents} for third, (parents, _) in _TYPES.items())


@lru_cache(maxsize=4096)
def loosely_compatible(first: str, second: str) -> bool:
    """``compatible``, or both implied, at any distance, by one type ("lives inside" and
    "parasite of": an endoparasite does both): for a relation told in free words, which say
    less than a label and are read generously."""
    if compatible(first, second):
        return True
    if first in _BROAD or second in _BROAD:
        return False
    return any({first, second} <= implied(third) for third in _TYPES)


def same_way(first: Reading, second: Reading) -> bool:
    """Whether two readings put the same taxon first as actor (either is symmetric, or both or
    neither are flipped)."""
    return first.symmetric or second.symmetric or first.flipped == second.flipped


def labels() -> frozenset[str]:
    """Every label the table reads."""
    return frozenset(_LABELS)


# Nouns an option may name an interaction by ("Predation", "Parasitism"): read as that type.
_NOUNS = {
    "predation": "preys on",
    "predator-prey": "preys on",
    "herbivory": "eats",
    "frugivory": "eats",
    "folivory": "eats",
    "granivory": "eats",
    "feeding": "eats",
    "consumption": "eats",
    "parasitism": "parasite of",
    "endoparasitism": "endoparasite of",
    "ectoparasitism": "ectoparasite of",
    "parasitoidism": "parasitoid of",
    "pollination": "pollinates",
    "flower visiting": "visits flowers of",
    "flower visitation": "visits flowers of",
    "mutualism": "mutualist of",
    "commensalism": "commensalist of",
    "symbiosis": "symbiont of",
    "epiphytism": "epiphyte of",
    "nesting": "nests in",
    "roosting": "roosts in",
    "seed dispersal": "dispersal vector of",
    "pathogenicity": "pathogen of",
    "infection": "pathogen of",
}


def option_type(text: str) -> Reading | None:
    """The interaction an option names: a label the table reads ("parasite of", "eaten by") or
    a noun of one ("Predation", "Parasitism"); None for anything else."""
    return classify_option(text)[1]


@lru_cache(maxsize=16384)
def classify_option(text: str) -> tuple[bool, Reading | None]:
    """(whether ``text`` is a label the table reads, the interaction it names if any), from one
    normalisation of the text."""
    label = normalize_label(text)
    found = _lookup(label)
    if found is not None:
        return True, Reading(*found)
    if label in _NOUNS:
        return False, Reading(_NOUNS[label])
    return False, None


# Words of free text that name an interaction ("The fox feeds on the vole", "Predator of the
# fish", "drinks the flowers' nectar"), each with the type it names.
_TEXT_TYPES = (
    (r"ectoparasit\w*", "ectoparasite of"),
    (r"endoparasit\w*", "endoparasite of"),
    (r"parasitoid\w*", "parasitoid of"),
    (r"parasit\w*", "parasite of"),
    (r"pathogen\w*|infect\w*", "pathogen of"),
    (r"pollinat\w*", "pollinates"),
    (r"nectar|flowers?", "visits flowers of"),
    (r"predat\w*|preys?|preyed|preying|hunts?|hunted|hunting", "preys on"),
    (r"kill\w*", "kills"),
    (
        r"eats?|eating|ate|eaten|feeds?|feeding|fed|drinks?|drinking|drank|consum\w*|"
        r"graz\w*|brows\w*|foliv\w*|frugiv\w*|herbiv\w*|diet",
        "eats",
    ),
    (r"lays? eggs|laid eggs|egg-laying|oviposit\w*", "lays eggs on"),
    (r"nests?|nesting|nested", "nests in"),
    (r"roosts?|roosting", "roosts in"),
    (r"epiphyt\w*", "epiphyte of"),
    (r"mutualis\w*", "mutualist of"),
    (r"commensal\w*", "commensalist of"),
    (r"hosts?|hosted", "has host"),
    (r"develops?|developing|lives?|living|inhabits?", "has habitat"),
    (r"visits?|visiting|visited", "visits"),
)
_TEXT_TYPE_RE = [(re.compile(rf"\b(?:{words})\b", re.IGNORECASE), t) for words, t in _TEXT_TYPES]


@lru_cache(maxsize=4096)
def types_in(text: str) -> tuple[str, ...]:
    """The interaction types the words of a free-text option name, in the table's order
    (none for a text that names no interaction)."""
    return tuple(type_ for pattern, type_ in _TEXT_TYPE_RE if pattern.search(text))


@lru_cache(maxsize=4096)
def recorded_types(label: str) -> tuple[str, ...]:
    """The types a record's interaction label says: its reading when the table knows the label,
    else the types its words name ("mutualistically interacts with" is a mutualism,
    "parasitically lives on" a parasitism and a habitat), else the label as a type of its own."""
    reading = read_label(label)
    if reading.known:
        return (reading.type,)
    return types_in(label) or (reading.type,)


# An interaction word that names a role or is passive ("prey of", "predator of", "is eaten by",
# "eaten by"), or "feeds" without "on" (it may give food): what way round it is, the words
# alone do not say.
_NOT_ACTIVE_BEFORE = re.compile(r"\b(?:is|are|was|were|be|been|being|gets?|got)\s+$", re.IGNORECASE)
_NOT_ACTIVE_AFTER = re.compile(r"\s*(?:of|by|to|on by|upon by)\b", re.IGNORECASE)
_ON = re.compile(r"\s*(?:on|upon)\b", re.IGNORECASE)
_FEEDS = frozenset({"feed", "feeds", "fed", "feeding"})
_BEFORE_REACH = 12  # characters before an interaction word in which "is", "were"... are looked for
# Every interaction word of _TEXT_TYPES in one pattern, a named group per type: one pass over
# the text, the first type listed winning where two match at one place, as in ``types_in``.
_ANY_TYPE_RE = re.compile(
    r"\b(?:" + "|".join(f"(?P<t{n}>{words})" for n, (words, _) in enumerate(_TEXT_TYPES)) + r")\b",
    re.IGNORECASE,
)
_GROUP_TYPES = {f"t{n}": type_ for n, (_, type_) in enumerate(_TEXT_TYPES)}


@lru_cache(maxsize=16384)
def active_interaction(text: str) -> tuple[frozenset[str], tuple[str, ...]] | None:
    """The interaction a free-text option says its subject does, in active verbs ("It preys on
    the frog", "It hunts and eats the frog"): its most specific types (a type another one
    implies is left out: "hunts and eats" is "preys on") and the words that name them. None
    when it names none, or names one as a role, in the passive, or with "feeds" alone."""
    found: set[str] = set()
    written: list[str] = []
    for match in _ANY_TYPE_RE.finditer(text):
        start, end = match.span()
        if _NOT_ACTIVE_BEFORE.search(text, max(0, start - _BEFORE_REACH), start):
            return None
        if _NOT_ACTIVE_AFTER.match(text, end):
            return None
        word = match.group(0)
        if word.lower() in _FEEDS and not _ON.match(text, end):
            return None
        found.add(_GROUP_TYPES[match.lastgroup or ""])
        if word not in written:
            written.append(word)
    if not found:
        return None
    specific = frozenset(t for t in found if not any(o != t and implies(o, t) for o in found))
    return specific, tuple(written)


@lru_cache(maxsize=4096)
def names_interaction(word: str) -> bool:
    """Whether one word (or its stem: "hunt", "parasit") is an interaction word of
    ``active_interaction``."""
    return _ANY_TYPE_RE.fullmatch(word) is not None
