"""The release report's audit: the shortcuts a model could take through the release as written.

The heuristic baselines of ``core.audit`` run over the released items as released (shuffled
options, so the position baseline shows what the shuffle left), with their artifacts in words, and
the near-duplicates and cross-item leaks among the released items: one table, and one plot with a
panel per baseline against the 25% line. Deterministic like the rest of the report.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from operator import itemgetter

import numpy as np

from bagel_studio.core.audit.baselines import BASELINES, CHANCE, format_p
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
from bagel_studio.core.export.raster import BLACK, Canvas, colour, title_font
from bagel_studio.core.export.tables import markdown_table
from bagel_studio.core.model import ItemContent

__all__ = ["AuditFeatures", "ReleaseAudit", "audit_features", "release_audit", "released_items"]

PLOT = "audit_baselines.png"
BAR, ARTIFACT = "#1f6fb4", "#c0392b"
LISTED = 20  # clusters and leaks listed by id in the report (all are counted)


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


def audit_markdown(report: AuditReport) -> str:
    """The report's audit section (without its heading)."""
    domains = list(report.baselines.by_domain[BASELINES[0]])
    if not domains:
        return "No items released: nothing to audit.\n"
    flagged = {(a.baseline, a.domain) for a in report.artifacts if a.dimension is None}
    rows = []
    for name in BASELINES:
        cells: list[object] = [f"`{name}`"]
        for domain in domains:
            score = report.baselines.by_domain[name][domain]
            text = f"{score.accuracy:.1%} ({format_p(score.p_value)})"
            cells.append(f"**{text}**" if (name, domain) in flagged else text)
        rows.append(cells)
    lines = [
        f"How often a rule that never reads the question finds the gold among the"
        f" {report.items:,} released items (chance {CHANCE:.0%}; one-sided binomial p-values;"
        f" artifacts in bold: p < 0.01 after Holm's correction). `bagel-studio audit` gives the"
        f" same per dimension.",
        "",
        markdown_table(["baseline", *domains], rows).rstrip("\n"),
        "",
        f"![Heuristic baselines per domain against chance]({PLOT})",
        "",
    ]
    if report.artifacts:
        lines.append("Artifacts:")
        lines.append("")
        lines.extend(f"- {artifact.sentence()}" for artifact in report.artifacts)
    else:
        lines.append("Artifacts: none.")
    lines.append("")
    lines.append(f"Near-duplicate clusters among the released items: {len(report.duplicates)}.")
    lines.append("")
    lines.extend(f"- {' = '.join(cluster)}" for cluster in report.duplicates[:LISTED])
    if len(report.duplicates) > LISTED:
        lines.append(f"- and {len(report.duplicates) - LISTED:,} more (`bagel-studio audit`)")
    lines.append("")
    lines.append(f"Cross-item leaks among the released items: {len(report.leaks)}.")
    lines.append("")
    lines.extend(
        f"- {leak.item_id} states the answer of {leak.leaked_item_id}"
        for leak in report.leaks[:LISTED]
    )
    if len(report.leaks) > LISTED:
        lines.append(f"- and {len(report.leaks) - LISTED:,} more (`bagel-studio audit`)")
    return "\n".join(lines) + "\n"


def audit_plot(report: AuditReport) -> bytes:
    """One panel per baseline: each domain's accuracy as a bar (red: an artifact), the 25%
    line dashed."""
    domains = list(report.baselines.by_domain[BASELINES[0]]) or ["(no items)"]
    flagged = {(a.baseline, a.domain) for a in report.artifacts if a.dimension is None}
    panel, left, top, plot_h = 190, 60, 50, 220
    canvas = Canvas(left + panel * len(BASELINES) + 10, top + plot_h + 56)
    title = "Heuristic baselines: accuracy per domain (dashed: chance, 25%; red: artifact)"
    canvas.text(canvas.width // 2, 14, title, font=title_font(), align="center")
    canvas.text(14, top + plot_h // 2, "gold found (%)", align="center", vertical=True)
    for index, name in enumerate(BASELINES):
        x0, x1 = left + panel * index, left + panel * (index + 1) - 14
        canvas.text((x0 + x1) // 2, top - 12, name, align="center")
        for share in range(0, 101, 20):
            y = top + plot_h - round(plot_h * share / 100)
            canvas.hline(x0 - 4, x0, y, BLACK)
            if index == 0:
                canvas.text(x0 - 7, y, str(share), align="right")
        slot = (x1 - x0) / len(domains)
        scores = report.baselines.by_domain[name]
        for position, domain in enumerate(domains):
            score = scores.get(domain)
            height = round(plot_h * score.accuracy) if score else 0
            bar_x = round(x0 + slot * (position + 0.2))
            fill = ARTIFACT if (name, domain) in flagged else BAR
            canvas.rect(
                bar_x, top + plot_h - height, round(bar_x + slot * 0.6), top + plot_h, colour(fill)
            )
            canvas.text(
                round(x0 + slot * (position + 0.5)),
                top + plot_h + 6,
                str(position + 1),
                align="center",
                valign="top",
            )
        canvas.hline(x0, x1, top + plot_h - round(plot_h * CHANCE), BLACK, dash=4)
        canvas.frame(x0, top, x1, top + plot_h)
    key = "   ".join(f"{position + 1}: {domain}" for position, domain in enumerate(domains))
    canvas.text(canvas.width // 2, top + plot_h + 36, key, align="center")
    return canvas.png()
