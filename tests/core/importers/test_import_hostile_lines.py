"""Input lines that used to be taken silently or to take their file down with them (issue 26):
each is now a reject naming what is wrong with it, and every other line of its file imports."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bagel_studio.core.importers import import_paths
from bagel_studio.core.store import Store
from tests.support.items import good


def _jsonl(path: Path, *lines: str | bytes) -> Path:
    data = b"".join(
        (line if isinstance(line, bytes) else line.encode("utf-8")) + b"\n" for line in lines
    )
    path.write_bytes(data)
    return path


def _item(item_id: str, **changes: object) -> str:
    return json.dumps(good(item_id, **changes), ensure_ascii=False)


def _imported(store: Store, path: Path, **options: int) -> tuple[list[str], dict[int, str]]:
    report = import_paths(store, [path], full_checks=False, **options)
    rejects = {r.line: r.reason for r in store.imports.rejects() if Path(r.file).name == path.name}
    return sorted(report.new_item_ids), rejects


def test_an_answer_of_5000_digits_is_one_reject(store: Store, tmp_path: Path) -> None:
    huge = '{"id": "w:2", "domain": "Wikipedia", "dimension": "Diet", "question": "Q?",'
    huge += ' "options": ["a", "b", "c", "d"], "answer": ' + "9" * 5000 + "}"
    path = _jsonl(tmp_path / "items.jsonl", _item("w:1"), huge, _item("w:3"))
    ids, rejects = _imported(store, path)
    assert ids == ["w:1", "w:3"]
    assert "5,000 digits" in rejects[2]


def test_an_answer_of_5000_digits_in_a_json_array(store: Store, tmp_path: Path) -> None:
    path = tmp_path / "items.json"
    path.write_text(
        "[" + _item("w:1") + ',\n{"id": "w:2", "answer": ' + "9" * 5000 + "}]", encoding="utf-8"
    )
    ids, rejects = _imported(store, path)
    assert ids == [] and any("5,000 digits" in reason for reason in rejects.values())


def test_an_escaped_nul_in_an_id_is_a_reject(store: Store, tmp_path: Path) -> None:
    path = _jsonl(tmp_path / "items.jsonl", _item("w:1"), _item("w:2\u0000hidden"), _item("w:3"))
    ids, rejects = _imported(store, path)
    assert ids == ["w:1", "w:3"]
    assert "id" in rejects[2] and "NUL" in rejects[2]


def test_a_key_given_twice_is_a_reject(store: Store, tmp_path: Path) -> None:
    twice = _item("w:2")[:-1] + ', "answer": "B"}'
    path = _jsonl(tmp_path / "items.jsonl", _item("w:1"), twice, _item("w:3"))
    ids, rejects = _imported(store, path)
    assert ids == ["w:1", "w:3"]
    assert "'answer'" in rejects[2] and "twice" in rejects[2]


def test_a_number_out_of_range_is_a_reject(store: Store, tmp_path: Path) -> None:
    inf = _item("w:2").replace('"level": "easy"', '"level": 1e999')
    nan = _item("w:4").replace('"level": "easy"', '"level": NaN')
    path = _jsonl(tmp_path / "items.jsonl", _item("w:1"), inf, _item("w:3"), nan)
    ids, rejects = _imported(store, path)
    assert ids == ["w:1", "w:3"]
    assert "1e999" in rejects[2] and "NaN" in rejects[4]


def test_invalid_utf8_inside_a_utf8_file_is_a_reject_not_mojibake(
    store: Store, tmp_path: Path
) -> None:
    first = _item("w:1", question="Où vit l'élan?").encode("utf-8")
    broken = (
        _item("w:2", question="Où vit le cerf?").encode("utf-8").replace("Où".encode(), b"O\xf9")
    )
    path = _jsonl(tmp_path / "items.jsonl", first, broken, _item("w:3"))
    ids, rejects = _imported(store, path)
    assert ids == ["w:1", "w:3"]
    assert "invalid UTF-8" in rejects[2] and "0xF9" in rejects[2]
    assert store.items.get("w:1").content.question == "Où vit l'élan?"


def test_invalid_utf8_before_any_other_text_of_a_utf8_file(store: Store, tmp_path: Path) -> None:
    broken = (
        _item("w:1", question="Où vit le cerf?").encode("utf-8").replace("Où".encode(), b"O\xf9")
    )
    later = _item("w:2", question="Où vit l'élan?").encode("utf-8")
    path = _jsonl(tmp_path / "items.jsonl", broken, later)
    ids, rejects = _imported(store, path)
    assert ids == ["w:2"] and "invalid UTF-8" in rejects[1]


def test_a_list_as_id_is_a_reject(store: Store, tmp_path: Path) -> None:
    listed = json.dumps(good("x") | {"id": ["w:2", "w:9"]})
    path = _jsonl(tmp_path / "items.jsonl", _item("w:1"), listed, _item("w:3"))
    ids, rejects = _imported(store, path)
    assert ids == ["w:1", "w:3"]
    assert "id" in rejects[2] and "list" in rejects[2]


def test_a_raw_nul_in_the_first_of_two_lines_rejects_that_line(
    store: Store, tmp_path: Path
) -> None:
    first = _item("w:1").encode("utf-8").replace(b"What", b"Wh\x00at")
    path = _jsonl(tmp_path / "items.jsonl", first, _item("w:2"))
    ids, rejects = _imported(store, path)
    assert ids == ["w:2"]
    assert "NUL" in rejects[1]


HEADER = "sourceTaxonName,interactionTypeName,targetTaxonName,referenceCitation"


@pytest.mark.parametrize("where", ["inside", "opening", "closing"])
def test_a_csv_record_with_a_field_over_the_line_limit_is_rejected_whole(
    store: Store, tmp_path: Path, where: str
) -> None:
    """The quoted field runs over three lines, one of them longer than the limit: the whole
    record is one reject, and the records around it keep their columns and references."""
    long = "x" * 3000
    middle = {
        "inside": f'Apis mellifera,visitsFlowersOf,"Trifolium\n{long}\nrepens",A citation',
        "opening": f'Apis mellifera,visitsFlowersOf,"Trifolium {long}\nrepens",A citation',
        "closing": f'Apis mellifera,visitsFlowersOf,"Trifolium\nrepens {long}",A citation',
    }[where]
    table = "\n".join(
        [
            HEADER,
            "Bombus terrestris,visitsFlowersOf,Salix caprea,First",
            middle,
            "Vespa crabro,eats,Apis mellifera,Third",
        ]
    )
    path = tmp_path / "interactions.csv"
    path.write_text(table + "\n", encoding="utf-8")
    report = import_paths(store, [path], full_checks=False, max_line_bytes=1000)
    first = store.evidence.globi_record("interactions.csv#1")
    third = store.evidence.globi_record("interactions.csv#3")
    assert first is not None and first["target_taxon"] == "Salix caprea"
    assert third is not None and third["source_taxon"] == "Vespa crabro"
    assert store.evidence.globi_record("interactions.csv#2") is None
    assert store.evidence.globi_record("interactions.csv#4") is None  # no bogus record
    [reject] = [r for r in store.imports.rejects() if r.file.endswith("interactions.csv")]
    assert reject.line == 3 and "record" in reject.reason and "MB" in reject.reason
    assert report.exit_status == 1
