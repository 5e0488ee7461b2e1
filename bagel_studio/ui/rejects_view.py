"""Rejected lines: every input line an import could not turn into an item, again, after its
summary closed (the project keeps them; the desk had no way back to them).

A tree of files, in the order they were imported, each by its name (with as many of its folders
as tell it from another file of the same name; the full path in its tooltip) and how many of its
lines were rejected; under a file, its lines as ``name:line: reason`` by line (the full path in
the tooltip), read from the project a page at a time
as the tree is scrolled (a file of 200,000 malformed lines is not read at once). A filter narrows
them to the files and reasons that hold its text; the line as read shows under the tree; Ctrl+C
copies the selected lines (a file: all of its lines shown), *Copy all shown* every line the
filter leaves, each as ``file:line: reason``. An import (the desk's, while the window is open)
redraws it through ``apply_changes``.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

from PySide6.QtCore import (
    QAbstractItemModel,
    QModelIndex,
    QPersistentModelIndex,
    Qt,
    QTimer,
)
from PySide6.QtGui import QFont, QGuiApplication, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from bagel_studio.core.changes import Changes
from bagel_studio.core.stats import reject_summary
from bagel_studio.core.store import Store
from bagel_studio.ui.plain import plain_label, plain_tooltip
from bagel_studio.ui.services import Services

PAGE = 500  # lines of a file read at a time
FILTER_DELAY_MS = 200  # the filter is applied once typing pauses
RAW_SHOWN = 4096  # characters of the line as read shown under the tree
Index = QModelIndex | QPersistentModelIndex
FILE_LEVEL = 0  # internal id of a file's row; a line's is its file's row + 1


@dataclass
class RejectedFile:
    """A file's rejects: how many match the filter, and those read so far (id, line, reason);
    ``name``: what the tree calls it (``short_names``)."""

    path: str
    count: int
    name: str = ""
    lines: list[tuple[int, int, str]] = field(default_factory=list)


def short_names(paths: list[str]) -> list[str]:
    """Each path's file name, with as many of its last folders as tell it apart from the other
    paths' (``run-03/items.jsonl`` and ``run-04/items.jsonl``); a path as it is when it has no
    parts."""
    parts = [[p for p in re.split(r"[/\\]", path) if p] for path in paths]
    depth = [1] * len(paths)
    while True:
        names = [
            os.sep.join(ps[-d:]) if ps else path
            for ps, d, path in zip(parts, depth, paths, strict=True)
        ]
        holders: dict[str, set[str]] = {}
        for name, path in zip(names, paths, strict=True):
            holders.setdefault(name, set()).add(path)
        longer = False
        for i, name in enumerate(names):
            if len(holders[name]) > 1 and depth[i] < len(parts[i]):
                depth[i] += 1
                longer = True
        if not longer:
            return names


class RejectsModel(QAbstractItemModel):
    """Files, then their rejected lines, read from ``store`` a page at a time."""

    def __init__(self, store: Store) -> None:
        super().__init__()
        self.store = store
        self.pattern = ""
        self.files: list[RejectedFile] = []
        self.reload()

    def reload(self) -> None:
        self.beginResetModel()
        found = self.store.imports.reject_files(self.pattern or None)
        names = short_names([path for path, _count in found])
        self.files = [
            RejectedFile(path, count, name)
            for (path, count), name in zip(found, names, strict=True)
        ]
        self.endResetModel()

    def set_pattern(self, text: str) -> None:
        if text != self.pattern:
            self.pattern = text
            self.reload()

    @property
    def total(self) -> int:
        return sum(f.count for f in self.files)

    # -- the tree ----------------------------------------------------------------------------

    def index(self, row: int, column: int, parent: Index = QModelIndex()) -> QModelIndex:  # noqa: B008
        if column != 0 or row < 0:
            return QModelIndex()
        if not parent.isValid():
            return self.createIndex(row, 0, FILE_LEVEL) if row < len(self.files) else QModelIndex()
        if parent.internalId() != FILE_LEVEL:
            return QModelIndex()
        if row >= len(self.files[parent.row()].lines):
            return QModelIndex()
        return self.createIndex(row, 0, parent.row() + 1)

    def parent(self, index: Index = QModelIndex()) -> QModelIndex:  # type: ignore[override]  # noqa: B008
        if not index.isValid() or index.internalId() == FILE_LEVEL:
            return QModelIndex()
        return self.createIndex(index.internalId() - 1, 0, FILE_LEVEL)

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        if not parent.isValid():
            return len(self.files)
        if parent.internalId() == FILE_LEVEL:
            return len(self.files[parent.row()].lines)
        return 0

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 1

    def hasChildren(self, parent: Index = QModelIndex()) -> bool:  # noqa: B008
        if not parent.isValid():
            return bool(self.files)
        return parent.internalId() == FILE_LEVEL and self.files[parent.row()].count > 0

    # Not Qt's canFetchMore / fetchMore: a tree view calls those at each layout of an expanded
    # item, so that a file of 200,000 lines was read whole within a second of being opened.

    def has_more(self, parent: Index) -> bool:
        """The file ``parent`` has lines not read yet."""
        if not parent.isValid() or parent.internalId() != FILE_LEVEL:
            return False
        group = self.files[parent.row()]
        return len(group.lines) < group.count

    def load_more(self, parent: Index) -> None:
        """The next page of the file ``parent``'s lines (the view asks when it is opened and
        when it is scrolled to its end)."""
        if not self.has_more(parent):
            return
        group = self.files[parent.row()]
        page = self.store.imports.rejects_of_file(
            group.path, self.pattern or None, len(group.lines), PAGE
        )
        if not page:
            group.count = len(group.lines)  # fewer than counted: an import is under way
            return
        first = len(group.lines)
        self.beginInsertRows(parent, first, first + len(page) - 1)
        group.lines.extend(page)
        self.endInsertRows()

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> object:
        if not index.isValid():
            return None
        if index.internalId() == FILE_LEVEL:
            group = self.files[index.row()]
            if role == Qt.ItemDataRole.DisplayRole:
                noun = "line" if group.count == 1 else "lines"
                return f"{group.name}   ({group.count:,} {noun})"
            if role == Qt.ItemDataRole.ToolTipRole:
                return plain_tooltip(group.path)
            if role == Qt.ItemDataRole.FontRole:
                font = QFont()
                font.setBold(True)
                return font
            return None
        group = self.files[index.internalId() - 1]
        _reject_id, line, reason = group.lines[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return f"{group.name}:{line}: {reason}"
        if role == Qt.ItemDataRole.ToolTipRole:
            return plain_tooltip(f"{group.path}:{line}: {reason}")
        return None

    # -- what the curator copies --------------------------------------------------------------

    def reject_id(self, index: Index) -> int | None:
        if not index.isValid() or index.internalId() == FILE_LEVEL:
            return None
        return self.files[index.internalId() - 1].lines[index.row()][0]

    def copy_lines(self, index: Index) -> list[str]:
        """``file:line: reason`` of a line, or of every line of a file the filter leaves."""
        if not index.isValid():
            return []
        if index.internalId() == FILE_LEVEL:
            group = self.files[index.row()]
            rows = self.store.imports.rejects_of_file(group.path, self.pattern or None)
            return [f"{group.path}:{line}: {reason}" for _id, line, reason in rows]
        group = self.files[index.internalId() - 1]
        _reject_id, line, reason = group.lines[index.row()]
        return [f"{group.path}:{line}: {reason}"]

    def all_lines(self) -> list[str]:
        lines = []
        for row in range(len(self.files)):
            lines += self.copy_lines(self.index(row, 0))
        return lines


class RejectsView(QWidget):
    """Review → Rejected lines: the project's rejected input lines, by file."""

    def __init__(self, services: Services, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.services = services
        self.setWindowTitle("Rejected lines")
        self.model = RejectsModel(services.store)
        self.filter = QLineEdit(self)
        self.filter.setPlaceholderText("Filter by file or reason (truncated, no domain, .json…)")
        self.filter.setClearButtonEnabled(True)
        self._filter_timer = QTimer(self)
        self._filter_timer.setSingleShot(True)
        self._filter_timer.setInterval(FILTER_DELAY_MS)
        self._filter_timer.timeout.connect(self.apply_filter)
        self.filter.textChanged.connect(lambda _text: self._filter_timer.start())
        self.filter.returnPressed.connect(self.apply_filter)
        self.summary = plain_label("", self, wrap=False)
        self.tree = QTreeView(self)
        self.tree.setModel(self.model)
        self.tree.setHeaderHidden(True)
        self.tree.setUniformRowHeights(True)
        self.tree.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.tree.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.tree.selectionModel().currentChanged.connect(lambda current, _old: self._show(current))
        self.tree.expanded.connect(self.model.load_more)
        self.tree.verticalScrollBar().valueChanged.connect(self._scrolled)
        self.raw = QPlainTextEdit(self)
        self.raw.setReadOnly(True)
        self.raw.setPlaceholderText("The line as it was read shows here when one is selected.")
        self.copy_button = QPushButton("Copy all shown", self)
        self.copy_button.setToolTip("Every line the filter leaves, as file:line: reason")
        self.copy_button.clicked.connect(self.copy_all)
        copy = QShortcut(QKeySequence(QKeySequence.StandardKey.Copy), self.tree)
        copy.setObjectName("copy")
        copy.setContext(Qt.ShortcutContext.WidgetShortcut)
        copy.activated.connect(self.copy_selected)
        top = QHBoxLayout()
        top.addWidget(self.filter, 1)
        top.addWidget(self.copy_button)
        split = QSplitter(Qt.Orientation.Vertical, self)
        split.addWidget(self.tree)
        split.addWidget(self.raw)
        split.setStretchFactor(0, 4)
        split.setStretchFactor(1, 1)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.summary)
        layout.addWidget(split, 1)
        layout.addWidget(
            plain_label(
                "Ctrl+C copies the selected lines (a file: all its lines) as file:line: reason."
                " `bagel-studio stats PROJECT --rejects` prints them too.",
                self,
            )
        )
        self._redrawn()
        services.listen(self)

    # -- what changes it ----------------------------------------------------------------------

    def apply_changes(self, changes: Changes, origin: object) -> None:
        """An import keeps the lines it rejects: read them again."""
        if changes.imports:
            self.model.reload()
            self._redrawn()

    def apply_filter(self) -> None:
        self._filter_timer.stop()
        self.model.set_pattern(self.filter.text().strip())
        self._redrawn()

    def _redrawn(self) -> None:
        match = self.model.pattern or None
        files, lines = len(self.model.files), self.model.total
        if lines:
            text = reject_summary(files, lines, match)
        elif match:
            text = f"No rejected line matches {match!r}."
        else:
            text = "No input line was rejected: every line imported became an item."
        self.summary.setText(text)
        self.copy_button.setEnabled(lines > 0)
        if len(self.model.files) == 1:  # one file: its lines at once
            self.tree.expand(self.model.index(0, 0))
        self.raw.clear()

    def _scrolled(self, value: int) -> None:
        """At the end of what is read of a file, its next page."""
        bar = self.tree.verticalScrollBar()
        if value < bar.maximum() - bar.pageStep() // 2:
            return
        bottom = self.tree.indexAt(self.tree.viewport().rect().bottomLeft())
        if not bottom.isValid():
            bottom = self.tree.indexAt(self.tree.viewport().rect().center())
        file = bottom if bottom.internalId() == FILE_LEVEL else self.model.parent(bottom)
        if file.isValid() and self.tree.isExpanded(file):
            self.model.load_more(file)

    def _show(self, index: QModelIndex) -> None:
        reject_id = self.model.reject_id(index)
        if reject_id is None:
            self.raw.clear()
            return
        raw, size = self.services.store.imports.reject_raw(reject_id)
        text = raw[:RAW_SHOWN]
        if size is not None and size > len(raw.encode("utf-8", "replace")):
            text += f"\n… (the line was {size:,} bytes; its head is kept)"
        elif len(raw) > RAW_SHOWN:
            text += f"\n… ({len(raw):,} characters)"
        self.raw.setPlainText(text or "(nothing kept of this line)")

    # -- copying ------------------------------------------------------------------------------

    def copy_selected(self) -> None:
        rows = sorted(self.tree.selectionModel().selectedIndexes(), key=self._order)
        lines: list[str] = []
        for index in rows:
            lines += self.model.copy_lines(index)
        if lines:
            QGuiApplication.clipboard().setText("\n".join(dict.fromkeys(lines)) + "\n")

    def _order(self, index: QModelIndex) -> tuple[int, int, int]:
        """A file before its lines, its lines by row: the order the tree shows them in."""
        if index.internalId() == FILE_LEVEL:
            return (index.row(), 0, 0)
        return (index.internalId() - 1, 1, index.row())

    def copy_all(self) -> None:
        lines = self.model.all_lines()
        if lines:
            QGuiApplication.clipboard().setText("\n".join(lines) + "\n")
