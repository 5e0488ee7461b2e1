"""Import writes: one input file, one transaction.

The importers read and parse; what a file brings is written here. ``import_file`` opens the
file's transaction and records the import; the ``FileImport`` it yields writes the file's items
(with their structural, blocking flags), evidence, rejects and generator rejections as the reader
hands them over; at the end of the block the new items are indexed for search and marked as
awaiting their other checks, the earlier items whose evidence arrived are marked too, and the
import's summary is stored. A crash leaves either the whole file or none of it, and never an item
without its blocking flags or without the record that its checks are due. What a file changed
(``FileImport.changes``) is said of every item, not item by item: an import's ids would grow with
the file.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from bagel_studio.core.audio.project import store_result
from bagel_studio.core.changes import NOTHING, Changes, Done, Part
from bagel_studio.core.checks.structural import structural_flags
from bagel_studio.core.checks.verdict import release_verdict
from bagel_studio.core.domains import GLOBI
from bagel_studio.core.model import Flag
from bagel_studio.core.store import GeneratorRejection, NewItem, Reject, Store


@dataclass
class Evidence:
    """Evidence that arrived: GloBI records (how many), the imports that wrote recordings (the
    store keeps which recordings each wrote, so that this does not grow with them), text keys
    (lower case)."""

    globi_added: int = 0
    recording_imports: set[int] = field(default_factory=set)
    text_keys: set[str] = field(default_factory=set)

    def __bool__(self) -> bool:
        return bool(self.globi_added or self.recording_imports or self.text_keys)

    def update(self, other: Evidence) -> None:
        self.globi_added += other.globi_added
        self.recording_imports |= other.recording_imports
        self.text_keys |= other.text_keys


@dataclass
class ItemsWritten:
    """What ``FileImport.add_items`` did with a batch: the items it added (in the batch's
    order) and the ids already in the project (left as they were)."""

    added: list[NewItem]
    present: set[str]


class FileImport:
    """The writes of one input file, inside its transaction (see ``import_file``)."""

    def __init__(self, store: Store, import_id: int) -> None:
        self.store = store
        self.import_id = import_id
        self.evidence = Evidence()
        self.wrote = NOTHING
        self.sha256: str | None = None
        self.size: int | None = None
        self.stat: Sequence[int] | None = None

    @property
    def changes(self) -> Changes:
        """What the file's writes changed so far: new items (with their flags), and the
        evidence and flags of earlier items when evidence arrived."""
        if self.evidence:
            return self.wrote | Changes.of_every_item(Part.FLAGS, evidence=True)
        return self.wrote

    def file_read(self, sha256: str, size: int, stat: Sequence[int] | None) -> None:
        """The file's SHA-256 and size, known once it has been read, and its stat when it may
        stand for that content at the next import (see ``importers.reading``); stored with the
        import at the end of the block."""
        self.sha256, self.size, self.stat = sha256, size, stat

    def write_items(self, items: Mapping[str, NewItem]) -> ItemsWritten:
        """Add the items not yet in the project, each with its structural flags."""
        present = self.store.items.present_ids(list(items))
        new = [item for item_id, item in items.items() if item_id not in present]
        flags: dict[str, list[Flag]] = {}
        verdicts: dict[str, int | None] = {}
        for item in new:
            # a sound content's verdict; the flags of one that fails a structural check
            verdict = verdicts[item.id] = release_verdict(item.domain, item.content)
            if verdict is None:
                found = structural_flags(item.domain, item.content, item.given_answer)
                if found:
                    flags[item.id] = found
        self.store.items.add_items(new, self.import_id, flags, verdicts)
        if new:
            self.wrote |= Changes.of_every_item(Part.NEW | Part.FLAGS)
        return ItemsWritten(new, present)

    def write_globi_records(self, records: Sequence[dict[str, Any]]) -> int:
        if not records:
            return 0
        added = self.store.evidence.add_globi_records(records, self.import_id)
        self.evidence.globi_added += added
        return added

    def write_texts(self, texts: Sequence[dict[str, Any]]) -> int:
        if not texts:
            return 0
        for text in texts:
            self.evidence.text_keys.update(text_keys(text))
        return self.store.evidence.add_texts(texts, self.import_id)

    def write_recordings(self, recordings: Sequence[dict[str, Any]]) -> list[str]:
        """Store ``recordings``; the ids of those inserted or changed."""
        if recordings:
            self.evidence.recording_imports.add(self.import_id)
        return self.store.evidence.upsert_recordings(recordings, self.import_id)

    def write_generator_rejections(self, rejections: Sequence[GeneratorRejection]) -> int:
        return self.store.imports.add_generator_rejections(rejections, self.import_id)

    def write_rejects(self, rejects: Sequence[Reject]) -> int:
        if rejects:
            self.store.imports.add_rejects(self.import_id, rejects)
        return len(rejects)


@contextmanager
def import_file(
    store: Store, path: str, name: str, sha256: str | None, fmt: str, summary: dict[str, Any]
) -> Iterator[FileImport]:
    """One file's transaction: records the import, yields its writer, and at the end marks what
    must be re-checked and stores ``summary`` (filled in by the caller within the block), with
    the file's SHA-256 (given here, or by ``FileImport.file_read`` once the file is read), size
    and stat."""
    with store.transaction(), store.items.items_in_bulk():
        writer = FileImport(store, store.imports.record_import(path, name, sha256, fmt))
        yield writer
        # the items whose checks this file's evidence made due (its new items are marked by
        # items_in_bulk), committed with the file: a kill before the checks finish keeps them
        store.flags.mark_checks_pending(linked_items(store, writer.evidence, exclude=set()))
        store.imports.finish_import(
            writer.import_id, {"format": fmt, **summary}, writer.sha256, writer.size
        )
        if writer.stat is not None:
            store.imports.remember_files([(path, writer.import_id, writer.stat)])


def link_texts(store: Store, links: Sequence[tuple[str, str]]) -> Done[list[str]]:
    """Give each (item id, text key) item that names no text that text, in one transaction with
    the record that its checks are due (the checks that read the text). Returns the items
    linked (``importers.linking`` finds which article a flat Wikipedia item names)."""
    if not links:
        return Done([])
    with store.transaction():
        store.items.link_texts(links)
        linked = [item_id for item_id, _key in links]
        store.flags.mark_checks_pending(linked)
    return Done(linked, Changes.of_items(linked, Part.FLAGS, evidence=True))


def remember_files(store: Store, files: Sequence[tuple[str, int, Sequence[int]]]) -> Done[None]:
    """Note (path, import id, stat) of files an import found to hold the content of that earlier
    import, so that the next one passes them over unread; one transaction. Nothing a window
    shows changes."""
    if files:
        with store.transaction():
            store.imports.remember_files(files)
    return Done(None)


def record_unreadable_audio(
    store: Store, import_id: int, reject: Reject, sha256: str | None, error: str
) -> Done[None]:
    """An attached audio file that cannot be decoded: a reject of its import, and its decode
    error cached as the clip's measurement (its items' checks then flag audio-unreadable)."""
    with store.transaction():
        store.imports.add_rejects(import_id, [reject])
        if sha256 is not None:
            store_result(store, [sha256], {"error": error})
    return Done(None, Changes(evidence=True))


def linked_items(store: Store, evidence: Evidence, exclude: set[str]) -> list[str]:
    """Items whose checks read ``evidence``, less ``exclude``.

    New GloBI records can change any GloBI item's flags (other records linking the same taxa),
    so all of those are included; recordings and texts affect only the items naming them.
    """
    if not evidence:
        return []  # no evidence came in: nothing earlier can have changed
    linked = store.evidence.linked_item_ids(
        GLOBI if evidence.globi_added > 0 else None,
        sorted(evidence.recording_imports),
        sorted(evidence.text_keys),
    )
    return [item_id for item_id in linked if item_id not in exclude]


def recordings_arrived(store: Store, evidence: Evidence) -> int:
    """How many distinct recordings the imports of ``evidence`` inserted or changed."""
    return store.evidence.arrived_recording_count(sorted(evidence.recording_imports))


def forget_arrivals(store: Store) -> None:
    """Once an import run is done: empty the store's note of the recordings its imports wrote
    (a temporary table of this connection; nothing of the project changes)."""
    store.evidence.forget_arrived_recordings()


def text_keys(text: dict[str, Any]) -> list[str]:
    """The ``text_key`` spellings an item may use for ``text`` (see
    ``store.evidence.find_text``)."""
    keys = [text["key"]]
    for prefix, column in (
        ("title", "title"),
        ("sci", "scientific_name"),
        ("doi", "doi"),
        ("file", "source_file"),
    ):
        if text.get(column):
            keys.append(f"{prefix}:{text[column]}")
    return [k.lower() for k in keys]
