"""The audit, a batch of items at a time: what it keeps of each item (``features``) and the
audit of everything kept (``BatchedAudit``).

The project's audit (``audit_items``) and the release report's (``export.audit_section``) both
run here, so that the same items give the same report whichever asks. Per batch, every text of
every item is tokenized in one pass (``words.tokenize``) and the rest is numpy over the batch's
words: one sort of the distinct (item, stem, slot) of its content words gives both the word
sets of stem and gold and each option's overlap with its stem (an option's word shared with the
stem sorts right after the stem's), and the options' lengths and case-folded forms come from
one joined string when their whitespace is plain (checked in numpy when they are ASCII). What
is kept of an item is a few numbers and short strings, and nothing that depends on the process
that computed it (a worker process may; words travel as their stems, and only the order of the
words within an item's set is the process's), so batches may be computed anywhere, in any size.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from bagel_studio.core.audit.baselines import item_credits, table_of_credits
from bagel_studio.core.audit.duplicates import (
    TokenSets,
    duplicate_clusters,
    gold_variants,
    group_keys,
    key_digests,
    same_gold,
    topic_keys,
)
from bagel_studio.core.audit.items import AuditItem
from bagel_studio.core.audit.leaks import Leak, leak_pairs, leakable
from bagel_studio.core.audit.report import AuditReport
from bagel_studio.core.audit.words import Tokens, stems, tokenize

TEXTS = 5  # texts per item: its stem, then its four options
_LOW = np.int64(0xFFFFFFFF)  # the stem of a (text, stem) pair
BATCH = 2000  # items per batch where a whole list is audited
# Every whitespace character but the space (all of them are below U+3001).
_OTHER_SPACES = [c for c in map(chr, range(0x3001)) if c.isspace() and c != " "]


@dataclass(frozen=True)
class AuditRows:
    """A batch of items as the audit reads them, one list per field in item order."""

    domains: Sequence[str]
    dimensions: Sequence[str]
    texts: list[str]  # per item: its stem, then its four options in the audited order
    answers: np.ndarray  # each item's gold position among those options
    recordings: Sequence[str | None]
    subjects: Sequence[frozenset[str]]  # ``items.subjects``


@dataclass(frozen=True)
class AuditFeatures:
    """What the audit keeps of a batch of items, in the batch's order."""

    credit: dict[str, np.ndarray]  # baseline -> each item's credit (``item_credits``)
    gold: np.ndarray  # each item's gold position
    kinds: list[tuple[str, str]]  # the batch's distinct (domain, dimension) pairs
    kind: np.ndarray  # each item's (domain, dimension), as a position in ``kinds``
    vocabulary: list[str]  # the stems of the batch's word sets, sorted
    words: np.ndarray  # every item's word set (indexes into ``vocabulary``), one after another
    lengths: np.ndarray  # the size of each item's word set
    digests: bytes  # the 16-byte digests of the items' near-duplicate group keys
    positions: list[int]  # the item (in the batch) of each digest
    topic_digests: bytes  # the 16-byte digests of the items' topics (``topic_keys``)
    topic_positions: list[int]  # the item (in the batch) of each topic digest
    subjects: list[frozenset[str]]  # ``items.subjects``
    golds: list[str | None]  # gold phrases (``leaks.leakable``), None: cannot leak
    answers: list[str | None]  # the gold answers as worded, where there is a gold phrase
    stems: list[str]  # the stems as phrases (``words.phrase``), "" for an item about nothing
    gold_texts: list[str]  # every item's gold answer as worded


def item_rows(items: Sequence[AuditItem]) -> AuditRows:
    """``items`` as ``features`` reads them."""
    texts: list[str] = []
    for item in items:
        texts.append(item.question)
        texts += item.options
    return AuditRows(
        [item.domain for item in items],
        [item.dimension for item in items],
        texts,
        np.fromiter((item.answer_index for item in items), dtype=np.int64, count=len(items)),
        [item.recording_id for item in items],
        [item.subjects for item in items],
    )


def _folded(options: list[str]) -> tuple[np.ndarray, list[str]]:
    """Each option's length without the whitespace around it, and the option case-folded with
    its whitespace made single spaces."""
    joined = "\x00".join(options)
    if options and joined.isascii():  # the usual case, checked in numpy
        codes = np.frombuffer(joined.encode("ascii"), dtype=np.uint8)
        ends = np.flatnonzero(codes == 0)
        if len(ends) == len(options) - 1 and _plain_ascii(codes, len(ends)):
            bounds = np.empty(len(options) + 1, dtype=np.int64)
            bounds[0], bounds[1:-1], bounds[-1] = -1, ends, len(codes)
            lengths = np.diff(bounds).astype(float)
            lengths -= 1
            return lengths, joined.lower().split("\x00")
    plain = (
        joined.count("\x00") == len(options) - 1
        and not joined.startswith(" ")
        and not joined.endswith(" ")
        and "  " not in joined
        and " \x00" not in joined
        and "\x00 " not in joined
        and not any(c in joined for c in _OTHER_SPACES)
    )
    if plain:  # no whitespace to fold or strip: one pass over all the options
        lengths = np.fromiter(map(len, options), dtype=float, count=len(options))
        return lengths, joined.casefold().split("\x00") if options else []
    lengths = np.fromiter(map(len, map(str.strip, options)), dtype=float, count=len(options))
    return lengths, [" ".join(o.split()).casefold() for o in options]


def _plain_ascii(codes: np.ndarray, separators: int) -> bool:
    """True when ASCII options joined by NULs (``codes``, with ``separators`` NULs) hold no
    whitespace but single spaces between words: no control character but the NULs, and no
    space beside a space, a NUL or either end."""
    if np.count_nonzero(codes < 32) != separators:
        return False
    blank = np.ones(len(codes) + 2, dtype=bool)
    np.less_equal(codes, 32, out=blank[1:-1])
    space = codes == 32
    return not (space & (blank[:-2] | blank[2:])).any()


def features(rows: AuditRows) -> AuditFeatures:
    """What the audit keeps of a batch of items (``BatchedAudit.merge`` takes it in)."""
    count = len(rows.answers)
    texts = rows.texts
    answers = rows.answers.astype(np.int64, copy=False)
    tokens = tokenize(texts)
    # Every content word once per text, as item << 35 | stem << 3 | slot (0: the item's stem,
    # 1-4: its options), sorted: the texts of an item sharing a stem are neighbours, the item's
    # stem first.
    keys = _word_keys(tokens, count)
    slot = (keys & 7).astype(np.int32)
    pairs = keys >> 3  # item << 32 | stem
    item = (pairs >> 32).astype(np.int32)
    # How many content words each option shares with its stem: an option's word is shared when
    # the run of its (item, stem) starts in the item's stem (slot 0 sorts first).
    runs = np.empty(len(pairs), dtype=bool)
    runs[:1] = True
    np.not_equal(pairs[1:], pairs[:-1], out=runs[1:])
    run_of = np.cumsum(runs, dtype=np.int32)
    run_of -= 1
    shared = (slot[runs] == 0)[run_of]
    shared &= slot > 0
    place = item[shared] * 4
    place += slot[shared] - 1
    overlap = np.bincount(place, minlength=4 * count).reshape(count, 4).astype(float)
    options = texts.copy()
    del options[::TEXTS]
    lengths, folded = _folded(options)
    credit = item_credits(lengths.reshape(count, 4), overlap, folded, answers)
    # The word set of stem and gold, numbered by the rank of the stem among the batch's (through
    # a table from stem number to rank, where the batch's stems are first marked).
    in_gold = slot == (answers.astype(np.int32) + 1)[item]
    in_set = slot == 0
    in_set |= in_gold
    chosen = pairs[in_set]  # sorted: one item's duplicates (in stem and gold) are neighbours
    once = np.empty(len(chosen), dtype=bool)
    once[:1] = True
    np.not_equal(chosen[1:], chosen[:-1], out=once[1:])
    chosen = chosen[once]
    set_items, set_stems = chosen >> 32, (chosen & _LOW).astype(np.int32)
    rank_of = np.zeros(int(set_stems.max()) + 1 if len(set_stems) else 0, dtype=np.int32)
    rank_of[set_stems] = 1
    numbers = np.flatnonzero(rank_of)
    found = stems(numbers.tolist())
    if b"\x00" in tokens.buffer:  # a stem may end in NUL, which numpy's strings drop
        order = sorted(range(len(found)), key=found.__getitem__)
    else:  # distinct strings, sorted by code point as Python sorts them
        order = np.argsort(np.array(found, dtype=str)).tolist()
    rank_of[numbers[order]] = np.arange(len(found), dtype=np.int32)
    set_lengths = np.bincount(set_items, minlength=count)
    digests = bytearray()
    positions: list[int] = []
    topic_digests = bytearray()
    topic_positions: list[int] = []
    golds: list[str | None] = [None] * count
    answer_words: list[str | None] = [None] * count
    phrases = [""] * count  # an item about nothing is neither grouped nor leaking
    recordings, subjects, dimensions = rows.recordings, rows.subjects, rows.dimensions
    concerned = [p for p, r, a in zip(range(count), recordings, subjects, strict=True) if r or a]
    if concerned:
        gold_ends = np.cumsum(np.bincount(item[in_gold], minlength=count)).tolist()
        gold_stems = stems((pairs[in_gold] & _LOW).tolist())  # each item's, one after another
        gold_of = answers.tolist()
        texts_of = tokens.phrases
    for position in concerned:
        about = subjects[position]
        gold_words = gold_stems[gold_ends[position - 1] if position else 0 : gold_ends[position]]
        worded = texts[TEXTS * position + 1 + gold_of[position]]
        variants = gold_variants(worded) if gold_words else ((),)
        keys_of = list(
            dict.fromkeys(
                key
                for fact in variants
                for key in group_keys(dimensions[position], recordings[position], about, fact)
            )
        )
        digests += b"".join(key_digests(keys_of))
        positions += [position] * len(keys_of)
        if gold_words:
            topics = topic_keys(dimensions[position], about)
            topic_digests += b"".join(key_digests(topics))
            topic_positions += [position] * len(topics)
        first = TEXTS * position
        gold_at = first + 1 + gold_of[position]
        if gold_words:
            gold = leakable(texts_of[gold_at], texts_of[first])
            if gold is not None:
                golds[position] = gold
                answer_words[position] = texts[gold_at].strip()
        phrases[position] = texts_of[first]
    of_item = list(zip(rows.domains, rows.dimensions, strict=True))
    kinds = list(dict.fromkeys(of_item))
    kind_number = {pair: number for number, pair in enumerate(kinds)}
    return AuditFeatures(
        credit,
        answers,
        kinds,
        np.fromiter(map(kind_number.__getitem__, of_item), dtype=np.int32, count=count),
        [found[i] for i in order],
        rank_of[set_stems],
        set_lengths,
        bytes(digests),
        positions,
        bytes(topic_digests),
        topic_positions,
        list(rows.subjects),
        golds,
        answer_words,
        phrases,
        [texts[TEXTS * p + 1 + g] for p, g in enumerate(answers.tolist())],
    )


def _word_keys(tokens: Tokens, count: int) -> np.ndarray:
    """The distinct (item, stem, slot) of the content words of ``count`` items' texts, as
    item << 35 | stem << 3 | slot (int64), sorted."""
    numbers = tokens.numbers
    text = np.arange(TEXTS * count, dtype=np.int64)
    of_text = (text // TEXTS) << 35
    of_text |= text % TEXTS
    keys = np.repeat(of_text, np.diff(tokens.ends, prepend=-1))  # every word's item and slot
    content = numbers >= 0
    keys = keys[content]
    stem = numbers[content].astype(np.int64)
    stem <<= 3
    keys |= stem
    return distinct(keys)


def distinct(values: np.ndarray) -> np.ndarray:
    """The distinct values, sorted (``np.unique``, which hashes and is slower here)."""
    ordered = np.sort(values)
    if len(ordered) < 2:
        return ordered
    keep = np.empty(len(ordered), dtype=bool)
    keep[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=keep[1:])
    return ordered[keep]


class BatchedAudit:
    """``audit_items``, fed a batch of features at a time (``features``).

    Of each item it keeps only what the audit's last steps need: the baselines' credits and the
    gold position (numbers), the word set of stem and gold (flat numpy arrays), the digests of
    its near-duplicate group keys, and for the leak search its subjects (numbered), its gold
    phrase and its stem as a phrase. Words are numbered here by their stems, finally by the
    rank of the stem among all the audited items', so the near-duplicate search (MinHash of the
    numbers) sees the same numbers however the items were batched and whoever computed the
    features. ``report`` gives the audit.
    """

    def __init__(self) -> None:
        self._kinds: dict[tuple[str, str], int] = {}  # (domain, dimension) -> its number
        self.kind: list[np.ndarray] = []
        self.gold: list[np.ndarray] = []
        self.credit: dict[str, list[np.ndarray]] = {}
        self._vocabulary: dict[str, int] = {}
        self.words: list[TokenSets] = []
        self.digests = bytearray()
        self.positions = array("q")
        self.topic_digests = bytearray()
        self.topic_positions = array("q")
        self._subject_numbers: dict[str, int] = {}
        self.subjects: list[tuple[int, ...]] = []
        self.golds: list[str | None] = []
        self.answers: list[str | None] = []
        self.stems: list[str] = []
        self.gold_texts: list[str] = []

    def __len__(self) -> int:
        return len(self.stems)

    def merge(self, features: AuditFeatures) -> None:
        """Take in the next batch's features."""
        start = len(self.stems)
        for name, credit in features.credit.items():
            self.credit.setdefault(name, []).append(credit)
        self.gold.append(features.gold)
        vocabulary = self._vocabulary
        numbers = np.fromiter(
            (vocabulary.setdefault(s, len(vocabulary)) for s in features.vocabulary),
            dtype=np.int32,
            count=len(features.vocabulary),
        )
        self.words.append(TokenSets(numbers[features.words], features.lengths))
        kinds = self._kinds
        to_kind = [kinds.setdefault(pair, len(kinds)) for pair in features.kinds]
        self.kind.append(np.array(to_kind, dtype=np.int32)[features.kind])
        subjects = self._subject_numbers
        self.digests += features.digests
        self.positions.extend([start + p for p in features.positions])
        self.topic_digests += features.topic_digests
        self.topic_positions.extend([start + p for p in features.topic_positions])
        self.subjects += [
            tuple([subjects.setdefault(s, len(subjects)) for s in about]) if about else ()
            for about in features.subjects
        ]
        self.golds += features.golds
        self.answers += features.answers
        self.stems += features.stems
        self.gold_texts += features.gold_texts

    def _canonical(self, words: TokenSets) -> TokenSets:
        """``words`` with every stem numbered by its rank among all the stems audited (the
        MinHash of the near-duplicate search then depends on the items alone: not on the
        batches, the workers, or what this process read before)."""
        found = list(self._vocabulary)
        rank = np.empty(len(found), dtype=np.int32)
        rank[sorted(range(len(found)), key=found.__getitem__)] = np.arange(
            len(found), dtype=np.int32
        )
        return TokenSets(rank[words.tokens], words.lengths)

    def report(self, ids: Sequence[str]) -> AuditReport:
        """The audit of everything merged; ``ids``: the items' ids, in the order merged. Each
        part is let go once used (the largest, the stems, first), so this is called once."""
        count = len(self)
        names = list(self._subject_numbers)
        subjects = [[names[n] for n in about] for about in self.subjects]
        leaks = []
        for a, b in leak_pairs(subjects, self.golds, self.stems):
            answer = self.answers[b]
            assert answer is not None  # only an item with a gold phrase can be leaked
            leaks.append(Leak(ids[a], ids[b], answer))
        stems = self.stems
        self.subjects, self.golds, self.answers, self.stems = [], [], [], []
        gold = np.concatenate(self.gold) if self.gold else np.zeros(0, dtype=np.int64)
        credit = {name: np.concatenate(parts) for name, parts in self.credit.items()}
        kind = np.concatenate(self.kind) if self.kind else np.zeros(0, dtype=np.int32)
        table = table_of_credits(list(self._kinds), kind, gold, credit)
        self.gold, self.credit, self.kind = [], {}, []
        words, self.words = self._canonical(TokenSets.joined(self.words)), []
        golds, self.gold_texts = self.gold_texts, []
        topics = (bytes(self.topic_digests), self.topic_positions)
        clusters = duplicate_clusters(
            words, bytes(self.digests), self.positions, golds, subjects, topics, stems
        )
        duplicates = [[ids[i] for i in cluster] for cluster in clusters]
        reasons = [duplicate_reason(cluster, golds, subjects) for cluster in clusters]
        return AuditReport(
            count, table, table.artifacts(), duplicates, leaks, duplicate_reasons=reasons
        )


def duplicate_reason(
    cluster: Sequence[int], golds: Sequence[str], subjects: Sequence[Sequence[str]]
) -> str:
    """What the items of a cluster share, for its flags: the recording, the gold answer and the
    subjects they all name ("the same gold 'Dark green', about Dromaius novaehollandiae")."""
    shared = set(subjects[cluster[0]])
    for position in cluster[1:]:
        shared &= set(subjects[position])
    parts = []
    recordings = sorted(s.split(":", 1)[1].upper() for s in shared if s.startswith("recording:"))
    if recordings:
        parts.append(f"the same recording {recordings[0]}")
    if all(same_gold(golds[cluster[0]], golds[p]) for p in cluster[1:]):
        parts.append(f"the same gold {golds[cluster[0]].strip()!r}")
    else:  # worded otherwise (``duplicates.one_fact``)
        worded = list(dict.fromkeys(golds[p].strip() for p in cluster))
        parts.append("the golds " + " / ".join(repr(g) for g in worded[:3]))
    about = sorted(
        s.split(":", 1)[1] for s in shared if s.startswith(("text:", "record:", "taxon:"))
    )
    if about:
        parts.append("about " + ", ".join(about[:3]))
    return "; ".join(parts)
