"""Synthetic BAGEL-sized inputs for the benchmarks: the paper's domain and dimension mix
(Table 2: Wikipedia 1,927, GloBI 3,500, bioRxiv 2,183, Xeno-canto 4,242 = 11,852 items), stems of
about 180 characters, options of about 36, and evidence texts they refer to."""

from __future__ import annotations

import json
import random
from pathlib import Path

from bagel_studio.core.domains import DIMENSIONS, LEVELS, PAPER_DOMAIN_COUNTS

WORDS = [
    "forest",
    "species",
    "record",
    "nesting",
    "behaviour",
    "foraging",
    "habitat",
    "observed",
    "population",
    "song",
    "call",
    "predator",
    "prey",
    "host",
    "parasite",
    "flower",
    "visits",
    "interaction",
    "wetland",
    "riparian",
    "canopy",
    "migratory",
    "breeding",
    "juvenile",
    "adult",
    "colony",
    "territory",
    "seasonal",
    "diurnal",
    "nocturnal",
    "altitude",
    "coastal",
]


def sentence(rng: random.Random, length: int) -> str:
    words: list[str] = []
    while len(" ".join(words)) < length:
        words.append(rng.choice(WORDS))
    return " ".join(words)[:length].rstrip().capitalize()


def write_items(folder: Path, seed: int = 7) -> tuple[Path, list[Path], int]:
    """Write ``items.jsonl`` plus evidence texts into ``folder``; return (items, texts, count)."""
    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    texts: list[Path] = []
    for n in range(200):
        path = folder / f"Species_{n:03d}.txt"
        body = "\n".join(sentence(rng, 400) + "." for _ in range(12))
        path.write_text(
            f"The species {n} (Genus species{n}) is an animal.\n{body}\n", encoding="utf-8"
        )
        texts.append(path)
    items_path = folder / "items.jsonl"
    count = 0
    with items_path.open("w", encoding="utf-8") as handle:
        for domain, total in PAPER_DOMAIN_COUNTS.items():
            dims = DIMENSIONS[domain]
            for i in range(total):
                item = {
                    "id": f"{domain.lower()}:{i}",
                    "domain": domain,
                    "dimension": dims[i % len(dims)],
                    "level": LEVELS[i % 3],
                    "question": sentence(rng, 178) + "?",
                    "options": [sentence(rng, 36) + f" {k}" for k in range(4)],
                    "answer": "ABCD"[rng.randrange(4) if rng.random() < 0.3 else 1],
                    "source": {"title": f"Species_{i % 200:03d}"},
                }
                handle.write(json.dumps(item) + "\n")
                count += 1
    return items_path, texts, count
