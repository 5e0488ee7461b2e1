"""A folder holds more than items and evidence: a dataset descriptor, a species list, the counts
the generator logged. Read as item files, three such JSON files gave 32 "no domain" rejects that
buried the two real bad lines of the items and stayed in the project. Found in a folder, a JSON
file none of whose objects has an item's field (and that is no evidence or recording metadata)
is passed over, and the summary says so, with what it holds; named directly, it is read as items
as before (each line's reject says why it is none). A line that is not JSON at all may be a
broken item: a file with one is read as items, so that its reject is seen."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bagel_studio.core.importers import import_paths
from bagel_studio.core.store import Store
from tests.support.items import good


def write(path: Path, *rows: Any) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def folder_with_metadata(root: Path) -> Path:
    folder = root / "run-2026-03"
    folder.mkdir()
    items = [good("wikipedia:koala:0"), good("wikipedia:koala:1")]
    text = "".join(json.dumps(i) + "\n" for i in items) + '{"id": "wikipedia:koala:2", "que\n'
    (folder / "items.jsonl").write_text(text + json.dumps({"question": "Which?"}) + "\n")
    species = [{"species": f"Species {n}", "taxon_id": n, "article": f"S{n}"} for n in range(20)]
    write(folder / "species_list.jsonl", *species)
    counts = [{"domain_count": n, "tokens": 1000 + n} for n in range(10)]
    (folder / "generation_log.json").write_text(json.dumps(counts, indent=2))
    descriptor = {"citation": "Groom et al. (2020)", "licence": "CC0", "version": "1.0"}
    (folder / "dataset_globi.json").write_text(json.dumps(descriptor, indent=1))
    return folder


def test_a_folder_import_passes_over_json_without_items_and_says_so(
    store: Store, tmp_path: Path
) -> None:
    folder = folder_with_metadata(tmp_path)
    report = import_paths(store, [folder])
    assert report.added == 2
    assert [(r.file.rsplit("/", 1)[-1], r.line) for r in report.rejects] == [
        ("items.jsonl", 3),
        ("items.jsonl", 4),
    ]
    assert [(r.line, r.file.endswith("items.jsonl")) for r in store.imports.rejects()] == [
        (3, True),
        (4, True),
    ]
    passed = {Path(name).name for name in report.ignored}
    assert {"species_list.jsonl", "generation_log.json", "dataset_globi.json"} <= passed
    summary = "\n".join(report.summary_lines())
    assert "species_list.jsonl: JSON with no items, evidence or recording metadata" in summary
    assert "(20 objects; keys: species, taxon_id, article)" in summary
    assert "generation_log.json: JSON with no items" in summary
    assert "(10 objects; keys: domain_count, tokens)" in summary
    assert "dataset_globi.json: JSON with no items" in summary
    assert "(1 object; keys: citation, licence, version)" in summary
    assert summary.index("Rejected 2 line(s)") > summary.index("species_list.jsonl")
    assert report.to_json()["passed_over"][str(folder / "species_list.jsonl")].startswith(
        "JSON with no items"
    )


def test_named_directly_a_file_without_items_is_still_read_as_items(
    store: Store, tmp_path: Path
) -> None:
    folder = folder_with_metadata(tmp_path)
    report = import_paths(store, [folder / "species_list.jsonl"])
    assert report.reject_count == 20
    assert all("no domain" in r.reason for r in report.rejects)


def test_a_file_with_a_line_that_is_not_json_is_read_as_items(store: Store, tmp_path: Path) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "broken.jsonl").write_text('{"note": "a"}\n{"id": "x:1", "que\n', encoding="utf-8")
    report = import_paths(store, [folder])
    assert [r.line for r in report.rejects] == [1, 2]
