"""A project with planted shortcuts, written as the flat item file a generator would emit and
imported the ordinary way.

* GloBI / Masked participant identification: the gold is always the longest option (the
  artifact); GloBI / Masked interaction type inference and all of Wikipedia are clean: gold
  positions and the gold's length rank cycle evenly, options share no word with the stem.
* bioRxiv: the gold sits in position B seven times in ten.
* Paraphrases: three Wikipedia questions asked twice in other words; one Xeno-canto recording
  asked about its dominant frequency twice.
* A leak: a GloBI stem names both partners of an interaction another item asks for.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from bagel_studio.core.importers import import_paths
from bagel_studio.core.store import Store

SYLLABLES = ["ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "ze", "pu", "gra", "bel", "dor", "fin"]

PARAPHRASES = [
    (
        "wikipedia:para:1a",
        "Which habitat does the crested porcupine Hystrix cristata prefer in northern Africa?",
        "wikipedia:para:1b",
        "In northern Africa, which habitat is preferred by the crested porcupine Hystrix cristata?",
        "Rocky hillsides with scrub",
    ),
    (
        "wikipedia:para:2a",
        "What colour are the eggs laid by the emu Dromaius novaehollandiae in winter?",
        "wikipedia:para:2b",
        "In winter, the emu Dromaius novaehollandiae lays eggs of what colour?",
        "Dark green",
    ),
    (
        "wikipedia:para:3a",
        "How many chambers does the stomach of the okapi Okapia johnstoni have?",
        "wikipedia:para:3b",
        "The stomach of the okapi Okapia johnstoni has how many chambers?",
        "Four chambers",
    ),
]
LEAKING_ID = "globi:leak:type"
LEAKED_ID = "globi:leak:participant"


def _word(rng: random.Random) -> str:
    return "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4)))


def _phrase(rng: random.Random, length: int) -> str:
    """A phrase of about ``length`` characters of made-up words (never in any stem)."""
    words: list[str] = []
    while len(" ".join(words)) < length:
        words.append(_word(rng))
    return " ".join(words)


def _stem(rng: random.Random, n: int) -> str:
    return (
        f"Question {n}: what is true of the "
        + " ".join(
            rng.choice(["animal", "bird", "beetle", "toad", "moth", "vole"]) for _ in range(3)
        )
        + "?"
    )


def _item(
    item_id: str,
    domain: str,
    dimension: str,
    question: str,
    options: list[str],
    answer: int,
    **extra: Any,
) -> dict[str, Any]:
    return {
        "id": item_id,
        "domain": domain,
        "dimension": dimension,
        "question": question,
        "options": options,
        "answer": "ABCD"[answer],
        **extra,
    }


def _clean_options(rng: random.Random, n: int) -> tuple[list[str], int]:
    """Four options whose gold position and gold length rank both cycle with ``n``."""
    lengths = sorted(rng.sample(range(14, 60), 4))
    rank = (n // 4) % 4  # the gold's length rank, independent of its position
    position = n % 4
    others = [length for i, length in enumerate(lengths) if i != rank]
    rng.shuffle(others)
    order = [*others[:position], lengths[rank], *others[position:]]
    return [_phrase(rng, length) for length in order], position


def planted_items(seed: int = 11) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    items: list[dict[str, Any]] = []
    for n in range(240):
        options, gold = _clean_options(rng, n)
        dimension = ("Behavior", "Diet", "Habitat")[n % 3]
        items.append(_item(f"wikipedia:{n}", "Wikipedia", dimension, _stem(rng, n), options, gold))
    for n in range(200):  # the artifact: the gold is the longest option
        options = [_phrase(rng, rng.randint(12, 30)) for _ in range(3)]
        gold = n % 4
        options.insert(gold, _phrase(rng, 48))
        items.append(
            _item(
                f"globi:participant:{n}",
                "GloBI",
                "Masked participant identification",
                _stem(rng, n),
                options,
                gold,
            )
        )
    for n in range(200):
        options, gold = _clean_options(rng, n)
        items.append(
            _item(
                f"globi:type:{n}",
                "GloBI",
                "Masked interaction type inference",
                _stem(rng, n),
                options,
                gold,
            )
        )
    for n in range(100):  # position B seven times in ten
        options, _ = _clean_options(rng, n)
        gold = 1 if n % 10 < 7 else (0, 2, 3)[n % 3]
        items.append(
            _item(f"biorxiv:{n}", "bioRxiv", "Result Interpretation", _stem(rng, n), options, gold)
        )
    for first, stem_a, second, stem_b, gold in PARAPHRASES:
        options = [gold, _phrase(rng, 20), _phrase(rng, 22), _phrase(rng, 18)]
        items.append(_item(first, "Wikipedia", "Habitat", stem_a, options, 0))
        items.append(_item(second, "Wikipedia", "Habitat", stem_b, [*options[1:], gold], 3))
    for suffix, question in (
        ("a", "In which band lies the dominant frequency of this song of Turdus merula?"),
        ("b", "Which frequency range dominates the song of Turdus merula?"),
    ):
        items.append(
            _item(
                f"xeno-canto:XC100:{suffix}",
                "Xeno-canto",
                "Dominant frequency range",
                question,
                ["1-2 kHz", "2-4 kHz", "5-7 kHz", "8-10 kHz"],
                1,
                recording="XC100",
            )
        )
    items.append(
        _item(
            LEAKING_ID,
            "GloBI",
            "Masked interaction type inference",
            "How does Vulpes vulpes interact with Microtus arvalis in pastures?",
            ["preys on", "pollinates", "is parasitized by", "visits flowers of"],
            0,
        )
    )
    items.append(
        _item(
            LEAKED_ID,
            "GloBI",
            "Masked participant identification",
            "Which small mammal does Vulpes vulpes prey on in pastures?",
            ["Microtus arvalis", "Apodemus sylvaticus", "Sorex araneus", "Talpa europaea"],
            0,
        )
    )
    return items


def write_planted(folder: Path, seed: int = 11) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "planted.jsonl"
    with path.open("w", encoding="utf-8") as handle:
        for item in planted_items(seed):
            handle.write(json.dumps(item) + "\n")
    return path


def planted_project(path: Path) -> Path:
    """A project file with the planted items imported (the checks run as on any import)."""
    source = write_planted(path.parent / "planted-source")
    with Store.open(path) as store:
        import_paths(store, [source])
    return path
