"""Evidence in its other shapes: the Xeno-canto API's JSON, audio named by id or by file name,
Wikipedia and bioRxiv texts as JSON or plain text."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

from bagel_studio.core.importers import import_paths
from bagel_studio.core.store import Store

BIORXIV_ABSTRACT = (
    "Aggregation is often thought to reduce predation risk, whether through dilution, confusion,"
    " or vigilance effects. "
) * 12


def test_xeno_canto_api_json_with_audio_beside_it(
    store: Store, tmp_path: Path, data_dir: Path
) -> None:
    folder = tmp_path / "xc"
    folder.mkdir()
    shutil.copy(data_dir / "xeno_canto" / "XC625750.mp3", folder / "house-sparrow.mp3")
    shutil.copy(data_dir / "xeno_canto" / "XC536501.mp3", folder / "XC536501 - towhee.mp3")
    api = {
        "numRecordings": "3",
        "recordings": [
            {
                "id": "625750",
                "gen": "Passer",
                "sp": "domesticus",
                "ssp": "",
                "en": "House Sparrow",
                "rec": "johannes buhl",
                "type": "call, song",
                "lic": "//creativecommons.org/licenses/by-nc-sa/4.0/",
                "url": "//xeno-canto.org/625750",
                "file-name": "house-sparrow.mp3",
                "length": "0:06",
                "q": "A",
            },
            {
                "id": "536501",
                "gen": "Melozone",
                "sp": "crissalis",
                "en": "California Towhee",
                "type": "call",
                "file-name": "XC536501-original-upload.mp3",
            },
            {"gen": "Nullus", "sp": "nullus"},
        ],
    }
    (folder / "page1.json").write_text(json.dumps(api, indent=1), encoding="utf-8")
    report = import_paths(store, [folder / "page1.json"])

    assert report.evidence["recordings"] == 2 and report.evidence["audio_files"] == 2
    assert [(r.line, r.reason) for r in report.rejects] == [(3, "no Xeno-canto id (id = None)")]
    sparrow = store.evidence.recording("XC625750")
    assert sparrow is not None
    assert sparrow["audio_path"] == str((folder / "house-sparrow.mp3").resolve())
    assert sparrow["licence"] == "https://creativecommons.org/licenses/by-nc-sa/4.0/"
    assert sparrow["url"] == "https://xeno-canto.org/625750"
    assert sparrow["metadata"]["length"] == "0:06"
    towhee = store.evidence.recording("XC536501")  # found by the id in the audio file's name
    assert towhee is not None and towhee["audio_path"].endswith("XC536501 - towhee.mp3")


def test_audio_files_given_directly(store: Store, data_dir: Path, tmp_path: Path) -> None:
    clip = tmp_path / "xc225379.mp3"
    shutil.copy(data_dir / "xeno_canto" / "XC225379.mp3", clip)
    report = import_paths(store, [clip])

    assert report.exit_status == 0 and report.evidence["audio_files"] == 1
    recording = store.evidence.recording("XC225379")
    assert recording is not None
    assert recording["file_name"] == "xc225379.mp3"
    assert recording["audio_sha256"] == (
        "2d270a1ca9ce66d600baae6f6c860fcbd46587e7c72ea911ae186fee469b9f0e"
    )


def test_audio_named_only_by_earlier_metadata(store: Store, tmp_path: Path, data_dir: Path) -> None:
    metadata = tmp_path / "meta.csv"
    metadata.write_text(
        "id,gen,sp,en,file-name\n218796,Junco,hyemalis,Dark-eyed Junco,junco.mp3\n",
        encoding="utf-8",
    )
    import_paths(store, [metadata])
    recording = store.evidence.recording("XC218796")
    assert recording is not None and recording["audio_path"] is None

    elsewhere = tmp_path / "later"
    elsewhere.mkdir()
    shutil.copy(data_dir / "xeno_canto" / "XC218796.mp3", elsewhere / "junco.mp3")
    report = import_paths(store, [elsewhere / "junco.mp3"])
    assert report.rejects == []
    recording = store.evidence.recording("XC218796")
    assert recording is not None
    assert recording["audio_path"] == str((elsewhere / "junco.mp3").resolve())
    assert recording["common_name"] == "Dark-eyed Junco"


def test_recordings_with_ids_only_in_urls_are_counted_once(
    store: Store, tmp_path: Path, data_dir: Path
) -> None:
    # A metadata table whose ids are only inside its URLs names no audio file: each recording
    # is inserted from its row and completed by its audio file, once each; that is still one
    # recording (the summary said "18 recordings" for these 9).
    source = data_dir / "xeno_canto"
    folder = tmp_path / "xc"
    folder.mkdir()
    for clip in source.glob("*.mp3"):
        shutil.copy(clip, folder / clip.name)
    with (source / "recordings.csv").open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    with (folder / "metadata.csv").open("w", newline="", encoding="utf-8") as handle:
        out = csv.writer(handle)
        out.writerow(["gen", "sp", "en", "rec", "lic", "url"])
        out.writerows([r["gen"], r["sp"], r["en"], r["rec"], r["lic"], r["url"]] for r in rows)
    report = import_paths(store, [folder], full_checks=False)
    assert len(rows) == 9 and len(store.evidence.recordings()) == 9
    assert report.evidence["recordings"] == 9 and report.evidence["audio_files"] == 9
    assert "Evidence: 9 recordings, 9 audio files" in report.summary_lines()
    assert all(r["audio_path"] and r["recordist"] for r in store.evidence.recordings())
    again = import_paths(store, [folder], full_checks=False)
    assert again.evidence["recordings"] == 0  # nothing new the second time


def test_each_run_rechecks_and_counts_only_the_recordings_it_brought(
    store: Store, tmp_path: Path
) -> None:
    # The recordings an import wrote are noted in the project's connection (not in memory, where
    # a large table's ids would pile up): a later run on the same open project, as the desk
    # makes, re-checks the items of its own recordings, not of an earlier run's.
    items = tmp_path / "items.jsonl"
    items.write_text(
        "".join(
            json.dumps(
                {
                    "id": f"xc:{n}",
                    "domain": "Xeno-canto",
                    "dimension": "Dominant frequency range",
                    "question": f"Which band holds the song of recording {n}?",
                    "options": ["1-2 kHz", "2-4 kHz", "4-8 kHz", "8-12 kHz"],
                    "answer": "B",
                    "recording": f"XC{n}",
                }
            )
            + "\n"
            for n in (1, 2)
        ),
        encoding="utf-8",
    )
    import_paths(store, [items])
    header = "id,gen,sp,en,type\n"
    first, second, both = (tmp_path / f"{name}.csv" for name in ("first", "second", "both"))
    first.write_text(header + "1,Passer,domesticus,House Sparrow,song\n", encoding="utf-8")
    second.write_text(header + "2,Junco,hyemalis,Dark-eyed Junco,song\n", encoding="utf-8")
    both.write_text(
        header + "2,Junco,hyemalis,Dark-eyed Junco,song\n3,Melozone,crissalis,,call\n",
        encoding="utf-8",
    )

    missing = "vocalization-missing"  # until its recording says "song"
    assert all(missing in {f.check for f in store.flags.of_item(f"xc:{n}")} for n in (1, 2))

    one = import_paths(store, [first])
    assert one.check_item_ids == ["xc:1"] and one.evidence["recordings"] == 1
    assert missing not in {f.check for f in store.flags.of_item("xc:1")}
    assert missing in {f.check for f in store.flags.of_item("xc:2")}
    two = import_paths(store, [second])
    assert two.check_item_ids == ["xc:2"] and two.evidence["recordings"] == 1
    # XC2 again (unchanged, but named by the file) and XC3 (new): one recording came in
    three = import_paths(store, [both])
    assert three.check_item_ids == ["xc:2"] and three.evidence["recordings"] == 1
    assert missing not in {f.check for f in store.flags.of_item("xc:2")}


def test_texts_as_json_and_plain_biorxiv(store: Store, tmp_path: Path, data_dir: Path) -> None:
    koala = (data_dir / "wikipedia" / "Koala.txt").read_text("utf-8")
    (tmp_path / "koala.json").write_text(
        json.dumps({"title": "Koala bear", "text": koala}), encoding="utf-8"
    )
    plain = f"doi: 10.1101/2021.01.01.425000\n\n{BIORXIV_ABSTRACT}"
    (tmp_path / "bats.txt").write_text(plain, encoding="utf-8")
    report = import_paths(store, [tmp_path / "koala.json", tmp_path / "bats.txt"])

    assert report.evidence["texts"] == 2 and report.exit_status == 0
    wiki = store.evidence.find_text("title:Koala bear")
    assert wiki is not None and wiki["kind"] == "wikipedia"
    assert wiki["scientific_name"] == "Phascolarctos cinereus"
    assert wiki["key"] == "wikipedia:Koala bear" and wiki["source_file"] == "koala.json"
    paper = store.evidence.find_text("doi:10.1101/2021.01.01.425000")
    assert paper is not None and paper["kind"] == "biorxiv"
    assert paper["key"] == "biorxiv:10.1101/2021.01.01.425000"


def test_items_with_an_inline_text(store: Store, tmp_path: Path) -> None:
    envelope = {
        "id": "biorxiv:inline:0",
        "domain": "bioRxiv",
        "source": {"title": "Bats", "text": BIORXIV_ABSTRACT},
        "output": {
            "question": "Which effect?",
            "options": ["dilution", "confusion", "vigilance", "none"],
            "correct_answer": "A",
        },
    }
    path = tmp_path / "inline.jsonl"
    path.write_text(json.dumps(envelope) + "\n", encoding="utf-8")
    import_paths(store, [path])

    item = store.items.get("biorxiv:inline:0")
    assert item.content.dimension == "Result Interpretation"  # bioRxiv's only label
    assert item.text_key == "inline:biorxiv:inline:0"
    text = store.evidence.find_text(item.text_key)
    assert text is not None and text["text"] == BIORXIV_ABSTRACT.strip()


def test_broken_xeno_canto_csv_keeps_what_it_could_read(store: Store, tmp_path: Path) -> None:
    rows = [
        "id,gen,sp,en,type",
        "1001,Passer,domesticus,House Sparrow,song,surplus",
        '1002,Junco,hyemalis,"Dark-eyed ' + "x" * 200_000,
        "1003,Sayornis,nigricans,,call",
    ]
    (tmp_path / "meta.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    report = import_paths(store, [tmp_path / "meta.csv"])

    assert [(r.line, r.reason.split(":")[0]) for r in report.rejects] == [
        (3, "malformed CSV, not read from here on")
    ]
    sparrow = store.evidence.recording("XC1001")
    assert sparrow is not None and sparrow["metadata"]["extra"] == ["surplus"]
    assert store.evidence.recording("XC1003") is None  # after the break: reported, not guessed


def test_one_piece_of_evidence_is_named_in_the_singular(tmp_path: Path) -> None:
    text = tmp_path / "Koala.txt"
    text.write_text("The koala is an arboreal marsupial of Australia. " * 40, encoding="utf-8")
    with Store.open(tmp_path / "one.bagel") as store:
        report = import_paths(store, [text])
    assert "Evidence: 1 text" in report.summary_lines()  # not "1 texts"
