"""Near-duplicate items: stems (with their gold answer) that say the same thing.

Three ways two items come to say the same thing, each found without comparing every pair:

* the same words: the content words of stem and gold (stemmed, stop words and the project's
  commonest words left out) overlap by a Jaccard index of at least ``SIMILAR``; candidates come
  from MinHash LSH (``minhash``) and every candidate pair is verified exactly, and must have the
  same gold answer (``canonical_gold``) and no subjects that differ (two texts, two records, two
  species named): a templated stem asked of another species or answered by another prey is
  another fact, however many words it shares;
* the same fact asked twice about one species or source, in any words: same text or record (or
  the same species named), same dimension, same gold answer (by content words, with numbers and
  units read as quantities: "3-4 weeks" is "three to four weeks");
* the same recording asked twice: one Xeno-canto recording, one dimension, the same gold (a count
  of its notes and a description of them are two facts of one clip).

Pairs are joined into clusters (union-find); each cluster is a list of item ids in queue order.
"""

from __future__ import annotations

import hashlib
import itertools
from collections import defaultdict
from collections.abc import Collection, Iterable, Sequence
from functools import lru_cache

import numpy as np

from bagel_studio.core.audit import minhash
from bagel_studio.core.checks.quantities import may_hold_quantity, quantities, unit_words
from bagel_studio.core.checks.words import content_stems

SIMILAR = 0.6  # Jaccard index of content words from which two items say the same thing
MIN_WORDS = 3  # fewer distinctive content words than this: too little to judge by words
COMMON_SHARE = 0.01  # a word in more than this share of the items is not distinctive ...
COMMON_MIN = 50  # ... unless it is in fewer items than this (small projects keep every word)


class _Clusters:
    """Union-find over item positions."""

    def __init__(self, size: int) -> None:
        self.parent = list(range(size))
        self.joined: set[int] = set()  # every position ever joined to another

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
            self.joined.update((i, j))

    def groups(self) -> list[list[int]]:
        members: dict[int, list[int]] = defaultdict(list)
        for i in sorted(self.joined):  # the others are alone
            members[self.find(i)].append(i)
        return sorted((m for m in members.values() if len(m) > 1), key=lambda m: m[0])


class TokenSets:
    """Many small sets of token numbers, held flat in two numpy arrays (a 200,000-item release
    holds its word sets in a few megabytes, not in 200,000 frozensets)."""

    def __init__(self, tokens: np.ndarray, lengths: np.ndarray) -> None:
        self.tokens = tokens.astype(np.int32, copy=False)  # stem numbers: far below 2**31
        self.lengths = lengths.astype(np.int64, copy=False)
        self.ends = np.cumsum(self.lengths)

    @classmethod
    def of(cls, sets: Sequence[Collection[int]]) -> TokenSets:
        lengths = np.fromiter((len(s) for s in sets), dtype=np.int64, count=len(sets))
        tokens = np.fromiter(itertools.chain.from_iterable(sets), dtype=np.int32)
        return cls(tokens, lengths)

    @classmethod
    def joined(cls, parts: Sequence[TokenSets]) -> TokenSets:
        if not parts:
            return cls(np.zeros(0, dtype=np.int32), np.zeros(0, dtype=np.int64))
        return cls(
            np.concatenate([p.tokens for p in parts]), np.concatenate([p.lengths for p in parts])
        )

    def __len__(self) -> int:
        return len(self.lengths)

    def get(self, index: int) -> set[int]:
        end = int(self.ends[index])
        return set(self.tokens[end - int(self.lengths[index]) : end].tolist())

    def without(self, drop: np.ndarray) -> TokenSets:
        """The same sets without the tokens where ``drop`` (indexed by token) is true."""
        keep = ~drop[self.tokens]
        kept = np.concatenate(([0], np.cumsum(keep, dtype=np.int32)))
        starts = self.ends - self.lengths
        return TokenSets(self.tokens[keep], kept[self.ends] - kept[starts])


def distinctive(raw: TokenSets) -> TokenSets:
    """The distinctive content words of each set of stem-and-gold words: the project's
    commonest words left out."""
    if not len(raw.tokens):
        return raw
    frequency = np.bincount(raw.tokens)
    limit = max(COMMON_MIN, int(COMMON_SHARE * len(raw)))
    common = frequency > limit
    return raw.without(common) if common.any() else raw


@lru_cache(maxsize=65536)
def canonical_gold(text: str) -> tuple[str, ...]:
    """A gold answer's content words (stems, sorted), its numbers and units read as quantities
    ("#time:1.81e+06-2.42e+06" for "3 to 4 weeks" and "three to four weeks" alike)."""
    words = set(content_stems(text))
    if may_hold_quantity(text):
        found = quantities(text)
        if found:
            words -= unit_words(text)
            words |= {f"#{q.dimension}:{q.bound}:{q.low:.3g}-{q.high:.3g}" for q in found}
    return tuple(sorted(words))


@lru_cache(maxsize=65536)
def gold_variants(text: str) -> tuple[tuple[str, ...], ...]:
    """The ways a gold answer is compared: ``canonical_gold``, and for a gold with numbers the
    same with the numbers as written and no units ("About 110" is "around 110 days" when both
    ask the lion's gestation)."""
    canonical = canonical_gold(text)
    found = quantities(text) if may_hold_quantity(text) else ()
    if not found:
        return (canonical,)
    words = set(canonical) - {w for w in canonical if w.startswith("#")}
    raw = words | {f"#{q.bound}:{q.raw_low:.3g}-{q.raw_high:.3g}" for q in found}
    return (canonical, tuple(sorted(raw)))


def same_gold(first: str, second: str) -> bool:
    """Whether two gold answers say the same (by any of their ``gold_variants``)."""
    if first == second:
        return True
    return not set(gold_variants(first)).isdisjoint(gold_variants(second))


# The kinds of subject (``items.subjects``) of which two items naming different ones are about
# different things.
SUBJECT_KINDS = ("text:", "record:", "recording:", "taxon:")


def differ(first: Collection[str], second: Collection[str]) -> bool:
    """Whether two items' subjects say they are about different things: of some kind both name
    (texts, records, recordings, species), they name none in common."""
    for kind in SUBJECT_KINDS:
        mine = {s for s in first if s.startswith(kind)}
        if not mine:
            continue
        theirs = {s for s in second if s.startswith(kind)}
        if theirs and not mine & theirs:
            return True
    return False


def _similar_pairs(sets: TokenSets) -> Iterable[tuple[int, int]]:
    """Pairs of positions whose word sets have a Jaccard index of at least SIMILAR."""
    enough = sets.lengths >= MIN_WORDS
    eligible = np.flatnonzero(enough)
    if not len(eligible):
        return
    tokens = sets.tokens[np.repeat(enough, sets.lengths)]
    signature = minhash.flat_signatures(tokens, sets.lengths[eligible], int(tokens.max()) + 1)
    seen: set[tuple[int, int]] = set()
    for a, b in minhash.candidate_pairs(signature):
        i, j = int(eligible[a]), int(eligible[b])
        if (i, j) in seen:
            continue
        seen.add((i, j))
        first, second = sets.get(i), sets.get(j)
        shared = len(first & second)
        if shared / (len(first) + len(second) - shared) >= SIMILAR:
            yield i, j


def group_keys(
    dimension: str, recording_id: str | None, subjects: Collection[str], gold: Collection[str]
) -> list[str]:
    """The keys of the groups of items that ask the same thing by construction: the same
    subject, dimension and gold words (``gold``: the gold answer's content words, as stems), or
    the same recording, dimension and gold words (every two items sharing a key are
    near-duplicates)."""
    keys = []
    words = " ".join(sorted(gold))
    if recording_id:  # one clip under one topic asks one fact only if the gold is the same
        keys.append(_key("recording", recording_id.casefold(), dimension, words))
    if gold:
        keys.extend(_key("fact", about, dimension, words) for about in _fact_subjects(subjects))
    return keys


def _key(*parts: str) -> str:
    return "\x1f".join(parts)


def key_digests(keys: Iterable[str]) -> list[bytes]:
    """16-byte digests of group keys: what a large audit keeps of them (two keys share a digest
    by chance with a probability of about 2**-128 per pair; a lone surrogate, which JSON may
    hold, is digested as it is)."""
    return [
        hashlib.blake2b(k.encode("utf-8", "surrogatepass"), digest_size=16).digest() for k in keys
    ]


def _grouped_pairs(digests: bytes, positions: Sequence[int]) -> Iterable[tuple[int, int]]:
    """Pairs of positions sharing a group key (``digests``: the keys' 16-byte digests one after
    another), enough to join each group: each member with the next."""
    if not digests:
        return
    keys = np.frombuffer(digests, dtype=np.uint64).reshape(-1, 2)
    where = np.asarray(positions, dtype=np.int64)
    order = np.lexsort((where, keys[:, 1], keys[:, 0]))
    keys, where = keys[order], where[order]
    same = np.flatnonzero((keys[1:] == keys[:-1]).all(axis=1))
    yield from zip(where[same].tolist(), where[same + 1].tolist(), strict=True)


def _fact_subjects(subjects: Collection[str]) -> list[str]:
    """What "the same fact" is about: one text or one GloBI record, or exactly the same set of
    subjects (two GloBI stems about one predator and different prey share a taxon, not a
    fact). A recording beside its species is one sample of the species' sound, which a
    self-contained item asks about: the set without it."""
    found = [s for s in subjects if s.startswith(("text:", "record:"))]
    if subjects:
        found.append("|".join(sorted(subjects)))
        sampled = sorted(s for s in subjects if not s.startswith("recording:"))
        if len(sampled) < len(subjects) and any(s.startswith("taxon:") for s in sampled):
            found.append("|".join(sampled))
    return found


def duplicate_clusters(
    words: TokenSets,
    digests: bytes,
    positions: Sequence[int],
    golds: Sequence[str] | None = None,
    subjects: Sequence[Collection[str]] | None = None,
) -> list[list[int]]:
    """Clusters (positions, ascending; clusters by their first position) of the items whose
    stem-and-gold word sets are ``words`` (one set per item, in order) and whose group keys'
    16-byte digests are ``digests``, one after another (the k-th belongs to item
    ``positions[k]``). ``golds`` (the gold answers as worded) and ``subjects`` (each item's),
    when given, keep from the pairs of the same words those of other golds or other subjects."""
    clusters = _Clusters(len(words))
    for i, j in _similar_pairs(distinctive(words)):
        if golds is not None and not same_gold(golds[i], golds[j]):
            continue
        if subjects is not None and differ(subjects[i], subjects[j]):
            continue
        clusters.join(i, j)
    for i, j in _grouped_pairs(digests, positions):
        clusters.join(i, j)
    return clusters.groups()
