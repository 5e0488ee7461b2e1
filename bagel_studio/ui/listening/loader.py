"""The work behind the listening panel that must not run on the UI thread.

``ClipLoader.load`` runs on the worker pool: it finds the recording's file, decodes it and computes
the spectrogram, and reads the project's cached measurement. Decoded clips and spectrograms are
kept in small LRU caches owned by the panel (not module globals), because each recording backs
several items (its frequency, duration, modulation and harmonicity questions) and a curator moves
between them: the second item of a recording must come up at once.

Measurements are written to the project's cache through the single writer executor, never from a
worker: ``measure_clip`` (worker) computes, ``core.operations.store_measurement`` (writer) stores
it and re-checks the item, so a long analysis never holds the database while a decision waits to
be committed.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bagel_studio.core.audio import (
    AudioError,
    DecodedAudio,
    Measurement,
    Spectrogram,
    SpectrogramCache,
    SpectrogramSettings,
    decode,
    measure,
    resolve_audio_path,
)
from bagel_studio.core.audio.birdnet import BirdNETUnavailable
from bagel_studio.core.audio.project import cached_result
from bagel_studio.core.audio.species import Detection, detect
from bagel_studio.core.audio.species_project import cached_detection
from bagel_studio.core.store import Store

DECODED_CLIPS = 6


@dataclass(frozen=True)
class LoadedClip:
    """What the panel draws for one recording."""

    recording_id: str
    audio: DecodedAudio
    spectrogram: Spectrogram
    measurement: Measurement | None  # from the project's cache, None when not measured yet
    detection: Detection | str | None = None  # cached species detection, its error, or None


class ClipLoader:
    """Decodes and analyses clips for the panel; safe to call from several worker threads."""

    def __init__(self, spectrogram_entries: int = 24) -> None:
        self.spectrograms = SpectrogramCache(max_entries=spectrogram_entries)
        self._decoded: OrderedDict[tuple[str, int, int], DecodedAudio] = OrderedDict()
        self._lock = threading.Lock()

    def decode(self, path: Path) -> DecodedAudio:
        """The decoded file, from the cache while the file is unchanged (same mtime and size)."""
        try:
            stat = path.stat()
        except OSError as exc:
            raise AudioError(f"{path.name}: cannot be read ({exc.strerror or exc})") from None
        key = (str(path), stat.st_mtime_ns, stat.st_size)
        with self._lock:
            found = self._decoded.get(key)
            if found is not None:
                self._decoded.move_to_end(key)
                return found
        audio = decode(path)
        with self._lock:
            self._decoded[key] = audio
            while len(self._decoded) > DECODED_CLIPS:
                self._decoded.popitem(last=False)
        return audio

    def load(
        self, store: Store, recording: dict[str, Any], settings: SpectrogramSettings
    ) -> LoadedClip:
        """Worker side of ``show_item``; raises AudioError with a line to show the curator."""
        recording_id = str(recording["id"])
        path = resolve_audio_path(store, recording)
        if path is None:
            raise AudioError(f"no audio file for {recording_id} in this project")
        audio = self.decode(path)
        spectrogram = self.spectrograms.get(audio, settings)
        cached = cached_result(store, recording)
        measurement = cached if isinstance(cached, Measurement) else None
        detection = cached_detection(store, recording)
        return LoadedClip(recording_id, audio, spectrogram, measurement, detection)

    def spectrogram(self, audio: DecodedAudio, settings: SpectrogramSettings) -> Spectrogram:
        return self.spectrograms.get(audio, settings)


def detect_clip(audio: DecodedAudio) -> Detection:
    """Worker side: BirdNET on the decoded clip (no database access; raises
    ``birdnet.BirdNETUnavailable`` without the extra)."""
    try:
        return detect(audio)
    except BirdNETUnavailable:
        raise
    except (ValueError, RuntimeError, MemoryError) as exc:
        raise AudioError(f"{audio.name}: BirdNET could not run on it ({exc})") from None


def measure_clip(audio: DecodedAudio) -> Measurement:
    """Worker side: the paper's pipeline on the decoded clip (no database access)."""
    try:
        return measure(audio)
    except (ValueError, FloatingPointError, MemoryError) as exc:
        raise AudioError(f"{audio.name}: could not be analysed ({exc})") from None
