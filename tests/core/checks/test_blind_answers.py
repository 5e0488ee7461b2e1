"""A blind answer that misses the gold raises a flag on the item, and undo clears it."""

from __future__ import annotations

from pathlib import Path

from bagel_studio.core import operations
from bagel_studio.core.checks import CHECKS, check_all
from bagel_studio.core.model import Decision, ItemContent
from bagel_studio.core.store import NewItem, Store


def project(path: Path) -> Store:
    store = Store.open(path)
    content = ItemContent(
        "Which habitat do koalas typically inhabit?",
        ("Open Eucalyptus woodland", "Tropical rainforest", "Coastal mangroves", "Arid grassland"),
        0,
        "Habitat",
        "easy",
    )
    store.items.add_items([NewItem(id="k", domain="Wikipedia", content=content)], None)
    check_all(store)
    return store


def test_wrong_blind_answer_is_flagged_and_undo_clears_it(project_path: Path) -> None:
    assert "blind-answer-wrong" in CHECKS
    with project(project_path) as store:
        operations.decide(store, "k", "ana", Decision.ACCEPT, blind_answer=0)
        assert store.flags.of_item("k") == []
        operations.decide(store, "k", "ben", Decision.UNCERTAIN, blind_answer=2)
        [flag] = store.flags.of_item("k")
        assert flag.check == "blind-answer-wrong"
        assert "ben chose C" in flag.message and "gold is A" in flag.message
        assert flag.details["curators"] == ["ben"]
        operations.undo(store, "ben")
        assert store.flags.of_item("k") == []


def test_check_all_sees_blind_answers_in_bulk(project_path: Path) -> None:
    with project(project_path) as store:
        many = [
            NewItem(
                id=f"x{n}",
                domain="Wikipedia",
                content=ItemContent(f"Q{n}?", ("a", "b", "c", "d"), 1, "Diet", None),
            )
            for n in range(60)
        ]
        store.items.add_items(many, None)
        operations.decide(store, "x7", "ana", Decision.ACCEPT, blind_answer=3)
        check_all(store)  # 61 items: the bulk path
        assert [f.check for f in store.flags.of_item("x7")] == ["blind-answer-wrong"]
        assert store.flags.of_item("x8") == []
