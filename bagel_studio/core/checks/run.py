"""Running every check: ``run_checks`` on one item with its context, ``check_item``,
``recheck_item`` and ``check_all`` (which store the flags), and ``CHECKS``, every check id with
its explanation. The package ``bagel_studio.core.checks`` gives these names, importing this
module (and with it every check) only when one is used. The audio analysis (numpy, the decoders)
is imported only when an item with a recording is checked.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from bagel_studio.core.audio import limits
from bagel_studio.core.bulk import paused_gc
from bagel_studio.core.checks import (
    audit,
    evidence,
    globi,
    hidden,
    models,
    processes,
    review,
    species,
    structural,
    text,
    xenocanto,
)
from bagel_studio.core.checks.context import CheckContext
from bagel_studio.core.checks.evidence import evidence_flags, evidence_texts
from bagel_studio.core.checks.globi import (
    globi_flags,
    stem_taxon_flags,
    subspecies_flags,
    taxon_overlap_flags,
)
from bagel_studio.core.checks.globi_item import read_globi_item
from bagel_studio.core.checks.hidden import hidden_flags
from bagel_studio.core.checks.models import model_flags
from bagel_studio.core.checks.review import blind_flags
from bagel_studio.core.checks.species import species_flags
from bagel_studio.core.checks.structural import structural_flags
from bagel_studio.core.checks.text import text_flags
from bagel_studio.core.checks.xenocanto import xeno_canto_flags
from bagel_studio.core.domains import GLOBI, XENO_CANTO
from bagel_studio.core.model import Flag, Item

if TYPE_CHECKING:
    from bagel_studio.core.store import Store

Progress = Callable[[int, int], None]

BULK_THRESHOLD = 50  # from this many items on, read every GloBI record once instead of querying
BATCH = 2000  # items read, checked and written at a time by check_all


# Every check id with its explanation (shown in the desk, in `check --help` and docs/CHECKS.md).
CHECKS: dict[str, str] = {
    **structural.DESCRIPTIONS,
    **text.DESCRIPTIONS,
    **evidence.DESCRIPTIONS,
    **globi.DESCRIPTIONS,
    **xenocanto.DESCRIPTIONS,
    **review.DESCRIPTIONS,
    **models.DESCRIPTIONS,
    **hidden.DESCRIPTIONS,
    **limits.DESCRIPTIONS,
    **species.DESCRIPTIONS,
    **audit.DESCRIPTIONS,
}


def _acoustic_flags(store: Store, item: Item) -> list[Flag]:
    """The audio package's checks of the item's acoustic claims against its recording."""
    try:
        from bagel_studio.core.audio.claims import acoustic_flags
    except (ImportError, AttributeError):
        return []
    return list(acoustic_flags(store, item))


def run_checks(ctx: CheckContext, item: Item, *, audio: bool = True) -> list[Flag]:
    """Every flag of ``item`` with the lookups of ``ctx`` (one flag per check id)."""
    flags = structural_flags(item.domain, item.content, item.given_answer)
    flags += text_flags(item)
    flags += hidden_flags(item)
    globi = read_globi_item(ctx, item) if item.domain == GLOBI else None
    flags += evidence_flags(ctx, item, globi)
    flags += blind_flags(ctx, item)
    flags += model_flags(ctx, item)
    if globi is not None:
        flags += globi_flags(globi)
    else:
        flags += subspecies_flags(item)
        flags += stem_taxon_flags(item)
        flags += taxon_overlap_flags(item, lambda: [t for _, t in evidence_texts(ctx, item)])
    if item.domain == XENO_CANTO:
        flags += xeno_canto_flags(ctx, item)
        if audio and item.recording_id:  # (without one, importing the audio checks is waste)
            flags += _acoustic_flags(ctx.store, item)
            flags += species_flags(ctx, item)
    unique: dict[str, Flag] = {}
    for flag in flags:
        unique.setdefault(flag.check, flag)
    return list(unique.values())


def check_item(store: Store, item: Item) -> list[Flag]:
    """Every flag ``item`` deserves, given the evidence loaded in ``store``."""
    return run_checks(CheckContext.single(store), item)


def recheck_item(store: Store, item_id: str) -> list[Flag]:
    """Re-run every check of one item and store its flags (in the caller's transaction, when
    there is one); return them."""
    flags = check_item(store, store.items.get(item_id))
    store.flags.replace_flags(item_id, flags)
    return flags


def check_all(
    store: Store,
    item_ids: Iterable[str] | None = None,
    progress: Progress | None = None,
    *,
    audio: bool = True,
    workers: int = 1,
) -> int:
    """Recompute and store the flags of the given items (all when None); return the flag count.

    The GloBI records are read once into a taxon index shared by every item (or, for a handful
    of items, looked up per item), texts and recordings are read once each. The items are read,
    checked and their flags written a batch at a time, in one transaction: memory holds one
    batch whatever the size of the project, and the flags change all at once or not at all.
    ``audio=False`` leaves out the acoustic checks (which may need the recordings measured).
    ``workers`` > 1 checks a large project on that many processes (see ``checks.processes``;
    only for a process that runs no other threads, such as the command line).
    """
    ids = list(dict.fromkeys(item_ids)) if item_ids is not None else None
    if ids is not None and len(ids) < BULK_THRESHOLD:  # a handful: a missing id is an error
        ctx = CheckContext.single(store)
        flags_by_item = {i: run_checks(ctx, store.items.get(i), audio=audio) for i in ids}
        store.flags.replace_all_flags(flags_by_item)
        if progress is not None and ids:
            progress(len(ids), len(ids))
        return sum(len(f) for f in flags_by_item.values())
    total = store.items.count() if ids is None else len(ids)
    if processes.can_fork(store, total, workers):
        return _check_in_processes(store, ids, progress, audio, workers)
    ctx = CheckContext.bulk(store)
    done = flagged = 0
    with store.transaction(), paused_gc():
        for batch in store.items.batches(ids, BATCH):
            flags_by_item = {item.id: run_checks(ctx, item, audio=audio) for item in batch}
            store.flags.replace_all_flags(flags_by_item)
            done += len(batch)
            flagged += sum(len(f) for f in flags_by_item.values())
            if progress is not None:
                progress(done, max(total, done))
        text.forget_options()  # before the collector runs again
    return flagged


def _check_in_processes(
    store: Store, ids: list[str] | None, progress: Progress | None, audio: bool, workers: int
) -> int:
    if ids is None:
        ids = store.items.ids()
    results = processes.checked_in_processes(store, ids, workers, audio, run_checks)
    flags_by_item = next(results, None)  # the workers fork here, before the write transaction
    done = flagged = 0
    with store.transaction(), paused_gc():
        while flags_by_item is not None:
            store.flags.replace_all_flags(flags_by_item)
            done += len(flags_by_item)
            flagged += sum(len(f) for f in flags_by_item.values())
            if progress is not None:
                progress(done, max(len(ids), done))
            flags_by_item = next(results, None)
    return flagged
