"""The words the checks read as a curator reads them: the roots of the paper's forbidden
interaction words (``leaky-verb``), the birders' call and song words (``stem-vocalization``), a
record the reader cannot see (``hidden-context``), and a vague answer written in words beside a
specific one (``underspecified-interaction``)."""

from __future__ import annotations

import pytest
from checks_support import checked, new_item

from bagel_studio.core.checks.interactions import leaky_words
from bagel_studio.core.store import Store

INTERACTION = "Masked interaction type inference"
PARTICIPANT = "Masked participant identification"
BAND = "Dominant frequency range"


@pytest.mark.parametrize(
    "word",
    [
        "predation",
        "predatory",
        "consumer",
        "consumption",
        "eater",
        "seed-eaters",
        "infectious",
        "infective",
        "pollinators",
        "parasitization",
        "kleptoparasitism",
        "hyperparasitoids",
        "mutualistic",
        "commensalistic",
    ],
)
def test_leaky_verb_reads_every_word_of_a_forbidden_root(word: str) -> None:
    item = new_item(
        "globi:leak:root",
        "GloBI",
        f"Noted for its {word} habits, how does Vulpes vulpes relate to Microtus agrestis?",
        ["eats", "parasite of", "pollinates", "nests in"],
        "A",
        INTERACTION,
    )
    flag = checked(Store.memory(), item)["globi:leak:root"]["leaky-verb"]
    leaked = word.rpartition("-")[2]  # "seed-eaters": the word of the root is "eaters"
    assert flag.details["words"] == [leaked]
    assert f'"{leaked}"' in flag.message


@pytest.mark.parametrize(
    "word",
    ["feeds", "symbiont", "hostile", "Eastern", "great", "presumption", "hostel", "neat"],
)
def test_leaky_verb_leaves_words_of_other_roots(word: str) -> None:
    assert leaky_words(f"How does the {word} Vulpes vulpes relate to Microtus agrestis?") == []
