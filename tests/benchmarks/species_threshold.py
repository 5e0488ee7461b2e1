"""The measurement behind ``species.THRESHOLD``: how confident BirdNET is of each real clip's own
species, and of every other species of the same genus in its list (what a clip relabelled with a
congener would score), on the project's Xeno-canto clips (resources/data/xeno_canto).

Run: .venv/bin/python tests/benchmarks/species_threshold.py [--threshold 0.5]

Printed per clip: the own species' best window confidence and all its windows, then its
congeners' best confidence (the strongest named); then the lowest own best, the highest congener
best, and where the threshold falls between them. The threshold is right when every clip's own
species reaches it and no congener does, with room on both sides.
"""

from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bagel_studio.core.audio import birdnet  # noqa: E402
from bagel_studio.core.audio.analysis import MAX_SECONDS  # noqa: E402
from bagel_studio.core.audio.decode import decode  # noqa: E402
from bagel_studio.core.audio.species import THRESHOLD, answer, detect  # noqa: E402

CLIPS = ROOT / "resources" / "data" / "xeno_canto"


def congeners(species: str) -> list[str]:
    genus = species.split()[0].casefold()
    return [
        label.scientific
        for label in birdnet.labels()
        if label.is_species
        and label.scientific.split()[0].casefold() == genus
        and label.scientific.casefold() != species.casefold()
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threshold", type=float, default=THRESHOLD)
    args = parser.parse_args()
    if birdnet.unavailable():
        print(birdnet.unavailable())
        return 2
    own_bests: list[float] = []
    congener_bests: list[tuple[float, str, str]] = []
    with (CLIPS / "recordings.csv").open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    for row in rows:
        species = f"{row['gen']} {row['sp']}"
        detection = detect(decode(CLIPS / row["file-name"], MAX_SECONDS))
        own = answer(detection, species)
        own_bests.append(own.best)
        scores = sorted(
            ((answer(detection, other).best, other) for other in congeners(species)), reverse=True
        )
        strongest = scores[0] if scores else (0.0, "-")
        congener_bests.append((strongest[0], strongest[1], species))
        windows = " ".join(f"{c:.2f}" for c in own.curve)
        print(
            f"XC{row['id']:>7} {species:<24} own best {own.best:.3f} (windows {windows});"
            f" {len(scores)} congeners, best {strongest[0]:.3f} ({strongest[1]})"
        )
    low = min(own_bests)
    high = max(congener_bests)
    print(f"lowest own-species best: {low:.3f}")
    print(f"highest congener best:   {high[0]:.3f} ({high[1]} in the {high[2]} clip)")
    verdict = "between them" if high[0] < args.threshold <= low else "NOT between them"
    print(
        f"threshold {args.threshold:.2f}: {verdict} (margin {low - args.threshold:+.3f} below the"
        f" own species, {args.threshold - high[0]:+.3f} above the congeners)"
    )
    return 0 if high[0] < args.threshold <= low else 1


if __name__ == "__main__":
    sys.exit(main())
