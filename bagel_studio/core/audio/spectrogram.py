"""Spectrogram data for the listening panel: computed once per clip and settings, then cached.

The desk draws ``Spectrogram.db`` as an image (row 0 = lowest frequency) over ``times_s`` x
``freqs_hz``. The settings are stored in the project (meta key ``spectrogram_settings``) so every
curator of a project sees the same picture. Computation is plain numpy (a framed FFT), a few tens
of milliseconds for a 30 s clip, run off the UI thread and kept in a small LRU cache keyed by the
audio's SHA-256 and the settings.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import asdict, dataclass, fields
from typing import TYPE_CHECKING, Any

import numpy as np

from bagel_studio.core.audio import dsp
from bagel_studio.core.audio.decode import DecodedAudio

if TYPE_CHECKING:
    from bagel_studio.core.store import Store

SCALES = ("linear", "log", "mel")
COLORMAPS = ("viridis", "magma", "inferno", "plasma", "cividis", "gray")
META_KEY = "spectrogram_settings"
LOG_MIN_HZ = 150.0  # the analysis's floor too (analysis.LOWEST_HZ): below it is rumble, not birds


@dataclass(frozen=True)
class SpectrogramSettings:
    """How a spectrogram is computed and shown; hashable, so it keys the cache."""

    n_fft: int = 1024
    hop: int = 256
    window: str = "hann"
    scale: str = "log"  # "linear" | "log" | "mel"
    db_range: float = 80.0
    colormap: str = "viridis"
    max_freq_hz: float | None = None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: Any) -> SpectrogramSettings:
        """Settings from stored JSON; any missing or unusable value falls back to the default."""
        default = cls()
        if not isinstance(data, dict):
            return default
        values: dict[str, Any] = {}
        for f in fields(cls):
            values[f.name] = data.get(f.name, getattr(default, f.name))
        settings = default
        try:
            settings = cls(
                n_fft=int(values["n_fft"]),
                hop=int(values["hop"]),
                window=str(values["window"]),
                scale=str(values["scale"]),
                db_range=float(values["db_range"]),
                colormap=str(values["colormap"]),
                max_freq_hz=None if values["max_freq_hz"] is None else float(values["max_freq_hz"]),
            )
        except (TypeError, ValueError):
            return default
        return settings.validated()

    def validated(self) -> SpectrogramSettings:
        """These settings with each out-of-range value replaced by its default."""
        default = SpectrogramSettings()
        n_fft = self.n_fft if 16 <= self.n_fft <= 65536 else default.n_fft
        hop = self.hop if 1 <= self.hop <= n_fft else max(1, n_fft // 4)
        window = self.window if dsp.known_window(self.window) else default.window
        return SpectrogramSettings(
            n_fft=n_fft,
            hop=hop,
            window=window,
            scale=self.scale if self.scale in SCALES else default.scale,
            db_range=self.db_range if 10.0 <= self.db_range <= 200.0 else default.db_range,
            colormap=self.colormap if self.colormap in COLORMAPS else default.colormap,
            max_freq_hz=self.max_freq_hz if self.max_freq_hz and self.max_freq_hz > 0 else None,
        )


@dataclass(frozen=True)
class Spectrogram:
    """dB values (max 0, floor -db_range) on a time x frequency grid."""

    db: np.ndarray  # float32 (n_bins, n_frames), row 0 = lowest frequency
    times_s: np.ndarray  # (n_frames,) frame centres
    freqs_hz: np.ndarray  # (n_bins,) bin centres in Hz
    duration_s: float
    sample_rate: int
    settings: SpectrogramSettings


def compute_spectrogram(
    samples: np.ndarray, sample_rate: int, settings: SpectrogramSettings
) -> Spectrogram:
    """The spectrogram of ``samples`` ((frames,) or (frames, channels), mixed to mono)."""
    settings = settings.validated()
    x = np.asarray(samples, dtype=np.float32)
    if x.ndim == 2:
        x = x.mean(axis=1, dtype=np.float32)
    power = dsp.stft_power(x, settings.n_fft, settings.hop, settings.window)
    freqs = np.fft.rfftfreq(settings.n_fft, 1.0 / sample_rate)
    top = sample_rate / 2
    if settings.max_freq_hz is not None:
        top = min(top, settings.max_freq_hz)
    if settings.scale == "linear":
        keep = freqs <= top + 1e-9
        power, out_freqs = power[keep], freqs[keep]
    elif settings.scale == "log":
        out_freqs = np.geomspace(max(LOG_MIN_HZ, freqs[1]), top, max(16, settings.n_fft // 4))
        power = _interpolate_rows(power, freqs, out_freqs)
    else:
        out_freqs, bank = _mel_filterbank(settings.n_fft, sample_rate, top, n_mels=128)
        power = bank @ power
    db = _to_db(power, settings.db_range)
    times = np.arange(db.shape[1], dtype=np.float64) * settings.hop / sample_rate
    return Spectrogram(
        db=db,
        times_s=times,
        freqs_hz=np.asarray(out_freqs, dtype=np.float64),
        duration_s=x.size / sample_rate,
        sample_rate=sample_rate,
        settings=settings,
    )


def _to_db(power: np.ndarray, db_range: float) -> np.ndarray:
    db = 10.0 * np.log10(np.maximum(power, 1e-20, dtype=np.float32))
    db -= float(db.max()) if db.size else 0.0
    np.maximum(db, -db_range, out=db)
    return np.ascontiguousarray(db, dtype=np.float32)


def _interpolate_rows(power: np.ndarray, freqs: np.ndarray, targets: np.ndarray) -> np.ndarray:
    """Rows of ``power`` at ``targets`` Hz, linearly interpolated between FFT bins."""
    position = np.interp(targets, freqs, np.arange(freqs.size, dtype=np.float64))
    below = np.clip(np.floor(position).astype(int), 0, freqs.size - 1)
    above = np.clip(below + 1, 0, freqs.size - 1)
    weight = (position - below).astype(np.float32)[:, None]
    return np.asarray(power[below] * (1.0 - weight) + power[above] * weight, dtype=np.float32)


def _hz_to_mel(hz: np.ndarray) -> np.ndarray:
    return np.asarray(2595.0 * np.log10(1.0 + hz / 700.0))


def _mel_to_hz(mel: np.ndarray) -> np.ndarray:
    return np.asarray(700.0 * (10.0 ** (mel / 2595.0) - 1.0))


def _mel_filterbank(
    n_fft: int, rate: int, top: float, n_mels: int
) -> tuple[np.ndarray, np.ndarray]:
    """(centre Hz, (n_mels, bins) triangular filters on the HTK mel scale up to ``top``)."""
    freqs = np.fft.rfftfreq(n_fft, 1.0 / rate)
    edges = _mel_to_hz(np.linspace(0.0, float(_hz_to_mel(np.array(top))), n_mels + 2))
    bank = np.zeros((n_mels, freqs.size), dtype=np.float32)
    for i in range(n_mels):
        low, centre, high = edges[i], edges[i + 1], edges[i + 2]
        rising = (freqs - low) / max(centre - low, 1e-9)
        falling = (high - freqs) / max(high - centre, 1e-9)
        bank[i] = np.maximum(0.0, np.minimum(rising, falling))
        if not bank[i].any():  # narrower than an FFT bin: take the nearest bin
            bank[i, int(np.argmin(np.abs(freqs - centre)))] = 1.0
    return edges[1:-1], bank


class SpectrogramCache:
    """A thread-safe LRU of spectrograms keyed by (audio SHA-256, settings)."""

    def __init__(self, max_entries: int = 32) -> None:
        self._entries: OrderedDict[tuple[str, SpectrogramSettings], Spectrogram] = OrderedDict()
        self._lock = threading.Lock()
        self.max_entries = max_entries

    def get(self, audio: DecodedAudio, settings: SpectrogramSettings) -> Spectrogram:
        """The cached spectrogram, or a newly computed one (computed outside the lock)."""
        key = (audio.sha256, settings.validated())
        with self._lock:
            found = self._entries.get(key)
            if found is not None:
                self._entries.move_to_end(key)
                return found
        result = compute_spectrogram(audio.samples, audio.sample_rate, key[1])
        with self._lock:
            self._entries[key] = result
            self._entries.move_to_end(key)
            while len(self._entries) > self.max_entries:
                self._entries.popitem(last=False)
        return result

    def peek(self, audio: DecodedAudio, settings: SpectrogramSettings) -> Spectrogram | None:
        """The cached spectrogram, or None: never computes (the desk asks this on its own
        thread, to show a clip prepared ahead at once)."""
        key = (audio.sha256, settings.validated())
        with self._lock:
            found = self._entries.get(key)
            if found is not None:
                self._entries.move_to_end(key)
            return found

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()


def load_settings(store: Store) -> SpectrogramSettings:
    """The project's spectrogram settings (defaults when none are stored)."""
    return SpectrogramSettings.from_json(store.project.get_meta(META_KEY))


def save_settings(store: Store, settings: SpectrogramSettings) -> None:
    """Store ``settings``, validated, in the project, so that every curator's desk draws the same
    picture; ``operations.project`` calls it inside its transaction."""
    store.project.set_meta(META_KEY, settings.validated().to_json())
