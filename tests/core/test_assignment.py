"""The review plan's deal: balanced within one item, deterministic, never an item twice to a
curator, the calibration share seen by all, more curators on the risky items; further rounds
reach exactly the disagreements, below the limit, to the least loaded curator."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from bagel_studio.core.agreement import CATEGORY_OF
from bagel_studio.core.assignment import (
    CALIBRATION,
    RISKY,
    VERDICT_CATEGORY,
    ItemState,
    PlanError,
    PlanSettings,
    curator_name_problem,
    deal,
    further_round,
    needs_further_look,
)

TEAM = ("alice", "bob", "carol", "dave", "eve")


def project(n: int, seed: int = 1) -> tuple[list[str], dict[str, str], set[str]]:
    """``n`` item ids in queue order, their domains (four, unevenly) and a risky third."""
    rnd = random.Random(seed)
    ids = [f"item{i:05d}" for i in range(n)]
    domains = {
        i: rnd.choice(["Wikipedia"] * 4 + ["GloBI"] * 3 + ["bioRxiv", "Xeno-canto"]) for i in ids
    }
    risky = {i for i in ids if rnd.random() < 0.3}
    return ids, domains, risky


def test_loads_are_within_one_item_and_no_curator_has_an_item_twice() -> None:
    ids, domains, risky = project(3001)
    for team in (TEAM, TEAM[:3], TEAM[:2], ("solo",), tuple(f"c{i}" for i in range(7))):
        settings = PlanSettings(team, per_item=2, risky_per_item=3, calibration=0.05, seed=4)
        dealt = deal(ids, domains, risky, settings)
        loads = Counter(a.curator for a in dealt.assignments)
        assert max(loads.values()) - min(loads.values()) <= 1, (team, loads)
        assert dealt.loads == dict(loads)
        pairs = Counter((a.item_id, a.curator) for a in dealt.assignments)
        assert max(pairs.values()) == 1
        per_item = Counter(a.item_id for a in dealt.assignments)
        assert set(per_item) == set(ids)  # every item has its curators


def test_calibration_is_seen_by_everyone_risky_by_three_the_rest_by_two() -> None:
    ids, domains, risky = project(2000)
    settings = PlanSettings(TEAM, per_item=2, risky_per_item=3, calibration=0.05, seed=9)
    dealt = deal(ids, domains, risky, settings)
    curators: dict[str, set[str]] = {}
    reasons: dict[str, set[str]] = {}
    for a in dealt.assignments:
        curators.setdefault(a.item_id, set()).add(a.curator)
        reasons.setdefault(a.item_id, set()).add(a.reason)
    assert len(dealt.calibration) == 100  # 5% of 2,000
    for item_id in ids:
        if item_id in dealt.calibration:
            assert curators[item_id] == set(TEAM) and reasons[item_id] == {CALIBRATION}
        elif item_id in risky:
            assert len(curators[item_id]) == 3 and reasons[item_id] == {RISKY}
        else:
            assert len(curators[item_id]) == 2
    assert set(dealt.risky) == risky - set(dealt.calibration)
    # drawn per domain in proportion: each domain's share within one item of 5% of it
    sizes = Counter(domains.values())
    drawn = Counter(domains[i] for i in dealt.calibration)
    for domain, size in sizes.items():
        assert abs(drawn[domain] - size * 0.05) <= 1


def test_pairs_share_about_as_many_items() -> None:
    ids, domains, risky = project(5000)
    dealt = deal(ids, domains, risky, PlanSettings(TEAM, 2, 3, 0.05, 0))
    shared = list(dealt.shared.values())
    assert len(shared) == 10 and max(shared) - min(shared) <= 2


def test_the_same_settings_deal_the_same_plan_and_another_seed_another() -> None:
    ids, domains, risky = project(1500)
    settings = PlanSettings(TEAM, 2, 3, 0.05, 7)
    first = deal(ids, domains, risky, settings)
    assert deal(list(ids), dict(domains), set(risky), settings).assignments == first.assignments
    other = deal(ids, domains, risky, PlanSettings(TEAM, 2, 3, 0.05, 8))
    assert other.assignments != first.assignments


def test_each_curators_queue_is_the_calibration_then_the_risky_items_then_the_rest() -> None:
    ids, domains, risky = project(800)
    dealt = deal(ids, domains, risky, PlanSettings(TEAM[:3], 2, 3, 0.1, 3))
    order = {"calibration": 0, "risky": 1, "overlap": 2}
    for curator in TEAM[:3]:
        mine = sorted(
            (a for a in dealt.assignments if a.curator == curator), key=lambda a: a.position
        )
        assert [a.position for a in mine] == list(range(len(mine)))
        ranks = [order[a.reason] for a in mine]
        assert ranks == sorted(ranks)


def test_more_curators_than_the_team_asks_for_are_capped_and_bad_settings_refused() -> None:
    ids, domains, risky = project(100)
    dealt = deal(ids, domains, risky, PlanSettings(("a", "b"), 3, 4, 0.0, 0))
    assert Counter(Counter(a.item_id for a in dealt.assignments).values()) == {2: 100}
    assert PlanSettings(("a", "b", "c"), 2, 3).limit == 3
    assert PlanSettings(TEAM, 2, 3).limit == 4
    assert PlanSettings(TEAM, 2, 3, max_per_item=5).limit == 5
    for bad in (
        lambda: PlanSettings(()),
        lambda: PlanSettings(("a", "a")),
        lambda: PlanSettings(("a",), per_item=0),
        lambda: PlanSettings(("a",), calibration=1.5),
        lambda: PlanSettings(("a/b",)),
    ):
        with pytest.raises(PlanError):
            bad()


@pytest.mark.parametrize(
    "name",
    ["", " alice", "x" * 81, "e\u0301ve", "al\u200bice", "al\u202eice", "a/b", "..", "tab\there"],
)
def test_a_curators_name_must_be_fit_for_a_folder_and_a_binding(name: str) -> None:
    assert curator_name_problem(name) is not None


def test_fine_names_pass() -> None:
    for name in ("alice", "Zoë Müller", "李明", "o'brien", "ana-2"):
        assert curator_name_problem(name) is None


def test_the_verdicts_are_the_agreements_categories() -> None:
    assert VERDICT_CATEGORY == CATEGORY_OF


def test_a_disagreement_is_no_verdict_held_by_more_than_half() -> None:
    assert not needs_further_look(["keep"])
    assert not needs_further_look(["keep", "keep"])
    assert needs_further_look(["keep", "reject"])
    assert not needs_further_look(["keep", "reject", "keep"])
    assert needs_further_look(["keep", "reject", "uncertain"])
    assert needs_further_look(["keep", "reject", "keep", "reject"])


def test_a_further_round_reaches_exactly_the_disagreements_below_the_limit() -> None:
    settings = PlanSettings(("a", "b", "c", "d"), 2, 3, 0.0, 1)  # limit 4
    states = [
        ItemState("agree", ("a", "b"), {"a": "keep", "b": "keep"}),
        ItemState("split", ("a", "b"), {"a": "keep", "b": "reject"}),
        ItemState("half", ("c", "d"), {"c": "keep"}),  # d has not decided: wait for d
        ItemState("three", ("a", "b", "c"), {"a": "keep", "b": "reject", "c": "uncertain"}),
        ItemState("majority", ("a", "b", "c"), {"a": "keep", "b": "reject", "c": "keep"}),
        ItemState("judged", ("a", "b"), {"a": "keep", "b": "reject"}, adjudicated=True),
        ItemState(
            "full", ("a", "b", "c", "d"), {"a": "keep", "b": "reject", "c": "keep", "d": "reject"}
        ),
    ]
    loads = {"a": 10, "b": 10, "c": 3, "d": 9}
    result = further_round(states, settings, loads, 2)
    given = {a.item_id: a.curator for a in result.assignments}
    assert given == {"split": "c", "three": "d"}
    assert result.at_limit == ["full"]
    assert {a.round for a in result.assignments} == {2}
    c = next(a for a in result.assignments if a.item_id == "split")
    assert c.position == 3  # after c's three items so far
