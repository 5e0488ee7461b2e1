"""The item's history takes the height its rows need: one line while it has none, its rows
whole once it has some, and the item above it the rest of the column."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt

from bagel_studio.ui.history_view import NO_HISTORY
from tests.ui.desk_harness import close_desk, desk_on
from tests.ui.desk_project import KOALA_ID


def test_an_empty_history_is_one_line_and_grows_with_its_rows(
    qtbot, tmp_path: Path, data_dir: Path
) -> None:
    window = desk_on(qtbot, tmp_path, data_dir, KOALA_ID)
    view = window.item_view
    box = view.history
    line = box.heading.fontMetrics().lineSpacing()
    assert box.texts() == [NO_HISTORY]
    assert box.heading.text() == "History · No decisions or edits yet."
    assert not box.list.isVisible()
    assert box.height() <= 2 * line + 8  # one line, not a box of empty rows
    _whole(box)
    top = view.splitter.sizes()[0]
    assert top >= view.height() - 2 * line - 20  # the stem, options and flags get the rest

    with qtbot.waitSignal(window.controller.write_finished, timeout=10_000):
        qtbot.keyClick(window, Qt.Key.Key_A)  # accept: the next item; back to see it
    qtbot.keyClick(window, Qt.Key.Key_K)
    qtbot.waitUntil(lambda: window.current_item_id() == KOALA_ID)
    qtbot.waitUntil(lambda: box.list.isVisible())
    assert box.heading.text() == "History"
    assert "accept" in box.texts()[0]
    rows = box.list
    qtbot.waitUntil(lambda: rows.height() >= rows.sizeHintForRow(0))  # once laid out
    assert rows.verticalScrollBar().maximum() == 0  # its rows whole
    assert view.splitter.sizes()[1] < view.height() // 3  # and no more than they need
    close_desk(window)


def test_blind_mode_says_in_one_line_that_the_history_waits(
    qtbot, tmp_path: Path, data_dir: Path
) -> None:
    window = desk_on(qtbot, tmp_path, data_dir, blind=True)
    box = window.item_view.history
    assert box.collapsed and not box.list.isVisible()
    assert "blind mode" in box.heading.text()
    assert box.heading.isVisible()
    assert box.height() <= 2 * box.heading.fontMetrics().lineSpacing() + 8
    _whole(box)
    centre = window.centre  # the item column at its narrowest: the line is still whole
    sizes = window.splitter.sizes()
    spare = sizes[1] - centre.minimumWidth()
    window.splitter.setSizes([sizes[0] + spare, centre.minimumWidth(), sizes[2]])
    qtbot.waitUntil(lambda: centre.width() == centre.minimumWidth())
    qtbot.wait(20)
    _whole(box)
    assert "blind mode" in box.heading.text()  # not elided away
    close_desk(window)


def _whole(box) -> None:
    """The heading's one line is inside the box and not cut (a label taller than the box drew
    its text below the box's edge, where nothing showed)."""
    heading = box.heading
    assert box.rect().contains(heading.geometry())
    assert heading.height() >= heading.fontMetrics().height()
    assert heading.width() >= heading.fontMetrics().horizontalAdvance(heading.text())


def test_with_no_item_on_the_desk_there_is_no_history_line(
    qtbot, tmp_path: Path, data_dir: Path
) -> None:
    """A search that finds nothing: the centre said 'History · No decisions or edits yet.'
    under no item; the line goes, and comes back with the next item."""
    window = desk_on(qtbot, tmp_path, data_dir, KOALA_ID)
    box = window.item_view.history
    assert box.isVisible()
    search = window.queue.filters.search
    qtbot.keyClick(window.queue.table, Qt.Key.Key_Slash)
    qtbot.keyClicks(search, "zzzqqq")
    qtbot.keyClick(search, Qt.Key.Key_Return)
    assert window.current_item_id() is None
    assert not box.isVisible() and not box.heading.isVisible()
    search.setFocus()
    qtbot.keyClick(search, Qt.Key.Key_Escape)  # the search emptied: an item again
    assert window.current_item_id() is not None
    assert box.isVisible() and box.heading.text() == "History · No decisions or edits yet."
    close_desk(window)
