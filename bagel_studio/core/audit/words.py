"""Words for the audit: the checks' light stemming (``checks.words.stem``) over a tokenizer made
for reading a whole project at once.

An audit reads every stem and option of a project (a million texts at 200,000 items), so the
texts of a batch are tokenized together (``tokenize``): joined into one string, lower-cased and
stripped of punctuation (``str.translate``: punctuation becomes space) and split in three calls,
each distinct word stemmed once in the process's life, and every word looked up in C. Content
words come back as small integers (one per distinct stem, stop words as -1), ready for numpy.
"""

from __future__ import annotations

import string
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import repeat

import numpy as np

from bagel_studio.core.checks.words import STOP_WORDS, stem

_PUNCTUATION = str.maketrans(dict.fromkeys(string.punctuation + "‘’“”–—…·•°×", " "))
# Joined texts are separated by a NUL between spaces, which becomes the word "#": no text's word
# can be "#" (punctuation becomes space), so the separator is never taken for a word. (Every
# character maps to one ASCII character: str.translate's fast path.)
_JOINED = _PUNCTUATION | {0: "#"}
SEPARATOR = "#"
STOP = -1  # the number of a stop word
MARK = -2  # the number of the separator between two texts

_NEW = -3  # the number of a word not numbered yet
# Lower-case word -> the number of its stem (STOP: a stop word; MARK: the separator).
_WORD_IDS: dict[str, int] = {SEPARATOR: MARK}
_STEM_IDS: dict[str, int] = {}  # stem -> its number
_STEMS: list[str] = []  # number -> its stem


def phrase(text: str) -> str:
    """``text`` as lower-case words separated by single spaces (for matching phrases)."""
    return " ".join(text.lower().translate(_PUNCTUATION).split())


def _number(word: str) -> int:
    if word in STOP_WORDS or word.strip("'") in STOP_WORDS:
        number = STOP
    else:
        stemmed = stem(word)
        number = _STEM_IDS.get(stemmed, -1)
        if number < 0:
            number = _STEM_IDS[stemmed] = len(_STEMS)
            _STEMS.append(stemmed)
    _WORD_IDS[word] = number
    return number


@dataclass(frozen=True)
class Tokens:
    """The words of many texts, one text after another."""

    words: list[str]  # every word of every text, lower case; SEPARATOR after each text
    numbers: np.ndarray  # each word's stem number (int32): STOP for a stop word, MARK after a text
    starts: np.ndarray  # where each text's words start in ``words``
    ends: np.ndarray  # where they end

    def text_of(self) -> np.ndarray:
        """The text (its position in the texts tokenized) of every word."""
        return np.cumsum(self.numbers == MARK) if len(self.numbers) else self.numbers

    def phrase(self, text: int) -> str:
        """``phrase`` of the text at position ``text``."""
        return " ".join(self.words[self.starts[text] : self.ends[text]])

    def vocabulary(self) -> int:
        """One more than the largest stem number these tokens may hold."""
        return len(_STEMS)


def tokenize(texts: Sequence[str]) -> Tokens:
    """The words of ``texts`` (``phrase``'s words) and the numbers of their stems."""
    joined = " \x00 ".join(texts)
    if joined.count("\x00") == len(texts) - 1:  # one pass over all the texts
        words = (joined + " \x00").lower().translate(_JOINED).split()
    else:  # a text holds a NUL: each text on its own
        words = []
        for text in texts:
            words += text.lower().translate(_PUNCTUATION).split()
            words.append(SEPARATOR)
    numbers = np.fromiter(map(_WORD_IDS.get, words, repeat(_NEW)), dtype=np.int32, count=len(words))
    for position in np.flatnonzero(numbers == _NEW).tolist():  # words never seen before
        word = words[position]
        number = _WORD_IDS.get(word)
        numbers[position] = _number(word) if number is None else number
    ends = np.flatnonzero(numbers == MARK)
    starts = np.empty_like(ends)
    starts[:1] = 0
    starts[1:] = ends[:-1] + 1
    return Tokens(words, numbers, starts, ends)


def stems(numbers: Iterable[int]) -> list[str]:
    """The stems that ``tokenize`` numbered ``numbers`` in this process (numbers are given in
    order of first sight, so two processes number differently: a stem is what they share)."""
    return [_STEMS[n] for n in numbers]
