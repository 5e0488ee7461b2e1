"""The audit's one write: its flags, replacing the previous audit's, in one transaction."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from bagel_studio.core.changes import Changes, Done, Part
from bagel_studio.core.checks.audit import ORIGIN
from bagel_studio.core.model import Flag
from bagel_studio.core.store import Store

RUN_META = "audit_run"  # the last audit's time and flag count (``audit.stored`` reads it)


@dataclass(frozen=True)
class AuditChange:
    """What storing an audit changed: the items whose flags changed, and how many flags it
    set."""

    item_ids: frozenset[str]
    flags: int


def store_audit_flags(store: Store, flags: Mapping[str, Sequence[Flag]]) -> Done[AuditChange]:
    """Set an audit's flags (``core.audit.audit_flags(report)``: ``near-duplicate``,
    ``leaks-answer-of``...) on their items, removing those of the previous audit (an item fixed
    since then loses its flag). The operations layer sits below the audit and does not import
    it."""
    count = sum(len(f) for f in flags.values())
    with store.transaction():
        changed = frozenset(store.flags.replace_origin_flags(ORIGIN, flags))
        # when it ran, so that the export can say how old its findings are, or that none ran
        store.project.set_meta(RUN_META, {"at": store.clock(), "flags": count})
    change = AuditChange(changed, count)
    return Done(change, Changes.of_items(changed, Part.FLAGS, audit=True))
