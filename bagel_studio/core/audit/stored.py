"""What the last audit found among some items, read from the flags it stored.

The audit (``bagel-studio audit``, *Review → Audit…*) stores its findings as flags on the items
(``near-duplicate``, ``leaks-answer-of``, ``answerable-without-stem``; origin ``audit``). Before
a release goes out the export dialog says which of them the release would take: a pair of
near-duplicates both released, a leak whose two items are both released (a leak into an item
left out goes nowhere), an item released that every reference model answered without its stem.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from bagel_studio.core.checks.audit import (
    ANSWERABLE_WITHOUT_STEM,
    LEAKS_ANSWER_OF,
    NEAR_DUPLICATE,
    ORIGIN,
)
from bagel_studio.core.operations.audit import RUN_META
from bagel_studio.core.store import Store


@dataclass(frozen=True)
class AuditFindings:
    """The last audit's findings among some items (``ran_at`` None: no audit was stored)."""

    ran_at: str | None
    pairs: tuple[tuple[str, str], ...] = ()  # near-duplicates, both among the items
    leaks: tuple[tuple[str, str], ...] = ()  # (item, the item whose answer its stem states)
    answerable: tuple[str, ...] = ()  # answered by every reference model without the stem

    def __bool__(self) -> bool:
        return bool(self.pairs or self.leaks or self.answerable)

    def counts(self) -> list[str]:
        """'1 near-duplicate pair', '4 cross-item leaks', ... of what was found."""
        said = []
        for count, one, many in (
            (len(self.pairs), "near-duplicate pair", "near-duplicate pairs"),
            (len(self.leaks), "cross-item leak", "cross-item leaks"),
            (
                len(self.answerable),
                "item answerable without its stem",
                "items answerable without their stem",
            ),
        ):
            if count:
                said.append(f"{count:,} {one if count == 1 else many}")
        return said

    def lines(self) -> list[str]:
        """Each finding in a line, naming its items."""
        return (
            [f"near-duplicates: {a} and {b}" for a, b in self.pairs]
            + [f"leak: {a} states the answer of {b}" for a, b in self.leaks]
            + [f"answerable without its stem: {item_id}" for item_id in self.answerable]
        )


def findings_among(store: Store, item_ids: Collection[str]) -> AuditFindings:
    """What the last audit stored about ``item_ids`` (the items of a planned release)."""
    run = store.project.get_meta(RUN_META)
    stored = store.flags.of_origin(ORIGIN)
    if run is None and not stored:
        return AuditFindings(None)
    among = set(item_ids)
    pairs: set[tuple[str, str]] = set()
    leaks: list[tuple[str, str]] = []
    answerable: list[str] = []
    for item_id, flag in stored:
        if item_id not in among:
            continue
        others = [str(o) for o in flag.details.get("items") or [] if str(o) in among]
        if flag.check == NEAR_DUPLICATE:
            pairs.update((min(item_id, o), max(item_id, o)) for o in others if o != item_id)
        elif flag.check == LEAKS_ANSWER_OF:
            leaks += [(item_id, other) for other in others]
        elif flag.check == ANSWERABLE_WITHOUT_STEM:
            answerable.append(item_id)
    ran_at = str(run["at"]) if isinstance(run, dict) and run.get("at") else "(time not kept)"
    return AuditFindings(ran_at, tuple(sorted(pairs)), tuple(leaks), tuple(answerable))
