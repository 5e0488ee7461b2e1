"""Storing clip measurements and species detections: the cache entry and the re-check of the
items of the recording, for one clip the desk measured or detected (``store_measurement``,
``store_detection``) or for every clip of the project (``analyze_recordings``, on all cores or a
Dask cluster through ``core.audio.batch``). The analysis itself (numpy, the decoders, BirdNET) is
imported only when there is a clip to analyse or a result to store: ``bagel-studio check`` runs
``analyze_recordings`` first, also on a project without recordings."""

from __future__ import annotations

import functools
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from bagel_studio.core.audio.batch import ClipJob, clip_error, measure_clips
from bagel_studio.core.audio.birdnet import unavailable
from bagel_studio.core.audio.project import (
    cache_key,
    cached_result,
    resolve_audio_path,
    store_result,
)
from bagel_studio.core.changes import NOTHING, Changes, Done, Part
from bagel_studio.core.checks import recheck_item
from bagel_studio.core.model import Flag
from bagel_studio.core.store import Store

if TYPE_CHECKING:
    from bagel_studio.core.audio.analysis import Measurement
    from bagel_studio.core.audio.species import Detection

Progress = Callable[[int, int], None]
Write = Callable[[Callable[[], Any]], Any]  # runs a write where the caller's writes run


def _direct(call: Callable[[], Any]) -> Any:
    return call()


def store_measurement(
    store: Store,
    recording: dict[str, Any],
    audio_sha256: str,
    measurement: Measurement,
    item_id: str | None,
) -> Done[list[Flag] | None]:
    """Cache ``measurement`` of ``recording`` (under its cache key and the decoded audio's
    SHA-256, as ``measurement_for`` would) and re-check ``item_id`` and the other items of the
    recording (they share the clip) so their acoustic flags (mismatch, too short, too quiet)
    follow, in one transaction; return ``item_id``'s flags, or None when no item was given. A
    project open read-only is left unchanged."""
    if store.read_only:
        return Done(None)
    result = measurement.to_json()
    result["audio_sha256"] = audio_sha256
    with store.transaction():
        store_result(store, [cache_key(recording), audio_sha256], result)
        return _recheck_recording(store, recording, item_id)


def store_detection(
    store: Store,
    recording: dict[str, Any],
    audio_sha256: str,
    detection: Detection,
    item_id: str | None,
) -> Done[list[Flag] | None]:
    """Cache the species ``detection`` of ``recording`` (under its cache key and the audio's
    SHA-256) and re-check its items, as ``store_measurement`` does for a measurement; return
    ``item_id``'s flags (None when no item was given) and what changed."""
    from bagel_studio.core.audio.species_project import store_detection_result

    if store.read_only:
        return Done(None)
    with store.transaction():
        store_detection_result(store, [cache_key(recording), audio_sha256], detection.to_json())
        return _recheck_recording(store, recording, item_id)


def _recheck_recording(
    store: Store, recording: dict[str, Any], item_id: str | None
) -> Done[list[Flag] | None]:
    """Re-check the items of ``recording`` (they share the clip), ``item_id`` last, inside the
    caller's transaction; return ``item_id``'s flags (None when no item was given) and what
    changed."""
    siblings = [
        sibling
        for sibling in store.evidence.items_with_recording(str(recording["id"]))
        if sibling != item_id
    ]
    for sibling in siblings:
        recheck_item(store, sibling)
    flags = recheck_item(store, item_id) if item_id is not None else None
    rechecked = siblings if item_id is None else [item_id, *siblings]
    return Done(flags, Changes.of_items(rechecked, Part.FLAGS, evidence=True))


@dataclass(frozen=True)
class AnalysisReport:
    """What ``analyze_recordings`` did: clips measured now, clips whose audio could not be read
    (cached as errors), clips measured before (kept), and recordings without an audio file;
    clips whose species were detected now, or the line saying how to install BirdNET."""

    measured: int
    unreadable: int
    already: int
    missing: list[str]
    errors: list[str]
    cancelled: bool = False
    detected: int = 0  # clips whose species BirdNET detected now
    species_note: str | None = None  # why no species were detected (BirdNET not installed)


def clips_to_measure(store: Store, species: bool = False) -> tuple[list[ClipJob], int, list[str]]:
    """The recordings with audio and no cached result (measurement, or with ``species`` also
    species detection), how many have all they need already, and the ids of those whose audio
    file cannot be found."""
    jobs: list[ClipJob] = []
    missing: list[str] = []
    already = 0
    recordings = store.evidence.recordings()
    if not recordings:
        return jobs, already, missing
    # here, not at the top: species_project imports numpy, which a project without clips skips
    from bagel_studio.core.audio.species_project import cached_detection

    for recording in recordings:
        measure = cached_result(store, recording) is None
        detect = species and cached_detection(store, recording) is None
        if not (measure or detect):
            already += 1
            continue
        path = resolve_audio_path(store, recording)
        if path is None:
            missing.append(str(recording["id"]))
        else:
            jobs.append(ClipJob(str(recording["id"]), str(path.resolve()), measure, detect))
    return jobs, already, missing


def store_clip_results(
    store: Store, results: Sequence[tuple[ClipJob, dict[str, Any]]]
) -> Done[int]:
    """Cache analysed clips (a measurement or its error line, a species detection or its error
    line, under the recording's cache key and the audio's SHA-256, as ``measurement_for`` would)
    and re-check the items of those recordings, in one transaction; return how many items were
    re-checked. A detection BirdNET could not run for (not installed where the clip ran) is not
    cached: the next run asks again."""
    if store.read_only or not results:
        return Done(0)
    from bagel_studio.core.audio.species_project import store_detection_result

    rechecked: list[str] = []
    with store.transaction():
        for job, result in results:
            recording = store.evidence.recording(job.recording_id)
            if recording is None:
                continue
            keys = [cache_key(recording)]
            if "audio_sha256" in result:
                keys.append(str(result["audio_sha256"]))
            if job.measure:
                store_result(store, keys, {k: v for k, v in result.items() if k != "species"})
            detection = result.get("species")
            if isinstance(detection, dict) and "unavailable" not in detection:
                store_detection_result(store, keys, detection)
            for item_id in store.evidence.items_with_recording(job.recording_id):
                recheck_item(store, item_id)
                rechecked.append(item_id)
    return Done(len(rechecked), Changes.of_items(rechecked, Part.FLAGS, evidence=True))


def analyze_recordings(
    store: Store,
    *,
    workers: int | None = None,
    scheduler: str | None = None,
    progress: Progress | None = None,
    batch_seconds: float = 1.0,
    cancel: threading.Event | None = None,
    write: Write = _direct,
    species: bool | None = None,
) -> Done[AnalysisReport]:
    """Measure every recording of the project not measured yet, and detect its species with
    BirdNET where not detected yet (``species``: None when BirdNET is installed, False never),
    on ``workers`` processes or on the Dask cluster at ``scheduler``, and store the results as
    they arrive, a batch at most every ``batch_seconds`` in one transaction each: an interrupted
    run keeps what it stored, and the next run analyses only the rest. ``progress(done, total)``
    after each clip.

    ``cancel`` set stops the run after the clips under way (what was analysed is stored, the
    report says ``cancelled``); ``write`` runs each batch's transaction (the desk passes its
    single database-writer thread, and runs this on another) and returns what it returned."""
    note = unavailable() if species is not False else None
    jobs, already, missing = clips_to_measure(store, species=species is not False and not note)
    measured = unreadable = detected = 0
    errors: list[str] = []
    pending: list[tuple[ClipJob, dict[str, Any]]] = []
    last = time.monotonic()
    results = measure_clips(jobs, workers=workers, scheduler=scheduler)
    cancelled = False
    changes = NOTHING
    try:
        for done, (job, result) in enumerate(results, start=1):
            pending.append((job, result))
            error = clip_error(result)
            if error is not None:
                unreadable += 1
                errors.append(error)
            else:
                measured += job.measure
                detection = result.get("species") or {}
                detected += job.species and "unavailable" not in detection
                note = note or detection.get("unavailable")
            if time.monotonic() - last >= batch_seconds:
                changes |= write(functools.partial(store_clip_results, store, pending)).changes
                pending, last = [], time.monotonic()
            if progress is not None:
                progress(done, len(jobs))
            if cancel is not None and cancel.is_set():
                cancelled = done < len(jobs)
                break
    finally:
        results.close()  # an interruption cancels the clips not started
        changes |= write(functools.partial(store_clip_results, store, pending)).changes
    report = AnalysisReport(
        measured, unreadable, already, missing, errors, cancelled, detected, note
    )
    return Done(report, changes)
