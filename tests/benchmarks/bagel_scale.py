"""Write a BAGEL-sized flat item file for timing: the paper's domain x dimension mix (Table 2),
stems of ~180 characters and options of 20-52 (the Xeno-canto-like options short and alike, as
real ones are), ids ``<domain>:scale:<n>``.

Run: .venv/bin/python tests/benchmarks/bagel_scale.py N OUT.jsonl [SEED]
The same N and SEED give the same file; the benchmarks of issue 11 take their items from it.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

MIX = (
    (
        "Wikipedia",
        {
            "Behavior": 353,
            "Diet": 296,
            "Geographic Distribution": 281,
            "Taxonomy": 268,
            "Communication": 234,
            "Habitat": 234,
            "Morphology": 233,
            "Cognition": 28,
        },
    ),
    (
        "GloBI",
        {"Masked interaction type inference": 2120, "Masked participant identification": 1380},
    ),
    ("bioRxiv", {"Result Interpretation": 2183}),
    (
        "Xeno-canto",
        {
            "Dominant frequency range": 2747,
            "Call / syllable duration": 649,
            "Harmonic structure / tonality vs. broadband": 427,
            "Modulation pattern": 419,
        },
    ),
)
WORDS = [
    "species",
    "habitat",
    "forage",
    "nest",
    "predator",
    "prey",
    "song",
    "call",
    "frequency",
    "duration",
    "host",
    "parasite",
    "flower",
    "visit",
    "tree",
    "forest",
    "wetland",
    "migration",
    "range",
    "diet",
    "insect",
    "seed",
    "fruit",
    "fish",
    "mammal",
    "bird",
    "reptile",
    "amphibian",
    "colony",
    "territory",
    "breeding",
    "juvenile",
    "adult",
    "season",
    "dawn",
    "chorus",
]
LEVELS = ["easy"] * 7 + ["medium", "medium", "hard"]


def text(rnd: random.Random, length: int) -> str:
    out: list[str] = []
    while len(" ".join(out)) < length:
        out.append(rnd.choice(WORDS))
    return " ".join(out)[:length]


def _cell(at: float, cells: list[tuple[str, str, int]]) -> tuple[str, str]:
    """The (domain, dimension) whose share of the mix holds ``at``: the last one when none does."""
    acc = 0
    for domain, dim, n in cells:
        acc += n
        if at <= acc:
            return domain, dim
    return cells[-1][0], cells[-1][1]


def write(count: int, out: Path, seed: int = 0) -> Path:
    """Write ``count`` items to ``out`` (one JSON object per line) and return ``out``."""
    rnd = random.Random(seed)
    cells = [(domain, dim, n) for domain, dims in MIX for dim, n in dims.items()]
    total = sum(n for *_, n in cells)
    with out.open("w", encoding="utf-8") as handle:
        for i in range(count):
            domain, dim = _cell(rnd.random() * total, cells)
            options = [text(rnd, rnd.randint(20, 52)) for _ in range(4)]
            gold = 1 if rnd.random() < 0.6 else rnd.randrange(4)
            item = {
                "id": f"{domain.lower()}:scale:{i}",
                "domain": domain,
                "dimension": dim,
                "level": rnd.choice(LEVELS),
                "question": text(rnd, rnd.randint(120, 240)) + "?",
                "options": options,
                "answer": "ABCD"[gold],
            }
            handle.write(json.dumps(item) + "\n")
    return out


def main() -> None:
    count, out = int(sys.argv[1]), Path(sys.argv[2])
    write(count, out, int(sys.argv[3]) if len(sys.argv) > 3 else 0)


if __name__ == "__main__":
    main()
