"""Exporting the adjudicated release: plan, write every file into a temporary folder, rename.

``export_release`` is what the command line and the desk call. It refuses to start when OUTDIR
is in the way or when an item that would be released is blocked (a blocking flag, a released
content that fails the structural checks, a recording under a NoDerivatives licence), and it
never leaves a partial release behind: an error, a cancellation from the progress callback or a
killed process leaves OUTDIR as it was.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Generator, Iterator
from concurrent.futures import BrokenExecutor, ThreadPoolExecutor
from contextlib import ExitStack, closing, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bagel_studio import __version__
from bagel_studio.core.domains import LETTERS
from bagel_studio.core.export import layout
from bagel_studio.core.export.atomic import ReleaseFolder, check_out_dir
from bagel_studio.core.export.audit_section import ReleaseAudit
from bagel_studio.core.export.card import dataset_card
from bagel_studio.core.export.plan import (
    BlockedItem,
    ExportError,
    ExportPlan,
    gc_paused,
    plan_export,
    snapshot,
)
from bagel_studio.core.export.render import Lines, Rendered, render
from bagel_studio.core.export.report import Sections, plan_plots, report_files
from bagel_studio.core.export.rows import dumps_document
from bagel_studio.core.export.tables import LengthSums
from bagel_studio.core.store import Store

if TYPE_CHECKING:  # forked workers are imported only when asked for
    from bagel_studio.core.export.processes import ExportWorkers

Progress = Callable[[int, int], None]
Step = tuple[str, Callable[[], dict[str, bytes]]]  # a name and what it writes: {path: bytes}
PROGRESS_TOTAL = 100  # export_release reports progress in percent
PLAN_SHARE = 40  # the part of it spent planning
SPOOL = ".rendered"  # the folder of batches rendered by worker processes (``ItemWriter.spool``)


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


def export_release(
    store: Store,
    out_dir: str | Path,
    seed: int,
    force: bool = False,
    progress: Progress | None = None,
    workers: int = 1,
) -> ExportResult:
    """Write the release of ``store`` under ``seed`` to ``out_dir`` (see the module docstring);
    a large project is planned and rendered on ``workers`` processes (``processes``; never
    from the desk), and its items are written while it is planned."""
    out = Path(out_dir).absolute()
    project = None if str(store.path) == ":memory:" else store.path
    check_out_dir(out, force, project)

    def planning(done: int, total: int) -> None:
        if progress is not None:
            progress(PLAN_SHARE * done // max(total, 1), PROGRESS_TOTAL)

    pool = _workers(store.path, workers)
    try:
        if pool is not None and pool.plans(store):
            pool.start()
            return _export_pooled(store, seed, out, progress, planning, pool)
        plan = plan_export(store, seed, planning)
        _releasable(plan)
        return write_release(plan, out, force, progress, project)
    finally:
        if pool is not None:
            pool.close()


def _export_pooled(
    store: Store,
    seed: int,
    out: Path,
    progress: Progress | None,
    planning: Progress,
    pool: ExportWorkers,
) -> ExportResult:
    """Plan on the workers, and write each batch of items into the release folder as soon as
    the workers have rendered it, while later batches are planned; then the rest."""
    with _writing(out) as (folder, items):
        try:
            pool.sink = items.add
            pool.spool = items.spool()
            plan = plan_export(
                store, seed, planning, pool.plan, pool.dealt, pool.ahead, pool.workers
            )
            pool.sink = None
            _releasable(plan)
            return _write(plan, folder, items, progress, pool.rendered(plan))
        except BaseException as exc:
            # the folder is removed next: no worker may still be spooling a batch into it
            pool.close(wait=True)
            if isinstance(exc, BrokenExecutor):  # a worker killed (out of memory?)
                raise ExportError(
                    "a worker process of the export ended abruptly (killed, or out of memory?);"
                    " run the export again, or with --workers 1"
                ) from exc
            raise


def _releasable(plan: ExportPlan) -> None:
    """Raise when ``plan`` cannot be released: blocked items, or nothing accepted."""
    if plan.blocked:
        raise ExportBlockedError(plan.blocked)
    if not plan.items:
        left_out = ", ".join(f"{n} {s}" for s, n in plan.left_out_totals().items())
        raise NothingToReleaseError(f"nothing to release: no item is accepted ({left_out})")


def _workers(path: Path, workers: int) -> ExportWorkers | None:
    """Worker processes for an export of the project at ``path``, when asked for and
    possible."""
    if workers < 2:
        return None
    from bagel_studio.core.export import processes

    return processes.ExportWorkers(path, workers) if processes.can_fork(path, workers) else None


def write_release(
    plan: ExportPlan,
    out_dir: Path,
    force: bool = False,
    progress: Progress | None = None,
    project: Path | None = None,
    pool: ExportWorkers | None = None,
) -> ExportResult:
    """Write an already computed plan (the desk plans once for the preview, then writes): the
    items are rendered by ``pool`` when its workers planned it and keep its prepared lines,
    else read again and rendered here, a batch at a time."""
    if plan.blocked:
        raise ExportBlockedError(plan.blocked)
    check_out_dir(out_dir, force, project)
    with _writing(out_dir) as (folder, items):
        rest = pool.rendered(plan) if pool is not None and pool.holds(plan) else _rendered(plan)
        return _write(plan, folder, items, progress, rest)


@contextmanager
def _writing(out_dir: Path) -> Iterator[tuple[ReleaseFolder, ItemWriter]]:
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


def _write(
    plan: ExportPlan,
    folder: ReleaseFolder,
    items: ItemWriter,
    progress: Progress | None,
    rest: Generator[Rendered, None, None],
) -> ExportResult:
    """Write the items not written yet (``rest``, rendered), then the report, card and
    manifest, and put the folder in place (the caller discards it on an error).

    The released items stream into the data and provenance files a batch at a time; the
    content hash is taken on the way, so the report, card and manifest that follow have it
    without a second pass."""
    drawing = ThreadPoolExecutor(1, thread_name_prefix="export-plots")
    try:
        # the plan's plots are drawn meanwhile (their compression lets the writer's thread run)
        plots = drawing.submit(plan_plots, plan)
        with gc_paused(), snapshot(plan.items.store):
            total = len(plan.items)
            with closing(rest):
                for rendered in rest:
                    items.add(rendered)
                    if progress is not None:
                        share = (PROGRESS_TOTAL - PLAN_SHARE) // 2
                        progress(PLAN_SHARE + share * items.done // max(total, 1), PROGRESS_TOTAL)
            content_hash, sections = items.close(plan)
            steps = _steps(plan, content_hash, sections, plots.result())
            _write_steps(folder, steps, progress)
        manifest = build_manifest(plan, folder.hashes, content_hash)
        folder.write(layout.MANIFEST, dumps_document(manifest))
        final = folder.commit()
    finally:
        drawing.shutdown(wait=True, cancel_futures=True)
    if progress is not None:
        progress(PROGRESS_TOTAL, PROGRESS_TOTAL)
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
        self._audit = ReleaseAudit()
        self._lengths = LengthSums()
        self._files = ExitStack()
        self._write_all = self._files.enter_context(folder.stream(layout.ALL_ITEMS))
        self._write_provenance = self._files.enter_context(folder.stream(layout.PROVENANCE))
        self._domain_file: ExitStack | None = None
        self._write_domain: Callable[[Lines], None] | None = None
        self._current: str | None = None
        self._spool: Path | None = None

    def spool(self) -> Path:
        """A folder (in the release's temporary folder) where worker processes may leave
        rendered batches for ``add`` (``Rendered.spool``); it is gone when the writer closes."""
        if self._spool is None:
            self._spool = self.folder.path / SPOOL
            self._spool.mkdir()
        return self._spool

    def add(self, rendered: Rendered) -> None:
        """Write the next batch of released items."""
        rendered = rendered.unspooled()
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
        self._hash.update(rendered.hashed)
        self._lengths.merge(rendered.lengths)
        self._audit.merge(rendered.audit)
        self.done += rendered.count

    def close(self, plan: ExportPlan) -> tuple[str, Sections]:
        """Close the files (each made durable); the content hash and the report's sections."""
        if self._spool is not None:
            # every batch spooled to it was written, and its file removed; removed before the
            # files are closed, whose flushes to disk (begun on closing) held a removal after
            # them up for 6-8 ms (the filesystem's journal)
            self._spool.rmdir()
            self._spool = None
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


def _rendered(plan: ExportPlan) -> Generator[Rendered, None, None]:
    """The released items read and rendered here a batch at a time, in release order."""
    items = plan.items
    for start in range(0, len(items), items.BATCH):
        yield render(items.store, items.slots[start : start + items.BATCH], items.seed)


def _write_steps(folder: ReleaseFolder, steps: list[Step], progress: Progress | None) -> None:
    base = PLAN_SHARE + (PROGRESS_TOTAL - PLAN_SHARE) // 2
    for index, (_, produce) in enumerate(steps, start=1):
        for relative, data in produce().items():
            folder.write(relative, data)
        if progress is not None:
            share = PROGRESS_TOTAL - base
            progress(base + share * index // (len(steps) + 1), PROGRESS_TOTAL)


def _steps(
    plan: ExportPlan, content_hash: str, sections: Sections, plots: dict[str, bytes]
) -> list[Step]:
    """What is written after the items: report, card (the manifest comes last)."""
    return [
        ("report", lambda: report_files(plan, content_hash, sections, plots)),
        (
            "card",
            lambda: {layout.README: dataset_card(plan, content_hash, __version__).encode("utf-8")},
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

    return record(store, str(result.out_dir), result.seed, result.manifest)


def last_export_seed(store: Store) -> int | None:
    """The seed of the project's newest recorded export, to offer it again."""
    return store.project.last_export_seed()
