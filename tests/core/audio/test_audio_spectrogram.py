"""Spectrogram data: shapes, axes, scales, the cache, and settings stored in the project."""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
import pytest

from bagel_studio.core.audio import (
    SpectrogramCache,
    SpectrogramSettings,
    compute_spectrogram,
    load_settings,
    save_settings,
)
from bagel_studio.core.audio.decode import decode
from bagel_studio.core.store import Store
from tests.core.audio import audio_support as sig


def _peak_row_hz(db: np.ndarray, freqs: np.ndarray) -> float:
    return float(freqs[int(np.argmax(db.mean(axis=1)))])


@pytest.mark.parametrize("scale", ["linear", "log", "mel"])
def test_tone_lands_on_its_frequency(scale: str) -> None:
    rate = 44100
    settings = SpectrogramSettings(scale=scale)
    spec = compute_spectrogram(sig.tone(3000, 2.0, rate), rate, settings)
    assert spec.db.dtype == np.float32
    assert spec.db.shape == (spec.freqs_hz.size, spec.times_s.size)
    assert float(spec.db.max()) == 0.0 and float(spec.db.min()) >= -settings.db_range
    assert np.all(np.diff(spec.freqs_hz) > 0)  # row 0 = lowest frequency
    assert spec.times_s[0] == 0.0 and spec.times_s[1] == pytest.approx(256 / rate)
    assert spec.times_s[-1] == pytest.approx(2.0, abs=256 / rate)
    assert _peak_row_hz(spec.db, spec.freqs_hz) == pytest.approx(3000, rel=0.05)
    assert spec.duration_s == pytest.approx(2.0) and spec.sample_rate == rate


def test_linear_bins_and_max_frequency() -> None:
    spec = compute_spectrogram(
        sig.tone(1000, 1.0, 16000), 16000, SpectrogramSettings(scale="linear", max_freq_hz=4000)
    )
    assert spec.freqs_hz[0] == 0.0 and spec.freqs_hz[-1] == 4000.0
    assert spec.freqs_hz[1] == pytest.approx(16000 / 1024)


def test_log_scale_spaces_bins_geometrically() -> None:
    spec = compute_spectrogram(sig.tone(1000, 1.0, 48000), 48000, SpectrogramSettings())
    ratios = spec.freqs_hz[1:] / spec.freqs_hz[:-1]
    assert np.allclose(ratios, ratios[0])
    assert spec.freqs_hz[-1] == pytest.approx(24000)


def test_stereo_and_ultrasound(tmp_path: Path) -> None:
    rate = 192000
    stereo = np.stack([sig.tone(40000, 0.5, rate), sig.tone(40000, 0.5, rate)], axis=1)
    spec = compute_spectrogram(stereo, rate, SpectrogramSettings(n_fft=4096, hop=1024))
    assert _peak_row_hz(spec.db, spec.freqs_hz) == pytest.approx(40000, rel=0.02)


def test_silence_does_not_fail() -> None:
    spec = compute_spectrogram(np.zeros(100, dtype=np.float32), 8000, SpectrogramSettings())
    assert spec.db.shape[1] >= 1 and np.isfinite(spec.db).all()


def test_settings_json_round_trip_and_validation() -> None:
    settings = SpectrogramSettings(
        n_fft=2048,
        hop=512,
        window="hamming",
        scale="mel",
        db_range=60.0,
        colormap="magma",
        max_freq_hz=12000.0,
    )
    assert SpectrogramSettings.from_json(settings.to_json()) == settings
    bad = SpectrogramSettings.from_json({"n_fft": "x", "scale": "cubic"})
    assert bad == SpectrogramSettings()
    odd = SpectrogramSettings.from_json({"scale": "cubic", "hop": 99999, "window": "nope"})
    assert (odd.scale, odd.hop, odd.window) == ("log", 256, "hann")
    assert SpectrogramSettings.from_json(None) == SpectrogramSettings()


def test_settings_live_in_the_project(project_path: Path) -> None:
    with Store.open(project_path) as store:
        assert load_settings(store) == SpectrogramSettings()
        save_settings(store, SpectrogramSettings(scale="linear", db_range=70.0))
    with Store.open(project_path, read_only=True) as store:
        assert load_settings(store) == SpectrogramSettings(scale="linear", db_range=70.0)


def test_cache_is_keyed_by_audio_and_settings(data_dir: Path) -> None:
    cache = SpectrogramCache(max_entries=2)
    a = decode(data_dir / "xeno_canto" / "XC625750.mp3")
    b = decode(data_dir / "xeno_canto" / "XC143244.mp3")
    first = cache.get(a, SpectrogramSettings())
    assert cache.get(a, SpectrogramSettings()) is first
    assert first.db.shape[1] == pytest.approx(a.duration_s * a.sample_rate / 256, abs=2)
    linear = cache.get(a, SpectrogramSettings(scale="linear"))
    assert linear is not first and len(cache) == 2
    cache.get(b, SpectrogramSettings())  # evicts the least recently used (log of a)
    assert len(cache) == 2
    assert cache.get(a, SpectrogramSettings(scale="linear")) is linear
    assert cache.get(a, SpectrogramSettings()) is not first


def test_cache_from_several_threads(data_dir: Path) -> None:
    cache = SpectrogramCache()
    audio = decode(data_dir / "xeno_canto" / "XC236243.mp3")
    results: list[object] = []
    threads = [
        threading.Thread(
            target=lambda: results.append(cache.get(audio, SpectrogramSettings()).db.shape)
        )
        for _ in range(4)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(results) == 4 and len(set(results)) == 1 and len(cache) == 1
