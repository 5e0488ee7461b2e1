"""A curator's actions on items: decide, edit, edit and accept, undo, adjudicate.

Each is one function and one transaction: it applies the rule of the action (a blocking flag
refuses an accept, an accepted edit is a revision, a rejection needs a reason), writes through the
store's primitives, re-runs the checks of what it touched inside the same transaction, and returns
its result with what changed (``Done``). A refused action raises before anything is committed: the
project is as it was.
"""

from __future__ import annotations

from bagel_studio.core.changes import NOTHING, Changes, Done, Part
from bagel_studio.core.checks import recheck_item
from bagel_studio.core.model import (
    Decision,
    HistoryEntry,
    ItemContent,
    Review,
    cleaned_curator_name,
    curator_name_problem,
)
from bagel_studio.core.store import BlockedError, Store, StoreError

KEEPS = (Decision.ACCEPT, Decision.REVISE)


def curator_name(given: str) -> str:
    """The name a curator gave, as it is recorded: NFC, without surrounding blanks; a
    StoreError saying why when the name is not one a curator may have
    (``model.curator_name_problem``: the rule a review plan's names follow too). Every way a
    name enters goes through here: the desk's dialogs, ``--curator``, ``BAGEL_STUDIO_CURATOR``,
    and the decisions of other curators' files."""
    name = cleaned_curator_name(given)
    problem = curator_name_problem(name)
    if problem is not None:
        raise StoreError(problem)
    return name


def require_curator(curator: str) -> str:
    """The curator's name as it is recorded (``curator_name``); a StoreError when it cannot be."""
    return curator_name(curator)


def decide(
    store: Store,
    item_id: str,
    curator: str,
    decision: Decision,
    *,
    reason: str | None = None,
    note: str | None = None,
    blind_answer: int | None = None,
) -> Done[Review]:
    """Record ``curator``'s decision on an item, durably, with its history entry; return it.

    Accepting an item whose content was edited records it as accepted with revision. Accepting
    an item with a blocking flag is refused (BlockedError), as is a rejection without a reason.
    A blind answer (given, or replaced) re-runs the item's checks (``blind-answer-wrong``).
    """
    curator = require_curator(curator)
    with store.transaction():
        # what the decision needs of the item, read as ``decide_many`` reads it for many
        target = store.reviews.decision_targets([item_id]).get(item_id)
        if target is None:
            raise StoreError(f"no item {item_id!r} in this project")
        if decision in KEEPS:
            if target.blocking:
                raise BlockedError(
                    f"{item_id} cannot be accepted until fixed: " + "; ".join(target.blocking)
                )
            decision = Decision.REVISE if target.revised else Decision.ACCEPT
        if decision is Decision.REJECT and not reason:
            raise StoreError("a rejection needs a reason")
        review = Review(
            item_id=item_id,
            curator=curator,
            decision=decision,
            reason=reason,
            note=note or None,
            content=target.content,
            blind_answer=blind_answer,
            decided_at=store.clock(),
            origin="local",
        )
        before = store.reviews.record_decisions(curator, [review]).get(item_id)
        parts = Part.STATUS | Part.REVIEWS
        if blind_answer is not None or (before is not None and before.blind_answer is not None):
            recheck_item(store, item_id)
            parts |= Part.FLAGS
    return Done(review, Changes.of_items([item_id], parts))


def edit(store: Store, item_id: str, curator: str, content: ItemContent) -> Done[bool]:
    """Change an item's current content and re-check it; False when nothing changed."""
    curator = require_curator(curator)
    with store.transaction():
        item = store.items.get(item_id)
        if content == item.content:
            return Done(False)
        store.history.record_edit(item_id, curator, item.content, content)
        recheck_item(store, item_id)
    return Done(True, Changes.of_items([item_id], Part.CONTENT | Part.REVIEWS | Part.FLAGS))


def edit_and_accept(
    store: Store,
    item_id: str,
    curator: str,
    content: ItemContent,
    *,
    blind_answer: int | None = None,
) -> Done[Review]:
    """The desk's save-and-accept: the edit and the accept commit together or not at all.

    When the edited item still has a blocking flag the accept is refused (BlockedError) and the
    edit is rolled back with it: the project is exactly as before.
    """
    with store.transaction():
        edited = edit(store, item_id, curator, content)
        accepted = decide(store, item_id, curator, Decision.ACCEPT, blind_answer=blind_answer)
    return Done(accepted.result, edited.changes | accepted.changes)


def undo(store: Store, curator: str) -> Done[HistoryEntry | None]:
    """Take back ``curator``'s newest decision or edit not yet undone; return the entry undone,
    or None when nothing is left to undo."""
    curator = require_curator(curator)
    with store.transaction():
        entry = store.history.last_undoable(curator)
        if entry is None:
            return Done(None, NOTHING)
        current = store.history.record_undo(entry)
        blind = any(
            (review or {}).get("blind_answer") is not None for review in (current, entry.before)
        )
        parts = Part.STATUS | Part.REVIEWS
        if entry.action == "edit":
            parts |= Part.CONTENT
        if entry.action == "edit" or blind:
            recheck_item(store, entry.item_id)
            parts |= Part.FLAGS
    return Done(entry, Changes.of_items([entry.item_id], parts))


def adjudicate(
    store: Store,
    item_id: str,
    adjudicator: str,
    decision: Decision,
    content: ItemContent | None = None,
    *,
    reason: str | None = None,
    note: str | None = None,
) -> Done[Decision]:
    """Record the adjudicator's final decision, which overrides the curators' ones; return the
    decision recorded (an accept of content other than the imported one is a revision)."""
    adjudicator = require_curator(adjudicator)
    with store.transaction():
        item = store.items.get(item_id)
        content = content or item.content
        if decision in KEEPS:
            decision = Decision.REVISE if content.revises(item.original) else Decision.ACCEPT
        store.adjudications.record_adjudication(
            item_id, adjudicator, decision, content, reason=reason, note=note
        )
    return Done(decision, Changes.of_items([item_id], Part.STATUS | Part.REVIEWS))
