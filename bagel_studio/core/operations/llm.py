"""The LLM features' writes: profiles, answers, levels, judge verdicts, regenerated items.

Each function is one transaction: it commits everything it writes, or nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from bagel_studio.core.changes import NOTHING, Changes, Done, Part
from bagel_studio.core.checks import recheck_item
from bagel_studio.core.model import Flag
from bagel_studio.core.operations.reviews import edit
from bagel_studio.core.store import Store
from bagel_studio.core.store.imports import GeneratorRejection
from bagel_studio.core.store.llm import LEVELS_SOURCE, AnswerRow
from bagel_studio.core.store.rows import NewItem


class Profile(Protocol):
    """What is stored of an LLM profile (``core.llm.profiles.Profile``; the operations layer sits
    below the LLM features and does not import them)."""

    @property
    def label(self) -> str: ...

    def to_json(self) -> dict[str, Any]: ...


LEVELS_CURATOR = "model-levels"  # the name the history gives to levels applied from models


MODELS = Changes(models=True)


def save_profile(store: Store, profile: Profile) -> Done[None]:
    """Store (or replace) a profile under its label. The key itself is never part of it."""
    with store.transaction():
        store.llm.write_profile(profile.label, profile.to_json(), store.clock())
    return Done(None, MODELS)


def remove_profile(store: Store, label: str) -> Done[None]:
    """Remove the model profile labelled ``label`` from the project, in one transaction."""
    with store.transaction():
        store.llm.delete_profile(label)
    return Done(None, MODELS)


def record_answers(store: Store, answers: Sequence[AnswerRow]) -> Done[int]:
    """Commit a batch of answers (those that arrived since the last commit); the result is how
    many were written (an answer the project holds already, not failed, is kept)."""
    if not answers:
        return Done(0, NOTHING)
    with store.transaction():
        written = store.llm.write_answers(answers)
    return Done(written, MODELS)


def apply_levels(
    store: Store, levels: Mapping[str, str], source: Mapping[str, Any] | None = None
) -> Done[dict[str, int]]:
    """Set each item's level as an edit by ``model-levels`` (in its history, undoable with
    ``operations.undo(store, "model-levels")``); an item whose level a curator edited keeps
    theirs. ``source`` (the two models and the order they were asked in) is kept in the
    project's settings, so that the release's Table 3 can name them."""
    counts = {"changed": 0, "unchanged": 0, "curator_level_kept": 0}
    changes = NOTHING
    with store.transaction():
        if source is not None:
            # read by the release only: no window shows it
            store.project.set_meta(LEVELS_SOURCE, {**source, "applied_at": store.clock()})
        kept = store.llm.level_edits_by_others(list(levels), LEVELS_CURATOR)
        for item in store.items.get_many(list(levels)):
            if item.id in kept:
                counts["curator_level_kept"] += 1
                continue
            content = item.content.with_changes(level=levels[item.id])
            edited = edit(store, item.id, LEVELS_CURATOR, content)
            if edited.result:
                counts["changed"] += 1
                changes |= edited.changes
            else:
                counts["unchanged"] += 1
    return Done(counts, changes)


def record_verdict(store: Store, verdict: dict[str, Any]) -> Done[int]:
    """Store a second opinion and re-check its item (``judge-disagrees``)."""
    item_id = str(verdict["item_id"])
    with store.transaction():
        verdict_id = store.llm.write_verdict(verdict)
        recheck_item(store, item_id)
    return Done(verdict_id, Changes.of_items([item_id], Part.FLAGS, models=True))


def record_regeneration(
    store: Store,
    record: dict[str, Any],
    item: NewItem | None,
    flags: Sequence[Flag] = (),
    rejection: GeneratorRejection | None = None,
) -> Done[None]:
    """Store a regenerated item (unreviewed, with its structural flags, then fully checked) linked
    to the item it replaces, or the generator's rejection with its reason."""
    with store.transaction():
        if item is not None:
            store.items.add_items([item], None, {item.id: flags})
            recheck_item(store, item.id)
        if rejection is not None:
            store.imports.add_generator_rejections([rejection], None)
        store.llm.write_regeneration(record)
    added = [item.id] if item is not None else []
    return Done(None, Changes.of_items(added, Part.NEW | Part.FLAGS, models=True))


def refresh_model_flags(store: Store, item_ids: Sequence[str]) -> Done[int]:
    """Re-check the items among ``item_ids`` whose model flags (``models-reject-gold``,
    ``models-miss-gold``) new answers raise, change or clear (one transaction); return how
    many changed."""
    from bagel_studio.core.checks.context import CheckContext
    from bagel_studio.core.checks.models import MODEL_CHECKS, model_flags

    if not item_ids:
        return Done(0)
    changed: list[str] = []
    with store.transaction():
        ctx = CheckContext.single(store)
        stored = store.flags.messages(list(item_ids), MODEL_CHECKS)
        for item in store.items.get_many(list(item_ids)):
            wanted = {(f.check, f.message) for f in model_flags(ctx, item)}
            if wanted != stored.get(item.id, set()):
                recheck_item(store, item.id)
                changed.append(item.id)
    return Done(len(changed), Changes.of_items(changed, Part.FLAGS))
