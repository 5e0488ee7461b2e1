"""The left column of the desk: filter bar, progress, and the queue table.

The panel is handed its ``QueueModel`` (it never builds its own) and turns the filter widgets into a
``QueueFilter``; the search field is debounced so that typing does not re-query on every key.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping

from PySide6.QtCore import (
    QEvent,
    QItemSelectionModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QPoint,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import QFont, QFontMetrics, QKeyEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QGridLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMenu,
    QProgressBar,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from bagel_studio.core.checks import CHECKS
from bagel_studio.core.domains import DOMAINS, LEVELS
from bagel_studio.core.model import Status
from bagel_studio.core.store import QueueFilter, Store
from bagel_studio.ui.own_keys import CHORD_MODIFIERS, give_chords_to_the_desk, keep_plain_keys
from bagel_studio.ui.plain import plain_label
from bagel_studio.ui.queue_model import (
    ALTERNATIVES_ROLE,
    COLUMNS,
    DOMAIN_SHORT,
    LEVEL_SHORT,
    SEVERITY_MARK,
    STATUS_SHORT,
    QueueModel,
)
from bagel_studio.ui.shortcuts import SHORTCUTS

SEARCH_DEBOUNCE_MS = 250
EMPTY_PROJECT_TEXT = "No items yet.\nFile → Import… (Ctrl+I) brings in generated items."
NO_MATCH_TEXT = "No item matches these filters.\nEsc in the search field clears it."
ANY = "(any)"


class FilterBar(QWidget):
    """Combo boxes and a search field; emits the resulting ``QueueFilter``."""

    changed = Signal(object)
    left = Signal()  # Esc on a filter: the keys go back to the queue

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
        self.search.setToolTip(
            "Enter searches at once and hands the keys to the queue (A, R, J... act on the items"
            " found).\nEsc empties the field; in an empty field Esc hands the keys back too."
        )
        self.search.setClearButtonEnabled(True)
        # Esc empties the search field; in an empty one it leaves the filters (the filter
        # installed last sees the key first).
        self.search.installEventFilter(_EscapeLeaves(self.search, self.left.emit))
        self.search.installEventFilter(_EscapeClears(self.search))
        # Ctrl+E exports from here too (Qt's line edit took it for 'end of line' on X11).
        give_chords_to_the_desk(self.search, (key for s in SHORTCUTS for key in s.keys))
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
        # Enter searches at once and hands the keys to the queue, where A, R, J... act on the
        # items found: left in the field, they were typed into the search instead.
        self.search.returnPressed.connect(self._search_entered)
        self._layout()
        self.refresh_choices()

    def _combo(self, name: str) -> QComboBox:
        combo = QComboBox(self)
        combo.setObjectName(f"filter_{name.lower()}")
        combo.setToolTip(
            f"Show only items with this {name.lower()} (Esc hands the keys back to the queue)"
        )
        combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        combo.setMinimumContentsLength(8)
        combo.currentIndexChanged.connect(lambda _i: self.emit_filter())
        keep_plain_keys(combo)  # arrows and type-ahead choose a filter, never decide the item
        combo.installEventFilter(_EscapeLeaves(combo, self.left.emit))
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
        present = self._store.queue.domains_in_order()
        domains = present + [d for d in DOMAINS if d not in present]
        levels = list(LEVELS) + [
            lv for lv in self._store.queue.distinct_values("level") if lv not in LEVELS
        ]
        curators = sorted(set(self._store.reviews.curators()) | ({self._curator} - {""}))
        self._fill(self.domain, [(d, d) for d in domains])
        self._fill(self.dimension, [(d, d) for d in self._store.queue.distinct_values("dimension")])
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

    def _search_entered(self) -> None:
        self.emit_filter()
        self.left.emit()

    def emit_filter(self) -> None:
        self._debounce.stop()
        self.changed.emit(self.current_filter())


class _EscapeLeaves(QObject):
    """Esc on a filter (a combo, the empty search field) hands the keys back to the queue: a
    focused combo keeps the plain keys for itself (type-ahead), so A, R, J... did nothing until
    the curator clicked elsewhere."""

    def __init__(self, widget: QWidget, leave: Callable[[], None]) -> None:
        super().__init__(widget)
        self.leave = leave

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        kind = event.type()
        if kind not in (QEvent.Type.ShortcutOverride, QEvent.Type.KeyPress):
            return False
        assert isinstance(event, QKeyEvent)
        if event.key() != Qt.Key.Key_Escape or event.modifiers() & CHORD_MODIFIERS:
            return False
        if kind == QEvent.Type.ShortcutOverride:
            event.accept()  # the key press comes here, not to the desk's Esc shortcut
            return True
        self.leave()
        return True


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
        self.package_of: str | None = None  # the curator whose package the project is

    def set_package(self, curator: str) -> None:
        """The project is ``curator``'s package: every item is theirs, and the line counts
        what they have decided of them ("alice's items: 12 / 340")."""
        self.package_of = curator

    def show_progress(self, reviewed: int, total: int, mine: int, shown: int | None) -> None:
        """``shown``: the queue's length (None: a search still being counted)."""
        queue = f"{shown:,} in queue" if shown is not None else "counting the queue…"
        if self.package_of is not None:
            decided = f"{self.package_of}'s items: {mine:,} / {total:,} decided"
            self.label.setText(f"{decided}   ·   {queue}")
            reviewed = mine
        else:
            self.label.setText(f"{reviewed:,} / {total:,} reviewed (you: {mine:,})   ·   {queue}")
        self.bar.setRange(0, max(total, 1))
        self.bar.setValue(reviewed)


# Every header stays whole at any width the desk allows. The id and the question get at least
# TEXT_LEAST pixels each; then the columns whose values come from a short fixed list get the width
# of their widest value as far as there is room, and never less than their shortest forms ("XC",
# "unrev.": the cell shows the longest form that fits, the tooltip the whole value); the
# id, the dimension and the question share what is left. When the whole values do not fit with
# QUESTION_RESERVE to spare (the queue at 1280x800 and 1600x1000), the level column is left out:
# the item's header and the Level filter show it.
# A column the curator widened or narrowed by hand keeps that width (remembered with the window).
FORM_LEVELS = {  # key: the values in each of the column's forms, whole first
    "domain": (tuple(DOMAINS), tuple(DOMAIN_SHORT.get(d, d) for d in DOMAINS)),
    "level": (tuple(LEVELS), tuple(LEVEL_SHORT.get(lv, lv) for lv in LEVELS)),
    "status": (
        tuple(s.value for s in Status),
        tuple(STATUS_SHORT.get(s.value, s.value) for s in Status),
    ),
    "flags": (tuple(f"{mark} 99" for mark in SEVERITY_MARK.values()),),  # one form: "▲ 2"
}
VALUE_COLUMNS = {key: (forms[0], forms[-1]) for key, forms in FORM_LEVELS.items()}
TEXT_SHARES = {"id": 0.25, "dimension": 0.25, "question": 0.5}
TEXT_LEAST = {"id": 100, "question": 100}
DROPPED_WHEN_NARROW = "level"
VALUE_PRIORITY = ("status", "domain", "level")
QUESTION_RESERVE = 80
QUESTION_LEAST_CHOSEN = 60  # what widths set by hand must leave the question
LEAST_SECTION = 36
CELL_PADDING = 14  # a cell's margins and its elision; a header's also holds the sort arrow
TEXT_MARGINS = 8  # what a cell's text may not use of its width (the style's margins, the grid)
ID_COLUMN = [key for key, _title in COLUMNS].index("id")
ELLIPSIS = "…"
ELIDED_KEPT = 4096  # ids kept as drawn: a few screens of rows


def column_widths(
    width: int,
    header_width: Callable[[str], int],
    text_width: Callable[[str], int],
    chosen: Mapping[str, int] | None = None,
) -> list[int]:
    """The queue's column widths for a table ``width`` pixels wide (they add up to it; a
    column of width 0 is hidden). ``chosen`` holds the widths the curator gave columns by hand;
    the last column (the question) always takes the rest. If the chosen widths leave it too
    little, they are set aside."""
    keys = [key for key, _title in COLUMNS]
    least = [max(LEAST_SECTION, header_width(title) + CELL_PADDING) for _key, title in COLUMNS]
    wanted = list(least)
    for column, key in enumerate(keys):
        if key in VALUE_COLUMNS:
            whole, shortest = VALUE_COLUMNS[key]
            least[column] = max(least[column], max(map(text_width, shortest)) + CELL_PADDING)
            wanted[column] = max(least[column], max(map(text_width, whole)) + CELL_PADDING)
        wanted[column] = max(wanted[column], TEXT_LEAST.get(key, 0))
    kept: dict[str, int] = {}
    if chosen:
        for column, key in enumerate(keys[:-1]):
            if key in chosen:
                kept[key] = max(least[column], chosen[key])
        others = sum(
            n
            for n, key in zip(least[:-1], keys, strict=False)
            if key not in kept and key != DROPPED_WHEN_NARROW
        )
        if sum(kept.values()) + others + QUESTION_LEAST_CHOSEN > width:
            kept = {}  # too wide for this panel: fitted as if never set
        for column, key in enumerate(keys):
            if key in kept:
                least[column] = wanted[column] = kept[key]
    if sum(wanted) + QUESTION_RESERVE > width and DROPPED_WHEN_NARROW not in kept:
        dropped = keys.index(DROPPED_WHEN_NARROW)
        least[dropped] = wanted[dropped] = 0
    for column, key in enumerate(keys):  # the id and the question before the fixed lists
        if key in TEXT_LEAST:
            least[column] = max(
                least[column], min(wanted[column], width - sum(least) + least[column])
            )
    # A fixed-list column shows its short forms until it has the room for its whole values,
    # so it gets that room or nothing more (status first, then domain, level): a width
    # in between would go to waste. The question keeps QUESTION_RESERVE more before any.
    for key in VALUE_PRIORITY:
        column = keys.index(key)
        spare = width - sum(least) - QUESTION_RESERVE
        if 0 < least[column] < wanted[column] <= least[column] + spare:
            least[column] = wanted[column]
    room = width - sum(least)
    if room > 0:
        for column, key in enumerate(keys):
            if key in TEXT_SHARES and key not in kept:
                least[column] += int(room * TEXT_SHARES[key])
    # The question (last) takes exactly the rest: a stretched last section keeps a minimum of
    # its own and pushed the table a pixel too wide at 1280x800.
    least[-1] = max(LEAST_SECTION, width - sum(least[:-1]))
    return least


def elide_id(text: str, fits: Callable[[str], bool]) -> str:
    """``text`` (an item id) as it is drawn where only what ``fits`` fits: whole, else its
    domain, the start of its name and its number ('wiki:andean…:0': a curator reads an id by
    its source and its number, and in the middle, 'wiki:a…ingo:0', the name was lost), else
    (no number at its end, or no room for one) as much of its start as fits, then "…"
    ('xc:xc236243:d…': the demo's recordings differ there, not in their 'dominant')."""
    if fits(text):
        return text
    head, _, rest = text.partition(":")
    middle, _, number = rest.rpartition(":")
    if middle and number.isdigit():
        for keep in range(len(middle) - 1, 0, -1):
            candidate = f"{head}:{middle[:keep]}{ELLIPSIS}:{number}"
            if fits(candidate):
                return candidate
    for keep in range(len(text) - 1, 0, -1):
        candidate = text[:keep] + ELLIPSIS
        if fits(candidate):
            return candidate
    return ELLIPSIS


class QueueDelegate(QStyledItemDelegate):
    """Draws a queue cell in the longest of its forms that fits the column: domain, status,
    level whole or in their short forms; ids whole or, all of them, with the domain their
    Domain cell names shortened, elided where they are alike (``elide_id``: the domain, the
    start of the name and the number stay)."""

    def __init__(self, parent: QTableView) -> None:
        super().__init__(parent)
        self._view = parent
        # The Id column's form: (model generation, room) it was chosen for, the pages read
        # then, and whether the ids go without their domain.
        self._id_basis: tuple[int, int] = (-1, -1)
        self._id_pages = -1
        self._ids_short = False
        # The form a fixed-list column shows, by (column, room, font): measured once, not for
        # every cell painted
        self._levels: dict[tuple[str, int, str], int] = {}
        # Each id as drawn (``elide_id``) at the column's width and font of ``_elided_basis``
        self._elided_basis: tuple[int, int, int] = (-1, -1, -1)
        self._elided: dict[str, str] = {}

    def initStyleOption(
        self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
    ) -> None:
        super().initStyleOption(option, index)
        room = option.rect.width() - TEXT_MARGINS
        metrics = option.fontMetrics
        forms = index.data(ALTERNATIVES_ROLE)
        if index.column() == ID_COLUMN:
            if forms:
                option.text = forms[-1] if self._short_ids(room, metrics) else forms[0]
            option.text = self._elided_id(option.text, room, metrics)
            return
        if not forms:
            return
        key = COLUMNS[index.column()][0]
        basis = (key, room, option.font.key())
        level = self._levels.get(basis)
        if level is None:
            levels = FORM_LEVELS[key]
            # One form for the whole column ("acc." beside "unrev.", never beside "rejected"):
            # the longest whose every value fits.
            level = self._levels[basis] = next(
                (
                    n
                    for n, values in enumerate(levels)
                    if max(map(metrics.horizontalAdvance, values)) <= room
                ),
                len(levels) - 1,
            )
        option.text = forms[min(level, len(forms) - 1)]

    def _elided_id(self, text: str, room: int, metrics: QFontMetrics) -> str:
        """``elide_id`` for ``room`` pixels, kept for the cells painted again (a view paints
        a cell at every hover and scroll); forgotten when the column's width or font changes."""
        basis = (room, metrics.height(), metrics.averageCharWidth())
        if basis != self._elided_basis:
            self._elided_basis, self._elided = basis, {}
        shown = self._elided.get(text)
        if shown is None:
            if len(self._elided) > ELIDED_KEPT:
                self._elided.clear()
            shown = self._elided[text] = elide_id(
                text, lambda t: metrics.horizontalAdvance(t) <= room
            )
        return shown

    def _short_ids(self, room: int, metrics: QFontMetrics) -> bool:
        """Whether every id goes without its domain: as soon as one id read from the queue
        does not fit whole ('wikipedia:koala:0' beside 'wikipedia:lion:0' that does), until the
        filter or the column's width changes. Never back while scrolling: the rows read later
        only add ids, so a column does not change its form under the curator's eyes."""
        model = self._view.model()
        if not isinstance(model, QueueModel):
            return False
        basis = (model.generation, room)
        if basis != self._id_basis:
            self._id_basis, self._id_pages, self._ids_short = basis, -1, False
        if not self._ids_short and model.pages_loaded != self._id_pages:
            self._id_pages = model.pages_loaded
            if any(metrics.horizontalAdvance(forms[0]) > room for forms in model.loaded_id_forms()):
                self._ids_short = True
                self._view.viewport().update()  # the rows drawn whole so far, again
        return self._ids_short


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
        self._fitting = False  # fit_columns is sizing the columns: not the curator
        self.chosen_widths: dict[str, int] = {}  # columns the curator sized by hand
        self._setup_table()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.progress)
        layout.addWidget(self.filters)
        layout.addWidget(self.table, 1)
        self.filters.changed.connect(self.model.set_filter)
        self.filters.left.connect(self.focus_queue)
        # Said in the table itself when it has no row, so an empty queue is never a blank box.
        self.empty_label = plain_label("", self.table.viewport(), selectable=False)
        self.empty_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty_label.setStyleSheet("color: #555555; padding: 16px;")
        self.empty_label.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.model.modelReset.connect(self._show_empty)
        self._show_empty()

    def focus_queue(self) -> None:
        """Give the keys to the queue table, where the desk's one-key shortcuts act (and the
        arrows move through the queue)."""
        self.table.setFocus(Qt.FocusReason.OtherFocusReason)

    def _show_empty(self) -> None:
        empty = self.model.rowCount() == 0
        if empty:
            self.empty_label.setText(NO_MATCH_TEXT if self.model.filtered else EMPTY_PROJECT_TEXT)
            self.empty_label.setGeometry(self.table.viewport().rect())
        self.empty_label.setVisible(empty)

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
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setToolTip(
            "Drag a column's edge to size it (the desk remembers it); right-click to fit the"
            " columns to the panel again"
        )
        header.sectionResized.connect(self._section_resized)
        header.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        header.customContextMenuRequested.connect(self._header_menu)
        # Every column fits the panel (long texts are elided, the tooltip has them whole): no
        # sideways scrolling to reach the flags and the question.
        table.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        table.setTextElideMode(Qt.TextElideMode.ElideRight)
        table.setItemDelegate(QueueDelegate(table))
        table.viewport().installEventFilter(self)  # re-share the width whenever it changes
        self.fit_columns()
        table.selectionModel().currentRowChanged.connect(self._row_changed)
        self.model.modelReset.connect(self._reconnect_selection)

    def fit_columns(self) -> None:
        """Give each column the width its header needs, then the short fixed-list columns
        the width of their values, then share the rest between id, dimension and question;
        a column the curator sized keeps its width."""
        bold = QFont(self.table.horizontalHeader().font())
        bold.setBold(True)  # some styles draw the header of the current column in bold
        widths = column_widths(
            self.table.viewport().width(),
            QFontMetrics(bold).horizontalAdvance,
            self.table.fontMetrics().horizontalAdvance,
            self.chosen_widths,
        )
        self._fitting = True
        try:
            for column, width in enumerate(widths):
                self.table.setColumnHidden(column, width == 0)
                if width:
                    self.table.setColumnWidth(column, width)
        finally:
            self._fitting = False

    def _section_resized(self, column: int, _old: int, new: int) -> None:
        """The curator dragged a column's edge: keep that width, the question takes the rest."""
        if self._fitting or column >= len(COLUMNS) - 1 or new <= 0:
            return
        self.chosen_widths[COLUMNS[column][0]] = new
        self.fit_columns()

    def reset_columns(self) -> None:
        """Forget the widths set by hand and fit the columns to the panel."""
        self.chosen_widths = {}
        self.fit_columns()

    def _header_menu(self, position: QPoint) -> None:
        menu = QMenu(self)
        menu.addAction("Fit the columns to the panel", self.reset_columns)
        menu.exec(self.table.horizontalHeader().mapToGlobal(position))

    def column_state(self) -> str:
        """The widths set by hand, for the desk's settings."""
        return json.dumps(self.chosen_widths, sort_keys=True)

    def restore_column_state(self, state: object) -> None:
        """Take back widths saved by ``column_state`` (anything unreadable is ignored)."""
        try:
            loaded = json.loads(str(state)) if state else {}
        except ValueError:
            loaded = {}
        keys = {key for key, _title in COLUMNS[:-1]}
        self.chosen_widths = (
            {k: v for k, v in loaded.items() if k in keys and isinstance(v, int) and v > 0}
            if isinstance(loaded, dict)
            else {}
        )
        self.fit_columns()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.table.viewport() and event.type() == QEvent.Type.Resize:
            self.fit_columns()
            self.empty_label.setGeometry(self.table.viewport().rect())
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

    def select_item(self, item_id: str) -> int:
        """Highlight ``item_id`` in the table without emitting ``item_selected`` and return its
        row (-1 when the queue does not hold it). The selection model's signals stay on, so the
        view repaints only the two rows that changed."""
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
        return row
