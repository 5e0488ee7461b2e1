"""Species detections in a project: cached per clip, answered per item.

A clip's detection (``species.detect``) is cached in the project (table ``species_detections``)
under the same keys as its measurement (``project.cache_key`` and the decoded audio's SHA-256)
and ``DETECTION_VERSION``, so every curator and every check run reads the same confidences
without running the model. A file that cannot be decoded is cached as its error line.

The item's species is the scientific name its source names (what the stem asks about), else
its recording's; ``item_answer`` answers for it from the cached detection.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bagel_studio.core.audio.analysis import MAX_SECONDS
from bagel_studio.core.audio.birdnet import INSTALL_HINT, BirdNETUnavailable, unavailable
from bagel_studio.core.audio.decode import AudioError, DecodedAudio, decode
from bagel_studio.core.audio.project import cache_key
from bagel_studio.core.audio.species import (
    DETECTION_VERSION,
    Detection,
    SpeciesAnswer,
    answer,
    detect,
)
from bagel_studio.core.model import Item

if TYPE_CHECKING:
    from bagel_studio.core.store import Store


def cached_detection(store: Store, recording: dict[str, Any]) -> Detection | str | None:
    """The cached Detection, the cached error line, or None when not detected yet."""
    text = store.evidence.detection_json(cache_key(recording), DETECTION_VERSION)
    if text is None:
        return None
    data = json.loads(text)
    if "error" in data:
        return str(data["error"])
    return Detection.from_json(data)


def detection_result(audio: DecodedAudio) -> dict[str, Any]:
    """``audio``'s detection as JSON, or {"error": one line} (raises ``BirdNETUnavailable``)."""
    try:
        return detect(audio).to_json()
    except BirdNETUnavailable:
        raise
    except (ValueError, RuntimeError, MemoryError) as exc:
        return {"error": f"{audio.name}: BirdNET could not run on it ({exc})"}


def detect_file(path: str | Path) -> dict[str, Any]:
    """Decode ``path`` and detect: the detection's JSON with the audio's SHA-256, or an error."""
    try:
        audio = decode(path, MAX_SECONDS)
    except AudioError as exc:
        return {"error": str(exc)}
    return detection_result(audio) | {"audio_sha256": audio.sha256}


def store_detection_result(store: Store, keys: list[str], result: dict[str, Any]) -> None:
    """Cache ``result`` (a detection's JSON or an error) under each key (a project open
    read-only is left unchanged)."""
    if store.read_only:
        return
    payload = {k: v for k, v in result.items() if k != "audio_sha256"}
    model = str(payload.get("model") or "")
    store.evidence.put_detection(
        keys, DETECTION_VERSION, model, json.dumps(payload, sort_keys=True)
    )


def item_species(item: Item, recording: dict[str, Any] | None) -> str | None:
    """The scientific name the item is about: its source's, else its recording's."""
    for value in (
        item.source.get("scientific_name"),
        item.source.get("species"),
        (recording or {}).get("scientific_name"),
    ):
        if isinstance(value, str) and len(value.split()) >= 2:
            return value.strip()
    return None


@dataclass(frozen=True)
class ItemSpecies:
    """What the project knows about whether the item's species is in its clip: an answer, or
    why there is none (not detected yet, unreadable, no species named, BirdNET not installed)."""

    species: str | None
    answer: SpeciesAnswer | None = None
    reason: str | None = None


def item_answer(store: Store, item: Item, recording: dict[str, Any] | None = None) -> ItemSpecies:
    """The answer for ``item``'s species from its clip's cached detection (never runs BirdNET)."""
    if recording is None and item.recording_id:
        recording = store.evidence.recording(item.recording_id)
    species = item_species(item, recording)
    if recording is None:
        return ItemSpecies(species, reason="no recording")
    if species is None:
        return ItemSpecies(None, reason="the item names no species (genus and species)")
    missing = unavailable()
    if missing is not None:
        return ItemSpecies(species, reason=missing)
    cached = cached_detection(store, recording)
    if cached is None:
        return ItemSpecies(species, reason="not detected yet")
    if isinstance(cached, str):
        return ItemSpecies(species, reason=cached)
    return ItemSpecies(species, answer(cached, species))


def card_line(known: ItemSpecies) -> str | None:
    """The desk's recording card's "BirdNET" line: what the clip says of the item's species
    (None: nothing to say)."""
    found = known.answer
    if found is None:
        if known.reason == INSTALL_HINT:
            return "not installed (bash packaging/setup.sh installs it)"
        if known.reason == "not detected yet":
            return "not run yet (open the clip, or Review → Measure all clips)"
        return None if known.reason == "no recording" else known.reason
    if not found.covered:
        return f"not covered ({found.species} is not in its list)"
    if found.rival is not None:
        return f"{found.rival.label.common} leads most windows ({found.rival.best:.2f})"
    if not found.detected:
        return f"species not heard (best {found.best:.2f})"
    return f"confirmed (best {found.best:.2f})"
