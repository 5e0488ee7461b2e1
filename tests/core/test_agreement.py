"""Kappa against published worked examples, and the agreement of three real curators' files."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from bagel_studio.core import operations
from bagel_studio.core.agreement import (
    BlindMismatch,
    agreement_report,
    blind_mismatches,
    cohen_kappa,
    fleiss_kappa,
)
from bagel_studio.core.cli import run
from bagel_studio.core.merge import merge_projects
from bagel_studio.core.model import Decision, ItemContent
from bagel_studio.core.store import NewItem, Store

# Fleiss (1971), as reproduced on Wikipedia ("Fleiss' kappa", worked example): 10 subjects,
# 14 raters, 5 categories; P-bar = 0.378, P-bar_e = 0.213, kappa = 0.210.
FLEISS_1971 = [
    [0, 0, 0, 0, 14],
    [0, 2, 6, 4, 2],
    [0, 0, 3, 5, 6],
    [0, 3, 9, 2, 0],
    [2, 2, 8, 1, 1],
    [7, 7, 0, 0, 0],
    [3, 2, 6, 3, 0],
    [2, 5, 3, 2, 2],
    [6, 5, 2, 1, 0],
    [0, 2, 2, 3, 7],
]


def test_fleiss_kappa_matches_fleiss_1971() -> None:
    assert fleiss_kappa(FLEISS_1971) == pytest.approx(0.2099, abs=5e-4)


def test_cohen_kappa_matches_the_wikipedia_example() -> None:
    """50 proposals, two readers: yes/yes 20, yes/no 5, no/yes 10, no/no 15 -> kappa 0.4."""
    pairs = [("yes", "yes")] * 20 + [("yes", "no")] * 5 + [("no", "yes")] * 10 + [("no", "no")] * 15
    assert cohen_kappa(pairs) == pytest.approx(0.4)
    assert cohen_kappa([(b, a) for a, b in pairs]) == pytest.approx(0.4)


def test_cohen_kappa_second_wikipedia_example() -> None:
    """Same agreement (60 of 100) with different marginals: 45/15/25/15 -> 0.1304."""
    pairs = [("y", "y")] * 45 + [("y", "n")] * 15 + [("n", "y")] * 25 + [("n", "n")] * 15
    assert cohen_kappa(pairs) == pytest.approx(0.1304, abs=1e-4)


def test_kappa_edge_cases() -> None:
    assert cohen_kappa([("a", "a"), ("b", "b")]) == pytest.approx(1.0)
    assert cohen_kappa([("a", "b"), ("b", "a")]) == pytest.approx(-1.0)
    assert cohen_kappa([]) is None
    assert cohen_kappa([("keep", "keep")] * 5) is None  # chance agreement is 1: undefined
    assert fleiss_kappa([[3, 0], [0, 3]]) == pytest.approx(1.0)
    assert fleiss_kappa([]) is None
    assert fleiss_kappa([[2, 0], [2, 0]]) is None
    with pytest.raises(ValueError):
        fleiss_kappa([[2, 1], [1, 1]])  # unequal raters per subject
    with pytest.raises(ValueError):
        fleiss_kappa([[1, 0], [0, 1]])  # a single rater


def _item(i: int, domain: str = "Wikipedia") -> NewItem:
    dimension = "Diet" if domain == "Wikipedia" else "Masked participant identification"
    content = ItemContent(f"Question {i}?", ("a", "b", "c", "d"), 1, dimension)
    return NewItem(f"{domain.lower()}:{i}", domain, content)


# Ratings per item: (alice, bob, carol); "-" = no rating, "skip" = skipped (not a rating).
PLAN = {
    "wikipedia:0": ("accept", "accept", "accept"),
    "wikipedia:1": ("accept", "accept", "reject"),
    "wikipedia:2": ("revise", "accept", "accept"),
    "wikipedia:3": ("reject", "reject", "reject"),
    "wikipedia:4": ("accept", "skip", "accept"),
    "wikipedia:5": ("uncertain", "accept", "-"),
    "wikipedia:6": ("accept", "accept", "-"),
    "globi:7": ("accept", "reject", "accept"),
}


@pytest.fixture
def three_curators(tmp_path: Path) -> Path:
    """Three curators' files decided per PLAN, merged into one project; returns its path."""
    base = tmp_path / "base.bagel"
    with Store.open(base) as store:
        store.items.add_items([_item(i) for i in range(7)] + [_item(7, "GloBI")], None)
    merged = tmp_path / "merged.bagel"
    shutil.copy(base, merged)
    paths = []
    for column, curator in enumerate(("alice", "bob", "carol")):
        path = tmp_path / f"{curator}.bagel"
        shutil.copy(base, path)
        with Store.open(path) as store:
            for item_id, plan in PLAN.items():
                decide(store, item_id, curator, plan[column])
        paths.append(path)
    with Store.open(merged) as store:
        merge_projects(store, paths)
    return merged


def decide(store: Store, item_id: str, curator: str, what: str) -> None:
    if what == "-":
        return
    if what == "revise":
        content = store.items.get(item_id).content
        operations.edit(
            store, item_id, curator, content.with_changes(question=content.question + " (edited)")
        )
        what = "accept"
    reason = "trivial" if what == "reject" else None
    operations.decide(store, item_id, curator, Decision(what), reason=reason)


def test_agreement_of_three_curators_per_domain(three_curators: Path) -> None:
    with Store.open(three_curators, read_only=True) as store:
        report = agreement_report(store)
    wiki = report.domains["Wikipedia"]
    assert wiki.curators == ("alice", "bob", "carol")
    assert wiki.items_rated == 7
    pairs = {(p.a, p.b): p for p in wiki.pairs}
    # alice/bob on W0,1,2,3,5,6: agree on 5 of 6; marginals keep 4/5, reject 1/1, uncertain 1/0
    # -> p_e = 21/36, kappa = (30/36 - 21/36) / (15/36) = 0.6
    assert pairs["alice", "bob"].n == 6
    assert pairs["alice", "bob"].kappa == pytest.approx(0.6)
    # alice/carol on W0..W4: agree on 4 of 5; p_e = (4*3 + 1*2) / 25 -> kappa 6/11
    assert pairs["alice", "carol"].n == 5
    assert pairs["alice", "carol"].kappa == pytest.approx(6 / 11)
    # bob/carol on W0..W3: agree 3 of 4; p_e = 0.5 -> kappa 0.5
    assert (pairs["bob", "carol"].n, pairs["bob", "carol"].kappa) == (4, pytest.approx(0.5))
    # Fleiss over W0..W3, rated by all three: P-bar = 5/6, P-bar_e = 5/9 -> kappa 5/8
    assert wiki.fleiss_items == 4
    assert wiki.fleiss_kappa == pytest.approx(0.625)
    globi = report.domains["GloBI"]
    assert (globi.items_rated, globi.fleiss_items) == (1, 1)
    assert report.overall.items_rated == 8
    assert report.overall.fleiss_items == 5
    assert report.overall.category_counts == {"keep": 15, "reject": 5, "uncertain": 1}


def test_agreement_command_json(three_curators: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["agreement", str(three_curators), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert isinstance(data["fleiss_kappa"], float)
    assert {(p["a"], p["b"]) for p in data["cohen_kappa"]} == {
        ("alice", "bob"),
        ("alice", "carol"),
        ("bob", "carol"),
    }
    assert all(set(p) >= {"a", "b", "kappa", "n"} for p in data["cohen_kappa"])
    assert data["domains"]["Wikipedia"]["fleiss_kappa"] == 0.625

    assert run(["agreement", str(three_curators), "--json", "--domain", "wikipedia"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["scope"] == "Wikipedia"
    assert data["fleiss_kappa"] == 0.625
    assert list(data["domains"]) == ["Wikipedia"]


def test_agreement_command_text_and_errors(
    three_curators: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["agreement", str(three_curators)]) == 0
    out = capsys.readouterr().out
    assert "Cohen's kappa alice / bob: 0.600 over 6 items" in out
    assert "Fleiss' kappa 0.625 over 4 items rated by all" in out
    assert run(["agreement", str(three_curators), "--domain", "Mars"]) == 2
    assert "unknown domain" in capsys.readouterr().err
    text = tmp_path / "notes.bagel"
    text.write_text("hello", encoding="utf-8")
    assert run(["agreement", str(text)]) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


def test_a_single_curator_has_no_kappa(tmp_path: Path) -> None:
    with Store.open(tmp_path / "solo.bagel") as store:
        store.items.add_items([_item(0), _item(1)], None)
        operations.decide(store, "wikipedia:0", "alice", Decision.ACCEPT)
        report = agreement_report(store)
    assert report.overall.pairs == ()
    assert report.overall.fleiss_kappa is None
    assert report.to_json()["cohen_kappa"] == []


def test_blind_answers_that_miss_the_gold(tmp_path: Path) -> None:
    with Store.open(tmp_path / "blind.bagel") as store:
        store.items.add_items([_item(0), _item(1), _item(2)], None)  # gold is B everywhere
        operations.decide(store, "wikipedia:0", "alice", Decision.ACCEPT, blind_answer=1)
        operations.decide(
            store, "wikipedia:1", "alice", Decision.REJECT, reason="ambiguous", blind_answer=3
        )
        operations.decide(store, "wikipedia:1", "bob", Decision.ACCEPT, blind_answer=0)
        operations.decide(store, "wikipedia:2", "bob", Decision.ACCEPT)
        assert blind_mismatches(store) == [
            BlindMismatch("wikipedia:1", "alice", "D", "B"),
            BlindMismatch("wikipedia:1", "bob", "A", "B"),
        ]


def test_three_verdicts_tell_accept_from_revise(three_curators: Path) -> None:
    """WoW-Bench's accept / revise / discard: alice's revision of W2 now disagrees with bob's
    accept, and alice's uncertain on W5 is no verdict."""
    with Store.open(three_curators, read_only=True) as store:
        report = agreement_report(store, scheme="verdicts")
        with pytest.raises(ValueError, match="unknown category scheme"):
            agreement_report(store, scheme="colours")
    wiki = report.domains["Wikipedia"]
    pairs = {(p.a, p.b): p for p in wiki.pairs}
    # alice/bob on W0,1,2,3,6: agree on 4 of 5; alice accept 3 revise 1 discard 1, bob accept 4
    # discard 1 -> p_e = 13/25, kappa = (0.8 - 0.52) / 0.48 = 7/12 (0.6 with accept = revise)
    assert pairs["alice", "bob"].n == 5
    assert pairs["alice", "bob"].kappa == pytest.approx(7 / 12)
    # Fleiss over W0..W3: P-bar = 2/3, P-bar_e = (49 + 1 + 16) / 144 -> kappa 5/13
    assert wiki.fleiss_items == 4
    assert wiki.fleiss_kappa == pytest.approx(5 / 13)
    assert report.overall.category_counts == {"accept": 14, "revise": 1, "discard": 5}


def test_agreement_command_prints_both_category_schemes(
    three_curators: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["agreement", str(three_curators)]) == 0
    out = capsys.readouterr().out
    keep, verdicts = out.split("Categories: accept / revise / discard")
    assert "Cohen's kappa alice / bob: 0.600 over 6 items" in keep
    assert "Cohen's kappa alice / bob: 0.583 over 5 items" in verdicts
    assert run(["agreement", str(three_curators), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["domains"]["Wikipedia"]["fleiss_kappa"] == 0.625
    assert data["verdicts"]["domains"]["Wikipedia"]["fleiss_kappa"] == round(5 / 13, 4)
    assert data["verdicts"]["categories"] == {"accept": 14, "revise": 1, "discard": 5}
