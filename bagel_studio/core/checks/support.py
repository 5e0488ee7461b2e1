"""Lexical support of an answer in the evidence an item was generated from.

An option is supported by a sentence of the evidence when the sentence holds the option's content
words (stop words removed, lightly stemmed) and its quantities (``checks.quantities``: "More than
2,500" is held by "2 500 species", "About 40%" is not held by "within 40 km"). The words an
option shares with the stem or with every other option say nothing about it and are left out.
This is deliberately simple: it is deterministic, fast enough to run over every item, and its
verdicts can be checked by eye, since ``support_spans`` gives the sentences it relied on (the
desk highlights them) and ``OptionSupport`` the words and numbers it found and missed.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from bagel_studio.core.checks.quantities import Quantity, may_hold_quantity, quantities
from bagel_studio.core.checks.words import WORD_RE, content_stems, stem

SUPPORTED = 0.999  # share of an option's words one sentence must hold to support a distractor
GOLD_MIN = 0.5  # below this share the gold answer counts as unsupported
SPAN_MIN = 0.5  # weakest support still worth highlighting
MAX_SPANS = 3

# A sentence ends at ., ! or ? (then closing quotes or brackets, space and a capital or digit),
# or at a line break. Group 1 or 2 is the separator between two sentences; the punctuation is
# matched rather than looked behind for, so that the scan jumps from candidate to candidate.
_SENTENCE_END = re.compile(r"[.!?]([\"')\]]*\s+)(?=[\"'(\[]?[A-Z0-9])|(\n+)")
_ABBREVIATIONS = frozenset(
    {
        "e.g.",
        "i.e.",
        "c.",
        "ca.",
        "approx.",
        "cf.",
        "al.",
        "sp.",
        "spp.",
        "vs.",
        "no.",
        "fig.",
        "st.",
        "mt.",
        "dr.",
        "mr.",
        "mrs.",
    }
)


_TAIL = 1 + max(len(a) for a in _ABBREVIATIONS)  # characters enough to hold any of them
_INITIAL = re.compile(r"[a-z]\.")


PREFIX = 6  # letters two long stems share to count as one word's forms ("predation"/"predator")
# Adjectives of biology and the plain words they are made of, as stems: a text says "active at
# night" as often as "nocturnal", "eats fruit" as often as "frugivorous".
_PLAIN_WORDS: dict[str, tuple[str, ...]] = {
    stem(adjective): tuple(stem(w) for w in words.split())
    for adjective, words in {
        "nocturnal": "night nights",
        "diurnal": "day daytime",
        "crepuscular": "dusk dawn twilight",
        "arboreal": "tree trees",
        "terrestrial": "ground land",
        "aquatic": "water",
        "marine": "sea ocean",
        "carnivorous": "meat flesh",
        "carnivore": "meat flesh",
        "herbivorous": "plant plants vegetation",
        "herbivore": "plant plants vegetation",
        "insectivorous": "insect insects",
        "frugivorous": "fruit fruits",
        "piscivorous": "fish",
        "granivorous": "seed seeds",
        "solitary": "alone",
        "gregarious": "group groups",
        "venomous": "venom",
        "subterranean": "underground burrow burrows",
        "migratory": "migrate migration",
    }.items()
}


# Words of change, as stems: "unaffected" is "not altered", "not changed", "no effect".
_CHANGES = frozenset(
    stem(w)
    for w in ("affect", "alter", "change", "influence", "modify", "modified", "impact", "effect")
)
_NEGATION = re.compile(r"\b(?:not|no|never|without)\b|n['’]t\b", re.IGNORECASE)


@dataclass(frozen=True)
class SentenceIndex:
    """A text split into sentences, with the sentences each stem occurs in."""

    spans: tuple[tuple[int, int], ...]
    postings: dict[str, list[int]]  # stem -> ascending sentence numbers; read-only once built
    text: str = ""
    _found: dict[str, object] = field(default_factory=dict, compare=False, repr=False)

    def holds(self, sentence: int, stem_: str) -> bool:
        numbers = self.postings.get(stem_, ())
        at = bisect_left(numbers, sentence)
        return at < len(numbers) and numbers[at] == sentence

    def sentences_of(self, stem_: str, *, forms: bool = False) -> set[int]:
        """The sentences holding ``stem_`` (with ``forms``, or another stem of seven letters or
        more that starts with the same six, "predator" for "predation", or the plain word a
        biology adjective is made of, "night" for "nocturnal")."""
        found = set(self.postings.get(stem_, ()))
        if forms:
            if stem_[:2] == "un" and stem_[2:] in _CHANGES:
                found |= self._negated_change()
            if len(stem_) > PREFIX:
                for other in self.prefixes().get(stem_[:PREFIX], ()):
                    found.update(self.postings[other])
            for plain in _PLAIN_WORDS.get(stem_, ()):
                found.update(self.postings.get(plain, ()))
        return found

    def _negated_change(self) -> set[int]:
        """Sentences saying no change: a word of change and a negation ("was not altered",
        "had no effect"), for "unaffected", "unchanged", "unaltered"."""
        found: set[int] = set()
        for change in _CHANGES:
            for number in self.postings.get(change, ()):
                start, end = self.spans[number]
                if _NEGATION.search(self.text, start, end):
                    found.add(number)
        return found

    def prefixes(self) -> dict[str, list[str]]:
        """Stems of seven letters or more by their first six (made once, when first asked)."""
        made = self._found.get("prefixes")
        if made is None:
            table: dict[str, list[str]] = {}
            for word in self.postings:
                if len(word) > PREFIX:
                    table.setdefault(word[:PREFIX], []).append(word)
            self._found["prefixes"] = made = table
        assert isinstance(made, dict)
        return made

    def quantities(self) -> list[tuple[int, Quantity]]:
        """(sentence, quantity) of every quantity of the text (found once, when first asked)."""
        made = self._found.get("quantities")
        if made is None:
            found: list[tuple[int, Quantity]] = []
            if may_hold_quantity(self.text):
                for number, (start, end) in enumerate(self.spans):
                    found += [(number, q) for q in quantities(self.text[start:end])]
            self._found["quantities"] = made = found
        assert isinstance(made, list)
        return made

    def common(self) -> frozenset[str]:
        """Stems in more than a tenth of the sentences of a text of twenty or more (the
        article's subject, "species"): a sentence holding them is not thereby about a stem."""
        made = self._found.get("common")
        if made is None:
            count = len(self.spans)
            limit = max(2, count // 10)
            made = frozenset(
                s for s, numbers in self.postings.items() if count >= 20 and len(numbers) > limit
            )
            self._found["common"] = made
        assert isinstance(made, frozenset)
        return made


def split_sentences(text: str) -> list[tuple[int, int]]:
    """(start, end) of each sentence (headings and list lines count as sentences)."""
    spans: list[tuple[int, int]] = []
    start = 0
    for match in _SENTENCE_END.finditer(text):
        group = 1 if match.group(1) is not None else 2
        cut, after = match.span(group)
        if "\n" not in match.group(group) and _ends_with_abbreviation(text, start, cut):
            continue
        _add_span(text, start, cut, spans)
        start = after
    _add_span(text, start, len(text), spans)
    return spans


def _ends_with_abbreviation(text: str, start: int, end: int) -> bool:
    """True when ``text[start:end]`` ends with an abbreviation ("e.g.", "sp.", "J.").

    Only the tail is looked at: a last word longer than the tail cannot be an abbreviation.
    """
    tail = text[max(start, end - _TAIL) : end].rsplit(None, 1)
    last = tail[-1].lower() if tail else ""
    return last in _ABBREVIATIONS or bool(_INITIAL.fullmatch(last))


def _add_span(text: str, start: int, end: int, spans: list[tuple[int, int]]) -> None:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    if end > start:
        spans.append((start, end))


@lru_cache(maxsize=256)
def sentence_index(text: str) -> SentenceIndex:
    """The index of ``text``, computed once per distinct text (cached)."""
    spans = split_sentences(text)
    postings: defaultdict[str, list[int]] = defaultdict(list)
    findall = WORD_RE.findall
    for number, (start, end) in enumerate(spans):
        for s in set(map(stem, set(findall(text, start, end)))):  # each word form stemmed once
            postings[s].append(number)
    return SentenceIndex(tuple(spans), dict(postings), text)


@dataclass(frozen=True)
class Support:
    """How well one evidence text supports one option: the share of its words found together
    in one sentence, and the best such sentences."""

    score: float
    sentences: tuple[int, ...]


def best_support(index: SentenceIndex, phrase_stems: Sequence[str]) -> Support:
    """The share of ``phrase_stems`` found in the sentences of ``index`` holding the most of
    them, with those sentences (all of them on a tie); 0 and none when nothing matches."""
    if not phrase_stems:
        return Support(0.0, ())
    hits: Counter[int] = Counter()
    for s in phrase_stems:
        hits.update(index.postings.get(s, ()))
    if not hits:
        return Support(0.0, ())
    top = max(hits.values())
    best = tuple(sorted(n for n, count in hits.items() if count == top))
    return Support(top / len(phrase_stems), best)


def support_spans(text: str, phrase: str) -> list[tuple[int, int]]:
    """The (start, end) spans of the sentences of ``text`` that best support ``phrase`` (at most
    three, in text order); empty when no sentence holds at least half of its content words."""
    stems = content_stems(phrase)
    if not text or not stems:
        return []
    index = sentence_index(text)
    support = best_support(index, stems)
    if support.score < SPAN_MIN:
        return []
    return [index.spans[n] for n in support.sentences[:MAX_SPANS]]


def distinguishing_stems(option: str, question: str, options: Sequence[str]) -> tuple[str, ...]:
    """An option's content stems minus those of the stem and those every option shares (they
    tell nothing about this option); all of them when nothing would be left."""
    own = content_stems(option)
    shared = set(content_stems(question))
    others = [set(content_stems(o)) for o in options if o is not option]
    if others:
        shared |= set.intersection(*others) & set(own)
    kept = tuple(s for s in own if s not in shared)
    return kept or own


def relevance(index: SentenceIndex, sentence: int, question_stems: frozenset[str]) -> int:
    """How many of the stem's content words the sentence holds."""
    return sum(1 for s in question_stems if index.holds(sentence, s))


@dataclass(frozen=True)
class OptionSupport:
    """How one evidence text supports one option, item by item: its words (stems) and its
    quantities, the share of them the best sentence (or, ``window``, two sentences in a row)
    holds, and which of them it holds."""

    score: float
    sentences: tuple[int, ...]  # the best sentences (the first of each window)
    found: tuple[str, ...]  # the words and quantities held, as written in the option
    missing: tuple[str, ...]  # those not held


def option_support(
    index: SentenceIndex,
    words: Sequence[tuple[str, str]],
    option_quantities: Sequence[Quantity] = (),
    *,
    forms: bool = False,
    window: int = 1,
    strict: bool = False,
) -> OptionSupport:
    """The support of an option of ``words`` ((stem, word as written) pairs) and quantities in
    ``index``: each word held by a sentence in the same form (with ``forms``, in another form of
    it too), each quantity by a quantity of the sentence that states it (``strict``: with the
    same bound); scored over ``window`` sentences in a row."""
    items: list[tuple[str, set[int]]] = [
        (written, index.sentences_of(stem_, forms=forms)) for stem_, written in words
    ]
    if option_quantities:
        found_quantities = index.quantities()
        for quantity in option_quantities:
            where = {n for n, q in found_quantities if quantity.within(q, strict=strict)}
            items.append((quantity.text, where))
    if not items:
        return OptionSupport(0.0, (), (), ())
    by_sentence: defaultdict[int, set[int]] = defaultdict(set)
    for number, (_, where) in enumerate(items):
        for sentence in where:
            for first in range(max(0, sentence - window + 1), sentence + 1):
                by_sentence[first].add(number)
    if not by_sentence:
        return OptionSupport(0.0, (), (), tuple(written for written, _ in items))
    top = max(len(held) for held in by_sentence.values())
    best = tuple(sorted(n for n, held in by_sentence.items() if len(held) == top))
    held = by_sentence[best[0]]
    found = tuple(items[i][0] for i in sorted(held))
    missing = tuple(items[i][0] for i in range(len(items)) if i not in held)
    return OptionSupport(top / len(items), best, found, missing)
