"""The release report's benchmark audit: the shortcuts a model could take through the release as
written.

The heuristic baselines run over the released items as released (shuffled options, so the
position baseline shows what the shuffle left), with their artifacts in words, and the
near-duplicates and cross-item leaks among the released items: one table, and one plot with a
panel per baseline against the 25% line (``release_section``). Deterministic like the rest of the
report. The export feeds the released items to ``BatchedAudit`` as it writes them.
"""

from __future__ import annotations

from bagel_studio.core.audit.baselines import BASELINES, CHANCE, format_p
from bagel_studio.core.audit.report import AuditReport
from bagel_studio.core.report.raster import BLACK, Canvas, colour, title_font
from bagel_studio.core.report.release import Section
from bagel_studio.core.report.tables import markdown_table

PLOT = "audit_baselines.png"
BAR, ARTIFACT = "#1f6fb4", "#c0392b"
LISTED = 20  # clusters and leaks listed by id in the report (all are counted)


def release_section(report: AuditReport) -> Section:
    """The report's "Benchmark audit" section of ``report`` (the released items' audit)."""
    return Section("\n## Benchmark audit\n\n" + audit_markdown(report), {PLOT: audit_plot(report)})


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
