"""The import writes structural flags with the items; the other checks are a separate step."""

from __future__ import annotations

import json
from pathlib import Path

from bagel_studio.core.checks import check_item
from bagel_studio.core.importers import import_paths, run_full_checks
from bagel_studio.core.model import SEVERITY_RANK, Flag, ItemContent
from bagel_studio.core.store import Store

ITEMS = [
    {  # sound, but the stem points at hidden context: a warning from the full checks
        "id": "w:1",
        "domain": "Wikipedia",
        "dimension": "Habitat",
        "question": "According to the passage, where does the koala live?",
        "options": ["Eucalyptus forests", "Deserts", "Tundra", "Mangroves"],
        "answer": "A",
    },
    {  # three options: blocking from the start
        "id": "w:2",
        "domain": "Wikipedia",
        "dimension": "Habitat",
        "question": "Where do raccoons den?",
        "options": ["Tree hollows", "Open water", "Sand dunes"],
        "answer": "A",
    },
]


def _write(tmp_path: Path) -> Path:
    path = tmp_path / "items.jsonl"
    path.write_text("".join(json.dumps(i) + "\n" for i in ITEMS), encoding="utf-8")
    return path


def test_structural_flags_only_until_the_full_checks(tmp_path: Path) -> None:
    with Store.open(tmp_path / "p.bagel") as store:
        report = import_paths(store, [_write(tmp_path)], full_checks=False)
        assert report.check_item_ids == ["w:1", "w:2"]
        assert set(report.timings) == {"import", "import_cpu"}  # wall and CPU seconds
        assert store.flags.of_item("w:1") == []
        assert [f.check for f in store.flags.blocking("w:2")] == ["option-count"]
        run_full_checks(store, report)
        assert "checks" in report.timings
        for item_id in ("w:1", "w:2"):
            expected = check_item(store, store.items.get(item_id))
            assert store.flags.of_item(item_id) == _ordered(expected)
        assert "hidden-context" in {f.check for f in store.flags.of_item("w:1")}


def test_default_import_runs_every_check(tmp_path: Path) -> None:
    with Store.open(tmp_path / "p.bagel") as store:
        report = import_paths(store, [_write(tmp_path)])
        assert set(report.timings) == {"import", "import_cpu", "checks"}
        assert "hidden-context" in {f.check for f in store.flags.of_item("w:1")}
        assert "option-count" in {f.check for f in store.flags.of_item("w:2")}


def test_bulk_read_matches_single_reads(tmp_path: Path) -> None:
    with Store.open(tmp_path / "p.bagel") as store:
        import_paths(store, [_write(tmp_path)])
        assert store.items.get_many(["w:2", "missing", "w:1"]) == [
            store.items.get("w:1"),
            store.items.get("w:2"),
        ]
        assert store.items.get_many() == list(store.items.iterate())


def test_canonical_json_is_sorted_json() -> None:
    for content in (
        ItemContent('Q "ü" \\ \n?', ("a", "b\u2028", "", "d"), 2, "Dim", None),
        ItemContent("q", (), None, None, "lvl"),
        ItemContent("q", ("x",), True, None),
    ):
        expected = json.dumps(content.to_json(), sort_keys=True, ensure_ascii=False)
        assert content.canonical_json() == expected


def _ordered(flags: list[Flag]) -> list[Flag]:
    """Flags in the order ``store.flags.of_item`` returns them."""
    return sorted(flags, key=lambda f: (SEVERITY_RANK[f.severity], f.check))
