"""Building real project files for the export tests (no importer needed).

The flat item format (FORMATS.md section 1) is parsed here directly so these tests do not depend on
the importers package; the round-trip test uses the real importer.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from bagel_studio.core import operations
from bagel_studio.core.domains import LETTERS
from bagel_studio.core.model import Decision, ItemContent
from bagel_studio.core.store import NewItem, Store

CURATOR = "ada"


def flat_item(record: dict[str, Any]) -> NewItem:
    """A NewItem from one line of the flat format (answer given as a letter)."""
    options = tuple(record["options"])
    return NewItem(
        id=record["id"],
        domain=record["domain"],
        content=ItemContent(
            question=record["question"],
            options=options,
            answer_index=LETTERS.index(record["answer"]),
            dimension=record["dimension"],
            level=record.get("level"),
        ),
        recording_id=record.get("recording"),
    )


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def paper_items(data_dir: Path) -> list[NewItem]:
    return [flat_item(r) for r in read_jsonl(data_dir / "items" / "paper_examples.jsonl")]


def new_project(path: Path, items: Iterable[NewItem]) -> Store:
    store = Store.open(path)
    store.add_items(list(items), None)
    return store


def decide_all(
    store: Store,
    ids: Sequence[str],
    decision: Decision = Decision.ACCEPT,
    curator: str = CURATOR,
    reason: str | None = None,
) -> None:
    """One curator's decision on many items, in one transaction (fast for big projects)."""
    with store.transaction():
        for item_id in ids:
            operations.decide(store, item_id, curator, decision, reason=reason)


def synthetic_items(
    count: int,
    domain: str = "GloBI",
    gold: int = 1,
    dimension: str = "Masked participant identification",
) -> list[NewItem]:
    """``count`` well-formed items of one domain, all with their gold at ``gold``."""
    items = []
    for n in range(count):
        options = tuple(f"Taxon {n}-{k} sp." for k in "wxyz")
        items.append(
            NewItem(
                id=f"{domain.lower()}:synthetic:{n}",
                domain=domain,
                content=ItemContent(
                    f"Which taxon is the host in interaction {n}?",
                    options,
                    gold,
                    dimension,
                    "medium",
                ),
            )
        )
    return items
