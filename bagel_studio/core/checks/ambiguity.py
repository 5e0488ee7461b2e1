"""The ambiguity queue's order: GloBI items whose loaded records back another option first.

A flag that cites GloBI records (``details["records"]``: an also-documented partner, a lineage
that makes two options one taxon) is a conflict in the evidence itself, the ambiguity the BAGEL
authors' audit found. Models rejecting the gold, a judge keying another option and the audit's
near-duplicates and leaks are second opinions: an item flagged by them alone was ranked by its
flag count ahead of the one item with a real record conflict. So the queue comes in three
tiers, each in the order it had (most severe first, more flags first, queue order): record
conflicts, items with other flags of their own, items with model or audit flags only.
"""

from __future__ import annotations

from enum import IntEnum

from bagel_studio.core.checks.audit import AUDIT_CHECKS
from bagel_studio.core.checks.models import MODEL_CHECKS
from bagel_studio.core.domains import GLOBI
from bagel_studio.core.model import Flag
from bagel_studio.core.store import QueueFilter, Store

FLAGGED_GLOBI = QueueFilter(domain=GLOBI, check="any", ambiguity_first=True)
SECOND_OPINIONS = frozenset(MODEL_CHECKS) | AUDIT_CHECKS


class Tier(IntEnum):
    RECORDS = 0  # a flag cites records that back another option
    OWN_FLAGS = 1  # other flags of the item's own
    SECOND_OPINIONS = 2  # model or audit flags only

    @property
    def label(self) -> str:
        """What its queue entries say of it (nothing for the middle tier)."""
        return TIER_LABELS[self]


TIER_LABELS = {
    Tier.RECORDS: "records back another option",
    Tier.OWN_FLAGS: "",
    Tier.SECOND_OPINIONS: "models / audit only",
}


def cites_records(flag: Flag) -> bool:
    """Whether ``flag`` is one of the item's own checks citing GloBI records."""
    records = flag.details.get("records")
    return bool(records) and flag.check not in SECOND_OPINIONS


def tier(flags: list[Flag]) -> Tier:
    """Which tier of the queue an item with ``flags`` belongs to."""
    if any(cites_records(f) for f in flags):
        return Tier.RECORDS
    if any(f.check not in SECOND_OPINIONS for f in flags):
        return Tier.OWN_FLAGS
    return Tier.SECOND_OPINIONS


def ambiguity_queue(store: Store) -> list[tuple[str, Tier]]:
    """The flagged GloBI items in the ambiguity queue's order, each with its tier."""
    ids = store.items.ids(FLAGGED_GLOBI)  # most severe, most flags, queue order
    flags = store.flags.of_items(ids)
    tiers = {item_id: tier(flags.get(item_id, [])) for item_id in ids}
    return sorted(((item_id, tiers[item_id]) for item_id in ids), key=lambda pair: pair[1])
