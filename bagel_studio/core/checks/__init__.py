"""Automatic checks: each flag has a stable check id, a severity and a one-line explanation.

``check_item`` runs every check on one item; ``recheck_item`` and ``check_all`` compute and store
the flags. Structural checks block acceptance; the others warn.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from bagel_studio.core.checks.structural import DESCRIPTIONS as STRUCTURAL_DESCRIPTIONS
from bagel_studio.core.checks.structural import structural_flags
from bagel_studio.core.model import Flag, Item

if TYPE_CHECKING:
    from bagel_studio.core.store import Store

Progress = Callable[[int, int], None]

# Every check id with its explanation (shown in the desk and in the README).
CHECKS: dict[str, str] = {**STRUCTURAL_DESCRIPTIONS}


def check_item(store: Store, item: Item) -> list[Flag]:
    """Every flag ``item`` deserves, given the evidence loaded in ``store``."""
    return structural_flags(item.domain, item.content)


def recheck_item(store: Store, item_id: str) -> list[Flag]:
    flags = check_item(store, store.get_item(item_id))
    store.replace_flags(item_id, flags)
    return flags


def check_all(
    store: Store, item_ids: Iterable[str] | None = None, progress: Progress | None = None
) -> int:
    """Recompute and store the flags of the given items (all when None); return the flag count."""
    ids = list(item_ids) if item_ids is not None else store.item_ids()
    flags_by_item: dict[str, list[Flag]] = {}
    for done, item_id in enumerate(ids, start=1):
        flags_by_item[item_id] = check_item(store, store.get_item(item_id))
        if progress is not None and (done % 500 == 0 or done == len(ids)):
            progress(done, len(ids))
    store.replace_all_flags(flags_by_item)
    return sum(len(f) for f in flags_by_item.values())
