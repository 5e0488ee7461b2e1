"""A review team end to end through the command line: a plan, its packages handed out (while a
writer holds the project), three simulated curators deciding in them with planted
disagreements, collect, and a second round that reaches exactly those disagreements; and the
packages collect refuses, each with one line, leaving the project unchanged."""

from __future__ import annotations

import json
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from bagel_studio.core.cli import run
from bagel_studio.core.store import Store
from tests.core.test_team_plan import make_project

TEAM = ("alice", "bob", "carol")


def plan_and_hand_out(tmp_path: Path, n: int = 60) -> tuple[Path, Path]:
    project = make_project(tmp_path / "study.bagel", n)
    assert run(["plan", str(project), "--curators", *TEAM, "--calibration", "10%"]) == 0
    out = tmp_path / "packages"
    assert run(["hand-out", str(project), str(out)]) == 0
    return project, out


def package(out: Path, curator: str, round_: int = 1) -> Path:
    suffix = "" if round_ == 1 else f"-round{round_}"
    return out / curator / f"study-{curator}{suffix}.bagel"


def package_items(path: Path) -> list[str]:
    """The package's items in its queue order."""
    with Store.open(path, read_only=True) as store:
        return [str(r[0]) for r in store.db.execute("SELECT id FROM items ORDER BY seq")]


def assignments(project: Path) -> dict[str, list[str]]:
    """Item -> its curators, in the order they got it."""
    with Store.open(project, read_only=True) as store:
        plan = store.team.current_plan()
        assert plan is not None
        result: dict[str, list[str]] = {}
        for item_id, curator, *_ in store.team.item_rows(plan.id):
            result.setdefault(item_id, []).append(curator)
        return result


def decide(path: Path, curator: str, ids: list[str], *how: str) -> None:
    if ids:
        assert run(["decide", str(path), "--curator", curator, *how, *ids]) == 0


def snapshot(project: Path) -> list[list[tuple[Any, ...]]]:
    conn = sqlite3.connect(project)
    try:
        return [
            conn.execute(f"SELECT * FROM {table} ORDER BY 1, 2").fetchall()
            for table in ("reviews", "history", "plan_collections", "plan_assignments", "items")
        ]
    finally:
        conn.close()


def edit_package(path: Path, sql: str, params: list[Any]) -> None:
    conn = sqlite3.connect(path)
    try:
        conn.execute(sql, params)
        conn.commit()
    finally:
        conn.close()


def test_three_curators_collect_and_a_second_round_reaches_exactly_the_disagreements(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project, out = plan_and_hand_out(tmp_path)
    given = assignments(project)
    two = sorted(i for i, c in given.items() if len(c) == 2)
    three = sorted(i for i, c in given.items() if len(c) == 3)
    planted = set(two[:7])  # the second of the two curators rejects: a disagreement
    majority = three[0]  # one of three rejects: two keep it, no further look
    split = three[1]  # keep, reject, uncertain: at the limit (three), the adjudicator's
    for curator in TEAM:
        mine = package_items(package(out, curator))
        assert sorted(mine) == sorted(i for i, c in given.items() if curator in c)
        rejects = [i for i in mine if i in planted and given[i][1] == curator]
        rejects += [i for i in (majority, split) if given[i][1] == curator]
        unsure = [i for i in mine if i == split and given[i][2] == curator]
        accepts = [i for i in mine if i not in rejects and i not in unsure]
        decide(package(out, curator), curator, accepts, "--accept")
        decide(package(out, curator), curator, rejects, "--reject", "trivial")
        decide(package(out, curator), curator, unsure, "--uncertain")
    packages = [str(package(out, c)) for c in TEAM]
    capsys.readouterr()
    assert run(["collect", str(project), *packages]) == 0
    assert "decisions added" in capsys.readouterr().out
    assert run(["plan", str(project), "--next", "--json"]) == 0
    second = json.loads(capsys.readouterr().out)
    assert second["round"] == 2 and second["at_limit"] == [split]
    given2 = assignments(project)
    reached = {i for i, c in given2.items() if len(c) > len(given[i])}
    assert reached == planted
    for item_id in planted:
        assert len(given2[item_id]) == 3 and given2[item_id][:2] == given[item_id]
    # the second round's packages hold exactly those items, each with its further curator
    out2 = tmp_path / "round2"
    assert run(["hand-out", str(project), str(out2)]) == 0
    capsys.readouterr()
    further = {c: sorted(i for i in planted if given2[i][2] == c) for c in TEAM}
    for curator, items in further.items():
        path = package(out2, curator, 2)
        assert path.exists() == bool(items)
        if items:
            assert sorted(package_items(path)) == items
            decide(path, curator, items, "--accept")
    round2 = [str(package(out2, c, 2)) for c, items in further.items() if items]
    assert run(["collect", str(project), *round2]) == 0
    capsys.readouterr()
    assert run(["plan", str(project), "--json"]) == 0
    status = json.loads(capsys.readouterr().out)
    assert status["waiting_for_further_look"] == 0 and status["rounds"] == 2
    assert sum(c["decided"] for c in status["curators"]) == sum(len(c) for c in given2.values())


def test_a_package_edited_to_another_curator_is_refused_and_the_project_unchanged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project, out = plan_and_hand_out(tmp_path, 30)
    alice = package(out, "alice")
    decide(alice, "alice", package_items(alice), "--accept")
    edit_package(
        alice,
        "UPDATE meta SET value = json_set(value, '$.curator', 'bob') WHERE key = 'team_package'",
        [],
    )
    edit_package(alice, "UPDATE reviews SET curator = 'bob'", [])
    before = snapshot(project)
    assert run(["collect", str(project), str(alice)]) == 1
    err = capsys.readouterr().err.splitlines()
    assert err[0] == (
        "bagel-studio collect: study-alice.bagel: says it is bob's package,"
        " but it was handed out to alice"
    )
    assert snapshot(project) == before


def test_a_package_of_another_plan_is_refused_and_the_project_unchanged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project, out = plan_and_hand_out(tmp_path, 30)
    with Store.open(project, read_only=True) as store:
        old = store.team.current_plan().id  # type: ignore[union-attr]
    assert run(["plan", str(project), "--curators", *TEAM, "--replace"]) == 0
    capsys.readouterr()
    bob = package(out, "bob")
    decide(bob, "bob", package_items(bob), "--accept")
    before = snapshot(project)
    assert run(["collect", str(project), str(bob)]) == 1
    line = capsys.readouterr().err.splitlines()[0]
    assert line.startswith(f"bagel-studio collect: study-bob.bagel: a package of plan {old},")
    assert line.endswith("replaced")
    assert snapshot(project) == before
    _other, other_out = plan_and_hand_out(tmp_path / "elsewhere", 30)
    assert run(["collect", str(project), str(package(other_out, "bob"))]) == 1
    assert "not of this project's plan" in capsys.readouterr().err
    assert snapshot(project) == before


def test_a_decision_dated_next_year_is_refused_and_the_project_unchanged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project, out = plan_and_hand_out(tmp_path, 30)
    carol = package(out, "carol")
    items = package_items(carol)
    decide(carol, "carol", items, "--accept")
    next_year = (datetime.now(UTC) + timedelta(days=365)).isoformat(timespec="milliseconds")
    edit_package(
        carol, "UPDATE reviews SET decided_at = ? WHERE item_id = ?", [next_year, items[3]]
    )
    before = snapshot(project)
    assert run(["collect", str(project), str(package(out, "alice")), str(carol)]) == 1
    err = capsys.readouterr().err.splitlines()
    assert err == [
        f"bagel-studio collect: study-carol.bagel: carol's decision on {items[3]} is dated"
        f" {next_year}, in the future (more than 5 minutes after this machine's clock)",
        "bagel-studio collect: nothing was collected",
    ]
    assert snapshot(project) == before


def test_decisions_after_the_package_was_collected_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project, out = plan_and_hand_out(tmp_path, 30)
    alice = package(out, "alice")
    items = package_items(alice)
    decide(alice, "alice", items[:5], "--accept")
    assert run(["collect", str(project), str(alice)]) == 0
    assert run(["collect", str(project), str(alice)]) == 0  # again: nothing new, no harm
    decide(alice, "alice", items[5:6], "--accept")
    before = snapshot(project)
    assert run(["collect", str(project), str(alice)]) == 1
    assert "after the package was collected" in capsys.readouterr().err
    assert snapshot(project) == before


def test_only_the_curators_own_decisions_on_their_items_come_in(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project, out = plan_and_hand_out(tmp_path, 30)
    bob = package(out, "bob")
    items = package_items(bob)
    decide(bob, "bob", items, "--accept")
    decide(bob, "mallory", items[:4], "--reject", "trivial")
    capsys.readouterr()
    assert run(["collect", str(project), str(bob), "--json"]) == 0
    collected = json.loads(capsys.readouterr().out)["packages"][0]
    assert collected["reviews_added"] == len(items) and collected["left_out_others"] == 4
    with Store.open(project, read_only=True) as store:
        assert store.reviews.curators() == ["bob"]


def test_merge_refuses_a_package_and_a_whole_copy_dated_in_the_future(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project, out = plan_and_hand_out(tmp_path, 30)
    alice = package(out, "alice")
    assert run(["merge", str(project), str(alice)]) == 2
    assert "collect it" in capsys.readouterr().err
    copy = tmp_path / "copy.bagel"
    with Store.open(project, read_only=True) as store:
        store.copy_to(copy)
    decide(copy, "alice", package_items(alice), "--accept")
    edit_package(copy, "UPDATE reviews SET decided_at = '2099-01-01T00:00:00.000+00:00'", [])
    before = snapshot(project)
    assert run(["merge", str(project), str(copy)]) == 2
    assert "in the future" in capsys.readouterr().err
    assert snapshot(project) == before
