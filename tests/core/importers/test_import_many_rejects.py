"""An import of many rejected lines writes each to the project as it meets it and keeps only
their count and the first few (what the summary lists) in memory: a file of 200,000 malformed
lines once held every one, with its text, until the end (tests/benchmarks/bench_import.py
--malformed measures the memory). Real files: a GloBI table and a JSON Lines file, both with
thousands of rejected rows among good ones, imported into a real project."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

from bagel_studio.core.cli import run
from bagel_studio.core.importers import import_paths, item_files
from bagel_studio.core.importers.items import ItemBatch
from bagel_studio.core.importers.report import KEPT_REJECTS
from bagel_studio.core.store import Store
from tests.support.items import good

TABLE_ROWS = 2_600  # every 10th names its taxa; the others are rejected
ITEM_LINES = 3_300  # every 100th is an item; the others are cut off (truncated JSON)
FILLER = "y" * 1_500


def write_table(path: Path) -> list[int]:
    """A GloBI table; returns the lines of its rejected rows."""
    rejected = []
    with path.open("w", encoding="utf-8") as handle:
        handle.write("sourceTaxonName\tinteractionTypeName\ttargetTaxonName\n")
        for n in range(TABLE_ROWS):
            if n % 10:
                handle.write(f"\teats\t\t{FILLER}\n")
                rejected.append(n + 2)
            else:
                handle.write(f"Bombus terrestris\tvisits\tTrifolium pratense {n}\n")
    return rejected


def write_items(path: Path) -> dict[int, str]:
    """A JSON Lines file; returns its malformed lines by number."""
    malformed = {}
    with path.open("w", encoding="utf-8") as handle:
        for n in range(ITEM_LINES):
            if n % 100 == 0:
                handle.write(json.dumps(good(f"w:{n}")) + "\n")
            else:
                text = f'{{"id": "bad:{n}", "question": "{FILLER}", "options": ["A", "B"'
                handle.write(text + "\n")
                malformed[n + 1] = text
    return malformed


def test_every_reject_is_kept_in_the_project_and_the_report_holds_the_first(
    tmp_path: Path,
) -> None:
    table, items = tmp_path / "interactions.tsv", tmp_path / "items.jsonl"
    table_lines, malformed = write_table(table), write_items(items)
    total = len(table_lines) + len(malformed)
    with Store.open(tmp_path / "p.bagel") as store:
        report = import_paths(store, [items, table], full_checks=False)
        stored = store.db.execute("SELECT file, line, reason, raw FROM rejects ORDER BY id")
        rows = stored.fetchall()
    # The project keeps every reject, with its text, evidence first (as imported).
    assert len(rows) == total
    expected_lines = [(str(table), n) for n in table_lines] + [(str(items), n) for n in malformed]
    assert [(file, line) for file, line, _, _ in rows] == expected_lines
    assert all(
        reason == "no source or target taxon" for _, _, reason, _ in rows[: len(table_lines)]
    )
    for _, line, reason, raw in rows[len(table_lines) :]:
        assert reason.startswith("truncated JSON") and raw == malformed[line]
    assert report.added_by_domain == {"Wikipedia": ITEM_LINES // 100}
    assert report.evidence["globi_records"] == TABLE_ROWS // 10
    # The report counts them all and holds the first few, as the summary lists them.
    assert report.reject_count == total and report.exit_status == 1
    assert len(report.rejects) == KEPT_REJECTS
    first = [f"{file}:{line}: {reason}" for file, line, reason, _ in rows[:KEPT_REJECTS]]
    assert [str(r) for r in report.rejects] == first
    lines = report.summary_lines()
    at = lines.index(f"Rejected {total:,} line(s) (kept in the project):")
    assert lines[at + 1 :] == [f"  {r}" for r in first] + [
        f"  ... and {total - KEPT_REJECTS:,} more"
    ]
    assert report.to_json()["reject_count"] == total


def test_the_json_report_lists_every_reject_read_back_from_the_project(tmp_path: Path) -> None:
    items = tmp_path / "items.jsonl"
    malformed = write_items(items)
    project = tmp_path / "p.bagel"
    with Store.open(project) as store:  # a reject from an earlier import is not this run's
        import_paths(store, [write_short(tmp_path / "earlier.jsonl")], full_checks=False)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = run(["import", str(project), str(items), "--json"])
    assert status == 1
    report = json.loads(out.getvalue())
    assert [r["line"] for r in report["rejects"]] == list(malformed)
    assert {r["file"] for r in report["rejects"]} == {str(items)}
    assert report["reject_count"] == len(malformed)
    assert report["project_rejects"] == len(malformed) + 1
    assert report["added_by_domain"] == {"Wikipedia": ITEM_LINES // 100}


def write_short(path: Path) -> Path:
    path.write_text(json.dumps(good("e:1")) + "\n{not json\n", encoding="utf-8")
    return path


def test_a_file_of_rejects_is_handed_over_to_be_written_a_batch_at_a_time(
    tmp_path: Path,
) -> None:
    items = tmp_path / "items.jsonl"
    malformed = write_items(items)
    handed: list[int] = []

    def write(batch: ItemBatch) -> None:
        handed.append(len(batch.rejects))

    with items.open("rb") as handle:
        last = item_files.read_items(handle, items, "items.jsonl", write)
    assert max(handed) == item_files.CHUNK_REJECTS
    assert sum(handed) + len(last.rejects) == len(malformed)
