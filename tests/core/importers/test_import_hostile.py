"""Hostile text: lone surrogates, control characters, bidi overrides, undecodable file names.

Each gets a clear message, nothing crashes, and every other line still comes in."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from bagel_studio.core.cli import run
from bagel_studio.core.importers import import_paths
from bagel_studio.core.store import Store

LONE = '{"id": "s1", "domain": "Wikipedia", "dimension": "Diet", "question": "Lone \\ud800?",'
LONE += ' "options": ["a", "b", "c", "d"], "answer": "A"}'
PAIR = (
    '{"id": "s2", "domain": "Wikipedia", "dimension": "Diet", "question": "Emoji \\ud83e\\udd8a?",'
)
PAIR += ' "options": ["a", "b", "c", "d"], "answer": "A"}'


def control_item() -> str:
    return json.dumps(
        {
            "id": "s3",
            "domain": "Wikipedia",
            "dimension": "Diet",
            "question": "NUL \u0000, bell \u0007, RTL \u202eoverride\u202c, zero\u200bwidth?",
            "options": ["a\u0000", "b", "c", "d"],
            "answer": "B",
        }
    )


def test_lone_surrogate_is_a_reject_and_the_rest_imports(tmp_path: Path) -> None:
    source = tmp_path / "items.jsonl"
    source.write_text("\n".join([LONE, PAIR, control_item()]) + "\n", encoding="utf-8")
    with Store.open(tmp_path / "p.bagel") as store:
        report = import_paths(store, [source])
        assert sorted(report.new_item_ids) == ["s2", "s3"]
        [reject] = store.imports.rejects()
        assert reject.line == 1 and "lone surrogate" in reject.reason
        assert "\\ud800" in reject.raw  # the line is kept as written
        assert store.items.get("s2").content.question == "Emoji \U0001f98a?"
        stored = store.items.get("s3").content
        assert "\u0000" in stored.question and "\u202e" in stored.question  # kept, not mangled
        assert stored.options[0] == "a\u0000"


def test_surrogate_in_a_pretty_printed_document_rejects_the_file(tmp_path: Path) -> None:
    source = tmp_path / "recordings.json"
    source.write_text('{\n  "recordings": [{"id": "1", "en": "Bad \\udc00 name"}]\n}\n')
    with Store.open(tmp_path / "p.bagel") as store:
        report = import_paths(store, [source])
        assert report.exit_status == 1
        assert "lone surrogate" in store.imports.rejects()[0].reason
        assert store.evidence.recordings() == []


@pytest.mark.skipif(sys.platform != "linux", reason="needs a file system that takes any bytes")
def test_undecodable_file_name_is_named_and_skipped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = tmp_path / "good.jsonl"
    good.write_text(PAIR + "\n", encoding="utf-8")
    bad = os.fsdecode(os.fsencode(str(tmp_path)) + b"/bad_\xff.jsonl")
    Path(bad).write_text(control_item() + "\n", encoding="utf-8")
    code = run(["import", str(tmp_path / "p.bagel"), bad, str(good)])
    out = capsys.readouterr().out
    assert code == 2
    assert "bad_\ufffd.jsonl: the file name is not valid UTF-8" in out
    with Store.open(tmp_path / "p.bagel", read_only=True) as store:
        assert store.items.ids() == ["s2"]
