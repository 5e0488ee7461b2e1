"""Calls of known truth, from owls to bats (``ground_truth.CASES``: tones, sweeps, harmonic
stacks and pulse trains; 1 ms to 2 s; 400 Hz to 150 kHz; 16-500 kHz; 10-30 dB SNR) measure
within the targets: duration and count within 20 %, the dominant band holding the true centre
and inside 0.8x-1.2x of the true band. ``tests/benchmarks/bench_acoustics.py`` prints the same
comparison as a table."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from bagel_studio.core.audio import measure
from bagel_studio.core.audio.decode import decode
from tests.core.audio import ground_truth as gt


@pytest.mark.parametrize("case", gt.CASES, ids=[c.name for c in gt.CASES])
def test_synthetic_calls_measure_within_the_targets(tmp_path: Path, case: gt.CallCase) -> None:
    truth = gt.truth(case)
    m = measure(decode(gt.write(case, tmp_path)))
    assert m.syllable_median_s is not None
    assert m.syllable_median_s == pytest.approx(truth.median_s, rel=0.2)
    assert len(m.syllable_durations_s) == pytest.approx(truth.count, rel=0.2)
    low, high = m.dominant_band_hz
    assert low <= truth.centre_hz <= high, (m.dominant_band_hz, truth.band_hz)
    assert low >= 0.8 * truth.band_hz[0] and high <= 1.2 * truth.band_hz[1], m.dominant_band_hz
    assert m.call_rate <= case.rate and m.call_window_s < truth.median_s / 2  # a window fit to it


def test_the_generator_makes_what_it_says() -> None:
    """The truth is the signal's: each call sounds from its start for its length and nowhere
    else, and the noise stands the stated SNR under the calls in their band."""
    case = gt.case("bat-fm-1ms-500k")
    truth = gt.truth(case)
    assert truth.count == case.count and truth.band_hz == (50_000.0, 100_000.0)
    calls, noise = gt.components(case)
    assert calls.size == noise.size == round(gt.clip_seconds(case) * case.rate)
    sounding = np.zeros(calls.size, dtype=bool)
    for start, length in zip(truth.starts_s, truth.durations_s, strict=True):
        at = round(start * case.rate)
        sounding[at : at + round(length * case.rate)] = True
    assert (
        not np.any(calls[~sounding]) and np.count_nonzero(calls[sounding]) > 0.99 * sounding.sum()
    )
    band_noise = gt.band_power(noise, case.rate, gt.noise_band(case))
    snr = 10 * np.log10(gt.call_power(case, calls) / band_noise)
    assert snr == pytest.approx(case.snr_db, abs=0.01)
    spectrum = np.abs(np.fft.rfft(calls)) ** 2
    freqs = np.fft.rfftfreq(calls.size, 1 / case.rate)
    inside = (freqs >= 0.9 * truth.band_hz[0]) & (freqs <= 1.1 * truth.band_hz[1])
    assert spectrum[inside].sum() > 0.95 * spectrum.sum()  # the calls' energy is in their band
    samples = gt.render(case)
    assert samples.dtype == np.float32 and float(np.max(np.abs(samples))) == pytest.approx(gt.PEAK)


def test_a_trill_is_one_phrase_and_a_lone_hoot_its_own(tmp_path: Path) -> None:
    trill = gt.case("cricket-trill")  # 60 notes of 10 ms, 10 ms apart
    truth = gt.truth(trill)
    m = measure(decode(gt.write(trill, tmp_path)))
    span = truth.starts_s[-1] + truth.durations_s[-1] - truth.starts_s[0]
    assert len(m.phrase_durations_s) == 1
    assert m.phrase_durations_s[0] == pytest.approx(span, rel=0.05)
    owl = measure(decode(gt.write(gt.case("owl-hoots"), tmp_path)))  # hoots 0.8 s apart
    assert owl.phrase_durations_s == owl.syllable_durations_s
