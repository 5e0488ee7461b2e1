"""Single-byte encodings told apart: a real GloBI table in Mac Roman with CR-only line endings
(Galápagos sea lion prey, cited in Spanish) reads "trófica", not CP1252's "tr—fica", and a table
whose encoding is a guess says so, with words it reads, in the import summary and on its cards;
CP1252 and Latin-1 tables keep reading as before."""

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

MAC_TABLE = "ZalophusPredatoryInteractions__interactions.tsv"
MAC_PATH = Path(__file__).resolve().parent / "data" / "mac_roman" / MAC_TABLE  # with its licence
SPANISH = "Estructura trófica del lobo marino; Ecología Marina; Ciencias Biológicas; Galápagos"
PORTUGUESE = "Interações tróficas em florestas; polinização por abelhas; São Paulo, Brasil"
FRENCH = "Forêt de Soignes; Pyrénées; Côte d’Ivoire; «coléoptères»"


def test_the_real_table_is_mac_roman_with_cr_line_endings() -> None:
    data = MAC_PATH.read_bytes()
    assert b"\n" not in data and data.count(b"\r") == 38
    assert b"tr\x97fica" in data  # Mac Roman's ó, CP1252's em dash
    text, encoding = decode(data)
    assert encoding == MAC_ROMAN and is_guess(encoding)
    assert "Estructura trófica" in text and "Ecología Marina" in text and "—" not in text


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
    assert "tr—fica" not in text and text.count("Estructura trófica") == 38
    assert lines.samples == ["trófica", "Ecología", "Biológicas"]
    utf8 = TextLines(io.BytesIO(SPANISH.encode("utf-8")), 1 << 20)
    assert "".join(utf8) == SPANISH + "\n" and utf8.samples == [] and not is_guess(utf8.encoding)


def test_import_says_the_encoding_is_a_guess_and_shows_words(store: Store) -> None:
    report = import_paths(store, [MAC_PATH], full_checks=False)
    assert report.rejects == [] and store.evidence.globi_record_count() == 38
    record = store.evidence.globi_record(f"{MAC_TABLE}#1")
    assert record is not None and record["target_taxon"] == "Apogon atradorsatus"
    assert record["citation"].startswith("Carranco, S. 2015. Estructura trófica del lobo marino")
    assert "Ciencias Biológicas" in record["citation"]
    (note,) = [n for n in report.notes if MAC_TABLE in n]
    assert "GloBI table, mac_roman, CR line endings, tab-separated, 38 records" in note
    assert "the encoding mac_roman is a guess" in note
    assert "it reads “trófica”, “Ecología”, “Biológicas”" in note
    notes = guessed_encodings(store.imports.all())
    assert list(notes) == [MAC_TABLE] and "“trófica”" in notes[MAC_TABLE]


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


def test_bagel_studio_import_shows_trofica(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["import", str(tmp_path / "p.bagel"), str(MAC_PATH)]) == 0
    out = capsys.readouterr().out
    assert "mac_roman, CR line endings" in out and "“trófica”" in out and "tr—fica" not in out
    with Store.open(tmp_path / "p.bagel", read_only=True) as store:
        record = store.evidence.globi_record(f"{MAC_TABLE}#2")
        assert record is not None and "Estructura trófica" in record["citation"]


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
