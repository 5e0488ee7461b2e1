"""Tables read as a stream keep what reading them whole gave: the encoding decided by the bytes
(here only far down the file), quoted cells over several lines, and a clear reject for a line
over the line limit, with every other row imported."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from bagel_studio.core.importers import import_paths
from bagel_studio.core.store import Store

HEADER = "sourceTaxonName\tinteractionTypeName\ttargetTaxonName\tlocalityName\n"


@pytest.fixture
def store(project_path: Path) -> Iterator[Store]:
    with Store.open(project_path) as opened:
        yield opened


def test_cp1252_far_down_a_table_is_read_as_cp1252(store: Store, tmp_path: Path) -> None:
    rows = [f"Apis mellifera\tvisitsFlowersOf\tTrifolium repens\tplot {n}\n" for n in range(30_000)]
    data = (HEADER + "".join(rows)).encode("ascii")  # more than the first chunk read
    data += "Vulpes vulpes\teats\tMicrotus arvalis\tCôte d’Ivoire\n".encode("cp1252")
    (tmp_path / "interactions.tsv").write_bytes(data)
    report = import_paths(store, [tmp_path / "interactions.tsv"], full_checks=False)
    assert report.rejects == [] and store.evidence.globi_record_count() == 30_001
    last = store.evidence.globi_record("interactions.tsv#30001")
    assert last is not None and last["locality"] == "Côte d’Ivoire"
    assert any("GloBI table, cp1252, LF line endings" in note for note in report.notes)


def test_an_overlong_line_is_a_reject_and_the_other_rows_import(
    store: Store, tmp_path: Path
) -> None:
    table = tmp_path / "interactions.tsv"
    table.write_text(
        HEADER
        + "Apis mellifera\tvisitsFlowersOf\tTrifolium repens\tA\n"
        + "Apis mellifera\tvisitsFlowersOf\tTrifolium repens\t"
        + "x" * 2_000_000
        + "\n"
        + 'Bombus terrestris\tvisitsFlowersOf\tTrifolium repens\t"B,\nquoted over two lines"\n',
        encoding="utf-8",
    )
    report = import_paths(store, [table], max_line_bytes=1_000_000, full_checks=False)
    assert [(r.line, r.reason.split(",")[0]) for r in report.rejects] == [(3, "line is 2.0 MB")]
    assert "(import --max-line-mb)" in report.rejects[0].reason
    assert store.evidence.globi_record_count() == 2
    bumblebee = store.evidence.globi_record("interactions.tsv#3")  # the second row keeps its number
    assert bumblebee is not None and bumblebee["locality"] == "B,\nquoted over two lines"
