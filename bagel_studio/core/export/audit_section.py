"""The released items as the benchmark audit reads them (released content, released option
order), for the report's audit section (``audit.release``): fed a batch at a time as the release
is written (``ReleaseAudit``), or read again from a plan (``release_audit``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from operator import itemgetter

import numpy as np

from bagel_studio.core.audit.features import (
    TEXTS,
    AuditFeatures,
    AuditRows,
    BatchedAudit,
    features,
)
from bagel_studio.core.audit.items import AuditItem, subjects, subjects_of
from bagel_studio.core.audit.report import AuditReport
from bagel_studio.core.export.plan import ExportPlan, ReleasedItem
from bagel_studio.core.model import ItemContent

__all__ = ["AuditFeatures", "ReleaseAudit", "audit_features", "release_audit", "released_items"]


def audit_item(released: ReleasedItem) -> AuditItem:
    """A released item as the audit reads it: released content, released option order."""
    curated = released.content
    options = tuple([curated.options[i] for i in released.order])
    answer_index = released.answer_index
    content = ItemContent(curated.question, options, answer_index, curated.dimension, curated.level)
    item = released.item
    return AuditItem(
        item.id,
        item.domain,
        content.dimension or "(none)",
        content.question,
        options,
        answer_index,
        item.recording_id,
        subjects(item, content.question),
        content,
    )


def released_items(plan: ExportPlan) -> list[AuditItem]:
    """The released items as the audit reads them (all of them in memory: ``ReleaseAudit``
    audits a release without holding it)."""
    return [audit_item(released) for released in plan.items]


def release_rows(batch: Sequence[ReleasedItem]) -> AuditRows:
    """A batch of released items as the audit reads them (``audit_item``'s fields)."""
    texts: list[str] = []
    answers = np.empty(len(batch), dtype=np.int64)
    getters: dict[tuple[int, ...], Callable[[tuple[str, ...]], tuple[str, ...]]] = {}
    for position, released in enumerate(batch):
        content = released.content
        order = released.order
        texts.append(content.question)
        getter = getters.get(order)
        if getter is None:
            getter = getters[order] = itemgetter(*order)
        texts += getter(content.options)
        answers[position] = order.index(content.answer_index)
    items = [released.item for released in batch]
    questions = texts[::TEXTS]
    return AuditRows(
        [item.domain for item in items],
        [released.content.dimension or "(none)" for released in batch],
        texts,
        answers,
        [item.recording_id for item in items],
        subjects_of(items, questions),
    )


def audit_features(batch: Sequence[ReleasedItem]) -> AuditFeatures:
    """What the release audit keeps of a batch of released items (``features``)."""
    return features(release_rows(batch))


class ReleaseAudit(BatchedAudit):
    """``audit_items`` of the released items, fed a batch at a time as the release is written
    (``BatchedAudit``); ``report`` gives what ``audit_items`` gives."""

    def add(self, batch: Sequence[ReleasedItem]) -> None:
        self.merge(audit_features(batch))


def release_audit(plan: ExportPlan) -> AuditReport:
    """The audit of the plan's released items, read a batch at a time (bounded memory)."""
    audit = ReleaseAudit()
    for batch in plan.items.batches():
        audit.add(batch)
    return audit.report([slot.item_id for slot in plan.items.slots])
