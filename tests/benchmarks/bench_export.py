"""Benchmark: export of a release of 11,852 accepted items (BAGEL's size, split as in its Table 2).

Baseline: reading the same items from the project and writing them as JSONL rows, nothing else
(no shuffle, no provenance, no report). Target: the full export within 3x of the baseline and
under 2 s. The first export pays for first-use costs (module imports, the plot font, regex and
layout caches); the second one shows the steady state. Run:
``.venv/bin/python tests/benchmarks/bench_export.py``.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bagel_studio.core.domains import DIMENSIONS, LETTERS, PAPER_DOMAIN_COUNTS  # noqa: E402
from bagel_studio.core.export import export_release, plan_export  # noqa: E402
from bagel_studio.core.store import Store  # noqa: E402
from tests.core.export.export_support import (  # noqa: E402
    decide_all,
    new_project,
    synthetic_items,
)

TARGET_RATIO = 3.0
TARGET_SECONDS = 2.0


def build(path: Path) -> Store:
    items = []
    for domain, count in PAPER_DOMAIN_COUNTS.items():
        items += synthetic_items(count, domain, dimension=DIMENSIONS[domain][0])
    store = new_project(path, items)
    decide_all(store, store.item_ids())
    return store


def baseline(store: Store, out: Path) -> float:
    """Read the items and write them as flat JSONL rows: the least any export must do."""
    start = time.perf_counter()
    with open(out, "w", encoding="utf-8", newline="\n") as handle:
        for item in store.iter_items():
            c = item.content
            assert c.answer_index is not None
            row = {
                "id": item.id,
                "domain": item.domain,
                "dimension": c.dimension,
                "level": c.level,
                "question": c.question,
                "options": list(c.options),
                "answer": LETTERS[c.answer_index],
                "answer_index": c.answer_index,
            }
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    return time.perf_counter() - start


def timed(func: object, *args: object, **kwargs: object) -> float:
    start = time.perf_counter()
    func(*args, **kwargs)  # type: ignore[operator]
    return time.perf_counter() - start


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        start = time.perf_counter()
        store = build(folder / "bench.bagel")
        count = store.item_count()
        sys.stdout.write(
            f"project: {count} accepted items built in {time.perf_counter() - start:.2f} s\n"
        )
        base = min(baseline(store, folder / f"rows{i}.jsonl") for i in range(3))
        plan = timed(plan_export, store, 1)
        first = timed(export_release, store, folder / "release1", 1)
        second = timed(export_release, store, folder / "release2", 1)
        store.close()
    best = min(first, second)
    sys.stdout.write(
        f"baseline (read + write rows as JSONL): {base:.3f} s\n"
        f"plan only (collect, deal, permute):     {plan:.3f} s\n"
        f"export, first (first-use costs):        {first:.3f} s  ({first / base:.1f}x)\n"
        f"export, second:                         {second:.3f} s  ({second / base:.1f}x)\n"
        f"targets: within {TARGET_RATIO:.0f}x of the baseline -> "
        f"{'met' if best <= TARGET_RATIO * base else 'MISSED'}; "
        f"under {TARGET_SECONDS:.0f} s -> {'met' if first < TARGET_SECONDS else 'MISSED'}\n"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
