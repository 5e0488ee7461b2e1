"""The project store: a real SQLite file, migrations, decisions, history, undo, locking."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from bagel_studio.core import operations
from bagel_studio.core.model import Decision, ItemContent, Status
from bagel_studio.core.store import (
    BlockedError,
    NewItem,
    ProjectLockedError,
    QueueFilter,
    SchemaTooNewError,
    Store,
    StoreError,
)
from bagel_studio.core.store.reviews import derive_status


def content(question: str = "Which taxon is the host?", gold: int = 1) -> ItemContent:
    return ItemContent(
        question=question,
        options=("Cichlidae", "Channa striata", "Heteropneustes fossilis", "Anabas testudineus"),
        answer_index=gold,
        dimension="Masked participant identification",
        level="hard",
    )


def add(store: Store, *ids: str, domain: str = "GloBI") -> None:
    store.items.add_items(
        [NewItem(id=i, domain=domain, content=content(f"Q {i}?")) for i in ids], None
    )


def test_new_project_is_a_wal_sqlite_file_with_the_schema(project_path: Path) -> None:
    with Store.open(project_path) as store:
        add(store, "a")
    conn = sqlite3.connect(project_path)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {"items", "reviews", "history", "flags", "rejects", "globi_records"} <= tables
    assert conn.execute("PRAGMA user_version").fetchone()[0] >= 1
    assert conn.execute("SELECT id FROM items").fetchall() == [("a",)]


def test_reopening_keeps_items_and_adding_twice_changes_nothing(project_path: Path) -> None:
    with Store.open(project_path) as store:
        add(store, "a", "b")
    with Store.open(project_path) as store:
        store.items.add_items([NewItem(id="a", domain="GloBI", content=content("changed?"))], None)
        assert store.items.count() == 2
        assert store.items.get("a").content.question == "Q a?"


def test_decision_is_committed_with_its_history(project_path: Path) -> None:
    with Store.open(project_path) as store:
        add(store, "a")
        operations.decide(
            store, "a", "alice", Decision.REJECT, reason="ambiguous", note="two hosts fit"
        )
        # Read through an independent connection while the store is still open.
        other = sqlite3.connect(project_path)
        row = other.execute("SELECT decision, reason, note FROM reviews").fetchone()
        assert row == ("reject", "ambiguous", "two hosts fit")
        action, before, after = other.execute(
            "SELECT action, before, after FROM history"
        ).fetchone()
        assert action == "decide" and before is None and '"reject"' in after
        other.close()
        assert store.items.get("a").status is Status.REJECTED


def test_edit_then_accept_is_a_revision_and_undo_walks_back(project_path: Path) -> None:
    with Store.open(project_path) as store:
        add(store, "a")
        edited = store.items.get("a").content.with_changes(question="Which fish hosts it?")
        assert operations.edit(store, "a", "alice", edited).result
        review = operations.decide(store, "a", "alice", Decision.ACCEPT).result
        assert review.decision is Decision.REVISE
        assert store.items.get("a").status is Status.REVISED
        undone = operations.undo(store, "alice").result
        assert undone is not None and undone.action == "decide"
        assert store.items.get("a").status is Status.UNREVIEWED
        undone = operations.undo(store, "alice").result
        assert undone is not None and undone.action == "edit"
        assert store.items.get("a").content.question == "Q a?"
        assert operations.undo(store, "alice").result is None
        actions = [(h.action, h.undone) for h in store.history.of_item("a")]
        assert actions == [("edit", True), ("decide", True), ("undo", False), ("undo", False)]


def test_blocking_flag_prevents_acceptance_until_fixed() -> None:
    store = Store.memory()
    broken = content().with_changes(answer_index=None)
    store.items.add_items([NewItem(id="x", domain="GloBI", content=broken)], None)
    from bagel_studio.core.checks import check_all

    check_all(store)
    assert [f.check for f in store.flags.blocking("x")] == ["gold-invalid"]
    with pytest.raises(BlockedError, match="gold answer"):
        operations.decide(store, "x", "alice", Decision.ACCEPT)
    operations.decide(store, "x", "alice", Decision.REJECT, reason="factually-wrong")
    operations.edit(store, "x", "alice", broken.with_changes(answer_index=1))
    assert store.flags.blocking("x") == []
    assert (
        operations.decide(store, "x", "alice", Decision.ACCEPT).result.decision is Decision.REVISE
    )


def test_reject_needs_a_reason_and_curator_a_name() -> None:
    store = Store.memory()
    add(store, "a")
    with pytest.raises(StoreError, match="reason"):
        operations.decide(store, "a", "alice", Decision.REJECT)
    with pytest.raises(StoreError, match="curator"):
        operations.decide(store, "a", "  ", Decision.ACCEPT)
    with pytest.raises(StoreError, match="no item"):
        operations.decide(store, "missing", "alice", Decision.ACCEPT)


def test_queue_filter_and_search() -> None:
    store = Store.memory()
    add(store, "g1", "g2")
    add(store, "w1", domain="Wikipedia")
    operations.decide(store, "g1", "alice", Decision.ACCEPT)
    assert store.items.count(QueueFilter(domain="GloBI")) == 2
    assert store.items.ids(QueueFilter(status="unreviewed")) == ["g2", "w1"]
    assert store.items.ids(QueueFilter(search="Q w1")) == ["w1"]  # whole words
    assert store.items.ids(QueueFilter(search="Q w", search_inside_words=True)) == ["w1"]
    assert store.items.ids(QueueFilter(unreviewed_by="alice")) == ["g2", "w1"]
    assert store.items.ids(QueueFilter(curator="alice")) == ["g1"]
    rows = store.queue.rows(["g1"])
    assert rows["g1"]["status"] == "accepted"


def test_status_of_several_curators() -> None:
    one, two = '{"q": 1}', '{"q": 2}'
    assert derive_status([]) is Status.UNREVIEWED
    assert derive_status([(Decision.SKIP, one)]) is Status.SKIPPED
    assert derive_status([(Decision.ACCEPT, one), (Decision.ACCEPT, one)]) is Status.ACCEPTED
    assert derive_status([(Decision.ACCEPT, one), (Decision.REJECT, one)]) is Status.DISPUTED
    assert derive_status([(Decision.REVISE, one), (Decision.REVISE, two)]) is Status.DISPUTED
    assert derive_status([(Decision.REJECT, one), (Decision.SKIP, one)]) is Status.REJECTED


def test_adjudication_overrides_and_is_released() -> None:
    store = Store.memory()
    add(store, "a")
    operations.decide(store, "a", "alice", Decision.ACCEPT)
    operations.decide(store, "a", "bob", Decision.REJECT, reason="ambiguous")
    assert store.items.get("a").status is Status.DISPUTED
    assert store.reviews.final_content("a") is None
    operations.adjudicate(store, "a", "carol", Decision.ACCEPT, reason="the record supports it")
    assert store.items.get("a").status is Status.ACCEPTED
    assert store.reviews.final_content("a") == store.items.get("a").content


def test_second_writer_gets_a_clear_message_and_reader_still_works(project_path: Path) -> None:
    with Store.open(project_path, owner="alice") as store:
        add(store, "a")
        code = (
            "import sys\n"
            "from bagel_studio.core.store import Store, ProjectLockedError\n"
            "try:\n"
            f"    Store.open({str(project_path)!r}, owner='bob')\n"
            "except ProjectLockedError as exc:\n"
            "    print(exc); sys.exit(3)\n"
        )
        result = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, timeout=60
        )
        assert result.returncode == 3
        assert "already open for writing by alice" in result.stdout
        with pytest.raises(ProjectLockedError):
            Store.open(project_path)
        with Store.open(project_path, read_only=True) as reader:
            assert reader.items.ids() == ["a"]
            with pytest.raises(StoreError, match="read-only"):
                operations.decide(reader, "a", "bob", Decision.ACCEPT)
    with Store.open(project_path) as store:  # released on close
        assert store.items.count() == 1


def test_not_a_project_and_too_new_schema_are_refused(tmp_path: Path) -> None:
    garbage = tmp_path / "garbage.bagel"
    garbage.write_bytes(b"\x00\xffnot sqlite at all" * 100)
    with pytest.raises(StoreError, match="not a BAGEL Studio project"):
        Store.open(garbage)
    newer = tmp_path / "newer.bagel"
    conn = sqlite3.connect(newer)
    conn.execute("PRAGMA user_version = 999")
    conn.close()
    with pytest.raises(SchemaTooNewError, match="newer BAGEL Studio"):
        Store.open(newer)


def test_another_programs_database_is_refused_and_left_as_it_was(tmp_path: Path) -> None:
    """An SQLite file that is not a project (another tool's data) is not turned into one."""
    foreign = tmp_path / "field-notes.db"
    conn = sqlite3.connect(foreign)
    conn.execute("CREATE TABLE notes (text TEXT)")
    conn.execute("INSERT INTO notes VALUES ('keep me')")
    conn.commit()
    conn.close()
    before = foreign.read_bytes()
    with pytest.raises(StoreError, match="not a BAGEL Studio project"):
        Store.open(foreign)
    assert foreign.read_bytes() == before
    assert not list(tmp_path.glob("field-notes.db-*"))  # not switched to WAL
    empty = tmp_path / "empty.bagel"
    empty.write_bytes(b"")
    with Store.open(empty) as store:  # an empty file becomes a project, as before
        assert store.items.count() == 0
