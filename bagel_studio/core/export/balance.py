"""Seeded option shuffling with the gold positions balanced per domain.

Why not simply shuffle each item: a fair shuffle leaves the positions only *about* balanced (the
BAGEL authors got within one percentage point of 25%), and a model that learns the residue still
gains. Here the gold positions of a domain are dealt out in exact proportions first, and each
item's permutation is then drawn to put its gold where it was dealt.

Items whose options keep their place (see ``fixed.py``) complicate the deal: an item may only take
its free positions. All items with the same set of allowed positions are interchangeable, so the
deal is a small transportation problem over at most eleven such groups and four positions. A
greedy deal (most constrained groups first) is improved by moving items along chains of groups
until no position holds two more than another that it can reach; that minimises the sum of squared
counts, so when an exact balance exists it is found.

Every random choice is derived from a string naming the seed, the domain and the item or group:
the deal draws from ``random.Random`` seeded with it (Python hashes string seeds with SHA-512), and
each item's permutation is picked by the SHA-256 of it (one hash instead of a generator per item,
which matters at 12k items). Neither depends on dict order, ``PYTHONHASHSEED`` or the machine.
"""

from __future__ import annotations

import hashlib
import random
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import permutations
from typing import Any, TypeVar

POSITIONS = 4

Group = tuple[int, ...]  # the positions an item's gold may take, ascending
T = TypeVar("T")


_DIGITS = re.compile(r"(\d+)")


def natural_order(text: str) -> tuple[str | int, ...]:
    """Sort key that orders "globi:2:0" before "globi:10:0" (seed-independent and total); for
    sorting many ids once (``natural_key`` remembers the keys of ids sorted again and again).
    The text split at its runs of digits: text, number, text... (a key's places hold the same
    kind in every key, the texts possibly empty, so any two keys compare)."""
    parts: list[str | int] = list(_DIGITS.split(text))
    parts[1::2] = map(int, parts[1::2])
    return tuple(parts)


natural_key = lru_cache(maxsize=1 << 16)(natural_order)


@dataclass(frozen=True, slots=True)
class Movable:
    """An item that takes part in the deal, with the positions its gold may take."""

    item_id: str
    allowed: frozenset[int]


@lru_cache(maxsize=256)
def allowed_positions(gold: int, fixed: frozenset[int]) -> frozenset[int]:
    """Where the gold may go: anywhere not held by a fixed option; nowhere else if it is fixed."""
    if gold in fixed:
        return frozenset({gold})
    return frozenset(p for p in range(POSITIONS) if p not in fixed)


def deal_targets(
    seed: int,
    domain: str,
    items: Iterable[Movable],
    order: Callable[[str], Any] = natural_order,
) -> dict[str, int]:
    """The target gold position of every movable item of one domain (as balanced as possible);
    ``order``: ``natural_order``, or the caller's table of it."""
    groups: dict[frozenset[int], list[str]] = defaultdict(list)
    for item in items:
        if len(item.allowed) < 2:
            raise ValueError(f"{item.item_id} cannot move; deal only movable items")
        groups[item.allowed].append(item.item_id)
    ordered = {allowed: sorted(ids, key=order) for allowed, ids in groups.items()}
    return dict(deal_groups(seed, domain, ordered))


def deal_groups(
    seed: int, domain: str, groups: dict[frozenset[int], list[T]]
) -> Iterator[tuple[T, int]]:
    """Each item of the movable ``groups`` of one domain (by the positions their gold may
    take, each group's items in natural id order) with the target it is dealt: what
    ``deal_targets`` does once the items are grouped and sorted (the exporter's items come in
    that order already)."""
    named = {tuple(sorted(allowed)): allowed for allowed in groups}
    counts = _deal_counts(seed, domain, {g: len(groups[a]) for g, a in named.items()})
    for group, allowed in named.items():
        dealt = [p for p in range(POSITIONS) for _ in range(counts[group][p])]
        random.Random(f"{seed}:{domain}:deal:{group}").shuffle(dealt)
        yield from zip(groups[allowed], dealt, strict=True)


def _deal_counts(seed: int, domain: str, sizes: dict[Group, int]) -> dict[Group, list[int]]:
    """How many items of each group go to each position."""
    rank = random.Random(f"{seed}:{domain}:positions").sample(range(POSITIONS), POSITIONS)
    totals = [0] * POSITIONS
    counts: dict[Group, list[int]] = {}
    for group in sorted(sizes, key=lambda g: (len(g), g)):
        counts[group] = _fill(group, sizes[group], totals, rank)
    while _improve(counts, totals):
        pass
    return counts


def _fill(group: Group, items: int, totals: list[int], rank: Sequence[int]) -> list[int]:
    """Give ``items`` items to the positions of ``group``, one at a time each to the emptiest
    (the lowest-ranked among equals), and add them to ``totals``; return how many each got.
    Done a level at a time rather than an item at a time: the emptiest positions take one
    each in rank order until they reach the next fuller one."""
    row = [0] * POSITIONS
    while items > 0:
        low = min(totals[p] for p in group)
        lowest = sorted([p for p in group if totals[p] == low], key=rank.__getitem__)
        higher = [totals[p] for p in group if totals[p] > low]
        if higher and items >= len(lowest) * (min(higher) - low):
            each, extra = min(higher) - low, 0
        else:
            each, extra = divmod(items, len(lowest))
        for index, p in enumerate(lowest):
            given = each + (index < extra)
            row[p] += given
            totals[p] += given
            items -= given
    return row


def _improve(counts: dict[Group, list[int]], totals: list[int]) -> bool:
    """Move items along one chain of groups from a fuller to an emptier position, if any."""
    for start in sorted(range(POSITIONS), key=lambda p: -totals[p]):
        # Breadth-first search over positions; an edge p -> q needs a group holding an item at p
        # that may also go to q.
        previous: dict[int, tuple[int, Group]] = {}
        frontier, seen = [start], {start}
        while frontier:
            following = []
            for p in frontier:
                for group in sorted(counts):
                    if counts[group][p] == 0:
                        continue
                    for q in group:
                        if q in seen:
                            continue
                        seen.add(q)
                        previous[q] = (p, group)
                        following.append(q)
                        if totals[q] <= totals[start] - 2:
                            _shift(counts, totals, previous, start, q)
                            return True
            frontier = following
    return False


def _shift(
    counts: dict[Group, list[int]],
    totals: list[int],
    previous: dict[int, tuple[int, Group]],
    start: int,
    end: int,
) -> None:
    chain: list[tuple[int, int, Group]] = []
    q = end
    while q != start:
        p, group = previous[q]
        chain.append((p, q, group))
        q = p
    amount = min([(totals[start] - totals[end]) // 2, *(counts[g][p] for p, _, g in chain)])
    for p, q, group in chain:
        counts[group][p] -= amount
        counts[group][q] += amount
    totals[start] -= amount
    totals[end] += amount


def permutation(
    seed: int, domain: str, item_id: str, gold: int, target: int, fixed: frozenset[int]
) -> tuple[int, ...]:
    """The new order of an item's options: ``new_options[i] = options[result[i]]``.

    Fixed options keep their index, the gold goes to ``target``, and the other options fill the
    remaining places in an order picked by the SHA-256 of seed, domain and item (uniform up to a
    bias of 2**-60 among the at most six orders).
    """
    if target != gold and (target in fixed or gold in fixed):
        raise ValueError(f"{item_id}: the gold cannot move to a fixed place")
    orders = _orders(gold, target, fixed)
    digest = hashlib.sha256(f"{seed}:{domain}:{item_id}".encode()).digest()
    return orders[int.from_bytes(digest[:8]) % len(orders)]


@lru_cache(maxsize=1024)
def _orders(gold: int, target: int, fixed: frozenset[int]) -> tuple[tuple[int, ...], ...]:
    """Every new order of the options of an item with this gold, target and fixed set (few
    distinct ones), in a fixed sequence: the fixed options and the gold in place, the other
    options in each of their orders in the free places."""
    template = [-1] * POSITIONS
    for index in fixed:
        template[index] = index
    template[target] = gold
    free = [i for i in range(POSITIONS) if template[i] == -1]
    rest = [i for i in range(POSITIONS) if i not in fixed and i != gold]
    orders = []
    for placed in permutations(rest):
        order = list(template)
        for slot, original in zip(free, placed, strict=True):
            order[slot] = original
        orders.append(tuple(order))
    return tuple(orders)


def position_counts(positions: Iterable[int]) -> list[int]:
    """How many of ``positions`` are A, B, C and D."""
    counts = Counter(positions)
    return [counts[p] for p in range(POSITIONS)]
