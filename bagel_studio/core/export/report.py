"""The release report: the tables people read, and the plots for those who would rather look.

``report/report.md`` holds the counts per domain and dimension (the paper's Table 2), the gold
positions per domain before and after shuffling (its Tables 9 and 10), the review outcomes and the
reject reasons, each followed by its plot, and the benchmark audit of the released items
(``audit_section``).
"""

from __future__ import annotations

from dataclasses import dataclass

from bagel_studio.core.audit import AuditReport
from bagel_studio.core.export import layout
from bagel_studio.core.export.audit_section import PLOT as AUDIT_PLOT
from bagel_studio.core.export.audit_section import audit_markdown, audit_plot, release_audit
from bagel_studio.core.export.plan import ExportPlan
from bagel_studio.core.export.plots import render_plots
from bagel_studio.core.export.species_section import species_markdown
from bagel_studio.core.export.tables import (
    LengthSums,
    dimension_table,
    left_out_table,
    length_sums,
    length_table,
    movable_table,
    outcome_table,
    position_table,
    reject_table,
)


@dataclass(frozen=True)
class Sections:
    """What the report's item-level sections need, gathered on one pass over the released
    items (``release.write_release`` gathers them while it writes the data files)."""

    audit: AuditReport
    lengths: LengthSums


def sections_of(plan: ExportPlan) -> Sections:
    """The sections from the plan alone: reads the released items (twice)."""
    return Sections(release_audit(plan), length_sums(plan))


def report_markdown(plan: ExportPlan, content_hash: str, sections: Sections | None = None) -> str:
    sections = sections or sections_of(plan)
    blocked = "".join(f"- {b}\n" for b in plan.blocked)
    immovable = sum(b.immovable for b in plan.balance.values())
    species = species_markdown(plan)
    blocked_section = "" if not blocked else "\n## Blocked items\n\n" + blocked
    return f"""# Release report

Seed {plan.seed}; {len(plan.items)} items released; content hash `{content_hash}`.

## Items per domain and dimension

{dimension_table(plan)}
![Released items per domain and dimension](counts.png)

## Stem and option lengths

Mean lengths of the released items' stems and options (words are separated by whitespace):

{length_table(plan, sections.lengths)}
## Gold positions

Before shuffling (the curated order):

{position_table(plan, "before")}
After shuffling:

{position_table(plan, "after")}
Among the items whose gold can move ({immovable} items keep their gold in place because it is a
fixed-order option or the only free place):

{movable_table(plan)}
![Gold positions before and after shuffling](gold_positions.png)

## Review outcomes

{outcome_table(plan)}
![Review outcomes per domain](review_outcomes.png)

Left out of the release:

{left_out_table(plan)}
## Reject reasons

{reject_table(plan)}
![Reject reasons](reject_reasons.png)
{blocked_section}{species}{_models(plan)}
## Benchmark audit

{audit_markdown(sections.audit)}"""


def _models(plan: ExportPlan) -> str:
    """The models' section (Tables 3, 4, 5-7 and 11), when models were evaluated."""
    if not plan.models:
        return ""
    from bagel_studio.core.llm.report import report_tables

    return "\n" + report_tables(plan.models)


def report_files(
    plan: ExportPlan,
    content_hash: str,
    sections: Sections | None = None,
    plots: dict[str, bytes] | None = None,
) -> dict[str, bytes]:
    """{path in the release: bytes} of the report and its plots (``plots``: ``plan_plots`` of
    the plan, if drawn already)."""
    sections = sections or sections_of(plan)
    files = {layout.REPORT: report_markdown(plan, content_hash, sections).encode("utf-8")}
    for name, png in (plan_plots(plan) if plots is None else plots).items():
        files[f"{layout.REPORT_DIR}/{name}"] = png
    files[f"{layout.REPORT_DIR}/{AUDIT_PLOT}"] = audit_plot(sections.audit)
    return files


def plan_plots(plan: ExportPlan) -> dict[str, bytes]:
    """{file name: PNG} of the plots the plan alone decides (all but the audit's): the release
    writer draws them on a thread while the items are written."""
    plots = render_plots(plan)
    if plan.models:
        from bagel_studio.core.llm.report import report_plots

        plots.update(report_plots(plan.models))
    return plots
