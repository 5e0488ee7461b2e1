"""The shuffle itself: which options keep their place, the deal of gold positions, permutations."""

from __future__ import annotations

import random

import pytest

from bagel_studio.core.checks.fixed import fixed_positions, is_catch_all
from bagel_studio.core.export import balance
from bagel_studio.core.export.balance import (
    Movable,
    allowed_positions,
    deal_targets,
    natural_key,
    permutation,
    position_counts,
)
from tests.support.random_text import random_options


@pytest.mark.parametrize(
    ("options", "fixed"),
    [
        (["Rising glide", "Sinusoidal vibrato", "Falling glide", "Trill"], set()),
        (["~9-11 kHz", "~3-5 kHz", "~6-8 kHz", "~1-2 kHz"], set()),
        (["80-150 ms", "200-400 ms", "0.8-1.2 s", "1.5-2.0 s"], set()),
        (["Procyon lotor", "Ursus americanus", "Canis lupus", "None of the above"], {3}),
        (["Lion", "Tiger", "Jaguar", "All of the above."], {3}),
        (["Sound 1", "Sound 2", "Sound 3", "All are indistinguishable"], {0, 1, 2, 3}),
        (["Sound 1 is higher", "Sound 2 is higher", "Trill", "Whistle"], {0, 1}),
        (["The first call", "The second call", "A trill", "Noise"], {0, 1}),
        (["Both A and B", "Beetles", "Moths", "Ants"], {0, 1, 2, 3}),
        (["Option C is wrong", "Beetles", "Moths", "Ants"], {0, 1, 2, 3}),
        (["Beetles", "Moths", "It cannot be determined", "Ants"], {2}),
        (["Vitamin A", "Iron", "Zinc", "Calcium"], set()),
        (["About 40%", "About 10%", "About 75%", "About 27%"], set()),
        (["About 4 weeks", "About 2 weeks", "Over 3 months", "Over 1 year"], set()),
        (["Sound 1: a trill", "Sound 2: a whistle", "Neither", "Both"], {0, 1, 2, 3}),
    ],
)
def test_fixed_positions(options: list[str], fixed: set[int]) -> None:
    assert fixed_positions(options) == frozenset(fixed)


def test_catch_all_ignores_ordinary_answers() -> None:
    assert is_catch_all("None of these")
    assert not is_catch_all("Nonesuch warbler")
    assert not is_catch_all("All year round")


def test_natural_order_of_ids() -> None:
    ids = ["globi:10:0", "globi:2:0", "globi:2:1", "globi:1:0"]
    assert sorted(ids, key=natural_key) == ["globi:1:0", "globi:2:0", "globi:2:1", "globi:10:0"]


@pytest.mark.parametrize("count", [1, 2, 3, 4, 5, 17, 100, 1001])
def test_unconstrained_deal_is_exactly_balanced(count: int) -> None:
    items = [Movable(f"x:{n}", frozenset(range(4))) for n in range(count)]
    targets = deal_targets(7, "GloBI", items)
    counts = position_counts(list(targets.values()))
    assert sum(counts) == count
    assert max(counts) - min(counts) <= 1


def test_deal_does_not_depend_on_input_order_but_on_seed() -> None:
    items = [Movable(f"x:{n}", frozenset(range(4))) for n in range(40)]
    shuffled = items[:]
    random.Random(3).shuffle(shuffled)
    assert deal_targets(1, "Wikipedia", items) == deal_targets(1, "Wikipedia", shuffled)
    assert deal_targets(1, "Wikipedia", items) != deal_targets(2, "Wikipedia", items)


def test_constrained_items_take_only_free_places_and_stay_balanced() -> None:
    # A third of the items have a catch-all in D, a few more in C and D; still balanced overall.
    items = []
    for n in range(90):
        fixed = frozenset({3}) if n % 3 == 0 else frozenset({2, 3}) if n % 10 == 1 else frozenset()
        items.append(Movable(f"x:{n}", allowed_positions(0, fixed)))
    targets = deal_targets(11, "GloBI", items)
    for item in items:
        assert targets[item.item_id] in item.allowed
    counts = position_counts(list(targets.values()))
    assert max(counts) - min(counts) <= 1


def test_deal_is_as_even_as_the_constraints_allow() -> None:
    # Every item has D fixed: D stays empty and A, B, C share the items evenly.
    items = [Movable(f"x:{n}", frozenset({0, 1, 2})) for n in range(10)]
    counts = position_counts(list(deal_targets(5, "GloBI", items).values()))
    assert counts[3] == 0
    assert sorted(counts[:3]) == [3, 3, 4]


def _best_sum_of_squares(items: list[Movable]) -> int:
    """Brute force: the most even feasible counts (Hall's condition on every set of positions)."""
    n = len(items)
    best = None
    subsets = [frozenset(p for p in range(4) if mask >> p & 1) for mask in range(16)]
    confined = {t: sum(1 for m in items if m.allowed <= t) for t in subsets}
    for a in range(n + 1):
        for b in range(n + 1 - a):
            for c in range(n + 1 - a - b):
                counts = (a, b, c, n - a - b - c)
                if all(confined[t] <= sum(counts[p] for p in t) for t in subsets):
                    score = sum(x * x for x in counts)
                    best = score if best is None else min(best, score)
    assert best is not None
    return best


def test_random_constraints_reach_the_most_even_deal() -> None:
    rng = random.Random(42)
    for trial in range(60):
        items = []
        for n in range(rng.randint(1, 18)):
            fixed = frozenset(rng.sample(range(4), rng.choice([0, 1, 2, 2])))
            gold = rng.choice([p for p in range(4) if p not in fixed])
            allowed = allowed_positions(gold, fixed)
            if len(allowed) >= 2:
                items.append(Movable(f"i{n}", allowed))
        targets = deal_targets(trial, "D", items)
        assert all(targets[m.item_id] in m.allowed for m in items)
        counts = position_counts(list(targets.values()))
        assert sum(x * x for x in counts) == _best_sum_of_squares(items)


def test_permutation_moves_the_gold_and_keeps_fixed_options() -> None:
    fixed = frozenset({3})
    for target in (0, 1, 2):
        order = permutation(9, "GloBI", "globi:1:0", 1, target, fixed)
        assert sorted(order) == [0, 1, 2, 3]
        assert order[target] == 1
        assert order[3] == 3
    assert permutation(9, "GloBI", "x", 3, 3, fixed)[3] == 3
    with pytest.raises(ValueError):
        permutation(9, "GloBI", "x", 1, 3, fixed)


def test_permutation_is_seeded_per_item() -> None:
    orders = {permutation(seed, "Wikipedia", "w:1", 0, 2, frozenset()) for seed in range(30)}
    assert len(orders) > 1
    assert permutation(4, "Wikipedia", "w:1", 0, 2, frozenset()) == permutation(
        4, "Wikipedia", "w:1", 0, 2, frozenset()
    )


def test_filling_a_level_at_a_time_gives_what_one_item_at_a_time_gives() -> None:
    """``balance._fill`` against the rule it implements: each item to the emptiest allowed
    position, the lowest-ranked among equals."""
    rng = random.Random(5)
    for _ in range(400):
        group = tuple(sorted(rng.sample(range(4), rng.randint(1, 4))))
        totals = [rng.randint(0, 9) for _ in range(4)]
        rank = rng.sample(range(4), 4)
        items = rng.randint(0, 60)
        expected_totals, expected = list(totals), [0] * 4
        for _ in range(items):
            best = min(group, key=lambda p: (expected_totals[p], rank[p]))
            expected[best] += 1
            expected_totals[best] += 1
        assert balance._fill(group, items, totals, rank) == expected
        assert totals == expected_totals


def test_the_catch_all_pretest_lets_through_what_its_pattern_did() -> None:
    """``fixed._maybe_catch_all_or_ordinal`` (string methods) says what the regular expression
    it replaced said, on options with hostile whitespace, case and NULs."""
    import re

    from bagel_studio.core.checks import fixed

    pattern = re.compile(
        r"(?:^|\x00)\s*(?:no|all|neither|both|any|each|it|can|could|impossible|insufficient"
        r"|there)|indistinguishable|" + "|".join(fixed._ORDINALS)
    )
    pieces = [
        "No",
        "ALL",
        "nei",
        "ther",
        "It",
        "can",
        "Could",
        "FIRST",
        "2nd",
        "İt",
        "ǅ",
        " ",
        "\t",
        "\xa0",
        "\x00",
        "x",
        "The",
        "Indistinguishable",
        "4th",
        "ß",
        "ﬁrst",
    ]
    seen = set()
    for options in random_options(pieces, seed=5, rounds=5000):
        joined = "\x00".join(options)
        expected = pattern.search(joined.casefold()) is not None
        assert fixed._maybe_catch_all_or_ordinal(joined) == expected, options
        seen.add(expected)
    assert seen == {True, False}


def test_the_byte_pretest_lets_through_what_both_cheap_tests_did() -> None:
    """``fixed._maybe_fixed`` (bytes deleted at C speed before either cheap test) says what the
    two cheap tests said without it, on options with letters A-D and digits among other
    letters, digits and spaces (full-width, superscript, a lone surrogate, NUL, long s)."""
    from bagel_studio.core.checks import fixed

    pieces = [
        "A",
        "d",
        "D",
        "B.",
        "Option C",
        "3",
        "1st",
        "2ND",
        "4th",
        "5th",
        "9",
        "0",
        "Ａ",
        "１",
        "²",
        "\ud800",
        "\x00",
        " ",
        "\t",
        "first",
        "ſt",
        "none",
        "Sound",
        "x",
        "é",
    ]
    seen = set()
    for options in random_options(pieces, seed=7, rounds=5000, most=4):
        joined = "\x00".join(options)
        expected = fixed._MAYBE_NAMED_OR_NUMBERED.search(
            joined
        ) is not None or fixed._maybe_catch_all_or_ordinal(joined)
        assert fixed._maybe_fixed(joined) == expected, options
        seen.add(expected)
    assert seen == {True, False}
