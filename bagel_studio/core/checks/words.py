"""Content words: the lower-cased, lightly stemmed words that carry meaning in a stem or option.

Shared by the text checks (near-duplicate options, gold in stem) and the evidence-support checks,
so that "Salt lakes" and "salt lake", or "leaves" and "leaf", compare equal everywhere.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import cast

WORD_RE = re.compile(r"[A-Za-z\u00c0-\u024f]+(?:['’-][A-Za-z\u00c0-\u024f]+)*|\d+(?:[.,]\d+)?")

_STOP_WORDS = """
    a about above after again against all also am an and any are as at be because
    been before being below between both but by can could did do does doing down
    during each either few for from further had has have having he her here hers
    herself him himself his how i if in into is it its itself just may me might more
    most much must my myself no nor not of off on once only or other others our ours
    out over own per same she should so some such than that the their theirs them
    themselves then there these they this those through thus to too under until up
    upon us very was we were what when where whether which while who whom whose why
    will with within without would you your yours one ones typically typical usually
    generally often commonly primarily mainly mostly likely known considered
    following best describes describe question answer option options correct true
    statement statements
"""
STOP_WORDS = frozenset(_STOP_WORDS.split())

_IRREGULAR = {
    "leaves": "leaf",
    "wolves": "wolf",
    "mice": "mouse",
    "geese": "goose",
    "teeth": "tooth",
    "feet": "foot",
    "children": "child",
    "women": "woman",
    "men": "man",
    "fungi": "fungus",
    "larvae": "larva",
    "calves": "calf",
    "halves": "half",
    "lives": "life",
}


# British spellings as American ones, so that "defence" in a stem finds "defense" in a text
# ("-our" words are handled by their ending: "behaviour", "colour")
_SPELLINGS = {
    "defence": "defense",
    "offence": "offense",
    "licence": "license",
    "grey": "gray",
    "greys": "grays",
    "metre": "meter",
    "metres": "meters",
    "centre": "center",
    "centres": "centers",
    "litre": "liter",
    "litres": "liters",
    "fibre": "fiber",
    "fibres": "fibers",
    "moult": "molt",
    "moults": "molts",
    "moulted": "molted",
    "moulting": "molting",
    "mould": "mold",
    "haemoglobin": "hemoglobin",
    "oestrus": "estrus",
    "foetus": "fetus",
    "faeces": "feces",
}


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A light suffix-stripping stem: plurals, -ing, -ed, -ly; enough to match word forms. A
    British spelling is stemmed as the American one ("defence", "behaviour")."""
    w = word.lower().replace("’", "'")
    if w.endswith("'s"):
        w = w[:-2]
    w = _SPELLINGS.get(w, w)
    if w in _IRREGULAR:
        return _IRREGULAR[w]
    if len(w) > 5 and w.endswith(("our", "ours")):  # behaviour(s), colour(s); not four, hours
        w = w[: w.rindex("our")] + "or" + w[w.rindex("our") + 3 :]
    if len(w) > 4 and w.endswith("ies"):
        w = w[:-3] + "y"
    elif len(w) > 4 and w.endswith(("sses", "shes", "ches", "xes", "zes")):
        w = w[:-2]
    elif len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is")):
        w = w[:-1]
    if len(w) > 5 and w.endswith("ing"):
        w = w[:-3]
    elif (len(w) > 4 and w.endswith("ed") and not w.endswith("eed")) or (
        len(w) > 5 and w.endswith("ly")
    ):
        w = w[:-2]
    if len(w) > 3 and w.endswith("e"):
        w = w[:-1]
    return w


def singular(word: str) -> str:
    """A word in lower case without a plural ending ("Prides" is "pride", "species" stays), a
    British spelling as the American one: the same word as written, number aside, where
    ``stem`` would also join other forms ("righting", "right")."""
    w = word.lower().replace("’", "'")
    w = _SPELLINGS.get(w, w)
    if len(w) > 4 and w.endswith("ies"):
        return w[:-3] + "y"
    if len(w) > 4 and w.endswith(("sses", "shes", "ches", "xes", "zes")):
        return w[:-2]
    if len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is")):
        return w[:-1]
    return w


def words(text: str) -> list[str]:
    """The words and numbers of ``text`` as written (inner apostrophes and hyphens kept), before
    stemming."""
    return WORD_RE.findall(text)


_WORD_STEMS: dict[str, str] = {}  # word as written -> its stem, or "" for a stop word
_WORD_STEMS_LIMIT = 200_000


@lru_cache(maxsize=65536)
def content_stems(text: str) -> tuple[str, ...]:
    """The stems of the content words of ``text``, in order, without repeats."""
    return stems_of_words(WORD_RE.findall(text))


def stems_of_words(found: list[str]) -> tuple[str, ...]:
    """``content_stems`` of a text whose ``words`` are ``found``.

    Each distinct word is looked up once in a table of words already seen (a stop word maps to
    ""), so a word costs one dictionary lookup however many options and stems it occurs in.
    """
    seen: dict[str, None] = {}
    known = _WORD_STEMS
    for word in found:
        stemmed = known.get(word)
        if stemmed is None:
            stemmed = "" if word.lower() in STOP_WORDS else stem(word)
            if len(known) < _WORD_STEMS_LIMIT:
                known[word] = stemmed
        if stemmed:
            seen[stemmed] = None
    return tuple(seen)


def stem_set(found: list[str]) -> set[str]:
    """``set(stems_of_words(found))``: when every word was seen before, one lookup per word in
    C (``map``) rather than a loop in Python."""
    stems = set(map(_WORD_STEMS.get, found))
    if None in stems:  # a word not seen yet: stem it (and remember it)
        return set(stems_of_words(found))
    stems.discard("")
    return cast(set[str], stems)  # None is not in it


def normalized_phrase(text: str) -> str:
    """Words only, lower case, single spaces: for matching a phrase inside a longer text."""
    return " ".join(WORD_RE.findall(text)).lower()  # lower() of the whole: one call, same text
