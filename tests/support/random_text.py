"""Random option texts for the tests that check a fast path against the slow one it stands for:
each option a few pieces drawn from a list of hostile ones (whitespace, case, NUL...)."""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence


def random_options(
    pieces: Sequence[str], seed: int, rounds: int, most: int = 3
) -> Iterator[tuple[str, ...]]:
    """``rounds`` sets of four options, each of 0 to ``most`` pieces, the same for a seed."""
    generator = random.Random(seed)
    for _ in range(rounds):
        yield tuple(
            "".join(generator.choice(pieces) for _ in range(generator.randint(0, most)))
            for _ in range(4)
        )
