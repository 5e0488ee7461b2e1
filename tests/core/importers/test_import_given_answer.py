"""An item whose gold matches none of its options comes in blocked by ``gold-invalid``; the flag
said only that, and the curator fixing it could not see what the generator had answered (a typo
of an option, a letter past D, the text of an option that was cut). The answer as given is kept
with the item, named in the flag's message and details, kept by every re-check, and gone with the
flag once the gold is fixed."""

from __future__ import annotations

import json
from pathlib import Path

from bagel_studio.core import operations
from bagel_studio.core.checks import check_all
from bagel_studio.core.checks.structural import GOLD_INVALID
from bagel_studio.core.importers import import_paths
from bagel_studio.core.store import Store
from tests.support.items import good


def gold_flag(store: Store, item_id: str) -> tuple[str, dict[str, object]] | None:
    for flag in store.flags.of_item(item_id):
        if flag.check == GOLD_INVALID:
            return flag.message, flag.details
    return None


def test_the_generators_answer_is_named_in_the_flag(store: Store, tmp_path: Path) -> None:
    path = tmp_path / "items.jsonl"
    rows = [
        good("w:1", answer="Eucalyptus leafs"),  # a typo of option A
        good("w:2", answer="E"),
        good("w:3", answer=None, correct_answer=7),
        good("w:4", answer=None),  # no answer at all
        good("w:5"),
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    import_paths(store, [path])

    assert store.items.get("w:1").given_answer == "Eucalyptus leafs"
    assert store.items.get("w:2").given_answer == "E"
    assert store.items.get("w:3").given_answer == "7"
    assert store.items.get("w:4").given_answer is None
    assert store.items.get("w:5").given_answer is None  # a valid gold is not kept twice
    assert gold_flag(store, "w:1") == (
        'The generator\'s answer "Eucalyptus leafs" matches none of the options',
        {"given_answer": "Eucalyptus leafs"},
    )
    assert gold_flag(store, "w:2") is not None and '"E"' in gold_flag(store, "w:2")[0]
    assert gold_flag(store, "w:4") == ("The gold answer does not match any of the options", {})
    check_all(store)  # a re-check keeps the answer named
    assert gold_flag(store, "w:1") is not None and "Eucalyptus leafs" in gold_flag(store, "w:1")[0]

    item = store.items.get("w:1")
    fixed = item.content.with_changes(answer_index=0)
    operations.edit(store, "w:1", "ana", fixed)
    assert gold_flag(store, "w:1") is None


def test_a_project_from_before_given_answers_reads_read_only(tmp_path: Path) -> None:
    """A project written before the generator's answers were kept, opened read-only (so not
    migrated: read-only media, a colleague's file), reads its items, none with such an answer;
    opened for writing it is migrated and keeps the answers of items imported since."""
    import sqlite3

    from bagel_studio.core.store.schema import MIGRATIONS

    project = tmp_path / "old.bagel"
    path = tmp_path / "items.jsonl"
    path.write_text(json.dumps(good("w:1", answer="E")) + "\n", encoding="utf-8")
    with Store.open(project) as store:
        import_paths(store, [path])
    with sqlite3.connect(project) as conn:  # as the release before the table wrote it
        conn.execute("DROP TABLE given_answers")
        conn.execute("DELETE FROM _sqlite_migrations WHERE name = 'm_given_answers'")
        conn.execute(f"PRAGMA user_version = {len(MIGRATIONS) - 1}")
    conn.close()
    with Store.open(project, read_only=True) as store:
        assert store.damage is None
        item = store.items.get("w:1")
        assert item.given_answer is None
        assert [i.id for i in store.items.get_many()] == ["w:1"]
    path.write_text(json.dumps(good("w:2", answer="F")) + "\n", encoding="utf-8")
    with Store.open(project) as store:
        import_paths(store, [path])
        assert store.items.get("w:2").given_answer == "F"
