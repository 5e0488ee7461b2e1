"""The queue's table model: a count and pages of rows, read from SQLite as they are painted.

At 200,000 items even a list of ids makes a filter change slow (reading them all, then an id-to-row
map over them): the model holds only the filter and its count (``store.queue.count``), and asks
``store.queue.page`` for a page of rows the first time a row of that page is painted, keeping a
few pages in a small LRU cache. The page after a cached one is read from that page's last key, so
walking down the queue never re-scans what it passed; where an item sits is ``store.queue.rank``.

A search for a common word is counted in the word index, most of a search's time on a large
project: given a ``counter`` (an executor of its own), the model shows a search's first page at
once, counts the rest on that thread (``store.queue.count_apart``) and adds the rows when the count
arrives (``counting`` meanwhile).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Collection
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt, Signal
from PySide6.QtGui import QBrush, QColor

from bagel_studio.core.changes import Part
from bagel_studio.core.checks import CHECKS
from bagel_studio.core.store import QueueFilter, Store
from bagel_studio.ui.blind import KEY_CHECKS, key_flags_line
from bagel_studio.ui.plain import plain_tooltip, shown
from bagel_studio.ui.services import Executor

PAGE_SIZE = 200
FEW_ROWS = 8  # rows a write changed that are placed again one by one; more reload the queue
# What of an item each filter field reads (the domain never changes): a write that changed none
# of these leaves every row where it was.
FILTER_READS = {
    "dimension": Part.CONTENT,
    "level": Part.CONTENT,
    "search": Part.CONTENT,
    "status": Part.STATUS,
    "curator": Part.REVIEWS,
    "unreviewed_by": Part.REVIEWS,
    "check": Part.FLAGS,
    "ambiguity_first": Part.FLAGS,  # the most severe flags first
}
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
# Shorter forms of the short fixed-list values, for a narrow queue (1280x800): the cell shows the
# longest form that fits its column (``ALTERNATIVES_ROLE``, see ``queue_panel.QueueDelegate``) and
# the tooltip the whole value. The desk's palette and these words say the same in less room.
DOMAIN_SHORT = {"Wikipedia": "Wiki", "Xeno-canto": "XC"}
# The domain in front of a short id: "xeno-canto:holdout:0" as "xc:holdout:0". Without it, the
# "holdout:0" of three domains read as one id three times.
ID_DOMAIN_SHORT = {"Wikipedia": "wiki", "GloBI": "globi", "bioRxiv": "bio", "Xeno-canto": "xc"}
STATUS_SHORT = {
    "unreviewed": "unrev.",
    "accepted": "acc.",
    "revised": "rev.",
    "rejected": "rej.",
    "skipped": "skip",
    "uncertain": "unsure",
    "disputed": "disp.",
}
LEVEL_SHORT = {"medium": "med."}
# A flags cell: the worst flag's severity as a mark drawn in its colour, and how many flags the
# item has ("▲ 2"), the same form in every row and at every width; the tooltip names them.
SEVERITY_MARK = {"blocking": "■", "warning": "▲", "info": "●"}
FLAGS_HEADER_TIP = (
    "The item's flags: ■ blocking, ▲ warning, ● info (the worst of them) and how many there are."
    " The cell's tooltip names them."
)
ALTERNATIVES_ROLE = Qt.ItemDataRole.UserRole + 1
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
ROLES = frozenset(  # the roles a cell answers; every other is None without reading its row
    {
        Qt.ItemDataRole.DisplayRole,
        Qt.ItemDataRole.ToolTipRole,
        Qt.ItemDataRole.ForegroundRole,
        Qt.ItemDataRole.UserRole,
        ALTERNATIVES_ROLE,
    }
)


class _Page:
    """One page of the queue: its records in order and where each id sits."""

    def __init__(self, first_row: int, records: list[dict[str, Any]]) -> None:
        self.first_row = first_row
        self.records = records
        self.rows = {record["id"]: first_row + n for n, record in enumerate(records)}


class QueueModel(QAbstractTableModel):
    """A read-only table over ``store`` for one ``QueueFilter``."""

    counted = Signal()  # a search's count arrived (``counter``): its rows are all in the table

    def __init__(
        self,
        store: Store,
        queue_filter: QueueFilter | None = None,
        blind: Callable[[], bool] | None = None,
        counter: Executor | None = None,
    ) -> None:
        super().__init__()
        self._store = store
        # blind mode on: the flags' tooltips do not name the checks about the key (``blind``)
        self._blind = blind or (lambda: False)
        self._counter = counter  # where a search is counted (None: at once, on this thread)
        self.counting = False  # a search's rows beyond its first page are still being counted
        self._filter = queue_filter or QueueFilter()
        self._count = store.queue.count(self._filter)
        self._pages: OrderedDict[int, _Page] = OrderedDict()
        self.pages_loaded = 0  # how many pages were fetched from SQLite (for tests and benchmarks)
        self.generation = 0  # counts the filters shown (each a new set of rows)

    # -- what the desk asks --------------------------------------------------------------------

    @property
    def queue_filter(self) -> QueueFilter:
        return self._filter

    @property
    def filtered(self) -> bool:
        """Whether the filter narrows the queue (how the search matches does not, alone)."""
        return self._filter != QueueFilter(search_inside_words=self._filter.search_inside_words)

    def set_filter(self, queue_filter: QueueFilter) -> None:
        """Show the items matching ``queue_filter``; only their count is read now (a search's
        first page, its count later: ``counter``)."""
        self.beginResetModel()
        self._filter = queue_filter
        self._pages.clear()
        self.generation += 1
        self.counting = False
        if queue_filter.search and self._counter is not None:
            self._count = len(self._load(0).records)
            if self._count == PAGE_SIZE:  # more may follow
                self._count_apart(queue_filter, self.generation)
        else:
            self._count = self._store.queue.count(queue_filter)
        self.endResetModel()

    def _count_apart(self, queue_filter: QueueFilter, generation: int) -> None:
        assert self._counter is not None
        self.counting = True

        def count() -> int | None:  # not counted when another filter is shown by then
            if generation != self.generation:
                return None
            return self._store.queue.count_apart(queue_filter)

        self._counter.submit(count, lambda counted: self._counted(generation, counted))

    def _counted(self, generation: int, count: int | None) -> None:
        """A search's count arrived: its rows after the first page join the table (unless
        another filter is shown by now)."""
        if generation != self.generation or count is None:
            return
        self.counting = False
        if count > self._count:
            self.beginInsertRows(QModelIndex(), self._count, count - 1)
            self._count = count
            self.endInsertRows()
        elif count < self._count:  # a write took some out meanwhile
            self.beginRemoveRows(QModelIndex(), count, self._count - 1)
            self._drop_pages_from(count)
            self._count = count
            self.endRemoveRows()
        self.counted.emit()

    def reload(self) -> None:
        self.set_filter(self._filter)

    def ids(self) -> list[str]:
        """Every id of the queue, in order: reads them all (tests and small queues only)."""
        return self._store.items.ids(self._filter)

    def item_id(self, row: int) -> str | None:
        record = self._record(row)
        return None if record is None else str(record["id"])

    def ids_after(self, row: int, count: int) -> list[str]:
        """The ids of up to ``count`` rows after ``row`` (the rows the view shows around the
        selection: their page is read once for both)."""
        if row < 0:
            return []
        found = (self.item_id(r) for r in range(row + 1, min(row + 1 + count, self._count)))
        return [item_id for item_id in found if item_id]

    def row_of(self, item_id: str) -> int:
        """The row of ``item_id`` in the current filter, or -1 (a cached page answers at once;
        otherwise one count in SQLite)."""
        row = self._cached_row(item_id)
        if row is not None:
            return row
        return self._store.queue.rank(self._filter, item_id) if item_id else -1

    def refresh_items(self, item_ids: Collection[str], parts: Part) -> None:
        """Re-read the rows of ``item_ids`` after a write changed ``parts`` of them. When the
        filter reads none of those parts (an accept in a queue filtered by domain alone), each
        row stays where it is and only those already read are read again; otherwise each is
        placed again (a few) or the whole queue reloaded, as a filter change does (more)."""
        if not parts & (self._filter_reads() | Part.NEW):
            self._reread_rows(item_ids)
        elif len(item_ids) > FEW_ROWS:
            self.reload()
        else:
            for item_id in item_ids:
                self.refresh_item(item_id)

    def _filter_reads(self) -> Part:
        """What of an item the filter (and the order it sets) reads."""
        reads = Part.NONE
        for name, part in FILTER_READS.items():
            if getattr(self._filter, name):
                reads |= part
        return reads

    def _reread_rows(self, item_ids: Collection[str]) -> None:
        cached = {i: page for page in self._pages.values() for i in item_ids if i in page.rows}
        for item_id, record in self._store.queue.rows(list(cached)).items():
            page = cached[item_id]
            row = page.rows[item_id]
            offset = row - page.first_row
            record["key"] = page.records[offset]["key"]  # the order does not read what changed
            page.records[offset] = record
            self.dataChanged.emit(self.index(row, 0), self.index(row, len(COLUMNS) - 1))

    def refresh_item(self, item_id: str) -> None:
        """Re-read one item's row after a decision or edit. Its page is refetched; if the change
        took it out of the filter (or brought it in), that one row goes (or comes), so the rest
        of the table and the selection stay as they are."""
        shown = self._cached_row(item_id)
        now = self._store.queue.rank(self._filter, item_id)
        count = self._store.queue.count(self._filter)
        if shown is None and count == self._count:
            shown = now
        if shown is not None and shown == now and count == self._count:
            self._pages.pop(shown // PAGE_SIZE, None)
            self.dataChanged.emit(self.index(shown, 0), self.index(shown, len(COLUMNS) - 1))
        elif shown is not None and now < 0 and count == self._count - 1:
            self.beginRemoveRows(QModelIndex(), shown, shown)
            self._drop_pages_from(shown)
            self._count = count
            self.endRemoveRows()
        elif shown is None and now >= 0 and count == self._count + 1:
            self.beginInsertRows(QModelIndex(), now, now)
            self._drop_pages_from(now)
            self._count = count
            self.endInsertRows()
        elif shown is not None or now >= 0 or count != self._count:
            self.reload()

    def cached_pages(self) -> int:
        return len(self._pages)

    def loaded_id_forms(self) -> list[tuple[str, ...]]:
        """The forms (``alternatives``) of the ids read so far that have a shorter one: what
        the Id column's form is chosen from, without reading another row."""
        forms = (alternatives(r, "id") for page in self._pages.values() for r in page.records)
        return [f for f in forms if f]

    def _cached_row(self, item_id: str) -> int | None:
        for page in self._pages.values():
            row = page.rows.get(item_id)
            if row is not None:
                return row
        return None

    def _drop_pages_from(self, row: int) -> None:
        for number in [n for n in self._pages if n >= row // PAGE_SIZE]:
            del self._pages[number]

    # -- Qt model interface --------------------------------------------------------------------

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else self._count

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation != Qt.Orientation.Horizontal or not 0 <= section < len(COLUMNS):
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section][1]
        if role == Qt.ItemDataRole.ToolTipRole and COLUMNS[section][0] == "flags":
            return plain_tooltip(FLAGS_HEADER_TIP)
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role not in ROLES or not index.isValid():  # Qt asks some eight roles per cell
            return None
        record = self._record(index.row())
        if record is None:
            return None
        key = COLUMNS[index.column()][0]
        if role == Qt.ItemDataRole.DisplayRole:
            return _display(record, key)
        if role == Qt.ItemDataRole.ToolTipRole:
            return _tooltip(record, key, self._blind())
        if role == Qt.ItemDataRole.ForegroundRole:
            return _foreground(record, key)
        if role == Qt.ItemDataRole.UserRole:
            return record["id"]
        if role == ALTERNATIVES_ROLE:
            return alternatives(record, key)
        return None

    def _record(self, row: int) -> dict[str, Any] | None:
        if not 0 <= row < self._count:
            return None
        number, offset = divmod(row, PAGE_SIZE)
        page = self._pages.get(number)
        if page is None:
            page = self._load(number)
        else:
            self._pages.move_to_end(number)
        return page.records[offset] if offset < len(page.records) else None

    def _load(self, number: int) -> _Page:
        previous = self._pages.get(number - 1)
        after = previous.records[-1]["key"] if previous and previous.records else None
        records = self._store.queue.page(self._filter, number * PAGE_SIZE, PAGE_SIZE, after)
        page = _Page(number * PAGE_SIZE, records)
        self.pages_loaded += 1
        self._pages[number] = page
        while len(self._pages) > MAX_PAGES:
            self._pages.popitem(last=False)
        return page


def _display(record: dict[str, Any], key: str) -> str:
    if key == "flags":
        checks = record["flag_checks"]
        if not checks:
            return ""
        # Only the worst severity is stored with the row: its mark, and the count of all flags.
        severity = SEVERITY_NAMES.get(record["flag_severity"], "")
        return f"{SEVERITY_MARK.get(severity, '?')} {len(checks)}"
    if key == "question":  # made once per row read: a cell is painted again and again
        line = record.get("question_line")
        if line is None:
            line = record["question_line"] = " ".join(shown(str(record["question"] or "")).split())
        return str(line)
    value = record.get(key)
    return "" if value is None else str(value)


def alternatives(record: dict[str, Any], key: str) -> tuple[str, ...] | None:
    """The cell's text in each of its column's forms, whole first (the same number of forms in
    every row of a column: the column shows one form in all its rows), or None for a column
    without shorter forms (it elides)."""
    if key == "id":  # "xeno-canto:xc236243:dominant" as "xc:xc236243:dominant"
        item_id, domain = str(record["id"]), str(record.get("domain") or "")
        prefix = f"{domain.lower()}:"
        if domain and item_id.lower().startswith(prefix) and len(item_id) > len(prefix):
            abbreviated = ID_DOMAIN_SHORT.get(domain, domain.lower())
            return (item_id, f"{abbreviated}:{item_id[len(prefix) :]}")
        return None
    short = {"domain": DOMAIN_SHORT, "status": STATUS_SHORT, "level": LEVEL_SHORT}.get(key)
    if short is None:
        return None
    value = _display(record, key)
    return (value, short.get(value, value)) if value else None


def _tooltip(record: dict[str, Any], key: str, blind: bool = False) -> str | None:
    if key in ("domain", "status", "level") and record.get(key):
        return plain_tooltip(shown(str(record[key])))  # whole, when the column shortens it
    if key == "flags" and record["flag_checks"]:
        checks = record["flag_checks"]
        severity = SEVERITY_NAMES.get(record["flag_severity"], "")
        count = f"{len(checks)} flags, the worst" if len(checks) > 1 else "1 flag,"
        named = [c for c in checks if not (blind and c in KEY_CHECKS)]
        lines = [f"{count} {severity}:"] + [f"{c}: {CHECKS.get(c, '')}" for c in named]
        if len(named) < len(checks):  # blind mode: named once the curator has answered
            lines.append(f"{key_flags_line(len(checks) - len(named))} (blind mode)")
        return plain_tooltip("\n".join(lines))
    if key == "question":
        return plain_tooltip(shown(str(record["question"] or "")))
    if key in ("id", "dimension") and record.get(key):
        return plain_tooltip(shown(str(record[key])))  # whole, when the column elides it
    return None


def _foreground(record: dict[str, Any], key: str) -> QBrush | None:
    if key == "flags" and record["flag_checks"]:
        colour = SEVERITY_COLOURS.get(record["flag_severity"])
        return QBrush(colour) if colour is not None else None
    if key == "status":
        colour = STATUS_COLOURS.get(record["status"])
        return QBrush(colour) if colour is not None else None
    return None
