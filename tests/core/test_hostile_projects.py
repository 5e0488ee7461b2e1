"""Project files that are not what they seem (issue 26): objects someone added by hand, flipped
bytes, damaged pages, a newer schema. Each is found when the file is opened (or, for what only a
full check finds, before an export or a merge), writes and exports are refused with one line
that says what was found and how to recover, and nothing is written into the file."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from bagel_studio.core.model import Decision
from bagel_studio.core.operations import decide
from bagel_studio.core.store import Store
from bagel_studio.core.store.integrity import DamagedProjectError
from tests.support.hostile import (
    add_by_hand,
    break_page_of,
    flip,
    history_rows,
    project_with_history,
    read_only_mount,
)
from tests.support.storage import cli, one_line

WIPE = (
    "CREATE TRIGGER wipe_history AFTER INSERT ON reviews BEGIN"
    " DELETE FROM history WHERE id < (SELECT max(id) FROM history); END"
)


def test_a_trigger_someone_added_is_named_and_decide_does_not_run_it(tmp_path: Path) -> None:
    project = project_with_history(tmp_path)
    assert history_rows(project) == 50
    add_by_hand(project, WIPE)
    result = cli("decide", str(project), "w1", "--curator", "bo", "--accept")
    line = one_line(result, "decide")
    assert "trigger wipe_history on reviews" in line
    assert f"bagel-studio repair {project} NEWFILE" in line
    assert history_rows(project) == 50  # the trigger never ran


def test_a_trigger_of_the_studio_rewritten_by_hand_is_found(tmp_path: Path) -> None:
    """A trigger of the studio's own name whose body now also rewrites a stem."""
    project = project_with_history(tmp_path, items=3)
    add_by_hand(
        project,
        "DROP TRIGGER items_release_verdict_clear",
        "CREATE TRIGGER items_release_verdict_clear AFTER UPDATE OF domain, question, options,"
        " answer_index, dimension, level ON items WHEN new.release_verdict IS NOT NULL BEGIN"
        " UPDATE items SET release_verdict = NULL, question = 'Which?' WHERE id = new.id; END",
    )
    with Store.open(project) as store:
        assert store.damage is not None
        assert "changed from what BAGEL Studio created: trigger items_release_verdict_clear" in (
            store.damage
        )
        with pytest.raises(DamagedProjectError):
            decide(store, "w0", "bo", Decision.REJECT, reason="other")


def test_a_view_a_table_and_an_index_added_by_hand_are_named(tmp_path: Path) -> None:
    project = project_with_history(tmp_path, items=3)
    add_by_hand(
        project,
        "CREATE VIEW accepted AS SELECT item_id FROM reviews",
        "CREATE TABLE notes (x)",
        "CREATE INDEX idx_mine ON items (question)",
    )
    result = cli("decide", str(project), "w1", "--curator", "bo", "--skip")
    line = one_line(result, "decide")
    for what in ("view accepted", "table notes", "index idx_mine on items"):
        assert what in line
    # reading it is still allowed, with the same warning
    stats = cli("stats", str(project), "--json")
    assert stats.returncode == 0, stats.stderr
    assert json.loads(stats.stdout)["items"] == 3
    assert "view accepted" in stats.stderr


def _wikipedia_row(project: Path, item: int) -> bytes:
    """The bytes of item ``w<item>``'s domain, dimension and stem as its row holds them (the
    indexes hold domain and dimension without the stem)."""
    return f"WikipediaDietWhat does animal number {item} eat".encode()


def test_a_flipped_byte_in_a_row_stops_the_export(tmp_path: Path) -> None:
    project = project_with_history(tmp_path, items=20)
    row = _wikipedia_row(project, 7)
    flip(project, row, row.replace(b"Wikipedia", b"Wiiipedia"))
    out = tmp_path / "release"
    result = cli("export", str(project), str(out), "--seed", "1")
    line = one_line(result, "export")
    assert "damaged" in line and "repair" in line
    assert not out.exists()


def test_a_flipped_byte_in_a_stem_stops_the_export(tmp_path: Path) -> None:
    """No index of SQLite holds the stems: the search index does, and the full check compares
    it with the items."""
    project = project_with_history(tmp_path, items=20)
    flip(project, b"animal number 7 eat", b"animal number 7 e2t")  # the stem and its original
    out = tmp_path / "release"
    result = cli("export", str(project), str(out), "--seed", "1")
    line = one_line(result, "export")
    assert "damaged" in line and "search index" in line
    assert not out.exists()


def test_a_damaged_page_refuses_decide_and_check_with_one_line(tmp_path: Path) -> None:
    project = project_with_history(tmp_path, items=20)
    break_page_of(project, "reviews")
    before = project.read_bytes()
    decided = one_line(cli("decide", str(project), "w1", "--curator", "bo", "--skip"), "decide")
    assert "damaged" in decided and "repair" in decided
    assert "disk full" not in decided
    checked = one_line(cli("check", str(project), "--no-audio"), "check")
    assert "damaged" in checked
    assert project.read_bytes() == before


def test_a_damaged_page_is_found_on_open_unless_left_to_check_pages(tmp_path: Path) -> None:
    """The commands check the pages when they open a project; the desk opens it with
    ``check_pages=False`` and runs ``check_pages`` later, and every write waits for that
    verdict (the transaction runs the check when it has not run)."""
    project = project_with_history(tmp_path, items=20)
    break_page_of(project, "merges")
    with Store.open(project) as store:
        assert store.pages_checked and store.damage is not None and "damaged" in store.damage
    with Store.open(project, check_pages=False) as store:
        assert not store.pages_checked and store.damage is None
        assert not store.check_pages().sound
        assert store.damage is not None and "damaged" in store.damage
    before = history_rows(project)
    with (
        Store.open(project, check_pages=False) as store,
        pytest.raises(DamagedProjectError, match="damaged"),
    ):
        decide(store, "w1", "bo", Decision.ACCEPT)
    assert history_rows(project) == before


def test_a_project_with_a_migration_pending_has_its_pages_checked_on_open(
    tmp_path: Path,
) -> None:
    """Only a file known sound is migrated: ``check_pages=False`` does not leave the check out
    of an open that migrates."""
    import gzip

    data = Path(__file__).parent / "store" / "data"
    for name in ("project_v2", "project_named"):
        path = tmp_path / f"{name}.bagel"
        path.write_bytes(gzip.decompress((data / f"{name}.bagel.gz").read_bytes()))
        with Store.open(path, check_pages=False) as store:
            assert store.pages_checked and store.damage is None


def test_a_read_only_command_on_a_damaged_file_names_the_damage_not_the_disk(
    tmp_path: Path,
) -> None:
    project = project_with_history(tmp_path, items=20)
    break_page_of(project, "reviews")
    result = cli("stats", str(project))
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    assert "malformed" in result.stderr or "damaged" in result.stderr
    assert "disk full" not in result.stderr
    assert "could not write" not in result.stderr


def test_a_truncated_project_is_one_line(tmp_path: Path) -> None:
    project = project_with_history(tmp_path, items=20)
    data = project.read_bytes()
    project.write_bytes(data[: len(data) // 2])
    for args in (
        ["stats", str(project)],
        ["decide", str(project), "w1", "--curator", "b", "--skip"],
    ):
        result = cli(*args)
        line = one_line(result, args[0])
        assert "damaged" in line and "repair" in line, line


def test_merge_refuses_a_project_of_a_newer_schema(tmp_path: Path) -> None:
    ours = project_with_history(tmp_path, items=3)
    other_folder = tmp_path / "other"
    other_folder.mkdir()
    theirs = other_folder / "theirs.bagel"
    shutil.copyfile(ours, theirs)
    add_by_hand(
        theirs,
        "INSERT INTO _sqlite_migrations (migration_set, name, applied_at)"
        " VALUES ('bagel-studio', 'm_from_the_future', 'x')",
    )
    result = cli("merge", str(ours), str(theirs))
    line = one_line(result, "merge")
    assert "newer BAGEL Studio" in line


def test_merge_refuses_a_damaged_project(tmp_path: Path) -> None:
    ours = project_with_history(tmp_path, items=3)
    other_folder = tmp_path / "other"
    other_folder.mkdir()
    theirs = other_folder / "theirs.bagel"
    shutil.copyfile(ours, theirs)
    add_by_hand(theirs, WIPE)
    result = cli("merge", str(ours), str(theirs))
    line = one_line(result, "merge")
    assert "trigger wipe_history" in line


def test_require_sound_is_what_collect_and_merge_call(tmp_path: Path) -> None:
    """One function of the store runs the full check: the schema compared with the migrations'
    and SQLite's integrity check, and refuses writes from then on when either fails."""
    project = project_with_history(tmp_path, items=20)
    row = _wikipedia_row(project, 3)
    flip(project, row, row.replace(b"Wikipedia", b"Wiiipedia"))
    with Store.open(project) as store:
        assert store.damage is None  # the quick check on open does not compare indexes
        with pytest.raises(DamagedProjectError, match="damaged"):
            store.require_sound()
        with pytest.raises(DamagedProjectError):
            decide(store, "w1", "bo", Decision.SKIP)
    with Store.open(tmp_path / "fresh.bagel") as fresh:
        fresh.require_sound()


def test_an_older_release_file_is_sound_after_migrating(tmp_path: Path) -> None:
    import gzip

    data = Path(__file__).parent / "store" / "data"
    for name in ("project_v2", "project_named"):
        path = tmp_path / f"{name}.bagel"
        path.write_bytes(gzip.decompress((data / f"{name}.bagel.gz").read_bytes()))
        with Store.open(path) as store:
            assert store.damage is None
            store.require_sound()


def test_a_project_on_read_only_media_can_be_read(tmp_path: Path) -> None:
    """No shared-memory file can be made beside it: it is read as it lies."""
    source = tmp_path / "source"
    source.mkdir()
    project = project_with_history(source, items=5)
    with read_only_mount(source, tmp_path / "media") as media:
        result = cli("stats", str(media / project.name), "--json")
        assert result.returncode == 0, result.stderr
        assert json.loads(result.stdout)["items"] == 5
        refused = cli("decide", str(media / project.name), "w1", "--curator", "bo", "--skip")
        assert "read-only" in one_line(refused, "decide").lower()


def test_sqlite_tools_statistics_are_not_foreign(tmp_path: Path) -> None:
    project = project_with_history(tmp_path, items=3)
    add_by_hand(project, "ANALYZE")
    with Store.open(project) as store:
        assert store.damage is None


def test_the_check_on_open_costs_one_read_of_the_schema(tmp_path: Path) -> None:
    """Opening an up-to-date sound project builds no schema in memory (the objects of each
    migration are read from the package)."""
    from bagel_studio.core.store import integrity

    project = project_with_history(tmp_path, items=3)
    integrity.built_deltas.cache_clear()
    with Store.open(project):
        pass
    assert integrity.built_deltas.cache_info().currsize == 0


def test_a_table_file_of_another_program_is_still_refused(tmp_path: Path) -> None:
    other = tmp_path / "other.db"
    conn = sqlite3.connect(other)
    conn.execute("CREATE TABLE t (x)")
    conn.close()
    result = cli("stats", str(other))
    assert "another program" in one_line(result, "stats")
