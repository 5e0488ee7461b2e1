"""Single-byte encodings told apart: a real GloBI table in Mac Roman with CR-only line endings
(ashForest records cited in Spanish: Pagani–Núñez, Martínez, García...) reads "Núñez", not
CP1252's "Nœ–ez", and a table whose encoding is a guess says so, with words it reads, in the
import summary and on its cards; CP1252 and Latin-1 tables keep reading as before."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from bagel_studio.core.cli import run
from bagel_studio.core.importers import import_paths
from bagel_studio.core.importers.globi import guessed_encodings
from bagel_studio.core.importers.textio import (
    CP1252,
    LATIN1,
    MAC_ROMAN,
    TextLines,
    decode,
    is_guess,
    legacy_encoding,
)
from bagel_studio.core.store import Store

MAC_TABLE = "ashForestInteractions-spanish__interactions.tsv"
MAC_PATH = Path(__file__).resolve().parent / "data" / "mac_roman" / MAC_TABLE  # see its README
MAC_RECORDS = 39
# What CP1252 makes of the table's Mac Roman bytes: "Martínez", "Núñez", "García", "Guitián",
# "Madroño", "Peñamayor" misread
MOJIBAKE = ("Mart’nez", "Nœ–ez", "Garc’a", "Guiti‡n", "Madro–o", "Pe–amayor")
SPANISH = "Estructura trófica del lobo marino; Ecología Marina; Ciencias Biológicas; Galápagos"
PORTUGUESE = "Interações tróficas em florestas; polinização por abelhas; São Paulo, Brasil"
FRENCH = "Forêt de Soignes; Pyrénées; Côte d’Ivoire; «coléoptères»"

# The citations (their first words) whose records make the fixture: Spanish names and titles
CITED = ("García-Navas, V.", "Pagani–Núñez, E.", "Martínez, I.", "Guitián, J.", "Zika, P. F.")
RECORDS_EACH = 8


def spanish_records(table: bytes) -> bytes:
    """The fixture, made from ashForest's table as published (``resources/data/globi``, UTF-8
    with CRLF): its header and, in the table's order, the first ``RECORDS_EACH`` records of each
    ``CITED`` citation that Mac Roman can write (not Zika's "Ilex ×altaclerensis"), unchanged,
    as Mac Roman bytes with CR-only line endings, as a classic Mac's export writes them."""
    header, *records = table.decode("utf-8").split("\r\n")
    kept = [header]
    taken = dict.fromkeys(CITED, 0)
    for record in records:
        cited = next((c for c in CITED if record.rsplit("\t", 1)[-1].startswith(c)), None)
        if cited is None or taken[cited] == RECORDS_EACH:
            continue
        try:
            record.encode(MAC_ROMAN)
        except UnicodeEncodeError:
            continue
        kept.append(record)
        taken[cited] += 1
    return "".join(line + "\r" for line in kept).encode(MAC_ROMAN)


def test_the_fixture_is_made_from_the_ash_forest_table(data_dir: Path) -> None:
    table = data_dir / "globi" / "ashForestInteractions__interactions.tsv"
    assert spanish_records(table.read_bytes()) == MAC_PATH.read_bytes()


def test_the_real_table_is_mac_roman_with_cr_line_endings() -> None:
    data = MAC_PATH.read_bytes()
    assert b"\n" not in data and data.count(b"\r") == MAC_RECORDS + 1
    assert b"N\x9c\x96ez" in data  # Mac Roman's ú and ñ, CP1252's œ and en dash
    text, encoding = decode(data)
    assert encoding == MAC_ROMAN and is_guess(encoding)
    assert "Pagani–Núñez" in text and "Martínez, I., García, D." in text and "Madroño" in text
    assert not any(wrong in text for wrong in MOJIBAKE)


@pytest.mark.parametrize("text", [SPANISH, PORTUGUESE, FRENCH])
@pytest.mark.parametrize("ending", ["\n", "\r\n", "\r"])
def test_accented_text_is_read_in_the_encoding_it_was_written_in(text: str, ending: str) -> None:
    lines = ending.join([text, "Vulpes vulpes eats Microtus arvalis", text]) + ending
    for encoding in (CP1252, MAC_ROMAN):
        data = lines.encode(encoding)
        assert decode(data) == (lines, encoding)
        assert legacy_encoding(data, ending == "\r") == encoding


def test_cr_endings_decide_only_a_tie() -> None:
    # "©" is the same byte in both: the classic Mac's line endings decide
    tie = "© 2018 NASUA\r".encode(CP1252)
    assert legacy_encoding(tie, cr_only=True) == MAC_ROMAN
    assert legacy_encoding(tie, cr_only=False) == CP1252
    # ... but not against the bytes: Latin-1 text with CR endings stays as it was written
    latin = "Forêt de Soignes\rPyrénées\r".encode(LATIN1)
    assert legacy_encoding(latin, cr_only=True) == CP1252


def test_bytes_cp1252_does_not_define_read_as_latin1() -> None:
    data = "Café\x81".encode(LATIN1)  # 0x81: no character in CP1252, a control in Latin-1
    assert legacy_encoding(data) == LATIN1


def test_lines_decide_from_the_line_and_the_first_chunk() -> None:
    lines = TextLines(io.BytesIO(MAC_PATH.read_bytes()), 1 << 20)
    text = "".join(lines)
    assert lines.encoding == MAC_ROMAN and lines.line_ending == "CR"
    assert not any(wrong in text for wrong in MOJIBAKE)
    assert text.count("Pagani–Núñez, E., Ruiz, Í.") == 8 and text.count("Madroño") == 8
    assert lines.samples == ["García", "Núñez", "Í"]
    utf8 = TextLines(io.BytesIO(SPANISH.encode("utf-8")), 1 << 20)
    assert "".join(utf8) == SPANISH + "\n" and utf8.samples == [] and not is_guess(utf8.encoding)


def test_import_says_the_encoding_is_a_guess_and_shows_words(store: Store) -> None:
    report = import_paths(store, [MAC_PATH], full_checks=False)
    assert report.rejects == [] and store.evidence.globi_record_count() == MAC_RECORDS
    record = store.evidence.globi_record(f"{MAC_TABLE}#9")
    assert record is not None and record["target_taxon"] == "Dirpion"
    assert record["citation"].startswith("Pagani–Núñez, E., Ruiz, Í., Quesada, J.")
    record = store.evidence.globi_record(f"{MAC_TABLE}#17")
    assert record is not None and record["citation"].startswith("Martínez, I., García, D.")
    assert record["locality"] == "Spain, Asturias privince, Peñamayor mountain range"
    (note,) = [n for n in report.notes if MAC_TABLE in n]
    assert "GloBI table, mac_roman, CR line endings, tab-separated, 39 records" in note
    assert "the encoding mac_roman is a guess" in note
    assert "it reads “García”, “Núñez”, “Í”" in note
    notes = guessed_encodings(store.imports.all())
    assert list(notes) == [MAC_TABLE] and "“Núñez”" in notes[MAC_TABLE]


def test_a_utf8_table_is_no_guess(store: Store, tmp_path: Path) -> None:
    table = tmp_path / "utf8.tsv"
    table.write_text(
        "sourceTaxonName\tinteractionTypeName\ttargetTaxonName\tlocalityName\n"
        f"Zalophus wollebaeki\teats\tBrotula clarkae\t{SPANISH}\n",
        encoding="utf-8",
    )
    report = import_paths(store, [table], full_checks=False)
    assert not any("is a guess" in note for note in report.notes)
    assert guessed_encodings(store.imports.all()) == {}


def test_bagel_studio_import_shows_nunez(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["import", str(tmp_path / "p.bagel"), str(MAC_PATH)]) == 0
    out = capsys.readouterr().out
    assert "mac_roman, CR line endings" in out and "“Núñez”" in out
    assert not any(wrong in out for wrong in MOJIBAKE)
    with Store.open(tmp_path / "p.bagel", read_only=True) as store:
        record = store.evidence.globi_record(f"{MAC_TABLE}#25")
        assert record is not None and "Guitián, J. (1989). Consumo de frutos" in record["citation"]


CITATION = "Monceau K, Bonnard O, Thiéry D (2014) J Pest Sci 87:1–16"


@pytest.mark.parametrize("ending", ["\r\n", "\r"])
def test_a_dash_between_page_numbers_is_a_range_not_a_letter(ending: str) -> None:
    # CP1252's en dash is Mac Roman's "ñ": a letter between two digits reads wrong ("444ñ448"),
    # a dash between them is a range of pages; many citations outweigh a few accented words.
    rows = [f"Vespa velutina\teats\tApis mellifera\tInsectes Soc 3:{n}1–{n}9" for n in range(20)]
    lines = ending.join([*rows, "Vespa velutina\teats\tApis mellifera\t" + CITATION]) + ending
    for encoding in (CP1252, MAC_ROMAN):
        data = lines.encode(encoding)
        assert legacy_encoding(data, ending == "\r") == encoding, encoding
        assert decode(data) == (lines, encoding)
    words = TextLines(io.BytesIO(lines.encode(CP1252)), 1 << 20)
    "".join(words)
    assert words.samples == ["Thiéry"]  # the words a curator checks the accents by
