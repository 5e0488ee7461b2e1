"""Release verdicts (``checks.verdict``): stored by an import, cleared when the content changes,
and an export that reads them writes the same release, byte for byte, as one that checks every
item itself (older projects, revised items, verdicts of other rules)."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

from bagel_studio.core import operations
from bagel_studio.core.checks.fixed import fixed_positions
from bagel_studio.core.checks.verdict import RULES
from bagel_studio.core.export import export_release
from bagel_studio.core.importers import import_paths
from bagel_studio.core.model import Decision
from bagel_studio.core.store import Store
from bagel_studio.core.store.schema import MIGRATIONS, VERDICT_TRIGGER
from tests.core.export.export_support import decide_all, read_jsonl, release_files

FIXED = [
    ("xc:sounds:0", ["Sound 1", "Sound 2", "Sound 3", "All are indistinguishable"], "B"),
    ("xc:sounds:1", ["Sound 1", "Sound 2", "Sound 3", "All are indistinguishable"], "D"),
    ("xc:ranges:0", ["~1-2 kHz", "~3-5 kHz", "~6-8 kHz", "None of the above"], "A"),
    ("xc:letters:0", ["Both A and B", "Only the trill", "Only the whistle", "Neither"], "C"),
    ("xc:calls:0", ["First call", "Second call", "Third call", "A trill"], "D"),
]
UNSOUND = "xc:twice:0"


def _line(item_id: str, options: list[str], answer: str) -> str:
    return json.dumps(
        {
            "id": item_id,
            "domain": "Xeno-canto",
            "dimension": "Dominant frequency range",
            "level": "hard",
            "question": "Which clip has the higher dominant frequency?",
            "options": options,
            "answer": answer,
        }
    )


def _imported(tmp_path: Path, data_dir: Path) -> Store:
    """The paper's items and some with fixed positions, imported as a curator would; every
    item accepted but one that fails a structural check, which is rejected."""
    items = tmp_path / "items.jsonl"
    lines = (data_dir / "items" / "paper_examples.jsonl").read_text(encoding="utf-8").splitlines()
    lines += [_line(*item) for item in FIXED]
    lines.append(_line(UNSOUND, ["Sound 1", "sound 1", "Sound 3", "Sound 4"], "A"))
    items.write_text("\n".join(lines) + "\n", encoding="utf-8")
    store = Store.open(tmp_path / "project.bagel")
    import_paths(store, [items], full_checks=False)
    decide_all(store, [i for i in store.items.ids() if i != UNSOUND])
    operations.decide(store, UNSOUND, "ada", Decision.REJECT, reason="duplicate-options")
    return store


def _verdicts(path: Path) -> dict[str, int | None]:
    with sqlite3.connect(path) as conn:
        return dict(conn.execute("SELECT id, release_verdict FROM items").fetchall())


def _set_verdicts(path: Path, sql: str) -> None:
    """Stand in for a project whose verdicts are missing or stale (not a write the program
    makes: only imports store verdicts)."""
    with sqlite3.connect(path) as conn:
        conn.execute(sql)
    conn.close()


def test_an_import_stores_each_sound_items_verdict(tmp_path: Path, data_dir: Path) -> None:
    with _imported(tmp_path, data_dir) as store:
        contents = {item.id: item.content for item in store.items.iterate()}
    verdicts = _verdicts(tmp_path / "project.bagel")
    assert verdicts[UNSOUND] is None
    for item_id, verdict in verdicts.items():
        if item_id == UNSOUND:
            continue
        assert verdict is not None and verdict >> 4 == RULES, item_id
        mask = sum(1 << i for i in fixed_positions(contents[item_id].options))
        assert verdict & 15 == mask, item_id
    assert {(verdicts[i] or 0) & 15 for i, _, _ in FIXED} == {0b1000, 0b1111, 0b0111}


def test_a_content_change_clears_the_verdict_and_nothing_else_does(
    tmp_path: Path, data_dir: Path
) -> None:
    with _imported(tmp_path, data_dir) as store:
        before = _verdicts(tmp_path / "project.bagel")
        item = store.items.get("wikipedia:kea:0")
        operations.edit(
            store,
            item.id,
            "ada",
            item.content.with_changes(options=(*item.content.options[:3], "They can fly")),
        )
        for item_id, change in [
            ("wikipedia:andean-flamingo:1", {"question": "Where does it live?"}),
            ("wikipedia:andean-flamingo:2", {"level": "hard"}),
        ]:  # a verdict stands for content columns as imported: any change clears it
            content = store.items.get(item_id).content.with_changes(**change)
            operations.edit(store, item_id, "ada", content)
        operations.decide(
            store, "wikipedia:andean-flamingo:0", "bob", Decision.REJECT, reason="other"
        )
        operations.undo(store, "bob")
    after = _verdicts(tmp_path / "project.bagel")
    for item_id in (
        "wikipedia:kea:0",
        "wikipedia:andean-flamingo:1",
        "wikipedia:andean-flamingo:2",
    ):
        assert before.pop(item_id) is not None and after.pop(item_id) is None, item_id
    assert after == before  # decisions, flags and undoing a decision keep them


def test_stored_missing_and_stale_verdicts_give_the_same_release(
    tmp_path: Path, data_dir: Path
) -> None:
    with _imported(tmp_path, data_dir) as store:
        item = store.items.get("wikipedia:kea:0")  # a revised item: its verdict is cleared
        edited = item.content.with_changes(question="Which cognitive ability does a kea show?")
        operations.edit_and_accept(store, item.id, "ada", edited)
    project = tmp_path / "project.bagel"
    missing, stale = tmp_path / "missing.bagel", tmp_path / "stale.bagel"
    shutil.copyfile(project, missing)
    shutil.copyfile(project, stale)
    _set_verdicts(missing, "UPDATE items SET release_verdict = NULL")
    # other rules: every option fixed, which these rules do not say of most items
    _set_verdicts(stale, f"UPDATE items SET release_verdict = {(RULES + 1) << 4 | 15}")
    releases = {}
    for path in (project, missing, stale):
        with Store.open(path, read_only=True) as store:
            export_release(store, tmp_path / f"out-{path.stem}", seed=11)
        releases[path.stem] = release_files(tmp_path / f"out-{path.stem}")
    assert releases["project"] == releases["missing"] == releases["stale"]
    rows = {r["id"]: r for r in read_jsonl(tmp_path / "out-project" / "provenance.jsonl")}
    assert rows["xc:sounds:1"]["fixed_positions"] == [0, 1, 2, 3]
    assert rows["xc:ranges:0"]["fixed_positions"] == [3]
    assert rows["wikipedia:kea:0"]["revised"] is True
    assert UNSOUND not in rows
    # and the export does read them: one that says every option of an item keeps its place
    read = tmp_path / "read.bagel"
    shutil.copyfile(project, read)
    flamingo = "wikipedia:andean-flamingo:0"
    _set_verdicts(
        read, f"UPDATE items SET release_verdict = {RULES << 4 | 15} WHERE id = '{flamingo}'"
    )
    with Store.open(read, read_only=True) as store:
        export_release(store, tmp_path / "out-read", seed=11)
    rows = {r["id"]: r for r in read_jsonl(tmp_path / "out-read" / "provenance.jsonl")}
    assert rows[flamingo]["fixed_positions"] == [0, 1, 2, 3]
    assert rows[flamingo]["permutation"] == [0, 1, 2, 3]


def test_a_project_from_before_verdicts_exports_read_only_as_once_migrated(
    tmp_path: Path, data_dir: Path
) -> None:
    with _imported(tmp_path, data_dir):
        pass
    project, old = tmp_path / "project.bagel", tmp_path / "old.bagel"
    shutil.copyfile(project, old)
    # the project as the release before this column wrote it
    with sqlite3.connect(old) as conn:
        conn.execute(f"DROP TRIGGER {VERDICT_TRIGGER}")
        conn.execute("ALTER TABLE items DROP COLUMN release_verdict")
        conn.execute("DELETE FROM _sqlite_migrations WHERE name = 'm_items_release_verdict'")
        conn.execute(f"PRAGMA user_version = {len(MIGRATIONS) - 1}")
    conn.close()
    for path in (project, old):
        with Store.open(path, read_only=True) as store:
            export_release(store, tmp_path / f"out-{path.stem}", seed=4)
    assert release_files(tmp_path / "out-old") == release_files(tmp_path / "out-project")
    assert len(read_jsonl(tmp_path / "out-old" / "data" / "all.jsonl")) == len(FIXED) + 17
