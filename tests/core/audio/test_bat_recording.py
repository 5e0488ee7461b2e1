"""A real bat: Xeno-canto XC826198, Sowell's Short-tailed Bat, 1.46 s at 375 kHz (the bundled
copy, resources/data/bats: see resources/data/README.md). Its echolocation pulses last 0.3-1.3 ms
(shortening as the bat closes in) and sweep down through 60-110 kHz; each is a call of its
own."""

from __future__ import annotations

from pathlib import Path

import pytest

from bagel_studio.core.audio import Measurement, measure
from bagel_studio.core.audio.claims import mismatch
from bagel_studio.core.audio.decode import decode

BAT = "XC826198-Carollia_sowelli-2013.02.15-CL00829.wav"


@pytest.fixture(scope="module")
def bat(data_dir: Path) -> Measurement:
    return measure(decode(data_dir / "bats" / BAT))


def test_every_pulse_is_counted_and_timed(bat: Measurement) -> None:
    assert (bat.sample_rate, bat.call_rate) == (375_000, 375_000)
    assert bat.duration_s == pytest.approx(1.46, abs=0.01)
    assert 11 <= len(bat.syllable_durations_s) <= 15  # about 13 pulses
    assert all(0.0003 <= d <= 0.003 for d in bat.syllable_durations_s), bat.syllable_durations_s
    assert bat.syllable_median_s is not None and 0.0004 <= bat.syllable_median_s <= 0.0015
    assert bat.call_window_s < 0.0003  # sub-millisecond windows for sub-millisecond pulses


def test_band_is_the_pulses(bat: Measurement) -> None:
    low, high = bat.dominant_band_hz
    assert 50_000 <= low < bat.peak_freq_hz < high <= 120_000
    assert 80_000 <= bat.peak_freq_hz <= 95_000


def test_a_correct_gold_is_not_flagged_and_a_wrong_one_is(bat: Measurement) -> None:
    stem = "What is the typical duration of a single echolocation call of Carollia sowelli?"
    durations = ("~0.5-1.5 ms", "17-26 ms", "80-150 ms", "0.5-1 s")
    assert mismatch(durations, 0, bat, stem) is None
    wrong = mismatch(durations, 1, bat, stem)
    assert wrong is not None and wrong.details["fitting_options"] == ["A"]
    assert wrong.message == (
        "gold 17-26 ms but the clip's calls last 0.64 ms (median of 12; middle half "
        "0.39 ms-1.1 ms, all 0.31 ms-1.3 ms); option A ~0.5-1.5 ms fits"
    )
    assert wrong.details["compared"]["middle_half_s"] == pytest.approx([0.00039, 0.00105], abs=2e-5)
    bands = ("~20-30 kHz", "~60-110 kHz", "~3-5 kHz", "~150-180 kHz")
    assert mismatch(bands, 1, bat) is None
    wrong = mismatch(bands, 3, bat)
    assert wrong is not None and wrong.details["fitting_options"] == ["B"]
    assert "dominant band is 6" in wrong.message and "kHz (peak 8" in wrong.message


def test_each_pulse_sweeps_down(bat: Measurement) -> None:
    """Each pulse is two overlapping downward sweeps (about 82 to 64 kHz, then 100 to 76 kHz):
    its loudest bin hops up from one to the other, but the pulse falls."""
    assert bat.modulation == "falling" and bat.call_modulation == "falling"


def test_the_pulse_train_is_one_phrase(bat: Measurement) -> None:
    """Pulses 50-100 ms apart make one train: a stem that says neither "single call" nor "series"
    lets a claim fit the pulses or the train, and the message names both."""
    assert len(bat.phrase_durations_s) == 1 and 0.8 <= bat.phrase_durations_s[0] <= 1.0
    durations = ("~0.5-1.5 ms", "17-26 ms", "80-150 ms", "0.5-1 s")
    wrong = mismatch(durations, 1, bat, "How long do the calls of Carollia sowelli last?")
    assert wrong is not None and wrong.details["fitting_options"] == ["A", "D"]
    assert "calls last 0.64 ms" in wrong.message and "its phrases (calls close together) 8" in (
        wrong.message
    )
