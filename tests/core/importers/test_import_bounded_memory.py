"""Reading input in bounded memory: JSON Lines are read as a stream (a line at a time, UTF-16/32
transcoded as read, the SHA-256 computed a chunk at a time), and a JSON document too large to
parse whole is refused with a message that says how to import it.

The memory test runs a real import in a child process and reads the child's own peak resident
memory (VmHWM) against a tiny import's: the files are several times larger than the difference
allowed, so reading any of them whole would fail it."""

from __future__ import annotations

import codecs
import io
import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from bagel_studio.core.importers import import_paths
from bagel_studio.core.importers.textio import iter_lines, split_lines, to_utf8, utf8_chunks
from bagel_studio.core.store import Store
from tests.support.items import good

ROOT = Path(__file__).resolve().parents[3]
MB = 1_000_000


def line(record: dict[str, Any]) -> str:
    return json.dumps(record) + "\n"


def test_lines_split_as_the_whole_file_would_be_for_any_chunking() -> None:
    rnd = random.Random(7)
    for _ in range(5000):
        data = bytes(rnd.choice(b"ab\r\n") for _ in range(rnd.randint(0, 30)))
        limit, keep, size = rnd.randint(1, 6), rnd.randint(0, 3), rnd.randint(1, 5)
        chunks = [data[i : i + size] for i in range(0, len(data), size)]
        expected = [(p if len(p) <= limit else p[:keep], len(p)) for p in split_lines(data)]
        assert list(iter_lines(chunks, limit, keep)) == expected, (data, size, limit, keep)


@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be"])
def test_wide_text_is_transcoded_chunk_by_chunk(encoding: str) -> None:
    bom = {
        "utf-16-le": codecs.BOM_UTF16_LE,
        "utf-16-be": codecs.BOM_UTF16_BE,
        "utf-32-le": codecs.BOM_UTF32_LE,
        "utf-32-be": codecs.BOM_UTF32_BE,
    }[encoding]
    rnd = random.Random(encoding)
    for _ in range(200):
        text = "".join(rnd.choice("ab\n\u20ac\U0001f600\u00e9") for _ in range(rnd.randint(0, 40)))
        raw = bom + text.encode(encoding)
        streamed = b"".join(utf8_chunks(io.BytesIO(raw), rnd.randint(1, 7)))
        assert streamed == to_utf8(raw) == text.encode("utf-8")
    plain = b"no mark: \xff as it is"
    assert b"".join(utf8_chunks(io.BytesIO(plain), 3)) == plain


def _peak_kb(project: Path, *paths: Path) -> tuple[int, dict[str, Any]]:
    """Import ``paths`` in a child process: its own peak RSS (VmHWM, kB) and its JSON report."""
    code = (
        "import contextlib, io, json, re, sys\n"
        "from bagel_studio.core.cli import run\n"
        "out = io.StringIO()\n"
        "with contextlib.redirect_stdout(out):\n"
        "    run(['import', *sys.argv[1:], '--json'])\n"
        "peak = re.search(r'VmHWM:\\s+(\\d+)', open('/proc/self/status').read()).group(1)\n"
        "print(peak, out.getvalue().replace(chr(10), ' '))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code, str(project), *map(str, paths)],
        cwd=ROOT,  # this checkout's bagel_studio, whatever PYTHONPATH says
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    peak, report = result.stdout.strip().splitlines()[-1].split(" ", 1)
    return int(peak), json.loads(report)


@pytest.mark.slow
def test_memory_does_not_grow_with_the_file(tmp_path: Path) -> None:
    """A 100 MB UTF-8 JSON Lines file (a 40 MB line, then 10,000 lines of 6 KB with a NUL byte,
    then an item) and a 60 MB UTF-16 one: each line is decided on its own, and the import takes
    no more memory than a tiny file's, give or take 40 MB."""
    small = tmp_path / "small.jsonl"
    small.write_text(line(good("w:0")), encoding="utf-8")
    base_kb, _ = _peak_kb(tmp_path / "base.bagel", small)

    big = tmp_path / "big.jsonl"
    nul = '{"id": "w:nul", "question": "' + "n" * 6000 + '\\u0000\x00"}\n'
    with open(big, "w", encoding="utf-8") as handle:
        handle.write(line(good("w:1")))
        handle.write('{"question": "' + "x" * (40 * MB) + '"}\n')
        for _ in range(10_000):
            handle.write(nul)
        handle.write(line(good("w:2")))
    wide = tmp_path / "wide.jsonl"
    with open(wide, "wb") as handle:
        handle.write(codecs.BOM_UTF16_LE)
        handle.write(line(good("w:3")).encode("utf-16-le"))
        for _ in range(4_500):
            handle.write(nul.encode("utf-16-le"))
        handle.write(line(good("w:4")).encode("utf-16-le"))
    assert big.stat().st_size > 100 * MB and wide.stat().st_size > 50 * MB

    peak_kb, report = _peak_kb(tmp_path / "p.bagel", big, wide)
    assert report["added_by_domain"] == {"Wikipedia": 4}
    reasons = [r["reason"] for r in report["rejects"]]
    assert len(reasons) == 1 + 10_000 + 4_500
    assert reasons[0].startswith("line is 40.0 MB, longer than the 10 MB")
    assert set(reasons[1:]) == {"NUL byte in the line (binary data); not parsed"}
    grown_mb = (peak_kb - base_kb) / 1000
    assert grown_mb < 40, f"{grown_mb:.0f} MB more than a tiny import"


def test_a_json_document_over_the_limit_is_refused_with_how_to_import_it(
    tmp_path: Path,
) -> None:
    array = tmp_path / "items.json"
    array.write_text(
        json.dumps([good(f"w:{n}", rationale="r" * 2000) for n in range(600)], indent=1),
        encoding="utf-8",
    )
    with Store.open(tmp_path / "p.bagel") as store:
        report = import_paths(store, [array], max_document_bytes=MB)
        (reject,) = report.rejects
        assert reject.reason.startswith("a JSON document of 1.3 MB, larger than the 1 MB")
        assert "(import --max-document-mb)" in reject.reason and "JSON Lines" in reject.reason
        assert store.items.count() == 0 and report.exit_status == 1
    with Store.open(tmp_path / "q.bagel") as store:  # within the default limit it imports
        assert import_paths(store, [array]).added == 600


def test_json_lines_over_the_document_limit_still_stream(tmp_path: Path) -> None:
    """The limit is for documents read whole: JSON Lines of any size are read, even one whose
    first line is broken (that line is a reject of its own)."""
    path = tmp_path / "items.jsonl"
    rows = [line(good(f"w:{n}", rationale="r" * 3000)) for n in range(400)]
    path.write_text('{"id": "w:broken", "question": \n' + "".join(rows), encoding="utf-8")
    with Store.open(tmp_path / "p.bagel") as store:
        report = import_paths(store, [path], max_document_bytes=MB)
        assert report.added == 400
        (reject,) = report.rejects
        assert reject.line == 1 and "JSON" in reject.reason


def test_tables_and_texts_over_the_document_limit_stream(tmp_path: Path) -> None:
    """The limit is for JSON documents: a GloBI table, a Xeno-canto CSV and a plain text larger
    than it are read as a stream, whole (the text up to the paper's cut)."""
    table = tmp_path / "interactions.tsv"
    header = "sourceTaxonName\tinteractionTypeName\ttargetTaxonName\n"
    table.write_text(header + "Apis mellifera\tvisitsFlowersOf\tTrifolium repens\n" * 40_000)
    metadata = tmp_path / "xc.csv"
    metadata.write_text(
        "id,gen,sp,en,rec,lic\n"
        + "".join(
            f"{n},Passer,domesticus,House Sparrow,R. {n},//creativecommons.org/licenses/by/4.0/\n"
            for n in range(1, 20_001)
        )
    )
    text = tmp_path / "Sparrow.txt"
    paragraph = "The house sparrow (Passer domesticus) is a bird of the sparrow family. " * 20
    text.write_text((paragraph + "\n") * 1_000)
    assert all(p.stat().st_size > MB for p in (table, metadata, text))
    with Store.open(tmp_path / "p.bagel") as store:
        report = import_paths(store, [table, metadata, text], max_document_bytes=MB)
        assert report.rejects == [] and report.exit_status == 0
        assert store.evidence.globi_record_count() == 40_000
        assert report.evidence["recordings"] == 20_000
        last = store.evidence.recording("XC20000")
        assert last is not None and last["recordist"] == "R. 20000"
        stored = store.evidence.find_text("title:Sparrow")
        assert stored is not None and stored["truncated"] == 1
        assert 90_000 < len(stored["text"]) <= 180_000
        assert stored["text"].startswith("The house sparrow (Passer domesticus)")


@pytest.mark.slow
def test_a_globi_table_over_64_mb_imports_without_raising_the_limit(tmp_path: Path) -> None:
    """A GloBI table larger than the default document limit imports, every row, as it is:
    read a row at a time. (Its memory is measured by tests/benchmarks/bench_import_tables.py.)"""
    table = tmp_path / "interactions.tsv"
    header = "sourceTaxonName\tinteractionTypeName\ttargetTaxonName\treferenceCitation\n"
    citation = "Smith, J. (2001) Pollinators of clover in a long-term meadow survey. " * 30
    rows = 32_000
    with open(table, "w", encoding="utf-8") as handle:
        handle.write(header)
        for n in range(rows):
            handle.write(f"Apis mellifera\tvisitsFlowersOf\tTrifolium repens {n}\t{citation}\n")
    assert table.stat().st_size > 64 * MB
    with Store.open(tmp_path / "p.bagel") as store:
        report = import_paths(store, [table], full_checks=False)
        assert report.rejects == [] and report.exit_status == 0
        assert store.evidence.globi_record_count() == rows
        last = store.evidence.globi_record(f"interactions.tsv#{rows}")
        assert last is not None and last["target_taxon"] == f"Trifolium repens {rows - 1}"
