"""``bagel-studio audio FILE [--json]``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from bagel_studio.core.cli import run
from tests.conftest import ROOT
from tests.core.audio import audio_support as sig


def test_json_report_of_a_real_clip(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["audio", str(data_dir / "xeno_canto" / "XC236243.mp3"), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["sample_rate"], data["channels"], data["format"]) == (44100, 2, "MP3")
    assert data["duration_s"] == pytest.approx(6.0, abs=0.05)
    assert 0.1 < data["peak"] < 1 and data["clipped"] is False
    assert 0 <= data["clarity"] <= 1
    low, high = data["dominant_band_hz"]
    assert low < data["peak_freq_hz"] < high
    syllables = data["syllable_duration_s"]
    assert syllables["min"] <= syllables["median"] <= syllables["max"]


def test_json_of_known_pips(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = sig.write(tmp_path, "pips.flac", sig.pips(3000, 0.1, 0.3, 6.0, 48000), 48000)
    assert run(["audio", str(path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["syllable_duration_s"]["median"] == pytest.approx(0.1, abs=0.015)
    assert data["dominant_band_hz"][0] < 3000 < data["dominant_band_hz"][1]


def test_text_report(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    clip = data_dir / "marine_mammal" / "glacier-bay-humpback.ogg"
    assert run(["audio", str(clip)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"{clip}: OGG, 22050 Hz, 1 channel, 64.8")
    assert "clarity" in out and "dominant" in out and "calls" in out


@pytest.mark.parametrize("content", [None, b"", b"not audio at all" * 100])
def test_unreadable_file_exits_2_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes | None
) -> None:
    path = tmp_path / "XC1.mp3"
    if content is not None:
        path.write_bytes(content)
    assert run(["audio", str(path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("bagel-studio audio: XC1.mp3: ")


def test_truncated_mp3_in_a_real_process(data_dir: Path, tmp_path: Path) -> None:
    """Only our line reaches stderr: libmpg123's own complaints are silenced."""
    data = (data_dir / "xeno_canto" / "XC625750.mp3").read_bytes()
    cut = tmp_path / "XC625750.mp3"
    cut.write_bytes(data[:3000])
    done = subprocess.run(
        [sys.executable, "-m", "bagel_studio", "audio", str(cut), "--json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip().splitlines() == [
        "bagel-studio audio: XC625750.mp3: truncated or corrupt MP3 "
        "(decoded 0.13 s of the 6.00 s its header announces)"
    ]


def test_clipped_file_is_reported(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    hot = np.clip(2.0 * sig.tone(2000, 6.0, 16000, 1.0), -1.5, 1.5)
    path = sig.write(tmp_path, "hot.wav", hot, 16000, subtype="FLOAT")
    assert run(["audio", str(path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["clipped"] is True and data["peak"] == pytest.approx(1.5)
    assert data["clipping_penalty"] > 0
