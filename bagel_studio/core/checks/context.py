"""What the checks of many items share: the GloBI record lookup, texts and recordings.

``check_all`` builds one bulk context (every GloBI record read once into a taxon index, every
recording read once); re-checking one edited item uses a light context that asks SQLite only for
what that item names.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from bagel_studio.core.checks.records import IndexedRecords, QueriedRecords, Records

if TYPE_CHECKING:
    from bagel_studio.core.store import Store

_MISSING: dict[str, Any] = {}


class CheckContext:
    def __init__(self, store: Store, records: Records, *, preload_recordings: bool = False) -> None:
        self.store = store
        self.records = records
        self._texts: dict[str, dict[str, Any] | None] = {}
        self._recordings: dict[str, dict[str, Any]] | None = None
        self._blind: dict[str, list[tuple[str, int]]] | None = None
        self._models: dict[str, list[tuple[str, int | None, str]]] | None = None
        self._verdicts: dict[str, dict[str, Any]] | None = None
        if preload_recordings:
            self._recordings = _all_recordings(store)
            self._blind = _blind_answers(store, None)
            self._models = store.llm.model_choices(None)
            self._verdicts = store.llm.latest_verdicts()

    @classmethod
    def bulk(cls, store: Store) -> CheckContext:
        return cls(store, IndexedRecords(store), preload_recordings=True)

    @classmethod
    def single(cls, store: Store) -> CheckContext:
        return cls(store, QueriedRecords(store))

    def text(self, key: str | None) -> dict[str, Any] | None:
        """A stored text by an item's text key (cached: many items share one article)."""
        if not key:
            return None
        if key not in self._texts:
            self._texts[key] = self.store.evidence.find_text(key)
        return self._texts[key]

    def recording(self, recording_id: str | None) -> dict[str, Any] | None:
        if not recording_id:
            return None
        if self._recordings is not None:
            return self._recordings.get(recording_id.upper())
        return self.store.evidence.recording(recording_id)

    def blind_answers(self, item_id: str) -> list[tuple[str, int]]:
        """(curator, option index) of every blind answer recorded for the item."""
        if self._blind is not None:
            return self._blind.get(item_id, [])
        return _blind_answers(self.store, item_id).get(item_id, [])

    def model_choices(self, item_id: str) -> list[tuple[str, int | None, str]]:
        """(profile label, option index, content hash) of each model's newest answer."""
        if self._models is not None:
            return self._models.get(item_id, [])
        return self.store.llm.model_choices(item_id).get(item_id, [])

    def judge_verdict(self, item_id: str) -> dict[str, Any] | None:
        """The newest readable second opinion on the item, if any."""
        if self._verdicts is not None:
            return self._verdicts.get(item_id)
        return self.store.llm.latest_verdicts(item_id).get(item_id)


def _blind_answers(store: Store, item_id: str | None) -> dict[str, list[tuple[str, int]]]:
    return store.reviews.blind_answers(item_id)


def _all_recordings(store: Store) -> dict[str, dict[str, Any]]:
    result: dict[str, dict[str, Any]] = {}
    for data in store.evidence.recording_rows():
        result[str(data["id"]).upper()] = data
    return result
