"""The queue: a paged model over SQLite, filters and search, progress, at 12,000 items."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from shiboken6 import isValid

from bagel_studio.core.model import ItemContent
from bagel_studio.core.store import NewItem, QueueFilter, Store
from bagel_studio.ui.queue_model import COLUMNS, MAX_PAGES, PAGE_SIZE, QueueModel
from tests.ui.desk_harness import close_desk, open_desk
from tests.ui.desk_project import (
    BROKEN_ID,
    GLOBI_ID,
    KOALA_ID,
    XC_ID,
    build_project,
    synthetic_items,
)

ITEMS = 12_000


def test_model_pages_rows_from_sqlite_at_12000_items(tmp_path: Path) -> None:
    with Store.open(tmp_path / "big.bagel") as store:
        store.items.add_items(synthetic_items(ITEMS), None)
        model = QueueModel(store)
        assert model.rowCount() == ITEMS
        assert model.columnCount() == len(COLUMNS)
        assert model.pages_loaded == 0  # only the ids are read up front

        last = model.index(ITEMS - 1, COLUMNS.index(("id", "Id")))
        assert model.data(last) == f"synthetic:{ITEMS - 1:05d}"
        assert model.pages_loaded == 1
        for row in range(0, ITEMS, PAGE_SIZE):  # scrolling through everything
            model.data(model.index(row, 0))
        assert model.cached_pages() <= MAX_PAGES
        assert model.pages_loaded == ITEMS // PAGE_SIZE + 1

        model.set_filter(QueueFilter(domain="GloBI"))
        assert model.rowCount() == ITEMS // 4
        model.set_filter(QueueFilter(domain="GloBI", level="hard"))
        assert model.rowCount() == store.items.count(QueueFilter(domain="GloBI", level="hard"))
        model.set_filter(QueueFilter(search="number 11999 "))
        assert model.ids() == ["synthetic:11999"]


TOOLTIP = Qt.ItemDataRole.ToolTipRole


def test_flag_column_is_coloured_and_explained(tmp_path: Path, data_dir: Path) -> None:
    path = tmp_path / "flags.bagel"
    build_project(path, data_dir, tricky=True)
    with Store.open(path, read_only=True) as store:
        model = QueueModel(store)
        row = model.row_of(BROKEN_ID)
        flags = model.index(row, [c[0] for c in COLUMNS].index("flags"))
        checks = store.flags.of_item(BROKEN_ID)
        # the worst severity's mark and the count of flags, in the severity's colour
        assert model.data(flags) == f"■ {len(checks)}"
        assert model.data(flags, Qt.ItemDataRole.ForegroundRole) is not None
        tip = model.data(flags, Qt.ItemDataRole.ToolTipRole)
        assert "blocking" in tip and "gold-invalid" in tip  # the tooltip names them
        header_tip = model.headerData(flags.column(), Qt.Orientation.Horizontal, TOOLTIP)
        assert "■ blocking" in header_tip and "▲ warning" in header_tip


def test_filters_and_search_change_the_rows(qtbot, tmp_path: Path, data_dir: Path) -> None:
    path = tmp_path / "filters.bagel"
    ids = build_project(path, data_dir, tricky=True)
    window = open_desk(qtbot, path)
    filters, model = window.queue.filters, window.queue_model
    assert model.rowCount() == len(ids)

    filters.domain.setCurrentIndex(filters.domain.findData("GloBI"))
    assert model.rowCount() == 4
    assert window.current_item_id() == GLOBI_ID  # the shown item follows the queue

    filters.domain.setCurrentIndex(0)
    filters.flag.setCurrentIndex(filters.flag.findData("any"))
    assert BROKEN_ID in model.ids()
    assert model.rowCount() == window.store.items.count(QueueFilter(check="any"))
    filters.flag.setCurrentIndex(0)

    qtbot.keyClick(window, Qt.Key.Key_Slash)  # / focuses the search field
    assert filters.search.hasFocus()
    with qtbot.waitSignal(model.modelReset, timeout=5_000):
        qtbot.keyClicks(filters.search, "flamingo")
    assert model.rowCount() == 7
    assert "7 in queue" in window.queue.progress.label.text()
    close_desk(window)


def test_progress_and_curator_filter_follow_decisions(qtbot, tmp_path, data_dir) -> None:
    path = tmp_path / "progress.bagel"
    ids = build_project(path, data_dir)
    window = open_desk(qtbot, path, curator="ben")
    assert window.queue.progress.label.text().startswith(f"0 / {len(ids)} reviewed (you: 0)")
    with qtbot.waitSignal(window.controller.write_finished, timeout=10_000):
        qtbot.keyClick(window, Qt.Key.Key_A)
    assert window.queue.progress.label.text().startswith(f"1 / {len(ids)} reviewed (you: 1)")
    assert window.queue.progress.bar.value() == 1

    reviewer = window.queue.filters.reviewer
    reviewer.setCurrentIndex(reviewer.findData("ben"))
    assert window.queue_model.ids() == [KOALA_ID]
    status_column = [c[0] for c in COLUMNS].index("status")
    assert window.queue_model.data(window.queue_model.index(0, status_column)) == "accepted"
    close_desk(window)


def test_clicking_a_row_shows_that_item(qtbot, tmp_path: Path, data_dir: Path) -> None:
    path = tmp_path / "click.bagel"
    ids = build_project(path, data_dir)
    window = open_desk(qtbot, path)
    table = window.queue.table
    rect = table.visualRect(window.queue_model.index(5, 0))
    qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert window.current_item_id() == ids[5]
    assert window.item_view.meta.text().startswith(ids[5])
    close_desk(window)


def test_search_matches_whole_words_and_esc_clears_it(qtbot, tmp_path: Path) -> None:
    path = tmp_path / "words.bagel"
    with Store.open(path) as store:
        store.items.add_items(
            [
                NewItem(
                    "w:wombat", "Wikipedia", _content("Which family holds wombats?", "Vombatidae")
                ),
                NewItem(
                    "x:bat",
                    "Xeno-canto",
                    _content("At what frequency does this bat call?", "40 kHz"),
                ),
                NewItem("g:bat", "GloBI", _content("Which moth does the bat eat?", "Noctuidae")),
            ],
            None,
        )
    window = open_desk(qtbot, path)
    filters, model = window.queue.filters, window.queue_model
    domains = [filters.domain.itemData(n) for n in range(1, filters.domain.count())]
    assert domains[:3] == ["Wikipedia", "Xeno-canto", "GloBI"]  # the queue's order
    assert filters.whole_words.isChecked()

    qtbot.keyClick(window, Qt.Key.Key_Slash)
    with qtbot.waitSignal(model.modelReset, timeout=5_000):
        qtbot.keyClicks(filters.search, "bat")
    assert model.ids() == ["x:bat", "g:bat"]  # not Vombatidae
    with qtbot.waitSignal(model.modelReset, timeout=5_000):
        filters.whole_words.setChecked(False)
    assert model.ids() == ["w:wombat", "x:bat", "g:bat"]

    shown = window.current_item_id()
    with qtbot.waitSignal(model.modelReset, timeout=5_000):
        qtbot.keyClick(filters.search, Qt.Key.Key_Escape)
    assert filters.search.text() == ""
    assert model.rowCount() == 3
    assert window.current_item_id() == shown  # the item on screen stays, selected in the queue
    assert window.queue.table.currentIndex().row() == model.row_of(shown)
    close_desk(window)


def _content(question: str, gold: str) -> ItemContent:
    return ItemContent(
        question, (gold, "other one", "other two", "other three"), 0, "Behavior", "easy"
    )


def test_stepping_and_deciding_through_pages_keeps_the_selection(qtbot, tmp_path: Path) -> None:
    path = tmp_path / "pages.bagel"
    with Store.open(path) as store:
        store.items.add_items(synthetic_items(3 * PAGE_SIZE), None)
    window = open_desk(qtbot, path, curator="ana")
    model, table = window.queue_model, window.queue.table
    window.set_filter(QueueFilter(status="unreviewed"))
    window.show_item(f"synthetic:{PAGE_SIZE - 2:05d}")
    for _ in range(3):  # across the page boundary, by key
        qtbot.keyClick(window, Qt.Key.Key_J)
    assert window.current_item_id() == f"synthetic:{PAGE_SIZE + 1:05d}"
    assert table.currentIndex().row() == PAGE_SIZE + 1
    assert model.cached_pages() <= MAX_PAGES

    with qtbot.waitSignal(window.controller.write_finished, timeout=10_000):
        qtbot.keyClick(window, Qt.Key.Key_A)  # accepted: it leaves the unreviewed queue
    assert model.rowCount() == 3 * PAGE_SIZE - 1
    assert window.current_item_id() == f"synthetic:{PAGE_SIZE + 2:05d}"
    assert table.currentIndex().row() == PAGE_SIZE + 1  # the next item moved up into its row
    assert model.item_id(PAGE_SIZE) == f"synthetic:{PAGE_SIZE:05d}"

    with qtbot.waitSignal(window.controller.write_finished, timeout=10_000):
        qtbot.keyClick(window, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)  # undo
    assert model.rowCount() == 3 * PAGE_SIZE  # back in the queue, in its place
    assert window.current_item_id() == f"synthetic:{PAGE_SIZE + 1:05d}"
    assert table.currentIndex().row() == PAGE_SIZE + 1

    window.set_filter(QueueFilter(domain="GloBI"))  # it matches: it stays on screen, selected
    assert window.current_item_id() == f"synthetic:{PAGE_SIZE + 1:05d}"
    assert table.currentIndex().row() == (PAGE_SIZE + 1) // 4
    window.set_filter(QueueFilter(domain="Wikipedia"))  # it does not: the first to review
    assert window.current_item_id() == "synthetic:00000"
    close_desk(window)


def test_the_listening_panel_is_built_after_the_first_item(qtbot, tmp_path, data_dir) -> None:
    path = tmp_path / "later.bagel"
    build_project(path, data_dir)
    window = open_desk(qtbot, path)
    assert window.current_item_id() == KOALA_ID  # a text item: nothing needs the panel yet
    placeholder = window.evidence._listening_slot
    qtbot.waitUntil(lambda: window.evidence.listening is not None, timeout=30_000)
    window.show_item(XC_ID)
    assert not isValid(placeholder) or not placeholder.isVisible()  # it made room
    panel = window.evidence.listening
    qtbot.waitUntil(lambda: panel.clip is not None, timeout=30_000)
    close_desk(window)


def test_a_search_shows_its_first_rows_at_once_and_its_count_when_counted(
    qtbot, tmp_path: Path
) -> None:
    """A search's count (most of its time on a large project) is read on a thread of its own:
    the first page of matches is on screen at once, the progress line says the queue is being
    counted, and the other rows join when the count arrives."""
    path = tmp_path / "search.bagel"
    with Store.open(path) as store:
        store.items.add_items(synthetic_items(1000), None)
    window = open_desk(qtbot, path)
    model = window.queue_model
    window.controller.show_item("synthetic:00500")
    window.set_filter(QueueFilter(search="synthetic question"))
    assert model.counting and model.rowCount() == PAGE_SIZE
    assert model.item_id(0) == "synthetic:00000"
    assert "counting the queue" in window.queue.progress.label.text()
    assert window.current_item_id() == "synthetic:00500"  # it matches: still on screen
    qtbot.waitUntil(lambda: not model.counting)
    assert model.rowCount() == 1000
    assert model.item_id(999) == "synthetic:00999"
    assert "1,000 in queue" in window.queue.progress.label.text()
    assert window.queue.table.currentIndex().row() == 500  # and highlighted once counted
    window.set_filter(QueueFilter(search="number 999"))  # one page holds them all: counted
    assert not model.counting and model.rowCount() == 1
    close_desk(window)
