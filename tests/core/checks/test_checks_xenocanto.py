"""Xeno-canto text checks, with the recordings' metadata from the bundled recordings.csv."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from checks_support import checked, new_item

from bagel_studio.core.store import Store

DIMENSION = "Dominant frequency range"
BANDS = ["~9-11 kHz", "~3-5 kHz", "~6-8 kHz", "~1-2 kHz"]


@pytest.fixture
def recordings(data_dir: Path) -> Store:
    """A project holding the bundled recordings' metadata (type known only for XC625750)."""
    store = Store.memory()
    with open(data_dir / "xeno_canto" / "recordings.csv", encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    store.evidence.upsert_recordings(
        [
            {
                "id": f"XC{row['id']}",
                "scientific_name": f"{row['gen']} {row['sp']}",
                "common_name": row["en"],
                "vocalization_type": row["type"],
                "licence": row["lic"],
                "file_name": row["file-name"],
                "metadata": dict(row),
            }
            for row in rows
        ],
        None,
    )
    return store


def xc_item(item_id: str, question: str, recording: str | None = None, **source: str) -> object:
    return new_item(
        item_id,
        "Xeno-canto",
        question,
        BANDS,
        "B",
        DIMENSION,
        recording_id=recording,
        source=dict(source),
    )


def test_house_sparrow_recording_mixes_song_and_call(recordings: Store) -> None:
    item = xc_item(
        "xc:sparrow:0",
        "What is the typical dominant frequency range of the song of the House Sparrow?",
        "XC625750",
    )
    flags = checked(recordings, item)["xc:sparrow:0"]
    mixed = flags["vocalization-mixed"]
    assert "XC625750" in mixed.message
    assert mixed.details["type"] == "call, life stage uncertain, sex uncertain, song"
    # "life stage uncertain" and "sex uncertain" are about the bird, not the sound.
    assert "vocalization-uncertain" not in flags
    assert "vocalization-missing" not in flags
    assert "stem-vocalization" not in flags


def test_recording_without_a_type_and_a_stem_naming_none(recordings: Store) -> None:
    item = xc_item(
        "xc:towhee:0",
        "What is the typical dominant frequency range of the California Towhee?",
        "XC536501",
    )
    flags = checked(recordings, item)["xc:towhee:0"]
    assert "No vocalization type for XC536501:" in flags["vocalization-missing"].message
    assert flags["stem-vocalization"].message == (
        "The stem does not name the vocalization type it asks about"
    )


def test_uncertain_type_from_the_envelope_source() -> None:
    item = xc_item(
        "xc:warbler:0",
        "What is the typical dominant frequency range of the call of the Red Warbler?",
        vocalization_type="call?",
    )
    flags = checked(Store.memory(), item)["xc:warbler:0"]
    assert flags["vocalization-uncertain"].details["type"] == "call?"
    assert "vocalization-missing" not in flags
    assert "stem-vocalization" not in flags


def test_stem_naming_another_type_than_the_recording() -> None:
    item = xc_item(
        "xc:warbler:1",
        "What is the typical dominant frequency range of the call of the Red Warbler?",
        vocalization_type="song",
    )
    flags = checked(Store.memory(), item)["xc:warbler:1"]
    assert flags["stem-vocalization"].message == (
        "The stem asks about the call but the item's source is typed 'song'"
    )


def test_stem_mentioning_the_recording_is_hidden_context(recordings: Store) -> None:
    item = xc_item(
        "xc:sparrow:1",
        "In this recording, what is the dominant frequency range of the song?",
        "XC625750",
    )
    flags = checked(recordings, item)["xc:sparrow:1"]
    assert '"recording"' in flags["hidden-context"].message


def test_clean_xeno_canto_item_trips_nothing() -> None:
    item = xc_item(
        "xc:warbler:2",
        "What is the typical dominant frequency range of the song of the Red Warbler "
        "(Cardellina rubra)?",
        vocalization_type="song",
    )
    assert checked(Store.memory(), item)["xc:warbler:2"] == {}


def test_a_trill_or_rattle_may_be_part_of_a_song_or_a_call() -> None:
    # A trill is a rapid series of notes, sung or called; an alarm is a call.
    items = [
        xc_item(
            "xc:junco:trill",
            "How fast are the notes of the junco's trill?",
            vocalization_type="song",
        ),
        xc_item("xc:wren:rattle", "How long is the wren's rattle?", vocalization_type="call"),
        xc_item(
            "xc:tit:alarm", "What band does the tit's alarm occupy?", vocalization_type="alarm call"
        ),
        xc_item(
            "xc:tit:song", "What band does the tit's song occupy?", vocalization_type="alarm call"
        ),
    ]
    flags = checked(Store.memory(), *items)
    assert "stem-vocalization" not in flags["xc:junco:trill"]
    assert "stem-vocalization" not in flags["xc:wren:rattle"]
    assert "stem-vocalization" not in flags["xc:tit:alarm"]
    assert flags["xc:tit:song"]["stem-vocalization"].message == (
        "The stem asks about the song but the item's source is typed 'alarm call'"
    )


def test_echolocation_pulses_and_clicks_name_a_call() -> None:
    # a bat's echolocation pulses (or clicks, or buzzes) are calls: the stem names the type
    items = [
        xc_item(
            "xc:bat:pulse",
            "How long is one echolocation pulse of the noctule?",
            vocalization_type="echolocation call",
        ),
        xc_item(
            "xc:bat:clicks",
            "At what rate does the noctule emit its echolocation clicks?",
            vocalization_type="call",
        ),
        xc_item(
            "xc:bat:song",
            "How long is one echolocation pulse of the noctule?",
            vocalization_type="song",
        ),
    ]
    flags = checked(Store.memory(), *items)
    assert "stem-vocalization" not in flags["xc:bat:pulse"]
    assert "stem-vocalization" not in flags["xc:bat:clicks"]
    assert flags["xc:bat:song"]["stem-vocalization"].message == (
        "The stem asks about the echolocation pulse but the item's source is typed 'song'"
    )
