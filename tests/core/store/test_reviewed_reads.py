"""A project every item of which has been decided reads an item, its history and the curators'
progress in as many steps as a fresh one: no read the desk makes per item (or per decision)
walks the history or the decisions of the whole project.

The cost is counted in SQLite's own virtual-machine instructions (a progress handler), not in
time, so the test says the same on a loaded machine: the same reads on a project ten times the
size take about the same number of instructions."""

from __future__ import annotations

from collections.abc import Callable

from bagel_studio.core import operations
from bagel_studio.core.model import Decision, ItemContent
from bagel_studio.core.operations.decisions import decide_many
from bagel_studio.core.store import NewItem, Store

STEP = 50  # instructions per call of the progress handler


def instructions(store: Store, read: Callable[[], object]) -> int:
    """About how many SQLite instructions ``read`` runs on ``store``'s connection."""
    calls = 0

    def count() -> int:
        nonlocal calls
        calls += 1
        return 0  # go on

    store.db.conn.set_progress_handler(count, STEP)
    try:
        read()
    finally:
        store.db.conn.set_progress_handler(None, STEP)
    return calls * STEP


def reviewed_project(count: int) -> Store:
    """``count`` items, every one accepted by ana; one decision undone and made again, so that
    the history holds an undo too."""
    store = Store.memory()
    content = ItemContent(
        "Which bird sings at dawn?", ("wren", "robin", "owl", "lark"), 1, "Behavior"
    )
    items = [NewItem(f"wikipedia:bird:{n}", "Wikipedia", content) for n in range(count)]
    store.items.add_items(items, None)
    decide_many(store, [item.id for item in items], "ana", Decision.ACCEPT)
    operations.decide(store, "wikipedia:bird:0", "ana", Decision.REJECT, reason="trivial")
    operations.undo(store, "ana")
    return store


def read_costs(store: Store, item: str) -> dict[str, int]:
    """The instructions of each read the desk makes to show ``item``."""
    return {
        "history": instructions(store, lambda: store.history.of_item(item)),
        "undone": instructions(store, lambda: store.history.of_item("wikipedia:bird:0")),
        "reviews": instructions(store, lambda: store.reviews.of_item(item)),
        "flags": instructions(store, lambda: store.flags.of_item(item)),
        "item": instructions(store, lambda: store.items.get(item)),
    }


def test_an_items_reads_do_not_grow_with_the_reviewed_project() -> None:
    costs = []
    for count in (200, 2_000):
        store = reviewed_project(count)
        costs.append(read_costs(store, f"wikipedia:bird:{count // 2}"))
        assert len(store.history.of_item("wikipedia:bird:0")) == 3  # accept, reject, its undo
        assert store.history.of_item("wikipedia:bird:0")[1].undone
        store.close()
    small, large = costs
    for read, cost in large.items():
        assert cost <= 2 * small[read] + 2 * STEP, (read, small[read], cost)


def test_a_curators_progress_reads_an_index_only() -> None:
    """The progress line counts the curator's decisions after every decision: from an index
    that holds the decision, without reading each review's row (its content, its note)."""
    store = reviewed_project(50)
    plan = store.db.execute(
        "EXPLAIN QUERY PLAN SELECT count(*) FROM reviews WHERE curator = ? AND decision != 'skip'",
        ["ana"],
    ).fetchall()
    assert any("COVERING INDEX" in str(row[3]) for row in plan), plan
    assert store.reviews.progress("ana") == (50, 50)
    store.close()
