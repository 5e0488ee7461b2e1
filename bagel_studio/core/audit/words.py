"""Words for the audit: the checks' light stemming (``checks.words.stem``) over a tokenizer made
for reading a whole project at once.

An audit reads every stem and option of a project (a million texts at 200,000 items), so the
texts of a batch are tokenized together (``tokenize``): joined into one string, lower-cased,
encoded in UTF-8 and stripped of punctuation (``bytes.translate``: punctuation becomes space),
then numbered in numpy without a Python object per word (``_numbered``: the words' bytes hashed
and sorted, each distinct word looked up once per batch and stemmed once in the process's life).
Content words come back as small integers (one per distinct stem, stop words as -1), ready for
numpy.
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
# The same for ASCII text not lower-cased yet (str.lower and bytes.lower agree on ASCII).
_JOINED_LOWER = bytes(_JOINED[b] if not 65 <= b <= 90 else b + 32 for b in range(256))
SEPARATOR = b"#"
_SPACE = 32
_LONG = 16  # words up to this many bytes are hashed in numpy (``_numbered``)
_MIX_FIRST = np.uint64(0x9E3779B97F4A7C15)  # odd constants of splitmix64 and xxhash
_MIX_SECOND = np.uint64(0xC2B2AE3D27D4EB4F)
_PADDING = " " * _LONG
_POSITIONS = np.arange(0, dtype=np.uint64)  # ``_positions``
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


@dataclass(frozen=True)
class Tokens:
    """The words of many texts, one text after another."""

    buffer: bytes  # the texts lower case, UTF-8, marks made spaces, " # " after each (``_buffer``)
    numbers: np.ndarray  # each word's stem number (int32): STOP for a stop word, MARK after a text
    starts: np.ndarray  # where each text's words start in ``numbers``
    ends: np.ndarray  # where they end

    def text_of(self) -> np.ndarray:
        """The text (its position in the texts tokenized) of every word."""
        return np.cumsum(self.numbers == MARK) if len(self.numbers) else self.numbers

    def phrase(self, text: int) -> str:
        """``phrase`` of the text at position ``text``."""
        return self.phrases[text]

    @cached_property
    def phrases(self) -> list[str]:
        """``phrase`` of every text (made at once: the buffer's runs of spaces made one, the
        whole decoded, split at its separators, and the spaces around each piece stripped)."""
        if not self.buffer:
            return []
        text = np.frombuffer(self.buffer, dtype=np.uint8)
        space = text == _SPACE
        kept = ~space  # a space is kept unless it follows a space
        kept[1:] |= ~space[:-1]
        joined = text[kept].tobytes().decode("utf-8", "surrogatepass")
        return list(map(str.strip, joined.split("#")[:-1]))


def tokenize(texts: Sequence[str]) -> Tokens:
    """The words of ``texts`` (``phrase``'s words) and the numbers of their stems."""
    buffer = _buffer(texts)
    numbers = _numbered(buffer)
    if numbers is None:  # a NUL in a text, or a hash shared by two words
        numbers = looked_up(buffer.split())
    ends = np.flatnonzero(numbers == MARK)
    starts = np.empty_like(ends)
    starts[:1] = 0
    starts[1:] = ends[:-1] + 1
    return Tokens(buffer, numbers, starts, ends)


def _buffer(texts: Sequence[str]) -> bytes:
    """``texts`` lower case, in UTF-8, every mark and space made a space (byte 32), each text
    followed by " #", after a space and before _LONG of them (room to read eight bytes at any
    word's ninth): its words are ``bytes.split``'s words of it, the separators words "#"."""
    joined = " \x00 ".join(texts)
    if joined.count("\x00") == len(texts) - 1:  # one pass over all the texts
        if joined.isascii():  # lower-cased by the table
            ascii = b"".join([b" ", joined.encode("ascii"), b" \x00", _PADDING.encode()])
            return ascii.translate(_JOINED_LOWER)
        return _translated("".join([" ", joined, " \x00", _PADDING]).lower(), _JOINED)
    # A text holds a NUL: each text on its own.
    parts = [_translated(text.lower(), _PLAIN) + b" # " for text in texts]
    return b"".join([b" ", *parts, _PADDING.encode()])


def _translated(text: str, table: bytes) -> bytes:
    """``text`` (lower case already) in UTF-8, its marks and spaces made spaces by the byte table
    ``table``."""
    if not text.isascii():
        for wide in _WIDE:
            if wide in text:
                text = text.replace(wide, " ")
    return text.encode("utf-8", "surrogatepass").translate(table)


def looked_up(words: list[bytes]) -> np.ndarray:
    """The number of each word (``tokenize``'s), looked up one by one: the plain way, which
    ``_numbered`` does in numpy."""
    numbers = np.fromiter(map(_WORD_IDS.get, words, repeat(_NEW)), dtype=np.int32, count=len(words))
    new = np.flatnonzero(numbers == _NEW)
    if len(new):  # words never seen before: each numbered once, then looked up again
        found = list(map(words.__getitem__, new.tolist()))
        for word in set(found):
            _number(word)
        numbers[new] = np.fromiter(map(_WORD_IDS.__getitem__, found), np.int32, len(found))
    return numbers


def _numbered(buffer: bytes, hash_bits: int | None = None) -> np.ndarray | None:
    """``looked_up(buffer.split())`` without a Python object per word: the words are found in
    numpy (the buffer's only space is byte 32), each word up to 16 bytes held as two integers
    (its bytes, zero-padded), hashed, and the hashes sorted, so that only the first word of each
    hash is looked up in Python. Words sharing a hash are checked to be the same bytes; where
    two are not (a chance of about 2**-47 per pair of distinct words in a batch of a hundred
    thousand words; ``hash_bits`` fewer, to test that), or a word holds a NUL (then its padding
    could not be told from it), None: the caller looks the words up plainly. Longer words are
    looked up one by one. (The arrays are made in place where they can be: at a hundred
    thousand words each new one costs more in fresh memory than in arithmetic)."""
    if b"\x00" in buffer:
        return None
    text = np.frombuffer(buffer, dtype=np.uint8)  # " " first, _LONG spaces last (``_buffer``)
    in_word = text != _SPACE
    edges = np.flatnonzero(in_word[1:] != in_word[:-1])
    del in_word
    edges += 1
    starts, ends = edges[0::2], edges[1::2]  # each word's bytes: buffer[start:end]
    count = len(starts)
    numbers = np.empty(count, dtype=np.int32)
    lengths = np.subtract(ends, starts, dtype=np.int32)
    at: np.ndarray | None = None  # the words up to _LONG bytes (None: all of them)
    if count and lengths.max() > _LONG:
        longer = lengths > _LONG
        for position, start, end in zip(
            np.flatnonzero(longer).tolist(),
            starts[longer].tolist(),
            ends[longer].tolist(),
            strict=True,
        ):
            numbers[position] = _number_of(buffer[start:end])
        at = np.flatnonzero(~longer)
        starts, lengths = starts[at], lengths[at]
    size = lengths.astype(np.uint8)
    # Each word's first and next eight bytes as integers (little-endian), the bytes after the
    # word shifted out (in place, with byte-sized shifts: big arrays cost in fresh memory).
    eights = np.ndarray((len(text) - 15,), dtype="<u8", buffer=text, strides=(1,))
    first = eights[starts]
    shift = np.minimum(size, 8)
    np.subtract(8, shift, out=shift)
    shift <<= 3  # 8 * (8 - bytes kept): 0 to 56
    first <<= shift
    first >>= shift
    second = np.ndarray(eights.shape, dtype="<u8", buffer=text, offset=8, strides=(1,))[starts]
    np.subtract(16, size, out=shift)
    np.minimum(shift, 7, out=shift)
    shift <<= 3
    second <<= shift
    second >>= shift
    second *= size > 8
    # A multiplicative hash in the high bits, each word's position in the low bits: sorted, the
    # words of a hash are neighbours.
    keys = np.multiply(second, _MIX_SECOND)
    keys ^= first
    keys *= _MIX_FIRST
    position_bits = max(count - 1, 1).bit_length()
    keys >>= np.uint64(position_bits if hash_bits is None else 64 - hash_bits)
    keys <<= np.uint64(position_bits)
    keys |= _positions(len(keys))
    keys.sort()
    order = (keys & np.uint64((1 << position_bits) - 1)).view(np.int64)
    keys >>= np.uint64(position_bits)
    heads = np.empty(len(keys), dtype=bool)
    heads[:1] = True
    np.not_equal(keys[1:], keys[:-1], out=heads[1:])
    ordered = np.take(first, order, out=keys, mode="clip")  # (in range: no copy)
    same = ordered[1:] == ordered[:-1]
    ordered = np.take(second, order, out=first, mode="clip")
    same &= ordered[1:] == ordered[:-1]
    if not (heads[1:] | same).all():
        return None
    word_at = order[heads]
    first_at = starts[word_at]
    found = [
        _number_of(buffer[start:end])
        for start, end in zip(
            first_at.tolist(), (first_at + lengths[word_at]).tolist(), strict=True
        )
    ]
    runs = np.diff(np.append(np.flatnonzero(heads), len(heads)))
    numbers[order if at is None else at[order]] = np.repeat(np.array(found, np.int32), runs)
    return numbers


def _positions(count: int) -> np.ndarray:
    """0 to ``count`` - 1 (uint64), from an array made once and only read."""
    global _POSITIONS
    if len(_POSITIONS) < count:
        _POSITIONS = np.arange(max(count, 2 * len(_POSITIONS)), dtype=np.uint64)
    return _POSITIONS[:count]


def _number_of(word: bytes) -> int:
    number = _WORD_IDS.get(word)
    return _number(word) if number is None else number


def stems(numbers: Iterable[int]) -> list[str]:
    """The stems that ``tokenize`` numbered ``numbers`` in this process (numbers are given in
    order of first sight, so two processes number differently: a stem is what they share)."""
    return [_STEMS[n] for n in numbers]
