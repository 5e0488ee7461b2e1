"""Bad input: every line that cannot be an item is a reject kept in the project; the rest
imports; structurally wrong items come in blocked."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from bagel_studio.core import operations
from bagel_studio.core.checks.structural import (
    DIMENSION_INVALID,
    GOLD_INVALID,
    OPTION_COUNT,
    OPTION_EMPTY,
)
from bagel_studio.core.importers import import_paths
from bagel_studio.core.model import Decision, Severity
from bagel_studio.core.store import BlockedError, Store
from tests.support.items import good


def lines(path: Path, *rows: Any) -> Path:
    text = "".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows)
    path.write_text(text, encoding="utf-8")
    return path


def reasons(store: Store) -> dict[int, str]:
    return {r.line: r.reason for r in store.imports.rejects()}


def blocking(store: Store, item_id: str) -> set[str]:
    return {f.check for f in store.flags.of_item(item_id) if f.severity is Severity.BLOCKING}


def test_truncated_json_line_is_rejected_and_the_rest_imports(store: Store, tmp_path: Path) -> None:
    full = json.dumps(good("w:2"))
    path = lines(tmp_path / "t.jsonl", good("w:1"), full[: len(full) // 2], good("w:3"))
    report = import_paths(store, [path])

    assert report.new_item_ids == ["w:1", "w:3"]
    (reject,) = report.rejects
    assert (reject.file, reject.line) == (str(path), 2)
    assert reject.reason.startswith("truncated JSON (unterminated string starting at column")
    assert report.exit_status == 1
    (reject,) = store.imports.rejects()
    assert reject.raw == full[: len(full) // 2]


def test_wrong_types_are_rejected_with_the_reason(store: Store, tmp_path: Path) -> None:
    path = lines(
        tmp_path / "types.jsonl",
        good("w:1", options="Leaves, Fish, Insects, Seeds"),
        good("w:2", question=42),
        good("w:3", options=["Leaves", {"text": "Fish"}, "Insects", "Seeds"]),
        good("w:4", options={"first": "a", "second": "b"}),
        ["not", "an", "object"],
        good("w:6", output="just text"),
        good("w:7", question="   "),
        "this is not JSON at all",
        good("w:9", domain="Marine mammals"),
        {"question": "No domain anywhere?", "options": ["a", "b", "c", "d"], "answer": "A"},
        good("w:11"),
    )
    report = import_paths(store, [path])

    assert report.new_item_ids == ["w:11"]
    assert reasons(store) == {
        1: "options must be a list or an object with keys A-D, not text",
        2: "'question' must be text, not a number",
        3: "option 2 must be text, not an object",
        4: "options object has key 'first'; expected letters A-D",
        5: "not a JSON object but a list",
        6: "'output' must be an object, not text",
        7: "no question text",
        8: "invalid JSON: expecting value at column 1",
        9: "unknown domain 'Marine mammals' (one of: Wikipedia, GloBI, bioRxiv, Xeno-canto)",
        10: "no domain (one of: Wikipedia, GloBI, bioRxiv, Xeno-canto)",
    }


def test_structurally_wrong_items_import_blocked(store: Store, tmp_path: Path) -> None:
    path = lines(
        tmp_path / "structure.jsonl",
        good("w:three", options=["Leaves", "Fish", "Insects"]),
        good("w:gold", answer="Bamboo shoots"),
        good("w:letter", options=["Leaves", "Fish", "Insects"], answer="D"),
        good("w:dim", dimension="Physiology"),
        good("w:empty", options=["Leaves", "", "Insects", "Seeds"]),
        good("w:gold-type", answer=["A"]),
        good("w:no-gold", answer=None),
    )
    report = import_paths(store, [path])

    assert report.rejects == [] and report.exit_status == 0
    assert store.items.count() == 7
    assert store.items.get("w:three").content.options == ("Leaves", "Fish", "Insects")
    assert blocking(store, "w:three") == {OPTION_COUNT}
    assert store.items.get("w:gold").content.answer_index is None
    assert blocking(store, "w:gold") == {GOLD_INVALID}
    assert store.items.get("w:letter").content.answer_index is None
    assert blocking(store, "w:letter") == {OPTION_COUNT, GOLD_INVALID}
    assert store.items.get("w:dim").content.dimension == "Physiology"
    assert blocking(store, "w:dim") == {DIMENSION_INVALID}
    assert blocking(store, "w:empty") == {OPTION_EMPTY}
    assert blocking(store, "w:gold-type") == {GOLD_INVALID}
    assert blocking(store, "w:no-gold") == {GOLD_INVALID}
    with pytest.raises(BlockedError):
        operations.decide(store, "w:gold", "ana", Decision.ACCEPT)


def test_wikipedia_envelope_with_one_bad_question(store: Store, tmp_path: Path) -> None:
    questions = [
        {"dimension": "Diet", "question": f"Q{i}?", "options": ["a", "b", "c", "d"], "answer": "a"}
        for i in range(3)
    ]
    questions[1] = {"dimension": "Diet", "question": "Q1?", "options": "a, b, c, d"}
    envelope = {
        "id": "wikipedia:x",
        "domain": "Wikipedia",
        "source": {"title": "X"},
        "output": {"questions": questions},
    }
    report = import_paths(store, [lines(tmp_path / "env.jsonl", envelope)])

    assert report.new_item_ids == ["wikipedia:x:0", "wikipedia:x:2"]
    assert reasons(store) == {
        1: "questions[1]: options must be a list or an object with keys A-D, not text"
    }


def test_duplicate_id_with_other_content_is_rejected(store: Store, tmp_path: Path) -> None:
    path = lines(tmp_path / "dup.jsonl", good("w:1"), good("w:1"), good("w:1", answer="B"))
    report = import_paths(store, [path])

    assert report.new_item_ids == ["w:1"] and report.unchanged == 1
    assert reasons(store) == {3: "duplicate id 'w:1' (first on line 1) with different content"}


def test_latin1_with_cr_only_line_endings(store: Store, tmp_path: Path) -> None:
    table = (
        "sourceTaxonName\tinteractionTypeName\ttargetTaxonName\tlocalityName\t"
        "decimalLatitude\r"
        "Cervus elaphus\teats\tFraxinus excelsior\tForêt de Soignes\t50,78\r"
        "Lucanus cervus\tinteracts with\tQuercus robur\tPyrénées\tnot a number\r"
    )
    (tmp_path / "latin.tsv").write_bytes(table.encode("latin-1"))
    jsonl = "\r".join(
        json.dumps(good(f"w:{i}", question=f"Où vit l'élan {i}?"), ensure_ascii=False)
        for i in range(3)
    )
    (tmp_path / "latin.jsonl").write_bytes(jsonl.encode("latin-1"))
    report = import_paths(store, [tmp_path / "latin.tsv", tmp_path / "latin.jsonl"])

    assert report.rejects == []
    first = store.evidence.globi_record("latin.tsv#1")
    second = store.evidence.globi_record("latin.tsv#2")
    assert first is not None and second is not None
    assert first["locality"] == "Forêt de Soignes" and first["latitude"] == pytest.approx(50.78)
    assert second["locality"] == "Pyrénées" and second["latitude"] is None
    assert second["record"]["decimalLatitude"] == "not a number"  # kept raw
    assert any("cp1252, CR line endings" in note for note in report.notes)
    assert store.items.get("w:2").content.question == "Où vit l'élan 2?"


def test_globi_quirks(store: Store, tmp_path: Path) -> None:
    """Comma-separated aggregated export, quoted fields with newlines, blank header cells,
    repeated names, a row with no taxon, CP1252 bytes."""
    header = (
        "sourceTaxonName,sourceTaxonPathNames,sourceTaxonPathRankNames,"
        "interactionTypeName,targetTaxonName,targetTaxonPathNames,eventDate,"
        "referenceUrl, ,,note,note"
    )
    rows = [
        'Channa striata,"Animalia | Chordata | Channa | Channa striata",'
        '"kingdom | phylum | genus | species",hasHost,Pallisentis nagpurensis,,2001-03,'
        'http://x.invalid,"Smith, J. ‘Fish’\r\nparasites (2001)",extra,n1,n2',
        ",,,eats,,,,,,,,",
        "Vulpes vulpes,,,eats,Microtus arvalis,,,,,,,",
    ]
    data = (header + "\r\n" + "\r\n".join(rows) + "\r\n").encode("cp1252")
    (tmp_path / "aggregated.csv").write_bytes(data)
    report = import_paths(store, [tmp_path / "aggregated.csv"])

    assert [str(r) for r in report.rejects] == [
        f"{tmp_path / 'aggregated.csv'}:4: no source or target taxon"
    ]
    record = store.evidence.globi_record("aggregated.csv#1")
    assert record is not None
    assert record["source_path"] == "Animalia | Chordata | Channa | Channa striata"
    assert record["source_path_ranks"] == "kingdom | phylum | genus | species"
    assert record["date"] == "2001-03"
    assert record["citation"] == "Smith, J. ‘Fish’\r\nparasites (2001)"
    assert record["record"]["column_10"] == "extra"
    assert (record["record"]["note"], record["record"]["note_2"]) == ("n1", "n2")
    third = store.evidence.globi_record("aggregated.csv#3")  # rows keep their data-row numbers
    assert third is not None and third["source_taxon"] == "Vulpes vulpes"


def test_stray_quote_in_a_tab_separated_table(store: Store, tmp_path: Path) -> None:
    header = "sourceTaxonName\tinteractionTypeName\ttargetTaxonName\tlocalityName\n"
    rows = [f"Species {i}\teats\tPrey {i}\tSite {i}\n" for i in range(300)]
    rows[5] = 'Species 5\teats\tPrey 5\t"Big Wood, 5 inch mark\n'  # a quote never closed
    (tmp_path / "stray.tsv").write_text(header + "".join(rows), encoding="utf-8")
    report = import_paths(store, [tmp_path / "stray.tsv"])

    assert report.rejects == [] and store.evidence.globi_record_count() == 300
    sixth = store.evidence.globi_record("stray.tsv#6")
    assert sixth is not None and sixth["locality"] == '"Big Wood, 5 inch mark'
    last = store.evidence.globi_record("stray.tsv#300")
    assert last is not None and last["source_taxon"] == "Species 299"
    assert any("quotes read as text" in note for note in report.notes)


def test_empty_file_and_binary_garbage(store: Store, tmp_path: Path) -> None:
    (tmp_path / "empty.jsonl").write_bytes(b"")
    (tmp_path / "blank.jsonl").write_bytes(b"\n  \r\n")
    (tmp_path / "garbage.jsonl").write_bytes(bytes(range(256)) * 40)
    report = import_paths(
        store, [tmp_path / "empty.jsonl", tmp_path / "garbage.jsonl", tmp_path / "blank.jsonl"]
    )

    assert sorted((Path(r.file).name, r.line, r.reason) for r in store.imports.rejects()) == [
        ("blank.jsonl", 1, "empty file"),
        ("empty.jsonl", 1, "empty file"),
        ("garbage.jsonl", 1, "binary data, not a format BAGEL Studio reads"),
    ]
    assert report.exit_status == 1 and store.items.count() == 0


def test_a_50_mb_line(store: Store, tmp_path: Path) -> None:
    path = tmp_path / "huge.jsonl"
    huge = json.dumps(good("w:huge", question="x" * (50 * 1024 * 1024)))
    lines(path, good("w:1"), huge, good("w:3"))
    report = import_paths(store, [path])

    assert report.new_item_ids == ["w:1", "w:3"]
    (reject,) = report.rejects
    assert reject.line == 2 and reject.reason.startswith("line is 52.4 MB")
    row = store.db.execute("SELECT raw, raw_bytes FROM rejects").fetchone()
    assert row[1] == len(huge) and len(row[0]) == 1 << 20  # head kept, size recorded


def test_broken_pretty_printed_json_is_one_reject(store: Store, tmp_path: Path) -> None:
    text = json.dumps([good("w:1"), good("w:2")], indent=2)
    (tmp_path / "array.json").write_text(text[:-40], encoding="utf-8")
    report = import_paths(store, [tmp_path / "array.json"])

    (reject,) = report.rejects
    assert reject.reason.startswith("truncated JSON") and reject.line > 1
    assert store.items.count() == 0


def test_json_array_rejects_carry_their_lines(store: Store, tmp_path: Path) -> None:
    text = json.dumps([good("w:1"), good("w:2", options="a b c d"), good("w:3")], indent=2)
    (tmp_path / "array.json").write_text(text, encoding="utf-8")
    report = import_paths(store, [tmp_path / "array.json"])

    assert report.new_item_ids == ["w:1", "w:3"]
    (reject,) = report.rejects
    assert text.splitlines()[reject.line - 1].strip() == "{"
    assert '"id": "w:2"' in text.splitlines()[reject.line]


def test_texts_too_short_and_too_long(store: Store, tmp_path: Path) -> None:
    (tmp_path / "Stub.txt").write_text("The stub (Stubus minimus) is short.", encoding="utf-8")
    paragraph = "The long animal (Longus longissimus) lives long. " * 40 + "\n\n"
    (tmp_path / "Long.txt").write_text(paragraph * 100, encoding="utf-8")
    report = import_paths(store, [tmp_path / "Stub.txt", tmp_path / "Long.txt"])

    assert [r.reason for r in report.rejects] == [
        "text has 35 characters; extracts under 1,000 are excluded"
    ]
    text = store.evidence.find_text("title:Long")
    assert text is not None and text["truncated"] == 1
    assert len(text["text"]) <= 180_000 and text["text"].endswith("lives long.")
    assert text["scientific_name"] == "Longus longissimus"
    assert store.evidence.find_text("title:Stub") is None


def test_missing_unknown_and_unnamed_inputs(store: Store, tmp_path: Path, data_dir: Path) -> None:
    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere")
    (tmp_path / "table.csv").write_text("a,b,c\n1,2,3\n", encoding="utf-8")
    ogg = data_dir / "marine_mammal" / "glacier-bay-humpback.ogg"
    report = import_paths(store, [tmp_path / "dangling", tmp_path / "table.csv", ogg])

    assert report.unreadable == [str(tmp_path / "dangling")] and report.exit_status == 2
    assert sorted(r.reason for r in report.rejects) == [
        "a table that is neither a GloBI interaction table nor Xeno-canto metadata",
        "audio file without a Xeno-canto id in its name, and no metadata row names it",
    ]


def test_rejects_stay_in_the_project_file_and_reimport_changes_nothing(
    project_path: Path, tmp_path: Path
) -> None:
    path = lines(tmp_path / "mixed.jsonl", good("w:1"), "{broken", good("w:3", domain="?"))
    with Store.open(project_path) as store:
        first = import_paths(store, [path])
    assert len(first.rejects) == 2

    with sqlite3.connect(project_path) as conn:  # any SQLite tool sees them
        rows = conn.execute("SELECT file, line, reason FROM rejects ORDER BY line").fetchall()
    assert [(r[1], r[2]) for r in rows] == [
        (2, "invalid JSON: expecting property name enclosed in double quotes at column 2"),
        (3, "unknown domain '?' (one of: Wikipedia, GloBI, bioRxiv, Xeno-canto)"),
    ]
    assert {r[0] for r in rows} == {str(path)}

    with Store.open(project_path) as store:
        again = import_paths(store, [path])
        assert again.skipped_files == [str(path)] and again.rejects == []
        assert again.exit_status == 0
        assert store.imports.reject_count() == 2 and store.items.count() == 1
        assert len(store.imports.all()) == 1


def test_file_that_vanishes_during_the_import_is_unreadable(store: Store, tmp_path: Path) -> None:
    first = lines(tmp_path / "a.jsonl", good("w:1"))
    second = lines(tmp_path / "b.jsonl", good("w:2"))

    def remove_second(done: int, total: int) -> None:
        if done > 0:
            second.unlink(missing_ok=True)

    report = import_paths(store, [first, second], progress=remove_second)
    assert report.new_item_ids == ["w:1"]
    assert report.unreadable == [str(second)] and report.exit_status == 2
    assert any("cannot read" in note for note in report.notes)


def test_deeply_nested_json_line(store: Store, tmp_path: Path) -> None:
    path = lines(tmp_path / "deep.jsonl", good("w:1"), "[" * 100_000 + "]" * 100_000)
    report = import_paths(store, [path])
    assert report.new_item_ids == ["w:1"]
    assert [(r.line, r.reason) for r in report.rejects] == [(2, "invalid JSON: nested too deeply")]
