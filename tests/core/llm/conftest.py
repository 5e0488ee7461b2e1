"""A small real project and the scripted OpenAI-compatible server, for the LLM tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from bagel_studio.core.model import ItemContent
from bagel_studio.core.store import NewItem, Store
from tests.support.llm_server import ScriptedServer

ITEMS = [
    ("wiki:1", "Wikipedia", "Diet", "What does the barn owl mainly eat?",
     ["Small mammals", "Fruit", "Seeds", "Nectar"], 0),
    ("wiki:2", "Wikipedia", "Habitat", "Where does the dipper forage?",
     ["Deserts", "Fast-flowing streams", "Open ocean", "Caves"], 1),
    ("globi:1", "GloBI", "Masked participant identification",
     "Which taxon visits flowers of Trifolium pratense?",
     ["Bombus terrestris", "Canis lupus", "Salmo trutta", "Vipera berus"], 0),
    ("bio:1", "bioRxiv", "Result Interpretation",
     "Mice raised in enriched cages solved mazes faster. What does this suggest?",
     ["Enrichment slows learning", "No effect", "Enrichment aids learning", "Mazes harm mice"], 2),
    ("xc:1", "Xeno-canto", "Dominant frequency range",
     "What is the dominant frequency range of the chiffchaff's song?",
     ["0.2-0.5 kHz", "1-2 kHz", "12-15 kHz", "4-6 kHz"], 3),
    ("xc:2", "Xeno-canto", "Call / syllable duration",
     "How long is a typical contact call of the goldcrest?",
     ["10-30 ms", "1-2 s", "5-10 s", "0.5-1 s"], 0),
]  # fmt: skip


def new_items() -> list[NewItem]:
    return [
        NewItem(
            id=item_id,
            domain=domain,
            content=ItemContent(question, tuple(options), gold, dimension),
        )
        for item_id, domain, dimension, question, options, gold in ITEMS
    ]


def gold_map() -> dict[str, str]:
    return {question: options[gold] for _, _, _, question, options, gold in ITEMS}


@pytest.fixture
def llm_project(tmp_path: Path) -> Path:
    path = tmp_path / "llm.bagel"
    with Store.open(path, owner="test") as store:
        store.items.add_items(new_items(), None)
    return path


@pytest.fixture
def scripted() -> Iterator[ScriptedServer]:
    with ScriptedServer(gold_map()) as server:
        yield server
