"""Cross-item leaks: one item's stem states another item's gold answer about the same thing.

A closed-book benchmark must not answer itself: if item A's stem says "the red fox (family
Canidae) ..." and item B, about the same species, asks for its family, a model that has seen A
answers B. Item A *leaks the answer of* B when both are about the same subject (text, GloBI
record, recording or species, see ``items.subjects``), B's gold answer appears word for word in
A's stem, A's stem also speaks of what B asks (at least ``ASKED_WORDS`` of the content words of
B's stem, other than its answer's, are in A's: "how tall is a red kangaroo?" names the answer of
"which kangaroo is Osphranter rufus?" but does not state it), and B's own stem does not already
contain it (that is ``gold-in-stem``).

Per subject, the gold phrases of its items are indexed. Each stem is searched for the gold phrases
of its subjects' other items, or, where a subject has more golds than the stem has words, its
word n-grams are looked up in that index instead: the work per stem is bounded by its own length,
so it grows with the items, never with their pairs.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Hashable, Sequence
from dataclasses import dataclass

from bagel_studio.core.checks.quantities import NUMBER_WORDS
from bagel_studio.core.checks.words import STOP_WORDS, stem

ASKED_WORDS = 2  # words of what another item asks that a stem must hold to state its answer
MAX_WORDS = 8  # gold phrases longer than this are not looked for (stems restate facts briefly)
_HEDGES = frozenset(
    {"about", "around", "approximately", "roughly", "some", "nearly", "almost", "circa", "ca"}
)
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


def leakable(gold: str) -> str | None:
    """A gold answer as a phrase to look for (``gold``: the answer as ``words.phrase`` gives it,
    of an answer with content words), or None when it says too little to leak (too short, too
    long, a generic answer, or a lone number: "four" in a stem about litters does not answer
    how many subspecies there are). A hedge before it is not looked for: "around seven days"
    is given away by "about seven days"."""
    words = gold.split()
    while len(words) > 1 and words[0] in _HEDGES:
        words = words[1:]
    gold = " ".join(words)
    if len(gold) < 3 or gold in _GENERIC or gold.count(" ") >= MAX_WORDS:
        return None
    if len(words) == 1 and (gold.replace(".", "").isdigit() or gold in NUMBER_WORDS):
        return None
    return gold


def _content(phrase: str) -> frozenset[str]:
    """The stems of a phrase's content words."""
    return frozenset(stem(w) for w in phrase.split() if len(w) > 2 and w not in STOP_WORDS)


def states_what_is_asked(stem_a: str, stem_b: str, gold_b: str) -> bool:
    """Whether stem ``stem_a`` speaks of what ``stem_b`` asks: they share ``ASKED_WORDS``
    content words besides those of ``gold_b`` (all three as ``words.phrase`` gives them)."""
    asked = _content(stem_b) - _content(gold_b)
    return len(asked & _content(stem_a)) >= ASKED_WORDS


def _ngrams(words: Sequence[str], lengths: set[int]) -> set[str]:
    found: set[str] = set()
    for n in lengths:
        for start in range(len(words) - n + 1):
            found.add(" ".join(words[start : start + n]))
    return found


def leak_pairs(
    subjects: Sequence[Collection[Hashable]],
    golds: Sequence[str | None],
    stems: Sequence[str],
) -> list[tuple[int, int]]:
    """Every (leaking, leaked) pair of positions, leaking items in order, from what the search
    reads of each item (by position): its subjects, its gold phrase (``leakable``; None: it
    cannot leak) and its stem as a phrase (``words.phrase``; read only where it has subjects)."""
    index_of: dict[Hashable, dict[str, list[int]]] = defaultdict(lambda: defaultdict(list))
    lengths: set[int] = set()
    for i, gold in enumerate(golds):
        if gold is None:
            continue
        lengths.add(gold.count(" ") + 1)
        for subject in subjects[i]:
            index_of[subject][gold].append(i)
    pairs: list[tuple[int, int]] = []
    for a, about in enumerate(subjects):
        if not about:
            continue
        indexes = [index_of[s] for s in about if s in index_of]
        # Only subjects where some other item has a gold to give away.
        indexes = [x for x in indexes if len(x) > 1 or golds[a] not in x]
        if not indexes:
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
        for b in sorted(leaked):
            gold = golds[b]
            assert gold is not None  # only an item with a gold phrase is in the index
            if f" {gold} " in f" {stems[b]} ":
                continue  # B gives its own answer away already
            if not states_what_is_asked(stems[a], stems[b], gold):
                continue  # A names B's answer in passing, about something else
            pairs.append((a, b))
    return pairs
