"""The audit's fast paths read a batch exactly as the plain way reads it, on hostile text: the
words numbered in numpy (``words._numbered``) as looked up one by one, ASCII options checked for
whitespace in numpy as ``str.split`` sees it, and a batch's features as a plain reading of each
item on its own."""

from __future__ import annotations

import random

import numpy as np
import pytest

from bagel_studio.core.audit import words
from bagel_studio.core.audit.baselines import item_credits
from bagel_studio.core.audit.duplicates import gold_variants, group_keys, key_digests
from bagel_studio.core.audit.features import _folded, features, item_rows
from bagel_studio.core.audit.items import AuditItem
from bagel_studio.core.audit.leaks import leakable
from bagel_studio.core.audit.words import phrase
from bagel_studio.core.checks.words import STOP_WORDS, stem
from bagel_studio.core.model import ItemContent

HOSTILE = [
    "",
    "   ",
    "The Red Fox (Vulpes vulpes) eats voles, mice & beetles!",
    "ΟΔΥΣΣΕΥΣ sailed; ΣΟΦΙΑ’s owl — “hoots” at dawn…",
    "tabs\tand\nnewlines\r\nand\x0bvertical\x1cseparators\x1fhere",
    "non\u00a0breaking\u2009thin\u3000ideographic spaces",
    "# hashes #are punctuation#",
    "İstanbul gulls' nests",
    "Σ alone, ΣΣ, aΣ bΣc",
    "a lone \ud800 surrogate, \x85next\u2028line, 1½ × 2° · ok…",
    "  leading and trailing  ",
    "double  spaced  words",
    "DEL\x7fand bell\x07 controls",
    # Words either side of the 8 and 16 bytes the numpy path reads at once, and far longer.
    "abcdefg abcdefgh abcdefghi abcdefghijklmno abcdefghijklmnop abcdefghijklmnopq",
    "abcdefghijklmnopqrstuvwxyz abcdefghijklmnopqrstuvwxyz0123456789 abcdefgh abcdefghijklmnopq",
    "pneumonoultramicroscopicsilicovolcanoconiosis Pneumonoultramicroscopicsilicovolcanoconiosis",
    "λλλλλλλλ λλλλλλλλλ κατοικίδιων ζώων οικογένειας Ιπποπόταμος",
    "食肉目 イヌ科 キツネ属 の 動物 狐狸 狐狸狐狸狐狸狐",
    "café naïve façade CAFÉ Straße STRASSE",
    "it's the fox's den’s entrance, ’tis",
    "42 3.14 1,000 2-4 kHz 10kHz",
]


def _content_words(text: str) -> set[str]:
    """A text's content words as the audit means them: its stems, stop words left out."""
    return {
        stem(w)
        for w in phrase(text).split()
        if w not in STOP_WORDS and w.strip("'") not in STOP_WORDS
    }


def _batches() -> list[list[str]]:
    rng = random.Random(11)
    vocabulary = [w for text in HOSTILE for w in text.split()] + [f"w{n}" for n in range(300)]
    long_stem = " ".join(rng.choice(vocabulary) for _ in range(20_000))
    shuffled = [
        " ".join(rng.choice(vocabulary) for _ in range(rng.randint(0, 40))) for _ in range(500)
    ]
    return [HOSTILE, [long_stem, *HOSTILE], shuffled, [""], ["   "], []]


@pytest.mark.parametrize("texts", _batches())
def test_words_are_numbered_in_numpy_as_looked_up_one_by_one(texts: list[str]) -> None:
    buffer = words._buffer(texts)
    plain = words.looked_up(buffer.split())
    fast = words._numbered(buffer)
    assert fast is not None
    assert fast.dtype == plain.dtype == np.int32
    assert fast.tolist() == plain.tolist()
    assert words.tokenize(texts).numbers.tolist() == plain.tolist()


def test_words_sharing_a_hash_are_looked_up_plainly() -> None:
    texts = HOSTILE[2:6]
    buffer = words._buffer(texts)
    assert words._numbered(buffer, hash_bits=1) is None  # two words of one hash told apart
    assert words._numbered(b"\x00" + buffer) is None  # a NUL could be taken for padding
    assert words.tokenize([*texts, "a NUL \x00 inside"]).numbers.tolist() == (
        words.looked_up(words._buffer([*texts, "a NUL \x00 inside"]).split()).tolist()
    )


OPTIONS = [
    "Rocky hillsides",
    "DARK green",
    "",
    " ",
    " padded ",
    "two  spaces",
    "tab\there",
    "unit\x1fseparator",
    "DEL\x7f",
    "bell\x07",
    "a",
    "Straße",
    "non\u00a0breaking",
]


def test_options_are_folded_and_measured_as_one_by_one() -> None:
    rng = random.Random(2)
    batches = [OPTIONS[:2] * 2, OPTIONS[10:11] * 4, []]
    batches += [[rng.choice(OPTIONS) for _ in range(4 * rng.randint(1, 5))] for _ in range(300)]
    for options in batches:
        lengths, folded = _folded(options)
        assert lengths.dtype == np.float64
        assert lengths.tolist() == [len(o.strip()) for o in options]
        assert folded == [" ".join(o.split()).casefold() for o in options]


def _items(count: int, nul: bool = False) -> list[AuditItem]:
    rng = random.Random(7)
    vocabulary = [w for text in HOSTILE for w in text.split()] + ["fox", "foxes", "the", "of"]

    def text(most: int) -> str:
        return rng.choice(" \t\u00a0").join(
            rng.choice(vocabulary) for _ in range(rng.randint(0, most))
        )

    items = []
    for n in range(count):
        question = rng.choice(HOSTILE) if n % 10 == 0 else text(60)
        if nul and n % 50 == 25:  # the batch is read text by text; stems end in NUL
            question = f"a NUL \x00 inside, and\x00glued {question} fox\x00 \x00\x00"
        options = tuple(rng.choice(["", "  ", text(6), text(3)]) for _ in range(4))
        answer = rng.randrange(4)
        about = frozenset({f"text:{n % 7}"}) if n % 3 else frozenset()
        recording = f"XC{n % 5}" if n % 4 == 0 else None
        content = ItemContent(question, options, answer, "Diet", "easy")
        items.append(
            AuditItem(f"i{n}", "Wikipedia", "Diet", question, options, answer, recording, about,
                      content)
        )  # fmt: skip
    return items


@pytest.mark.parametrize("nul", [False, True])
def test_a_batch_s_features_are_a_plain_reading_of_each_item(nul: bool) -> None:
    items = _items(400, nul)
    found = features(item_rows(items))
    sets = [_content_words(i.question) | _content_words(i.gold) for i in items]
    assert found.vocabulary == sorted(set().union(*sets))
    assert found.lengths.tolist() == [len(s) for s in sets]
    ends = np.cumsum(found.lengths).tolist()
    for item_set, end, length in zip(sets, ends, found.lengths.tolist(), strict=True):
        numbers = found.words[end - length : end].tolist()
        assert len(set(numbers)) == length
        assert {found.vocabulary[n] for n in numbers} == item_set
    lengths = np.array([[len(o.strip()) for o in i.options] for i in items], dtype=float)
    overlap = np.array(
        [[len(_content_words(i.question) & _content_words(o)) for o in i.options] for i in items],
        dtype=float,
    )
    folded = [" ".join(o.split()).casefold() for i in items for o in i.options]
    gold = np.array([i.answer_index for i in items])
    plain = item_credits(lengths, overlap, folded, gold)
    assert found.credit.keys() == plain.keys()
    for name, credit in plain.items():
        assert found.credit[name].tolist() == credit.tolist(), name
    digests, positions = b"", []
    for position, item in enumerate(items):
        concerned = item.recording_id or item.subjects
        gold_words = _content_words(item.gold) if concerned else set()
        variants = gold_variants(item.gold) if gold_words else ((),)  # numbers as quantities
        keys = list(
            dict.fromkeys(
                key
                for fact in variants
                for key in group_keys(item.dimension, item.recording_id, item.subjects, fact)
            )
        )
        digests += b"".join(key_digests(keys))
        positions += [position] * len(keys)
        gold_phrase = leakable(phrase(item.gold), phrase(item.question)) if gold_words else None
        assert found.golds[position] == gold_phrase
        assert found.answers[position] == (item.gold.strip() if gold_phrase else None)
        assert found.stems[position] == (phrase(item.question) if concerned else "")
    assert (found.digests, found.positions) == (digests, positions)
    assert found.golds.count(None) < len(items)  # some items can leak: the search has work


def test_an_empty_batch_has_empty_features() -> None:
    found = features(item_rows([]))
    assert found.words.dtype == np.int32 and found.lengths.tolist() == found.words.tolist() == []
    assert found.vocabulary == found.stems == [] and all(not len(c) for c in found.credit.values())


def test_binomials_are_found_in_a_batch_as_in_each_question_alone() -> None:
    from bagel_studio.core.audit.items import _BINOMIAL, _NOT_GENUS, stored_subjects

    batches = [
        HOSTILE,
        ["what does vulpes vulpes eat?", "which bird sings at dawn?"],  # no capital at all
        ["Does Vulpes vulpes eat Microtus arvalis?", "ÑVulpes vulpes", "É Canis lupus"],
        [],
    ]
    for questions in batches:
        nothing = [None] * len(questions)
        found = stored_subjects(nothing, nothing, nothing, nothing, questions)
        if questions is batches[2]:
            found_in_third = found[0]
        for question, subjects in zip(questions, found, strict=True):
            alone = {
                f"taxon:{(m[1] + m[2]).casefold()} {m[3]}"
                for m in _BINOMIAL.finditer(question)
                if (m[1] + m[2]).lower() not in _NOT_GENUS
            }
            assert subjects == alone
    assert found_in_third == {"taxon:vulpes vulpes", "taxon:microtus arvalis"}
