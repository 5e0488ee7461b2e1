"""The audit on a project with planted shortcuts: it names each with its numbers, and nothing
else."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest
from scipy.stats import binomtest

from bagel_studio.core import operations
from bagel_studio.core.audit import audit_flags, run_audit
from bagel_studio.core.audit.baselines import binomial_p, format_p
from bagel_studio.core.checks import CHECKS, check_all
from bagel_studio.core.checks.audit import LEAKS_ANSWER_OF, NEAR_DUPLICATE
from bagel_studio.core.model import Decision
from bagel_studio.core.operations.audit import store_audit_flags
from bagel_studio.core.store import QueueFilter, Store
from tests.core.audit.planted import LEAKED_ID, LEAKING_ID, PARAPHRASES, planted_project

PARTICIPANT = "Masked participant identification"


@pytest.fixture(scope="module")
def planted(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return planted_project(tmp_path_factory.mktemp("planted") / "planted.bagel")


def test_planted_artifacts_are_named_with_their_numbers(planted: Path) -> None:
    with Store.open(planted, read_only=True) as store:
        report = run_audit(store)
    found = {(a.baseline, a.domain, a.dimension): a for a in report.artifacts}
    assert set(found) == {
        ("longest", "GloBI", None),
        ("longest", "GloBI", PARTICIPANT),
        ("position", "bioRxiv", None),
    }
    # 200 planted items, and the leaked item, whose gold is not its longest option.
    participant = found["longest", "GloBI", PARTICIPANT]
    assert participant.score.n == 201
    assert participant.score.accuracy == pytest.approx(200 / 201)
    assert participant.sentence() == (
        "GloBI / Masked participant identification: the longest option is the gold"
        " 99.5% of the time, n = 201, p < 1e-40"
    )
    position = found["position", "bioRxiv", None]
    assert (position.score.letter, position.score.n, position.score.accuracy) == ("B", 100, 0.7)
    assert position.sentence().startswith("bioRxiv: the gold is in position B 70% of the time")


def test_clean_domains_stay_near_chance(planted: Path) -> None:
    with Store.open(planted, read_only=True) as store:
        report = run_audit(store)
    wikipedia = {name: scores["Wikipedia"] for name, scores in report.baselines.by_domain.items()}
    assert all(0.15 < score.accuracy < 0.35 for score in wikipedia.values())
    assert all(score.p_value > 0.01 for score in wikipedia.values())
    assert not [a for a in report.artifacts if a.domain == "Wikipedia"]
    assert not [a for a in report.artifacts if a.dimension == "Masked interaction type inference"]
    # Options share no word with their stems: the stem-overlap baseline has nothing to go on
    # and scores exactly chance (ties share the credit).
    assert report.baselines.by_domain["stem_overlap"]["bioRxiv"].accuracy == 0.25


def test_planted_paraphrases_come_out_as_clusters(planted: Path) -> None:
    with Store.open(planted, read_only=True) as store:
        report = run_audit(store)
    clusters = [sorted(c) for c in report.duplicates]
    for first, _, second, _, _ in PARAPHRASES:
        assert sorted([first, second]) in clusters
    assert ["xeno-canto:XC100:a", "xeno-canto:XC100:b"] in clusters
    clustered = {i for c in clusters for i in c}
    # No clean generated item is taken for a duplicate.
    assert not [i for i in clustered if i.split(":")[1].isdigit()]


def test_the_leak_is_found_one_way(planted: Path) -> None:
    with Store.open(planted, read_only=True) as store:
        report = run_audit(store)
    assert [leak.to_json() for leak in report.leaks] == [
        {"item_id": LEAKING_ID, "leaked_item_id": LEAKED_ID}
    ]
    flag = next(f for f in audit_flags(report)[LEAKING_ID] if f.check == LEAKS_ANSWER_OF)
    assert flag.message == f"The stem states the answer of {LEAKED_ID}: 'Microtus arvalis'"
    assert flag.details["items"] == [LEAKED_ID]


def test_audit_flags_survive_rechecks_and_go_when_fixed(planted: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy.bagel"
    copy.write_bytes(planted.read_bytes())
    first, _, second, _, _ = PARAPHRASES[0]
    with Store.open(copy) as store:
        change = store_audit_flags(store, audit_flags(run_audit(store))).result
        assert {first, second, LEAKING_ID} <= change.item_ids
        assert NEAR_DUPLICATE in {f.check for f in store.flags.of_item(first)}
        check_all(store, [first, second])  # an item's own checks keep them
        flag = next(f for f in store.flags.of_item(first) if f.check == NEAR_DUPLICATE)
        assert flag.message == (
            f"Says the same thing as {second} (the same gold 'Rocky hillsides with scrub';"
            " about hystrix cristata)"
        )
        assert flag.details == {"items": [second]}
        assert first in store.items.ids(QueueFilter(check=NEAR_DUPLICATE))
        # A curator rewrites one of the pair; the next audit takes both flags away.
        item = store.items.get(second)
        operations.edit(
            store,
            second,
            "ana",
            item.content.with_changes(
                question="What does Hystrix cristata eat in winter?", dimension="Diet"
            ),
        )
        assert NEAR_DUPLICATE in {
            f.check for f in store.flags.of_item(second)
        }  # until the next audit
        store_audit_flags(store, audit_flags(run_audit(store)))
        assert NEAR_DUPLICATE not in {f.check for f in store.flags.of_item(first)}
        assert first not in store.items.ids(QueueFilter(check=NEAR_DUPLICATE))
        # A rejected item is out of the release and out of the audit.
        operations.decide(store, LEAKED_ID, "ana", Decision.REJECT, reason="answer-leaked")
        report = run_audit(store)
        assert report.leaks == []


def test_audit_checks_are_documented() -> None:
    assert {NEAR_DUPLICATE, LEAKS_ANSWER_OF, "answerable-without-stem"} <= set(CHECKS)
    reference = Path(__file__).resolve().parents[3] / "docs" / "CHECKS.md"
    readme = reference.read_text(encoding="utf-8")
    for check in (NEAR_DUPLICATE, LEAKS_ANSWER_OF, "answerable-without-stem"):
        assert f"| `{check}` |" in readme


@pytest.mark.parametrize(("k", "n"), [(0, 10), (3, 10), (30, 100), (70, 100), (900, 1000)])
def test_binomial_p_is_the_one_sided_exact_test(k: int, n: int) -> None:
    expected = binomtest(k, n, 0.25, alternative="greater").pvalue
    assert binomial_p(k, n) == pytest.approx(expected, rel=1e-9)


@pytest.mark.parametrize(
    ("k", "n"),
    [(1, 1), (1, 2), (2, 7), (16, 40), (250, 1000), (251, 1000), (300, 1000), (1000, 4000)]
    + [(k, 3000) for k in (1, 700, 749, 750, 751, 800, 1000, 2999, 3000)],
)
def test_binomial_p_is_exact_to_the_last_digits(k: int, n: int) -> None:
    """Against the exact tail in integers: sum of C(n, i) 3**(n - i) over i >= k, over 4**n."""
    term, tail = 3**n, 0  # i = 0
    for i in range(n + 1):
        if i >= k:
            tail += term
        if i < n:
            term = term * (n - i) // ((i + 1) * 3)
    exact = Fraction(tail, 4**n)
    if exact < Fraction(1, 10**300):  # below what a float holds with its digits
        assert binomial_p(k, n) < 1e-300
    else:
        assert abs(Fraction(binomial_p(k, n)) - exact) <= exact * Fraction(1, 10**13)


def test_tiny_p_values_print_sensibly() -> None:
    assert binomial_p(1380, 1380) == 0.0 or binomial_p(1380, 1380) < 1e-300
    assert format_p(binomial_p(1380, 1380)) == "p < 1e-40"
    assert format_p(3.2e-12) == "p = 3.2e-12"
    assert format_p(0.0123) == "p = 0.012"
    assert binomial_p(0, 0) == 1.0


def test_a_random_project_has_no_artifacts(tmp_path: Path) -> None:
    """Ninety-odd scores tested: without Holm's correction one would pass p < 0.01 by chance
    about every other project."""
    import random

    from bagel_studio.core.domains import DIMENSIONS
    from bagel_studio.core.model import ItemContent
    from bagel_studio.core.store import NewItem

    rng = random.Random(5)
    words = [f"w{n}" for n in range(400)]
    items = []
    for n in range(3000):
        domain = rng.choice(list(DIMENSIONS))
        dimension = rng.choice(DIMENSIONS[domain])
        options = tuple(
            " ".join(rng.choices(words, k=rng.randint(1, 6))) + f" {k}" for k in range(4)
        )
        question = " ".join(rng.choices(words, k=20)) + "?"
        content = ItemContent(question, options, rng.randrange(4), dimension)
        items.append(NewItem(f"random:{n}", domain, content))
    with Store.open(tmp_path / "random.bagel") as store:
        store.items.add_items(items, None)
        report = run_audit(store)
    raw = [
        s.p_value
        for by_domain in report.baselines.by_dimension.values()
        for dims in by_domain.values()
        for s in dims.values()
    ]
    assert report.items == 3000
    assert report.artifacts == [], [a.sentence() for a in report.artifacts]
    assert min(raw) < 0.2  # the scores do vary: the correction, not flat data, keeps it quiet


def test_holm_adjusts_step_down() -> None:
    from bagel_studio.core.audit.baselines import holm

    assert holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert holm([]) == []
