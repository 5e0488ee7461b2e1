"""``import_paths``: every input file into the project, one transaction per file.

A file is recorded with its SHA-256, so importing it again changes nothing. The readers here parse;
``operations.imports`` writes: a file's items, evidence, rejects, generator rejections and the
items' structural (blocking) flags go in through one ``import_file`` transaction with its import
record, so a crash leaves either the whole file or none of it, and never an item without its
blocking flags.

The other checks (warnings and information, which read the evidence) run afterwards as a step of
their own, ``run_full_checks``, over the new items and the earlier ones whose evidence arrived:
``import_paths`` runs it unless told ``full_checks=False`` (the desk then runs it on its worker,
with progress).
"""

from __future__ import annotations

import itertools
import json
import os
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bagel_studio.core.importers import globi, item_files, linking, texts, xenocanto
from bagel_studio.core.importers.items import ItemBatch
from bagel_studio.core.importers.reading import (
    FileHashes,
    HashingReader,
    ReadCounter,
    Stat,
    file_stat,
    settled,
)
from bagel_studio.core.importers.report import ImportReport
from bagel_studio.core.importers.sniff import (
    HEAD_BYTES,
    KIND_ORDER,
    Input,
    classify_file,
    collect,
    document_limit,
    line_limit,
    sniff,
    without_items,
)
from bagel_studio.core.importers.textio import decode, to_utf8
from bagel_studio.core.operations.imports import (
    Evidence,
    FileImport,
    forget_arrivals,
    import_file,
    link_texts,
    linked_items,
    record_unreadable_audio,
    recordings_arrived,
    remember_files,
)
from bagel_studio.core.operations.project import recheck
from bagel_studio.core.store import NewItem, Reject, Store

Progress = Callable[[int, int], None]
SHOWN_KINDS = {"empty", "binary", "table", "bad-json"}  # rejected whole, even found in a folder


@dataclass
class _Planned:
    input: Input
    kind: str
    size: int
    stat: Stat


@dataclass
class _Run:
    """State shared by the files of one run."""

    store: Store
    report: ImportReport
    audio: xenocanto.AudioIndex
    counter: ReadCounter = field(default_factory=ReadCounter)  # bytes of input read
    hashes: FileHashes = field(init=False)
    seen: list[tuple[str, int, Stat]] = field(default_factory=list)  # files known by content
    attached: set[Path] = field(default_factory=set)
    attached_by: dict[Path, int] = field(default_factory=dict)  # audio -> the import naming it
    evidence: Evidence = field(default_factory=Evidence)  # what this run brought in
    import_ids: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.hashes = FileHashes(self.counter)


def import_paths(
    store: Store,
    paths: Sequence[str | Path],
    progress: Progress | None = None,
    *,
    full_checks: bool = True,
    verify: bool = True,
    max_line_bytes: int | None = None,
    max_document_bytes: int | None = None,
    workers: int = 1,
    check_progress: Progress | None = None,
) -> ImportReport:
    """Import files and folders (walked) into ``store``; evidence first, then items.

    ``progress(done, total)`` is called from this thread with bytes of input processed, and
    ``check_progress`` with the items checked afterwards. Items
    come in with their structural flags; with ``full_checks`` the other checks then run on
    ``report.check_item_ids`` (see ``run_full_checks``). ``report.timings`` says how long the
    import and the checks took. A release folder is verified first and refused when it differs
    from its manifest, unless ``verify=False``; a line longer than ``max_line_bytes`` (default
    ``sniff.MAX_LINE_BYTES``) is a reject, and so is a file that must be read whole (a JSON
    document) larger than ``max_document_bytes`` (``sniff.MAX_DOCUMENT_BYTES``). JSON Lines,
    tables and plain texts are read as a stream, whatever their size. Every file is read once,
    hashed as it is parsed; one whose stat says it is unchanged since an earlier import read it
    is not read at all (see ``reading``); ``report.bytes_read`` says how much was read.
    """
    line_token = line_limit.set(max_line_bytes) if max_line_bytes else None
    document_token = document_limit.set(max_document_bytes) if max_document_bytes else None
    try:
        return _import_paths(
            store,
            paths,
            progress,
            full_checks=full_checks,
            verify=verify,
            workers=workers,
            check_progress=check_progress,
        )
    finally:
        if line_token is not None:
            line_limit.reset(line_token)
        if document_token is not None:
            document_limit.reset(document_token)


def _import_paths(
    store: Store,
    paths: Sequence[str | Path],
    progress: Progress | None,
    *,
    full_checks: bool,
    verify: bool,
    workers: int,
    check_progress: Progress | None,
) -> ImportReport:
    started, started_cpu = time.perf_counter(), time.process_time()
    report = ImportReport(rejects_after=store.imports.last_reject_id())
    collected = collect(list(paths))
    report.ignored = collected.ignored
    for name in collected.missing:
        report.unreadable.append(name)
        report.notes.append(f"{name}: no such file or folder")
    for name in collected.special:
        report.unreadable.append(name)
        report.notes.append(
            f"{name}: not a regular file (a device, FIFO or socket); only regular files and"
            " folders are read"
        )
    for name in collected.unnamable:
        report.unreadable.append(name)
        report.notes.append(f"{name}: the file name is not valid UTF-8; rename the file")
    inputs = _verified(collected.inputs, report) if verify else collected.inputs
    plans = _plan(inputs, report, store)
    run = _Run(
        store, report, xenocanto.AudioIndex(p.input.path for p in plans if p.kind == "audio")
    )
    total = sum(p.size for p in plans)
    done = 0
    if progress is not None:
        progress(0, total)
    for plan in plans:

        def advance(consumed: int, base: int = done) -> None:
            if progress is not None:
                progress(base + consumed, total)

        _import_file(run, plan, advance)
        done += plan.size
        if progress is not None:
            progress(done, total)
    # recordings this run inserted or changed, counted once when its audio file and then its
    # metadata (or the other way round) each fill in part of it
    report.evidence["recordings"] = recordings_arrived(store, run.evidence)
    report.evidence["audio_files"] = len(run.attached)
    remember_files(store, run.seen)
    report.bytes_read = run.counter.bytes
    _probe_audio(run)
    articles = _link_articles(run)
    due = report.new_item_ids + linked_items(store, run.evidence, exclude=set(report.new_item_ids))
    due_set = set(due)
    due += [item_id for item_id in articles if item_id not in due_set]
    due_set.update(articles)
    leftover = [i for i in store.flags.pending_check_ids() if i not in due_set]
    if leftover:
        report.notes.append(
            f"Checking {len(leftover):,} items an interrupted import left unchecked"
            " (their checks had not finished)."
        )
    report.check_item_ids = due + leftover
    # (a run that fails before this leaves its note behind, harmless: it is read by import id)
    if run.evidence.recording_imports:
        forget_arrivals(store)
    report.timings["import"] = time.perf_counter() - started
    report.timings["import_cpu"] = time.process_time() - started_cpu
    if full_checks:
        run_full_checks(store, report, check_progress, workers=workers)
    return report


def _link_articles(run: _Run) -> list[str]:
    """Flat Wikipedia items name no article: each is linked to the one its stem or id names,
    among the articles of this run and of earlier ones (``link_wikipedia_texts``), when items
    or articles came in. Returns the items linked."""
    if not (run.report.new_item_ids or run.evidence.text_keys):
        return []
    linked = link_texts(run.store, linking.wikipedia_links(run.store)).result
    if linked:
        run.report.notes.append(
            f"Linked {len(linked):,} Wikipedia item{'s' if len(linked) != 1 else ''} to the"
            " article their stem or id names (they named none)"
        )
    return linked


VERIFY_LISTING = 20
RELEASE_MANIFEST = "manifest.json"  # export.layout.MANIFEST, named here to spare its import
RELEASE_ITEMS = "data/all.jsonl"  # and layout.ALL_ITEMS


def _probe_audio(run: _Run) -> None:
    """Decode every audio file this run attached, as ``bagel-studio audio`` would: one that
    cannot be read is a reject of its own, and its decode error is cached as the clip's
    measurement, so the items that use it get the ``audio-unreadable`` flag from their checks."""
    if not run.attached_by:
        return
    from bagel_studio.core.audio.decode import AudioError, decode

    for path, import_id in sorted(run.attached_by.items()):
        try:
            decode(path)
        except AudioError as exc:
            reason = f"unreadable audio: {exc}; its items are flagged audio-unreadable"
            reject = Reject(path.name, 1, reason)
            record_unreadable_audio(run.store, import_id, reject, run.hashes.get(path), str(exc))
            run.report.note_rejects([reject])


def _verified(inputs: list[Input], report: ImportReport) -> list[Input]:
    """The inputs, less those inside a BAGEL Studio release that fails ``verify``: a tampered
    release is refused whole (with what differs) rather than taken as gold; so is one that
    has lost its manifest (nothing then proves it is what was exported)."""
    folders = {item.path.parent for item in inputs}
    near = {f for d in folders for f in [d, *d.parents][:3]}
    if not any((f / RELEASE_MANIFEST).is_file() or (f / RELEASE_ITEMS).is_file() for f in near):
        return inputs  # no release here: the release module need not even be loaded
    from bagel_studio.core.importers.release import (
        release_root,
        release_without_manifest,
        verify_release,
    )

    roots: dict[Path, Path | None] = {}
    refused: dict[Path, bool] = {}
    kept: list[Input] = []
    for item in inputs:
        folder = item.path.parent
        if folder not in roots:
            roots[folder] = release_root(folder)
            bare = release_without_manifest(folder) if roots[folder] is None else None
            if bare is not None and bare not in refused:
                refused[bare] = True
                report.unreadable.append(str(bare))
                report.notes.append(
                    f"{bare}: a release without its {RELEASE_MANIFEST}: nothing proves it is what"
                    " was exported; not imported. Import it anyway with --no-verify."
                )
            if bare is not None:
                roots[folder] = bare
        root = roots[folder]
        if root is None:
            kept.append(item)
            continue
        if root not in refused:
            result = verify_release(root)
            refused[root] = not result.intact
            if not result.intact:
                report.unreadable.append(str(root))
                report.notes.append(
                    f"{root}: a release that fails verification ({len(result.problems)}"
                    " difference(s) from its manifest); not imported. Import it anyway with"
                    " --no-verify."
                )
                report.notes.extend(f"  {p}" for p in result.problems[:VERIFY_LISTING])
                if len(result.problems) > VERIFY_LISTING:
                    more = len(result.problems) - VERIFY_LISTING
                    report.notes.append(f"  ... and {more} more (bagel-studio verify {root})")
        if not refused[root]:
            kept.append(item)
    return kept


def run_full_checks(
    store: Store,
    report: ImportReport,
    progress: Progress | None = None,
    *,
    audio: bool = True,
    workers: int = 1,
) -> int:
    """Every check on the items an import left to check (``report.check_item_ids``); stores
    their flags, records the time taken in ``report.timings["checks"]`` and returns the number
    of flags. ``progress(done, total)`` counts items."""
    started = time.perf_counter()
    count = 0
    if report.check_item_ids:
        count = recheck(store, report.check_item_ids, progress, audio=audio, workers=workers).result
    report.timings["checks"] = time.perf_counter() - started
    return count


def _plan(inputs: list[Input], report: ImportReport, store: Store) -> list[_Planned]:
    """Sniff every input and order them: evidence before items (stable within a kind). A file
    whose stat is the one it had when an earlier import read it is passed over here, unread
    (see ``reading``)."""
    plans: list[_Planned] = []
    for item in inputs:
        try:
            stat = file_stat(os.stat(item.path))
            if store.imports.import_for_file(str(item.path), stat) is not None:
                report.skipped_files.append(item.display)
                continue
            with open(item.path, "rb") as handle:
                head = handle.read(HEAD_BYTES)
        except OSError as exc:
            report.unreadable.append(item.display)
            report.notes.append(f"{item.display}: cannot read ({exc.strerror or exc})")
            continue
        kind = sniff(head, item.path.suffix)
        if kind == "json":
            kind = _json_kind(item.path)
        if kind == "provenance":  # what an exported release says about its items: not items
            report.ignored.append(item.display)
            if item.explicit:
                report.notes.append(f"{item.display}: a release's provenance file, not items")
            continue
        if not item.explicit and kind in ("items", "other"):
            held = without_items(item.path, head)
            if held is not None:  # a species list, a dataset descriptor, a log: said, not read
                report.ignored.append(item.display)
                report.passed_over[item.display] = held
                continue
        if not item.explicit and kind in ("table", "binary", "other"):
            report.ignored.append(item.display)
            continue
        plans.append(_Planned(item, kind, stat[0], stat))
    plans.sort(key=lambda p: KIND_ORDER.get(p.kind, len(KIND_ORDER)))
    return plans


def _json_kind(path: Path) -> str:
    """Evidence or items: settled by the first line, or by the whole document when needed (a
    document too large to read is taken for items, and refused as such). An array is items,
    without being read further."""
    kind, first = classify_file(path, whole=False)
    if kind == "document":
        if first == b"[":
            return "items"
        kind, _ = classify_file(path)
    if kind == "other-object":
        return "other"
    return kind if kind in ("xc-json", "text-json", "provenance") else "items"


# Kinds parsed whole, up to ``sniff.document_limit`` (a JSON document of items is refused by
# ``item_files`` itself); every other kind is read as a stream, or not read beyond its hash
# (audio) or head (what is nothing we read).
DOCUMENT_KINDS = frozenset({"text-json", "xc-json"})
HASHED_KINDS = frozenset({"audio", "empty", "binary", "table"})  # not parsed: hashed first


def _import_file(run: _Run, plan: _Planned, advance: Callable[[int], None]) -> None:
    """Import one file, read once: its SHA-256 is computed by the pass that parses it, and a
    content imported before is found by it at the end of that pass. Only a file that may hold
    such a content (the size of a file an earlier import read, or a kind that is not parsed) is
    hashed first, and passed over unparsed when its content is known (see ``reading``)."""
    report, store, display, path = run.report, run.store, plan.input.display, plan.input.path
    sha: str | None = None
    try:
        if plan.kind in HASHED_KINDS or store.imports.import_of_size(plan.size):
            sha = run.hashes.sha256(path)
            earlier = store.imports.find_import(sha)
            if earlier is not None:
                report.skipped_files.append(display)
                if settled(plan.stat) and file_stat(os.stat(path)) == plan.stat:
                    run.seen.append((str(path), int(earlier["id"]), plan.stat))
                return
        handle = open(path, "rb")  # noqa: SIM115  # closed below, after the transaction
    except OSError as exc:
        report.unreadable.append(display)
        report.notes.append(f"{display}: cannot read ({exc.strerror or exc})")
        return
    with handle:
        reader = HashingReader(handle, run.counter, advance)
        report.files.append(display)
        summary: dict[str, Any] = {}
        with import_file(store, str(path), display, sha, plan.kind, summary) as writer:
            run.import_ids.append(writer.import_id)
            if plan.kind in DOCUMENT_KINDS and plan.size > document_limit.get():
                summary.update(_too_large(run, plan, writer))
            else:
                handler = _HANDLERS.get(plan.kind, _import_unusable)
                summary.update(handler(run, plan, reader, writer))
            size = plan.size
            if sha is None or plan.kind not in HASHED_KINDS:  # the content that was parsed
                sha, size = reader.finish(), reader.consumed
            unchanged = file_stat(os.fstat(handle.fileno())) == plan.stat
            if unchanged:
                run.hashes.note(path, plan.stat, sha)
            writer.file_read(sha, size, plan.stat if unchanged and settled(plan.stat) else None)
    run.evidence.update(writer.evidence)


Handler = Callable[[_Run, _Planned, HashingReader, FileImport], dict[str, Any]]


def _reject(run: _Run, writer: FileImport, rejects: list[Reject]) -> int:
    """Write ``rejects`` to the project now (the file's transaction); the report counts them and
    keeps the first few, so memory does not grow with them."""
    run.report.note_rejects(rejects)
    return writer.write_rejects(rejects)


def _too_large(run: _Run, plan: _Planned, writer: FileImport) -> dict[str, Any]:
    """A JSON document read whole (Xeno-canto's API JSON, a text as JSON) larger than the
    limit: one reject that says so, nothing parsed (the file is only hashed)."""
    reason = (
        f"a {KIND_NAMES.get(plan.kind, plan.kind)} of {plan.size / 1e6:.1f} MB, larger than the"
        f" {document_limit.get() / 1e6:g} MB a file read whole may take (import"
        " --max-document-mb); not read"
    )
    return {"rejects": _reject(run, writer, [Reject(plan.input.display, 1, reason)])}


KIND_NAMES = {"text-json": "text (JSON)", "xc-json": "Xeno-canto metadata file"}


def _import_items(
    run: _Run, plan: _Planned, reader: HashingReader, writer: FileImport
) -> dict[str, Any]:
    summary: Counter[str] = Counter()

    def write(batch: ItemBatch) -> None:
        summary.update(_write_items(run, batch, writer))

    write(item_files.read_items(reader, plan.input.path, plan.input.display, write))
    return {
        "items_added": summary["items_added"],
        "already_present": summary["already_present"],
        "rejects": summary["rejects"],
        "generator_rejections": summary["generator_rejections"],
    }


def _write_items(run: _Run, batch: ItemBatch, writer: FileImport) -> dict[str, int]:
    """Write what ``batch`` holds (a whole file, or the part read since the last hand-over)."""
    store, report = run.store, run.report
    writer.write_globi_records(batch.globi_records)
    report.evidence["texts"] += writer.write_texts(batch.texts)
    written = writer.write_items(batch.items)
    new_items, present = written.added, written.present
    new_ids = [item.id for item in new_items]
    contradicting = _contradicting(store, batch.items, present, batch.file)
    added = Counter(item.domain for item in new_items)
    parsed = Counter(item.domain for item in batch.items.values())
    for domain, count in parsed.items():
        report.added_by_domain[domain] = report.added_by_domain.get(domain, 0) + added[domain]
        already = count - added[domain]
        report.already_by_domain[domain] = report.already_by_domain.get(domain, 0) + already
    unchanged = sum(parsed.values()) - len(new_ids) + batch.duplicates
    report.unchanged += unchanged
    writer.write_generator_rejections(batch.generator_rejections)
    for rejection in batch.generator_rejections:
        report.add_generator_rejection(rejection.domain, rejection.reason)
    rejected = _reject(run, writer, batch.rejects + contradicting)
    report.new_item_ids.extend(new_ids)
    return {
        "items_added": len(new_ids),
        "already_present": unchanged,
        "rejects": rejected,
        "generator_rejections": len(batch.generator_rejections),
    }


def _contradicting(
    store: Store, items: dict[str, NewItem], present: set[str], display: str
) -> list[Reject]:
    """Lines whose item id is already in the project with other content (as first imported):
    the project keeps the first version, and the contradiction is reported, not passed over."""
    if not present:
        return []
    first = {item.id: item for item in store.items.get_many(sorted(present))}
    rejects = []
    for item_id in sorted(present, key=lambda i: items[i].source_line or 0):
        incoming, stored = items[item_id], first.get(item_id)
        if stored is None:
            continue
        if stored.original == incoming.content and stored.domain == incoming.domain:
            continue
        where = f" ({stored.source_file}:{stored.source_line})" if stored.source_file else ""
        reason = (
            f"item {item_id} is already in the project with other content{where};"
            " the project keeps that version"
        )
        rejects.append(Reject(display, incoming.source_line or 1, reason))
    return rejects


def _import_globi(
    run: _Run, plan: _Planned, reader: HashingReader, writer: FileImport
) -> dict[str, Any]:
    added = rejected = 0

    def write(records: list[dict[str, Any]]) -> None:
        nonlocal added
        added += writer.write_globi_records(records)

    def write_rejects(rejects: list[Reject]) -> None:
        nonlocal rejected
        rejected += _reject(run, writer, rejects)

    name, display = plan.input.path.name, plan.input.display
    table = globi.read_table(reader, name, display, write, line_limit.get(), write_rejects)
    run.report.evidence["globi_records"] += added
    run.report.notes.append(f"{plan.input.display}: {table.describe()}")
    return {
        "globi_records": added,
        "rows": table.count,
        "rejects": rejected,
        "encoding": table.encoding,
        "encoding_guessed": table.encoding_guessed,
        "encoding_samples": table.samples,
        "line_ending": table.line_ending,
        "delimiter": table.delimiter,
    }


def _import_text(
    run: _Run, plan: _Planned, reader: HashingReader, writer: FileImport
) -> dict[str, Any]:
    name = plan.input.path.name
    try:
        if plan.kind == "text-json":
            data = to_utf8(reader.read())  # within the document limit
            document = json.loads(decode(data)[0].lstrip("\ufeff"))
            if texts.is_text_map(document):
                return _import_text_map(run, plan, writer, document, data)
            text = texts.text_from_json(document, name)
        else:
            head, more = texts.read_head(reader, line_limit.get())
            text = texts.text_from_plain(head, name, continues=more)
    except texts.TextTooShort as exc:
        _reject(run, writer, [Reject(plan.input.display, 1, str(exc))])
        return {"texts": 0, "rejects": 1}
    run.report.evidence["texts"] += writer.write_texts([text])
    if text["truncated"]:
        run.report.notes.append(
            f"{plan.input.display}: truncated to {len(text['text']):,}"
            f" characters (limit {texts.MAX_CHARS:,})"
        )
    return {"texts": 1, "key": text["key"], "truncated": text["truncated"]}


def _import_text_map(
    run: _Run, plan: _Planned, writer: FileImport, document: dict[str, Any], data: bytes
) -> dict[str, Any]:
    """A JSON object of texts by DOI or title (``texts.is_text_map``): each one comes in, and
    each refused one (an empty abstract, a Wikipedia extract under the minimum) is a reject on
    the line where its key is written."""
    found, refused = texts.texts_from_map(document, plan.input.path.name)
    run.report.evidence["texts"] += writer.write_texts(found)
    rejects = [
        Reject(plan.input.display, _line_of_key(data, key), f"{key}: {reason}")
        for key, reason in refused
    ]
    _reject(run, writer, rejects)
    truncated = sum(1 for text in found if text["truncated"])
    if truncated:
        run.report.notes.append(
            f"{plan.input.display}: {truncated} text(s) truncated to {texts.MAX_CHARS:,} characters"
        )
    return {"texts": len(found), "rejects": len(rejects), "truncated": truncated}


def _line_of_key(data: bytes, key: str) -> int:
    """The line of ``data`` (a JSON object's text) where ``key`` is written as a key, else 1."""
    at = data.find(json.dumps(key, ensure_ascii=False).encode("utf-8"))
    return 1 + data.count(b"\n", 0, at) if at >= 0 else 1


RECORDING_BATCH = 1000  # metadata rows turned into recordings and written at a time


def _import_xc_metadata(
    run: _Run, plan: _Planned, reader: HashingReader, writer: FileImport
) -> dict[str, Any]:
    audio = xenocanto.AudioIndex()
    audio.by_name, audio.by_id = dict(run.audio.by_name), dict(run.audio.by_id)
    audio.add_folder(plan.input.path.parent)
    rows: Iterable[tuple[int, Any]]
    csv_rows: xenocanto.CsvRows | None = None
    if plan.kind == "xc-csv":
        rows = csv_rows = xenocanto.CsvRows(reader, plan.input.display, line_limit.get())
    else:
        document = json.loads(decode(to_utf8(reader.read()))[0].lstrip("\ufeff"))
        rows = xenocanto.json_rows(document)
    count = rejected = 0
    for batch in _batched(rows, RECORDING_BATCH):
        recordings, rejects = xenocanto.recording_rows(batch, audio, plan.input.display, run.hashes)
        writer.write_recordings(recordings)
        for recording in recordings:
            if recording["audio_path"]:
                run.attached.add(Path(recording["audio_path"]))
                run.attached_by[Path(recording["audio_path"])] = writer.import_id
        count += len(recordings)
        rejected += _reject(run, writer, rejects)
    if csv_rows is not None:
        rejected += _reject(run, writer, csv_rows.rejects)
    source = csv_rows.encoding if csv_rows is not None else "json"
    return {"recordings": count, "rejects": rejected, "source": source}


def _batched(rows: Iterable[tuple[int, Any]], size: int) -> Iterable[list[tuple[int, Any]]]:
    """``rows`` ``size`` at a time (``itertools.batched`` is Python 3.12's)."""
    iterator = iter(rows)
    while batch := list(itertools.islice(iterator, size)):
        yield batch


def _import_audio(
    run: _Run, plan: _Planned, reader: HashingReader, writer: FileImport
) -> dict[str, Any]:
    path = plan.input.path  # not read here: its SHA-256 is in run.hashes (see _import_file)
    recording = xenocanto.recording_for_audio(path, run.hashes)
    if recording is None:
        found = run.store.evidence.recording_id_for_file(path.name)
        if found is not None:
            sha = run.hashes.sha256(path)
            recording = {"id": found, "audio_path": str(path), "audio_sha256": sha}
    if recording is None:
        if path in run.attached:  # named by a metadata row of this run
            return {"audio": 1}
        if not plan.input.explicit:  # found in a folder: some other sound, not Xeno-canto's
            run.report.ignored.append(plan.input.display)
            return {"audio": 0, "ignored": True}
        reason = "audio file without a Xeno-canto id in its name, and no metadata row names it"
        _reject(run, writer, [Reject(plan.input.display, 1, reason)])
        return {"audio": 0, "rejects": 1}
    writer.write_recordings([recording])
    run.attached.add(path)
    run.attached_by[path] = writer.import_id
    return {"audio": 1, "recording": recording["id"]}


def _import_unusable(
    run: _Run, plan: _Planned, reader: HashingReader, writer: FileImport
) -> dict[str, Any]:
    """A file that is nothing we read: one reject that says what it looked like."""
    reasons = {
        "empty": "empty file",
        "binary": "binary data, not a format BAGEL Studio reads",
        "table": "a table that is neither a GloBI interaction table nor Xeno-canto metadata",
    }
    reason = reasons.get(plan.kind, f"unrecognised format ({plan.kind})")
    raw = ""
    if plan.kind != "binary":
        raw = to_utf8(reader.read(4096), complete=False).decode("utf-8", "replace")
    _reject(run, writer, [Reject(plan.input.display, 1, reason, raw)])
    return {"rejects": 1}


_HANDLERS: dict[str, Handler] = {
    "items": _import_items,
    "other": _import_items,
    "globi": _import_globi,
    "text": _import_text,
    "text-json": _import_text,
    "xc-csv": _import_xc_metadata,
    "xc-json": _import_xc_metadata,
    "audio": _import_audio,
}
