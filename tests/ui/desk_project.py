"""Builds real project files for the desk tests (and the screenshot) from ``resources/data``.

Items go in through ``store.items.add_items`` and evidence through ``store.evidence``, the same
calls the importers make, so these tests do not depend on the importers' progress.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

from bagel_studio.core import operations
from bagel_studio.core.checks import check_all
from bagel_studio.core.domains import LETTERS
from bagel_studio.core.model import Decision, ItemContent
from bagel_studio.core.store import NewItem, Store

KOALA_ID = "wikipedia:koala:0"
GLOBI_ID = "globi:leptoconchus:0"
BIORXIV_ID = "biorxiv:bats:0"
XC_ID = "xeno-canto:house-sparrow:0"
HTML_ID = "wikipedia:html:0"
BROKEN_ID = "wikipedia:broken:0"
HTML_STEM = "<b>bold</b><img src=http://x>"


def paper_items(data_dir: Path) -> list[NewItem]:
    items = []
    path = data_dir / "items" / "paper_examples.jsonl"
    for line_number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        raw = json.loads(line)
        content = ItemContent(
            question=raw["question"],
            options=tuple(raw["options"]),
            answer_index=LETTERS.index(raw["answer"]),
            dimension=raw["dimension"],
            level=raw.get("level"),
        )
        items.append(
            NewItem(
                id=raw["id"],
                domain=raw["domain"],
                content=content,
                recording_id=raw.get("recording"),
                source_file=path.name,
                source_line=line_number,
            )
        )
    return items


def evidence_items() -> list[NewItem]:
    """One item per kind of evidence, linked to the records added by ``add_evidence``."""
    return [
        NewItem(
            KOALA_ID,
            "Wikipedia",
            ItemContent(
                "What makes up most of the koala's diet?",
                ("Acacia bark", "Eucalyptus leaves", "Grass seeds", "Insects"),
                1,
                "Diet",
                "easy",
            ),
            text_key="title:Koala",
        ),
        NewItem(
            GLOBI_ID,
            "GloBI",
            ItemContent(
                "Which coral does the snail Leptoconchus incycloseris live in as a parasite?",
                (
                    "Fungia (Cycloseris) costulata",
                    "Acropora palmata",
                    "Porites lobata",
                    "Leptoconchus infungites",
                ),
                0,
                "Masked participant identification",
                "medium",
            ),
            globi_ref="template-dataset:1",
            supporting_evidence=(
                "Leptoconchus incycloseris parasite of Fungia (Cycloseris) costulata",
            ),
        ),
        NewItem(
            BIORXIV_ID,
            "bioRxiv",
            ItemContent(
                "Hawks attacking swarms of free-tailed bats: what lowered each bat's "
                "risk of being caught?",
                (
                    "Flying alone",
                    "The dilution effect of swarming",
                    "Flying at noon",
                    "Echolocation jamming",
                ),
                1,
                "Result Interpretation",
                "medium",
            ),
            text_key="doi:10.1101/2020.02.11.942060",
            supporting_evidence=(
                "Dilution is therefore both necessary and sufficient to explain the higher "
                "survival rates of bats flying in column formation",
            ),
        ),
        NewItem(
            XC_ID,
            "Xeno-canto",
            ItemContent(
                "What is the dominant frequency range of the House Sparrow's call in "
                "this recording?",
                ("~0.5-1 kHz", "~3-5 kHz", "~9-11 kHz", "~12-14 kHz"),
                1,
                "Dominant frequency range",
                "medium",
            ),
            recording_id="XC625750",
        ),
    ]


def add_evidence(store: Store, data_dir: Path) -> None:
    data_dir = data_dir.resolve()  # the audio path is kept as given
    koala = (data_dir / "wikipedia" / "Koala.txt").read_text(encoding="utf-8")
    bats = json.loads(
        (data_dir / "biorxiv" / "biorxiv_2020.02.11.942060_birds_versus_bats.json").read_text(
            encoding="utf-8"
        )
    )
    store.evidence.add_texts(
        [
            {
                "key": "wikipedia:Koala",
                "kind": "wikipedia",
                "title": "Koala",
                "scientific_name": "Phascolarctos cinereus",
                "doi": None,
                "text": koala,
                "truncated": 0,
                "source_file": "Koala.txt",
            },
            {
                "key": "biorxiv:" + bats["doi"],
                "kind": "biorxiv",
                "title": bats["title"],
                "scientific_name": None,
                "doi": bats["doi"],
                "text": bats["abstract"],
                "truncated": 0,
                "source_file": "birds_versus_bats.json",
            },
        ],
        None,
    )
    table = data_dir / "globi" / "template-dataset__interactions.tsv"
    with table.open(encoding="utf-8", newline="") as handle:
        first = next(csv.DictReader(handle, delimiter="\t"))
    store.evidence.add_globi_records(
        [
            {
                "ref": "template-dataset:1",
                "table_name": table.name,
                "row": 1,
                "source_taxon": first["sourceTaxonName"],
                "interaction": first["interactionTypeName"],
                "target_taxon": first["targetTaxonName"],
                "citation": first.get("referenceCitation"),
                "doi": first.get("referenceDoi"),
                "url": first.get("referenceUrl"),
                "locality": first.get("localityName"),
                "record": first,
            }
        ],
        None,
    )
    with (data_dir / "xeno_canto" / "recordings.csv").open(encoding="utf-8", newline="") as h:
        rows = {row["id"]: row for row in csv.DictReader(h)}
    row = rows["625750"]
    store.evidence.upsert_recordings(
        [
            {
                "id": "XC625750",
                "scientific_name": f"{row['gen']} {row['sp']}",
                "common_name": row["en"],
                "vocalization_type": row["type"],
                "licence": row["lic"],
                "url": row["url"],
                "recordist": row["rec"],
                "file_name": row["file-name"],
                "audio_path": str(data_dir / "xeno_canto" / row["file-name"]),
                "audio_sha256": row["sha256"],
                "metadata": row,
            }
        ],
        None,
    )


def tricky_items() -> list[NewItem]:
    """An item whose stem is markup, and one whose gold is missing (a blocking flag)."""
    return [
        NewItem(
            HTML_ID,
            "Wikipedia",
            ItemContent(HTML_STEM, ("<i>a</i>", "b", "c", "d"), 0, "Behavior", "easy"),
        ),
        NewItem(
            BROKEN_ID,
            "Wikipedia",
            ItemContent(
                "Which option is right?", ("one", "two", "three", "three"), None, "Behavior", "easy"
            ),
        ),
    ]


def build_project(path: Path, data_dir: Path, *, tricky: bool = False) -> list[str]:
    """A project with the evidence items first, then the paper's examples; returns the ids."""
    with Store.open(path) as store:
        add_evidence(store, data_dir)
        items = evidence_items() + (tricky_items() if tricky else []) + paper_items(data_dir)
        store.items.add_items(items, None)
        check_all(store)
        return store.items.ids()


def synthetic_items(count: int) -> list[NewItem]:
    """``count`` plain, valid items in the four domains (for the 12,000-item queue)."""
    domains = [
        ("Wikipedia", "Habitat"),
        ("GloBI", "Masked participant identification"),
        ("bioRxiv", "Result Interpretation"),
        ("Xeno-canto", "Modulation pattern"),
    ]
    items = []
    for number in range(count):
        domain, dimension = domains[number % 4]
        items.append(
            NewItem(
                f"synthetic:{number:05d}",
                domain,
                ItemContent(
                    f"Synthetic question number {number} about animal {number % 97}?",
                    (f"alpha {number}", f"beta {number}", f"gamma {number}", f"delta {number}"),
                    number % 4,
                    dimension,
                    ("easy", "medium", "hard")[number % 3],
                ),
            )
        )
    return items


SHOWCASE_ID = "wikipedia:koala:1"


def build_showcase_project(path: Path, data_dir: Path) -> str:
    """The project behind ``docs/screenshots/desk.png``: a flagged Wikipedia item first, with an
    edit and its undo in the history, and a few decisions already made on other items."""
    showcase = NewItem(
        SHOWCASE_ID,
        "Wikipedia",
        ItemContent(
            "According to the passage, how many hours a day do koalas sleep?",
            ("About 4 hours", "About 10 hours", "Up to 20 hours", "24 hours"),
            2,
            "Behavior",
            "easy",
        ),
        text_key="title:Koala",
    )
    with Store.open(path) as store:
        add_evidence(store, data_dir)
        store.items.add_items([showcase, *evidence_items(), *paper_items(data_dir)], None)
        check_all(store)
        operations.edit(
            store,
            SHOWCASE_ID,
            "ana",
            store.items.get(SHOWCASE_ID).content.with_changes(level="medium"),
        )
        operations.undo(store, "ana")
        operations.decide(store, KOALA_ID, "ana", Decision.ACCEPT)
        operations.decide(
            store, "globi:pallisentis:0", "ana", Decision.REJECT, reason="taxonomic-granularity"
        )
        operations.decide(store, KOALA_ID, "ben", Decision.ACCEPT)
    return SHOWCASE_ID
