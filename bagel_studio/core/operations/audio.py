"""Storing a clip's measurement: the cache entry and the re-check of the item it belongs to."""

from __future__ import annotations

from typing import Any

from bagel_studio.core.audio.analysis import Measurement
from bagel_studio.core.audio.project import cache_key, store_result
from bagel_studio.core.checks import recheck_item
from bagel_studio.core.model import Flag
from bagel_studio.core.store import Store


def store_measurement(
    store: Store,
    recording: dict[str, Any],
    audio_sha256: str,
    measurement: Measurement,
    item_id: str | None,
) -> list[Flag] | None:
    """Cache ``measurement`` of ``recording`` (under its cache key and the decoded audio's
    SHA-256, as ``measurement_for`` would) and re-check ``item_id`` and the other items of the
    recording (they share the clip) so their acoustic flags (mismatch, too short, too quiet)
    follow, in one transaction; return ``item_id``'s flags, or None when no item was given. A
    project open read-only is left unchanged."""
    if store.read_only:
        return None
    result = measurement.to_json()
    result["audio_sha256"] = audio_sha256
    with store.transaction():
        store_result(store, [cache_key(recording), audio_sha256], result)
        for sibling in store.items_with_recording(str(recording["id"])):
            if sibling != item_id:
                recheck_item(store, sibling)
        return recheck_item(store, item_id) if item_id is not None else None
