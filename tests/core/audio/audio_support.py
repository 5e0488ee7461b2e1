"""Synthetic test signals with known answers, written as real files with soundfile."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import soundfile as sf


def times(seconds: float, rate: int) -> np.ndarray:
    return np.arange(round(seconds * rate)) / rate


def tone(freq: float, seconds: float, rate: int, amplitude: float = 0.5) -> np.ndarray:
    return (amplitude * np.sin(2 * np.pi * freq * times(seconds, rate))).astype(np.float32)


def pips(freq: float, on_s: float, period_s: float, seconds: float, rate: int) -> np.ndarray:
    """``on_s`` tone bursts at ``freq`` every ``period_s`` (first one after half a period)."""
    t = times(seconds, rate)
    phase = (t - period_s / 2) % period_s
    gate = (t >= period_s / 2) & (phase < on_s)
    return (0.5 * gate * np.sin(2 * np.pi * freq * t)).astype(np.float32)


def chirp(
    f0: float, f1: float, start_s: float, length_s: float, seconds: float, rate: int
) -> np.ndarray:
    """A linear up (or down) sweep from ``f0`` to ``f1`` Hz, in silence."""
    t = times(seconds, rate)
    out = np.zeros_like(t)
    inside = (t >= start_s) & (t < start_s + length_s)
    local = t[inside] - start_s
    out[inside] = 0.5 * np.sin(2 * np.pi * (f0 * local + (f1 - f0) * local**2 / (2 * length_s)))
    return out.astype(np.float32)


def harmonic_stack(f0: float, seconds: float, rate: int, partials: int = 8) -> np.ndarray:
    t = times(seconds, rate)
    x = sum(np.sin(2 * np.pi * f0 * k * t) / k for k in range(1, partials + 1))
    return (0.3 * x / np.max(np.abs(x))).astype(np.float32)


def white_noise(seconds: float, rate: int, seed: int = 7) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return (0.2 * rng.standard_normal(round(seconds * rate))).astype(np.float32)


def write(folder: Path, name: str, samples: np.ndarray, rate: int, **kwargs: object) -> Path:
    path = folder / name
    sf.write(str(path), samples, rate, **kwargs)  # type: ignore[arg-type]
    return path


def dominant_frequency(samples: np.ndarray, rate: int) -> float:
    """The strongest frequency of a recording (Hann-windowed FFT, parabolic peak)."""
    x = np.asarray(samples, dtype=np.float64)
    spectrum = np.abs(np.fft.rfft(x * np.hanning(x.size)))
    k = int(np.argmax(spectrum[1:])) + 1
    a, b, c = np.log(spectrum[k - 1 : k + 2] + 1e-30)
    shift = 0.5 * (a - c) / (a - 2 * b + c)
    return float((k + shift) * rate / x.size)


def sounding_span(samples: np.ndarray, rate: int, threshold: float = 0.05) -> tuple[float, float]:
    """(first, last) second at which |x| exceeds ``threshold``."""
    loud = np.flatnonzero(np.abs(samples) > threshold)
    if loud.size == 0:
        return 0.0, 0.0
    return loud[0] / rate, loud[-1] / rate


def sounding_seconds(
    samples: np.ndarray, rate: int, threshold: float = 0.05, block_s: float = 0.001
) -> float:
    """How long the recording sounds: the 1 ms blocks whose peak |x| exceeds ``threshold``
    (a half period of any tone from 500 Hz up fits in one, so a tone's every block counts).
    Unlike the span, silence inside does not count: a busy machine's output underruns insert
    gaps into what reaches the sink without changing how much of the clip was played."""
    x = np.abs(np.asarray(samples, dtype=np.float32))
    if x.ndim > 1:
        x = x.max(axis=1)
    size = max(1, round(block_s * rate))
    blocks = x[: x.size // size * size].reshape(-1, size)
    return float(np.count_nonzero(blocks.max(axis=1) > threshold) * size / rate)


def gusty_rumble(seconds: float, rate: int, top_hz: float = 400.0, seed: int = 11) -> np.ndarray:
    """Wind on the microphone: noise under ``top_hz`` whose level comes and goes in gusts of
    about half a second (from a tenth to the whole of its peak level), power 1 at the peak."""
    rng = np.random.default_rng(seed)
    n = round(seconds * rate)
    spectrum = np.fft.rfft(rng.standard_normal(n))
    f = np.fft.rfftfreq(n, 1 / rate)
    spectrum[(f < 20.0) | (f > top_hz)] = 0.0
    low = np.fft.irfft(spectrum, n)
    knots = rng.uniform(0.1, 1.0, int(seconds * 2) + 2)
    gusts = np.interp(np.arange(n) / rate, np.arange(knots.size) * 0.5, knots)
    rumble = low * np.sqrt(gusts)
    return rumble / np.sqrt(np.mean(low**2))
