"""The adjudicated release: shuffle, balance, release writer, manifest, provenance, card, report.

``export_release(store, out_dir, seed, force=False, progress=None)`` is the entry point;
``plan_export(store, seed)`` computes the same release without writing it (the desk's preview).
Both run the stages of ``pipeline``: collect, plan, deal, render, write, report.
The files and their format are described in ``report.layout`` and in the dataset card each release
carries (``report.card``).
"""

from bagel_studio.core.checks.fixed import fixed_positions
from bagel_studio.core.export.atomic import OutDirExistsError, remove_stale
from bagel_studio.core.export.balance import natural_key
from bagel_studio.core.export.pipeline import (
    export_release,
    plan_export,
    shown_order,
    write_release,
)
from bagel_studio.core.export.plan import (
    BlockedItem,
    ExportError,
    ExportPlan,
    ReleasedItem,
    is_nd_licence,
)
from bagel_studio.core.export.release import (
    ExportBlockedError,
    ExportCancelled,
    ExportResult,
    NothingToReleaseError,
    last_export_seed,
    record_export,
)
from bagel_studio.core.report.release import DomainBalance

__all__ = [
    "BlockedItem",
    "DomainBalance",
    "ExportBlockedError",
    "ExportCancelled",
    "ExportError",
    "ExportPlan",
    "ExportResult",
    "NothingToReleaseError",
    "OutDirExistsError",
    "ReleasedItem",
    "export_release",
    "fixed_positions",
    "is_nd_licence",
    "last_export_seed",
    "natural_key",
    "plan_export",
    "record_export",
    "remove_stale",
    "shown_order",
    "write_release",
]
