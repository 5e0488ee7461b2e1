"""An item's release verdict: what the export asks of every item it releases, settled once when
the item is imported and kept with it (the ``release_verdict`` column of ``items``).

An export asks two things of each released content: does it pass the structural checks
(``structural``), and which of its options keep their place when shuffled (``fixed``)? For an
item released as imported (accepted as shown: most of them), both answers depend only on its
content columns, which an import has just checked anyway. So the import stores them as one
number, ``RULES << 4 | mask`` (bit i of ``mask``: option i keeps its place), or NULL for a
content that fails a structural check (whose messages the export then builds itself). The
project clears the number (an SQL trigger, ``m_items_release_verdict``) as soon as any content
column changes, and an export reads it only when it is of the current ``RULES`` and the content
released is the item's as imported: anything else is checked as before.

``RULES`` names the rules' version: raise it with any change to what ``structural._sound`` (and
the domains' dimensions it reads) or ``fixed.fixed_positions`` find, so that the verdicts stored
by older versions are no longer read. ``tests/core/checks/test_verdict.py`` holds a fingerprint
of those modules' source and says so when it no longer matches.
"""

from __future__ import annotations

from bagel_studio.core.checks.fixed import fixed_positions
from bagel_studio.core.checks.structural import _sound
from bagel_studio.core.model import ItemContent

RULES = 1

# The fixed positions of each mask (one frozenset per mask, shared by every item that has it).
_POSITIONS = tuple(frozenset(i for i in range(4) if mask >> i & 1) for mask in range(16))


def release_verdict(domain: str, content: ItemContent) -> int | None:
    """The verdict to store for an item of ``domain`` with ``content``: None when a structural
    check fails (the export then runs the checks itself)."""
    if not _sound(domain, content):
        return None
    mask = 0
    for position in fixed_positions(content.options):
        mask |= 1 << position
    return RULES << 4 | mask


def stored_fixed(verdict: object) -> frozenset[int] | None:
    """The fixed positions a stored ``verdict`` says a structurally sound content has, or None
    when it says nothing (none stored, or stored by other rules)."""
    if type(verdict) is int and verdict >> 4 == RULES:
        return _POSITIONS[verdict & 15]
    return None
