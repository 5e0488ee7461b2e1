"""Change sets: what a write changed, as the operations say it and the desk reads it."""

from __future__ import annotations

from pathlib import Path

import pytest

from bagel_studio.core import operations
from bagel_studio.core.changes import MANY, NOTHING, Changes, Done, Part
from bagel_studio.core.checks import check_all
from bagel_studio.core.model import Decision, ItemContent
from bagel_studio.core.operations.project import recheck, save_spectrogram_settings
from bagel_studio.core.store import NewItem, Store, StoreError

OPTIONS = ("Cichlidae", "Channa striata", "Heteropneustes fossilis", "Anabas testudineus")
DIMENSION = "Masked participant identification"


def test_a_change_set_names_items_and_what_of_them_changed() -> None:
    decided = Changes.of_items(["a"], Part.STATUS | Part.REVIEWS)
    assert decided.touches("a") and decided.touches("a", Part.STATUS)
    assert not decided.touches("a", Part.FLAGS) and not decided.touches("b")
    assert decided.item_ids() == {"a"} and decided.item_ids(Part.CONTENT) == frozenset()
    assert not NOTHING and decided and Changes(models=True)
    assert Changes.of_items([], Part.FLAGS) == NOTHING


def test_changes_join_and_many_items_are_every_item() -> None:
    joined = Changes.of_items(["a"], Part.STATUS) | Changes.of_items(["b"], Part.FLAGS, models=True)
    assert joined.items == {"a", "b"} and joined.parts == Part.STATUS | Part.FLAGS
    assert joined.models and not joined.every_item
    many = Changes.of_items([str(n) for n in range(MANY + 1)], Part.FLAGS)
    assert many.every_item and many.items == frozenset() and many.touches("anything")
    grown = Changes.of_items([str(n) for n in range(MANY)], Part.FLAGS) | Changes.of_items(
        ["one more"], Part.FLAGS
    )
    assert grown.every_item and grown.items == frozenset()


@pytest.fixture
def store() -> Store:
    store = Store.memory()
    items = [
        NewItem(
            id=i, domain="GloBI", content=ItemContent(f"Which taxon {i}?", OPTIONS, 1, DIMENSION)
        )
        for i in ("a", "b")
    ]
    store.items.add_items(items, None, {})
    check_all(store)
    return store


def test_each_review_operation_says_what_it_changed(store: Store) -> None:
    done = operations.decide(store, "a", "ana", Decision.ACCEPT)
    assert isinstance(done, Done) and done.result.decision is Decision.ACCEPT
    assert done.changes == Changes.of_items(["a"], Part.STATUS | Part.REVIEWS)
    edited = store.items.get("b").content.with_changes(question="Which taxon hosts it?")
    assert operations.edit(store, "b", "ana", edited).changes.touches("b", Part.CONTENT)
    assert operations.edit(store, "b", "ana", edited).changes == NOTHING  # nothing changed
    undone = operations.undo(store, "ana")
    assert undone.result is not None and undone.changes.touches("b", Part.CONTENT | Part.FLAGS)
    adjudicated = operations.adjudicate(store, "a", "cy", Decision.REJECT, reason="other")
    assert adjudicated.changes == Changes.of_items(["a"], Part.STATUS | Part.REVIEWS)
    assert operations.undo(store, "nobody").changes == NOTHING


def test_a_refused_write_raises_and_says_nothing(store: Store) -> None:
    with pytest.raises(StoreError, match="no item"):
        operations.decide(store, "missing", "ana", Decision.ACCEPT)


def test_project_writes_say_flags_settings_and_exports(store: Store, tmp_path: Path) -> None:
    assert recheck(store, ["a"]).changes == Changes.of_items(["a"], Part.FLAGS)
    assert recheck(store).changes == Changes.of_every_item(Part.FLAGS)
    from bagel_studio.core.audio.spectrogram import SpectrogramSettings

    assert save_spectrogram_settings(store, SpectrogramSettings()).changes == Changes(settings=True)
    exported = operations.record_export(store, str(tmp_path), 7, {"items": 0})
    assert exported.changes == Changes(exports=True)
