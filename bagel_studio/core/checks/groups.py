"""The groups a stem names in plain words ("Which moth family...", "which bird"), as the taxa a
lineage shows them by: a GloBI option known to lie outside the stem's group (a spider offered
for "which moth") is no answer to it, whatever the records link it to.

A small table of common group names, each with the higher taxa GloBI's lineages use for it
(several where the common word spans more than one: "fish"). Only plural-safe nouns: words that
are also verbs ("flies", "bugs") are left out, but a fly named by the word before it ("bat
flies", "louse fly") may be a noun there: a fly (Diptera), or a bat that flies.
"""

from __future__ import annotations

import re
from functools import lru_cache

_GROUPS: dict[str, tuple[str, ...]] = {
    "moth": ("lepidoptera",),
    "butterfly": ("lepidoptera",),
    "caterpillar": ("lepidoptera",),
    "lepidopteran": ("lepidoptera",),
    "beetle": ("coleoptera",),
    "weevil": ("coleoptera", "curculionidae"),
    "spider": ("araneae",),
    "bee": ("hymenoptera", "apoidea", "anthophila"),
    "wasp": ("hymenoptera",),
    "ant": ("hymenoptera", "formicidae"),
    "aphid": ("hemiptera", "aphididae"),
    "grasshopper": ("orthoptera",),
    "dragonfly": ("odonata",),
    "damselfly": ("odonata",),
    "mite": ("acari", "arachnida"),
    "tick": ("ixodida", "acari", "arachnida"),
    "insect": ("insecta",),
    "bird": ("aves",),
    "mammal": ("mammalia",),
    "amphibian": ("amphibia",),
    "frog": ("anura", "amphibia"),
    "toad": ("anura", "amphibia"),
    "reptile": ("reptilia", "squamata", "testudines", "crocodylia"),
    "snake": ("serpentes", "squamata"),
    "lizard": ("squamata", "sauria"),
    "fish": ("actinopterygii", "chondrichthyes", "teleostei", "elasmobranchii"),
    "rodent": ("rodentia",),
    "bat": ("chiroptera",),
    "deer": ("cervidae",),
    "snail": ("gastropoda",),
    "slug": ("gastropoda",),
    "fungus": ("fungi",),
    "plant": ("plantae", "tracheophyta", "magnoliopsida", "liliopsida"),
    "tree": ("plantae", "tracheophyta", "magnoliopsida", "pinopsida"),
    "shrub": ("plantae", "tracheophyta", "magnoliopsida"),
    "grass": ("poaceae",),
    "coral": ("anthozoa", "cnidaria"),
    "crustacean": ("crustacea", "malacostraca"),
    "nematode": ("nematoda",),
    "vertebrate": ("chordata", "vertebrata"),
}
_PLURALS = {"fungus": "fungi", "fish": "fishes", "deer": "deer", "butterfly": "butterflies"}
_PLURALS |= {"dragonfly": "dragonflies", "damselfly": "damselflies"}
_WORDS = {word: word for word in _GROUPS}
_WORDS |= {_PLURALS.get(w, w + "s"): w for w in _GROUPS}
_WORDS |= {"fishes": "fish", "fungi": "fungus", "grasses": "grass"}
# A fly named by the word before it ("bat flies", "louse fly", "bee fly"): "flies" may be a noun
# there, the group asked the fly's (Diptera), or a verb ("which bat flies fastest"): both read.
_GROUPS["fly"] = ("diptera",)
_FLY_NAMES = (
    *(w for w in _GROUPS if w != "fly"),
    *"louse house fruit horse crane hover robber flesh blow bot sand black stable tsetse".split(),  # noqa: SIM905
)
_WORDS |= {f"{name} {fly}": "fly" for name in _FLY_NAMES for fly in ("fly", "flies")}
_GROUP_RE = re.compile(r"\b(" + "|".join(sorted(_WORDS, key=len, reverse=True)) + r")\b", re.I)


@lru_cache(maxsize=4096)
def stem_groups(question: str) -> tuple[frozenset[str], ...]:
    """The groups the stem names, each as the taxon keys that show it in a lineage."""
    found = []
    for match in _GROUP_RE.finditer(question):
        word = match.group(1).lower()
        group = set(_GROUPS[_WORDS[word]])
        first = word.split()[0]
        if _WORDS[word] == "fly" and first in _WORDS:  # "bat flies": a fly, or a bat flying
            group |= set(_GROUPS[_WORDS[first]])
        found.append(frozenset(group))
    return tuple(found)


def outside(groups: tuple[frozenset[str], ...], lineage: set[str]) -> bool:
    """Whether a taxon of known ``lineage`` (its own key and its ancestors') lies outside every
    group the stem names; False when the stem names none or the lineage is unknown."""
    if not groups or not lineage:
        return False
    return all(group.isdisjoint(lineage) for group in groups)


_RANK_WORDS = {
    "species": "species",
    "genus": "genus",
    "genera": "genus",
    "family": "family",
    "families": "family",
    "order": "order",
    "orders": "order",
    "class": "class",
    "classes": "class",
    "phylum": "phylum",
    "phyla": "phylum",
}
_ASKED_RANK_RE = re.compile(
    r"\b(?:which|what)\s+(?:[a-z-]+\s+){0,2}?(" + "|".join(_RANK_WORDS) + r")\b", re.IGNORECASE
)


@lru_cache(maxsize=4096)
def asked_rank(question: str) -> str | None:
    """The rank a stem asks for ("Which family of swimming crabs...", "What insect order..."),
    or None when it asks none (or more than one)."""
    found = {_RANK_WORDS[m.group(1).lower()] for m in _ASKED_RANK_RE.finditer(question)}
    return found.pop() if len(found) == 1 else None
