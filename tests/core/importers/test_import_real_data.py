"""Import of the real third-party files bundled in resources/data."""

from __future__ import annotations

import csv
import itertools
import shutil
from pathlib import Path

import pytest

from bagel_studio.core.importers import import_paths
from bagel_studio.core.model import Severity
from bagel_studio.core.store import Store

ASH = "ashForestInteractions__interactions.tsv"
TEMPLATE = "template-dataset__interactions.tsv"


def test_paper_examples_import_as_flat_items(store: Store, data_dir: Path) -> None:
    report = import_paths(store, [data_dir / "items" / "paper_examples.jsonl"])

    assert report.added_by_domain == {"Wikipedia": 8, "GloBI": 3, "bioRxiv": 1, "Xeno-canto": 5}
    assert report.rejects == [] and report.exit_status == 0
    assert len(report.new_item_ids) == store.items.count() == 17
    flamingo = store.items.get("wikipedia:andean-flamingo:1")
    assert flamingo.content.dimension == "Geographic Distribution"
    assert flamingo.content.level == "easy"
    assert flamingo.content.answer_text == "The Andes mountains of South America"
    corella = store.items.get("xeno-canto:western-corella:0")
    assert corella.recording_id == "XC464184"
    assert corella.content.dimension == "Dominant frequency range"
    assert corella.source == {"recording": "XC464184"}
    warbler = store.items.get("xeno-canto:red-warbler:3")
    assert warbler.content.dimension == "Harmonic structure / tonality vs. broadband"
    for item_id in report.new_item_ids:  # the printed items are structurally sound
        assert not [f for f in store.flags.of_item(item_id) if f.severity is Severity.BLOCKING]


def test_ash_forest_table_crlf_and_blank_citation_header(store: Store, data_dir: Path) -> None:
    report = import_paths(store, [data_dir / "globi" / ASH])

    assert report.evidence["globi_records"] == store.evidence.globi_record_count() == 5689
    assert report.rejects == []
    first = store.evidence.globi_record(f"{ASH}#1")
    assert first is not None
    assert (first["source_taxon"], first["interaction"], first["target_taxon"]) == (
        "Dendrocopos syriacus",
        "eats",
        "Lepidoptera",
    )
    assert first["latitude"] == pytest.approx(50.466667)
    assert first["longitude"] == pytest.approx(23.666667)
    assert first["date"] == "2003-05/2006-07"  # a date range, kept as written
    assert first["citation"].startswith("Michalczuk, J., & Michalczuk, M. (2017)")
    assert first["record"]["sourceLifeStageName"] == "nestling"
    assert first["table_name"] == ASH and first["row"] == 1
    last = store.evidence.globi_record(f"{ASH}#5689")
    assert last is not None and last["source_taxon"]
    assert any("utf-8, CRLF line endings" in note for note in report.notes)


def test_template_table_keeps_rank_columns_in_raw_record(store: Store, data_dir: Path) -> None:
    import_paths(store, [data_dir / "globi" / TEMPLATE])

    assert store.evidence.globi_record_count() == 11
    record = store.evidence.globi_record(f"{TEMPLATE}#1")
    assert record is not None
    assert record["source_taxon"] == "Leptoconchus incycloseris"
    assert record["interaction"] == "parasite of"
    assert record["target_taxon"] == "Fungia (Cycloseris) costulata"
    assert record["doi"] == "10.1007/s13127-011-0039-1"
    assert record["latitude"] is None
    assert record["record"]["sourceTaxonFamilyName"] == "Coralliophilidae"
    assert record["record"]["sourceTaxonClassName"] == "Gastropoda"
    assert "21–41" in record["citation"]  # UTF-8 en dash decoded


def test_xeno_canto_csv_attaches_the_clips_beside_it(store: Store, data_dir: Path) -> None:
    folder = data_dir / "xeno_canto"
    report = import_paths(store, [folder / "recordings.csv"])

    assert report.evidence["recordings"] == 9
    assert report.evidence["audio_files"] == 9
    with open(folder / "recordings.csv", newline="", encoding="utf-8") as handle:
        expected = {f"XC{row['id']}": row for row in csv.DictReader(handle)}
    for rec_id, row in expected.items():
        recording = store.evidence.recording(rec_id)
        assert recording is not None
        assert recording["audio_sha256"] == row["sha256"]  # hashed from the real file
        assert Path(recording["audio_path"]) == (folder / row["file-name"]).resolve()
        assert recording["scientific_name"] == f"{row['gen']} {row['sp']}"
        assert recording["common_name"] == row["en"]
        assert recording["licence"] == row["lic"]
        assert recording["metadata"]["clip_start_s"] == row["clip_start_s"]
    sparrow = store.evidence.recording("XC625750")
    assert sparrow is not None and sparrow["vocalization_type"].startswith("call")
    assert sparrow["recordist"] == "johannes buhl"


def test_audio_given_first_then_metadata_fills_in(
    store: Store, data_dir: Path, tmp_path: Path
) -> None:
    clips = tmp_path / "clips"
    clips.mkdir()
    shutil.copy(data_dir / "xeno_canto" / "XC536501.mp3", clips / "XC536501.mp3")
    alone = import_paths(store, [clips / "XC536501.mp3"])
    recording = store.evidence.recording("XC536501")
    assert alone.evidence["audio_files"] == 1
    assert recording is not None and recording["scientific_name"] is None
    assert recording["audio_path"] == str((clips / "XC536501.mp3").resolve())

    import_paths(store, [data_dir / "xeno_canto" / "recordings.csv"])
    recording = store.evidence.recording("XC536501")
    assert recording is not None
    assert recording["scientific_name"] == "Melozone crissalis"
    assert recording["common_name"] == "California Towhee"


def test_wikipedia_extracts(store: Store, data_dir: Path) -> None:
    report = import_paths(store, sorted((data_dir / "wikipedia").glob("*.txt")))

    assert report.evidence["texts"] == store.evidence.text_count() == 4
    names = {
        "Koala": "Phascolarctos cinereus",
        "Lion": "Panthera leo",
        "Wolf": "Canis lupus",
        "Raccoon": "Procyon lotor",
    }
    for title, scientific in names.items():
        text = store.evidence.find_text(f"title:{title}")
        assert text is not None
        assert text["scientific_name"] == scientific
        assert text["kind"] == "wikipedia" and text["key"] == f"wikipedia:{title}"
        assert text["truncated"] == 0 and text["source_file"] == f"{title}.txt"
        assert store.evidence.find_text(f"sci:{scientific}") == text
        assert store.evidence.find_text(f"file:{title}.txt") == text
    koala = store.evidence.find_text("title:Koala")
    assert koala is not None
    written = (data_dir / "wikipedia" / "Koala.txt").read_text("utf-8").splitlines()
    assert koala["text"] == "\n\n".join(line.rstrip() for line in written if line.strip())


def test_biorxiv_json(store: Store, data_dir: Path) -> None:
    path = data_dir / "biorxiv" / "biorxiv_2020.02.11.942060_birds_versus_bats.json"
    report = import_paths(store, [path])

    assert report.exit_status == 0 and report.evidence["texts"] == 1
    text = store.evidence.find_text("doi:10.1101/2020.02.11.942060")
    assert text is not None
    assert text["kind"] == "biorxiv" and text["key"] == "biorxiv:10.1101/2020.02.11.942060"
    assert text["title"].startswith("Birds versus bats")
    assert "Tadarida brasiliensis" in text["text"]


def test_folder_walk_of_all_real_data(store: Store, data_dir: Path) -> None:
    seen: list[tuple[int, int]] = []
    report = import_paths(
        store, [data_dir], progress=lambda done, total: seen.append((done, total))
    )

    assert report.exit_status == 0, report.summary_lines()
    # the nine Xeno-canto clips and the bat (bats/: its metadata.csv and WAV)
    assert report.evidence == {
        "globi_records": 5700,
        "texts": 5,
        "recordings": 10,
        "audio_files": 10,
    }
    assert store.items.count() == 17
    ignored = {Path(p).name for p in report.ignored}
    assert {
        "README.md",
        "LICENSE_CC-BY-NC-SA-4.0.txt",
        "glacier-bay-humpback.ogg",
        "ashForestInteractions__globi.json",
    } <= ignored
    summary = report.summary_lines()
    named = [line for line in summary if line.startswith("Ignored ")]
    assert any(line.endswith("README.md: not an input format") for line in named), summary
    if len(report.ignored) > 10:
        assert (
            named[-1] == f"Ignored {len(report.ignored) - 10} more files that are not input formats"
        )
    files = report.files
    assert files.index(str(data_dir / "items" / "paper_examples.jsonl")) == len(files) - 1
    assert seen[0][0] == 0 and seen[-1][0] == seen[-1][1] > 0
    assert all(a[0] <= b[0] for a, b in itertools.pairwise(seen))

    again = import_paths(store, [data_dir])
    assert again.files == [] and len(again.skipped_files) == len(files)
    assert again.added == 0 and store.evidence.globi_record_count() == 5700
