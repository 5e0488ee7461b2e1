"""Writes a BAGEL-shaped flat item file of any size, for timing at scale.

The paper's domain and dimension mix (Table 2), ~180-character stems, options of 20-52 characters
drawn from a small vocabulary (so, like Xeno-canto's, they are short and alike), mostly easy.

usage: python tests/benchmarks/bagel_scale.py N OUT.jsonl [SEED]
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

MIX = [
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
]
WORDS = (  # noqa: SIM905 (a vocabulary reads better as one string)
    "species habitat forage nest predator prey song call frequency duration host parasite flower "
    "visit tree forest wetland migration range diet insect seed fruit fish mammal bird reptile "
    "amphibian colony territory breeding juvenile adult season dawn chorus"
).split()


def _text(rnd: random.Random, length: int) -> str:
    out: list[str] = []
    while len(" ".join(out)) < length:
        out.append(rnd.choice(WORDS))
    return " ".join(out)[:length]


def _cell(cells: list[tuple[str, str, int]], pick: float) -> tuple[str, str]:
    acc = 0
    for domain, dimension, n in cells:
        acc += n
        if pick <= acc:
            return domain, dimension
    return cells[-1][0], cells[-1][1]


def write_scale_items(count: int, out: Path, seed: int = 0) -> Path:
    """Write ``count`` items to ``out`` (JSON Lines) and return ``out``."""
    rnd = random.Random(seed)
    cells = [(domain, dim, n) for domain, dims in MIX for dim, n in dims.items()]
    total = sum(n for *_, n in cells)
    with open(out, "w", encoding="utf-8") as handle:
        for number in range(count):
            domain, dimension = _cell(cells, rnd.random() * total)
            options = [_text(rnd, rnd.randint(20, 52)) for _ in range(4)]
            gold = 1 if rnd.random() < 0.6 else rnd.randrange(4)
            item = {
                "id": f"{domain.lower()}:scale:{number}",
                "domain": domain,
                "dimension": dimension,
                "level": rnd.choice(["easy"] * 7 + ["medium", "medium", "hard"]),
                "question": _text(rnd, rnd.randint(120, 240)) + "?",
                "options": options,
                "answer": "ABCD"[gold],
            }
            handle.write(json.dumps(item) + "\n")
    return out


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("count", type=int, help="items to write")
    parser.add_argument("out", type=Path, help="the JSON Lines file written")
    parser.add_argument("seed", type=int, nargs="?", default=0)
    args = parser.parse_args()
    write_scale_items(args.count, args.out, args.seed)
