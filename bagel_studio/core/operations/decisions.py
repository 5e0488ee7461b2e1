"""One curator's decision on many items at once (``bagel-studio decide`` with thousands of ids).

``decide_many`` is all or nothing: every item is checked first (it exists, an accept meets no
blocking flag, a rejection has a reason) and, if any cannot take the decision, nothing is written
and ``DecisionRefused`` lists every one that cannot. Otherwise all reviews, their history entries
and the items' statuses commit in one transaction, with the same rows that deciding one item after
the other writes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bagel_studio.core.changes import Changes, Done, Part
from bagel_studio.core.checks import check_all
from bagel_studio.core.model import Decision, Review
from bagel_studio.core.operations.reviews import KEEPS, require_curator
from bagel_studio.core.store import Store, StoreError


@dataclass(frozen=True)
class Refusal:
    """An item that cannot take the decision, and why (the reason does not repeat the id)."""

    item_id: str
    reason: str


class DecisionRefused(StoreError):
    """Some items cannot take the decision; none was recorded."""

    def __init__(self, refusals: Sequence[Refusal]) -> None:
        self.refusals = tuple(refusals)
        super().__init__(f"{len(self.refusals)} item(s) cannot take the decision; none recorded")


def decide_many(
    store: Store,
    item_ids: Sequence[str],
    curator: str,
    decision: Decision,
    *,
    reason: str | None = None,
    note: str | None = None,
) -> Done[list[Review]]:
    """Record ``curator``'s ``decision`` on every item of ``item_ids``, in one transaction, and
    return the reviews written (in the order of ``item_ids``); raise DecisionRefused, having
    written nothing, when some item cannot take it."""
    name = require_curator(curator)
    if decision is Decision.REJECT and not reason:
        raise StoreError("a rejection needs a reason")
    with store.transaction():
        targets = store.reviews.decision_targets(item_ids)
        refusals: list[Refusal] = []
        reviews: list[Review] = []
        for item_id in item_ids:
            target = targets.get(item_id)
            if target is None:
                refusals.append(Refusal(item_id, "no such item in this project"))
                continue
            chosen = decision
            if decision in KEEPS:
                if target.blocking:
                    reason = "cannot be accepted until fixed: " + "; ".join(target.blocking)
                    refusals.append(Refusal(item_id, reason))
                    continue
                chosen = Decision.REVISE if target.revised else Decision.ACCEPT
            reviews.append(
                Review(
                    item_id=item_id,
                    curator=name,
                    decision=chosen,
                    reason=reason,
                    note=note or None,
                    content=target.content,
                    blind_answer=None,
                    decided_at=store.clock(),
                    origin="local",
                )
            )
        if refusals:
            raise DecisionRefused(refusals)
        replaced = store.reviews.record_decisions(name, reviews)
        blind = [i for i, review in replaced.items() if review.blind_answer is not None]
        if blind:  # a blind answer taken back can clear a flag, as deciding one by one does
            check_all(store, blind)
    parts = Part.STATUS | Part.REVIEWS | (Part.FLAGS if blind else Part.NONE)
    return Done(reviews, Changes.of_items(item_ids, parts))
