"""Where a frequency sits on the plot's y axis, for linear, log and mel spectrograms.

On the linear scale the plot's y coordinate *is* Hz (the image is placed with ``setRect`` in
seconds x Hz). On log and mel scales the core hands over rows that are evenly spaced on that scale,
so the plot uses the fractional row index as its y coordinate: the image then needs no warping, and
every overlay, tick label and readout goes through the one mapping below, so they all agree with
the picture whatever formula the core used for its mel or log bins.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pyqtgraph as pg

# Tick candidates for the kHz axis on log and mel scales (Hz), roundest first: decades, then
# 2 and 5 times a decade, then the rest; a tier only adds ticks where there is room.
_TICK_TIERS: tuple[tuple[int, ...], ...] = (
    (100, 1000, 10000, 100000),
    (50, 200, 500, 2000, 5000, 20000, 50000, 200000),
    (20, 300, 700, 1500, 3000, 4000, 6000, 7000, 8000, 12000, 14000, 16000, 24000, 30000,
     40000, 60000, 80000, 120000, 150000),
)  # fmt: skip


class FrequencyMapping:
    """Converts between Hz and the plot's y coordinate for one spectrogram's bins."""

    def __init__(self, scale: str, freqs_hz: np.ndarray) -> None:
        freqs = np.asarray(freqs_hz, dtype=np.float64)
        if freqs.size == 0:
            freqs = np.array([0.0, 1.0])
        self.scale = scale
        self.freqs_hz = freqs
        self.linear = scale == "linear" or freqs.size < 2
        self._index = np.arange(freqs.size, dtype=np.float64)

    @property
    def bin_count(self) -> int:
        return int(self.freqs_hz.size)

    def extent(self) -> tuple[float, float]:
        """The image's lower and upper edge on the y axis (half a bin beyond the centres)."""
        if self.linear:
            step = float(self.freqs_hz[1] - self.freqs_hz[0]) if self.bin_count > 1 else 1.0
            return float(self.freqs_hz[0]) - step / 2, float(self.freqs_hz[-1]) + step / 2
        return -0.5, self.bin_count - 0.5

    def to_y(self, hz: float) -> float:
        """The y coordinate of ``hz`` (clamped to the image's extent on log and mel scales)."""
        if self.linear:
            return float(hz)
        lo, hi = self.extent()
        if hz <= self.freqs_hz[0]:
            return max(lo, self._edge_y(hz, 0))
        if hz >= self.freqs_hz[-1]:
            return min(hi, self._edge_y(hz, -1))
        return float(np.interp(hz, self.freqs_hz, self._index))

    def to_hz(self, y: float) -> float:
        """The frequency at plot coordinate ``y``."""
        if self.linear:
            return float(y)
        if y <= 0:
            return self._edge_hz(y, 0)
        if y >= self.bin_count - 1:
            return self._edge_hz(y, -1)
        return float(np.interp(y, self._index, self.freqs_hz))

    def row_at(self, y: float) -> int | None:
        """The image row under plot coordinate ``y``, or None outside the image."""
        lo, hi = self.extent()
        if not lo <= y < hi:
            return None
        if self.linear:
            step = (hi - lo) / self.bin_count
            row = round((y - float(self.freqs_hz[0])) / step)
        else:
            row = round(y)
        return min(max(row, 0), self.bin_count - 1)

    def _edge_y(self, hz: float, end: int) -> float:
        """Extrapolate beyond the first or last bin centre by that end's local spacing."""
        i, j = (0, 1) if end == 0 else (-2, -1)
        f0, f1 = self.freqs_hz[i], self.freqs_hz[j]
        y0 = self._index[i]
        if f1 == f0:
            return float(self._index[end])
        return float(y0 + (hz - f0) / (f1 - f0))

    def _edge_hz(self, y: float, end: int) -> float:
        i, j = (0, 1) if end == 0 else (-2, -1)
        f0, f1 = self.freqs_hz[i], self.freqs_hz[j]
        return float(max(0.0, f0 + (y - self._index[i]) * (f1 - f0)))


def format_khz(hz: float) -> str:
    """Short kHz label: ``0.5``, ``3``, ``4.25``."""
    khz = hz / 1000.0
    if abs(khz) >= 10:
        text = f"{khz:.1f}"
    elif abs(khz) >= 1:
        text = f"{khz:.2f}"
    else:
        text = f"{khz:.3f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


class KilohertzAxis(pg.AxisItem):  # type: ignore[misc]
    """A y axis whose labels are kHz, whatever the plot's y coordinate is (Hz or bin index)."""

    def __init__(self, **kwargs: object) -> None:
        super().__init__(orientation="left", **kwargs)
        self.mapping: FrequencyMapping | None = None
        self.setLabel("Frequency", units="kHz")
        self.enableAutoSIPrefix(False)

    def set_mapping(self, mapping: FrequencyMapping) -> None:
        self.mapping = mapping
        self.picture = None
        self.update()

    def tickValues(self, minVal: float, maxVal: float, size: float) -> list[Any]:
        mapping = self.mapping
        if mapping is None or mapping.linear:
            return list(super().tickValues(minVal, maxVal, size))
        lo_hz, hi_hz = mapping.to_hz(minVal), mapping.to_hz(maxVal)
        # Keep labels at least ~28 px apart, the roundest frequencies first.
        min_gap = (maxVal - minVal) * 28.0 / max(size, 1.0)
        major: list[float] = []
        for tier in _TICK_TIERS:
            for hz in tier:
                y = mapping.to_y(hz)
                if lo_hz <= hz <= hi_hz and all(abs(y - other) >= min_gap for other in major):
                    major.append(y)
        major.sort()
        return [(math.inf, major)]

    def tickStrings(self, values: list[float], scale: float, spacing: float) -> list[str]:
        mapping = self.mapping
        if mapping is None:
            return list(super().tickStrings(values, scale, spacing))
        return [format_khz(mapping.to_hz(v)) for v in values]
