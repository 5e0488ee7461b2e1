"""The queue's table model: the ordered ids of the current filter, rows fetched in pages.

At 12,000 items a list of widgets (or of full rows) would make every filter change slow; the model
holds only the id list (``store.item_ids``) and asks ``store.queue_rows`` for a page of rows the
first time a row of that page is painted, keeping a few pages in a small LRU cache.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QColor

from bagel_studio.core.checks import CHECKS
from bagel_studio.core.store import QueueFilter, Store
from bagel_studio.ui.plain import plain_tooltip, shown

PAGE_SIZE = 200
MAX_PAGES = 16

# What the table shows, from the store's queue row (``store.queue.QUEUE_COLUMNS``; "flags" is
# drawn from its flag_severity and flag_checks).
COLUMNS: tuple[tuple[str, str], ...] = (
    ("id", "Id"),
    ("domain", "Domain"),
    ("dimension", "Dimension"),
    ("level", "Level"),
    ("status", "Status"),
    ("flags", "Flags"),
    ("question", "Question"),
)

SEVERITY_NAMES = {0: "blocking", 1: "warning", 2: "info"}
SEVERITY_COLOURS = {0: QColor("#c62828"), 1: QColor("#ef6c00"), 2: QColor("#1565c0")}
STATUS_COLOURS = {
    "accepted": QColor("#2e7d32"),
    "revised": QColor("#00838f"),
    "rejected": QColor("#c62828"),
    "skipped": QColor("#757575"),
    "uncertain": QColor("#8e24aa"),
    "disputed": QColor("#ef6c00"),
}

Index = QModelIndex | QPersistentModelIndex


class QueueModel(QAbstractTableModel):
    """A read-only table over ``store`` for one ``QueueFilter``."""

    def __init__(self, store: Store, queue_filter: QueueFilter | None = None) -> None:
        super().__init__()
        self._store = store
        self._filter = queue_filter or QueueFilter()
        self._ids: list[str] = store.item_ids(self._filter)
        self._rows: dict[str, int] = {}
        self._pages: OrderedDict[int, dict[str, dict[str, Any]]] = OrderedDict()
        self.pages_loaded = 0  # how many pages were fetched from SQLite (for tests and benchmarks)

    # -- what the desk asks --------------------------------------------------------------------

    @property
    def queue_filter(self) -> QueueFilter:
        return self._filter

    def set_filter(self, queue_filter: QueueFilter) -> None:
        """Show the items matching ``queue_filter``; only their ids are read now."""
        self.beginResetModel()
        self._filter = queue_filter
        self._ids = self._store.item_ids(queue_filter)
        self._rows = {}
        self._pages.clear()
        self.endResetModel()

    def reload(self) -> None:
        self.set_filter(self._filter)

    def ids(self) -> list[str]:
        return self._ids

    def item_id(self, row: int) -> str | None:
        return self._ids[row] if 0 <= row < len(self._ids) else None

    def row_of(self, item_id: str) -> int:
        """The row of ``item_id`` in the current filter, or -1."""
        if len(self._rows) != len(self._ids):
            self._rows = {item_id: row for row, item_id in enumerate(self._ids)}
        return self._rows.get(item_id, -1)

    def refresh_item(self, item_id: str) -> None:
        """Re-read one item's row after a decision or edit (its page is dropped and refetched)."""
        row = self.row_of(item_id)
        if row < 0:
            return
        self._pages.pop(row // PAGE_SIZE, None)
        self.dataChanged.emit(self.index(row, 0), self.index(row, len(COLUMNS) - 1))

    def cached_pages(self) -> int:
        return len(self._pages)

    # -- Qt model interface --------------------------------------------------------------------

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._ids)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section][1] if 0 <= section < len(COLUMNS) else None
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        record = self._record(index.row())
        if record is None:
            return None
        key = COLUMNS[index.column()][0]
        if role == Qt.ItemDataRole.DisplayRole:
            return _display(record, key)
        if role == Qt.ItemDataRole.ToolTipRole:
            return _tooltip(record, key)
        if role == Qt.ItemDataRole.ForegroundRole:
            return _foreground(record, key)
        if role == Qt.ItemDataRole.UserRole:
            return record["id"]
        return None

    def _record(self, row: int) -> dict[str, Any] | None:
        if not 0 <= row < len(self._ids):
            return None
        page_number = row // PAGE_SIZE
        page = self._pages.get(page_number)
        if page is None:
            start = page_number * PAGE_SIZE
            page = self._store.queue_rows(self._ids[start : start + PAGE_SIZE])
            self.pages_loaded += 1
            self._pages[page_number] = page
            while len(self._pages) > MAX_PAGES:
                self._pages.popitem(last=False)
        else:
            self._pages.move_to_end(page_number)
        return page.get(self._ids[row])


def _display(record: dict[str, Any], key: str) -> str:
    if key == "flags":
        checks = record["flag_checks"]
        if not checks:
            return ""
        severity = SEVERITY_NAMES.get(record["flag_severity"], "")
        return f"{len(checks)} {severity}"
    if key == "question":
        return " ".join(shown(str(record["question"] or "")).split())
    value = record.get(key)
    return "" if value is None else str(value)


def _tooltip(record: dict[str, Any], key: str) -> str | None:
    if key == "flags" and record["flag_checks"]:
        return plain_tooltip("\n".join(f"{c}: {CHECKS.get(c, '')}" for c in record["flag_checks"]))
    if key == "question":
        return plain_tooltip(shown(str(record["question"] or "")))
    return None


def _foreground(record: dict[str, Any], key: str) -> QBrush | None:
    if key == "flags" and record["flag_checks"]:
        colour = SEVERITY_COLOURS.get(record["flag_severity"])
        return QBrush(colour) if colour is not None else None
    if key == "status":
        colour = STATUS_COLOURS.get(record["status"])
        return QBrush(colour) if colour is not None else None
    return None
