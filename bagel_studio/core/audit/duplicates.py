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
  of its notes and a description of them are two facts of one clip);
* the same fact with its gold worded otherwise (``one_fact``), among the items of one text or
  record and one dimension that share a word or a kind of quantity of their golds: each gold
  stated by the other item, phrase by phrase in its stem or gold, numbers as quantities ("About
  17 cm a year" / "About 7 inches" where the stem says "each year"; "A false killer whale and a
  bottlenose dolphin" / "The false killer whale" where the stem names the dolphin; "Five" /
  "5 colours" where the stem asks how many colours), or two long golds that differ only by
  words added or left out ("capture swims initiated from longer distances" / "capture swims
  from longer distances to prey"). A word in another's place ("lower" for "greater"), the same
  words in other roles ("a male tiger and a female lion") or the same number of other things
  ("5 trials") is another fact.

Pairs are joined into clusters (union-find); each cluster is a list of item ids in queue order.
"""

from __future__ import annotations

import difflib
import hashlib
import itertools
from collections import defaultdict
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

import numpy as np

from bagel_studio.core.audit import minhash
from bagel_studio.core.checks.quantities import (
    NUMBER_WORDS,
    Quantity,
    asked_units,
    may_hold_quantity,
    quantities,
    same_quantities,
    unit_key,
    unit_words,
)
from bagel_studio.core.checks.words import STOP_WORDS, WORD_RE, content_stems, stem

SIMILAR = 0.6  # Jaccard index of content words from which two items say the same thing
MIN_WORDS = 3  # fewer distinctive content words than this: too little to judge by words
COMMON_SHARE = 0.01  # a word in more than this share of the items is not distinctive ...
COMMON_MIN = 50  # ... unless it is in fewer items than this (small projects keep every word)
REWORDED = 3  # content words two golds worded otherwise must share (and two thirds of each)
BLOCK = 64  # items of one topic sharing a gold word beyond this are not compared by it
# Counted nouns that stand for whatever their stem counts ("650 individuals" of lions).
GENERIC_COUNTS = frozenset(
    f"count:{noun}" for noun in ("individual", "animal", "specimen", "creature", "organism")
)
_NEGATIONS = frozenset({"not", "no", "never", "without", "neither", "nor", "none", "cannot"})


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
    fact). A recording beside its species is one sample of the species' sound, and a GloBI
    record beside the species its stem names one observation of the species' interaction,
    which a self-contained item asks about: the set without it (two rows recording one visit,
    asked with one gold, are one fact)."""
    found = [s for s in subjects if s.startswith(("text:", "record:"))]
    if subjects:
        found.append("|".join(sorted(subjects)))
        for sample in ("recording:", "record:"):
            sampled = sorted(s for s in subjects if not s.startswith(sample))
            if len(sampled) < len(subjects) and any(s.startswith("taxon:") for s in sampled):
                found.append("|".join(sampled))
    return found


def duplicate_clusters(
    words: TokenSets,
    digests: bytes,
    positions: Sequence[int],
    golds: Sequence[str] | None = None,
    subjects: Sequence[Collection[str]] | None = None,
    topics: tuple[bytes, Sequence[int]] | None = None,
    stems: Sequence[str] | None = None,
) -> list[list[int]]:
    """Clusters (positions, ascending; clusters by their first position) of the items whose
    stem-and-gold word sets are ``words`` (one set per item, in order) and whose group keys'
    16-byte digests are ``digests``, one after another (the k-th belongs to item
    ``positions[k]``). ``golds`` (the gold answers as worded) and ``subjects`` (each item's),
    when given, keep from the pairs of the same words those of other golds or other subjects;
    ``topics`` (the 16-byte digests of the items' ``topic_keys`` and the item of each) with
    ``golds`` and ``stems`` (each item's stem) join the items of one topic that ``one_fact``
    finds asking one fact with golds worded otherwise."""
    clusters = _Clusters(len(words))
    for i, j in _similar_pairs(distinctive(words)):
        if golds is not None and not same_gold(golds[i], golds[j]):
            continue
        if subjects is not None and differ(subjects[i], subjects[j]):
            continue
        clusters.join(i, j)
    for i, j in _grouped_pairs(digests, positions):
        clusters.join(i, j)
    if topics is not None and golds is not None and stems is not None:
        for i, j in _reworded_pairs(topics[0], topics[1], golds, stems, subjects):
            clusters.join(i, j)
    return clusters.groups()


def topic_keys(dimension: str, subjects: Collection[str]) -> list[str]:
    """The keys of the groups inside which golds worded otherwise are compared (``one_fact``):
    one text or record (or exactly one set of subjects) and one dimension."""
    return [_key("topic", about, dimension) for about in _fact_subjects(subjects)]


@dataclass(frozen=True)
class Said:
    """What a text says, as ``one_fact`` compares it: its content words (stems) in order and in
    runs (a run ends at a stop word), numbers and units left to its quantities."""

    sequence: tuple[str, ...]
    runs: tuple[tuple[str, ...], ...]
    quantities: tuple[Quantity, ...]
    negated: bool

    @property
    def empty(self) -> bool:
        return not self.sequence and not self.quantities


@lru_cache(maxsize=65536)
def said(text: str) -> Said:
    """``Said`` of a text."""
    found = quantities(text) if may_hold_quantity(text) else ()
    numeric = unit_words(text) if found else frozenset()
    generic = {q.dimension[6:] for q in found if q.dimension in GENERIC_COUNTS}
    numeric = numeric | generic if generic else numeric  # "individuals" counts what is asked
    sequence: list[str] = []
    runs: list[tuple[str, ...]] = []
    run: list[str] = []
    negated = False
    for word in WORD_RE.findall(text):
        lower = word.lower()
        if lower in _NEGATIONS or lower.endswith(("n't", "n’t")):
            negated = True
        stemmed = "" if lower in STOP_WORDS else stem(word)
        held = stemmed in numeric or lower in NUMBER_WORDS or lower[0].isdigit()
        if stemmed and found and held:
            stemmed = ""  # the quantities hold it
        if not stemmed:
            if run:
                runs.append(tuple(run))
                run = []
            continue
        run.append(stemmed)
        sequence.append(stemmed)
    if run:
        runs.append(tuple(run))
    return Said(tuple(sequence), tuple(runs), found, negated)


def _contains(sequence: tuple[str, ...], run: tuple[str, ...]) -> bool:
    size = len(run)
    return any(sequence[i : i + size] == run for i in range(len(sequence) - size + 1))


def counting(quantity: Quantity, asked: frozenset[str]) -> Quantity:
    """``quantity`` as a count of what its stem counts (``asked``: the units the stem asks in)
    where it counts a generic noun (``GENERIC_COUNTS``) and the stem asks how many of one
    thing: "About 650 individuals", asked how many Asiatic lions, counts lions."""
    if quantity.dimension not in GENERIC_COUNTS:
        return quantity
    counts = [key for key in asked if key.startswith("count:")]
    return replace(quantity, dimension=counts[0]) if len(counts) == 1 else quantity


def _quantity_stated(
    quantity: Quantity,
    others: Iterable[Quantity],
    words: Collection[str],
    asked: tuple[frozenset[str], frozenset[str]],
) -> bool:
    """Whether another item states ``quantity`` (one of a gold's): by one of its quantities,
    the same value (``Quantity.same``: a conversion rounded to its figures is the same), a bare
    count as the count of what the bare one's stem asks ("Five" where it asks how many colours
    is "5 colours"; ``asked``: the units the gold's own stem and the other's ask in; a count of
    individuals or animals counts what its own stem asks, ``counting``), or, for "a year" /
    "an hour", by the unit's word among its ``words``."""
    quantity = counting(quantity, asked[0])
    for other in others:
        other = counting(other, asked[1])
        if same_quantities((quantity,), (other,)):
            return True
        if bool(quantity.dimension) == bool(other.dimension):
            continue
        united = other if other.dimension else quantity
        units = asked[0] if not quantity.dimension else asked[1]
        if unit_key(united) in units and same_quantities((quantity,), (other,), units):
            return True
    written = quantity.text.lower()
    return written.startswith(("a ", "an ")) and stem(quantity.unit) in words


def _stated(
    gold: Said, asked: tuple[frozenset[str], frozenset[str]], other_stem: Said, other_gold: Said
) -> bool:
    """Whether another item (its stem and gold) states ``gold``: each of its runs in the one or
    the other, each of its quantities by theirs (``_quantity_stated``)."""
    for run in gold.runs:
        if not _contains(other_stem.sequence, run) and not _contains(other_gold.sequence, run):
            return False
    words = set(other_stem.sequence) | set(other_gold.sequence)
    others = other_stem.quantities + other_gold.quantities
    return all(_quantity_stated(q, others, words, asked) for q in gold.quantities)


_NOTHING_SAID = Said((), (), (), False)


def _reworded(first: Said, second: Said) -> bool:
    """Two golds that differ only by words added or left out, none of them moved ("swims
    initiated from longer distances" / "swims from longer distances to prey"), sharing at
    least ``REWORDED`` words and two thirds of each, with the same quantities."""
    a, b = first.sequence, second.sequence
    if len(a) < REWORDED or len(b) < REWORDED:
        return False
    if not same_quantities(first.quantities, second.quantities):
        return False
    matched = 0
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "replace":
            return False  # a word in another's place: "lower" for "greater"
        if tag == "equal":
            matched += i2 - i1
        elif tag == "delete" and set(a[i1:i2]) & set(b):
            return False  # a word moved: other roles
        elif tag == "insert" and set(b[j1:j2]) & set(a):
            return False
    return matched >= REWORDED and 3 * matched >= 2 * max(len(a), len(b))


def one_fact(first_gold: str, first_stem: str, second_gold: str, second_stem: str) -> bool:
    """Whether two items of one text or record and one dimension ask one fact with golds
    worded otherwise (the module's fourth way): their golds say as much (no negation in one
    only), their stems share a word besides the golds', and either each gold is stated by the
    other item (``_stated``) though not by its own stem (a stem naming its candidates, "which
    is faster, the lion or the cheetah?", states every gold), or the golds are ``_reworded``."""
    a, b = said(first_gold), said(second_gold)
    if a.empty or b.empty or a.negated != b.negated:
        return False
    golds = set(a.sequence) | set(b.sequence)
    if not (_stem_words(first_stem) - golds) & (_stem_words(second_stem) - golds):
        return False
    if _reworded(a, b):
        return True
    a_stem, b_stem = said(first_stem), said(second_stem)
    a_asked, b_asked = asked_units(first_stem), asked_units(second_stem)
    if not _stated(a, (a_asked, b_asked), b_stem, b):
        return False
    if not _stated(b, (b_asked, a_asked), a_stem, a):
        return False
    own_a, own_b = (a_asked, a_asked), (b_asked, b_asked)
    return not _stated(a, own_a, a_stem, _NOTHING_SAID) and not _stated(
        b, own_b, b_stem, _NOTHING_SAID
    )


@lru_cache(maxsize=65536)
def _stem_words(text: str) -> frozenset[str]:
    return frozenset(content_stems(text))


def _blocking(gold: str, stem_text: str) -> set[str]:
    """What two golds worded otherwise share if ``one_fact`` may join them: a content word, or
    a kind of quantity (a bare number taking the units its stem asks in)."""
    found = said(gold)
    tokens = set(found.sequence)
    for quantity in found.quantities:
        quantity = counting(quantity, asked_units(stem_text))
        dimension = "time" if quantity.dimension == "months" else quantity.dimension
        if dimension:
            tokens.add("#" + dimension)
        else:
            tokens.update(
                "#" + (key if key.startswith("count:") else key.rpartition(":")[0])
                for key in asked_units(stem_text)
            )
    return tokens


def _reworded_pairs(
    digests: bytes,
    positions: Sequence[int],
    golds: Sequence[str],
    stems: Sequence[str],
    subjects: Sequence[Collection[str]] | None,
) -> Iterable[tuple[int, int]]:
    """Pairs of items of one topic (``topic_keys``; ``digests`` as in ``duplicate_clusters``)
    that ``one_fact`` joins: only items sharing a word or kind of quantity of their golds are
    compared, and a word shared by more than ``BLOCK`` of a topic's items pairs none (the work
    grows with the items, never with the pairs of a large topic)."""
    groups: dict[bytes, list[int]] = defaultdict(list)
    for k, position in enumerate(positions):
        groups[digests[16 * k : 16 * k + 16]].append(position)
    seen: set[tuple[int, int]] = set()
    for members in groups.values():
        if len(members) < 2:
            continue
        by_token: dict[str, list[int]] = defaultdict(list)
        for position in dict.fromkeys(members):
            for token in _blocking(golds[position], stems[position]):
                by_token[token].append(position)
        for block in by_token.values():
            if not 2 <= len(block) <= BLOCK:
                continue
            for i, j in itertools.combinations(sorted(block), 2):
                if (i, j) in seen:
                    continue
                seen.add((i, j))
                if same_gold(golds[i], golds[j]):
                    continue  # joined by their group keys already
                if subjects is not None and differ(subjects[i], subjects[j]):
                    continue
                if one_fact(golds[i], stems[i], golds[j], stems[j]):
                    yield i, j
