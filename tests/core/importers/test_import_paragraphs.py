"""Paragraphs of the bundled Wikipedia and bioRxiv texts survive the import, one blank line apart
(a MediaWiki extract separates them by a single line break, which a display runs together)."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from bagel_studio.core.importers import import_paths
from bagel_studio.core.importers.texts import paragraphed
from bagel_studio.core.store import Store

BATS = "biorxiv/biorxiv_2020.02.11.942060_birds_versus_bats.json"


@pytest.mark.parametrize("title", ["Koala", "Lion", "Raccoon", "Wolf"])
def test_wikipedia_paragraphs_are_kept_apart(title: str, store: Store, data_dir: Path) -> None:
    path = data_dir / "wikipedia" / f"{title}.txt"
    import_paths(store, [path], full_checks=False)
    text = store.evidence.find_text(f"title:{title}")
    assert text is not None
    lines = [line.rstrip() for line in path.read_text(encoding="utf-8").splitlines()]
    paragraphs = [line for line in lines if line.strip()]
    assert len(paragraphs) > 40  # headings and paragraphs, each its own
    assert text["text"].split("\n\n") == paragraphs
    assert paragraphed(text["text"]) == text["text"]  # shown as stored


def test_biorxiv_abstract_and_a_hard_wrapped_paper(
    store: Store, data_dir: Path, tmp_path: Path
) -> None:
    document = json.loads((data_dir / BATS).read_text(encoding="utf-8"))
    abstract = document["abstract"]
    sentences = abstract.split(". ")
    # The same paper as a plain-text file wrapped at 72 columns, paragraphs apart by blank lines.
    wrapped = "\n\n".join(
        textwrap.fill(". ".join(part) + ".", 72) for part in (sentences[:4], sentences[4:])
    )
    plain = tmp_path / "bats.txt"
    plain.write_text(f"{document['title']}\ndoi: {document['doi']}\n\n{wrapped}\n", "utf-8")
    import_paths(store, [data_dir / BATS], full_checks=False)
    stored = store.evidence.find_text(f"doi:{document['doi']}")
    assert stored is not None and stored["text"] == abstract.strip()  # one paragraph, whole

    other = Store.memory()
    import_paths(other, [plain], full_checks=False)
    paper = other.evidence.find_text(f"doi:{document['doi']}")
    assert paper is not None and paper["kind"] == "biorxiv"
    assert paper["text"] == plain.read_text("utf-8").strip()  # its own breaks, left alone
    assert paper["text"].count("\n\n") == 2
