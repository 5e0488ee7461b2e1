"""The work behind the listening panel that must not run on the UI thread.

``ClipLoader.load`` runs on the worker pool: it finds the recording's file, decodes it and computes
the spectrogram, and reads the project's cached measurement. Decoded clips and spectrograms are
kept in small LRU caches owned by the panel (not module globals), because each recording backs
several items (its frequency, duration, modulation and harmonicity questions) and a curator moves
between them: the second item of a recording must come up at once.

The desk also hands the panel the items it will show next: ``ClipLoader.prepare`` decodes their
recordings and draws their spectrograms into the same caches, on the worker pool, while the curator
is still on the item before; ``ClipLoader.ready`` then finds the clip of an arriving item in them
on the UI thread (cheap: a file's size and time, two cache lookups, two cached reads of the
project), so a recording prepared ahead is on screen as its item is. The first preparation also
imports what the clip's measurement needs (scipy), which the first arrival paid before.

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
    measure,
    resolve_audio_path,
)
from bagel_studio.core.audio.analysis import import_analysis
from bagel_studio.core.audio.birdnet import BirdNETUnavailable
from bagel_studio.core.audio.decode import decode
from bagel_studio.core.audio.project import cached_result
from bagel_studio.core.audio.species import Detection, detect
from bagel_studio.core.audio.species_project import cached_detection
from bagel_studio.core.store import Store, StoreError

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
        found = self._cached(key)
        if found is not None:
            return found
        audio = decode(path)
        with self._lock:
            self._decoded[key] = audio
            while len(self._decoded) > DECODED_CLIPS:
                self._decoded.popitem(last=False)
        return audio

    def _cached(self, key: tuple[str, int, int]) -> DecodedAudio | None:
        with self._lock:
            found = self._decoded.get(key)
            if found is not None:
                self._decoded.move_to_end(key)
            return found

    def load(
        self, store: Store, recording: dict[str, Any], settings: SpectrogramSettings
    ) -> LoadedClip:
        """Worker side of ``show_item``; raises AudioError with a line to show the curator."""
        recording_id = str(recording["id"])
        path = resolve_audio_path(store, recording)
        if path is None:
            raise AudioError(f"no audio file for {recording_id} in this project")
        audio = self.decode(path)
        return self._clip(store, recording, audio, self.spectrograms.get(audio, settings))

    def ready(
        self, store: Store, recording: dict[str, Any], settings: SpectrogramSettings
    ) -> LoadedClip | None:
        """UI side of ``show_item``: the clip when its decoded audio and its spectrogram with
        ``settings`` are both in the caches (prepared ahead, or seen before), else None (then
        ``load`` it on a worker). Decodes and computes nothing."""
        path = resolve_audio_path(store, recording)
        try:
            stat = path.stat() if path is not None else None
        except OSError:
            return None
        if path is None or stat is None:
            return None
        audio = self._cached((str(path), stat.st_mtime_ns, stat.st_size))
        spectrogram = self.spectrograms.peek(audio, settings) if audio is not None else None
        if audio is None or spectrogram is None:
            return None
        return self._clip(store, recording, audio, spectrogram)

    def prepare(self, store: Store, item_id: str, settings: SpectrogramSettings) -> bool:
        """Worker side of ``prepare_ahead``: decode the recording of ``item_id`` and draw its
        spectrogram into the caches; whether there was one to prepare. A file that cannot be
        read is left for ``load`` to report when its item is shown."""
        try:
            item = store.items.get(item_id)
        except StoreError:  # gone since the desk listed it
            return False
        recording = store.evidence.recording(item.recording_id) if item.recording_id else None
        path = resolve_audio_path(store, recording) if recording is not None else None
        if path is None:
            return False
        try:
            self.spectrograms.get(self.decode(path), settings)
        except (AudioError, ValueError, MemoryError, OSError):
            return False
        import_analysis()  # the clip's measurement follows its arrival: its imports are paid now
        return True

    @staticmethod
    def _clip(
        store: Store, recording: dict[str, Any], audio: DecodedAudio, spectrogram: Spectrogram
    ) -> LoadedClip:
        cached = cached_result(store, recording)
        measurement = cached if isinstance(cached, Measurement) else None
        detection = cached_detection(store, recording)
        return LoadedClip(str(recording["id"]), audio, spectrogram, measurement, detection)

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
