"""Storing a clip's measurement: the cache entry and the re-check of the items it belongs to."""

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
    item_id: str | None = None,
) -> dict[str, list[Flag]]:
    """Cache ``measurement`` of ``recording`` (under its cache key and the decoded audio's
    SHA-256, as ``measurement_for`` would) and re-check every item of the recording (and
    ``item_id``, the one on screen) so their acoustic flags (mismatch, too short, too quiet)
    follow, in one transaction; return the flags of each item re-checked (``item_id`` first).
    A project open read-only is left unchanged (nothing re-checked)."""
    if store.read_only:
        return {}
    result = measurement.to_json()
    result["audio_sha256"] = audio_sha256
    with store.transaction():
        store_result(store, [cache_key(recording), audio_sha256], result)
        ids = [] if item_id is None else [item_id]  # the one on screen first
        ids += [i for i in store.linked_item_ids(None, [str(recording["id"])], []) if i != item_id]
        return {i: recheck_item(store, i) for i in ids}
