"""``bagel-studio plan``: a plan stored in the project from its items and flags, refused twice
without --replace, shown with its loads and pairs; --next passes each disagreement to one more
curator."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bagel_studio.core import operations
from bagel_studio.core.assignment import PlanError, PlanSettings
from bagel_studio.core.changes import Changes
from bagel_studio.core.cli import run
from bagel_studio.core.model import Decision, Flag, ItemContent, Severity
from bagel_studio.core.operations.team import make_plan, next_round
from bagel_studio.core.store import NewItem, Store
from bagel_studio.core.team.status import team_status

DOMAINS = ("Wikipedia", "GloBI", "bioRxiv", "Xeno-canto")
DIMENSIONS = (
    "Diet",
    "Masked interaction type inference",
    "Result Interpretation",
    "Modulation pattern",
)


def items(n: int) -> list[NewItem]:
    return [
        NewItem(
            id=f"it{i:04d}",
            domain=DOMAINS[i % 4],
            content=ItemContent(
                f"Question {i}?", ("alpha", "beta", "gamma", "delta"), i % 4, DIMENSIONS[i % 4]
            ),
        )
        for i in range(n)
    ]


def make_project(path: Path, n: int = 200) -> Path:
    """``n`` items; every fifth has a warning flag, every seventh models-miss-gold (info), every
    eleventh another info flag (not risky)."""
    flags: dict[str, list[Flag]] = {}
    for i in range(n):
        item_flags = []
        if i % 5 == 0:
            item_flags.append(Flag("hidden-context", Severity.WARNING, "the passage"))
        if i % 7 == 0:
            item_flags.append(Flag("models-miss-gold", Severity.INFO, "m chose B"))
        if i % 11 == 0:
            item_flags.append(Flag("taxon-granularity", Severity.INFO, "ranks"))
        if item_flags:
            flags[f"it{i:04d}"] = item_flags
    with Store.open(path) as store:
        store.items.add_items(items(n), None, flags=flags)
    return path


def risky_ids(n: int) -> set[str]:
    return {f"it{i:04d}" for i in range(n) if i % 5 == 0 or i % 7 == 0}


def test_a_plan_is_stored_with_its_rule_and_assignments(tmp_path: Path) -> None:
    path = make_project(tmp_path / "p.bagel")
    with Store.open(path) as store:
        done = make_plan(store, PlanSettings(("alice", "bob", "carol"), 2, 3, 0.05, 3))
        assert done.changes == Changes(team=True)
        plan = store.team.current_plan()
        assert plan is not None and plan.id == done.result.plan_id
        assert plan.settings.curators == ("alice", "bob", "carol")
        assert len(plan.secret) == 32
        assignments = store.team.assignments(plan.id)
        per_item: dict[str, set[str]] = {}
        for a in assignments:
            per_item.setdefault(a.item_id, set()).add(a.curator)
        calibration = set(done.result.deal.calibration)
        assert len(calibration) == 10
        for item_id, curators in per_item.items():
            expected = 3 if item_id in calibration or item_id in risky_ids(200) else 2
            assert len(curators) == expected, item_id
        loads = store.team.loads(plan.id)
        assert max(loads.values()) - min(loads.values()) <= 1
        stored = json.loads(store.db.execute("SELECT settings FROM review_plans").fetchone()[0])
        assert "models-miss-gold" in stored["risk_rule"] and stored["seed"] == 3


def test_a_second_plan_needs_replace_and_then_becomes_current(tmp_path: Path) -> None:
    path = make_project(tmp_path / "p.bagel", 40)
    with Store.open(path) as store:
        first = make_plan(store, PlanSettings(("a", "b"), 1, 2, 0.1, 0)).result
        with pytest.raises(PlanError, match="--replace"):
            make_plan(store, PlanSettings(("a", "b", "c")))
        second = make_plan(store, PlanSettings(("a", "b", "c")), replace=True).result
        assert second.replaced == first.plan_id
        assert store.team.current_plan().id == second.plan_id  # type: ignore[union-attr]
        assert store.team.plan_ids() == [first.plan_id, second.plan_id]


def test_plan_command_prints_loads_and_pairs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = make_project(tmp_path / "p.bagel")
    code = run(["plan", str(path), "--curators", "alice", "bob", "carol", "--calibration", "5%"])
    out = capsys.readouterr().out
    assert code == 0
    assert "200 items, 3 curators, 2 per item, 3 per risky item, seed 0" in out
    assert "calibration: 10 items (5.0%) seen by every curator" in out
    assert "items each pair shares" in out
    assert run(["plan", str(path), "--curators", "x", "y"]) == 2
    assert "--replace" in capsys.readouterr().err
    assert run(["plan", str(path), "--json"]) == 0
    status = json.loads(capsys.readouterr().out)
    loads = [c["assigned"] for c in status["curators"]]
    assert max(loads) - min(loads) <= 1 and sum(loads) > 400
    assert status["agreement"]["calibration"]["measured_on"] == "the calibration share"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--calibration", "five"], "not a share"),
        (["--calibration", "5"], "more than the whole"),
        (["--per-item", "0"], "at least one curator"),
        (["--next"], "one at a time"),
    ],
)
def test_plan_command_refuses_bad_settings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    path = make_project(tmp_path / "p.bagel", 20)
    assert run(["plan", str(path), "--curators", "a", "b", *args]) == 2
    assert message in capsys.readouterr().err


def test_next_round_gives_each_disagreement_to_one_more_curator(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = make_project(tmp_path / "p.bagel", 60)
    with Store.open(path) as store:
        plan = make_plan(store, PlanSettings(("a", "b", "c", "d"), 2, 2, 0.0, 5)).result
    assert run(["plan", str(path), "--next"]) == 1  # nothing decided: nothing to pass on
    assert "no disagreement to pass on" in capsys.readouterr().out
    with Store.open(path) as store:
        pairs: dict[str, list[str]] = {}
        for a in store.team.assignments(plan.plan_id):
            pairs.setdefault(a.item_id, []).append(a.curator)
        split = sorted(pairs)[:5]
        for item_id, curators in pairs.items():
            for n, curator in enumerate(curators):
                decision = Decision.REJECT if item_id in split and n == 1 else Decision.ACCEPT
                reason = "trivial" if decision is Decision.REJECT else None
                operations.decide(store, item_id, curator, decision, reason=reason)
        result = next_round(store).result
        assert result.number == 2
        assert {a.item_id for a in result.assignments} == set(split)
        for a in result.assignments:
            assert a.curator not in pairs[a.item_id]
        assert team_status(store).waiting == []  # given on: waiting for the further curator
        assert next_round(store).result.assignments == []  # until that one decides
    assert run(["plan", str(path)]) == 0
    out = capsys.readouterr().out
    assert "round 2" in out
