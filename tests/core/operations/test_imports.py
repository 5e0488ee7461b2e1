"""The import operation: one file, one transaction; new items searchable and awaiting their
checks; the search index kept whole although its trigger is set aside for the bulk insert."""

from __future__ import annotations

import dataclasses
import sqlite3
from pathlib import Path

import pytest

from bagel_studio.core import operations
from bagel_studio.core.model import ItemContent
from bagel_studio.core.operations.imports import import_file
from bagel_studio.core.store import NewItem, QueueFilter, Reject, Store


def _item(item_id: str, word: str) -> NewItem:
    return NewItem(
        id=item_id,
        domain="Wikipedia",
        content=ItemContent(
            question=f"Which {word} does the koala eat?",
            options=("Eucalyptus leaves", "Fish", "Seeds", "Insects"),
            answer_index=0,
            dimension="Diet",
            level="easy",
        ),
    )


def _triggers(path: Path) -> dict[str, str]:
    """The project's triggers and indexes (set aside for a bulk import, then put back)."""
    with sqlite3.connect(path) as conn:
        rows = conn.execute(
            "SELECT name, sql FROM sqlite_master WHERE type IN ('trigger', 'index')"
        )
        return dict(rows.fetchall())


def _fts_intact(path: Path) -> None:
    with sqlite3.connect(path) as conn:  # raises SQLITE_CORRUPT_VTAB when index and items differ
        conn.execute("INSERT INTO items_fts(items_fts, rank) VALUES ('integrity-check', 1)")


def _search(store: Store, word: str) -> list[str]:
    return store.items.ids(QueueFilter(search=word))


def _import(store: Store, name: str, items: list[NewItem]) -> int:
    with import_file(store, name, name, f"sha-{name}", "items", {"items": len(items)}) as writer:
        written = writer.write_items({item.id: item for item in items})
        writer.write_rejects([Reject(name, 99, "a bad line")])
    return len(written.added)


def test_one_file_one_transaction_indexed_and_pending(tmp_path: Path) -> None:
    path = tmp_path / "p.bagel"
    with Store.open(path) as store:
        before = _triggers(path)
        assert _import(store, "a.jsonl", [_item(f"a{i}", "plant") for i in range(50)]) == 50
        assert _import(store, "b.jsonl", [_item(f"b{i}", "animal") for i in range(30)]) == 30
        # a second file and an item already present: only the new items go into the index
        assert _import(store, "c.jsonl", [_item("a0", "plant"), _item("c0", "animal")]) == 1
        assert _triggers(path) == before  # the insert trigger and the indexes are back
        assert "items_fts_insert" in before and "idx_items_queue_filters" in before
        _fts_intact(path)
        assert len(_search(store, "plant")) == 50
        assert sorted(_search(store, "animal")) == sorted([f"b{i}" for i in range(30)] + ["c0"])
        assert len(store.flags.pending_check_ids()) == 81
        assert [i["summary"] for i in store.imports.all()][-1] == {"format": "items", "items": 2}
        assert store.imports.reject_count() == 3
        # later writes still keep the index through the trigger
        edited = dataclasses.replace(store.items.get("a1").content, question="Which marsupial?")
        operations.edit(store, "a1", "ann", edited)
        assert "a1" in _search(store, "marsupial")
        assert "a1" not in _search(store, "plant")
        _fts_intact(path)


def test_a_file_that_fails_leaves_nothing(tmp_path: Path) -> None:
    path = tmp_path / "p.bagel"
    with Store.open(path) as store:
        before = _triggers(path)
        for first in (True, False):  # into a new project (indexes set aside too), then not
            if not first:
                _import(store, "a.jsonl", [_item("a0", "plant")])
            with (
                pytest.raises(RuntimeError),
                import_file(store, "b.jsonl", "b.jsonl", "sha-b", "items", {}) as writer,
            ):
                writer.write_items({f"b{i}": _item(f"b{i}", "animal") for i in range(20)})
                raise RuntimeError("the reader failed")
            assert _triggers(path) == before
        assert store.items.count() == 1
        assert len(store.imports.all()) == 1
        assert store.flags.pending_check_ids() == ["a0"]
        assert _search(store, "animal") == []
        assert _triggers(path) == before
        _fts_intact(path)
