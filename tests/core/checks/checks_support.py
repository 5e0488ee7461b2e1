"""Helpers for the checks tests: items, GloBI records read from the bundled tables, texts."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

from bagel_studio.core.checks import check_all
from bagel_studio.core.domains import LETTERS
from bagel_studio.core.model import Flag, ItemContent
from bagel_studio.core.store import NewItem, Store


def new_item(
    item_id: str,
    domain: str,
    question: str,
    options: list[str],
    answer: str,
    dimension: str,
    **evidence: Any,
) -> NewItem:
    content = ItemContent(question, tuple(options), LETTERS.index(answer), dimension)
    return NewItem(id=item_id, domain=domain, content=content, **evidence)


def flags_by_check(store: Store, item_id: str) -> dict[str, Flag]:
    return {flag.check: flag for flag in store.flags.of_item(item_id)}


def checked(store: Store, *items: NewItem) -> dict[str, dict[str, Flag]]:
    """Add the items, run ``check_all`` over them, and return each item's flags by check id."""
    store.items.add_items(list(items), None)
    check_all(store, [i.id for i in items])
    return {i.id: flags_by_check(store, i.id) for i in items}


def record(
    source: str,
    interaction: str,
    target: str,
    *,
    table: str = "curated.tsv",
    row: int = 1,
    source_path: str = "",
    target_path: str = "",
) -> dict[str, Any]:
    return {
        "ref": f"{table}#{row}",
        "table_name": table,
        "row": row,
        "source_taxon": source,
        "interaction": interaction,
        "target_taxon": target,
        "source_path": source_path,
        "target_path": target_path,
        "record": {},
    }


def globi_table_records(path: Path) -> list[dict[str, Any]]:
    """Every data row of a GloBI exchange-format table as a store record (``table#row``)."""
    with open(path, encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    records = []
    for number, row in enumerate(rows, start=1):
        rec = record(
            row["sourceTaxonName"],
            row["interactionTypeName"],
            row["targetTaxonName"],
            table=path.name,
            row=number,
            source_path=row.get("sourceTaxonPathNames", ""),
            target_path=row.get("targetTaxonPathNames", ""),
        )
        rec["record"] = dict(row)
        records.append(rec)
    return records


def add_text(store: Store, path: Path, kind: str = "wikipedia") -> str:
    """Store a bundled text and return the item ``text_key`` that resolves to it."""
    store.evidence.add_texts(
        [
            {
                "key": f"{kind}:{path.stem}",
                "kind": kind,
                "title": path.stem,
                "text": path.read_text(encoding="utf-8"),
                "truncated": 0,
                "source_file": path.name,
            }
        ],
        None,
    )
    return f"title:{path.stem}"
