"""The left column of the desk: filter bar, progress, and the queue table.

The panel is handed its ``QueueModel`` (it never builds its own) and turns the filter widgets into a
``QueueFilter``; the search field is debounced so that typing does not re-query on every key.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QItemSelectionModel, QModelIndex, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QGridLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QProgressBar,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from bagel_studio.core.checks import CHECKS
from bagel_studio.core.domains import DOMAINS, LEVELS
from bagel_studio.core.model import Status
from bagel_studio.core.store import QueueFilter, Store
from bagel_studio.ui.own_keys import keep_plain_keys
from bagel_studio.ui.plain import plain_label
from bagel_studio.ui.queue_model import COLUMNS, QueueModel

SEARCH_DEBOUNCE_MS = 250
ANY = "(any)"


class FilterBar(QWidget):
    """Combo boxes and a search field; emits the resulting ``QueueFilter``."""

    changed = Signal(object)

    def __init__(self, store: Store, curator: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._store = store
        self._curator = curator
        self.domain = self._combo("Domain")
        self.dimension = self._combo("Dimension")
        self.level = self._combo("Level")
        self.status = self._combo("Status")
        self.flag = self._combo("Flag")
        self.reviewer = self._combo("Curator")
        self.search = QLineEdit(self)
        self.search.setPlaceholderText("Search stem, options, id   [/]   Esc clears")
        self.search.setClearButtonEnabled(True)
        self.search.installEventFilter(_EscapeClears(self.search))
        self.whole_words = QCheckBox("Whole words", self)
        self.whole_words.setChecked(True)
        self.whole_words.setToolTip(
            "On: 'bat' finds the word bat, not Vombatidae ('bat*' finds words starting with bat)."
            "\nOff: the search text may be any part of a word."
        )
        self.whole_words.toggled.connect(lambda _on: self.emit_filter())
        self._debounce = QTimer(self, singleShot=True, interval=SEARCH_DEBOUNCE_MS)
        self._debounce.timeout.connect(self.emit_filter)
        self.search.textChanged.connect(self._search_changed)
        self.search.returnPressed.connect(self.emit_filter)
        self._layout()
        self.refresh_choices()

    def _combo(self, name: str) -> QComboBox:
        combo = QComboBox(self)
        combo.setObjectName(f"filter_{name.lower()}")
        combo.setToolTip(f"Show only items with this {name.lower()}")
        combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        combo.setMinimumContentsLength(8)
        combo.currentIndexChanged.connect(lambda _i: self.emit_filter())
        keep_plain_keys(combo)  # arrows and type-ahead choose a filter, never decide the item
        return combo

    def _layout(self) -> None:
        grid = QGridLayout(self)
        grid.setContentsMargins(0, 0, 0, 0)
        pairs = [
            ("Domain", self.domain),
            ("Dimension", self.dimension),
            ("Level", self.level),
            ("Status", self.status),
            ("Flag", self.flag),
            ("Curator", self.reviewer),
        ]
        for index, (name, combo) in enumerate(pairs):
            row, column = divmod(index, 3)
            grid.addWidget(QLabel(name, self), row * 2, column)
            grid.addWidget(combo, row * 2 + 1, column)
        grid.addWidget(self.search, 4, 0, 1, 2)
        grid.addWidget(self.whole_words, 4, 2)

    def refresh_choices(self) -> None:
        """Fill the combos from the project (dimensions and curators change with imports)."""
        present = self._store.domains_in_queue_order()
        domains = present + [d for d in DOMAINS if d not in present]
        levels = list(LEVELS) + [
            lv for lv in self._store.distinct_values("level") if lv not in LEVELS
        ]
        curators = sorted(set(self._store.curators()) | ({self._curator} - {""}))
        self._fill(self.domain, [(d, d) for d in domains])
        self._fill(self.dimension, [(d, d) for d in self._store.distinct_values("dimension")])
        self._fill(self.level, [(lv, lv) for lv in levels])
        self._fill(self.status, [(s.value, s.value) for s in Status])
        self._fill(self.flag, [("any flag", "any")] + [(c, c) for c in sorted(CHECKS)])
        self._fill(self.reviewer, [(f"reviewed by {c}", c) for c in curators])

    @staticmethod
    def _fill(combo: QComboBox, entries: list[tuple[str, str]]) -> None:
        current = combo.currentData()
        combo.blockSignals(True)
        combo.clear()
        combo.addItem(ANY, None)
        for text, value in entries:
            combo.addItem(text, value)
        found = combo.findData(current) if current is not None else 0
        combo.setCurrentIndex(max(found, 0))
        combo.blockSignals(False)

    def current_filter(self) -> QueueFilter:
        return QueueFilter(
            domain=self.domain.currentData(),
            dimension=self.dimension.currentData(),
            level=self.level.currentData(),
            status=self.status.currentData(),
            check=self.flag.currentData(),
            curator=self.reviewer.currentData(),
            search=self.search.text().strip() or None,
            search_inside_words=not self.whole_words.isChecked(),
        )

    def _search_changed(self, text: str) -> None:
        """Typing waits for a pause; emptying the field (Esc, its clear button) acts at once."""
        if text:
            self._debounce.start()
        else:
            self.emit_filter()

    def emit_filter(self) -> None:
        self._debounce.stop()
        self.changed.emit(self.current_filter())


class _EscapeClears(QObject):
    """Esc in the search field empties it (the queue then shows everything again); an empty
    field lets Esc through to the desk."""

    def __init__(self, field: QLineEdit) -> None:
        super().__init__(field)
        self.field = field

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        kind = event.type()
        if kind not in (QEvent.Type.ShortcutOverride, QEvent.Type.KeyPress):
            return False
        assert isinstance(event, QKeyEvent)
        if event.key() != Qt.Key.Key_Escape or not self.field.text():
            return False
        if kind == QEvent.Type.ShortcutOverride:
            event.accept()  # the field gets the key press, not the desk's Esc shortcut
            return True
        self.field.clear()
        return True


class ProgressStrip(QWidget):
    """'412 / 11,852 reviewed (you: 120)' and a bar; always visible above the queue."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.label = plain_label("", self, wrap=False, selectable=False)
        self.bar = QProgressBar(self)
        self.bar.setTextVisible(False)
        self.bar.setMaximumHeight(10)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.label)
        layout.addWidget(self.bar)

    def show_progress(self, reviewed: int, total: int, mine: int, shown: int) -> None:
        self.label.setText(
            f"{reviewed:,} / {total:,} reviewed (you: {mine:,})   ·   {shown:,} in queue"
        )
        self.bar.setRange(0, max(total, 1))
        self.bar.setValue(reviewed)


# column -> (share of the table's width, least width in pixels); the question gets the rest
# (at least a fifth of the width)
COLUMN_SHARES = {
    "id": (0.20, 40),
    "domain": (0.13, 36),
    "dimension": (0.15, 36),
    "level": (0.09, 36),
    "status": (0.12, 36),
    "flags": (0.11, 36),
}
LEAST_SECTION = 36


class QueuePanel(QWidget):
    """Filter bar, progress and the table over ``model``; emits the id the curator selects."""

    item_selected = Signal(str)

    def __init__(
        self, model: QueueModel, store: Store, curator: str, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.model = model
        self.filters = FilterBar(store, curator, self)
        self.progress = ProgressStrip(self)
        self.table = QTableView(self)
        self._selecting = False  # select_item is moving the selection: not the curator
        self._setup_table()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.progress)
        layout.addWidget(self.filters)
        layout.addWidget(self.table, 1)
        self.filters.changed.connect(self.model.set_filter)

    def _setup_table(self) -> None:
        table = self.table
        table.setModel(self.model)
        table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        table.setAlternatingRowColors(True)
        table.setWordWrap(False)
        table.setTabKeyNavigation(False)
        table.verticalHeader().setVisible(False)
        table.verticalHeader().setDefaultSectionSize(22)
        table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        header = table.horizontalHeader()
        header.setMinimumSectionSize(LEAST_SECTION)
        # Every column fits the panel (long texts are elided, the tooltip has them whole): no
        # sideways scrolling to reach the flags and the question.
        table.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        table.setTextElideMode(Qt.TextElideMode.ElideRight)
        table.viewport().installEventFilter(self)  # re-share the width whenever it changes
        self.fit_columns()
        table.selectionModel().currentRowChanged.connect(self._row_changed)
        self.model.modelReset.connect(self._reconnect_selection)

    def fit_columns(self) -> None:
        """Share the table's width out by ``COLUMN_SHARES`` (the question takes what is left)."""
        width = self.table.viewport().width()
        used = 0
        for column, (key, _title) in enumerate(COLUMNS):
            if key in COLUMN_SHARES:
                share, least = COLUMN_SHARES[key]
                self.table.setColumnWidth(column, max(least, int(width * share)))
                used += self.table.columnWidth(column)
        # The question (last) takes exactly the rest: a stretched last section keeps a minimum
        # of its own and pushed the table a pixel too wide at 1280x800.
        self.table.setColumnWidth(len(COLUMNS) - 1, max(LEAST_SECTION, width - used))

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.table.viewport() and event.type() == QEvent.Type.Resize:
            self.fit_columns()
        return False

    def _reconnect_selection(self) -> None:
        # A model reset keeps the selection model; nothing to rewire, but the current row is gone.
        self.table.clearSelection()

    def _row_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if self._selecting:
            return
        item_id = self.model.item_id(current.row())
        if item_id is not None:
            self.item_selected.emit(item_id)

    def select_item(self, item_id: str) -> None:
        """Highlight ``item_id`` in the table without emitting ``item_selected``. The selection
        model's signals stay on, so the view repaints only the two rows that changed."""
        row = self.model.row_of(item_id) if item_id else -1
        selection = self.table.selectionModel()
        self._selecting = True
        if row < 0:
            selection.clearSelection()
            selection.setCurrentIndex(QModelIndex(), QItemSelectionModel.SelectionFlag.Clear)
        else:
            index = self.model.index(row, 0)
            flags = (
                QItemSelectionModel.SelectionFlag.ClearAndSelect
                | QItemSelectionModel.SelectionFlag.Rows
            )
            selection.setCurrentIndex(index, flags)
            self.table.scrollTo(index, QAbstractItemView.ScrollHint.EnsureVisible)
        self._selecting = False
