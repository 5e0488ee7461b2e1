"""The benchmark audit: the shortcuts a model could take through the release, found before it
goes out.

``run_audit(store)`` reads every item not rejected (final content) and returns an
``AuditReport``: heuristic baselines per domain and dimension with their artifacts, clusters of
near-duplicate items and cross-item leaks. ``audit_flags(report)`` turns the clusters and leaks
into flags (``near-duplicate``, ``leaks-answer-of``, ``answerable-without-stem``);
``operations.audit`` stores them. Nothing here calls a model: the options-only baseline reads the
answers ``bagel-studio evaluate --options-only`` stored (``options_only``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from bagel_studio.core.audit.baselines import Artifact, format_p
from bagel_studio.core.audit.features import BATCH, BatchedAudit, features, item_rows
from bagel_studio.core.audit.items import AuditItem, load_audited
from bagel_studio.core.audit.leaks import Leak
from bagel_studio.core.audit.report import AuditReport
from bagel_studio.core.checks.audit import ANSWERABLE_WITHOUT_STEM, LEAKS_ANSWER_OF, NEAR_DUPLICATE
from bagel_studio.core.model import Flag, Severity

if TYPE_CHECKING:
    from bagel_studio.core.store import Store

NAMED = 10  # ids named in a flag's message (all of them are in its details)

Progress = Callable[[str], None]


def audit_items(
    items: Sequence[AuditItem], progress: Progress | None = None, batch: int = BATCH
) -> AuditReport:
    """The model-free audit of ``items`` (no project needed), ``batch`` items at a time: the
    release report audits the released items the same way (``export.audit_section``)."""
    say = progress or (lambda _stage: None)
    say("words, baselines, group keys")
    audit = BatchedAudit()
    for start in range(0, len(items), batch):
        audit.merge(features(item_rows(items[start : start + batch])))
    say("near-duplicates and leaks")
    return audit.report([item.id for item in items])


def run_audit(store: Store, progress: Progress | None = None) -> AuditReport:
    """Audit the project's items as they stand (reads only)."""
    say = progress or (lambda _stage: None)
    say("reading items")
    items, left_out = load_audited(store)
    report = replace(audit_items(items, progress), left_out=left_out)
    say("options-only answers")
    # Deferred: the model tables it reads are no concern of the release report, which imports
    # the audit.
    from bagel_studio.core.audit.options_only import options_only_baseline

    return replace(report, options_only=options_only_baseline(store, items))


def audit_flags(report: AuditReport) -> dict[str, list[Flag]]:
    """The audit's flags by item id: ``near-duplicate`` on every member of a cluster,
    ``leaks-answer-of`` on every leaking item, ``answerable-without-stem`` on every item all
    reference models answered from the options alone."""
    flags: dict[str, list[Flag]] = {}
    models = list(report.options_only.models)
    for item_id in report.options_only.answerable:
        gold = report.options_only.golds.get(item_id)
        flags.setdefault(item_id, []).append(
            Flag(
                ANSWERABLE_WITHOUT_STEM,
                Severity.WARNING,
                f"Every reference model ({', '.join(models)}) picked the gold"
                + (f" {gold}" if gold else "")
                + " from the options alone, without the question",
                {"models": models},
            )
        )
    reasons = report.duplicate_reasons or [""] * len(report.duplicates)
    for cluster, reason in zip(report.duplicates, reasons, strict=True):
        for item_id in cluster:
            others = [i for i in cluster if i != item_id]
            flags.setdefault(item_id, []).append(
                Flag(
                    NEAR_DUPLICATE,
                    Severity.WARNING,
                    f"Says the same thing as {_names(others)}" + (f" ({reason})" if reason else ""),
                    {"items": others},
                )
            )
    by_item: dict[str, list[Leak]] = {}
    for leak in report.leaks:
        by_item.setdefault(leak.item_id, []).append(leak)
    for item_id, leaks in by_item.items():
        others = [leak.leaked_item_id for leak in leaks]
        answers = list(dict.fromkeys(leak.answer for leak in leaks))
        flags.setdefault(item_id, []).append(
            Flag(
                LEAKS_ANSWER_OF,
                Severity.WARNING,
                f"The stem states the answer of {_names(others)}: "
                + ", ".join(repr(a) for a in answers[:NAMED]),
                {"items": others, "answers": answers},
            )
        )
    return flags


def _names(ids: list[str]) -> str:
    shown = ", ".join(ids[:NAMED])
    more = len(ids) - NAMED
    return f"{shown} and {more} more" if more > 0 else shown


__all__ = [
    "Artifact",
    "AuditItem",
    "AuditReport",
    "audit_flags",
    "audit_items",
    "format_p",
    "run_audit",
]
