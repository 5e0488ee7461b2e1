"""The desk on a project whose every item this curator has decided: a filter, a search and the
next item cost what they cost on a fresh project. Looking for "the first item you have not
decided" in a queue where there is none read every item of it (a filter to GloBI took 170 ms at
200,000 items, a search up to 500 ms); the desk knows from its progress count that there is
none, and shows the queue's first item at once.

Costs are counted in SQLite's virtual-machine instructions (see
``tests/core/store/test_reviewed_reads.py``), not in time."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from bagel_studio.core.model import Decision, ItemContent
from bagel_studio.core.operations.decisions import decide_many
from bagel_studio.core.store import NewItem, QueueFilter, Store
from tests.core.store.test_reviewed_reads import STEP, instructions
from tests.ui.desk_harness import close_desk, open_desk

OPTIONS = ("wren", "robin", "owl", "lark")


def reviewed_project(path: Path, count: int, *, left: int = 0) -> Path:
    """``count`` Wikipedia items then ``count`` GloBI ones, every one accepted by ana but the
    last ``left`` GloBI items."""
    content = {
        "Wikipedia": ItemContent("Which bird sings at dawn?", OPTIONS, 1, "Behavior"),
        "GloBI": ItemContent(
            "Which bird eats the beetle?", OPTIONS, 2, "Masked participant identification"
        ),
    }
    items = [
        NewItem(f"{domain.lower()}:bird:{n}", domain, content[domain])
        for domain in content
        for n in range(count)
    ]
    with Store.open(path) as store:
        store.items.add_items(items, None)
        decided = [item.id for item in items[: len(items) - left]]
        decide_many(store, decided, "ana", Decision.ACCEPT)
    return path


def test_a_filter_and_a_search_on_a_reviewed_project_do_not_read_every_item(
    qtbot, tmp_path: Path
) -> None:
    costs = []
    for count in (150, 1_500):
        window = open_desk(qtbot, reviewed_project(tmp_path / f"p{count}.bagel", count))
        store = window.store
        assert window.current_item_id() == "wikipedia:bird:0"  # none left: the first item
        window.set_filter(QueueFilter(domain="GloBI"))
        assert window.current_item_id() == "globi:bird:0"
        window.set_filter(QueueFilter(search="dawn"))
        assert window.current_item_id() == "wikipedia:bird:0"
        window.set_filter(QueueFilter(domain="GloBI"))  # the item on screen is not in it
        first = instructions(store, window.controller.show_first)
        after = partial(window.controller.next_unreviewed, "globi:bird:3")
        searched = instructions(store, after)
        costs.append((first, searched))
        assert window.controller.next_unreviewed("globi:bird:3") is None
        close_desk(window)
    (small_first, small_next), (large_first, large_next) = costs
    assert large_first <= 2 * small_first + 2 * STEP, costs
    assert large_next <= 2 * small_next + 2 * STEP, costs


def test_the_items_left_are_still_found_first(qtbot, tmp_path: Path) -> None:
    """With a few items left, the desk goes to them as before: first on opening, and next after a
    decision."""
    window = open_desk(qtbot, reviewed_project(tmp_path / "p.bagel", 40, left=2))
    assert window.current_item_id() == "globi:bird:38"
    window.controller.decide(Decision.ACCEPT)
    qtbot.waitUntil(lambda: window.current_item_id() == "globi:bird:39")
    window.controller.decide(Decision.ACCEPT)
    qtbot.waitUntil(lambda: window.item_view.banner.text().startswith("Every item"))
    window.set_filter(QueueFilter(domain="Wikipedia"))
    assert window.current_item_id() == "wikipedia:bird:0"
    close_desk(window)
