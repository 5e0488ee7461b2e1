"""The audit's one write: its flags, replacing the previous audit's, in one transaction."""

from __future__ import annotations

from dataclasses import dataclass

from bagel_studio.core.audit import AuditReport, audit_flags
from bagel_studio.core.checks.audit import ORIGIN
from bagel_studio.core.store import Store


@dataclass(frozen=True)
class AuditChange:
    """What storing an audit changed: the items whose flags changed, and how many flags it
    set."""

    item_ids: frozenset[str]
    flags: int


def store_audit_flags(store: Store, report: AuditReport) -> AuditChange:
    """Set the ``near-duplicate`` and ``leaks-answer-of`` flags of ``report`` on its items,
    removing those of the previous audit (an item fixed since then loses its flag)."""
    flags = audit_flags(report)
    changed = store.replace_origin_flags(ORIGIN, flags)
    return AuditChange(frozenset(changed), sum(len(f) for f in flags.values()))
