"""The audio core's own DSP (numpy/scipy, for start-up speed) agrees with librosa's reference
implementations on a real Xeno-canto clip: the STFT, spectral flatness, HPSS (and its fast
median filter) and resampling."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from scipy import ndimage

from bagel_studio.core.audio.analysis import frame_flatness
from bagel_studio.core.audio.decode import decode
from bagel_studio.core.audio.dsp import hpss_harmonic_fraction, median_along, resample, stft_power

librosa = pytest.importorskip("librosa")


@pytest.fixture(scope="module")
def clip(data_dir: Path) -> tuple[np.ndarray, int]:
    audio = decode(data_dir / "xeno_canto" / "XC625750.mp3")  # House Sparrow, 44.1 kHz stereo
    return audio.mono(), audio.sample_rate


def test_stft_power_matches_librosa(clip: tuple[np.ndarray, int]) -> None:
    samples, _rate = clip
    ours = stft_power(samples, 1024, 256)
    theirs = np.abs(librosa.stft(samples, n_fft=1024, hop_length=256, pad_mode="constant")) ** 2
    assert ours.shape == theirs.shape
    np.testing.assert_allclose(ours, theirs, rtol=2e-3, atol=1e-6 * float(theirs.max()))


def test_spectral_flatness_matches_librosa(clip: tuple[np.ndarray, int]) -> None:
    samples, _rate = clip
    power = stft_power(samples, 1024, 256)
    theirs = librosa.feature.spectral_flatness(S=power, power=1.0, amin=1e-20)[0]
    np.testing.assert_allclose(frame_flatness(power), theirs, rtol=1e-3, atol=1e-6)


def test_hpss_harmonic_share_matches_librosa(clip: tuple[np.ndarray, int]) -> None:
    samples, _rate = clip
    magnitude = np.sqrt(stft_power(samples, 1024, 256))
    mask, _percussive = librosa.decompose.hpss(magnitude, kernel_size=17, power=2.0, mask=True)
    energy = magnitude.astype(np.float64) ** 2
    theirs = float((mask * energy).sum() / energy.sum())  # the harmonic share of the energy
    ours = hpss_harmonic_fraction(magnitude, kernel=17)
    assert 0.0 < ours < 1.0
    assert abs(ours - theirs) < 0.01


def test_resampling_keeps_a_tone_where_librosa_puts_it() -> None:
    rate, target = 44100, 16000
    t = np.arange(rate) / rate
    tone = (0.5 * np.sin(2 * np.pi * 3000 * t)).astype(np.float32)
    ours = resample(tone, rate, target)
    theirs = librosa.resample(tone, orig_sr=rate, target_sr=target, res_type="polyphase")
    assert abs(len(ours) - len(theirs)) <= 1
    for signal in (ours, theirs):
        spectrum = np.abs(np.fft.rfft(signal))
        peak = np.fft.rfftfreq(len(signal), 1 / target)[int(np.argmax(spectrum))]
        assert abs(peak - 3000) < 2


@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("shape", [(257, 940), (40, 17), (17, 9), (9, 17), (3, 5), (1, 30)])
def test_median_along_an_axis_is_scipys_2d_median_filter(
    clip: tuple[np.ndarray, int], shape: tuple[int, int], axis: int
) -> None:
    """The fast per-line median (SciPy's 1-D path) gives exactly SciPy's 2-D filter's numbers,
    on a real spectrogram and on shapes shorter than the kernel's reach (the 2-D fallback)."""
    samples, _rate = clip
    magnitude = np.sqrt(stft_power(samples, 512, 128))[: shape[0], : shape[1]]
    assert magnitude.shape == shape
    size = (1, 17) if axis == 1 else (17, 1)
    expected = ndimage.median_filter(magnitude, size=size, mode="reflect")
    np.testing.assert_array_equal(median_along(magnitude, 17, axis=axis), expected)
