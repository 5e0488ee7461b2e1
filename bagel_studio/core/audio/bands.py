"""Where a clip's calls lie in frequency: the band to look for them in, and the band they hold.

A recorder's hiss, hum or whine stays at its level; a call comes and goes. So each frequency's
noise floor is read from its own quiet moments (a low quantile of its power over time), and the
band of the calls is where energy rises above that floor: first in a survey of the whole clip
(``survey``, to choose where and at what rate to look for calls), then in the calls themselves
against the time between them (``calls_spectrum``, for the dominant band a claim is compared
with). A sound's partials lie within an octave of one another, so a band grows across gaps
narrower than that (``band_around_peak``): an owl's hoot and its second harmonic are one band.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bagel_studio.core.audio import dsp
from bagel_studio.core.lazy import lazy_import

ndimage = lazy_import("scipy.ndimage")

LOWEST_HZ = 150.0  # below this lies rumble, wind and handling noise, not calls
TOP_GUARD = 0.97  # above this share of Nyquist lie converter artefacts...
REST_SHARE = 1e-4  # ...unless what lies under it holds less than this (-40 dB)
SURVEY_FFT = 512
FLOOR_QUANTILE = 0.2  # a bin's noise floor: this quantile of its power over time...
FLOOR_SCALE = 1.0 / 0.2231  # ...over the same quantile of noise power (exponential: -ln 0.8)
ACTIVE_DB = 5.0  # survey cells this far above their floor (after 3x3 smoothing) hold a sound
COMING_SHARE = 1e-3  # what comes and goes holds this share of the energy, or the clip is one
# steady sound (the few cells of noise alone that pass ACTIVE_DB hold far less)
NEIGHBOURS_OCTAVES = 1 / 3  # a bin's contrast is read against the highest floor this near
SURVEY_SPAN_DB = 20.0  # the survey band: what lies within this of the peak (where sound
# stands out of its floor most)
DOMINANT_DB = 10.0  # the dominant band: the calls' energy within this of the peak
LOUD_SPAN_DB = 20.0  # the calls' peak: where they stand out most, among bins this loud...
CONTRAST_SPAN_DB = 20.0  # ...the band's: the loudest of those standing out this near the most
WIDEN = 1.2  # the analysis band: the survey band widened by this factor at each end
CALL_FRAME_FRACTION = 0.5  # frames for the calls' spectrum: this share of the shorter calls...
MAX_FRAME_S = 0.032  # ...at most the paper's 32 ms
FRAME_CYCLES = 8.0  # ...and at least this many cycles of the band's centre


def noise_floor(power: np.ndarray) -> np.ndarray:
    """Each row's noise power: a low quantile of it over time scaled to the mean of noise alone
    (the power of noise in a spectrogram cell is exponentially distributed), so calls filling up
    to three quarters of the time leave it alone."""
    if power.shape[1] == 0:
        return np.full(power.shape[0], 1e-30)
    k = int(FLOOR_QUANTILE * (power.shape[1] - 1))
    floor = np.partition(power, k, axis=1)[:, k] * FLOOR_SCALE
    return np.asarray(np.maximum(floor, 1e-30))


@dataclass(frozen=True)
class Survey:
    """What a first look at the whole clip finds (``survey``), per frequency bin.

    ``profile``: the energy that comes and goes above each bin's floor (where most of it lies
    chooses the analysis rate). ``contrast``: how far above its own floor each bin's sound
    rises, summed over time (floor-relative power): where the calls are looked for. Wind and
    handling noise on the microphone come and go too, with far more energy than a small bird's
    chirps, but rise a few dB over their own floor where a call rises tens of dB over its."""

    freqs: np.ndarray
    profile: np.ndarray
    contrast: np.ndarray
    stationary: bool  # nearly nothing comes and goes: profile and contrast are the mean spectrum


def survey(samples: np.ndarray, rate: int) -> Survey:
    """The energy that comes and goes above each bin's floor, and its contrast (``Survey``).

    ``stationary`` when nearly nothing does (a steady tone, a hum, noise alone): the profile is
    then the plain mean spectrum, so such a clip is still described by what it holds. The first
    and last frames, half outside the clip, are left out (the clip's start is not a call)."""
    n_fft = SURVEY_FFT
    power = dsp.stft_power(samples, n_fft, n_fft // 2)
    if power.shape[1] > 4:
        power = power[:, 1:-1]
    freqs = np.fft.rfftfreq(n_fft, 1.0 / rate)
    keep = freqs >= LOWEST_HZ
    power, freqs = power[keep], freqs[keep]
    if power.size == 0:
        return Survey(freqs, np.zeros(freqs.size), np.zeros(freqs.size), True)
    below = below_guard(freqs, power.mean(axis=1), rate)
    guarded = power[below]
    floor = noise_floor(guarded)
    ratio = ndimage.uniform_filter(guarded / floor[:, None], size=3, mode="nearest")
    active = ratio > 10 ** (ACTIVE_DB / 10)
    profile = np.zeros(freqs.size)
    contrast = np.zeros(freqs.size)
    excess = np.where(active, np.maximum(guarded - floor[:, None], 0.0), 0.0)
    profile[below] = excess.sum(axis=1)
    contrast[below] = excess.sum(axis=1) / neighbours_floor(freqs[below], floor)
    if profile.sum() < COMING_SHARE * power.sum():
        mean = np.where(below, power.mean(axis=1), 0.0)
        return Survey(freqs, mean, mean, True)
    return Survey(freqs, profile, contrast, False)


def loud_peak(profile: np.ndarray, contrast: np.ndarray) -> int | None:
    """Where the calls are: of the bins whose energy lies within LOUD_SPAN_DB of the loudest,
    the one whose sound stands out of its own floor most (both smoothed over three bins), or
    None without contrast. Wind holds more energy than a sparrow's chirps but stands out of
    its floor far less; a codec's rare bursts in a band it leaves empty stand out as much as
    a call but hold next to nothing."""
    if profile.size == 0 or contrast.max(initial=0.0) <= 0 or profile.max() <= 0:
        return None
    energy = ndimage.uniform_filter1d(profile, size=3, mode="nearest")
    stands = ndimage.uniform_filter1d(contrast, size=3, mode="nearest")
    loud = energy >= energy.max() * 10 ** (-LOUD_SPAN_DB / 10)
    return int(np.argmax(np.where(loud, stands, -1.0)))


def dominant_peak(profile: np.ndarray, contrast: np.ndarray) -> int | None:
    """Where the calls' energy peaks: the loudest of the bins near the loudest (LOUD_SPAN_DB)
    whose calls stand out of their floor within CONTRAST_SPAN_DB of those that stand out most,
    or None without contrast. A harmonic over a quieter floor stands out more than the note's
    fundamental but holds less; rumble holds more but stands out far less."""
    loudest = loud_peak(profile, contrast)
    if loudest is None:
        return None
    energy = ndimage.uniform_filter1d(profile, size=3, mode="nearest")
    stands = ndimage.uniform_filter1d(contrast, size=3, mode="nearest")
    loud = energy >= energy.max() * 10 ** (-LOUD_SPAN_DB / 10)
    standing = loud & (stands >= stands[loudest] * 10 ** (-CONTRAST_SPAN_DB / 10))
    return int(np.argmax(np.where(standing, energy, -1.0)))


def neighbours_floor(freqs: np.ndarray, floor: np.ndarray) -> np.ndarray:
    """Each bin's floor, or the highest within NEIGHBOURS_OCTAVES of it if higher: what a
    sound's contrast is read against. A codec's band that is empty most of the time has a
    floor far under its neighbours', and its rare bursts would otherwise stand out as loud as
    a call; noise floors of real recordings change smoothly over a third of an octave."""
    if freqs.size == 0:
        return np.asarray(floor)
    factor = 2.0**NEIGHBOURS_OCTAVES
    low = np.searchsorted(freqs, freqs / factor, side="left")
    high = np.searchsorted(freqs, freqs * factor, side="right")
    highest = np.array([floor[a:b].max() for a, b in zip(low, high, strict=True)])
    return np.asarray(np.maximum(np.maximum(floor, highest), 1e-30))


def below_guard(freqs: np.ndarray, spectrum: np.ndarray, rate: int) -> np.ndarray:
    """The bins under TOP_GUARD of Nyquist (above lie a converter's artefacts, energy pinned at
    the top), or all of them when what lies under holds next to nothing (a line up there is
    then all the clip has)."""
    below = freqs <= TOP_GUARD * rate / 2
    total = float(spectrum.sum())
    if total > 0 and float(spectrum[below].sum()) < REST_SHARE * total:
        return np.ones(freqs.size, dtype=bool)
    return np.asarray(below)


def band_around_peak(
    freqs: np.ndarray, profile: np.ndarray, span_db: float, peak: int | None = None
) -> tuple[float, float, int]:
    """(low, high, peak bin): the region within ``span_db`` of the profile at its peak (the
    highest bin, or the top of the hill ``peak`` stands on), grown across gaps narrower than an
    octave (a sound's partials lie within an octave of one another)."""
    if profile.size == 0 or profile.max() <= 0:
        return 0.0, 0.0, 0
    smooth = ndimage.uniform_filter1d(profile, size=3, mode="nearest")
    if peak is None or smooth[peak] <= 0:
        peak = int(np.argmax(smooth))
    while True:  # up to the top of the hill ``peak`` stands on
        step = max(
            (p for p in (peak - 1, peak + 1) if 0 <= p < smooth.size), key=smooth.__getitem__
        )
        if smooth[step] <= smooth[peak]:
            break
        peak = step
    inside = smooth >= smooth[peak] * 10 ** (-span_db / 10)
    lo = hi = peak
    while lo > 0 and inside[lo - 1]:
        lo -= 1
    while hi < inside.size - 1 and inside[hi + 1]:
        hi += 1
    grown = True
    while grown:
        grown = False
        above = np.flatnonzero(inside[hi + 1 :]) + hi + 1
        if above.size and freqs[above[0]] < 2.0 * max(freqs[hi], 1.0):
            hi = int(above[0])
            while hi < inside.size - 1 and inside[hi + 1]:
                hi += 1
            grown = True
        below = np.flatnonzero(inside[:lo])
        if below.size and freqs[below[-1]] > 0.5 * freqs[lo]:
            lo = int(below[-1])
            while lo > 0 and inside[lo - 1]:
                lo -= 1
            grown = True
    spacing = float(freqs[1] - freqs[0]) if freqs.size > 1 else 1.0
    return float(freqs[lo] - spacing / 2), float(freqs[hi] + spacing / 2), peak


def analysis_band(low: float, high: float, rate: int) -> tuple[float, float]:
    """The survey band widened (calls glide beyond it), within what the rate holds."""
    nyquist = rate / 2
    low, high = max(LOWEST_HZ, low / WIDEN), min(0.95 * nyquist, high * WIDEN)
    if high <= low * 1.2:  # a line too narrow to read the calls' timing from
        centre = np.sqrt(max(low, 1.0) * high)
        low, high = max(LOWEST_HZ, centre / 1.2), min(0.95 * nyquist, centre * 1.2)
    return float(low), float(high)


def tonal_band(dominant: tuple[float, float], nyquist: float) -> tuple[float, float]:
    """Where to judge how tonal the calls are: the dominant band widened (calls glide beyond
    it), an octave at least, so a whistle's line stands out of its surroundings."""
    low, high = max(LOWEST_HZ, dominant[0] / 1.4), min(0.98 * nyquist, dominant[1] * 1.4)
    if high <= low:
        return low, max(low, 0.98 * nyquist)
    centre = np.sqrt(low * high)
    if high / low < 2.0:
        low, high = max(LOWEST_HZ, centre / 1.414), min(0.98 * nyquist, centre * 1.414)
    return float(low), float(high)


def call_rate(rate: int, band: tuple[float, float], base_rate: int) -> int:
    """The lowest rate that holds ``band`` with room to spare: ``base_rate`` (the paper's 16 kHz)
    when it does, else the file's rate divided by the largest whole factor that does."""
    needed = band[1] / 0.45
    if base_rate <= rate and base_rate >= needed:
        return base_rate
    factor = max(1, int(rate // needed))
    while factor > 1 and rate % factor:
        factor -= 1
    return rate // factor


def frame_size(
    rate: int, segments: tuple[tuple[float, float], ...], band: tuple[float, float]
) -> int:
    """FFT size for the calls' spectrum: about half the shorter calls, at most 32 ms, at least
    enough cycles of the band's centre to resolve it (a power of two, 32 samples or more)."""
    lengths = [b - a for a, b in segments]
    short = float(np.percentile(lengths, 20)) if lengths else MAX_FRAME_S
    centre = np.sqrt(band[0] * band[1])
    seconds = min(MAX_FRAME_S, max(short * CALL_FRAME_FRACTION, FRAME_CYCLES / centre))
    return int(2 ** round(np.log2(max(32.0, seconds * rate))))


def calls_spectrum(
    power: np.ndarray,
    freqs: np.ndarray,
    times: np.ndarray,
    segments: tuple[tuple[float, float], ...],
    frame_s: float,
) -> tuple[np.ndarray, np.ndarray]:
    """(excess, contrast): the calls' mean power spectrum above the spectrum between them
    (frames clear of every call by half a frame; each bin's low quantile when there are too
    few), and that excess over the spectrum between them (how far the calls stand out)."""
    inside = frames_in(times, segments)
    if not inside.any():
        mean = np.asarray(power.mean(axis=1))
        return mean, mean
    clear = ~frames_in(times, segments, margin=frame_s)
    floor = power[:, clear].mean(axis=1) if clear.sum() >= 8 else noise_floor(power)
    excess = np.asarray(np.maximum(power[:, inside].mean(axis=1) - floor, 0.0))
    return excess, np.asarray(excess / neighbours_floor(freqs, floor))


def frames_in(
    times: np.ndarray, segments: tuple[tuple[float, float], ...], margin: float = 0.0
) -> np.ndarray:
    """Which of the frames at ``times`` fall within one of ``segments``, widened by ``margin`` on
    each side: the frames of the calls, left out where the noise floor is read between them."""
    inside = np.zeros(times.size, dtype=bool)
    for start, end in segments:
        inside |= (times >= start - margin) & (times <= end + margin)
    return inside
