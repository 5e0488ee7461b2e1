"""The write and report stages of the export (``pipeline``): the released items streamed into the
data and provenance files of a temporary folder (``ItemWriter``), then the report, the dataset
card and the manifest (``write_documents``), and the folder renamed into place.

The export refuses to start when OUTDIR is in the way or when an item that would be released is
blocked (a blocking flag, a released content that fails the structural checks, a recording under
a NoDerivatives licence), and it never leaves a partial release behind: an error, a cancellation
from the progress callback or a killed process leaves OUTDIR as it was.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bagel_studio import __version__
from bagel_studio.core.audit.features import BatchedAudit
from bagel_studio.core.domains import LETTERS
from bagel_studio.core.export.atomic import ReleaseFolder
from bagel_studio.core.export.plan import BlockedItem, ExportError, ExportPlan
from bagel_studio.core.export.render import Lines, Rendered
from bagel_studio.core.export.report import Sections, report_files
from bagel_studio.core.export.rows import dumps_document
from bagel_studio.core.export.species_section import card_sentence
from bagel_studio.core.report import layout
from bagel_studio.core.report.card import dataset_card
from bagel_studio.core.report.tables import LengthSums
from bagel_studio.core.store import Store

Progress = Callable[[int, int], None]
Signer = Callable[[bytes], bytes]  # the manifest -> its signature (``importers.signing``)
Step = tuple[str, Callable[[], dict[str, bytes]]]  # a name and what it writes: {path: bytes}


class ExportBlockedError(ExportError):
    """Items that would be released are blocked; nothing was written."""

    def __init__(self, blocked: tuple[BlockedItem, ...]) -> None:
        self.blocked = blocked
        listing = "\n".join(f"  {b}" for b in blocked)
        super().__init__(f"{len(blocked)} item(s) block the export:\n{listing}")


class NothingToReleaseError(ExportError):
    """No item of the project is accepted or revised yet."""


class ExportCancelled(ExportError):
    """Raised by a progress callback to stop an export; nothing is left behind."""


@dataclass(frozen=True)
class ExportResult:
    out_dir: Path
    plan: ExportPlan
    manifest: dict[str, Any]

    @property
    def seed(self) -> int:
        return self.plan.seed

    @property
    def released(self) -> int:
        return len(self.plan.items)

    @property
    def report_path(self) -> Path:
        return self.out_dir / layout.REPORT

    @property
    def card_path(self) -> Path:
        return self.out_dir / layout.README


@contextmanager
def writing(out_dir: Path) -> Iterator[tuple[ReleaseFolder, ItemWriter]]:
    """A temporary release folder for ``out_dir`` and the writer of its items; on an error the
    writer's files are closed and the folder removed (nothing is left behind)."""
    folder = ReleaseFolder(out_dir)
    items: ItemWriter | None = None
    try:
        items = ItemWriter(folder)
        yield folder, items
    except BaseException as exc:
        if items is not None:
            items.abandon(exc)
        folder.discard()
        raise


def write_documents(
    plan: ExportPlan,
    folder: ReleaseFolder,
    items: ItemWriter,
    progress: Progress | None,
    sign: Signer | None = None,
    sound: Callable[[], None] | None = None,
) -> ExportResult:
    """The report stage, once every item is written: the report, the card and the manifest
    (and, with ``sign``, the manifest's signature beside it), and the folder put in place (the
    caller discards it on an error). ``sound`` raises if the project is not (its check ran
    beside the export: ``Store.sound_beside``); it is asked before the manifest is written."""
    content_hash, sections = items.close(plan)
    steps = _steps(plan, content_hash, sections)
    for index, (_, produce) in enumerate(steps, start=1):
        for relative, data in produce().items():
            folder.write(relative, data)
        if progress is not None:
            progress(index, len(steps) + 1)
    if sound is not None:
        sound()
    manifest = build_manifest(plan, folder.hashes, content_hash)
    document = dumps_document(manifest)
    folder.write(layout.MANIFEST, document)
    if sign is not None:
        folder.write(layout.SIGNATURE, sign(document))
    final = folder.commit()
    if progress is not None:
        progress(1, 1)
    return ExportResult(final, plan, manifest)


class ItemWriter:
    """The data files and the provenance, written in one pass over the released items in
    release order (by domain, so each domain's file is written in one go), a rendered batch
    at a time (``add``); ``close`` gives the content hash and what the report's item-level
    sections need, gathered on the same pass (nothing of an item outlives its batch but
    those sections' few values)."""

    def __init__(self, folder: ReleaseFolder) -> None:
        self.folder = folder
        self.done = 0  # items written
        self._hash = hashlib.sha256()
        self._audit = BatchedAudit()
        self._lengths = LengthSums()
        self._files = ExitStack()
        self._write_all = self._files.enter_context(folder.stream(layout.ALL_ITEMS))
        self._write_provenance = self._files.enter_context(folder.stream(layout.PROVENANCE))
        self._domain_file: ExitStack | None = None
        self._write_domain: Callable[[Lines], None] | None = None
        self._current: str | None = None

    def add(self, rendered: Rendered) -> None:
        """Write the next batch of released items."""
        for domain, lines in rendered.segments:
            if domain != self._current:
                if self._domain_file is not None:
                    self._domain_file.close()
                self._domain_file = self._files.enter_context(ExitStack())
                self._write_domain = self._domain_file.enter_context(
                    self.folder.stream(layout.domain_file(domain))
                )
                self._current = domain
            self._write_all(lines)
            assert self._write_domain is not None
            self._write_domain(lines)
        self._write_provenance(rendered.provenance)
        self.hash(rendered.hashed)
        self._lengths.merge(rendered.lengths)
        self._audit.merge(rendered.audit)
        self.done += rendered.count

    def hash(self, lines: Lines) -> None:
        """Take in the next released items' lines of the content hash (release order)."""
        self._hash.update(lines)

    def close(self, plan: ExportPlan) -> tuple[str, Sections]:
        """Close the files (each made durable); the content hash and the report's sections."""
        self._files.close()
        folder = self.folder
        for domain in plan.domains:  # a domain with nothing released still gets its (empty) file
            if layout.domain_file(domain) not in folder.hashes:
                folder.write(layout.domain_file(domain), b"")
        ids = [slot.item_id for slot in plan.items.slots]
        return self._hash.hexdigest(), Sections(self._audit.report(ids), self._lengths)

    def abandon(self, error: BaseException) -> None:
        """Close the files of a release that will not be (nothing more is made durable)."""
        self._files.__exit__(type(error), error, error.__traceback__)


def _steps(plan: ExportPlan, content_hash: str, sections: Sections) -> list[Step]:
    """What is written after the items: report, card (the manifest comes last)."""
    return [
        ("report", lambda: report_files(plan, content_hash, sections)),
        (
            "card",
            lambda: {
                layout.README: dataset_card(
                    plan, content_hash, __version__, card_sentence(plan)
                ).encode("utf-8")
            },
        ),
    ]


def build_manifest(
    plan: ExportPlan, files: dict[str, dict[str, int | str]], content_hash: str | None = None
) -> dict[str, Any]:
    """The manifest: everything needed to reproduce and verify the release (not itself listed)."""
    released = plan.released_by_domain()
    return {
        "format": layout.FORMAT_NAME,
        "format_version": layout.FORMAT_VERSION,
        "tool": "bagel-studio",
        "tool_version": __version__,
        "seed": plan.seed,
        "content_sha256": content_hash or plan.content_hash,
        "counts": {
            "released": {"total": len(plan.items), "by_domain": released},
            "by_dimension": plan.dimension_counts(),
            "left_out": {
                status: {"total": sum(by.values()), "by_domain": by}
                for status, by in plan.left_out.items()
            },
            "review_outcomes": plan.outcomes,
            "reject_reasons": plan.reject_reasons,
        },
        "balance": {
            domain: {
                "before": dict(zip(LETTERS, b.before, strict=True)),
                "after": dict(zip(LETTERS, b.after, strict=True)),
                "movable_after": dict(zip(LETTERS, b.movable_after, strict=True)),
                "movable": b.movable,
                "immovable": b.immovable,
                "spread": b.spread,
            }
            for domain, b in plan.balance.items()
        },
        "immovable_items": sum(b.immovable for b in plan.balance.values()),
        "recording_licences": plan.licences,
        "recordings_without_licence": list(plan.unknown_licence),
        "files": dict(sorted(files.items())),
        **_models_manifest(plan),
    }


def _models_manifest(plan: ExportPlan) -> dict[str, Any]:
    """``llm``: the evaluated models, their settings and the evaluation prompt's hash."""
    if not plan.models:
        return {}
    from bagel_studio.core.llm.report import manifest_entry

    return {"llm": manifest_entry(plan.models)}


def record_export(store: Store, result: ExportResult) -> int:
    """Note the export in the project's ``exports`` table (needs the project open for writing)."""
    from bagel_studio.core.operations import record_export as record

    return record(store, str(result.out_dir), result.seed, result.manifest).result


def last_export_seed(store: Store) -> int | None:
    """The seed of the project's newest recorded export, to offer it again."""
    return store.project.last_export_seed()
