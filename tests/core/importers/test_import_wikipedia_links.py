"""Flat Wikipedia items name no article: their stem (or their id) names the species, and the
article's title is that species. Imported with the articles, in the same run or a later one, each
is linked to the article it names, so the desk shows it (the evidence pane asked to import the
article again) and the checks that read it run."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from bagel_studio.core.importers import import_paths
from bagel_studio.core.store import Store

OPTIONS = ["Eucalyptus leaves", "Grass", "Fish", "Insects"]


def flat(item_id: str, question: str) -> dict[str, object]:
    return {
        "id": item_id,
        "domain": "Wikipedia",
        "dimension": "Diet",
        "question": question,
        "options": OPTIONS,
        "answer": "A",
    }


ITEMS = [
    flat("wikipedia:1", "What makes up most of the koala's diet?"),
    flat("wikipedia:2", "How large are the prides lions live in?"),  # the plural
    flat("wikipedia:3", "What does the grey wolf mostly hunt?"),
    flat("wikipedia:4", "Which family does Procyon lotor belong to?"),  # by scientific name
    flat("wikipedia:red-fox:0", "What does this species eat in winter?"),  # no article
    flat("wikipedia:koala:5", "What is this animal's main food?"),  # by the id's species
]
LINKED = {
    "wikipedia:1": "Koala",
    "wikipedia:2": "Lion",
    "wikipedia:3": "Wolf",
    "wikipedia:4": "Raccoon",
    "wikipedia:koala:5": "Koala",
}


def write_items(path: Path) -> Path:
    path.write_text("".join(json.dumps(i) + "\n" for i in ITEMS), encoding="utf-8")
    return path


def articles(data_dir: Path, folder: Path) -> Path:
    folder.mkdir()
    for name in ("Koala", "Lion", "Wolf", "Raccoon"):
        shutil.copy(data_dir / "wikipedia" / f"{name}.txt", folder)
    return folder


def linked_titles(store: Store) -> dict[str, str]:
    titles = {}
    for item in store.items.iterate():
        text = store.evidence.find_text(item.text_key)
        if text is not None:
            titles[item.id] = text["title"]
    return titles


def test_flat_items_link_to_the_articles_of_the_same_run(
    store: Store, tmp_path: Path, data_dir: Path
) -> None:
    folder = articles(data_dir, tmp_path / "run")
    write_items(folder / "items.jsonl")
    report = import_paths(store, [folder])
    assert report.added == len(ITEMS) and report.evidence["texts"] == 4
    assert linked_titles(store) == LINKED
    assert store.items.get("wikipedia:red-fox:0").text_key is None
    assert "Linked 5 Wikipedia items to the article their stem or id names" in "\n".join(
        report.summary_lines()
    )


def test_articles_of_a_later_run_link_the_items_waiting_for_them(
    store: Store, tmp_path: Path, data_dir: Path
) -> None:
    import_paths(store, [write_items(tmp_path / "items.jsonl")])
    assert linked_titles(store) == {}
    report = import_paths(store, [articles(data_dir, tmp_path / "articles")])
    assert linked_titles(store) == LINKED
    assert set(LINKED) <= set(report.check_item_ids)  # their checks read the article now
    assert store.flags.pending_check_ids() == []


def test_the_longest_name_said_wins_and_plurals_are_names() -> None:
    from bagel_studio.core.importers.linking import NameIndex

    names = NameIndex([("Wolf", "Canis lupus"), ("Maned wolf", None), ("Fox", "Vulpes vulpes")])
    assert names.article_for("wikipedia:1", "Where does the maned wolf hunt?") == "Maned wolf"
    assert names.article_for("wikipedia:2", "How do wolves and foxes share a den?") == "Fox"
    assert names.article_for("wikipedia:3", "Which prey do Canis lupus packs take?") == "Wolf"
    assert names.article_for("wikipedia:maned-wolf:0", "What does it eat?") == "Maned wolf"
    assert names.article_for("wikipedia:4", "What do sea otters eat?") is None
