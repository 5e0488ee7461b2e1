"""Audio in a project: finding a recording's file, and caching its measurement.

Measurements are cached in the project file (table ``audio_measurements``) keyed by the audio's
SHA-256 and ``ANALYSIS_VERSION``, so every curator opening the project, and every check run, sees
the same numbers without decoding again. A file that cannot be decoded is cached too, as an error
message, so that ``acoustic_flags`` can report it without touching the disk.

The analysis and the decoder (numpy, libsndfile) are imported by the functions that use them:
the import and check commands of a project without recordings import this module only.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bagel_studio.core.audio.analysis import Measurement
    from bagel_studio.core.audio.decode import DecodedAudio
    from bagel_studio.core.store import Store

Progress = Callable[[int, int], None]


def resolve_audio_path(store: Store, recording: dict[str, Any]) -> Path | None:
    """The recording's audio file: its stored path, else that path (or its file name) in the
    project file's folder, so a project moved together with its audio still finds it."""
    raw = recording.get("audio_path") or ""
    candidates: list[Path] = []
    if raw and Path(raw).is_absolute():
        candidates.append(Path(raw))
    folder = _project_folder(store)
    if folder is not None:
        if raw:
            candidates.append(
                folder / raw if not Path(raw).is_absolute() else folder / Path(raw).name
            )
        if recording.get("file_name"):
            candidates.append(folder / str(recording["file_name"]))
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    return None


def _project_folder(store: Store) -> Path | None:
    path = Path(store.path)
    if str(path) == ":memory:":
        return None
    return path.resolve().parent


def cache_key(recording: dict[str, Any]) -> str:
    """The measurement cache key of a recording: its audio's SHA-256 as imported."""
    return str(recording.get("audio_sha256") or f"recording:{recording['id']}")


def cached_result(store: Store, recording: dict[str, Any]) -> Measurement | str | None:
    """The cached Measurement, the cached error message, or None when not measured yet."""
    from bagel_studio.core.audio.analysis import ANALYSIS_VERSION, Measurement

    text = store.evidence.measurement_json(cache_key(recording), ANALYSIS_VERSION)
    if text is None:
        return None
    data = json.loads(text)
    if "error" in data:
        return str(data["error"])
    return Measurement.from_json(data)


def compute_result(path: str | Path) -> dict[str, Any]:
    """Decode and measure ``path``: the measurement's JSON, or {"error": one line} (no store)."""
    from bagel_studio.core.audio.analysis import MAX_SECONDS
    from bagel_studio.core.audio.decode import AudioError, decode

    try:
        audio = decode(path, MAX_SECONDS)  # the analysis reads the first MAX_SECONDS
    except AudioError as exc:
        return {"error": str(exc)}
    return measurement_result(audio)


def measurement_result(audio: DecodedAudio) -> dict[str, Any]:
    """Measure decoded ``audio``: the measurement's JSON, or {"error": one line}."""
    from bagel_studio.core.audio.analysis import measure

    try:
        result = measure(audio).to_json()
    except (ValueError, FloatingPointError, MemoryError) as exc:
        return {"error": f"{audio.name}: could not be analysed ({exc})"}
    result["audio_sha256"] = audio.sha256
    return result


def store_result(store: Store, keys: list[str], result: dict[str, Any]) -> None:
    """Cache ``result`` under each key (a project open read-only is left unchanged)."""
    from bagel_studio.core.audio.analysis import ANALYSIS_VERSION

    if store.read_only:
        return
    store.evidence.put_measurement(keys, ANALYSIS_VERSION, json.dumps(result, sort_keys=True))


def measurement_for(store: Store, recording_id: str, compute: bool = True) -> Measurement | None:
    """The recording's measurement, from the cache or (when ``compute``) decoded and measured
    now and cached; None without audio, or when the audio cannot be read (see
    ``measurement_error``)."""
    from bagel_studio.core.audio.analysis import Measurement

    recording = store.evidence.recording(recording_id)
    if recording is None:
        return None
    cached = cached_result(store, recording)
    if cached is not None or not compute:
        return cached if isinstance(cached, Measurement) else None
    path = resolve_audio_path(store, recording)
    if path is None:
        return None
    result = _measure_and_store(store, recording, path)
    return None if "error" in result else Measurement.from_json(result)


def measurement_error(store: Store, recording_id: str) -> str | None:
    """Why the recording has no measurement: a cached decode error, or a missing file."""
    recording = store.evidence.recording(recording_id)
    if recording is None:
        return f"{recording_id}: no such recording in the project"
    cached = cached_result(store, recording)
    if isinstance(cached, str):
        return cached
    if cached is None and resolve_audio_path(store, recording) is None:
        name = recording.get("file_name") or recording.get("audio_path") or recording_id
        return f"{Path(str(name)).name}: audio file not found"
    return None


def _measure_and_store(store: Store, recording: dict[str, Any], path: Path) -> dict[str, Any]:
    result = compute_result(path)
    keys = [cache_key(recording)]
    if "audio_sha256" in result:
        keys.append(str(result["audio_sha256"]))
    store_result(store, keys, result)
    return result


def measure_recordings(store: Store, progress: Progress | None = None) -> int:
    """Measure every recording with audio and no cached result; return how many measured.

    Unreadable files are cached as errors (shown as ``audio-unreadable``) and not counted.
    Seconds per clip: run it off the UI thread.
    """
    todo = []
    for recording in store.evidence.recordings():
        if cached_result(store, recording) is not None:
            continue
        path = resolve_audio_path(store, recording)
        if path is not None:
            todo.append((recording, path))
    measured = 0
    for done, (recording, path) in enumerate(todo, start=1):
        if "error" not in _measure_and_store(store, recording, path):
            measured += 1
        if progress is not None:
            progress(done, len(todo))
    return measured
