"""Call shapes from the frequency tracks of a spectrogram (``contour``), on made-up spectrograms."""

from __future__ import annotations

import numpy as np

from bagel_studio.core.audio.contour import contour_frame_size, contour_shape, peak_contours, ridge


def _sweep(bins: int, frames: int, path: list[tuple[int, int, float]]) -> np.ndarray:
    """A spectrogram (bins x frames) of faint noise with one lobe (three bins) per (frame,
    centre bin, power) of ``path``."""
    power = np.full((bins, frames), 1e-6)
    for frame, centre, level in path:
        for offset, share in ((-1, 0.3), (0, 1.0), (1, 0.3)):
            power[centre + offset, frame] += level * share
    return power


def test_two_overlapping_downward_sweeps_fall() -> None:
    """A bat's pulse of two components, each sweeping down, the second starting later, higher
    and louder: the loudest bin runs 14, 13, 12, then hops to 20 and falls to 16 (an arch),
    while each component falls; the strongest ridge follows the louder one down."""
    first = [(frame, 14 - frame, 1.0) for frame in range(5)]  # bins 14..10, frames 0-4
    second = [(frame, 23 - frame, 2.0) for frame in range(3, 10)]  # bins 20..14, frames 3-9
    power = _sweep(32, 10, first + second)
    assert ridge(power) == [20, 19, 18, 17, 16, 15, 14]
    freqs = np.arange(32) * 6000.0
    [contour] = peak_contours(power, freqs, np.arange(10) * 1e-4, [(0.0, 0.001)])
    assert contour.peak.size == 10 and contour.ridge.size == 7
    assert contour_shape(contour) == "falling"


def test_a_steep_sweep_in_long_frames_stays_one_ridge() -> None:
    """A bird's steep sweep in long frames smears each frame's lobe wide: consecutive lobes
    overlap, so the ridge follows the sweep down the whole call."""
    power = np.full((64, 6), 1e-6)
    for frame, centre in enumerate((50, 44, 38, 32, 26, 20)):
        power[centre - 4 : centre + 5, frame] += np.hanning(11)[1:-1]
    assert ridge(power) == [50, 44, 38, 32, 26, 20]


def test_loudest_bin_stepping_up_between_falling_components_falls() -> None:
    """A pulse of two downward sweeps, the lower one louder and first: the loudest bin runs
    14 to 11, then steps up to the upper one (20 to 17), a rise; each component falls, and the
    strongest ridge follows the louder one down."""
    first = [(frame, 14 - frame, 2.0) for frame in range(5)]  # bins 14..10, frames 0-4
    second = [(frame, 23 - frame, 1.0) for frame in range(3, 10)]  # bins 20..14, frames 3-9
    power = _sweep(32, 10, first + second)
    freqs = np.arange(32) * 6000.0
    [contour] = peak_contours(power, freqs, np.arange(10) * 1e-4, [(0.0, 0.001)])
    assert contour.ridge.size == 5
    assert contour_shape(contour) == "falling"


def test_contour_frames_are_short_against_the_calls() -> None:
    """A bat's 1 ms pulses at 384 kHz, whose spectrum is read in 256-sample frames (0.67 ms),
    are tracked in frames a quarter of a pulse long (128 samples, a power of two); a thrush's
    quarter-second notes keep the frames their spectrum is read in."""
    pulses = [(0.1 * k, 0.1 * k + 0.001) for k in range(5)]
    assert contour_frame_size(384_000, pulses, (60e3, 100e3), 256) == 128
    assert contour_frame_size(16_000, [(0.0, 0.25), (1.0, 1.25)], (3e3, 4e3), 512) == 512
