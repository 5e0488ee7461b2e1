"""Small signal-processing helpers shared by the analysis and the spectrogram.

Written on numpy/scipy rather than librosa: librosa's import alone costs a second or more, and
these few operations (a framed FFT, polyphase resampling, median-filter HPSS, an energy
envelope) are short enough to own.
"""

from __future__ import annotations

from collections.abc import Callable
from math import gcd

import numpy as np

from bagel_studio.core.lazy import lazy_import

ndimage = lazy_import("scipy.ndimage")
signal = lazy_import("scipy.signal")


# The analysis windows numpy computes itself (symmetric, of one sample more: the periodic window
# is that without its last sample, as scipy's ``get_window(..., fftbins=True)``). Importing
# scipy.signal costs one to three seconds the first time: the first spectrogram of a session
# waited for it while the curator looked at "Loading…".
_NUMPY_WINDOWS: dict[str, Callable[[int], np.ndarray]] = {
    "hann": np.hanning,
    "hanning": np.hanning,
    "hamming": np.hamming,
    "blackman": np.blackman,
    "bartlett": np.bartlett,
    "boxcar": np.ones,
    "rectangular": np.ones,
    "rect": np.ones,
    "ones": np.ones,
}


def window_samples(window: str, n_fft: int) -> np.ndarray:
    """The periodic analysis window ``window`` of ``n_fft`` samples (float32): numpy's for the
    common ones, scipy's for the rest (raises ValueError for a name neither knows)."""
    make = _NUMPY_WINDOWS.get(window) if isinstance(window, str) else None
    if make is not None:
        return np.asarray(make(n_fft + 1)[:-1], dtype=np.float32)
    return np.asarray(signal.get_window(window, n_fft, fftbins=True), dtype=np.float32)


def known_window(window: str) -> bool:
    """Whether ``window`` names an analysis window (without importing scipy for the common)."""
    if isinstance(window, str) and window in _NUMPY_WINDOWS:
        return True
    try:
        signal.get_window(window, 16)
    except (ValueError, TypeError):
        return False
    return True


def resample(samples: np.ndarray, rate: int, target: int) -> np.ndarray:
    """``samples`` (frames,) or (frames, channels) resampled from ``rate`` to ``target`` Hz.

    Polyphase filtering with the rational ratio reduced by its gcd, so 48 kHz -> 16 kHz is a plain
    decimation by 3 and 44.1 kHz -> 16 kHz a 160/441 filter.
    """
    if rate == target:
        return np.asarray(samples, dtype=np.float32)
    divisor = gcd(int(rate), int(target))
    up, down = int(target) // divisor, int(rate) // divisor
    out = signal.resample_poly(np.asarray(samples, dtype=np.float32), up, down, axis=0)
    return np.asarray(out, dtype=np.float32)


def stft_power(samples: np.ndarray, n_fft: int, hop: int, window: str = "hann") -> np.ndarray:
    """Power spectrogram (n_fft // 2 + 1, n_frames), frames centred on ``i * hop``.

    The signal is zero-padded by half a window at both ends (as librosa's ``center=True``), so
    frame ``i`` describes the sound around ``i * hop / rate`` seconds.
    """
    x = np.asarray(samples, dtype=np.float32)
    pad = n_fft // 2
    x = np.pad(x, (pad, pad))
    if x.size < n_fft:
        x = np.pad(x, (0, n_fft - x.size))
    n_frames = 1 + (x.size - n_fft) // hop
    win = window_samples(window, n_fft)
    power = np.empty((n_fft // 2 + 1, n_frames), dtype=np.float32)
    block = max(1, (1 << 22) // n_fft)  # bound the temporary memory for long, fast files
    view = np.lib.stride_tricks.sliding_window_view(x, n_fft)[::hop]
    for start in range(0, n_frames, block):
        frames = view[start : start + block] * win
        spectrum = np.fft.rfft(frames, axis=1)
        power[:, start : start + frames.shape[0]] = (spectrum.real**2 + spectrum.imag**2).T
    return power


def analysis_fft_size(rate: int, seconds: float = 0.032) -> int:
    """A power-of-two window of about ``seconds`` at ``rate`` (512 at 16 kHz)."""
    return int(2 ** round(np.log2(max(64.0, rate * seconds))))


def hpss_harmonic_fraction(magnitude: np.ndarray, kernel: int = 17) -> float:
    """Share of the energy that median-filter HPSS assigns to the harmonic part.

    Fitzgerald's separation (as librosa.decompose.hpss with soft masks): horizontal ridges
    (sustained partials) survive a median along time, vertical ones (clicks, broadband
    transients) a median along frequency.
    """
    if magnitude.size == 0:
        return 0.0
    harmonic = median_along(magnitude, kernel, axis=1)
    percussive = median_along(magnitude, kernel, axis=0)
    h2, p2 = harmonic.astype(np.float64) ** 2, percussive.astype(np.float64) ** 2
    total = h2 + p2
    mask = np.divide(h2, total, out=np.full_like(total, 0.5), where=total > 0)
    energy = magnitude.astype(np.float64) ** 2
    denominator = float(energy.sum())
    return float((mask * energy).sum() / denominator) if denominator > 0 else 0.0


def median_along(values: np.ndarray, kernel: int, axis: int) -> np.ndarray:
    """``ndimage.median_filter`` of a 2-D array along one axis (``size=(1, kernel)`` for axis 1,
    ``(kernel, 1)`` for axis 0, ``mode="reflect"``): the same numbers at a fifth of the CPU.

    SciPy's rank filters have a fast path (a running double heap) for 1-D input only; a 2-D
    footprint takes the generic one, which sorts every window anew. So each line gets its own
    "reflect" padding (the edge mirrored, as SciPy pads) and the lines, laid end to end, are
    filtered as one 1-D signal: every window inside a padded line sees only that line.
    """
    half = kernel // 2
    lines = np.ascontiguousarray(values if axis == 1 else values.T)
    count, length = lines.shape
    if half == 0 or length <= half or count == 0:  # the mirror would be longer than the line
        size = (1, kernel) if axis == 1 else (kernel, 1)
        return np.asarray(ndimage.median_filter(values, size=size, mode="reflect"))
    padded = np.pad(lines, ((0, 0), (half, half)), mode="symmetric")
    filtered = ndimage.median_filter(padded.ravel(), size=kernel, mode="reflect")
    out = filtered.reshape(padded.shape)[:, half : half + length]
    return np.asarray(out if axis == 1 else out.T)


def bandpass(samples: np.ndarray, rate: int, band: tuple[float, float]) -> np.ndarray:
    """``samples`` band-passed to ``band`` Hz (4th-order Butterworth, forward and back, so
    without delay: call timing stays where it was), as float64."""
    nyquist = rate / 2
    low = max(20.0, band[0])
    high = min(band[1], nyquist * 0.98)
    x = np.asarray(samples, dtype=np.float64)
    if high <= low * 1.05 or x.size <= 60:
        return x
    if low > 40.0:
        sos = signal.butter(4, [low, high], btype="bandpass", fs=rate, output="sos")
    else:
        sos = signal.butter(4, high, btype="lowpass", fs=rate, output="sos")
    return np.asarray(signal.sosfiltfilt(sos, x))


def runs_above(mask: np.ndarray) -> list[tuple[int, int]]:
    """[start, stop) index pairs of the runs of True in ``mask``."""
    if mask.size == 0:
        return []
    padded = np.concatenate(([False], mask.astype(bool), [False]))
    edges = np.flatnonzero(padded[1:] != padded[:-1])
    return [(int(a), int(b)) for a, b in zip(edges[::2], edges[1::2], strict=True)]
