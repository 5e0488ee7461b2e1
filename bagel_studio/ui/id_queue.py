"""The queue column shared by the ambiguity and adjudication panels.

Both panels list items by id in a QListWidget (the id kept in the entry's user data) beside a
detail view of the selected one; these helpers fill, read and step that list and lay the two
side by side, so the two panels keep the same keys and selection rules.
"""

from __future__ import annotations

from collections.abc import Iterable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QLabel,
    QLayout,
    QListWidget,
    QListWidgetItem,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

ID_ROLE = Qt.ItemDataRole.UserRole
QUEUE_SHARE = 0.36  # of the window's width


def fill_queue(
    queue: QListWidget, entries: Iterable[tuple[str, str, str | None]], keep: str | None
) -> None:
    """Replace the list with ``(item id, text, tooltip or None)`` entries, without a selection
    signal per entry, then select ``keep`` if it is still listed, else the first entry."""
    ids: list[str] = []
    queue.blockSignals(True)
    queue.clear()
    for item_id, text, tooltip in entries:
        entry = QListWidgetItem(text)
        entry.setData(ID_ROLE, item_id)
        if tooltip is not None:
            entry.setToolTip(tooltip)
        queue.addItem(entry)
        ids.append(item_id)
    queue.blockSignals(False)
    if ids:
        queue.setCurrentRow(ids.index(keep) if keep in ids else 0)


def queue_ids(queue: QListWidget) -> list[str]:
    return [str(queue.item(i).data(ID_ROLE)) for i in range(queue.count())]


def current_id(queue: QListWidget) -> str | None:
    entry = queue.currentItem()
    return str(entry.data(ID_ROLE)) if entry is not None else None


def step_queue(queue: QListWidget, step: int) -> None:
    """Move the selection ``step`` rows (J/K); nothing past either end."""
    row = queue.currentRow() + step
    if 0 <= row < queue.count():
        queue.setCurrentRow(row)


def lay_out_beside_queue(
    owner: QWidget, heading: QLabel, queue: QListWidget, below: list[QWidget], detail: QWidget
) -> None:
    """``owner``'s layout: heading, queue and ``below`` in a column, beside the wider ``detail``."""
    left = QWidget()
    left_layout = QVBoxLayout(left)
    left_layout.addWidget(heading)
    left_layout.addWidget(queue, 1)
    for widget in below:
        left_layout.addWidget(widget)
    # The entries wrap rather than run off under a sideways scroll bar, and the queue starts at a
    # share of the window where they read (its size hint alone left it 250 px wide at 1280x800).
    queue.setWordWrap(True)
    queue.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    # every other entry shaded: wrapped entries ran into one another, a finding's second line
    # read as the start of the next
    queue.setAlternatingRowColors(True)
    splitter = QSplitter()
    splitter.addWidget(left)
    splitter.addWidget(detail)
    splitter.setStretchFactor(0, 1)
    splitter.setStretchFactor(1, 2)
    splitter.setSizes([int(1000 * QUEUE_SHARE), int(1000 * (1 - QUEUE_SHARE))])
    layout = QVBoxLayout(owner)
    layout.addWidget(splitter)


def clear_layout(layout: QLayout) -> None:
    """Remove and delete every widget of ``layout`` (the detail is rebuilt per item)."""
    while layout.count():
        child = layout.takeAt(0)
        widget = child.widget() if child is not None else None
        if widget is not None:
            # hidden now: deleteLater waits for the event loop, and until then the old
            # detail would be drawn under the new one
            widget.hide()
            widget.deleteLater()
