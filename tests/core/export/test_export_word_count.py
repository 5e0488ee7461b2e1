"""The report's word counts (``tables.word_count``) count what ``str.split`` would split, fast
path or not, on texts with hostile whitespace."""

from __future__ import annotations

from bagel_studio.core.report.tables import word_count
from tests.support.random_text import random_options

PIECES = [
    "word",
    "Two words",
    " ",
    "  ",
    "\t",
    "\n",
    "\xa0",
    "\u2003",
    "\u3000",
    "\x1f",
    "\x85",
    "\u2028",
    "é",
    "",
    "x",
    "\x00",
]


WORDS = ["word", "Two words", "x", "é", "?", "ß", "a-b", " "]  # mostly single-spaced words


def test_word_count_is_what_split_counts() -> None:
    fast = 0
    for pieces in (PIECES, WORDS):
        for options in random_options(pieces, seed=13, rounds=5000, most=4):
            for texts in (options, options[:1], ()):
                assert word_count(texts) == len(" ".join(texts).split()), texts
            joined = " ".join(options)
            fast += joined.isprintable() and "  " not in joined and joined.strip() == joined
    assert fast > 500  # the fast path was taken often, and checked


def test_word_count_of_plain_texts() -> None:
    assert word_count(["Which bird sings at dawn?", "A wren"]) == 7
    assert word_count([""]) == 0
    assert word_count(["", "a"]) == 1
    assert word_count([" padded ", "b"]) == 2
