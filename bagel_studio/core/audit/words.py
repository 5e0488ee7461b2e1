"""Words for the audit: the checks' light stemming (``checks.words.stem``) over a tokenizer made
for reading a whole project at once.

An audit reads every stem and option of a project (a million texts at 200,000 items), so words
are split by ``str.translate`` and ``str.split`` (punctuation becomes space) rather than by a
regular expression, each distinct word is stemmed once, and content words come back as small
integers (one per distinct stem), ready for set arithmetic and MinHash.
"""

from __future__ import annotations

import string
from collections.abc import Iterable

from bagel_studio.core.checks.words import STOP_WORDS, stem

_PUNCTUATION = str.maketrans(dict.fromkeys(string.punctuation + "‘’“”–—…·•°×", " "))
_WORD_IDS: dict[str, int] = {}  # lower-case word -> the number of its stem (-1: a stop word)
_STEM_IDS: dict[str, int] = {}  # stem -> its number
_STEMS: list[str] = []  # number -> its stem


def phrase(text: str) -> str:
    """``text`` as lower-case words separated by single spaces (for matching phrases)."""
    return " ".join(text.lower().translate(_PUNCTUATION).split())


def _number(word: str) -> int:
    if word in STOP_WORDS or word.strip("'") in STOP_WORDS:
        number = -1
    else:
        stemmed = stem(word)
        number = _STEM_IDS.get(stemmed, -1)
        if number < 0:
            number = _STEM_IDS[stemmed] = len(_STEMS)
            _STEMS.append(stemmed)
    _WORD_IDS[word] = number
    return number


def content_words(text: str) -> frozenset[int]:
    """The content words of ``text`` (stop words left out, light stems), as stem numbers.
    Words are deduplicated and looked up in C; only words never seen before are stemmed."""
    words = set(text.lower().translate(_PUNCTUATION).split())
    known = _WORD_IDS
    if not all(map(known.__contains__, words)):  # words never seen before
        for word in words.difference(known):
            _number(word)
    found = set(map(known.__getitem__, words))
    found.discard(-1)
    return frozenset(found)


def stems(numbers: Iterable[int]) -> list[str]:
    """The stems that ``content_words`` numbered ``numbers`` in this process (numbers are given
    in order of first sight, so two processes number differently: a stem is what they share)."""
    return [_STEMS[n] for n in numbers]
