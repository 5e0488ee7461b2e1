"""Synthetic animal sounds whose every call is known: the ground truth of the acoustic
measurements, from owls to bats.

Each ``CallCase`` describes one recording: a series of calls (a tone, a frequency sweep, a
harmonic stack, or a train of short pulses), each with its own start, length and band, laid into
noise at a stated signal-to-noise ratio. ``render`` writes the samples; ``truth`` gives what a
correct measurement finds: the calls' durations, their number, and the band their energy lies in.

What the truth means:

* A call lasts from the first to the last sample of its envelope (a Tukey window: flat in the
  middle, cosine ramps of ``ramp`` of its length in all, as a real note rises and fades).
* The band is where the call's energy lies: from the lowest to the highest frequency swept by the
  partials within 10 dB of the strongest one (a weaker partial is not part of the dominant band).
* The SNR is in the call's own band: the call's mean power while it sounds against the noise's
  power in ``noise_band`` (the true band widened by the benchmark's tolerance, 0.8x-1.2x), so a
  call at 10 dB is as hard to hear at 500 kHz as at 16 kHz, whatever the noise outside its band.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import soundfile as sf

DOMINANT_DB = 10.0  # partials within this much of the strongest make up the dominant band
TOLERANCE = (0.8, 1.2)  # the measured band must lie inside this multiple of the true band
PEAK = 0.5  # the clip's peak after noise is added (well above the paper's 0.1)


@dataclass(frozen=True)
class CallCase:
    """One synthetic recording: ``count`` calls of ``kind`` every ``interval_s`` seconds.

    ``f_start``/``f_end`` is the fundamental's sweep (equal for a tone); ``partials`` the
    amplitudes of harmonics 1, 2, 3... relative to the fundamental; ``sweep`` "linear" or
    "exponential" (constant octaves per second, as bats sweep). Lengths vary by up to
    ``jitter`` from call to call.
    """

    name: str
    kind: str  # "tonal" | "fm" | "harmonic" | "pulse train" (what the case stands for)
    rate: int
    duration_s: float
    count: int
    interval_s: float
    f_start: float
    f_end: float
    snr_db: float
    partials: tuple[float, ...] = (1.0,)
    sweep: str = "linear"
    ramp: float = 0.2
    noise: str = "white"  # "white" | "pink"
    lead_s: float = 0.15  # noise alone before the first call and after the last
    jitter: float = 0.1
    seed: int = 0
    taxon: str = field(default="", compare=False)


@dataclass(frozen=True)
class Truth:
    durations_s: tuple[float, ...]
    starts_s: tuple[float, ...]
    band_hz: tuple[float, float]

    @property
    def count(self) -> int:
        return len(self.durations_s)

    @property
    def median_s(self) -> float:
        return float(np.median(self.durations_s))

    @property
    def centre_hz(self) -> float:
        return (self.band_hz[0] + self.band_hz[1]) / 2


def truth(case: CallCase) -> Truth:
    rng = np.random.default_rng(case.seed)
    lengths = case.duration_s * (1.0 + case.jitter * rng.uniform(-1.0, 1.0, case.count))
    starts = case.lead_s + case.interval_s * np.arange(case.count)
    return Truth(
        durations_s=tuple(float(x) for x in lengths),
        starts_s=tuple(float(x) for x in starts),
        band_hz=dominant_band(case),
    )


def dominant_band(case: CallCase) -> tuple[float, float]:
    strongest = max(case.partials)
    floor = strongest * 10 ** (-DOMINANT_DB / 20)
    harmonics = [k + 1 for k, a in enumerate(case.partials) if a >= floor]
    low = min(case.f_start, case.f_end) * min(harmonics)
    high = max(case.f_start, case.f_end) * max(harmonics)
    return float(low), float(high)


def clip_seconds(case: CallCase) -> float:
    found = truth(case)
    return found.starts_s[-1] + max(found.durations_s) + case.lead_s


def render(case: CallCase) -> np.ndarray:
    """The recording: calls plus noise at ``snr_db`` in the call's band, peak ``PEAK``."""
    calls, noise = components(case)
    mix = calls + noise
    return (PEAK * mix / np.max(np.abs(mix))).astype(np.float32)


def components(case: CallCase) -> tuple[np.ndarray, np.ndarray]:
    """(calls, noise) of the recording before it is scaled to ``PEAK``, float64."""
    rate = case.rate
    found = truth(case)
    frames = round(clip_seconds(case) * rate)
    calls = np.zeros(frames)
    for start, length in zip(found.starts_s, found.durations_s, strict=True):
        call = one_call(case, length)
        at = round(start * rate)
        calls[at : at + call.size] += call
    rng = np.random.default_rng(case.seed + 1000)
    noise = coloured_noise(frames, case.noise, rng)
    noise_power = band_power(noise, rate, noise_band(case))
    noise *= np.sqrt(call_power(case, calls) / noise_power / 10 ** (case.snr_db / 10))
    return calls, noise


def call_power(case: CallCase, calls: np.ndarray) -> float:
    """The calls' mean power while they sound."""
    found = truth(case)
    sounding = np.zeros(calls.size, dtype=bool)
    for start, length in zip(found.starts_s, found.durations_s, strict=True):
        at = round(start * case.rate)
        sounding[at : at + max(2, round(length * case.rate))] = True
    return float(np.mean(calls[sounding] ** 2))


def noise_band(case: CallCase) -> tuple[float, float]:
    low, high = dominant_band(case)
    return low * TOLERANCE[0], min(high * TOLERANCE[1], case.rate / 2)


def one_call(case: CallCase, length_s: float) -> np.ndarray:
    rate = case.rate
    n = max(2, round(length_s * rate))
    t = np.arange(n) / rate
    if case.sweep == "exponential" and case.f_start != case.f_end:
        k = np.log(case.f_end / case.f_start) / length_s
        phase = 2 * np.pi * case.f_start * (np.exp(k * t) - 1) / k
    else:
        slope = (case.f_end - case.f_start) / length_s
        phase = 2 * np.pi * (case.f_start * t + slope * t**2 / 2)
    wave = np.zeros(n)
    for k, amplitude in enumerate(case.partials, start=1):
        if amplitude > 0 and k * max(case.f_start, case.f_end) < 0.48 * rate:
            wave += amplitude * np.sin(k * phase)
    return wave * tukey(n, case.ramp)


def tukey(n: int, ramp: float) -> np.ndarray:
    """Flat top with raised-cosine ramps making up ``ramp`` of the length in all."""
    window = np.ones(n)
    edge = round(ramp * n / 2)
    if edge > 0:
        rise = 0.5 * (1 - np.cos(np.pi * np.arange(edge) / edge))
        window[:edge] = rise
        window[n - edge :] = rise[::-1]
    return window


def coloured_noise(frames: int, colour: str, rng: np.random.Generator) -> np.ndarray:
    white = rng.standard_normal(frames)
    if colour == "white":
        return white
    spectrum = np.fft.rfft(white)
    f = np.arange(spectrum.size, dtype=float)
    spectrum[1:] /= np.sqrt(f[1:])  # 1/f power: the rumble-heavy floor of field recordings
    spectrum[0] = 0.0
    return np.fft.irfft(spectrum, frames)


def band_power(x: np.ndarray, rate: int, band: tuple[float, float]) -> float:
    """Mean power of ``x`` within ``band`` (Hz), from its spectrum (Parseval)."""
    spectrum = np.fft.rfft(x)
    f = np.fft.rfftfreq(x.size, 1 / rate)
    inside = (f >= band[0]) & (f <= band[1])
    return float(2 * np.sum(np.abs(spectrum[inside]) ** 2) / x.size**2)


def write(case: CallCase, folder: Path) -> Path:
    path = folder / f"{case.name}.wav"
    sf.write(str(path), render(case), case.rate, subtype="PCM_16")
    return path


# The cases: taxa from owls to bats, 16-500 kHz, 1 ms to 2 s, 400 Hz to 150 kHz, 10-30 dB.
CASES: tuple[CallCase, ...] = (
    CallCase("owl-hoots", "harmonic", 16_000, 0.6, 4, 1.4, 420, 380, 20,
             partials=(1.0, 0.5, 0.15), noise="pink", ramp=0.4, taxon="owl"),
    CallCase("dove-coos", "tonal", 22_050, 2.0, 2, 3.0, 520, 480, 15,
             noise="pink", ramp=0.3, taxon="dove"),
    CallCase("thrush-song", "harmonic", 44_100, 1.2, 3, 2.0, 2500, 4500, 20,
             partials=(1.0, 0.25), noise="pink", taxon="songbird"),
    CallCase("warbler-notes", "fm", 48_000, 0.08, 10, 0.3, 7000, 4000, 10,
             noise="pink", seed=3, taxon="songbird"),
    CallCase("chickadee-whistles", "tonal", 32_000, 0.25, 6, 0.6, 3500, 3500, 15,
             noise="pink", seed=4, taxon="songbird"),
    CallCase("sparrow-chips", "fm", 16_000, 0.02, 12, 0.15, 6500, 4500, 20,
             noise="pink", seed=5, taxon="songbird"),
    CallCase("cricket-trill", "pulse train", 44_100, 0.01, 60, 0.02, 4500, 4500, 20,
             noise="pink", jitter=0.05, seed=6, taxon="insect"),
    CallCase("katydid-pulses", "pulse train", 96_000, 0.004, 40, 0.012, 18_000, 24_000, 15,
             jitter=0.05, seed=7, taxon="insect"),
    CallCase("frog-pulses", "harmonic", 16_000, 0.04, 10, 0.2, 1000, 1000, 15,
             partials=(1.0, 0.8, 0.5, 0.1), noise="pink", seed=8, taxon="frog"),
    CallCase("bat-fm-2ms-384k", "fm", 384_000, 0.002, 15, 0.07, 80_000, 40_000, 15,
             sweep="exponential", seed=9, taxon="bat"),
    CallCase("bat-fm-1ms-384k", "harmonic", 384_000, 0.001, 20, 0.05, 60_000, 30_000, 30,
             partials=(1.0, 0.5), sweep="exponential", seed=10, taxon="bat"),
    CallCase("bat-fm-1ms-500k", "fm", 500_000, 0.001, 20, 0.05, 100_000, 50_000, 10,
             sweep="exponential", seed=11, taxon="bat"),
    CallCase("bat-cf-150k-500k", "tonal", 500_000, 0.003, 12, 0.06, 150_000, 150_000, 20,
             ramp=0.3, seed=12, taxon="bat"),
    CallCase("horseshoe-cf-384k", "tonal", 384_000, 0.04, 8, 0.1, 83_000, 83_000, 20,
             ramp=0.1, seed=13, taxon="bat"),
    CallCase("pipistrelle-qcf-250k", "fm", 250_000, 0.005, 12, 0.09, 60_000, 45_000, 10,
             sweep="exponential", seed=14, taxon="bat"),
    CallCase("bat-social-192k", "harmonic", 192_000, 0.02, 6, 0.15, 22_000, 16_000, 20,
             partials=(1.0, 0.6, 0.3), seed=15, taxon="bat"),
    CallCase("mouse-usv-250k", "fm", 250_000, 0.03, 8, 0.12, 65_000, 75_000, 10,
             seed=16, taxon="rodent"),
    CallCase("whistle-16k", "tonal", 16_000, 0.3, 5, 0.8, 4000, 4000, 10,
             noise="pink", seed=17, taxon="songbird"),
)  # fmt: skip


def case(name: str) -> CallCase:
    for each in CASES:
        if each.name == name:
            return each
    raise KeyError(name)


def with_snr(base: CallCase, snr_db: float) -> CallCase:
    return replace(base, snr_db=snr_db, name=f"{base.name}-{snr_db:g}dB")
