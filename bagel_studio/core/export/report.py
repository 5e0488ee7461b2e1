"""The report stage's content: the report package's tables and plots of the plan's counts, then
the sections of the other features (what the recordings say of the items' species, the models'
tables, the benchmark audit).

The item-level parts (the stem and option lengths, the audit of the released items) are gathered
while the items are written (``Sections``); ``sections_of`` reads the items again instead.
"""

from __future__ import annotations

from dataclasses import dataclass

from bagel_studio.core.audit import AuditReport
from bagel_studio.core.audit.release import release_section as audit_section
from bagel_studio.core.export.audit_section import release_audit
from bagel_studio.core.export.plan import ExportPlan
from bagel_studio.core.export.species_section import species_section
from bagel_studio.core.report.assembly import report_files as assembled
from bagel_studio.core.report.release import Section
from bagel_studio.core.report.tables import LengthSums
from bagel_studio.core.report.tables import length_table as lengths_table


@dataclass(frozen=True)
class Sections:
    """What the report's item-level sections need, gathered on one pass over the released
    items (``release.write_release`` gathers them while it writes the data files)."""

    audit: AuditReport
    lengths: LengthSums


def length_sums(plan: ExportPlan) -> LengthSums:
    """The lengths of the plan's released items (one read of them; the release writer sums
    them on its own pass instead)."""
    sums = LengthSums()
    for released in plan.items:
        sums.add(released.item.domain, released.content.question, released.content.options)
    return sums


def length_table(plan: ExportPlan, lengths: LengthSums | None = None) -> str:
    """The report's lengths table of the plan (``lengths``: summed already, else read)."""
    return lengths_table(plan, lengths or length_sums(plan))


def sections_of(plan: ExportPlan) -> Sections:
    """The sections from the plan alone: reads the released items (twice)."""
    return Sections(release_audit(plan), length_sums(plan))


def report_files(
    plan: ExportPlan, content_hash: str, sections: Sections | None = None
) -> dict[str, bytes]:
    """{path in the release: bytes} of the report and its plots: the report package's tables
    of the plan, then the other features' sections (add a feature's table here)."""
    sections = sections or sections_of(plan)
    features = [*species_section(plan), *_models_section(plan), audit_section(sections.audit)]
    return assembled(plan, content_hash, sections.lengths, features)


def _models_section(plan: ExportPlan) -> list[Section]:
    """The models' tables, when models were evaluated (their package is imported only then:
    the export's command starts in a fresh interpreter)."""
    if not plan.models:
        return []
    from bagel_studio.core.llm.report import release_section

    return [release_section(plan.models)]
