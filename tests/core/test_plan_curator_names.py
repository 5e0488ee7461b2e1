"""One person is one name everywhere: a review plan's names are trimmed and composed (NFC) as a
decision's are (``model.curator_name``), when a plan is made, read back from the project, handed
out and collected; two names of one plan that become the same are refused, naming both."""

from __future__ import annotations

import json
import sqlite3
import unicodedata
from pathlib import Path

import pytest

from bagel_studio.core.assignment import PlanError, PlanSettings
from bagel_studio.core.cli import run
from bagel_studio.core.operations.handout import hand_out
from bagel_studio.core.operations.team import make_plan
from bagel_studio.core.store import Store
from bagel_studio.core.team.status import team_status
from tests.core.test_team_collect import decide, edit_package, package, package_items
from tests.core.test_team_plan import make_project

ZOE_DECOMPOSED = unicodedata.normalize("NFD", "Zoë")


def test_a_plan_cleans_its_names_as_a_decision_does() -> None:
    settings = PlanSettings((" alice", "bob\t", ZOE_DECOMPOSED))
    assert settings.curators == ("alice", "bob", "Zoë")


def test_two_names_that_become_one_are_refused_naming_both() -> None:
    with pytest.raises(PlanError) as refused:
        PlanSettings(("alice", "bob", " alice"))
    assert str(refused.value) == (
        "'alice' and ' alice' are one curator once trimmed and composed (alice):"
        " name each curator once"
    )
    with pytest.raises(PlanError) as refused:
        PlanSettings(("Zoë", ZOE_DECOMPOSED))  # they look alike: how they differ is said
    assert str(refused.value).startswith(r"'Zo\xeb' and 'Zoe\u0308' are one curator")


def test_a_name_given_twice_alike_is_still_said_as_twice() -> None:
    with pytest.raises(PlanError, match=r"^a curator is named twice: alice$"):
        PlanSettings(("alice", "alice"))


def _store_curators(project: Path, curators: list[str]) -> None:
    conn = sqlite3.connect(project)
    try:
        (raw,) = conn.execute("SELECT settings FROM review_plans").fetchone()
        settings = json.loads(raw)
        settings["curators"] = curators
        conn.execute("UPDATE review_plans SET settings = ?", [json.dumps(settings)])
        conn.commit()
    finally:
        conn.close()


def _untrim_alice(project: Path) -> None:
    """Edit the plan's assignments by hand: alice's rows name " alice"."""
    conn = sqlite3.connect(project)
    try:
        conn.execute("UPDATE plan_assignments SET curator = ' alice' WHERE curator = 'alice'")
        conn.commit()
    finally:
        conn.close()


def test_a_stored_plan_with_an_untrimmed_name_is_read_with_it_cleaned(tmp_path: Path) -> None:
    project = make_project(tmp_path / "study.bagel", 20)
    with Store.open(project) as store:
        make_plan(store, PlanSettings(("alice", "bob")))
    _store_curators(project, [" alice", "bob "])
    with Store.open(project, read_only=True) as store:
        plan = store.team.current_plan()
        assert plan is not None and plan.settings.curators == ("alice", "bob")


def test_a_stored_plan_whose_names_become_one_is_refused_naming_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = make_project(tmp_path / "study.bagel", 20)
    with Store.open(project) as store:
        make_plan(store, PlanSettings(("alice", "bob")))
    _store_curators(project, ["alice", " alice"])
    with Store.open(project, read_only=True) as store, pytest.raises(PlanError) as refused:
        store.team.current_plan()
    assert "'alice' and ' alice' are one curator" in str(refused.value)
    capsys.readouterr()
    assert run(["plan", str(project)]) == 2
    assert "'alice' and ' alice' are one curator" in capsys.readouterr().err


def test_plan_on_the_command_line_cleans_and_refuses_as_a_decision_would(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = make_project(tmp_path / "study.bagel", 20)
    assert run(["plan", str(project), "--curators", "alice", " bob", "--json"]) == 0
    with Store.open(project, read_only=True) as store:
        plan = store.team.current_plan()
        assert plan is not None and plan.settings.curators == ("alice", "bob")
        assert store.team.round_curators(plan.id, 1) == ["alice", "bob"]
    capsys.readouterr()
    replaced = ["--replace", "--curators", "alice", "alice "]
    assert run(["plan", str(project), *replaced]) == 2
    assert "'alice' and 'alice ' are one curator" in capsys.readouterr().err


def test_hand_out_to_a_name_given_untrimmed_writes_that_curators_package(
    tmp_path: Path,
) -> None:
    project = make_project(tmp_path / "study.bagel", 20)
    out = tmp_path / "packages"
    with Store.open(project) as store:
        make_plan(store, PlanSettings(("alice", "bob"), calibration=0.1))
        written = hand_out(store, out, curators=[" alice"]).result
    assert [p.curator for p in written.packages] == ["alice"]
    assert [p.name for p in out.iterdir()] == ["alice"]
    assert package(out, "alice").exists()


def test_a_package_whose_curator_reads_untrimmed_is_collected_as_that_curator(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A package naming " alice" is alice's package: bound to her, reviewed as her in the desk
    (``store.team.package``) and collected as hers."""
    project = make_project(tmp_path / "study.bagel", 20)
    out = tmp_path / "packages"
    assert run(["plan", str(project), "--curators", "alice", "bob"]) == 0
    assert run(["hand-out", str(project), str(out)]) == 0
    alice = package(out, "alice")
    decide(alice, "alice", package_items(alice), "--accept")
    edit_package(
        alice,
        "UPDATE meta SET value = json_set(value, '$.curator', ' alice') WHERE key = 'team_package'",
        [],
    )
    with Store.open(alice, read_only=True) as store:
        meta = store.team.package()
        assert meta is not None and meta["curator"] == "alice"
    capsys.readouterr()
    assert run(["collect", str(project), str(alice), "--json"]) == 0
    collected = json.loads(capsys.readouterr().out)["packages"][0]
    assert collected["curator"] == "alice"
    assert collected["reviews_added"] == len(package_items(alice))


def test_assignments_hand_edited_untrimmed_are_read_with_the_name_cleaned(tmp_path: Path) -> None:
    """A plan's assignments naming " alice" (edited by hand) were read as stored: the plan
    said alice had no items and her decisions were not hers. Read back, an assignment names
    the curator as every decision does, and alice's items and decisions are hers."""
    project = make_project(tmp_path / "study.bagel", 20)
    with Store.open(project) as store:
        plan_id = make_plan(store, PlanSettings(("alice", "bob"), calibration=0.1)).result.plan_id
        hers = store.team.assignments(plan_id, "alice")
        loads = store.team.loads(plan_id)
    decide(project, "alice", [hers[0].item_id], "--accept")
    _untrim_alice(project)
    with Store.open(project, read_only=True) as store:
        team = store.team
        assert {a.curator for a in team.assignments(plan_id)} == {"alice", "bob"}
        assert team.assignments(plan_id, "alice") == hers
        assert team.loads(plan_id) == loads
        assert team.round_curators(plan_id, 1) == ["alice", "bob"]
        rows = [row for row in team.item_rows(plan_id) if row[0] == hers[0].item_id]
        assert ("alice", "accept") in [(curator, decision) for _, curator, _, decision, _ in rows]
        status = team_status(store)
        alice = next(c for c in status.curators if c.curator == "alice")
        assert (alice.assigned, alice.decided) == (loads["alice"], 1)


def test_a_package_keeps_its_curators_assignments_hand_edited_untrimmed(tmp_path: Path) -> None:
    """A plan's assignments edited by hand into " alice" are alice's when her package is
    written: the hand-out kept the plan's rows by the name as stored, and her package held
    her items without the plan that gives them to her."""
    project = make_project(tmp_path / "study.bagel", 20)
    out = tmp_path / "packages"
    with Store.open(project) as store:
        plan_id = make_plan(store, PlanSettings(("alice", "bob"), calibration=0.1)).result.plan_id
        hers = [a.item_id for a in store.team.assignments(plan_id, "alice", 1)]
    _untrim_alice(project)
    with Store.open(project) as store:
        hand_out(store, out, curators=["alice"])
    alice = package(out, "alice")
    assert package_items(alice) == hers
    with Store.open(alice, read_only=True) as store:
        kept = store.team.assignments(plan_id, "alice", 1)
        assert [a.item_id for a in kept] == hers
        assert store.team.loads(plan_id) == {"alice": len(hers)}
