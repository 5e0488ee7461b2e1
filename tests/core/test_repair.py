"""``bagel-studio repair PROJECT NEWFILE`` (issue 26): what is sound of a damaged project, copied
into a new file that passes every check; the damaged file is never written."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from bagel_studio.core.store import Store
from tests.support.hostile import (
    add_by_hand,
    break_page_of,
    flip,
    history_rows,
    project_with_history,
)
from tests.support.storage import cli, one_line


def _sound(project: Path) -> Store:
    store = Store.open(project)
    assert store.damage is None, store.damage
    store.require_sound()
    return store


def test_objects_someone_added_are_dropped_and_everything_else_kept(tmp_path: Path) -> None:
    project = project_with_history(tmp_path)
    add_by_hand(
        project,
        "CREATE TRIGGER wipe AFTER INSERT ON reviews BEGIN DELETE FROM history; END",
        "CREATE VIEW accepted AS SELECT item_id FROM reviews",
        "CREATE TABLE notes (x)",
        "CREATE INDEX idx_mine ON items (question)",
    )
    before = project.read_bytes()
    new = tmp_path / "new.bagel"
    result = cli("repair", str(project), str(new))
    assert result.returncode == 0, result.stderr
    for what in ("trigger wipe on reviews", "view accepted", "table notes", "index idx_mine"):
        assert what in result.stdout
    assert project.read_bytes() == before  # never written
    with _sound(new) as store:
        assert store.items.count() == 50
        assert len(store.reviews.of_item("w3")) == 1
    assert history_rows(new) == 50
    assert cli("decide", str(new), "w3", "--curator", "bo", "--skip").returncode == 0
    assert history_rows(new) == 51


def test_a_studio_trigger_changed_by_hand_is_made_again(tmp_path: Path) -> None:
    project = project_with_history(tmp_path, items=5)
    add_by_hand(
        project,
        "DROP TRIGGER items_fts_update",
        "CREATE TRIGGER items_fts_update AFTER UPDATE OF id, question, options ON items BEGIN"
        " DELETE FROM history; END",
    )
    new = tmp_path / "new.bagel"
    result = cli("repair", str(project), str(new))
    assert result.returncode == 0, result.stderr
    assert "made again as BAGEL Studio makes them: trigger items_fts_update" in result.stdout
    _sound(new).close()


def test_a_row_that_disagrees_with_its_index_is_named(tmp_path: Path) -> None:
    project = project_with_history(tmp_path, items=20)
    row = b"WikipediaDietWhat does animal number 7 eat"
    flip(project, row, row.replace(b"Wikipedia", b"Wiiipedia"))
    new = tmp_path / "new.bagel"
    result = cli("repair", str(project), str(new))
    assert result.returncode == 0, result.stderr
    assert "their text may be damaged" in result.stdout and ": w7" in result.stdout
    with _sound(new) as store:
        assert store.items.count() == 20


def test_a_stem_that_disagrees_with_the_search_index_is_indexed_again(tmp_path: Path) -> None:
    project = project_with_history(tmp_path, items=20)
    flip(project, b"animal number 7 eat", b"animal number 7 e2t")
    new = tmp_path / "new.bagel"
    result = cli("repair", str(project), str(new))
    assert result.returncode == 0, result.stderr
    assert "search index" in result.stdout
    _sound(new).close()


def test_a_damaged_page_loses_only_its_rows(tmp_path: Path) -> None:
    project = project_with_history(tmp_path, items=400)
    break_page_of(project, "reviews")
    new = tmp_path / "new.bagel"
    result = cli("repair", str(project), str(new))
    assert result.returncode == 1, result.stderr
    assert "rows copied one by one" in result.stdout
    assert "reviews" in result.stdout.split("could not be read")[1]
    with _sound(new) as store:
        assert store.items.count() == 400
    assert history_rows(new) == 400


def test_a_truncated_project_keeps_what_was_before_the_cut(tmp_path: Path) -> None:
    project = project_with_history(tmp_path, items=400)
    data = project.read_bytes()
    project.write_bytes(data[: len(data) * 2 // 3])
    new = tmp_path / "new.bagel"
    result = cli("repair", str(project), str(new))
    assert result.returncode in (0, 1), result.stderr
    assert "Traceback" not in result.stderr
    _sound(new).close()


def test_repair_refuses_to_overwrite_and_to_read_what_is_no_project(tmp_path: Path) -> None:
    project = project_with_history(tmp_path, items=3)
    taken = tmp_path / "taken.bagel"
    taken.write_text("mine", encoding="utf-8")
    assert "exists" in one_line(cli("repair", str(project), str(taken)), "repair")
    assert taken.read_text(encoding="utf-8") == "mine"
    text = tmp_path / "notes.txt"
    text.write_text("notes\n", encoding="utf-8")
    line = one_line(cli("repair", str(text), str(tmp_path / "x.bagel")), "repair")
    assert "not an SQLite file" in line
    other = tmp_path / "other.db"
    conn = sqlite3.connect(other)
    conn.execute("CREATE TABLE t (x)")
    conn.close()
    assert "no items table" in one_line(
        cli("repair", str(other), str(tmp_path / "y.bagel")), "repair"
    )
    assert not (tmp_path / "x.bagel").exists() and not (tmp_path / "y.bagel").exists()
