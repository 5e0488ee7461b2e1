"""The frequency contour of each call, and its modulation pattern.

Option text in BAGEL's "Modulation pattern" items names a shape: a rising or falling glide, a
flat whistle, an up-down (arched) note, or a trill (a fast series of short notes, alike and
close together). The contour is the peak frequency of each analysis frame inside a call, on a log
(octave) scale, so a glide of a given musical interval looks the same at 2 kHz and at 8 kHz; an
arch in it is checked against the call's strongest ridge (followed from its loudest cell), since
the loudest bin hops between a call's components.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bagel_studio.core.lazy import lazy_import

ndimage = lazy_import("scipy.ndimage")

RIDGE_DB = 25.0  # a call's ridge is followed while it stays within this of its loudest cell
LOBE_DB = 10.0  # a spectral peak's lobe: the bins falling away from it within this
GLIDE_OCTAVES = 0.1  # net change that makes a call rising or falling
ARCH_OCTAVES = 0.15  # rise above both ends that makes a call up-down
TRILL_ONSET_S = 0.15  # calls repeated faster than this (and short) form a trill
TRILL_NOTE_S = 0.1
TRILL_MIN_NOTES = 4
TRILL_DUTY = 0.25  # and sound a quarter of the time at least: a bat's pulses, a few ms every
# 50-100 ms, are a train of sweeps, each with its own shape, not a trill
TRILL_ALIKE = 2.0  # and alike: the middle half of the notes' lengths within this factor


CONTOUR_WINDOWS = 4  # a call's track is read in frames this many times shorter than it...
CONTOUR_HOP_DIVISOR = 4  # ...a quarter of a frame apart...
CONTOUR_CYCLES = 8.0  # ...each holding this many cycles of the band's centre at least


def contour_frame_size(
    rate: int, segments: list[tuple[float, float]], band: tuple[float, float], n_fft: int
) -> int:
    """The frame (samples) the calls' tracks are read in: ``n_fft`` (the calls' spectrogram)
    when CONTOUR_WINDOWS of its frames fit in the typical (median) call, else the power of two
    nearest a CONTOUR_WINDOWS-th of that call, CONTOUR_CYCLES cycles of the band's centre at
    least. A bat's 1 ms pulse in the 0.7 ms frames its spectrum is read in is a few frames,
    each a blur of its components: the loudest bin hops from one to the next, and the track
    says nothing of how each sweeps."""
    lengths = [b - a for a, b in segments]
    if not lengths:
        return n_fft
    typical = float(np.median(lengths)) * rate
    if typical >= CONTOUR_WINDOWS * n_fft:
        return n_fft
    centre = float(np.sqrt(max(band[0], 1.0) * max(band[1], 1.0)))
    wanted = max(CONTOUR_CYCLES * rate / centre, typical / CONTOUR_WINDOWS, 16.0)
    return min(n_fft, int(2 ** round(np.log2(wanted))))


@dataclass(frozen=True)
class Contour:
    """One call's log2 frequency tracks: its loudest bin in each frame (``peak``: how the sound
    as a whole moves, a broad chirp's energy sliding down) and its strongest ridge (``ridge``:
    one component followed through, see ``ridge``)."""

    peak: np.ndarray
    ridge: np.ndarray


def peak_contours(
    power: np.ndarray, freqs: np.ndarray, times: np.ndarray, segments: list[tuple[float, float]]
) -> list[Contour]:
    """The tracks of each segment (frames inside it; may be empty)."""
    if power.size == 0 or freqs.size == 0:
        return [Contour(np.empty(0), np.empty(0)) for _ in segments]
    log_freqs = np.log2(np.maximum(freqs, 1.0))
    track = log_freqs[np.argmax(power, axis=0)]
    contours = []
    for start, end in segments:
        inside = np.flatnonzero((times >= start) & (times <= end))
        bins = ridge(power[:, inside]) if inside.size else []
        contours.append(Contour(track[inside], log_freqs[np.asarray(bins, dtype=int)]))
    return contours


def ridge(power: np.ndarray) -> list[int]:
    """The bins of the strongest ridge of one call's spectrogram (bins x frames), frame by
    frame: from the loudest cell forward and back, each frame's peak whose lobe (the bins
    falling away from it, within LOBE_DB) shares a bin with the previous frame's, while it
    stays within RIDGE_DB of the loudest cell. A call of two components (a bat's pulse of two
    overlapping sweeps, a note and its harmonic) is read along one of them: the loudest bin
    hopping from one to the other is no glide. A steep sweep in long frames stays one ridge,
    its lobes smeared wide enough to overlap."""
    if power.shape[1] == 0:
        return []
    loudest = float(power.max())
    if loudest <= 0:
        return list(np.argmax(power, axis=0))
    first, bin_ = np.unravel_index(int(np.argmax(power)), power.shape)[::-1]
    floor = loudest * 10 ** (-RIDGE_DB / 10)
    track = {int(first): int(bin_)}
    for step in (1, -1):
        frame, lobe = int(first), _lobe(power[:, int(first)], int(bin_))
        while 0 <= frame + step < power.shape[1]:
            frame += step
            column = power[:, frame]
            peaks = [
                b for b in _peaks(column) if column[b] >= floor and _overlap(_lobe(column, b), lobe)
            ]
            if not peaks:
                break
            best = max(peaks, key=lambda b: float(column[b]))
            track[frame] = best
            lobe = _lobe(column, best)
    return [track[frame] for frame in sorted(track)]


def _peaks(column: np.ndarray) -> list[int]:
    """The local maxima of one frame's spectrum."""
    if column.size < 3:
        return [int(np.argmax(column))]
    inner = np.flatnonzero((column[1:-1] >= column[:-2]) & (column[1:-1] > column[2:])) + 1
    ends = [b for b in (0, column.size - 1) if column[b] >= column[1 if b == 0 else b - 1]]
    return [*ends, *(int(b) for b in inner)]


def _lobe(column: np.ndarray, peak: int) -> tuple[int, int]:
    """(first, last) bin of the peak's lobe: the bins falling away from it within LOBE_DB."""
    level = column[peak] * 10 ** (-LOBE_DB / 10)
    low = high = peak
    while low > 0 and level <= column[low - 1] <= column[low]:
        low -= 1
    while high < column.size - 1 and level <= column[high + 1] <= column[high]:
        high += 1
    return low, high


def _overlap(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return a[0] <= b[1] and b[0] <= a[1]


def classify_modulation(contours: list[Contour], segments: list[tuple[float, float]]) -> str | None:
    """The calls' pattern: "trill", else the shape most of their duration has; None without
    calls."""
    if not segments:
        return None
    if _is_trill(segments):
        return "trill"
    return calls_shape(contours, segments)


def calls_shape(contours: list[Contour], segments: list[tuple[float, float]]) -> str | None:
    """The shape most of the calls' duration has (rising, falling, flat, up-down), whether or
    not they form a trill (a junco's trill is of falling notes); None without calls."""
    votes: dict[str, float] = {}
    for contour, (start, end) in zip(contours, segments, strict=True):
        shape = contour_shape(contour)
        if shape is not None:
            votes[shape] = votes.get(shape, 0.0) + end - start
    if not votes:
        return None
    return max(votes, key=lambda shape: votes[shape])


def contour_shape(contour: Contour) -> str | None:
    """One call's shape: its loudest bin's track's, unless that track arches (or dips, or
    glides the other way) where the strongest ridge glides one way: the loudest bin hopping
    from one component to another that starts later and higher (a bat's pulse of two or three
    overlapping downward sweeps, the lower loudest first) is no arch and no rise."""
    shape = call_shape(contour.peak)
    if shape in ("up-down", "down-up", "rising", "falling"):
        along = call_shape(contour.ridge)
        if along in ("rising", "falling"):
            return along
    return shape


def call_shape(contour: np.ndarray) -> str | None:
    """One call's shape from its log2 contour (>= 3 frames): rising, falling, flat, up-down."""
    if contour.size < 3:
        return None
    smooth = ndimage.median_filter(contour, size=min(5, contour.size | 1), mode="nearest")
    quarter = max(1, smooth.size // 4)
    start = float(np.median(smooth[:quarter]))
    end = float(np.median(smooth[-quarter:]))
    middle = smooth[quarter:-quarter] if smooth.size > 2 * quarter else smooth
    top = float(np.max(middle))
    if top - start > ARCH_OCTAVES and top - end > ARCH_OCTAVES:
        return "up-down"
    change = end - start
    if change > GLIDE_OCTAVES:
        return "rising"
    if change < -GLIDE_OCTAVES:
        return "falling"
    return "flat"


def _is_trill(segments: list[tuple[float, float]]) -> bool:
    if len(segments) < TRILL_MIN_NOTES:
        return False
    onsets = np.array([s for s, _ in segments])
    durations = np.array([e - s for s, e in segments])
    interval, note = float(np.median(np.diff(onsets))), float(np.median(durations))
    short, long = np.percentile(durations, [25.0, 75.0])
    alike = long <= TRILL_ALIKE * short
    return (
        interval < TRILL_ONSET_S and note < TRILL_NOTE_S and note >= TRILL_DUTY * interval and alike
    )
