"""Taxon names and lineages, without any network lookup.

GloBI items are judged by how their options relate as taxa: a family beside one of its species, a
species beside its own subspecies. Two sources of taxonomy are used, in this order: the lineage a
GloBI record carries (``*TaxonPathNames`` or the rank columns such as ``sourceTaxonFamilyName``),
and the structure of the name itself (a trinomial lies inside its binomial, a binomial inside its
genus). Rank suffixes (-idae, -formes, ...) tell a family or order from a genus.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

SPECIES = "species"
SUBSPECIES = "subspecies"
GENUS = "genus"

# Suffixes fixed by the zoological and botanical codes (and common practice) for higher ranks.
RANK_SUFFIXES: tuple[tuple[str, str], ...] = (
    ("oidea", "superfamily"),
    ("idae", "family"),
    ("inae", "subfamily"),
    ("aceae", "family"),
    ("formes", "order"),
    ("ales", "order"),
    ("mycetes", "class"),
    ("mycota", "phylum"),
    ("phyta", "phylum"),
)
HIGHER_RANKS = (
    "kingdom",
    "phylum",
    "class",
    "order",
    "superfamily",
    "family",
    "subfamily",
    "tribe",
)

# The rank columns of GloBI's exchange format, from the top down.
RANK_COLUMNS = ("Kingdom", "Phylum", "Class", "Order", "Family", "Genus")

_INFRA_MARKERS = {"subsp.", "ssp.", "var.", "f.", "subsp", "ssp", "var", "forma"}
_QUALIFIERS = {"cf.", "aff.", "cf", "aff", "nr.", "?"}
_UNRESOLVED = {"sp.", "spp.", "sp", "spp", "indet.", "indet"}
_GENUS_RE = re.compile(r"^[A-Z][a-z]+(?:-[a-z]+)?$")
_EPITHET_RE = re.compile(r"^[a-z][a-z-]+(?:/[a-z][a-z-]+)?$")  # "volitans/miles": a pair
_SUBGENUS_RE = re.compile(r"^\([A-Z][a-z]+\)$")
# Words that start English phrases and can look like a genus at the head of a sentence, and
# words that follow one and can look like an epithet.
_ENGLISH_HEADS = """a an the this that these those which what who whom how where when why in on of
    for by with from to at is are it its they their both all none some most many one two and or
    not no as if than between among during after before has have was were be can may does do
    only"""
_ENGLISH_TAILS = """a an the is are was were be been of in on and or to for by with from at as its
    their that which this species family genus order class taxon taxa group not has have had can
    may will would also only most more less lives live feeds feed eats eat nests nest visits visit
    hosts host infects infect uses use occurs occur inhabits inhabit interacts interact preys prey
    consumes consume grows grow breeds breed"""
_NOT_GENERA = frozenset(_ENGLISH_HEADS.split())
_NOT_EPITHETS = frozenset(_ENGLISH_TAILS.split())


@dataclass(frozen=True)
class TaxonName:
    """A parsed scientific name: its genus (or uninomial) and any epithets."""

    genus: str
    epithets: tuple[str, ...] = ()

    @property
    def canonical(self) -> str:
        return " ".join((self.genus, *self.epithets))

    @property
    def key(self) -> str:
        return self.canonical.casefold()

    @property
    def rank(self) -> str | None:
        """The rank the name's structure shows (None for a uninomial of unknown rank)."""
        if len(self.epithets) >= 2:
            return SUBSPECIES
        if self.epithets:
            return SPECIES
        return suffix_rank(self.genus)

    def parents(self) -> tuple[str, ...]:
        """The names this one lies inside by its structure alone, nearest first."""
        if len(self.epithets) >= 2:
            return (f"{self.genus} {self.epithets[0]}", self.genus)
        if self.epithets:
            return (self.genus,)
        return ()


# Botanical family names the code conserves without the -aceae ending.
_CONSERVED_FAMILIES = frozenset(
    {"compositae", "cruciferae", "gramineae", "guttiferae"}
    | {"labiatae", "leguminosae", "palmae", "umbelliferae"}
)
# Ranks an ending tells for sure (-oidea is a superfamily's ending, but some classes have it too:
# Holothuroidea, Echinoidea).
_SURE_ENDINGS = frozenset({"family", "subfamily", "order"})


def not_of_rank(name: TaxonName, rank: str) -> bool:
    """Whether ``name`` is known not to be of ``rank`` by its structure and the codes' endings:
    a binomial is no genus or family, a uninomial no species, a family (-idae, -aceae) no
    genus, order or class, and a uninomial without a family's ending no family (the
    zoological code fixes -idae, the botanical -aceae, a few conserved names aside). False
    where the name does not say (an animal order or a class has no fixed ending)."""
    own = name.rank
    if rank in (SPECIES, SUBSPECIES):
        return not name.epithets
    if name.epithets:
        return True
    if rank == "family":
        return own != "family" and name.genus.casefold() not in _CONSERVED_FAMILIES
    if rank == GENUS:
        return own in _SURE_ENDINGS
    if rank in ("order", "class", "phylum", "kingdom"):
        return own in _SURE_ENDINGS and own != rank
    return False


def suffix_rank(word: str) -> str | None:
    """The rank a name's ending tells (``-idae`` a family, ``-inae`` a subfamily...), or None; a
    name only a few letters longer than the ending is not taken for one."""
    lower = word.lower()
    for suffix, rank in RANK_SUFFIXES:
        if lower.endswith(suffix) and len(lower) > len(suffix) + 2:
            return rank
    return None


# A family's (or subfamily's) name is formed from the stem of its type genus: the genus's Latin
# ending dropped, the rank's ending added (Rallus -> Rallidae, Mustela -> Mustelidae, Felis ->
# Felidae, Passer -> Passeridae; Rosa -> Rosaceae). A third-declension genus changes its stem
# as its genitive does (Sorex, Soricis -> Soricidae; Culex -> Culicidae; Anas, Anatis ->
# Anatidae; Homo, Hominis -> Hominidae): its ending, then what the stem ends in instead.
_FAMILY_ENDINGS = ("idae", "inae", "aceae", "oideae")
_GENUS_ENDINGS = frozenset({"", "us", "a", "um", "is", "es", "on", "os", "as", "e"})
_STEM_CHANGES = (
    ("ex", "ic"),
    ("ix", "ic"),
    ("ax", "ac"),
    ("yx", "yc"),
    ("as", "at"),
    ("o", "in"),
    ("o", "on"),
)


def formed_from_genus(family: str, genus: str) -> bool:
    """Whether the name ``family`` (a family's or subfamily's ending) is formed from the genus
    ``genus``, which it therefore contains: "Rallidae" from "Rallus", "Soricidae" from
    "Sorex"."""
    upper, lower = family.strip().casefold(), genus.strip().casefold()
    for ending in _FAMILY_ENDINGS:
        if upper.endswith(ending) and len(upper) > len(ending) + 2:
            root = upper[: -len(ending)]
            if lower == upper:
                return False
            if lower.startswith(root) and lower[len(root) :] in _GENUS_ENDINGS:
                return True
            return any(
                lower.endswith(was) and root == lower[: -len(was)] + becomes
                for was, becomes in _STEM_CHANGES
            )
    return False


_NOTE = re.compile(r"\s*\[[^\]]*\]")  # "[as Nycteribosca]", "[incorrectly identified as ...]"


@lru_cache(maxsize=65536)
def parse_name(text: str) -> TaxonName | None:
    """Parse a scientific name ("Channa striata", "Capreolus capreolus italicus", "Cichlidae",
    "Fungia (Cycloseris) costulata", "Hymenoscyphus fraxineus (T. Kowalski) Baral").

    Returns None when ``text`` is not shaped like one (English phrases, interaction verbs).
    Authorship after the name is allowed and dropped, and so is a note in square brackets (a
    table's record of the name its source printed: "Brachytarsina alluaudi [as
    Nycteribosca]"); anything else after it is not.
    """
    if "[" in text:
        text = _NOTE.sub(" ", text)
    tokens = text.strip().rstrip(".").split()
    if not tokens or not _GENUS_RE.match(tokens[0]) or tokens[0].lower() in _NOT_GENERA:
        return None
    genus, rest = tokens[0], tokens[1:]
    if rest and _SUBGENUS_RE.match(rest[0]):
        rest = rest[1:]
    epithets: list[str] = []
    index = 0
    while index < len(rest):
        token = rest[index]
        lower = token.lower()
        if lower in _QUALIFIERS or (lower in _INFRA_MARKERS and epithets):
            index += 1
            continue
        if lower in _UNRESOLVED:
            return TaxonName(genus) if index == len(rest) - 1 and not epithets else None
        if _EPITHET_RE.match(token) and lower not in _NOT_EPITHETS and len(epithets) < 2:
            epithets.append(token)
            index += 1
            continue
        break
    if not _is_authorship(rest[index:]):
        return None
    return TaxonName(genus, tuple(epithets))


def _is_authorship(tokens: list[str]) -> bool:
    """True for nothing, or an author citation: "L.", "(Linnaeus, 1758)", "Baral & Hosoya 2014"."""
    if not tokens:
        return True
    first = tokens[0].lstrip("(")
    return bool(first) and (first[0].isupper() or first[0].isdigit())


@lru_cache(maxsize=65536)
def normalize_taxon(text: str) -> str:
    """The comparison key of a taxon name: its canonical form, case-folded (or the text itself,
    case-folded and single-spaced, when it does not parse as a name)."""
    name = parse_name(text)
    if name is not None:
        return name.key
    return " ".join(text.split()).casefold()


def looks_like_species(text: str) -> bool:
    """Whether ``text`` parses as a species name (a binomial, or finer)."""
    name = parse_name(text)
    return name is not None and bool(name.epithets)


def name_rank(text: str) -> str | None:
    """The rank of the name ``text`` parses as, or None when it is not a name."""
    name = parse_name(text)
    return name.rank if name is not None else None


def structural_parents(text: str) -> tuple[str, ...]:
    """Case-folded keys of the names ``text`` lies inside by its structure."""
    name = parse_name(text)
    return tuple(p.casefold() for p in name.parents()) if name is not None else ()


def lineage_from_path(path: str | None) -> tuple[str, ...]:
    """The names of a pipe-separated lineage, top down ("Animalia | Chordata | ... | Channa")."""
    if not path:
        return ()
    return tuple(part.strip() for part in path.split("|") if part.strip())


def lineage_from_columns(row: Mapping[str, Any], side: str) -> tuple[str, ...]:
    """The lineage in an exchange-format row's rank columns (``side`` is "source" or "target")."""
    names: list[str] = []
    for rank in RANK_COLUMNS:
        value = row.get(f"{side}Taxon{rank}Name")
        if isinstance(value, str) and value.strip():
            names.append(value.strip())
    genus = row.get(f"{side}TaxonGenusName")
    species = row.get(f"{side}TaxonSpecificEpithetName")
    if isinstance(genus, str) and genus.strip() and isinstance(species, str) and species.strip():
        names.append(f"{genus.strip()} {species.strip()}")
    return tuple(names)


def ancestors(name: str, lineage: tuple[str, ...] = ()) -> dict[str, str]:
    """Case-folded keys of every taxon containing ``name``, each with where that is known from:
    "record" (a lineage a GloBI record carries) or "name" (the structure of the name)."""
    own = normalize_taxon(name)
    found = {normalize_taxon(n): "record" for n in lineage}
    for parent in structural_parents(name):
        found.setdefault(parent, "name")
    found.pop(own, None)
    return found
