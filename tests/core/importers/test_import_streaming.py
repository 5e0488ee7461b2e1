"""A JSON Lines file is written a chunk of items (or of rejects) at a time: the project and the
report are the same as when the whole file is one chunk, duplicates and conflicting ids across
chunks included."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bagel_studio.core.importers import import_paths, item_files
from bagel_studio.core.store import Store


def _item(n: int, question: str | None = None) -> dict[str, Any]:
    return {
        "id": f"w:{n}",
        "domain": "Wikipedia",
        "dimension": "Diet",
        "question": question or f"What does species {n} eat?",
        "options": ["seeds", "insects", "fish", "leaves"],
        "answer": "B",
    }


def _lines(path: Path) -> Path:
    records = [_item(n) for n in range(12)]
    records.insert(7, _item(2))  # the same item again, after the first chunk was written
    records.insert(9, _item(3, "A different question under an id already written?"))
    records.insert(4, {"id": "w:x", "domain": "Wikipedia"})  # no question: a reject
    records.append({"id": "g:1", "domain": "GloBI", "output": {"usable": "false"}})
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    return path


def _project_and_report(folder: Path, source: Path) -> tuple[list[Any], dict[str, Any]]:
    with Store.open(folder / "p.bagel") as store:
        report = import_paths(store, [source])
        rows = store.db.execute(
            "SELECT id, seq, question, options, answer_index, source_line, flag_checks"
            " FROM items ORDER BY seq"
        ).fetchall()
        rejects = store.db.execute("SELECT file, line, reason FROM rejects ORDER BY id").fetchall()
    summary = report.to_json()
    summary.pop("timings", None)
    return [rows, rejects], summary


@pytest.mark.parametrize(
    ("limit", "value"),
    [("CHUNK_ITEMS", 3), ("CHUNK_REJECTS", 1), ("CHUNK_REJECT_CHARS", 1)],
)
def test_chunks_give_the_project_and_report_of_one_batch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, limit: str, value: int
) -> None:
    """Handed over every few items, or after every reject (a file of malformed lines is
    written as it is read too)."""
    source = _lines(tmp_path / "items.jsonl")
    (tmp_path / "whole").mkdir()
    whole = _project_and_report(tmp_path / "whole", source)
    monkeypatch.setattr(item_files, limit, value)
    (tmp_path / "chunks").mkdir()
    chunked = _project_and_report(tmp_path / "chunks", source)

    assert chunked == whole
    (rows, rejects), summary = chunked
    assert [r[0] for r in rows] == [f"w:{n}" for n in range(12)]
    assert summary["unchanged"] == 1  # the repeated w:2
    reasons = [r[2] for r in rejects]
    assert any("duplicate id 'w:3' (first on line" in r for r in reasons)
    assert len(reasons) == 2
