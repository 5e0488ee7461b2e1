"""The paper's audio pipeline, reproduced: what a clip measures, and how clear it is.

BAGEL analysed each Xeno-canto clip at 16 kHz (at the file's own rate here when the energy lies
above 8 kHz, so high and ultrasonic calls are not filtered away), over its first 30 s; clips
shorter than 5 s or with a peak below 0.1 were dropped, and a clarity score combined a
band-limited SNR (0.5-10 kHz), the harmonic share of a harmonic/percussive separation, the mean
spectral flatness and a clipping penalty. The paper names these ingredients but not their weights;
the weights below are ours and are part of ``ANALYSIS_VERSION``, which keys the cached results.

The acoustic measurements (dominant band, syllable durations, harmonicity, modulation) are what
option text claims about a species' sound, so that ``claims.py`` can compare the two.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from bagel_studio.core.audio import dsp
from bagel_studio.core.audio.contour import classify_modulation, peak_contours
from bagel_studio.core.audio.decode import CLIP_LEVEL, DecodedAudio

# 2: steady narrow lines and the top edge of the band left out; 3: a file holding fewer frames
# than its header announces no longer gets its peak, clipping and length from unwritten memory
ANALYSIS_VERSION = "3"
ANALYSIS_RATE = 16_000
MAX_SECONDS = 30.0
MIN_DURATION_S = 5.0
MIN_PEAK = 0.1
CLARITY_BAND_HZ = (500.0, 10_000.0)
HIGH_BAND_HZ = 8_000.0  # energy mostly above this: analyse at the file's own rate
BROADBAND_BELOW = 0.25  # harmonicity under this: noise, whose peak-frequency track means nothing
LOWEST_HZ = 150.0  # below this lies rumble, wind and handling noise, not birds
TOP_GUARD = 0.97  # above this share of Nyquist lie converter artefacts (energy pinned at the top)
LINE_PROMINENCE = 10.0  # a line's median power over its neighbourhood's (10 dB)
LINE_NEIGHBOURHOOD_HZ = 1_000.0
LINE_BURST = 4.0  # a call rises this far (6 dB) above its bin's median; a steady line seldom does
LINE_BURST_SHARE = 0.1
REST_SHARE = 1e-4  # what is left without lines and top edge must hold this much (-40 dB)


@dataclass(frozen=True)
class Measurement:
    """What the pipeline measured on one clip (seconds, Hz, scores in 0..1)."""

    sample_rate: int
    analysis_rate: int
    channels: int
    duration_s: float
    peak: float
    clipped: bool
    too_short: bool
    too_quiet: bool
    clarity: float
    snr_db: float
    harmonic_ratio: float
    spectral_flatness: float
    clipping_penalty: float
    dominant_band_hz: tuple[float, float]
    peak_freq_hz: float
    syllable_durations_s: tuple[float, ...]
    syllable_median_s: float | None
    syllable_min_s: float | None
    syllable_max_s: float | None
    harmonicity: float
    modulation: str | None

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["dominant_band_hz"] = list(self.dominant_band_hz)
        data["syllable_durations_s"] = list(self.syllable_durations_s)
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Measurement:
        values = dict(data)
        values["dominant_band_hz"] = tuple(float(v) for v in values["dominant_band_hz"])
        values["syllable_durations_s"] = tuple(float(v) for v in values["syllable_durations_s"])
        names = cls.__dataclass_fields__
        return cls(**{k: v for k, v in values.items() if k in names})


def measure(audio: DecodedAudio) -> Measurement:
    """Run the pipeline on ``audio`` (seconds of CPU for 30 s: call it off the UI thread)."""
    rate = audio.sample_rate
    head = audio.mono(int(MAX_SECONDS * rate))
    analysis_rate = choose_analysis_rate(head, rate)
    y = dsp.resample(head, rate, analysis_rate)
    n_fft = dsp.analysis_fft_size(analysis_rate)
    hop = n_fft // 4
    power = dsp.stft_power(y, n_fft, hop)
    freqs = np.fft.rfftfreq(n_fft, 1.0 / analysis_rate)
    nyquist = analysis_rate / 2
    high = analysis_rate != ANALYSIS_RATE and analysis_rate > ANALYSIS_RATE
    band = (CLARITY_BAND_HZ[0], nyquist * 0.98 if high else min(CLARITY_BAND_HZ[1], nyquist))
    in_band = (freqs >= band[0]) & (freqs <= band[1])

    snr_db = band_snr_db(power[in_band])
    harmonic_ratio = dsp.hpss_harmonic_fraction(np.sqrt(power[in_band]))
    flatness = frame_flatness(power[in_band])
    penalty = clipping_penalty(audio)
    clarity = clarity_score(snr_db, harmonic_ratio, float(np.mean(flatness)), penalty)

    peak_hz, dominant = dominant_band(power, freqs)
    seg_band = segmentation_band(dominant, nyquist)
    segments = syllables(y, analysis_rate, seg_band)
    complete = [s for s in segments if s[0] > 0.0 and s[1] < len(y) / analysis_rate - 1e-3]
    timed = complete or segments
    durations = tuple(round(b - a, 4) for a, b in timed)
    times = np.arange(power.shape[1]) * hop / analysis_rate
    active = _frames_in(times, segments)
    seg_bins = (freqs >= seg_band[0]) & (freqs <= seg_band[1])
    flat_active = frame_flatness(power[seg_bins][:, active]) if active.any() else flatness
    tonal = harmonicity(flat_active)
    contours = peak_contours(power[seg_bins], freqs[seg_bins], times, timed)
    return Measurement(
        sample_rate=rate,
        analysis_rate=analysis_rate,
        channels=audio.channels,
        duration_s=round(audio.duration_s, 4),
        peak=round(audio.peak, 4),
        clipped=audio.clipped,
        too_short=audio.duration_s < MIN_DURATION_S,
        too_quiet=audio.peak < MIN_PEAK,
        clarity=round(clarity, 4),
        snr_db=round(snr_db, 2),
        harmonic_ratio=round(harmonic_ratio, 4),
        spectral_flatness=round(float(np.mean(flatness)), 4),
        clipping_penalty=round(penalty, 4),
        dominant_band_hz=(round(dominant[0], 1), round(dominant[1], 1)),
        peak_freq_hz=round(peak_hz, 1),
        syllable_durations_s=durations,
        syllable_median_s=round(float(np.median(durations)), 4) if durations else None,
        syllable_min_s=min(durations) if durations else None,
        syllable_max_s=max(durations) if durations else None,
        harmonicity=round(tonal, 4),
        modulation=classify_modulation(contours, timed) if tonal >= BROADBAND_BELOW else None,
    )


def choose_analysis_rate(samples: np.ndarray, rate: int) -> int:
    """16 kHz, or the file's own rate when most of the call's energy lies above 8 kHz.

    Decided on what stands above the background (as ``dominant_band`` does), so the hiss of a
    quiet recording does not pull a low call up to the full rate.
    """
    if rate <= ANALYSIS_RATE or samples.size < 2048:
        return ANALYSIS_RATE
    power = dsp.stft_power(samples, 1024, 512)
    freqs = np.fft.rfftfreq(1024, 1.0 / rate)
    usable, profile = _call_profile(power, freqs)
    total = float(profile.sum())
    above = float(profile[usable > HIGH_BAND_HZ].sum())
    return rate if total > 0 and above / total > 0.5 else ANALYSIS_RATE


def band_snr_db(band_power: np.ndarray) -> float:
    """Loudest fifth of the frames against the quietest fifth, in the band, in dB (0..60)."""
    if band_power.size == 0:
        return 0.0
    energy = np.sort(band_power.sum(axis=0).astype(np.float64))
    fifth = max(1, energy.size // 5)
    loud, quiet = float(energy[-fifth:].mean()), float(energy[:fifth].mean())
    if loud <= 0:
        return 0.0
    quiet = max(quiet, loud * 1e-6)
    return float(np.clip(10.0 * np.log10(loud / quiet), 0.0, 60.0))


def frame_flatness(power: np.ndarray) -> np.ndarray:
    """Spectral flatness (geometric / arithmetic mean power) of each frame, 0..1."""
    if power.size == 0:
        return np.ones(1)
    p = power.astype(np.float64) + 1e-20
    geometric = np.exp(np.mean(np.log(p), axis=0))
    return np.asarray(np.clip(geometric / np.mean(p, axis=0), 0.0, 1.0))


def harmonicity(flatness: np.ndarray) -> float:
    """0 for broadband noise (flatness near 1) to 1 for tones and harmonic stacks.

    Mean flatness in dB: white noise sits near -2.5 dB, a whistle or a harmonic stack below
    -25 dB; the scale is linear between 0 and -25 dB.
    """
    flatness_db = 10.0 * np.log10(np.maximum(flatness, 1e-12))
    return float(np.clip(-np.mean(flatness_db) / 25.0, 0.0, 1.0))


def clipping_penalty(audio: DecodedAudio) -> float:
    """0 for an unclipped clip, rising with the share of samples at full scale (max 0.5)."""
    if not audio.clipped:
        return 0.0
    head = audio.samples[: int(MAX_SECONDS * audio.sample_rate)]
    share = float(np.mean(np.abs(head) >= CLIP_LEVEL))
    return float(min(0.5, 0.05 + 20.0 * share))


def clarity_score(snr_db: float, harmonic_ratio: float, flatness: float, penalty: float) -> float:
    """0..1: SNR (saturating at 40 dB) 40 %, harmonic share 30 %, tonality 30 %, minus clipping."""
    score = 0.4 * min(snr_db, 40.0) / 40.0 + 0.3 * harmonic_ratio + 0.3 * (1.0 - flatness)
    return float(np.clip(score - penalty, 0.0, 1.0))


def dominant_band(power: np.ndarray, freqs: np.ndarray) -> tuple[float, tuple[float, float]]:
    """(peak frequency, (low, high)): where the sound stands above the clip's background.

    The background is the mean spectrum of the quietest tenth of the frames; what the louder
    frames add to it is the vocalisation. A stationary sound (no quiet frames) falls back to the
    plain mean spectrum. The band is the contiguous region within 10 dB of the peak.
    """
    f, profile = _call_profile(power, freqs)
    if profile.size == 0:
        return 0.0, (0.0, 0.0)
    spacing = float(f[1] - f[0]) if f.size > 1 else 1.0
    width = max(1, round(100.0 / spacing))
    smooth = np.convolve(profile, np.ones(width) / width, mode="same") if width > 1 else profile
    k = int(np.argmax(smooth))
    if smooth[k] <= 0:
        return 0.0, (0.0, 0.0)
    floor = smooth[k] * 0.1
    lo = k
    while lo > 0 and smooth[lo - 1] >= floor:
        lo -= 1
    hi = k
    while hi < smooth.size - 1 and smooth[hi + 1] >= floor:
        hi += 1
    peak_hz = _parabolic_peak(profile, f, int(np.argmax(profile[lo : hi + 1])) + lo)
    return peak_hz, (float(f[lo] - spacing / 2), float(f[hi] + spacing / 2))


def _call_profile(power: np.ndarray, freqs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(usable freqs, the spectrum the louder half of the frames adds to the quietest tenth):
    the vocalisation without the recording's steady background.

    Usable: from LOWEST_HZ up to TOP_GUARD of Nyquist. Steady narrow lines (a recorder's whine,
    which near Nyquist beats with its own alias and so seems to come and go) are left out too,
    unless they are all there is.
    """
    nyquist = float(freqs[-1]) if freqs.size else 0.0
    usable = freqs >= LOWEST_HZ
    p, f = power[usable].astype(np.float64), freqs[usable]
    if p.size == 0:
        return f, np.empty(0)
    left_out = steady_lines(p, f) | (f > TOP_GUARD * nyquist)
    if left_out.any() and not left_out.all():
        rest = p[~left_out]
        if rest.mean(axis=1).sum() > REST_SHARE * p.mean(axis=1).sum():
            profile = np.zeros(f.size)
            profile[~left_out] = _profile(rest)
            return f, profile
    return f, _profile(p)


def steady_lines(power: np.ndarray, freqs: np.ndarray) -> np.ndarray:
    """Bins (and their leakage) of steady narrow lines: a bin whose median power stands
    LINE_PROMINENCE above its neighbourhood's and which seldom bursts above its own median."""
    if power.shape[1] < 4 or freqs.size < 8:
        return np.zeros(freqs.size, dtype=bool)
    median = np.median(power, axis=1)
    spacing = float(freqs[1] - freqs[0])
    half = max(3, round(LINE_NEIGHBOURHOOD_HZ / spacing / 2))
    padded = np.pad(median, half, mode="edge")
    windows = np.lib.stride_tricks.sliding_window_view(padded, 2 * half + 1)
    floor = np.median(windows, axis=1)
    prominent = median > LINE_PROMINENCE * np.maximum(floor, 1e-30)
    bursts = np.mean(power > LINE_BURST * median[:, None], axis=1)
    core = prominent & (bursts < LINE_BURST_SHARE)
    leakage = np.convolve(core.astype(float), np.ones(7), mode="same") > 0  # Hann main lobe
    return np.asarray(leakage, dtype=bool)


def _profile(p: np.ndarray) -> np.ndarray:
    energy = p.sum(axis=0)
    order = np.argsort(energy)
    tenth = max(1, energy.size // 10)
    background = p[:, order[:tenth]].mean(axis=1)
    loud = order[energy[order] > np.percentile(energy, 50)] if energy.size > 1 else order
    profile = np.maximum(p[:, loud].mean(axis=1) - background, 0.0) if loud.size else background
    if profile.sum() < 0.05 * p.mean(axis=1).sum():
        profile = p.mean(axis=1)
    return np.asarray(profile)


def _parabolic_peak(profile: np.ndarray, f: np.ndarray, k: int) -> float:
    if 0 < k < profile.size - 1:
        a, b, c = np.log(profile[k - 1 : k + 2] + 1e-30)
        denominator = a - 2 * b + c
        if denominator < 0:
            shift = 0.5 * (a - c) / denominator
            return float(f[k] + shift * (f[1] - f[0]))
    return float(f[k])


def segmentation_band(dominant: tuple[float, float], nyquist: float) -> tuple[float, float]:
    """The dominant band widened (calls glide beyond it), at least an octave wide."""
    low, high = dominant
    if high <= 0:
        return (CLARITY_BAND_HZ[0], min(CLARITY_BAND_HZ[1], nyquist * 0.98))
    low, high = max(LOWEST_HZ, low / 1.4), min(nyquist * 0.98, high * 1.4)
    centre = np.sqrt(low * high)
    if high / low < 2.0:
        low, high = max(LOWEST_HZ, centre / 1.414), min(nyquist * 0.98, centre * 1.414)
    return float(low), float(high)


def syllables(y: np.ndarray, rate: int, band: tuple[float, float]) -> list[tuple[float, float]]:
    """(start, end) seconds of the calls: runs of band energy above an adaptive threshold.

    The threshold lies halfway (in dB) between the background (10th percentile) and the loudest
    part, but never more than 30 dB under the loudest; gaps under 15 ms are bridged and runs
    under 15 ms dropped.
    """
    step = 0.001
    env = dsp.band_envelope_db(y, rate, band, step)
    if env.size == 0:
        return []
    loudest = float(np.percentile(env, 99.9))
    background = max(float(np.percentile(env, 10)), loudest - 100.0)
    if loudest - background < 6.0:  # no call stands out: one stationary sound
        return [(0.0, round(y.size / rate, 4))]
    threshold = max(background + 0.5 * (loudest - background), loudest - 30.0)
    runs = dsp.runs_above(env > threshold)
    merged: list[list[int]] = []
    for start, stop in runs:
        if merged and start - merged[-1][1] < 15:
            merged[-1][1] = stop
        else:
            merged.append([start, stop])
    return [(round(a * step, 4), round(b * step, 4)) for a, b in merged if b - a >= 15]


def _frames_in(times: np.ndarray, segments: list[tuple[float, float]]) -> np.ndarray:
    active = np.zeros(times.size, dtype=bool)
    for start, end in segments:
        active |= (times >= start) & (times <= end)
    return active
