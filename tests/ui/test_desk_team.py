"""A review team in the desk: *File → Save a copy…* while the desk holds the project, and a
curator's package (hand-out) opened as its curator, with their items in the plan's order."""

from __future__ import annotations

from pathlib import Path

from bagel_studio.core import operations
from bagel_studio.core.assignment import PlanSettings
from bagel_studio.core.model import Decision
from bagel_studio.core.operations.handout import hand_out
from bagel_studio.core.operations.team import make_plan
from bagel_studio.core.store import Store
from bagel_studio.ui.shortcuts import State
from tests.ui.desk_harness import close_desk, open_desk, rows
from tests.ui.desk_project import KOALA_ID, build_project

TEAM = ("alice", "bob", "carol")


def test_save_a_copy_while_the_desk_holds_the_project(
    qtbot, tmp_path: Path, data_dir: Path
) -> None:
    path = tmp_path / "desk.bagel"
    build_project(path, data_dir)
    window = open_desk(qtbot, path)
    services = window.services
    decided: list[object] = []
    services.write(
        lambda: operations.decide(services.store, KOALA_ID, "ana", Decision.ACCEPT),
        done=decided.append,
    )
    qtbot.waitUntil(lambda: bool(decided))
    assert Path(f"{path}-wal").stat().st_size > 0  # the decision is still in the log
    target = tmp_path / "copies" / "desk-copy.bagel"
    target.parent.mkdir()
    window.menus.save_copy(target)
    qtbot.waitUntil(lambda: "Saved a copy" in window.statusBar().currentMessage())
    assert str(target) in window.statusBar().currentMessage()
    assert not Path(f"{target}-wal").exists()
    assert rows(target, "SELECT curator, decision FROM reviews WHERE item_id = ?", (KOALA_ID,)) == [
        ("ana", "accept")
    ]
    with Store.open(target) as copy:  # a project of its own, open for writing
        assert copy.items.count() == services.store.items.count()
    window.menus.save_copy(path)  # the project itself is never replaced
    qtbot.waitUntil(lambda: "No copy saved" in window.statusBar().currentMessage())
    assert "is this project itself" in window.statusBar().currentMessage()
    close_desk(window)


def test_a_package_opens_as_its_curator_with_their_items_in_the_plans_order(
    qtbot, tmp_path: Path, data_dir: Path
) -> None:
    path = tmp_path / "study.bagel"
    build_project(path, data_dir)
    with Store.open(path) as store:
        plan = make_plan(store, PlanSettings(TEAM, 2, 2, 0.0, 3)).result
        mine = store.team.assignments(plan.plan_id, "bob")
        hand_out(store, tmp_path / "out")
    package = tmp_path / "out" / "bob" / "study-bob.bagel"
    window = open_desk(qtbot, package, curator="ana")  # the preferences name someone else
    assert window.services.curator == "bob"
    assert "bob's package" in window.windowTitle()
    assert not window.menus.actions["curator"].isEnabled()
    order = [a.item_id for a in sorted(mine, key=lambda a: a.position)]
    assert window.queue_model.ids() == order
    label = window.queue.progress.label.text()
    assert label.startswith(f"bob's items: 0 / {len(order)} decided")
    window.show_item(order[0])
    qtbot.waitUntil(lambda: window.machine.state in (State.REVIEW, State.BLIND))
    services = window.services
    decided: list[object] = []
    services.write(
        lambda: operations.decide(services.store, order[0], services.curator, Decision.UNCERTAIN),
        done=decided.append,
    )
    qtbot.waitUntil(lambda: bool(decided))
    qtbot.waitUntil(
        lambda: window.queue.progress.label.text().startswith(
            f"bob's items: 1 / {len(order)} decided"
        )
    )
    close_desk(window)
    assert rows(package, "SELECT curator FROM reviews") == [("bob",)]


def test_the_team_view_plans_and_says_where_the_team_stands(
    qtbot, tmp_path: Path, data_dir: Path
) -> None:
    from bagel_studio.ui.agreement_view import table_texts
    from bagel_studio.ui.team_view import TeamView

    path = tmp_path / "study.bagel"
    build_project(path, data_dir)
    window = open_desk(qtbot, path)
    window.menus.plan_review()
    view = window.menus.panels["team"]
    assert isinstance(view, TeamView)
    qtbot.waitUntil(view.isVisible)
    assert view.summary.text().startswith("No review plan yet")
    assert view.curators.hasFocus() or view.curators.isVisible()
    view.curators.setText("alice, alice")
    view.make_button.click()
    assert view.message.text() == "No plan made: a curator is named twice: alice"
    view.curators.setText("alice, bob, carol")
    view.calibration.setValue(0.0)
    view.make_button.click()
    qtbot.waitUntil(lambda: view.message.text().startswith("Plan "))
    shown = view.plan_text.toPlainText()
    assert view.plan_text.isVisible() and "items each pair shares" in shown
    assert all(f"\n{name} " in shown for name in ("alice", "bob", "carol"))  # their loads
    status = view.status
    assert status is not None
    store = window.services.store
    loads = {c.curator: c.assigned for c in status.curators}
    assert max(loads.values()) - min(loads.values()) <= 1
    assert [r[0] for r in table_texts(view.curator_table)] == ["alice", "bob", "carol"]
    # a disagreement on a two-curator item: it waits for a further look
    two = next(s for s in status.items if len(s.curators) == 2)
    first, second = two.curators
    done: list[object] = []
    services = window.services
    services.write(lambda: operations.decide(store, two.item_id, first, Decision.ACCEPT))
    services.write(
        lambda: operations.decide(store, two.item_id, second, Decision.REJECT, reason="trivial"),
        done=done.append,
    )
    qtbot.waitUntil(lambda: bool(done))
    qtbot.waitUntil(lambda: view.status is not None and view.status.waiting == [two.item_id])
    assert "1 waiting for a further look" in view.summary.text()
    rows = {r[0]: r for r in table_texts(view.curator_table)}
    assert rows[first][2] == "1" and rows[first][5] == "1" and rows[second][5] == "1"
    assert "Agreement on the calibration share" in view.agreement.text()
    assert "Agreement on the overlap" in view.agreement.text()
    assert "1 item decided by two or more" in view.agreement.text()
    view.shown.setCurrentIndex(view.shown.findData("waiting"))
    assert view.items_model.rows == [
        (
            two.item_id,
            f"{first}, {second}",
            f"{first} accept, {second} reject",
            "waiting for a further look",
            "overlap",
        )
    ]
    assert view.next_button.isEnabled()
    view.next_button.click()
    qtbot.waitUntil(lambda: view.message.text().startswith("Round 2: 1 item to"))
    qtbot.waitUntil(lambda: view.status is not None and view.status.rounds == 2)
    assert len(next(s for s in view.status.items if s.item_id == two.item_id).curators) == 3
    assert not view.next_button.isEnabled()
    opened: list[str] = []
    view.open_item.connect(opened.append)
    view.shown.setCurrentIndex(view.shown.findData("all"))
    view.items.doubleClicked.emit(view.items_model.index(0, 0))
    assert opened == [view.items_model.rows[0][0]]
    qtbot.waitUntil(lambda: window.current_item_id() == opened[0])
    close_desk(window)
