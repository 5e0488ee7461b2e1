"""Round trip: importing an exported release recreates the released items exactly."""

from __future__ import annotations

from pathlib import Path

from bagel_studio.core import operations
from bagel_studio.core.export import export_release
from bagel_studio.core.importers import import_paths
from bagel_studio.core.model import Decision
from bagel_studio.core.store import Store
from tests.core.export.export_support import read_jsonl


def test_import_of_a_release_recreates_its_items(paper_store: Store, tmp_path: Path) -> None:
    edited = paper_store.items.get("wikipedia:kea:0").content.with_changes(
        question="Which cognitive ability of the kea is shown in problem-solving studies?"
    )
    operations.edit(paper_store, "wikipedia:kea:0", "ada", edited)
    operations.decide(paper_store, "wikipedia:kea:0", "ada", Decision.ACCEPT)
    operations.decide(paper_store, "globi:2:0", "ada", Decision.REJECT, reason="several-answers")
    export_release(paper_store, tmp_path / "release", seed=31)
    released = {r["id"]: r for r in read_jsonl(tmp_path / "release" / "data" / "all.jsonl")}

    with Store.open(tmp_path / "reimported.bagel") as store:
        import_paths(store, [tmp_path / "release" / "data" / "all.jsonl"])
        items = {item.id: item for item in store.items.iterate()}

    assert set(items) == set(released)
    assert "globi:2:0" not in items
    for item_id, row in released.items():
        content = items[item_id].content
        assert items[item_id].domain == row["domain"]
        assert content.question == row["question"]
        assert list(content.options) == row["options"]
        assert content.answer_index == row["answer_index"]
        assert content.dimension == row["dimension"]
        assert content.level == row["level"]
        assert items[item_id].recording_id == row.get("recording")
    assert items["wikipedia:kea:0"].content.question == edited.question


def test_importing_the_whole_release_folder_rejects_nothing(
    paper_store: Store, tmp_path: Path
) -> None:
    export_release(paper_store, tmp_path / "release", seed=5)
    released = {r["id"] for r in read_jsonl(tmp_path / "release" / "data" / "all.jsonl")}

    with Store.open(tmp_path / "reimported.bagel") as store:
        report = import_paths(store, [tmp_path / "release"])
        assert [(r.file, r.line, r.reason) for r in report.rejects] == []
        assert report.exit_status == 0
        assert store.imports.reject_count() == 0
        assert set(store.items.ids()) == released
