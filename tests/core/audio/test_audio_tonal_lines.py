"""A recorder's steady narrow line (often at or near Nyquist) is not the call's dominant band.

Ultrasonic recorders and cheap converters leave a constant whine, sometimes pinned at the top of
the band; the vocalisation is what comes and goes. Synthetic calls plus such a line, at 48 kHz
and at 384 kHz, must still measure the call.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from bagel_studio.core.audio import Measurement, measure
from bagel_studio.core.audio.decode import decode
from tests.core.audio import audio_support as sig


def _measure(tmp_path: Path, name: str, samples: np.ndarray, rate: int) -> Measurement:
    peak = float(np.max(np.abs(samples)))
    return measure(decode(sig.write(tmp_path, name, (0.9 * samples / peak).astype("f4"), rate)))


def _line(freq: float, seconds: float, rate: int, amplitude: float) -> np.ndarray:
    return sig.tone(freq, seconds, rate, amplitude)


@pytest.mark.parametrize("line_hz", [23_900.0, 23_990.0, 21_000.0])
def test_bird_pips_at_48khz_with_a_steady_line_near_nyquist(tmp_path: Path, line_hz: float) -> None:
    rate = 48_000
    call = sig.pips(4000, 0.1, 0.3, 6.0, rate)  # 4 kHz notes, 100 ms every 300 ms
    samples = call + _line(line_hz, 6.0, rate, 0.6)  # louder than the call, all the time
    m = _measure(tmp_path, "bird.wav", samples, rate)
    low, high = m.dominant_band_hz
    assert low < 4000 < high and high < 6000, m.dominant_band_hz
    assert m.peak_freq_hz == pytest.approx(4000, abs=60)
    assert len(m.syllable_durations_s) == 20
    assert m.syllable_median_s == pytest.approx(0.1, abs=0.015)


def test_bat_sweeps_at_384khz_with_energy_pinned_at_nyquist(tmp_path: Path) -> None:
    rate = 384_000
    seconds = 6.0
    # one 20 ms call, laid in every 100 ms (not 58 clip-long arrays summed: a second of set-up)
    call = sig.chirp(60_000, 35_000, 0.0, 0.02, 0.02, rate)
    calls = np.zeros(round(seconds * rate), dtype=np.float32)
    for start in np.arange(0.1, 5.9, 0.1):
        at = round(start * rate)
        calls[at : at + call.size] += call
    # a steady whine just under Nyquist and a little broadband hiss pinned at the top of the band
    whine = _line(191_000.0, seconds, rate, 0.5)
    rng = np.random.default_rng(3)
    hiss = np.diff(rng.standard_normal(round(seconds * rate) + 1)).astype("f4") * 0.05
    m = _measure(tmp_path, "bat.wav", calls + whine + hiss, rate)
    assert m.analysis_rate == rate
    low, high = m.dominant_band_hz
    assert low > 30_000 and high < 70_000, m.dominant_band_hz
    assert 35_000 <= m.peak_freq_hz <= 60_000
    assert m.syllable_median_s == pytest.approx(0.02, abs=0.006)
    assert len(m.syllable_durations_s) == 59  # one every 100 ms from 0.1 s to 5.8 s


def test_a_steady_line_alone_is_still_measured(tmp_path: Path) -> None:
    """Nothing comes and goes: the line is all there is, and that is what is reported."""
    m = _measure(tmp_path, "hum.wav", _line(23_900.0, 6.0, 48_000, 0.5), 48_000)
    assert m.peak_freq_hz == pytest.approx(23_900, abs=60)


def test_an_item_stating_the_real_band_is_not_flagged(tmp_path: Path) -> None:
    """The whine at the top of the band must not make the true gold look wrong."""
    from bagel_studio.core.audio.claims import mismatch

    rate = 48_000
    samples = sig.pips(4000, 0.1, 0.3, 6.0, rate) + _line(23_990.0, 6.0, rate, 0.6)
    m = _measure(tmp_path, "bird.wav", samples, rate)
    options = ("~1-2 kHz", "~3-5 kHz", "~8-12 kHz", "~21-24 kHz")
    assert mismatch(options, 1, m) is None
    wrong = mismatch(options, 3, m)
    assert wrong is not None and wrong.details["fitting_options"] == ["B"]
