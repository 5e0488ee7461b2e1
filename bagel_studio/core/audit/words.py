"""Words for the audit: the checks' light stemming (``checks.words.stem``) over a tokenizer made
for reading a whole project at once.

An audit reads every stem and option of a project (a million texts at 200,000 items), so the
texts of a batch are tokenized together (``tokenize``): joined into one string, lower-cased,
encoded in UTF-8, stripped of punctuation (``bytes.translate``: punctuation becomes space) and
split in a few calls, each distinct word stemmed once in the process's life, and every word
looked up in C. Content words come back as small integers (one per distinct stem, stop words as
-1), ready for numpy.
"""

from __future__ import annotations

import string
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property
from itertools import repeat

import numpy as np

from bagel_studio.core.checks.words import STOP_WORDS, stem

_MARKS = string.punctuation + "‘’“”–—…·•°×"  # what separates words like a space
_PUNCTUATION = str.maketrans(dict.fromkeys(_MARKS, " "))
# ``tokenize`` works on UTF-8 bytes: the marks and spaces beyond ASCII are made spaces first (in
# the text), then every ASCII mark and space (in the bytes, where a multi-byte character never
# holds a byte below 128), so the bytes split into the very words the text does.
_WIDE = [c for c in _MARKS if ord(c) > 127] + [
    c
    for c in map(chr, range(128, 0x3001))
    if c.isspace()  # all of them are below U+3001
]
_PLAIN = bytes(32 if b < 128 and (chr(b) in _MARKS or chr(b).isspace()) else b for b in range(256))
# Joined texts are separated by a NUL between spaces, which becomes the word "#": no text's word
# can be "#" (punctuation becomes space), so the separator is never taken for a word.
_JOINED = b"#" + _PLAIN[1:]
SEPARATOR = b"#"
STOP = -1  # the number of a stop word
MARK = -2  # the number of the separator between two texts
_NEW = -3  # the number of a word not numbered yet
# Lower-case word (UTF-8) -> the number of its stem (STOP: a stop word; MARK: the separator).
_WORD_IDS: dict[bytes, int] = {SEPARATOR: MARK}
_STEM_IDS: dict[str, int] = {}  # stem -> its number
_STEMS: list[str] = []  # number -> its stem


def phrase(text: str) -> str:
    """``text`` as lower-case words separated by single spaces (for matching phrases)."""
    return " ".join(text.lower().translate(_PUNCTUATION).split())


def _number(word: bytes) -> int:
    text = word.decode("utf-8", "surrogatepass")
    if text in STOP_WORDS or text.strip("'") in STOP_WORDS:
        number = STOP
    else:
        stemmed = stem(text)
        number = _STEM_IDS.get(stemmed, -1)
        if number < 0:
            number = _STEM_IDS[stemmed] = len(_STEMS)
            _STEMS.append(stemmed)
    _WORD_IDS[word] = number
    return number


def _words(text: str, table: bytes) -> list[bytes]:
    """The words of ``text`` (lower case already), in UTF-8, by the byte table ``table``."""
    if not text.isascii():
        for wide in _WIDE:
            if wide in text:
                text = text.replace(wide, " ")
    return text.encode("utf-8", "surrogatepass").translate(table).split()


@dataclass(frozen=True)
class Tokens:
    """The words of many texts, one text after another."""

    words: list[bytes]  # every word of every text, lower case, UTF-8; SEPARATOR after each
    numbers: np.ndarray  # each word's stem number (int32): STOP for a stop word, MARK after a text
    starts: np.ndarray  # where each text's words start in ``words``
    ends: np.ndarray  # where they end

    def text_of(self) -> np.ndarray:
        """The text (its position in the texts tokenized) of every word."""
        return np.cumsum(self.numbers == MARK) if len(self.numbers) else self.numbers

    def phrase(self, text: int) -> str:
        """``phrase`` of the text at position ``text``."""
        return self.phrases[text].decode("utf-8", "surrogatepass")

    @cached_property
    def phrases(self) -> list[bytes]:
        """``phrase`` of every text, in UTF-8 (made at once: "a b # c # # d #" is split at
        its separators, and the spaces around each piece stripped)."""
        return list(map(bytes.strip, b" ".join(self.words).split(SEPARATOR)[:-1]))


def tokenize(texts: Sequence[str]) -> Tokens:
    """The words of ``texts`` (``phrase``'s words) and the numbers of their stems."""
    joined = " \x00 ".join(texts)
    if joined.count("\x00") == len(texts) - 1:  # one pass over all the texts
        words = _words((joined + " \x00").lower(), _JOINED)
    else:  # a text holds a NUL: each text on its own
        words = []
        for text in texts:
            words += _words(text.lower(), _PLAIN)
            words.append(SEPARATOR)
    numbers = np.fromiter(map(_WORD_IDS.get, words, repeat(_NEW)), dtype=np.int32, count=len(words))
    new = np.flatnonzero(numbers == _NEW)
    if len(new):  # words never seen before: each numbered once, then looked up again
        found = list(map(words.__getitem__, new.tolist()))
        for word in set(found):
            _number(word)
        numbers[new] = np.fromiter(map(_WORD_IDS.__getitem__, found), np.int32, len(found))
    ends = np.flatnonzero(numbers == MARK)
    starts = np.empty_like(ends)
    starts[:1] = 0
    starts[1:] = ends[:-1] + 1
    return Tokens(words, numbers, starts, ends)


def stems(numbers: Iterable[int]) -> list[str]:
    """The stems that ``tokenize`` numbered ``numbers`` in this process (numbers are given in
    order of first sight, so two processes number differently: a stem is what they share)."""
    return [_STEMS[n] for n in numbers]
