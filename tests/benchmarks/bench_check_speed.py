"""Benchmark of the checks with evidence loaded: every check over N items (default 11,852, the
paper's mix) with 10,000 GloBI records loaded, on one process and on one per CPU (target: under
10 s), and re-checking one edited item (target: under 50 ms).

Run: .venv/bin/python tests/benchmarks/bench_check_speed.py [N] [--repeat 3]
The items follow the paper's mix (Wikipedia 1,927, GloBI 3,500, bioRxiv 2,183, Xeno-canto 4,242,
scaled to N); Wikipedia items point at the bundled articles, GloBI items at synthetic records
with lineages. Each figure is the median of REPEAT runs on a fresh copy of the project, wall
time beside CPU time (of every process); the load average is printed before and after.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bagel_studio.core import operations  # noqa: E402
from bagel_studio.core.checks import check_all, recheck_item  # noqa: E402
from bagel_studio.core.domains import (  # noqa: E402
    BIORXIV,
    DIMENSIONS,
    GLOBI,
    PAPER_DOMAIN_COUNTS,
    WIKIPEDIA,
    XENO_CANTO,
)
from bagel_studio.core.model import ItemContent  # noqa: E402
from bagel_studio.core.store import NewItem, Store  # noqa: E402

DATA = ROOT / "resources" / "data"
RECORDS = 10_000
SPECIES_ARTICLES = 241  # 1,927 Wikipedia items at up to eight per article
TARGET_ALL_S = 10.0
TARGET_ONE_MS = 50.0
SYLLABLES = tuple("bacedifolumanepirosatevixozugahe"[i : i + 2] for i in range(0, 32, 2))
INTERACTIONS = (
    "eats",
    "parasite of",
    "has host",
    "visits flowers of",
    "pollinates",
    "has habitat",
    "interacts with",
    "host of",
    "preys on",
    "endoparasite of",
)


def latin(rng: random.Random, ending: str) -> str:
    return "".join(rng.choice(SYLLABLES) for _ in range(2)) + ending


def make_taxa(rng: random.Random, count: int) -> list[tuple[str, str]]:
    """(name, lineage path) of ``count`` species in a few hundred genera and families."""
    families = [latin(rng, "idae").capitalize() for _ in range(60)]
    genera = [(latin(rng, "us").capitalize(), rng.choice(families)) for _ in range(400)]
    taxa = []
    for _ in range(count):
        genus, family = rng.choice(genera)
        name = f"{genus} {latin(rng, rng.choice(('a', 'us', 'i', 'ensis')))}"
        taxa.append((name, f"Animalia | Arthropoda | Insecta | {family} | {genus} | {name}"))
    return taxa


def make_records(rng: random.Random, taxa: list[tuple[str, str]]) -> list[dict[str, Any]]:
    records = []
    for row in range(1, RECORDS + 1):
        (source, source_path), (target, target_path) = rng.sample(taxa, 2)
        records.append(
            {
                "ref": f"bench.tsv#{row}",
                "table_name": "bench.tsv",
                "row": row,
                "source_taxon": source,
                "interaction": rng.choice(INTERACTIONS),
                "target_taxon": target,
                "source_path": source_path,
                "target_path": target_path,
                "record": {"sourceTaxonName": source, "targetTaxonName": target},
            }
        )
    return records


def globi_item(rng: random.Random, n: int, records: list[dict[str, Any]]) -> NewItem:
    rec = records[rng.randrange(len(records))]
    others = [records[rng.randrange(len(records))]["target_taxon"] for _ in range(3)]
    if n % 2:
        question = (
            f"Which taxon is recorded as the partner of {rec['source_taxon']} in this "
            "kind of interaction, given its ecology?"
        )
        options = [rec["target_taxon"], *others]
        dimension = DIMENSIONS["GloBI"][1]
    else:
        question = (
            f"What is the most likely ecological relationship of {rec['source_taxon']} "
            f"to {rec['target_taxon']}?"
        )
        options = [rec["interaction"], *[i for i in INTERACTIONS if i != rec["interaction"]][:3]]
        dimension = DIMENSIONS["GloBI"][0]
    content = ItemContent(question, tuple(options), 0, dimension)
    return NewItem(
        f"globi:{n}",
        "GloBI",
        content,
        globi_ref=rec["ref"],
        source={
            "summary": f"{rec['source_taxon']} {rec['interaction']} "
            f"{rec['target_taxon']} in a study of forest insects."
        },
    )


def text_item(rng: random.Random, domain: str, n: int, key: str, text: str) -> NewItem:
    words = [w for w in text.split() if w.isalpha() and len(w) > 5]

    def pick(k: int) -> str:
        return " ".join(rng.sample(words, k))

    question = f"What does the article say about the {pick(3)} of this species and its {pick(2)}?"
    content = ItemContent(
        question,
        tuple(pick(3).capitalize() for _ in range(4)),
        1,
        DIMENSIONS[domain][n % len(DIMENSIONS[domain])],
    )
    source = {"text": text} if domain == "bioRxiv" else {}
    return NewItem(f"{domain.lower()}:{n}", domain, content, text_key=key or None, source=source)


def xc_item(rng: random.Random, n: int) -> NewItem:
    kind = rng.choice(("song", "call", ""))
    question = (
        f"What is the typical dominant frequency range of the {kind or 'sound'} of the "
        f"Bench Warbler number {n}?"
    )
    content = ItemContent(
        question, ("~9-11 kHz", "~3-5 kHz", "~6-8 kHz", "~1-2 kHz"), 1, DIMENSIONS["Xeno-canto"][0]
    )
    return NewItem(
        f"xeno-canto:{n}",
        "Xeno-canto",
        content,
        recording_id=f"XC{n % 500}",
        source={"vocalization_type": kind} if kind else {},
    )


def mix(count: int) -> dict[str, int]:
    """The paper's domain counts scaled to ``count`` items."""
    total = sum(PAPER_DOMAIN_COUNTS.values())
    counts = {d: n * count // total for d, n in PAPER_DOMAIN_COUNTS.items()}
    counts[WIKIPEDIA] += count - sum(counts.values())
    return counts


def build(
    store: Store, rng: random.Random, count: int = sum(PAPER_DOMAIN_COUNTS.values())
) -> list[dict[str, Any]]:
    taxa = make_taxa(rng, 2500)
    records = make_records(rng, taxa)
    store.evidence.add_globi_records(records, None)
    articles = [p.read_text(encoding="utf-8") for p in sorted((DATA / "wikipedia").glob("*.txt"))]
    keys = {}
    for n in range(SPECIES_ARTICLES):  # distinct texts: each is split and indexed once
        title = f"Species {n}"
        keys[title] = articles[n % len(articles)] + f"\nSpecies {n} is a bench species."
        store.evidence.add_texts(
            [
                {
                    "key": f"wikipedia:{n}",
                    "kind": "wikipedia",
                    "title": title,
                    "text": keys[title],
                    "truncated": 0,
                    "source_file": f"{n}.txt",
                }
            ],
            None,
        )
    abstract = json.loads(next((DATA / "biorxiv").glob("*.json")).read_text())["abstract"]
    store.evidence.upsert_recordings(
        [
            {
                "id": f"XC{i}",
                "vocalization_type": rng.choice(("song", "call", "call, song", "", "call?")),
            }
            for i in range(500)
        ],
        None,
    )
    titles = sorted(keys)
    counts = mix(count)
    items: list[NewItem] = []
    for n in range(counts[WIKIPEDIA]):
        title = titles[n % len(titles)]
        items.append(text_item(rng, "Wikipedia", n, f"title:{title}", keys[title]))
    items += [globi_item(rng, n, records) for n in range(counts[GLOBI])]
    items += [text_item(rng, "bioRxiv", n, "", abstract) for n in range(counts[BIORXIV])]
    items += [xc_item(rng, n) for n in range(counts[XENO_CANTO])]
    store.items.add_items(items, None)
    return records


def load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def timed_check_all(path: Path, workers: int) -> tuple[float, float, int]:
    """Wall and CPU time (this process and its workers) of ``check_all`` on ``path``."""
    with Store.open(path) as store:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start, cpu = time.perf_counter(), time.process_time()
        flags = check_all(store, workers=workers)
        elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu += after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return elapsed, cpu, flags


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("count", type=int, nargs="?", default=sum(PAPER_DOMAIN_COUNTS.values()))
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    rng = random.Random(5)
    print(f"load average {load()}")
    with tempfile.TemporaryDirectory() as folder:
        built = Path(folder) / "built.bagel"
        with Store.open(built) as store:
            build(store, rng, args.count)
            print(
                f"{store.items.count()} items, {store.evidence.globi_record_count()} GloBI records"
            )
        copy = Path(folder) / "bench.bagel"
        for workers in sorted({1, os.cpu_count() or 1}):
            runs = []
            for _ in range(args.repeat):
                shutil.copy(built, copy)
                runs.append(timed_check_all(copy, workers))
            elapsed = statistics.median(r[0] for r in runs)
            cpu = statistics.median(r[1] for r in runs)
            verdict = "OK" if elapsed < TARGET_ALL_S else "TOO SLOW"
            print(
                f"check_all, {workers} process{'es' if workers > 1 else ''}: {elapsed:.2f} s wall"
                f" ({cpu:.2f} s CPU) for {runs[0][2]} flags, median of {args.repeat}"
                f" (target < {TARGET_ALL_S:.0f} s) {verdict}"
            )
        with Store.open(copy) as store:
            edit_times(store, mix(args.count)[GLOBI])
    print(f"load average after: {load()}")


def edit_times(store: Store, globi_items: int) -> None:
    times = []
    for n in range(1, min(40, globi_items), 2):  # participant items: the costliest to re-check
        item_id = f"globi:{n}"
        content = store.items.get(item_id).content
        start = time.perf_counter()
        operations.edit(
            store, item_id, "bench", content.with_changes(question=content.question + " ")
        )
        times.append((time.perf_counter() - start) * 1000)
    start = time.perf_counter()
    recheck_item(store, "wikipedia:3")
    wiki_ms = (time.perf_counter() - start) * 1000
    worst = max(times, default=0.0)
    verdict = "OK" if worst < TARGET_ONE_MS else "TOO SLOW"
    print(
        f"edit + recheck of one GloBI item: median {statistics.median(times or [0]):.1f} ms, "
        f"worst {worst:.1f} ms over {len(times)} edits (target < {TARGET_ONE_MS:.0f} ms) "
        f"{verdict}"
    )
    print(f"recheck of one Wikipedia item: {wiki_ms:.1f} ms")


if __name__ == "__main__":
    main()
