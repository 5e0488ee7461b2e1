"""Cross-item leaks: one item's stem states another item's gold answer about the same thing.

A closed-book benchmark must not answer itself: if item A's stem says "the red fox (family
Canidae) ..." and item B, about the same species, asks for its family, a model that has seen A
answers B. Item A *leaks the answer of* B when both are about the same subject (text, GloBI
record, recording or species, see ``items.subjects``), B's gold answer appears word for word in
A's stem, A's stem also speaks of what B asks (at least ``ASKED_WORDS`` of the content words of
B's stem, other than its answer's, are in A's: "how tall is a red kangaroo?" names the answer of
"which kangaroo is Osphranter rufus?" but does not state it; where B was written from a GloBI
record, A names every taxon B's stem names too, the partner whose prey, host or interaction B
asks: a stem about the fox's diet in one study does not speak of who eats the buzzard there,
nor one about a beetle and ash wood of how another beetle meets a fungus), and B's own stem does
not already contain it (that is ``gold-in-stem``).

A gold is looked for as its item words it, without a hedge or a leading pronoun or article
before it ("They slow down" is stated by "cavefish slow down") or a pronoun ending it, which
stands for a noun of its stem ("They have no effect on it" by "the phases of the moon have no
effect on wolf vocalization"); a lone number with the words its
stem counts ("13" asked by "how many thoracic vertebrae...?" is looked for as "13 thoracic
vertebrae"); and a long gold (``BAG_WORDS`` content words or more) also as its content words in
any order ("patches of higher foliage density, irrespective of female density" is stated by
"associated more with higher foliage density patches irrespective of female density").

Per subject, the gold phrases of its items are indexed. Each stem is searched for the gold phrases
of its subjects' other items, or, where a subject has more golds than the stem has words, its
word n-grams are looked up in that index instead: the work per stem is bounded by its own length,
so it grows with the items, never with their pairs.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from bagel_studio.core.checks.quantities import NUMBER_WORDS
from bagel_studio.core.checks.words import STOP_WORDS, stem, stems_of_words

ASKED_WORDS = 2  # words of what another item asks that a stem must hold to state its answer
MAX_WORDS = 8  # gold phrases longer than this are looked for by their content words only
BAG_WORDS = 4  # content words from which a gold is also looked for in any order
_HEDGES = frozenset(
    {"about", "around", "approximately", "roughly", "some", "nearly", "almost", "circa", "ca"}
)
# Not looked for before a gold either: "They slow down" is said as "cavefish slow down".
_LEADING = _HEDGES | {"they", "it", "the", "a", "an", "its", "their", "he", "she"}
# Not looked for at the end of a gold of four words or more: it stands for a noun of its stem
# ("They have no effect on it" is stated by "... have no effect on wolf vocalization").
_TRAILING = frozenset({"it", "them"})
_COUNTED = re.compile(r"\bhow many ((?:[a-z][a-z'-]* ?){1,3})")
_GENERIC = frozenset(
    {
        "none of the above",
        "all of the above",
        "both",
        "neither",
        "unknown",
        "not enough information",
        "cannot be determined",
    }
)


@dataclass(frozen=True)
class Leak:
    item_id: str  # the item whose stem gives the answer away
    leaked_item_id: str  # the item whose gold answer it states
    answer: str  # that gold answer, as the leaked item words it

    def to_json(self) -> dict[str, str]:
        return {"item_id": self.item_id, "leaked_item_id": self.leaked_item_id}


def leakable(gold: str, stem: str = "") -> str | None:
    """A gold answer as a phrase to look for (``gold``: the answer as ``words.phrase`` gives it,
    of an answer with content words; ``stem``: its item's stem, likewise), or None when it says
    too little to leak (too short, too long, a generic answer, or a lone number: "four" in a
    stem about litters does not answer how many subspecies there are). A hedge, pronoun or
    article before it is not looked for: "around seven days" is given away by "about seven
    days", "they slow down" by "cavefish slow down"; nor a pronoun ending a gold of four words or
    more, which stands for a noun of its stem ("they have no effect on it" by "the moon's phases
    have no effect on wolf vocalization"). A lone number is looked for with the words
    its stem counts ("13 thoracic vertebrae" where the stem asks how many thoracic vertebrae)."""
    words = gold.split()
    while (len(words) > 1 and words[0] in _HEDGES) or (len(words) > 2 and words[0] in _LEADING):
        words = words[1:]  # a lone noun left ("the tail") would be found anywhere
    if len(words) > 3 and words[-1] in _TRAILING:
        words = words[:-1]  # "have no effect on it": "it" stands for what the stem names
    gold = " ".join(words)
    if (len(gold) < 3 and not (stem and gold.isdigit())) or gold in _GENERIC:
        return None
    if gold.count(" ") >= 2 * MAX_WORDS:
        return None
    if len(words) == 1 and (gold.replace(".", "").isdigit() or gold in NUMBER_WORDS):
        counted = _counted(stem)
        return f"{gold} {counted}" if counted else None
    return gold


def _counted(stem: str) -> str:
    """The words a stem counts ("how many thoracic vertebrae does..." -> "thoracic vertebrae"),
    up to the first stop word; "" when it asks no count."""
    match = _COUNTED.search(stem) if "how many" in stem else None
    if match is None:
        return ""
    counted = []
    for word in match.group(1).split():
        if word in STOP_WORDS:
            break
        counted.append(word)
    return " ".join(counted)


def _content(phrase: str) -> frozenset[str]:
    """The stems of a phrase's content words."""
    return frozenset(stem(w) for w in phrase.split() if len(w) > 2 and w not in STOP_WORDS)


def states_what_is_asked(
    stem_a: str, stem_b: str, gold_b: str, subjects_b: Collection[str] = ()
) -> bool:
    """Whether stem ``stem_a`` speaks of what ``stem_b`` asks: they share ``ASKED_WORDS``
    content words besides those of ``gold_b`` (all three as ``words.phrase`` gives them), and
    where B is about a GloBI record (``subjects_b``, ``items.subjects``), ``stem_a`` names every
    taxon ``stem_b`` names: what B asks is its record's partner of those, and the place, the
    study or the kind of animal two stems share say nothing of it."""
    asked = _content(stem_b) - _content(gold_b)
    if len(asked & _content(stem_a)) < ASKED_WORDS:
        return False
    if not any(s.startswith("record:") for s in subjects_b):
        return True
    named_a, named_b = f" {stem_a} ", f" {stem_b} "
    return all(
        f" {s[6:]} " in named_a
        for s in subjects_b
        if s.startswith("taxon:") and f" {s[6:]} " in named_b
    )


_NO_BAG: frozenset[str] = frozenset({""})  # no content set holds it


def _bag_words(phrase: str) -> frozenset[str]:
    """The stems of a phrase's content words of three letters or more (each word stemmed once
    per process: ``words.stems_of_words``)."""
    return frozenset(w for w in stems_of_words(phrase.split()) if len(w) > 2)


def _ngrams(words: Sequence[str], lengths: set[int]) -> set[str]:
    found: set[str] = set()
    for n in lengths:
        for start in range(len(words) - n + 1):
            found.add(" ".join(words[start : start + n]))
    return found


def leak_pairs(
    subjects: Sequence[Collection[str]],
    golds: Sequence[str | None],
    stems: Sequence[str],
) -> list[tuple[int, int]]:
    """Every (leaking, leaked) pair of positions, leaking items in order, from what the search
    reads of each item (by position): its subjects, its gold phrase (``leakable``; None: it
    cannot leak) and its stem as a phrase (``words.phrase``; read only where it has subjects)."""
    index_of: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(list))
    # Long golds by subject and their first content word (in sorting order): a stem holding
    # every content word of one holds that one.
    bags_of: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(list))
    bag: dict[int, frozenset[str]] = {}
    lengths: set[int] = set()
    for i, gold in enumerate(golds):
        if gold is None:
            continue
        if gold.count(" ") < MAX_WORDS:  # longer ones are looked for by their words only
            lengths.add(gold.count(" ") + 1)
            for subject in subjects[i]:
                index_of[subject][gold].append(i)
        content = _bag_words(gold)
        if len(content) >= BAG_WORDS:
            bag[i] = content
            for subject in subjects[i]:
                bags_of[subject][min(content)].append(i)
    pairs: list[tuple[int, int]] = []
    for a, about in enumerate(subjects):
        if not about:
            continue
        indexes = [index_of[s] for s in about if s in index_of]
        # Only subjects where some other item has a gold to give away.
        indexes = [x for x in indexes if len(x) > 1 or golds[a] not in x]
        bags_about = [bags_of[s] for s in about if s in bags_of]
        if not indexes and not bags_about:
            continue
        words = stems[a].split()
        padded = f" {' '.join(words)} "
        grams: set[str] | None = None
        leaked: dict[int, None] = {}
        for index in indexes:
            if len(index) <= 2 * len(words):  # few golds: look for each in the stem
                found = [g for g in index if f" {g} " in padded]
            else:  # many: look each n-gram of the stem up
                grams = grams if grams is not None else _ngrams(words, lengths)
                found = list(grams.intersection(index))
            for gold in found:
                for b in index[gold]:
                    if b != a:
                        leaked[b] = None
        if bags_about:
            said = _bag_words(stems[a])
            for bags in bags_about:
                for word in said:
                    for b in bags.get(word, ()):
                        if b != a and bag[b] <= said:
                            leaked[b] = None
        for b in sorted(leaked):
            gold = golds[b]
            assert gold is not None  # only an item with a gold phrase is in the index
            if f" {gold} " in f" {stems[b]} " or bag.get(b, _NO_BAG) <= _bag_words(stems[b]):
                continue  # B gives its own answer away already
            number, _, counted = gold.partition(" ")
            if counted and f"how many {counted}" in stems[b]:
                gold = number  # the words counted are what B asks: "13 thoracic vertebrae"
            if not states_what_is_asked(stems[a], stems[b], gold, subjects[b]):
                continue  # A names B's answer in passing, about something else
            pairs.append((a, b))
    return pairs
