"""The text checks' fast paths decide exactly what the slow rules decide.

The near-duplicate options' text rule is difflib's ratio; rapidfuzz's Indel similarity only rules
pairs out, so it must never be below difflib's ratio. The hidden-context patterns are skipped for
stems that hold none of their words, so every stem the patterns match must pass that word test.
"""

from __future__ import annotations

import random
from difflib import SequenceMatcher

from rapidfuzz.distance import Indel

from bagel_studio.core.checks import text
from bagel_studio.core.checks.text import (
    _HIDDEN_RE,
    _XC_HIDDEN_RE,
    SIMILAR,
    _hidden_patterns,
    _Option,
    _similar_text,
)
from bagel_studio.core.domains import WIKIPEDIA, XENO_CANTO
from tests.support.random_text import random_options

WORDS = [
    "dawn",
    "chorus",
    "song",
    "call",
    "frequency",
    "host",
    "parasite",
    "flower",
    "visit",
    "nest",
    "range",
    "prey",
    "seed",
]


def _mutated(rng: random.Random, phrase: str) -> str:
    """``phrase`` with a few characters inserted, dropped or changed."""
    chars = list(phrase)
    for _ in range(rng.randint(0, 4)):
        at = rng.randrange(len(chars) + 1)
        kind = rng.choice(("insert", "drop", "change"))
        if kind == "insert" or at == len(chars):
            chars.insert(at, rng.choice("abcdeilnorst "))
        elif kind == "drop":
            del chars[at]
        else:
            chars[at] = rng.choice("abcdeilnorst ")
    return "".join(chars)


def _pairs(count: int) -> list[tuple[str, str]]:
    rng = random.Random(11)
    pairs = []
    for _ in range(count):
        first = " ".join(rng.choice(WORDS) for _ in range(rng.randint(2, 7)))
        second = _mutated(rng, first) if rng.random() < 0.8 else " ".join(rng.sample(WORDS, 4))
        pairs.append((first, second))
    return pairs


def _similar_by_difflib_alone(a: _Option, b: _Option) -> bool:
    """The similarity rule as it was written before rapidfuzz: difflib's ratio on every pair."""
    if min(len(a.phrase), len(b.phrase)) < 12:
        return False
    return SequenceMatcher(None, a.phrase, b.phrase).ratio() >= SIMILAR


def test_indel_similarity_is_never_below_difflibs_ratio() -> None:
    for first, second in _pairs(3000):
        ratio = SequenceMatcher(None, first, second).ratio()
        assert Indel.normalized_similarity(first, second) >= ratio - 1e-12, (first, second)


def test_similar_text_decides_as_difflib_alone() -> None:
    pairs = _pairs(3000)
    decided = [_similar_text(_Option(a), _Option(b)) for a, b in pairs]
    assert decided == [_similar_by_difflib_alone(_Option(a), _Option(b)) for a, b in pairs]
    assert 50 < sum(decided) < len(pairs) - 50  # both verdicts are well represented


def _hidden_phrases(rng: random.Random) -> list[str]:
    """Stems built around every kind of phrase the hidden-context patterns look for."""
    determiners = [
        "the",
        "this",
        "that",
        "these",
        "those",
        "above",
        "given",
        "provided",
        "following",
        "accompanying",
    ]
    adjectives = ["", "above ", "given ", "same ", "original ", "cited "]
    nouns = sorted(text._alternatives(text._HIDDEN_NOUNS))
    phrases = [f"{rng.choice(determiners)} {rng.choice(adjectives)}{noun}" for noun in nouns]
    phrases += [
        f"{verb} {where}"
        for verb in ("mentioned", "shown", "cited")
        for where in ("above", "earlier", "below", "here")
    ]
    phrases += [
        "according to the text",
        "this study",
        "this paper",
        "the present study",
        "the authors",
        "spectrograms",
        "sonogram",
        "recorded sound",
        "the clips",
        "this vocalisation",
        "tracks",
        "audio",
        "this call",
        "this song",
        "this sound",
        "this vocalization",
        "recorded clip",
        "the recordings",
        "files",
    ]
    return phrases


def test_every_stem_the_patterns_match_passes_the_word_test() -> None:
    rng = random.Random(5)
    matched = 0
    for phrase in _hidden_phrases(rng) * 20:
        case = rng.choice((str.lower, str.upper, str.title, str.capitalize))
        before = rng.choice(("", "What, in ", "(", "Per '", "How does 3 "))
        after = rng.choice(("", "?", ", said", "'s value?", ")."))
        stem = before + case(phrase) + after
        for domain in (WIKIPEDIA, XENO_CANTO):
            general, xeno_canto = _hidden_patterns(stem, domain)
            if _HIDDEN_RE.search(stem):
                matched += 1
                assert general, (stem, domain)
            if domain == XENO_CANTO and _XC_HIDDEN_RE.search(stem):
                matched += 1
                assert xeno_canto, (stem, domain)
    assert matched > 500


def test_stems_without_those_words_skip_the_patterns() -> None:
    def run(stem: str, domain: str) -> tuple[bool, bool]:
        return _hidden_patterns(stem, domain)

    assert run("Which bird sings the dawn chorus in wetland forests?", WIKIPEDIA) == (False, False)
    assert run("Which call is heard in this recording?", XENO_CANTO) == (True, True)
    assert run("Which call is heard on this track?", XENO_CANTO) == (False, True)
    assert run("How long is this song?", XENO_CANTO) == (False, True)
    assert run("Which call is heard at dawn?", WIKIPEDIA) == (False, False)
    assert run("Which call is heard at dawn?", XENO_CANTO) == (False, False)  # no "this call"
    assert run("How long is this call in the data?", XENO_CANTO) == (True, True)
    assert run("Qu'indique l'étude citée?", WIKIPEDIA) == (True, False)  # not ASCII: they run


def test_structural_fast_path_decides_what_the_normalised_rule_decides() -> None:
    """``structural._sound`` folds the options joined when their whitespace is already plain;
    on any options, plain or hostile, it says what normalising each one says."""
    from bagel_studio.core.checks.structural import _norm, _sound
    from bagel_studio.core.model import ItemContent

    def rule(options: tuple[str, ...]) -> bool:
        return len({_norm(o) for o in options} - {""}) == len(options)

    pieces = [
        "a",
        "A",
        "b",
        "ß",
        "SS",
        "ss",
        " ",
        "  ",
        "\t",
        "\n",
        "\x00",
        "\xa0",
        "\u2003",
        "\x1f",
        "é",
        "É",
        "",
        "x y",
        "X  Y",
        "İ",
        "i̇",
    ]
    decided = set()
    for options in random_options(pieces, seed=11, rounds=4000):
        content = ItemContent("Which?", options, 1, "Habitat", None)
        assert _sound("Wikipedia", content) == rule(options), options
        decided.add(rule(options))
    assert decided == {True, False}
