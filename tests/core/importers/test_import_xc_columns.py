"""Xeno-canto metadata tables in the spellings they really come in: the XC API's field names
(v2 and v3), the site's spelled-out headings, warbleR's ``query_xc``, BirdCLEF's
``train_metadata.csv``, GBIF's Darwin Core export and Kaggle's extracts. Each is written from the
bundled clips' real metadata (``resources/data/xeno_canto/recordings.csv``) with the values shaped
as that source writes them, and must fill in the recordist, the licence and the link as well as
the names and the audio."""

from __future__ import annotations

import csv
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bagel_studio.core.importers import import_paths
from bagel_studio.core.importers.xenocanto import Columns
from bagel_studio.core.store import Store

Row = dict[str, str]


def api_v3(r: Row) -> dict[str, Any]:
    return {
        "id": r["id"],
        "gen": r["gen"],
        "sp": r["sp"],
        "ssp": "",
        "grp": "birds",
        "en": r["en"],
        "rec": r["rec"],
        "cnt": "United States",
        "loc": "somewhere, California",
        "lat": "37.5",
        "lon": "-122.3",
        "type": "song",
        "url": "//xeno-canto.org/" + r["id"],
        "file": f"https://xeno-canto.org/{r['id']}/download",
        "file-name": r["file-name"],
        "sono.small": f"//xeno-canto.org/sounds/uploaded/X/ffts/XC{r['id']}-small.png",
        "lic": r["lic"].removeprefix("https:"),
        "q": "A",
        "length": "0:06",
        "animal-seen": "yes",
        "playback-used": "no",
        "smp": r["sample_rate"],
    }


def site(r: Row) -> dict[str, Any]:
    """The headings of the site's result table and recording page, spelled out."""
    return {
        "Cat.nr.": f"XC{r['id']}",
        "Common name": r["en"],
        "Scientific name": f"{r['gen']} {r['sp']}",
        "Length": "0:06",
        "Recordist": r["rec"],
        "Date": "2019-04-01",
        "Country": "United States",
        "Location": "somewhere, California",
        "Elev. (m)": "120",
        "Type": "song",
        "Remarks": "",
        "License": r["lic"],
        "Link": r["url"],
    }


def warbler(r: Row) -> dict[str, Any]:
    """warbleR's ``query_xc`` data frame, written with ``write.csv``."""
    return {
        "Recording_ID": r["id"],
        "Genus": r["gen"],
        "Specific_epithet": r["sp"],
        "Subspecies": "",
        "English_name": r["en"],
        "Recordist": r["rec"],
        "Country": "United States",
        "Locality": "somewhere, California",
        "Latitude": "37.5",
        "Longitude": "-122.3",
        "Vocalization_type": "song",
        "Audio_file": f"//xeno-canto.org/{r['id']}/download",
        "License": r["lic"].removeprefix("https:"),
        "Url": "//xeno-canto.org/" + r["id"],
        "Quality": "A",
        "Time": "07:00",
        "Date": "2019-04-01",
    }


def birdclef(r: Row) -> dict[str, Any]:
    """BirdCLEF's ``train_metadata.csv``: no id column, the id inside ``filename``."""
    return {
        "primary_label": r["en"].lower().replace(" ", "")[:6],
        "secondary_labels": "[]",
        "type": "['song']",
        "latitude": "37.5",
        "longitude": "-122.3",
        "scientific_name": f"{r['gen']} {r['sp']}",
        "common_name": r["en"],
        "author": r["rec"],
        "license": r["lic"],
        "rating": "4.0",
        "url": "https://www.xeno-canto.org/" + r["id"],
        "filename": f"{r['en'].lower().replace(' ', '')[:6]}/{r['file-name']}",
    }


def gbif(r: Row) -> dict[str, Any]:
    """GBIF's Darwin Core occurrence download of the Xeno-canto dataset: the recording's page
    in ``references``, a header this reader knows only by its content."""
    return {
        "gbifID": str(3_000_000_000 + int(r["id"])),
        "occurrenceID": f"XC{r['id']}",
        "catalogNumber": f"XC{r['id']}",
        "basisOfRecord": "HUMAN_OBSERVATION",
        "recordedBy": r["rec"],
        "license": r["lic"],
        "references": "https://xeno-canto.org/" + r["id"],
        "kingdom": "Animalia",
        "genus": r["gen"],
        "specificEpithet": r["sp"],
        "vernacularName": r["en"],
        "countryCode": "US",
        "decimalLatitude": "37.5",
        "decimalLongitude": "-122.3",
        "eventDate": "2019-04-01",
    }


def kaggle(r: Row) -> dict[str, Any]:
    """Kaggle's "xeno-canto bird recordings extended": ``species`` is the English name, the
    binomial is ``sci_name``, and the recordist is in both ``author`` and ``recordist``."""
    return {
        "rating": "4.5",
        "playback_used": "no",
        "ebird_code": r["en"].lower().replace(" ", "")[:6],
        "channels": "1 (mono)",
        "date": "2019-04-01",
        "duration": "6",
        "filename": r["file-name"],
        "species": r["en"],
        "title": f"XC{r['id']} {r['en']} ({r['gen']} {r['sp']})",
        "sci_name": f"{r['gen']} {r['sp']}",
        "location": "somewhere, California",
        "type": "song",
        "xc_id": r["id"],
        "url": "https://www.xeno-canto.org/" + r["id"],
        "country": "United States",
        "author": r["rec"],
        "recordist": r["rec"],
        "license": r["lic"].replace("https://creativecommons.org/licenses/", "Creative Commons "),
    }


SHAPES: dict[str, Callable[[Row], dict[str, Any]]] = {
    "api-v3": api_v3,
    "site": site,
    "warbler": warbler,
    "birdclef": birdclef,
    "gbif": gbif,
    "kaggle": kaggle,
}


@pytest.fixture
def clips(data_dir: Path) -> list[Row]:
    with open(data_dir / "xeno_canto" / "recordings.csv", newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))[:3]


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_every_spelling_fills_in_the_recording(
    shape: str, store: Store, clips: list[Row], data_dir: Path, tmp_path: Path
) -> None:
    folder = tmp_path / shape
    folder.mkdir()
    rows = [SHAPES[shape](r) for r in clips]
    with open(folder / "metadata.csv", "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    for r in clips:
        shutil.copy(data_dir / "xeno_canto" / r["file-name"], folder / r["file-name"])

    report = import_paths(store, [folder / "metadata.csv"], full_checks=False)

    assert report.rejects == [] and report.evidence["recordings"] == len(clips)
    assert report.evidence["audio_files"] == len(clips)
    for r, written in zip(clips, rows, strict=True):
        recording = store.evidence.recording(f"XC{r['id']}")
        assert recording is not None, r["id"]
        assert recording["recordist"] == r["rec"]
        assert recording["common_name"] == r["en"]
        assert recording["scientific_name"] == f"{r['gen']} {r['sp']}"
        assert recording["url"].rstrip("/").endswith(f"xeno-canto.org/{r['id']}")
        assert recording["licence"] and "by-nc-sa" in recording["licence"].lower()
        assert recording["audio_sha256"] == r["sha256"]  # the clip beside it, attached
        kept = {k for k, v in written.items() if v}  # every column is kept, under some name
        assert len(kept) <= len([v for v in recording["metadata"].values() if v])


def test_a_column_is_told_by_its_content_when_its_header_says_nothing() -> None:
    headers = ["XC", "bird", "who", "Rights", "page", "sound"]
    sample = [
        {
            "XC": "XC536501",
            "bird": "Melozone crissalis",
            "who": "Paul Marvin",
            "Rights": "//creativecommons.org/licenses/by-nc-sa/4.0/",
            "page": "https://xeno-canto.org/536501",
            "sound": "recordings/XC536501.mp3",
        }
    ]
    columns = Columns(headers, sample)
    assert columns.row(sample[0]) == {
        "id": "XC536501",
        "scientific_name": "Melozone crissalis",
        "who": "Paul Marvin",  # a name is a name: only a header says it is the recordist's
        "lic": "//creativecommons.org/licenses/by-nc-sa/4.0/",
        "url": "https://xeno-canto.org/536501",
        "file-name": "recordings/XC536501.mp3",
    }


def test_species_is_read_by_its_content() -> None:
    def mapped(value: str) -> dict[str, Any]:
        return Columns(["id", "species"], [{"id": "1", "species": value}]).row(
            {"id": "1", "species": value}
        )

    assert mapped("crissalis") == {"id": "1", "sp": "crissalis"}
    assert mapped("Melozone crissalis") == {"id": "1", "scientific_name": "Melozone crissalis"}
    assert mapped("California Towhee") == {"id": "1", "en": "California Towhee"}
