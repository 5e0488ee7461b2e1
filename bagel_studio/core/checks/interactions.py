"""The words of GloBI stems: the paper's forbidden words, which give a masked interaction away,
and the phrases that leave an interaction open ("visits flowers of", "interacts with", "found
on"). What the interactions themselves mean, and which are equivalent, is
``interaction_types``.
"""

from __future__ import annotations

import re
from functools import lru_cache

from bagel_studio.core.checks.interaction_types import INTERACTS_WITH, is_known_label

# Each pattern below looks at the first letter of a word, (?=[...]): the first letters of its
# alternatives, before it tries them, so that most places of a stem are passed over at once
# (tests/core/checks/test_checks_first_letters.py keeps the letters complete).

# Phrases of a stem that leave the interaction open, and the type each one reads as (any
# relation implying that type fits it).
_VAGUE_STEM_RE = re.compile(
    r"\b(?=[acefhiorv])"
    r"(visit(?:s|ed|ing)? (?:the )?flowers? of|flowers? visited by|visit(?:s|ed|ing)?|"
    r"interact(?:s|ed|ing)? with|(?:ecologically )?co-?occur(?:s|red|ring)? with|"
    r"associated with|ecologically related to|"
    r"(?:found|recorded|observed|collected) (?:on|with|near)|"
    # "has the gorilla (Gorilla beringei) as a host", "has host": GloBI's generic "has host"
    r"has\s+(?:[\w()'’-]+\s+){1,6}?as (?:an? |its |their )?hosts?|has hosts?)\b",
    re.IGNORECASE,
)

# Every match of _VAGUE_STEM_RE holds one of these.
_VAGUE_WORDS = (
    "visit",
    "flower",
    "interact",
    "occur",
    "associated",
    "related",
    "found on",
    "found with",
    "found near",
    "recorded",
    "observed",
    "collected",
    "host",
)

# The paper's forbidden words for stems (they give the masked interaction away), by their roots:
# a derived word gives the interaction away as much as the verb ("predation", "predatory",
# "consumer", "consumption", "seed-eaters", "infectious", "kleptoparasitism"). "host" is read in
# its inflections only ("hostile" is of another root), "consum" not in "consummate".
LEAKY_RE = re.compile(
    r"\b(?=[acehikmp])"
    r"(consum(?!mat)\w*|eat(?:s|en|ing|ers?)?|ate|"
    r"(?:predat|predac)\w*(?: on| upon)?|preys?(?: on| upon)?|preyed(?: on| upon)?|"
    r"preying(?: on| upon)?|(?:endo|ecto|hyper|klepto)?parasit\w*|pollinat\w*|infect\w*|"
    r"hosts?|hosted|hosting|mutualis\w*|commensal\w*)\b",
    re.IGNORECASE,
)
_LEAK_TYPE = (
    ("pollinat", "pollinates"),
    ("parasit", "parasite of"),
    ("infect", "pathogen of"),
    ("host", "has host"),
    ("mutualis", "mutualist of"),
    ("commensal", "commensalist of"),
)


def is_interaction(text: str) -> bool:
    """True when ``text`` is a known GloBI interaction name (an option of a masked-interaction
    item such as "parasite of")."""
    return is_known_label(text)


def leaked_type(word: str) -> str:
    """The interaction type a forbidden word reveals (eats for eats/consumes/predator/prey...)."""
    lower = word.lower()
    for stem, type_ in _LEAK_TYPE:
        if stem in lower:
            return type_
    return "eats"


def leaky_words(stem: str) -> list[str]:
    """The paper's forbidden interaction words in ``stem``, in order, without repeats."""
    found: list[str] = []
    for match in LEAKY_RE.finditer(stem):
        word = match.group(0)
        if word.lower() not in (w.lower() for w in found):
            found.append(word)
    return found


# Words beside a vague phrase that say what the interaction is after all ("found in the diet").
_SPECIFIC_RE = re.compile(
    r"\b(?=[bdefghklmnprs])"
    r"(diets?|food|feed(?:s|ing)?|fed|forag\w*|nest(?:s|ed|ing)?|roost\w*|reared|rears|"
    r"pollen|nectar|galls?|mines?|mined|mining|bor(?:es|ed|ing|ers?)|suck\w*|larva\w*|"
    r"kill\w*|hunt\w*|graz\w*|brows\w*|spawn\w*|lays? eggs|laid eggs|egg-laying|stomach|"
    r"gut contents|scats?|faeces|feces|pellets?)\b",
    re.IGNORECASE,
)


@lru_cache(maxsize=8192)
def vague_phrases(stem: str) -> tuple[str, ...]:
    """The phrases of ``stem`` that leave the interaction open; none when the stem names the
    interaction after all (a forbidden word, or "diet", "nesting", "larvae"...). Cached: the
    stems of templated items repeat."""
    lower = stem.casefold()
    if not any(w in lower for w in _VAGUE_WORDS):
        return ()  # the common case, settled without the pattern
    found = tuple(m.group(0) for m in _VAGUE_STEM_RE.finditer(stem))
    if not found:
        return ()
    rest = _VAGUE_STEM_RE.sub(" ", stem)  # "host" in "as a host" is the vague phrase itself
    if _SPECIFIC_RE.search(rest) or LEAKY_RE.search(rest):
        return ()
    return found


_PRONOUNS = frozenset({"it", "its", "they", "them", "their", "each", "other", "one", "another"})


# Every phrase vague_type reads as "interacts with" holds one of these.
_UNIVERSAL_WORDS = ("interact", "occur", "associated", "related")


@lru_cache(maxsize=8192)
def vague_option(text: str) -> str | None:
    """The vague phrase of an option that says no more than that its subject interacts with the
    other ("It interacts with it", "They are associated with each other"), or None."""
    lower = text.casefold()
    if not any(w in lower for w in _UNIVERSAL_WORDS):
        return None  # the common case, settled without the pattern
    found = list(_VAGUE_STEM_RE.finditer(text))
    if len(found) != 1 or vague_type(found[0].group(0)) != INTERACTS_WITH:
        return None
    rest = _VAGUE_STEM_RE.sub(" ", text)
    words = [w for w in re.findall(r"[a-z]+", rest.casefold()) if w not in _PRONOUNS]
    return found[0].group(0) if not set(words) - {"is", "are", "was", "were", "the"} else None


def vague_type(phrase: str) -> str:
    """The interaction type a vague phrase from a stem reads as: any relation implying it fits
    ("visits flowers of" admits pollination; "found on" anything adjacent, parasites too)."""
    text = phrase.casefold()
    if "host" in text:
        return "has host"
    if "flower" in text:
        return "visits flowers of"
    if text.startswith("visit"):
        return "visits"
    if text.split()[0] in ("found", "collected") and text.endswith(" on"):
        return "adjacent to"
    return INTERACTS_WITH
