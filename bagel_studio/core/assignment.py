"""Who reviews what: a review plan's deal of items to curators, and its further rounds.

Pure: items, their domains and which of them are risky come in; who gets which item, in what
order, comes out. ``operations.team`` reads the project, calls these and stores the result.

The deal (``deal``) is deterministic (the same items, risks and settings give the same plan,
whatever the machine) and balanced: items are dealt one at a time, each to the curators who have
the fewest items so far, so no curator ever has more than one item more than another (choosing
the ``m`` least loaded of curators whose loads differ by at most one keeps them so). Among
curators with as few items, the one who shares the fewest items with those already chosen for the
item goes first, so that every pair of curators shares about as many items (each pair's kappa is
measured on a like number); a seeded draw breaks the remaining ties. A curator never gets an item
twice: the curators of one item are chosen without replacement.

The calibration share is seen by every curator (agreement of the whole team measured on the same
items); it is drawn per domain in proportion to the domain's items, so it is a miniature of the
project. The risky items (``RISK_RULE``) get ``risky_per_item`` curators, the rest ``per_item``.
Each curator's queue is in the order the items were dealt: the calibration share first (agreement
can be measured early), then the risky items (whose disagreements reach a further curator
sooner), then the rest, each group in a seeded order.

A further round (``further_round``) gives each item whose curators have all decided and disagree
(no verdict holds more than half their decisions: ``needs_further_look``) to one more curator, the
least loaded of those not yet on it, until the item has ``max_per_item`` curators; agreement needs
no more, and an item at the limit is left to the adjudicator.
"""

from __future__ import annotations

import hashlib
import hmac
import random
import unicodedata
from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

from bagel_studio.core.model import cleaned_curator_name, curator_name_problem

# Flags below warning that still mark an item as risky (the models' and the judge's doubts).
RISKY_INFO_CHECKS = ("models-miss-gold", "judge-disagrees")
RISK_RULE = (
    "risky: an item with a blocking or warning flag (among them models-reject-gold and the"
    " audit's near-duplicate, leaks-answer-of and answerable-without-stem), or with"
    " models-miss-gold or judge-disagrees"
)
# A decision's verdict when telling agreement from disagreement: the categories of the
# agreement's default scheme (``agreement.CATEGORY_OF``): accepting and revising both keep the
# item; a skip is no verdict.
VERDICT_CATEGORY = {
    "accept": "keep",
    "revise": "keep",
    "reject": "reject",
    "uncertain": "uncertain",
}
# Why a curator has an item, as the plan records it.
CALIBRATION, RISKY, OVERLAP, FURTHER = "calibration", "risky", "overlap", "further"


class PlanError(ValueError):
    """Settings a plan cannot be made from (one line, meant for the person asking)."""


@dataclass(frozen=True)
class PlanSettings:
    """What a review plan is made from; stored with it."""

    curators: tuple[str, ...]
    per_item: int = 2
    risky_per_item: int = 3
    calibration: float = 0.05  # the share of items every curator sees
    seed: int = 0
    max_per_item: int = 0  # further rounds stop at this many curators (0: the default)

    def __post_init__(self) -> None:
        """Clean each name as a decision cleans it (``model.cleaned_curator_name``: " alice" is
        alice), whether typed or read back from a project, then ask the rule of every name;
        two names that are one once cleaned are refused, naming them as given."""
        if len(self.curators) < 1:
            raise PlanError("a plan needs at least one curator")
        names = tuple(cleaned_curator_name(name) for name in self.curators)
        for name in names:
            if (problem := curator_name_problem(name)) is not None:
                raise PlanError(problem)
        if len(set(names)) != len(names):
            raise PlanError(_named_twice(self.curators, names))
        object.__setattr__(self, "curators", names)
        if self.per_item < 1 or self.risky_per_item < 1:
            raise PlanError("each item needs at least one curator (--per-item, --risky-per-item)")
        if not 0.0 <= self.calibration <= 1.0:
            raise PlanError("the calibration share must lie between 0% and 100%")
        if self.max_per_item < 0:
            raise PlanError("--max-per-item must be 0 (the default) or more")

    @property
    def limit(self) -> int:
        """How many curators an item may have at most, further rounds included."""
        wanted = self.max_per_item or max(self.per_item, self.risky_per_item) + 1
        return min(max(wanted, self.per_item, self.risky_per_item), len(self.curators))

    def to_json(self) -> dict[str, Any]:
        return {
            "curators": list(self.curators),
            "per_item": self.per_item,
            "risky_per_item": self.risky_per_item,
            "calibration": self.calibration,
            "seed": self.seed,
            "max_per_item": self.limit,
            "risk_rule": RISK_RULE,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> PlanSettings:
        return cls(
            curators=tuple(str(c) for c in data["curators"]),
            per_item=int(data["per_item"]),
            risky_per_item=int(data["risky_per_item"]),
            calibration=float(data["calibration"]),
            seed=int(data["seed"]),
            max_per_item=int(data.get("max_per_item", 0)),
        )


def _named_twice(given: Sequence[str], names: Sequence[str]) -> str:
    """What a plan says of the curators it names more than once: a name typed twice alike, or
    names that differ as given and are one once cleaned (each as given, then the one name)."""
    alike: list[str] = []
    for name in sorted(n for n, count in Counter(names).items() if count > 1):
        forms = list(dict.fromkeys(g for g, n in zip(given, names, strict=True) if n == name))
        if len(forms) > 1:
            shown = [repr(f) for f in forms]
            if len({unicodedata.normalize("NFC", f) for f in shown}) < len(shown):
                # they differ only in how a letter is composed, which does not show: say how
                shown = [ascii(f) for f in forms]
            return (
                f"{' and '.join(shown)} are one curator once trimmed and"
                f" composed ({name}): name each curator once"
            )
        alike.append(name)
    return f"a curator is named twice: {', '.join(alike)}"


@dataclass(frozen=True)
class Assignment:
    """One item given to one curator: in which round, at which place of the curator's queue
    (from 0, counted over every round) and why."""

    item_id: str
    curator: str
    round: int
    position: int
    reason: str


@dataclass
class Deal:
    """The assignments of a plan's first round, and what they add up to."""

    assignments: list[Assignment]
    calibration: list[str]
    risky: list[str]
    loads: dict[str, int] = field(default_factory=dict)
    shared: dict[tuple[str, str], int] = field(default_factory=dict)  # items a pair shares

    def coverage(self) -> dict[int, int]:
        """How many items have 1, 2, 3... curators."""
        per_item = Counter(a.item_id for a in self.assignments)
        return dict(sorted(Counter(per_item.values()).items()))


class _Loads:
    """The curators' loads and the items each pair shares, and the choice of an item's curators
    by them (``pick``)."""

    def __init__(self, curators: Sequence[str], loads: Mapping[str, int] | None = None) -> None:
        self.curators = list(curators)
        self.load = {c: int((loads or {}).get(c, 0)) for c in curators}
        self.shared: Counter[tuple[str, str]] = Counter()
        self.position = dict(self.load)  # the next place in each curator's queue

    def pick(self, count: int, rng: random.Random, already: Collection[str] = ()) -> list[str]:
        """The ``count`` least loaded curators not in ``already``; among as loaded ones, the one
        sharing fewest items with those chosen (and ``already``) first, then a seeded draw."""
        chosen: list[str] = []
        others = list(already)
        candidates = [c for c in self.curators if c not in set(already)]
        draw = {c: rng.random() for c in candidates}
        for _ in range(min(count, len(candidates))):
            best = min(
                (c for c in candidates if c not in chosen),
                key=lambda c: (
                    self.load[c],
                    sum(self.shared[_pair(c, o)] for o in [*others, *chosen]),
                    draw[c],
                ),
            )
            chosen.append(best)
        return chosen

    def give(
        self,
        item_id: str,
        curators: Sequence[str],
        round_: int,
        reason: str,
        with_: Collection[str] = (),
    ) -> list[Assignment]:
        """Assign ``item_id`` to ``curators`` (beside ``with_``, its curators before)."""
        out = []
        for curator in curators:
            out.append(Assignment(item_id, curator, round_, self.position[curator], reason))
            self.position[curator] += 1
            self.load[curator] += 1
        for a, b in combinations([*with_, *curators], 2):
            self.shared[_pair(a, b)] += 1
        return out


def _pair(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a <= b else (b, a)


def calibration_share(
    item_ids: Sequence[str], domains: Mapping[str, str], share: float, rng: random.Random
) -> list[str]:
    """``share`` of ``item_ids`` (rounded), drawn per domain in proportion to its items (largest
    remainders), in the order of ``item_ids``."""
    wanted = round(share * len(item_ids))
    by_domain: dict[str, list[str]] = {}
    for item_id in item_ids:
        by_domain.setdefault(domains.get(item_id, ""), []).append(item_id)
    exact = {d: wanted * len(ids) / len(item_ids) for d, ids in by_domain.items()}
    counts = {d: int(x) for d, x in exact.items()}
    left = wanted - sum(counts.values())
    for domain in sorted(exact, key=lambda d: (counts[d] - exact[d], d))[:left]:
        counts[domain] += 1
    chosen: set[str] = set()
    for domain in sorted(by_domain):
        chosen.update(rng.sample(by_domain[domain], counts[domain]))
    return [i for i in item_ids if i in chosen]


def deal(
    item_ids: Sequence[str],
    domains: Mapping[str, str],
    risky: Collection[str],
    settings: PlanSettings,
) -> Deal:
    """The first round of a plan over ``item_ids`` (in queue order): see the module docstring."""
    rng = random.Random(settings.seed)
    curators = list(settings.curators)
    calibration = calibration_share(item_ids, domains, settings.calibration, rng)
    in_calibration = set(calibration)
    risky_set = set(risky)
    risky_items = [i for i in item_ids if i in risky_set and i not in in_calibration]
    rest = [i for i in item_ids if i not in risky_set and i not in in_calibration]
    loads = _Loads(curators)
    assignments: list[Assignment] = []
    for group, count, reason in (
        (calibration, len(curators), CALIBRATION),
        (risky_items, settings.risky_per_item, RISKY),
        (rest, settings.per_item, OVERLAP),
    ):
        order = list(group)
        rng.shuffle(order)
        for item_id in order:
            assignments += loads.give(item_id, loads.pick(count, rng), 1, reason)
    return Deal(
        assignments=assignments,
        calibration=calibration,
        risky=risky_items,
        loads=dict(loads.load),
        shared=dict(sorted(loads.shared.items())),
    )


def needs_further_look(verdicts: Sequence[str]) -> bool:
    """Whether curators' verdicts on one item (one each; the agreement's categories) disagree:
    two or more, and none held by more than half of them."""
    if len(verdicts) < 2:
        return False
    return max(Counter(verdicts).values()) * 2 <= len(verdicts)


@dataclass(frozen=True)
class ItemState:
    """Where one item of a plan stands: its curators (in the order they got it), the verdicts
    of those who have decided (curator -> category; a skip is no verdict), their decisions as
    made (a skip too), whether it is adjudicated and of the calibration share."""

    item_id: str
    curators: tuple[str, ...]
    verdicts: Mapping[str, str]
    adjudicated: bool = False
    calibration: bool = False
    decisions: Mapping[str, str] = field(default_factory=dict)

    @property
    def all_decided(self) -> bool:
        return all(c in self.verdicts for c in self.curators)

    def disagreement(self) -> bool:
        """Every curator has decided and they disagree (``needs_further_look``), and no
        adjudicator has decided yet."""
        return (
            not self.adjudicated
            and self.all_decided
            and needs_further_look([self.verdicts[c] for c in self.curators])
        )


@dataclass
class Round:
    """A further round: the new assignments and the disagreements it could not pass on."""

    number: int
    assignments: list[Assignment]
    at_limit: list[str]  # disagreements whose item has its most curators: the adjudicator's


def further_round(
    states: Sequence[ItemState],
    settings: PlanSettings,
    loads: Mapping[str, int],
    number: int,
) -> Round:
    """One more curator for every item of ``states`` (in plan order) whose curators disagree,
    while it has fewer than ``settings.limit``; ``loads`` are the curators' items so far (every
    round), which the new ones are balanced against."""
    rng = random.Random(f"{settings.seed}/round {number}")
    team = _Loads(settings.curators, loads)
    assignments: list[Assignment] = []
    at_limit: list[str] = []
    for state in states:
        if not state.disagreement():
            continue
        if len(state.curators) >= settings.limit:
            at_limit.append(state.item_id)
            continue
        chosen = team.pick(1, rng, already=state.curators)
        if not chosen:
            at_limit.append(state.item_id)
            continue
        assignments += team.give(state.item_id, chosen, number, FURTHER, with_=state.curators)
    return Round(number, assignments, at_limit)


def binding(secret: str, plan_id: str, curator: str, round_: int) -> str:
    """What binds a package to its curator, plan and round: an HMAC of the three under the
    plan's key, which stays in the project; a package edited to name another curator or round
    no longer matches, and no one without the key can make one that does."""
    message = f"{plan_id}\n{curator}\n{round_}".encode()
    return hmac.new(secret.encode(), message, hashlib.sha256).hexdigest()
