"""bioRxiv abstracts as they are commonly shared: one JSON object mapping each DOI to its title
and abstract. None of a curator's 166 abstracts came in (the object was taken for a lone object
that is no item); each is now a bioRxiv text under its DOI, and the items naming the DOI find it.
The paper's 1,000-character minimum is Wikipedia's (its extracts); a bioRxiv abstract of any
length is the text the generator saw."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bagel_studio.core.importers import import_paths
from bagel_studio.core.store import Store

REAL_DOI = "10.1101/2020.02.11.942060"
SHORT = (
    "We recorded the dawn chorus of 40 wren territories over two seasons. Males sang longer"
    " songs when a neighbour had been removed (Troglodytes troglodytes), which points to song"
    " length as a signal of territory tenure rather than of body condition."
)


def abstracts(data_dir: Path) -> dict[str, dict[str, str]]:
    real = json.loads(
        (data_dir / "biorxiv" / "biorxiv_2020.02.11.942060_birds_versus_bats.json").read_text(
            encoding="utf-8"
        )
    )
    return {
        REAL_DOI: {"title": real["title"], "abstract": real["abstract"]},
        "10.1101/2023.05.02.539123": {"title": "Wren song and tenure", "abstract": SHORT},
        "10.1101/2023.06.01.540001": {"title": "No abstract yet", "abstract": ""},
    }


def item(doi: str, n: int) -> dict[str, object]:
    return {
        "id": f"biorxiv:paper{n}:0",
        "domain": "bioRxiv",
        "source": {"doi": doi},
        "question": "What does the study find about the strategy described?",
        "options": ["Dilution", "Confusion", "Vigilance", "None of them"],
        "answer": "A",
    }


@pytest.mark.parametrize("indent", [None, 2], ids=["one-line", "pretty-printed"])
def test_a_doi_to_abstract_object_brings_every_abstract_in(
    store: Store, tmp_path: Path, data_dir: Path, indent: int | None
) -> None:
    folder = tmp_path / "biorxiv"
    folder.mkdir()
    (folder / "abstracts.json").write_text(
        json.dumps(abstracts(data_dir), indent=indent, ensure_ascii=False), encoding="utf-8"
    )
    items = [item(REAL_DOI, 1), item("10.1101/2023.05.02.539123", 2)]
    (folder / "items.jsonl").write_text("".join(json.dumps(i) + "\n" for i in items))
    report = import_paths(store, [folder])

    assert report.evidence["texts"] == 2
    assert [r.reason for r in report.rejects] == [
        "10.1101/2023.06.01.540001: the abstract is empty"
    ]
    assert report.rejects[0].line == (10 if indent else 1)  # where its DOI is written
    real = store.evidence.find_text(f"doi:{REAL_DOI}")
    assert real is not None and real["kind"] == "biorxiv" and real["doi"] == REAL_DOI
    assert real["title"].startswith("Birds versus bats")
    assert real["text"].startswith("Aggregation is often thought")
    short = store.evidence.find_text("doi:10.1101/2023.05.02.539123")
    assert short is not None and short["text"] == SHORT  # under 1,000 characters: kept
    for n in (1, 2):
        linked = store.items.get(f"biorxiv:paper{n}:0")
        assert store.evidence.find_text(linked.text_key) is not None
