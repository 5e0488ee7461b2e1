"""The frequency contour of each call, and its modulation pattern.

Option text in BAGEL's "Modulation pattern" items names a shape: a rising or falling glide, a
flat whistle, an up-down (arched) note, or a trill (a fast series of short notes, alike and
close together). The contour is the peak frequency of each analysis frame inside a call, on a log
(octave) scale, so a glide of a given musical interval looks the same at 2 kHz and at 8 kHz.
"""

from __future__ import annotations

import numpy as np

from bagel_studio.core.lazy import lazy_import

ndimage = lazy_import("scipy.ndimage")

GLIDE_OCTAVES = 0.1  # net change that makes a call rising or falling
ARCH_OCTAVES = 0.15  # rise above both ends that makes a call up-down
TRILL_ONSET_S = 0.15  # calls repeated faster than this (and short) form a trill
TRILL_NOTE_S = 0.1
TRILL_MIN_NOTES = 4
TRILL_DUTY = 0.25  # and sound a quarter of the time at least: a bat's pulses, a few ms every
# 50-100 ms, are a train of sweeps, each with its own shape, not a trill
TRILL_ALIKE = 2.0  # and alike: the middle half of the notes' lengths within this factor


def peak_contours(
    power: np.ndarray, freqs: np.ndarray, times: np.ndarray, segments: list[tuple[float, float]]
) -> list[np.ndarray]:
    """The log2 peak-frequency track of each segment (frames inside it; may be empty)."""
    if power.size == 0 or freqs.size == 0:
        return [np.empty(0) for _ in segments]
    peak_bins = np.argmax(power, axis=0)
    track = np.log2(np.maximum(freqs[peak_bins], 1.0))
    contours = []
    for start, end in segments:
        inside = (times >= start) & (times <= end)
        contours.append(track[inside])
    return contours


def classify_modulation(
    contours: list[np.ndarray], segments: list[tuple[float, float]]
) -> str | None:
    """The calls' pattern: "trill", else the shape most of their duration has; None without
    calls."""
    if not segments:
        return None
    if _is_trill(segments):
        return "trill"
    votes: dict[str, float] = {}
    for contour, (start, end) in zip(contours, segments, strict=True):
        shape = call_shape(contour)
        if shape is not None:
            votes[shape] = votes.get(shape, 0.0) + end - start
    if not votes:
        return None
    return max(votes, key=lambda shape: votes[shape])


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
