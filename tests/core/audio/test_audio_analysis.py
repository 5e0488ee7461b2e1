"""The paper's pipeline on synthetic signals with known answers, and on the real clips."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from bagel_studio.core.audio import Measurement, measure
from bagel_studio.core.audio.decode import decode
from tests.core.audio import audio_support as sig


def _measure(tmp_path: Path, name: str, samples: np.ndarray, rate: int) -> Measurement:
    return measure(decode(sig.write(tmp_path, name, samples, rate)))


def test_3khz_tone(tmp_path: Path) -> None:
    m = _measure(tmp_path, "tone.wav", sig.tone(3000, 6.0, 44100), 44100)
    assert m.analysis_rate == 16000 and m.sample_rate == 44100
    assert m.peak_freq_hz == pytest.approx(3000, abs=20)
    low, high = m.dominant_band_hz
    assert low < 3000 < high and high - low < 400
    assert m.harmonicity > 0.9
    assert m.modulation == "flat"
    assert not (m.too_short or m.too_quiet or m.clipped)


def test_pips_give_syllable_durations(tmp_path: Path) -> None:
    m = _measure(tmp_path, "pips.wav", sig.pips(4000, 0.1, 0.3, 6.0, 48000), 48000)
    assert len(m.syllable_durations_s) == 20  # at 0.15, 0.45, ... 5.85 s
    assert m.syllable_starts_s == pytest.approx([0.15 + 0.3 * k for k in range(20)], abs=0.01)
    assert m.syllable_median_s == pytest.approx(0.1, abs=0.015)
    assert m.syllable_min_s is not None and m.syllable_min_s > 0.085
    assert m.syllable_max_s is not None and m.syllable_max_s < 0.115
    assert m.snr_db > 30
    assert m.modulation == "flat"


def test_upward_chirp_is_rising(tmp_path: Path) -> None:
    m = _measure(tmp_path, "chirp.wav", sig.chirp(2000, 6000, 1.0, 1.0, 6.0, 44100), 44100)
    assert m.modulation == "rising"
    assert m.syllable_median_s == pytest.approx(1.0, abs=0.03)
    low, high = m.dominant_band_hz
    assert low < 2500 and high > 5500


def test_downward_chirps_are_falling(tmp_path: Path) -> None:
    down = sum(sig.chirp(6000, 3000, start, 0.4, 6.0, 32000) for start in (0.5, 2.0, 3.5))
    m = _measure(tmp_path, "down.wav", down, 32000)
    assert m.modulation == "falling"
    assert len(m.syllable_durations_s) == 3


def test_gusts_of_rumble_are_not_the_calls(tmp_path: Path) -> None:
    """Chirps near 3.5 kHz over wind: the rumble under 400 Hz holds far more energy than the
    chirps and comes and goes too, but rises a few dB over its own floor where the chirps
    rise tens of dB over theirs: the chirps are the calls, their band the dominant one."""
    rate, seconds = 44100, 6.0
    starts = (0.4, 1.2, 2.1, 2.9, 3.8, 4.6, 5.3)
    chirps = sum(sig.chirp(3800, 3200, start, 0.08, seconds, rate) for start in starts)
    rumble = sig.gusty_rumble(seconds, rate)
    mix = 0.04 * chirps + 0.3 * rumble  # the rumble's gusts hold ~20 dB more than the chirps
    m = _measure(tmp_path, "wind.wav", (0.5 * mix / np.max(np.abs(mix))).astype(np.float32), rate)
    low, high = m.dominant_band_hz
    assert 3000 < low < 3500 < high < 4200
    assert len(m.syllable_durations_s) == len(starts)
    assert m.syllable_median_s == pytest.approx(0.08, rel=0.2)


def test_a_harmonic_over_a_quieter_floor_is_not_the_dominant_band(tmp_path: Path) -> None:
    """Notes at 5 kHz with a harmonic at 10 kHz 10 dB weaker, in noise falling steeply with
    frequency (the floor at 10 kHz far under the one at 5 kHz): the harmonic stands out of its
    floor more than the fundamental does, but the fundamental holds the energy, and the
    dominant band is its band alone."""
    rate, seconds = 44100, 6.0
    t = sig.times(seconds, rate)
    gate = ((t % 0.5) > 0.2) & ((t % 0.5) < 0.3)
    notes = gate * (np.sin(2 * np.pi * 5000 * t) + 0.3 * np.sin(2 * np.pi * 10000 * t))
    spectrum = np.fft.rfft(np.random.default_rng(3).standard_normal(t.size))
    f = np.fft.rfftfreq(t.size, 1 / rate)
    spectrum *= 1.0 / np.maximum(f, 100.0) ** 2  # brown: 12 dB an octave
    noise = np.fft.irfft(spectrum, t.size)
    noise /= np.sqrt(np.mean(noise**2))  # as loud as the notes, nearly all of it low
    mix = 0.3 * (notes + noise) / np.max(np.abs(notes + noise))
    m = _measure(tmp_path, "harmonic.wav", mix.astype(np.float32), rate)
    low, high = m.dominant_band_hz
    assert 4000 < low < 5000 < high < 6500
    assert m.peak_freq_hz == pytest.approx(5000, abs=100)


def test_a_trill_of_downward_sweeps_is_a_trill_of_falling_notes(tmp_path: Path) -> None:
    """A junco's trill: 12 notes a second, each a steep sweep down from 6 to 3.3 kHz. The
    series is a trill, and each of its notes falls: both are measured."""
    rate, seconds = 48000, 6.0
    starts = np.arange(1.0, 3.0, 1 / 12)
    notes = sum(sig.chirp(6000, 3300, start, 0.05, seconds, rate) for start in starts)
    m = _measure(tmp_path, "junco.wav", notes, rate)
    assert m.modulation == "trill"
    assert m.call_modulation == "falling"


def test_fast_short_notes_are_a_trill(tmp_path: Path) -> None:
    m = _measure(tmp_path, "trill.wav", sig.pips(5000, 0.04, 0.08, 6.0, 44100), 44100)
    assert m.modulation == "trill"
    assert m.syllable_median_s == pytest.approx(0.04, abs=0.012)


def test_white_noise_is_broadband_and_a_harmonic_stack_is_not(tmp_path: Path) -> None:
    noise = _measure(tmp_path, "noise.wav", sig.white_noise(6.0, 44100), 44100)
    stack = _measure(tmp_path, "stack.wav", sig.harmonic_stack(600, 6.0, 44100), 44100)
    assert noise.harmonicity < 0.2
    assert stack.harmonicity > 0.8
    assert noise.spectral_flatness > 0.4 > stack.spectral_flatness
    assert stack.harmonic_ratio > noise.harmonic_ratio
    assert stack.clarity > noise.clarity
    assert noise.modulation is None  # a noise's peak-frequency track means nothing
    assert stack.peak_freq_hz == pytest.approx(600, abs=20)


def test_40khz_tone_at_192khz_is_analysed_at_its_own_rate(tmp_path: Path) -> None:
    m = _measure(tmp_path, "bat.wav", sig.tone(40000, 6.0, 192000), 192000)
    assert m.analysis_rate == 192000
    assert m.peak_freq_hz == pytest.approx(40000, rel=0.005)


def test_short_quiet_and_clipped_clips_are_flagged(tmp_path: Path) -> None:
    short = _measure(tmp_path, "short.wav", sig.tone(3000, 3.0, 16000), 16000)
    assert short.too_short and not short.too_quiet
    quiet = _measure(tmp_path, "quiet.wav", sig.tone(3000, 6.0, 16000, 0.05), 16000)
    assert quiet.too_quiet and not quiet.too_short
    clean_pips = sig.pips(3000, 0.1, 0.3, 6.0, 16000)
    clean = _measure(tmp_path, "clean.wav", clean_pips, 16000)
    hot = _measure(tmp_path, "hot.wav", np.clip(clean_pips * 4, -1, 1), 16000)
    assert hot.clipped and hot.clipping_penalty > 0 and clean.clipping_penalty == 0
    assert hot.clarity < clean.clarity


def test_only_the_first_30_seconds_count(tmp_path: Path) -> None:
    rate = 16000
    long = np.concatenate([sig.pips(3000, 0.1, 0.3, 30.0, rate), sig.tone(6000, 10.0, rate)])
    m = _measure(tmp_path, "long.wav", long, rate)
    assert m.duration_s == pytest.approx(40.0)
    assert m.peak_freq_hz == pytest.approx(3000, abs=30)  # the 6 kHz tail is never analysed
    assert m.syllable_median_s == pytest.approx(0.1, abs=0.015)


def test_real_clips(data_dir: Path) -> None:
    for path in sorted((data_dir / "xeno_canto").glob("*.mp3")):
        m = measure(decode(path))
        assert m.duration_s == pytest.approx(6.0, abs=0.05)
        assert not m.too_short and not m.too_quiet
        assert 0.0 <= m.clarity <= 1.0 and 0.0 <= m.harmonicity <= 1.0
        low, high = m.dominant_band_hz
        assert 1500 < low <= m.peak_freq_hz <= high < 12000  # songbirds: a few kHz
        assert m.syllable_median_s is not None and 0.01 < m.syllable_median_s < 2.0
        assert Measurement.from_json(m.to_json()) == m


def test_humpback_song_is_low(data_dir: Path) -> None:
    m = measure(decode(data_dir / "marine_mammal" / "glacier-bay-humpback.ogg"))
    assert m.analysis_rate == 16000
    assert m.peak_freq_hz < 1000
