"""Measurements cached in the project, and the acoustic checks read from that cache."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import numpy as np
import pytest

from bagel_studio.core.audio import (
    ANALYSIS_VERSION,
    acoustic_flags,
    measure_recordings,
    measurement_error,
    measurement_for,
    resolve_audio_path,
)
from bagel_studio.core.checks import CHECKS, check_all
from bagel_studio.core.model import ItemContent
from bagel_studio.core.store import NewItem, Store
from tests.core.audio import audio_support as sig


def _recording(rec_id: str, path: Path | str | None, sha: str | None = None) -> dict[str, object]:
    return {
        "id": rec_id,
        "scientific_name": "Passer domesticus",
        "common_name": "House Sparrow",
        "vocalization_type": "song",
        "file_name": Path(str(path)).name if path else None,
        "audio_path": str(path) if path else None,
        "audio_sha256": sha,
        "metadata": {},
    }


def _item(
    item_id: str,
    rec_id: str,
    options: tuple[str, ...],
    gold: int,
    dimension: str = "Dominant frequency range",
) -> NewItem:
    content = ItemContent(
        question=f"What is the song's {dimension.lower()}?",
        options=options,
        answer_index=gold,
        dimension=dimension,
    )
    return NewItem(id=item_id, domain="Xeno-canto", content=content, recording_id=rec_id)


def _rows(store: Store) -> list[tuple[str, str, dict[str, object]]]:
    rows = store.db.execute("SELECT audio_sha256, version, result FROM audio_measurements")
    return [(r[0], r[1], json.loads(r[2])) for r in rows]


def test_measurement_is_computed_once_and_cached(data_dir: Path, project_path: Path) -> None:
    clip = data_dir / "xeno_canto" / "XC625750.mp3"
    sha = "c6fb6faf7dd61ca717ddb671f9827cab4cd81f3e3bf6ac2507694f3fb73f07c3"
    with Store.open(project_path) as store:
        store.evidence.upsert_recordings([_recording("XC625750", clip, sha)], None)
        assert measurement_for(store, "XC625750", compute=False) is None
        m = measurement_for(store, "XC625750")
        assert m is not None and m.sample_rate == 44100 and m.channels == 2
        rows = _rows(store)
        assert [(r[0], r[1]) for r in rows] == [(sha, ANALYSIS_VERSION)]
        assert rows[0][2]["clarity"] == m.clarity
    with Store.open(project_path, read_only=True) as store:  # another curator sees the numbers
        assert measurement_for(store, "XC625750", compute=False) == m
    assert measurement_for(Store.memory(), "XC0") is None


def test_audio_found_beside_the_project(data_dir: Path, tmp_path: Path) -> None:
    project = tmp_path / "moved" / "project.bagel"
    project.parent.mkdir()
    shutil.copy(data_dir / "xeno_canto" / "XC143244.mp3", project.parent / "XC143244.mp3")
    with Store.open(project) as store:
        relative = _recording("XC143244", "XC143244.mp3")
        stale = _recording("XC1", "/no/such/folder/XC143244.mp3")
        nowhere = _recording("XC2", "/no/such/folder/XC2.mp3")
        assert resolve_audio_path(store, relative) == project.parent / "XC143244.mp3"
        assert resolve_audio_path(store, stale) == project.parent / "XC143244.mp3"
        assert resolve_audio_path(store, nowhere) is None
        store.evidence.upsert_recordings([nowhere], None)
        assert measurement_for(store, "XC2") is None
        assert measurement_error(store, "XC2") == "XC2.mp3: audio file not found"


def test_measure_recordings_skips_unreadable_audio(data_dir: Path, tmp_path: Path) -> None:
    bad = tmp_path / "XC9.mp3"
    bad.write_bytes(np.random.default_rng(5).bytes(4000))
    good = data_dir / "xeno_canto" / "XC449522.mp3"
    store = Store.memory()
    store.evidence.upsert_recordings(
        [
            _recording("XC9", bad, "bad-sha"),
            _recording("XC449522", good, "good-sha"),
            _recording("XC3", None),
        ],
        None,
    )
    seen: list[tuple[int, int]] = []
    assert measure_recordings(store, progress=lambda d, t: seen.append((d, t))) == 1
    assert seen == [(1, 2), (2, 2)]
    assert measure_recordings(store) == 0  # all cached now, the broken file included
    error = measurement_error(store, "XC9")
    assert error is not None and error.startswith("XC9.mp3: truncated or corrupt MP3")
    assert measurement_for(store, "XC9") is None
    assert measurement_error(store, "XC449522") is None


def _project_with_items(store: Store, clip: Path, rec_id: str, items: list[NewItem]) -> None:
    store.evidence.upsert_recordings([_recording(rec_id, clip, f"sha-{rec_id}")], None)
    store.items.add_items(items, None)


def test_acoustic_flags_from_the_cache(tmp_path: Path) -> None:
    clip = sig.write(tmp_path, "XC7.wav", sig.pips(7000, 0.1, 0.3, 6.0, 44100), 44100)
    band = ("~9-11 kHz", "~3-5 kHz", "~6-8 kHz", "~1-2 kHz")
    store = Store.memory()
    _project_with_items(
        store,
        clip,
        "XC7",
        [
            _item("xc:1", "XC7", band, 1),
            _item("xc:2", "XC7", band, 2),
            _item(
                "xc:3",
                "XC7",
                ("80-150 ms", "200-400 ms", "0.8-1.2 s", "1.5-2.0 s"),
                2,
                "Call / syllable duration",
            ),
        ],
    )
    item = store.items.get("xc:1")
    assert acoustic_flags(store, item) == []  # not measured yet: never decodes here
    measure_recordings(store)
    [flag] = acoustic_flags(store, item)
    assert flag.check == "acoustic-mismatch"
    assert flag.message.startswith("gold ~3-5 kHz but the clip's dominant band is 6.")
    assert flag.message.endswith("(peak 7.0 kHz); option C ~6-8 kHz fits")
    assert acoustic_flags(store, store.items.get("xc:2")) == []
    [duration] = acoustic_flags(store, store.items.get("xc:3"))
    assert re.search(r"calls last (9\d|1\d\d) ms \(median of 20; ", duration.message)
    assert "option A 80-150 ms fits" in duration.message


def test_short_quiet_and_unreadable_clips(tmp_path: Path) -> None:
    short = sig.write(tmp_path, "XC5.wav", sig.tone(4000, 2.0, 16000, 0.05), 16000)
    broken = tmp_path / "XC6.wav"
    broken.write_bytes(b"RIFF....WAVEfmt garbage")
    store = Store.memory()
    options = ("~3-5 kHz", "~6-8 kHz", "~9-11 kHz", "~1-2 kHz")
    _project_with_items(store, short, "XC5", [_item("xc:5", "XC5", options, 1)])
    _project_with_items(store, broken, "XC6", [_item("xc:6", "XC6", options, 0)])
    measure_recordings(store)
    checks = sorted(f.check for f in acoustic_flags(store, store.items.get("xc:5")))
    assert checks == ["clip-too-quiet", "clip-too-short"]  # too quiet: no claims compared
    [unreadable] = acoustic_flags(store, store.items.get("xc:6"))
    assert unreadable.check == "audio-unreadable"
    assert unreadable.message.startswith("XC6.wav: truncated or corrupt WAV (")


def test_check_all_merges_the_acoustic_checks(tmp_path: Path) -> None:
    for check in ("acoustic-mismatch", "clip-too-short", "clip-too-quiet", "audio-unreadable"):
        assert check in CHECKS
    clip = sig.write(tmp_path, "XC8.wav", sig.chirp(2000, 6000, 1.0, 1.0, 6.0, 32000), 32000)
    store = Store.memory()
    modulation = ("Rising glide", "Sinusoidal vibrato", "Falling glide", "Trill")
    _project_with_items(
        store,
        clip,
        "XC8",
        [
            _item("xc:8", "XC8", modulation, 2, "Modulation pattern"),
            _item("xc:9", "XC8", modulation, 0, "Modulation pattern"),
        ],
    )
    measure_recordings(store)
    check_all(store)
    assert "acoustic-mismatch" in {f.check for f in store.flags.of_item("xc:8")}
    assert "acoustic-mismatch" not in {f.check for f in store.flags.of_item("xc:9")}


@pytest.mark.parametrize("domain", ["GloBI", "Wikipedia"])
def test_other_domains_are_left_alone(domain: str) -> None:
    store = Store.memory()
    content = ItemContent("Q?", ("~3-5 kHz", "b", "c", "d"), 0, None)
    store.items.add_items([NewItem(id="x:1", domain=domain, content=content)], None)
    assert acoustic_flags(store, store.items.get("x:1")) == []
