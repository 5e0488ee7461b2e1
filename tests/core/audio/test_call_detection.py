"""Calls that are hard to time and shape: bat calls amid a recorder's clicks, and pulses of
stacked sweeps. Synthetic, so every call is known (see ``ground_truth`` for the plain cases)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from bagel_studio.core.audio import Measurement, measure
from bagel_studio.core.audio.decode import decode
from tests.core.audio import audio_support as sig

RATE = 375_000
CALL_S = 0.004
STARTS = [0.1 + 0.05 * k + 0.004 * np.sin(k) for k in range(30)]


def _clicking_recorder(tail: float, seed: int = 5) -> np.ndarray:
    """Two seconds of 4 ms calls sweeping down from 52 to 38 kHz every 50 ms, over hiss and a
    recorder's electrical clicks (one every 0.5 ms, holding most of the noise's power in the
    calls' band); each call followed by a reverberant tail ``tail`` times its level (decaying
    over 4 ms near 40 kHz, beating at 900 Hz)."""
    rng = np.random.default_rng(seed)
    seconds = 2.0
    x = 0.002 * rng.standard_normal(round(seconds * RATE))
    x[(np.arange(0.0, seconds, 0.0005) * RATE).astype(int)] += 0.2
    n = round(CALL_S * RATE)
    t = np.arange(n) / RATE
    ramp = n // 10
    envelope = np.ones(n)
    envelope[:ramp] = np.hanning(2 * ramp)[:ramp]
    envelope[-ramp:] = np.hanning(2 * ramp)[ramp:]
    call = 0.03 * envelope * np.sin(2 * np.pi * (52_000 * t - 14_000 * t**2 / (2 * CALL_S)))
    m = round(0.012 * RATE)
    u = np.arange(m) / RATE
    echo = tail * 0.03 * np.exp(-u / 0.004) * np.sin(2 * np.pi * 40_000 * u)
    echo *= 1 + 0.8 * np.sin(2 * np.pi * 900 * u)
    for start in STARTS:
        i = round(start * RATE)
        x[i : i + n] += call
        x[i + n : i + n + m] += echo
    return x.astype(np.float32)


def _measure(tmp_path: Path, name: str, samples: np.ndarray, rate: int) -> Measurement:
    return measure(decode(sig.write(tmp_path, name, samples, rate)))


def test_calls_amid_a_recorders_clicks_are_counted_once(tmp_path: Path) -> None:
    """Between the clicks, windows shorter than their spacing read a floor far under the noise's
    mean: every click then stands out as a call and cuts the calls into fragments. Each call is
    one, of its own length."""
    m = _measure(tmp_path, "clicks.wav", _clicking_recorder(tail=0.0), RATE)
    assert len(m.syllable_durations_s) == len(STARTS)
    assert m.syllable_median_s == pytest.approx(CALL_S, rel=0.2)
    assert m.syllable_starts_s == pytest.approx(STARTS, abs=0.001)


def test_calls_with_reverberant_tails_amid_clicks_keep_their_length(tmp_path: Path) -> None:
    m = _measure(tmp_path, "tails.wav", _clicking_recorder(tail=0.3), RATE)
    assert len(m.syllable_durations_s) == pytest.approx(len(STARTS), rel=0.2)
    assert m.syllable_median_s == pytest.approx(CALL_S, rel=0.2)
    low, high = np.percentile(m.syllable_durations_s, [25, 75])
    assert CALL_S * 0.8 <= low <= high <= CALL_S * 1.5


def _stacked_pulse(rate: int, length_s: float) -> np.ndarray:
    """A bat's pulse of two downward sweeps (80 to 64 kHz, then 96 to 80 kHz, starting a fifth
    of the pulse later): the lower is the louder while it sounds, the upper once it fades."""
    n = round(length_s * rate)
    t = np.arange(n) / rate
    out = np.zeros(n)
    for f0, f1, begin, end, level in ((80e3, 64e3, 0.0, 0.8, 1.0), (96e3, 80e3, 0.2, 1.0, 0.9)):
        inside = (t >= begin * length_s) & (t < end * length_s)
        local = t[inside] - begin * length_s
        span = (end - begin) * length_s
        phase = 2 * np.pi * (f0 * local + (f1 - f0) * local**2 / (2 * span))
        out[inside] += level * np.hanning(int(inside.sum())) * np.sin(phase)
    return out


def test_pulses_of_stacked_downward_sweeps_fall(tmp_path: Path) -> None:
    """1.1 ms pulses of two downward sweeps at 384 kHz: read in frames as long as most of a
    pulse, the loudest bin steps up from the lower sweep to the upper one and the pulse seems
    to rise; each sweep falls, and so does the pulse."""
    rate = 384_000
    rng = np.random.default_rng(3)
    x = 0.003 * rng.standard_normal(round(1.5 * rate))
    pulse = 0.4 * _stacked_pulse(rate, 0.0011)
    for k in range(20):
        i = round((0.1 + 0.065 * k) * rate)
        x[i : i + pulse.size] += pulse
    m = _measure(tmp_path, "stacked.wav", x.astype(np.float32), rate)
    assert len(m.syllable_durations_s) == 20
    assert m.modulation == "falling" and m.call_modulation == "falling"


def test_bursts_of_handling_noise_do_not_shape_the_calls(tmp_path: Path) -> None:
    """1.2 ms pulses sweeping down from 95 to 65 kHz, and six 12 ms bursts of broadband noise
    (a hand on the bat detector) found as calls too, longer than all the pulses together: a
    burst's loudest bin wanders (its "shape" an arch as often as not) and is no call's shape."""
    rate = 384_000
    rng = np.random.default_rng(1)
    x = 0.003 * rng.standard_normal(round(1.5 * rate))
    n = round(0.0012 * rate)
    t = np.arange(n) / rate
    pulse = 0.4 * np.hanning(n) * np.sin(2 * np.pi * (95e3 * t - 30e3 * t**2 / (2 * 0.0012)))
    for k in range(16):
        i = round((0.1 + 0.08 * k) * rate)
        x[i : i + n] += pulse
    m = round(0.012 * rate)
    for start in (0.14, 0.38, 0.54, 0.78, 0.94, 1.18):
        i = round(start * rate)
        x[i : i + m] += 0.08 * np.hanning(m) * rng.standard_normal(m)
    measured = _measure(tmp_path, "bursts.wav", x.astype(np.float32), rate)
    assert len(measured.syllable_durations_s) == 22  # the bursts are calls, by their timing
    assert measured.modulation == "falling" and measured.call_modulation == "falling"
