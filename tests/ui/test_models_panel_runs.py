"""The Models panel says what was measured: a row per run (a profile in one order of the options,
the project's or a release's), strict and lenient accuracy apart, the items without a valid gold
left out and counted, and the run button names the profile it asks."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from bagel_studio.core.cli import run
from bagel_studio.core.model import Decision, ItemContent
from bagel_studio.core.operations import decide_many
from bagel_studio.core.store import NewItem, Store
from bagel_studio.ui.models_panel import RESULT_COLUMNS
from tests.core.llm.conftest import gold_map
from tests.support.llm_server import ScriptedServer
from tests.ui.desk_harness import close_desk, open_desk
from tests.ui.test_models_panel import make_project


@pytest.fixture
def scripted() -> Iterator[ScriptedServer]:
    with ScriptedServer(gold_map()) as server:
        yield server


def cells(panel) -> dict[tuple[str, str], dict[str, str]]:
    table = panel.results
    rows = {}
    for row in range(table.rowCount()):
        values = {name: table.item(row, c).text() for c, name in enumerate(RESULT_COLUMNS)}
        rows[(values["Model"], values["Order"])] = values
    return rows


def test_the_panel_shows_runs_strict_and_lenient_and_what_it_runs(
    qtbot, tmp_path: Path, scripted: ScriptedServer
) -> None:
    path = make_project(tmp_path / "runs.bagel")
    with Store.open(path) as store:
        content = ItemContent("Which one is it?", ("W", "X", "Y", "Z"), None, "Diet")
        store.items.add_items([NewItem("wiki:9", "Wikipedia", content)], None)
        decide_many(store, ["wiki:1", "wiki:2", "globi:1", "bio:1"], "ann", Decision.ACCEPT)
    for extra in (["gold"], ["gold", "--seed", "7"], ["verbose"]):
        run(["evaluate", str(path), "--base-url", scripted.url, "--model", *extra])
    window = open_desk(qtbot, path)
    window.menus.open_panel("models")
    panel = window.menus.panels["models"]
    rows = cells(panel)
    assert set(rows) == {
        ("gold", "project order"),
        ("gold", "seed 7"),
        ("verbose", "project order"),
    }
    assert rows[("verbose", "project order")]["Strict"] == "0.0%"
    assert rows[("verbose", "project order")]["Lenient"] == "100.0%"
    assert rows[("gold", "seed 7")]["Answered"] == "4"
    assert rows[("gold", "project order")]["Lenient"] == "100.0%"  # wiki:9 left out
    assert "1 answered item without a valid gold: left out of the accuracy" in panel.notes.text()
    labels = {panel.profiles.item(r, 0).text(): r for r in range(panel.profiles.rowCount())}
    panel.profiles.selectRow(labels["verbose"])
    assert panel.run_button.text() == "Evaluate all items with verbose [Ctrl+R]"
    panel.profiles.selectRow(labels["gold"])
    assert panel.run_button.text() == "Evaluate all items with gold [Ctrl+R]"
    panel.close()
    close_desk(window)
