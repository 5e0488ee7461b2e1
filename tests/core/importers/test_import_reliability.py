"""Input that must not cost good lines or memory: gold letters that disagree with their index,
NUL bytes in one line, UTF-16/32 files, special files, overlong lines, unreadable audio."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bagel_studio.core.importers import import_paths
from bagel_studio.core.store import Store


@pytest.fixture
def store(project_path: Path) -> Iterator[Store]:
    with Store.open(project_path) as opened:
        yield opened


def good(item_id: str, **changes: Any) -> dict[str, Any]:
    return {
        "id": item_id,
        "domain": "Wikipedia",
        "dimension": "Diet",
        "level": "easy",
        "question": f"What does animal {item_id} eat?",
        "options": ["Leaves", "Fish", "Insects", "Seeds"],
        "answer": "A",
    } | changes


def jsonl(*rows: dict[str, Any]) -> str:
    return "".join(json.dumps(r) + "\n" for r in rows)


def test_answer_letter_and_index_that_disagree_are_a_reject(store: Store, tmp_path: Path) -> None:
    path = tmp_path / "items.jsonl"
    path.write_text(
        jsonl(
            good("w:1", answer="B", answer_index=1),
            good("w:2", answer="B", answer_index=2),
            good("w:3", answer="Fish", answer_index=3),
        ),
        encoding="utf-8",
    )
    report = import_paths(store, [path])
    assert sorted(report.new_item_ids) == ["w:1"]
    reasons = {r.line: r.reason for r in store.rejects()}
    assert reasons == {
        2: "answer 'B' and answer_index 2 name different options",
        3: "answer 'Fish' and answer_index 3 name different options",
    }
    assert report.exit_status == 1
