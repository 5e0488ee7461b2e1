"""Checks on the wording of any item: near-duplicate options, the gold answer leaked into the
stem, and stems that point at context a closed-book reader never sees."""

from __future__ import annotations

import re
from difflib import SequenceMatcher
from functools import lru_cache

from rapidfuzz.distance import Indel

from bagel_studio.core.checks.words import (
    WORD_RE,
    stem_set,
    words,
)
from bagel_studio.core.domains import LETTERS, XENO_CANTO
from bagel_studio.core.model import Flag, Item, Severity
from bagel_studio.core.taxonomy import parse_name

DUPLICATE_OPTIONS = "duplicate-options"
GOLD_IN_STEM = "gold-in-stem"
HIDDEN_CONTEXT = "hidden-context"

DESCRIPTIONS = {
    DUPLICATE_OPTIONS: "Two options say the same thing in different words (same content words or "
    "nearly the same text), so two answers are defensible.",
    GOLD_IN_STEM: "The gold answer's text appears in the stem, so the stem gives it away.",
    HIDDEN_CONTEXT: "The stem refers to something the reader never sees (the passage, the record, "
    "the source, the spectrogram, the recording...); items must be self-contained.",
}

_HIDDEN_NOUNS = (
    r"passages?|texts?|records?|sources?|excerpts?|extracts?|articles?|paragraphs?|summary|"
    r"tables?|rows?|data|datasets?|data set|figures?|abstracts?|documents?|context|spectrograms?|"
    r"sonograms?|recordings?|clips?|files?|audio|evidence|snippets?|entry|entries|metadata|"
    r"description|information"
)
_HIDDEN_RE = re.compile(
    rf"\b(?:the|this|that|these|those|above|given|provided|following|accompanying|attached|"
    rf"preceding)\s+(?:(?:above|given|provided|following|same|original|cited)\s+)?"
    rf"(?:{_HIDDEN_NOUNS})\b|\b(?:mentioned|described|stated|shown|given|listed|cited) "
    rf"(?:above|earlier|below|here)\b|\baccording to (?:the|this|that)(?:\s+[a-z]+)?\b|"
    rf"\bthis (?:study|paper)\b|"
    rf"\bthe (?:present|current) study\b|\bthe authors\b|\bspectrograms?\b|\bsonograms?\b",
    re.IGNORECASE,
)


def _alternatives(pattern: str) -> set[str]:
    """The words an alternation of words such as ``passages?|data set`` can match."""
    found: set[str] = set()
    for alternative in pattern.split("|"):
        for word in alternative.split():
            found |= {word[:-2], word[:-1]} if word.endswith("s?") else {word}
    return found


# Every match of _HIDDEN_RE holds one of these words (the nouns above, the verbs before "above"
# or "earlier", "according", "study"/"paper", "authors"), and every match of _XC_HIDDEN_RE one
# of the second set, or "this" and one of the third; _hidden_patterns skips a pattern for stems
# that hold none of its words.
_HIDDEN_WORDS = frozenset(
    _alternatives(_HIDDEN_NOUNS)
    | {"mentioned", "described", "stated", "shown", "given", "listed", "cited", "according"}
    | {"study", "paper", "authors", "spectrogram", "spectrograms", "sonogram", "sonograms"}
)
_XC_HIDDEN_WORDS = frozenset(_alternatives("recordings?|recorded|clips?|audio|files?|tracks?"))
_XC_AFTER_THIS = frozenset({"sound", "call", "song", "vocalization", "vocalisation"})
_LETTER_RUNS = re.compile(r"[a-z]+")
_XC_HIDDEN_RE = re.compile(
    r"\b(?:recordings?|recorded (?:clip|sound|audio)|clips?|audio|files?|tracks?|"
    r"this (?:sound|call|song|vocali[sz]ation))\b",
    re.IGNORECASE,
)


def text_flags(item: Item) -> list[Flag]:
    """The wording checks of any item: ``duplicate-options``, ``gold-in-stem`` and
    ``hidden-context``."""
    options = [_option(o) for o in item.content.options]
    flags = [
        _duplicate_options(item, options),
        _gold_in_stem(item, options),
        _hidden_context(item),
    ]
    return [f for f in flags if f is not None]


def _letter(index: int) -> str:
    return LETTERS[index] if index < len(LETTERS) else str(index + 1)


class _Option:
    """What the text checks compare of one option, computed once per distinct option text (the
    same options recur across many items: species, interaction types, frequency bands)."""

    __slots__ = ("empty", "folded", "is_name", "numbers", "phrase", "stems", "text")

    def __init__(self, text: str) -> None:
        found = WORD_RE.findall(text)  # words(text)
        self.text = text
        self.empty = not text.strip()
        self.folded = " ".join(text.split()).casefold()
        self.stems = sorted(stem_set(found))
        # A scientific name starts with a capital A-Z (parse_name says no to anything else).
        first = text.lstrip()[:1]
        self.is_name = "A" <= first <= "Z" and parse_name(text) is not None
        self.numbers = _NUMBER.findall(text)
        self.phrase = " ".join(found).lower()  # normalized_phrase(text), from the same words


@lru_cache(maxsize=65536)
def _option(text: str) -> _Option:
    return _Option(text)


def forget_options() -> None:
    """Drop the options prepared by a bulk run. Freed at once by reference counting, they are
    not left for the cyclic collector to walk (tens of thousands of objects, on every full
    collection and once more when the process exits: 0.3 s of CPU after 11,852 items)."""
    _option.cache_clear()


_NUMBER = re.compile(r"\d+")
SIMILAR = 0.93  # SequenceMatcher ratio from which two option texts count as nearly the same


def _near_same(a: _Option, b: _Option) -> bool:
    """Same content words (order, case, articles and plurals aside) or nearly the same text.

    Distinct scientific names ("Phoenicopterus andinus" / "Phoenicoparrus andinus") and options
    whose numbers differ ("~3-5 kHz" / "~6-8 kHz") are never near-same. The cheap tests come
    first; the similarity ratio is computed only for the few pairs they leave open.
    """
    if a.folded == b.folded:
        return False  # identical: the structural check options-not-distinct reports it
    if a.stems and a.stems == b.stems:
        return True
    if (a.is_name and b.is_name) or a.numbers != b.numbers:
        return False
    norm_a, norm_b = a.phrase, b.phrase
    if min(len(norm_a), len(norm_b)) < 12:
        return False
    # The rule is difflib's ratio (the flags must not change). Its matching blocks are a common
    # subsequence, so rapidfuzz's Indel similarity (the longest common subsequence, in C) is an
    # upper bound of it: only the rare pairs that bound does not rule out pay for difflib.
    if not Indel.normalized_similarity(norm_a, norm_b, score_cutoff=SIMILAR - _MARGIN):
        return False
    return SequenceMatcher(None, norm_a, norm_b).ratio() >= SIMILAR


_MARGIN = 1e-9  # float rounding of the bound must never rule out a pair difflib would keep


def _duplicate_options(item: Item, prepared: list[_Option]) -> Flag | None:
    options = item.content.options
    for i in range(len(options)):
        for j in range(i + 1, len(options)):
            first, second = prepared[i], prepared[j]
            if not first.empty and not second.empty and _near_same(first, second):
                return Flag(
                    DUPLICATE_OPTIONS,
                    Severity.WARNING,
                    f"Options {_letter(i)} and {_letter(j)} say nearly the same thing: "
                    f"{options[i].strip()!r} / {options[j].strip()!r}",
                    {"options": [_letter(i), _letter(j)]},
                )
    return None


def _gold_in_stem(item: Item, options: list[_Option]) -> Flag | None:
    content = item.content
    gold = content.answer_text
    if not gold or not gold.strip():
        return None
    gold_phrase = options[content.answer_index or 0].phrase
    if not gold_phrase:
        return None
    question = words(content.question)  # normalized_phrase and content_stems from one pass
    if f" {gold_phrase} " in f" {' '.join(question).lower()} ":
        how = "verbatim"
    else:
        gold_stems = options[content.answer_index or 0].stems
        if len(gold_stems) < 2 or not stem_set(question).issuperset(gold_stems):
            return None
        how = "all its content words"
    # A phrase every option shares (the species named in each) gives nothing away.
    others = [o for i, o in enumerate(options) if i != content.answer_index]
    if others and all(f" {gold_phrase} " in f" {o.phrase} " for o in others):
        return None
    letter = content.answer_letter or "?"
    return Flag(
        GOLD_IN_STEM,
        Severity.WARNING,
        f"The stem contains the gold answer {letter} ({how}): {gold.strip()!r}",
        {"options": [letter], "match": how},
    )


def _hidden_patterns(question: str, domain: str) -> tuple[bool, bool]:
    """Whether _HIDDEN_RE, and whether _XC_HIDDEN_RE (Xeno-canto stems only), can match: False
    when the stem holds none of the words every match of the pattern contains. Decided on the
    stem's runs of letters, which for ASCII text are exactly the words the patterns' word
    boundaries delimit (other text always goes on to the patterns: case folding beyond ASCII is
    the regex engine's business)."""
    xeno_canto = domain == XENO_CANTO
    if not question.isascii():
        return True, xeno_canto
    present = set(_LETTER_RUNS.findall(question.lower()))
    if xeno_canto:
        xeno_canto = not _XC_HIDDEN_WORDS.isdisjoint(present) or (
            "this" in present and not _XC_AFTER_THIS.isdisjoint(present)
        )
    return not _HIDDEN_WORDS.isdisjoint(present), xeno_canto


def _may_hide_context(question: str, domain: str) -> bool:
    """False when no pattern of the hidden-context check can match (see _hidden_patterns)."""
    return any(_hidden_patterns(question, domain))


def _hidden_context(item: Item) -> Flag | None:
    question = item.content.question
    general, xeno_canto = _hidden_patterns(question, item.domain)
    found = [m.group(0) for m in _HIDDEN_RE.finditer(question)] if general else []
    if xeno_canto:
        found += [m.group(0) for m in _XC_HIDDEN_RE.finditer(question)]
    if not found:
        return None
    unique = list(dict.fromkeys(f.lower() for f in found))
    quoted = ", ".join(f'"{f}"' for f in unique)
    return Flag(
        HIDDEN_CONTEXT,
        Severity.WARNING,
        f"The stem refers to context the reader cannot see: {quoted}",
        {"phrases": unique},
    )
