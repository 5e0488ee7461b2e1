"""The paper's audio pipeline, reproduced: what a clip measures, and how clear it is.

BAGEL analysed each Xeno-canto clip at 16 kHz (at the file's own rate here when the energy lies
above 8 kHz, so high and ultrasonic calls are not filtered away), over its first 30 s; clips
shorter than 5 s or with a peak below 0.1 were dropped, and a clarity score combined a
band-limited SNR (0.5-10 kHz), the harmonic share of a harmonic/percussive separation, the mean
spectral flatness and a clipping penalty. The paper names these ingredients but not their weights;
the weights below are ours and are part of ``ANALYSIS_VERSION``, which keys the cached results.

The acoustic measurements (dominant band, syllable durations, harmonicity, modulation) are what
option text claims about a species' sound, so that ``claims.py`` can compare the two. The paper
measured them at 16 kHz too, with 32 ms frames, which loses a bat's 1 ms pulses and merges an
insect's 10 ms notes: here the calls are measured at the rate and resolution that hold them
(``bands`` finds their band and rate, ``calls`` times them), 16 kHz for most birds.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from bagel_studio.core.audio import bands, calls, dsp
from bagel_studio.core.audio.contour import (
    CONTOUR_HOP_DIVISOR,
    Contour,
    calls_shape,
    classify_modulation,
    contour_frame_size,
    peak_contours,
)
from bagel_studio.core.audio.decode import CLIP_LEVEL, DecodedAudio
from bagel_studio.core.audio.limits import MIN_DURATION_S, MIN_PEAK

# 2: steady narrow lines and the top edge of the band left out; 3: a file holding fewer frames
# than its header announces no longer gets its peak, clipping and length from unwritten memory
# 4: calls found at the band, rate and energy window they need (bat pulses to owl hoots), the
# dominant band from their spectrum against the one between them; 5: phrases (calls close
# together) measured too, trills' notes alike; 6: calls looked for, and their band's peak
# chosen, where sound stands out of its own floor (wind holds more energy than a chirp but
# stands out less), a call's arch checked against its strongest ridge (a bat's pulse of two
# sweeps falls), the shape of a trill's notes and where each call starts measured too; 7: no
# energy window reads the noise's mean far under the others' (between a recorder's clicks),
# a call's shape read in frames short against it, its ridge's glide over a loudest bin's
# stepping the other way between components; 8: a call of noise (a click's ringing, a hand on
# the detector) gets no shape
ANALYSIS_VERSION = "8"
ANALYSIS_RATE = 16_000
MAX_SECONDS = 30.0
CLARITY_BAND_HZ = (500.0, 10_000.0)
HIGH_BAND_HZ = 8_000.0  # energy mostly above this: analyse at the file's own rate
PHRASE_GAP_S = 0.3  # calls closer than this make one phrase
BROADBAND_BELOW = 0.25  # harmonicity under this: noise, whose peak-frequency track means nothing


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
    call_rate: int = ANALYSIS_RATE  # the rate the calls were measured at (see ``calls``)
    call_window_s: float = 0.0  # the energy window their durations were read at
    phrase_durations_s: tuple[float, ...] = ()  # calls close together joined (``phrases``)
    call_modulation: str | None = None  # each call's shape, a trill's notes too (never "trill")
    syllable_starts_s: tuple[float, ...] = ()  # where each call starts (seconds)

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["dominant_band_hz"] = list(self.dominant_band_hz)
        data["syllable_durations_s"] = list(self.syllable_durations_s)
        data["phrase_durations_s"] = list(self.phrase_durations_s)
        data["syllable_starts_s"] = list(self.syllable_starts_s)
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Measurement:
        values = dict(data)
        values["dominant_band_hz"] = tuple(float(v) for v in values["dominant_band_hz"])
        values["syllable_durations_s"] = tuple(float(v) for v in values["syllable_durations_s"])
        values["phrase_durations_s"] = tuple(float(v) for v in values.get("phrase_durations_s", ()))
        values["syllable_starts_s"] = tuple(float(v) for v in values.get("syllable_starts_s", ()))
        names = cls.__dataclass_fields__
        return cls(**{k: v for k, v in values.items() if k in names})


def import_analysis() -> None:
    """Import now what ``measure`` imports on its first call (scipy's signal, ndimage and special:
    about a second of a core's time): the desk does it on a worker ahead of the first clip a
    curator opens, where it slowed the first spectrogram's drawing on the UI thread."""
    for module in (dsp.signal, dsp.ndimage, bands.ndimage, calls.special):
        module.load()


def measure(audio: DecodedAudio) -> Measurement:
    """Run the pipeline on ``audio`` (seconds of CPU for 30 s: call it off the UI thread)."""
    rate = audio.sample_rate
    head = audio.mono(int(MAX_SECONDS * rate))
    looked = bands.survey(head, rate)
    analysis_rate = choose_analysis_rate(looked.freqs, looked.profile, rate)
    y = dsp.resample(head, rate, analysis_rate)
    n_fft = dsp.analysis_fft_size(analysis_rate)
    power = dsp.stft_power(y, n_fft, n_fft // 4)
    freqs = np.fft.rfftfreq(n_fft, 1.0 / analysis_rate)
    nyquist = analysis_rate / 2
    high = analysis_rate > ANALYSIS_RATE
    band = (CLARITY_BAND_HZ[0], nyquist * 0.98 if high else min(CLARITY_BAND_HZ[1], nyquist))
    in_band = (freqs >= band[0]) & (freqs <= band[1])

    snr_db = band_snr_db(power[in_band])
    harmonic_ratio = dsp.hpss_harmonic_fraction(np.sqrt(power[in_band]))
    flatness = frame_flatness(power[in_band])
    penalty = clipping_penalty(audio)
    clarity = clarity_score(snr_db, harmonic_ratio, float(np.mean(flatness)), penalty)

    sound = _measure_calls(head, rate, y, analysis_rate, looked)
    timed = sound.timed
    durations = tuple(round(b - a, 6) for a, b in timed)
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
        dominant_band_hz=(round(sound.band[0], 1), round(sound.band[1], 1)),
        peak_freq_hz=round(sound.peak_hz, 1),
        syllable_durations_s=durations,
        syllable_median_s=round(float(np.median(durations)), 6) if durations else None,
        syllable_min_s=min(durations) if durations else None,
        syllable_max_s=max(durations) if durations else None,
        harmonicity=round(sound.tonal, 4),
        modulation=sound.modulation,
        call_rate=sound.rate,
        call_window_s=round(sound.window_s, 7),
        phrase_durations_s=tuple(round(b - a, 6) for a, b in sound.phrases),
        call_modulation=sound.call_modulation,
        syllable_starts_s=tuple(round(a, 6) for a, _ in timed),
    )


@dataclass(frozen=True)
class _Sound:
    """What the calls measure (see ``calls``)."""

    rate: int
    window_s: float
    timed: list[tuple[float, float]]
    phrases: list[tuple[float, float]]
    band: tuple[float, float]
    peak_hz: float
    tonal: float
    modulation: str | None
    call_modulation: str | None


def _measure_calls(
    head: np.ndarray,
    rate: int,
    y: np.ndarray,
    analysis_rate: int,
    looked: bands.Survey,
) -> _Sound:
    """The calls' durations, band, harmonicity and modulation, at the rate that holds them:
    looked for where sound rises furthest above its floor (``Survey.contrast``)."""
    stationary = looked.stationary
    low, high, _ = bands.band_around_peak(
        looked.freqs,
        looked.profile,
        bands.SURVEY_SPAN_DB,
        bands.loud_peak(looked.profile, looked.contrast),
    )
    band = bands.analysis_band(low, high, rate) if high > 0 else CLARITY_BAND_HZ
    call_rate = bands.call_rate(rate, band, ANALYSIS_RATE)
    x = y if call_rate == analysis_rate else dsp.resample(head, rate, call_rate)
    seconds = x.size / call_rate
    found = (
        calls.Calls(call_rate, band, MAX_SECONDS, ((0.0, seconds),), True)
        if stationary
        else calls.find_calls(x, call_rate, band)
    )
    segments = list(found.segments)
    complete = [s for s in segments if s[0] > 0.0 and s[1] < seconds - 1e-3]
    timed = complete or segments
    n_fft = bands.frame_size(call_rate, found.segments, found.band_hz)
    hop = max(1, n_fft // 2)
    power = dsp.stft_power(x, n_fft, hop)
    freqs = np.fft.rfftfreq(n_fft, 1.0 / call_rate)
    times = np.arange(power.shape[1]) * hop / call_rate
    usable = freqs >= bands.LOWEST_HZ
    usable[usable] = bands.below_guard(freqs[usable], power[usable].mean(axis=1), call_rate)
    f = freqs[usable]
    contrast: np.ndarray | None = None
    if found.stationary:  # the clip as it is: one steady sound
        spectrum = np.asarray(power[usable].mean(axis=1))
    elif segments:
        spectrum, contrast = bands.calls_spectrum(
            power[usable], f, times, found.segments, n_fft / call_rate
        )
    else:  # nothing stands out as a call: what comes and goes, from the survey
        f, spectrum, contrast = looked.freqs, looked.profile, looked.contrast
    peak_bin = None if contrast is None else bands.dominant_peak(spectrum, contrast)
    low, high, _ = bands.band_around_peak(f, spectrum, bands.DOMINANT_DB, peak_bin)
    inside = np.flatnonzero((f >= low) & (f <= high))
    peak = int(inside[np.argmax(spectrum[inside])]) if inside.size else 0
    peak_hz = _parabolic_peak(spectrum, f, peak) if high > 0 else 0.0
    tonal_band = bands.tonal_band((low, high), call_rate / 2)
    in_band = (freqs >= tonal_band[0]) & (freqs <= tonal_band[1])
    active = bands.frames_in(times, found.segments)
    flat = frame_flatness(power[in_band][:, active] if active.any() else power[in_band])
    tonal = harmonicity(flat)
    contours = _contours(x, call_rate, timed, tonal_band, (power, freqs, times, n_fft))
    tonal_enough = tonal >= BROADBAND_BELOW
    modulation = classify_modulation(contours, timed) if tonal_enough else None
    call_modulation = calls_shape(contours, timed) if tonal_enough else None
    whole = [p for p in phrases(segments) if p[0] > 0.0 and p[1] < seconds - 1e-3]
    return _Sound(
        call_rate,
        found.window_s,
        timed,
        whole or phrases(segments),
        (low, high),
        peak_hz,
        tonal,
        modulation,
        call_modulation,
    )


def _contours(
    x: np.ndarray,
    rate: int,
    timed: list[tuple[float, float]],
    band: tuple[float, float],
    spectrogram: tuple[np.ndarray, np.ndarray, np.ndarray, int],
) -> list[Contour]:
    """The calls' frequency tracks in ``band``: from the calls' spectrogram when its frames
    are short against a typical call, else from frames that are (``contour_frame_size``), a
    quarter of one apart, around each call alone (a clip's worth of such frames would hold
    hundreds of megabytes). A call of noise (a click's ringing, a burst of wind: harmonicity
    under BROADBAND_BELOW) gets no track: its loudest bin wanders and says nothing of a shape."""
    power, freqs, times, n_fft = spectrogram
    n_contour = contour_frame_size(rate, timed, band, n_fft)
    if n_contour >= n_fft:
        in_band = (freqs >= band[0]) & (freqs <= band[1])
        calls_power = power[in_band]
        tracks = peak_contours(calls_power, freqs[in_band], times, timed)
        pairs = zip(tracks, timed, strict=True)
        return [_tonal(track, calls_power, times, call) for track, call in pairs]
    hop = max(1, n_contour // CONTOUR_HOP_DIVISOR)
    freqs = np.fft.rfftfreq(n_contour, 1.0 / rate)
    in_band = (freqs >= band[0]) & (freqs <= band[1])
    contours = []
    for call in timed:
        first = max(0, int(call[0] * rate) - n_contour) // hop * hop  # on the clip's frame grid
        piece = dsp.stft_power(x[first : int(call[1] * rate) + n_contour], n_contour, hop)[in_band]
        at = (first + np.arange(piece.shape[1]) * hop) / rate
        [track] = peak_contours(piece, freqs[in_band], at, [call])
        contours.append(_tonal(track, piece, at, call))
    return contours


def _tonal(
    track: Contour, power: np.ndarray, times: np.ndarray, call: tuple[float, float]
) -> Contour:
    """``track``, or none when the call's frames in ``power`` are noise (harmonicity under
    BROADBAND_BELOW)."""
    inside = (times >= call[0]) & (times <= call[1])
    if inside.any() and harmonicity(frame_flatness(power[:, inside])) < BROADBAND_BELOW:
        return Contour(np.empty(0), np.empty(0))
    return track


def phrases(segments: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """The calls joined into phrases (a song, a trill, a call series) across the gaps shorter
    than PHRASE_GAP_S: the notes of a song or a trill follow each other closer than that, songs
    and lone calls (an owl's hoots) are further apart. A call standing alone is a phrase."""
    if len(segments) < 2:
        return list(segments)
    joined = [segments[0]]
    for start, end in segments[1:]:
        if start - joined[-1][1] < PHRASE_GAP_S:
            joined[-1] = (joined[-1][0], end)
        else:
            joined.append((start, end))
    return joined


def choose_analysis_rate(freqs: np.ndarray, profile: np.ndarray, rate: int) -> int:
    """16 kHz, or the file's own rate when most of the energy that comes and goes (the survey's
    profile: the call, not the background) lies above 8 kHz."""
    if rate <= ANALYSIS_RATE or profile.size == 0:
        return ANALYSIS_RATE
    total = float(profile.sum())
    above = float(profile[freqs > HIGH_BAND_HZ].sum())
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


def _parabolic_peak(profile: np.ndarray, f: np.ndarray, k: int) -> float:
    if 0 < k < profile.size - 1:
        a, b, c = np.log(profile[k - 1 : k + 2] + 1e-30)
        denominator = a - 2 * b + c
        if denominator < 0:
            shift = 0.5 * (a - c) / denominator
            return float(f[k] + shift * (f[1] - f[0]))
    return float(f[k])
