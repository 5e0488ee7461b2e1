"""The patterns run over whole stems look at a word's first letter before trying their
alternatives, ``\\b(?=[...])``: the letters must be every alternative's first, so that the look
rules out no match. Each pattern is compared with itself without the look on the words its own
text spells, alone and in twos, threes and fours (in three cases)."""

from __future__ import annotations

import re
from itertools import product

import pytest

from bagel_studio.core.checks import interactions, xenocanto

PATTERNS = {
    "stem types": xenocanto._STEM_TYPES,
    "call words": xenocanto._SOUND_WORDS[0][0],
    "song words": xenocanto._SOUND_WORDS[1][0],
    "vague stem": interactions._VAGUE_STEM_RE,
    "leaky": interactions.LEAKY_RE,
    "specific": interactions._SPECIFIC_RE,
}
_LOOK = re.compile(r"^\\b\(\?=\[[a-z]+\]\)")


def _texts(source: str) -> list[str]:
    """Every word the pattern's text spells, every two of them run together, apart and
    hyphenated, and its runs of three and four words as written ("ecologically related to")."""
    written = re.findall(r"[a-z]+", source)
    words = sorted(set(written))
    pairs = [f"{a}{b}" for a, b in product(words, words)]
    pairs += [f"{a}{joint}{b}" for a, b in product(words, words) for joint in " -"]
    runs = [" ".join(written[i : i + n]) for n in (3, 4) for i in range(len(written))]
    texts = words + pairs + runs
    return texts + [t.upper() for t in texts] + [t.title() for t in texts]


@pytest.mark.parametrize("name", PATTERNS)
def test_the_first_letters_rule_out_no_match(name: str) -> None:
    pattern = PATTERNS[name]
    assert _LOOK.match(pattern.pattern), "the pattern starts with its look at the first letter"
    plain = re.compile(_LOOK.sub(r"\\b", pattern.pattern), pattern.flags)
    texts = _texts(plain.pattern)
    found = [[m.span() for m in pattern.finditer(t)] for t in texts]
    assert found == [[m.span() for m in plain.finditer(t)] for t in texts]
    assert any(found), "the texts hold matches"


def test_a_missing_letter_would_be_found() -> None:
    # the comparison fails for a look that leaves out an alternative's first letter
    pattern = xenocanto._STEM_TYPES
    narrowed = re.compile(pattern.pattern.replace("[acdeprst]", "[acdeprs]"), pattern.flags)
    plain = re.compile(_LOOK.sub(r"\\b", pattern.pattern), pattern.flags)
    texts = _texts(plain.pattern)
    assert [[m.span() for m in narrowed.finditer(t)] for t in texts] != [
        [m.span() for m in plain.finditer(t)] for t in texts
    ]
