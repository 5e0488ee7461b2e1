"""The audit reads a batch of items at once (one tokenizing pass over all their texts, one
binomial search over all their stems): it must read each text exactly as it would read it alone,
and find the same near-duplicates whatever order, batch or process the items come in."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

from bagel_studio.core.audit import AuditItem, audit_items
from bagel_studio.core.audit.features import _folded
from bagel_studio.core.audit.items import subjects_of
from bagel_studio.core.audit.words import phrase, tokenize
from bagel_studio.core.checks.words import STOP_WORDS, stem
from bagel_studio.core.model import Item, ItemContent, Status

ROOT = Path(__file__).resolve().parents[3]

AWKWARD = [
    "",
    "   ",
    "The Red Fox (Vulpes vulpes) eats voles, mice & beetles!",
    "ΟΔΥΣΣΕΥΣ sailed; ΣΟΦΙΑ’s owl — “hoots” at dawn…",
    "tabs\tand\nnewlines\r\nand\x0bvertical\x1cseparators\x1fhere",
    "non\u00a0breaking\u2009thin\u3000ideographic spaces",
    "a NUL \x00 inside, and\x00glued",
    "# hashes #are punctuation#",
    "İstanbul gulls' nests",
    "Σ alone, ΣΣ, aΣ bΣc",
    "a lone \ud800 surrogate, \x85next\u2028line, 1½ × 2° · ok…",
]


def _content_words(text: str) -> set[str]:
    """What the audit means by a text's content words (its stems, stop words left out)."""
    found = set()
    for word in phrase(text).split():
        if word not in STOP_WORDS and word.strip("'") not in STOP_WORDS:
            found.add(stem(word))
    return found


def test_tokenizing_texts_together_reads_each_as_alone() -> None:
    from bagel_studio.core.audit.words import stems

    for texts in (AWKWARD, [t for t in AWKWARD if "\x00" not in t], AWKWARD[2:3], []):
        tokens = tokenize(texts)
        text_of = tokens.text_of()
        assert len(tokens.starts) == len(texts)
        for position, text in enumerate(texts):
            assert tokens.phrase(position) == phrase(text)
            numbers = tokens.numbers[(text_of == position) & (tokens.numbers >= 0)]
            assert set(stems(numbers.tolist())) == _content_words(text)


def test_options_are_folded_and_measured_as_one_by_one() -> None:
    plain = ["Rocky hillsides", "DARK green", "2-4 kHz", "Straße"]
    for options in (plain, [*plain[:3], " padded "], [*plain[:3], "two  spaces"], AWKWARD[:4]):
        lengths, folded = _folded(options)
        assert lengths.tolist() == [len(o.strip()) for o in options]
        assert folded == [" ".join(o.split()).casefold() for o in options]


def test_every_whitespace_character_is_below_the_ideographic_space() -> None:
    # ``_folded`` looks for the whitespace characters up to U+3000 only.
    assert not [c for c in map(chr, range(0x3001, sys.maxunicode + 1)) if c.isspace()]


def _item(question: str, **fields: object) -> Item:
    content = ItemContent(question, ("a", "b", "c", "d"), 0, "Diet", "easy")
    values: dict[str, object] = {
        "id": "x",
        "domain": "Wikipedia",
        "content": content,
        "original": content,
        "status": Status.UNREVIEWED,
        "source": {},
    }
    return Item(**(values | fields))  # type: ignore[arg-type]


def test_subjects_of_many_questions_are_each_question_s() -> None:
    questions = [
        "Does Vulpes vulpes eat Microtus arvalis?",
        "Which Turdus merula sings? XVulpes vulpes is no name",
        "Vulpes",
        "vulpes Vulpes",
        "Where Canis lupus roams, which prey?",
        "Both Canis lupus",
        "Which bird sings?",
    ]
    items = [
        _item(questions[0], text_key="wiki/fox", source={"scientific_name": " Vulpes  Vulpes "}),
        _item(questions[1], recording_id="XC7", globi_ref="r1"),
        _item(questions[2], source={"scientific_name": "  "}),
        _item(questions[3], source=["not", "a", "dict"]),
        _item(questions[4]),
        _item(questions[5]),
        _item(questions[6]),
    ]
    assert subjects_of(items, questions) == [
        {"text:wiki/fox", "taxon:vulpes vulpes", "taxon:microtus arvalis"},
        {"recording:xc7", "record:r1", "taxon:turdus merula"},
        set(),
        set(),
        {"taxon:canis lupus"},  # "Where" is no genus
        {"taxon:canis lupus"},
        set(),  # nor is "Which"
    ]


# Near-duplicate pairs right at the similarity threshold (3 shared words of 5): MinHash finds
# such a pair with a probability of 0.99, so which of them it finds depends on how the words
# are numbered. They must be numbered by the items alone.
_DETERMINISM = """
import json, random, sys
from bagel_studio.core.audit import AuditItem, audit_items
from bagel_studio.core.model import ItemContent

def word(rng):
    return "".join(rng.choice("bdfgkmnprtvz") + rng.choice("aiou") for _ in range(4)) + "k"

def items():
    rng = random.Random(5)
    found = []
    for n in range(300):
        w = [word(rng) for _ in range(5)]
        for half, words in (("a", w[:4]), ("b", [*w[:3], w[4]])):
            content = ItemContent(" ".join(words), (w[0], "x1", "y2", "z3"), 0, "Diet", "easy")
            found.append(AuditItem(f"{n}{half}", "Wikipedia", "Diet", content.question,
                                   content.options, 0, None, frozenset(), content))
    return found

all_items = items()
if sys.argv[1] == "shuffled":
    # Another process, which met other words first and reads the items in another order.
    rng = random.Random(9)
    audit_items([AuditItem("w", "Wikipedia", "Diet", " ".join(word(rng) for _ in range(4000)),
                           ("a", "b", "c", "d"), 0, None, frozenset(), all_items[0].content)])
    rng.shuffle(all_items)
clusters = audit_items(all_items).duplicates
print(json.dumps(sorted(sorted(c) for c in clusters)))
"""


def test_the_project_audit_finds_the_same_clusters_in_any_order_and_process() -> None:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    runs = [
        subprocess.run(
            [sys.executable, "-c", _DETERMINISM, how],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for how in ("plain", "shuffled")
    ]
    clusters = [json.loads(run) for run in runs]
    assert clusters[0] == clusters[1]
    assert 250 < len(clusters[0]) <= 300  # most of the borderline pairs, nothing else
    assert all(len(c) == 2 and c[0][:-1] == c[1][:-1] for c in clusters[0])


def test_an_audit_in_batches_is_the_audit_of_all_items() -> None:
    rng = random.Random(3)
    words = [f"w{n}x" for n in range(150)]  # few words: pairs share some
    items = []
    for n in range(5000):
        question = " ".join(rng.choice(words) for _ in range(rng.randint(3, 12)))
        options = tuple(" ".join(rng.choice(words) for _ in range(2)) for _ in range(4))
        content = ItemContent(question, options, n % 4, "Diet", "easy")
        about = frozenset({f"text:{n % 50}"})
        items.append(
            AuditItem(f"i{n}", "Wikipedia", "Diet", question, options, n % 4, None, about, content)
        )
    whole = audit_items(items)
    assert whole.duplicates and whole.leaks  # the same fact about one text, the same words
    assert audit_items(items, batch=7) == audit_items(items, batch=1) == whole


def test_the_release_audit_imports_neither_scipy_nor_the_model_tables() -> None:
    """The export runs in a fresh interpreter: scipy.special alone took longer to import than
    the whole audit of 11,852 items takes."""
    code = """
import sys
from bagel_studio.core.audit import AuditItem, audit_items
from bagel_studio.core.export import audit_section
from bagel_studio.core.model import ItemContent
content = ItemContent("Which bird sings at dawn?", ("a robin", "b", "c", "d"), 0, "Diet", "easy")
item = AuditItem("i", "Wikipedia", "Diet", content.question, content.options, 0, None,
                 frozenset(), content)
assert audit_items([item] * 300).items == 300
print(sorted(m for m in sys.modules if m.startswith(("scipy", "bagel_studio.core.llm"))
             or m == "bagel_studio.core.audit.options_only"))
"""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "[]"


def test_a_capitalised_word_and_the_next_inside_a_place_name_are_no_species() -> None:
    # "the Sonoran Desert food web": "Desert food" has a binomial's shape but follows "Sonoran",
    # a name's first word; two items sharing only the place are not about one species.
    questions = [
        "Which deer is prey of the puma (Puma concolor) in the Sonoran Desert food web?",
        "Which predator eats bighorn sheep (Ovis canadensis) in the Sonoran Desert food web?",
        "Sonoran Desert food webs: which cactus does Melanerpes uropygialis nest in?",
    ]
    items = [_item(q) for q in questions]
    assert subjects_of(items, questions) == [
        {"taxon:puma concolor"},
        {"taxon:ovis canadensis"},
        {"taxon:melanerpes uropygialis"},
    ]
