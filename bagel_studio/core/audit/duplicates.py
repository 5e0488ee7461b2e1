"""Near-duplicate items: stems (with their gold answer) that say the same thing.

Three ways two items come to say the same thing, each found without comparing every pair:

* the same words: the content words of stem and gold (stemmed, stop words and the project's
  commonest words left out) overlap by a Jaccard index of at least ``SIMILAR``; candidates come
  from MinHash LSH (``minhash``) and every candidate pair is verified exactly;
* the same fact asked twice about one species or source: same text or record (or the same
  species named), same dimension, same gold answer (by content words);
* the same recording asked twice: one Xeno-canto recording, one dimension.

Pairs are joined into clusters (union-find); each cluster is a list of item ids in queue order.
"""

from __future__ import annotations

import itertools
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence

from bagel_studio.core.audit import minhash
from bagel_studio.core.audit.items import AuditItem

SIMILAR = 0.6  # Jaccard index of content words from which two items say the same thing
MIN_WORDS = 3  # fewer distinctive content words than this: too little to judge by words
COMMON_SHARE = 0.01  # a word in more than this share of the items is not distinctive ...
COMMON_MIN = 50  # ... unless it is in fewer items than this (small projects keep every word)


class _Clusters:
    """Union-find over item positions."""

    def __init__(self, size: int) -> None:
        self.parent = list(range(size))

    def find(self, i: int) -> int:
        parent = self.parent
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    def join(self, i: int, j: int) -> None:
        a, b = self.find(i), self.find(j)
        if a != b:
            self.parent[max(a, b)] = min(a, b)

    def groups(self) -> list[list[int]]:
        members: dict[int, list[int]] = defaultdict(list)
        for i in range(len(self.parent)):
            members[self.find(i)].append(i)
        return sorted((m for m in members.values() if len(m) > 1), key=lambda m: m[0])


def word_sets(items: Sequence[AuditItem]) -> list[frozenset[int]]:
    """The distinctive content words of each item's stem and gold answer."""
    raw = [item.question_words | item.gold_words for item in items]
    frequency: Counter[int] = Counter()
    for words in raw:
        frequency.update(words)
    limit = max(COMMON_MIN, int(COMMON_SHARE * len(items)))
    common = {word for word, count in frequency.items() if count > limit}
    if not common:
        return raw
    return [words - common for words in raw]


def _similar_pairs(sets: Sequence[frozenset[int]]) -> Iterable[tuple[int, int]]:
    """Pairs of positions whose word sets have a Jaccard index of at least SIMILAR."""
    eligible = [i for i, words in enumerate(sets) if len(words) >= MIN_WORDS]
    token_sets = [sets[i] for i in eligible]
    vocabulary = 1 + max((max(words) for words in token_sets), default=-1)
    signature = minhash.signatures(token_sets, vocabulary)
    seen: set[tuple[int, int]] = set()
    for a, b in minhash.candidate_pairs(signature):
        i, j = eligible[a], eligible[b]
        if (i, j) in seen:
            continue
        seen.add((i, j))
        first, second = sets[i], sets[j]
        shared = len(first & second)
        if shared / (len(first) + len(second) - shared) >= SIMILAR:
            yield i, j


def _grouped_pairs(items: Sequence[AuditItem]) -> Iterable[tuple[int, int]]:
    """Pairs asking the same thing by construction: the same subject, dimension and gold words,
    or the same recording and dimension."""
    groups: dict[tuple[str, ...], list[int]] = defaultdict(list)
    for i, item in enumerate(items):
        if item.recording_id:
            groups["recording", item.recording_id.casefold(), item.dimension].append(i)
        gold = " ".join(map(str, sorted(item.gold_words)))
        if not gold:
            continue
        for about in _fact_subjects(item):
            groups["fact", about, item.dimension, gold].append(i)
    for members in groups.values():
        yield from itertools.pairwise(members)


def _fact_subjects(item: AuditItem) -> list[str]:
    """What "the same fact" is about: one text or one GloBI record, or exactly the same set of
    subjects (two GloBI stems about one predator and different prey share a taxon, not a
    fact)."""
    found = [s for s in item.subjects if s.startswith(("text:", "record:"))]
    if item.subjects:
        found.append("|".join(sorted(item.subjects)))
    return found


def near_duplicates(items: Sequence[AuditItem]) -> list[list[str]]:
    """Clusters of near-duplicate items (ids in queue order), in the order of their first
    item."""
    clusters = _Clusters(len(items))
    for i, j in _similar_pairs(word_sets(items)):
        clusters.join(i, j)
    for i, j in _grouped_pairs(items):
        clusters.join(i, j)
    return [[items[i].id for i in group] for group in clusters.groups()]
