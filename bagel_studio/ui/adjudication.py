"""The adjudication queue: items on which curators disagree, settled by an adjudicator.

For the selected disputed item the panel shows, side by side, the item as imported and as each
curator left it (decision, reason, note, blind answer, the stem, options and gold they kept), with
the cells that differ highlighted, and what stands behind each version: the flags its content
gets and the sentences of the item's text that support its gold (``checks.versions``), under a
line naming the item's evidence. The adjudicator settles it from the keyboard: 1..9 takes that
curator's version (their decision and content), R rejects with the chosen reason; the text field
is the adjudicator's own reason or note. The write goes through the single writer; keys pressed
while it is in flight are ignored, and when it is committed the next disputed item appears.
"Merge…" brings other curators' project files in (their disagreements join the queue). Decisions
made elsewhere (the desk, a merge) reach the queue through ``apply_changes``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFont, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QListWidget,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from bagel_studio.core import operations
from bagel_studio.core.changes import Changes, Done, Part
from bagel_studio.core.checks.versions import Behind, behind_versions, evidence_lines
from bagel_studio.core.domains import LETTERS
from bagel_studio.core.merge import MergeReport, merge_projects
from bagel_studio.core.model import REJECT_REASONS, Decision, Item, ItemContent, Review
from bagel_studio.core.store import QueueFilter
from bagel_studio.ui.id_queue import (
    clear_layout,
    current_id,
    fill_queue,
    lay_out_beside_queue,
    queue_ids,
    step_queue,
)
from bagel_studio.ui.plain import plain_label
from bagel_studio.ui.secondary import add_button_key
from bagel_studio.ui.services import Services
from bagel_studio.ui.shortcuts import BY_ACTION

T = TypeVar("T")
DISPUTED = QueueFilter(status="disputed")
KEEPS = (Decision.ACCEPT, Decision.REVISE)
HIGHLIGHT = QBrush(QColor(255, 230, 150))

# The panel's one key table: key -> (action, argument).
KEYS: dict[str, tuple[str, int]] = {
    **{str(n): ("take", n) for n in range(1, 10)},
    "R": ("reject", 0),
    "J": ("step", 1),
    "K": ("step", -1),
}


def version_rows(item: Item, reviews: list[Review]) -> list[tuple[str, list[str]]]:
    """The comparison table: (row label, [original, curator 1, curator 2, ...]) per row."""
    columns: list[tuple[str, str, str, str, str, ItemContent]] = [
        ("as imported", "", "", "", "", item.original)
    ]
    for r in reviews:
        blind = LETTERS[r.blind_answer] if r.blind_answer is not None else ""
        columns.append(
            (r.decision.value, r.reason or "", r.note or "", blind, _when(r.decided_at), r.content)
        )
    width = max(len(c[5].options) for c in columns)
    rows: list[tuple[str, list[str]]] = [
        ("Decision", [c[0] for c in columns]),
        ("Reason", [REJECT_REASONS.get(c[1], c[1]) for c in columns]),
        ("Note", [c[2] for c in columns]),
        ("Blind answer", [c[3] for c in columns]),
        ("Decided", [c[4] for c in columns]),
        ("Question", [c[5].question for c in columns]),
    ]
    for index in range(width):
        letter = LETTERS[index] if index < len(LETTERS) else str(index + 1)
        rows.append((letter, [_option(c[5], index) for c in columns]))
    rows.append(("Gold", [_gold(c[5]) for c in columns]))
    rows.append(("Dimension", [c[5].dimension or "" for c in columns]))
    rows.append(("Level", [c[5].level or "" for c in columns]))
    return rows


def behind_rows(behind: list[Behind]) -> list[tuple[str, list[str]]]:
    """The rows under the versions (one value per version, as imported first): each one's
    flags, and the sentences that support its gold when the item has a text."""
    rows = [("Flags", [_flags_cell(b) for b in behind])]
    if any(b.support is not None for b in behind):
        rows.append(("Gold's support", [_support_cell(b) for b in behind]))
    return rows


def _flags_cell(behind: Behind) -> str:
    marks = {"blocking": "■", "warning": "▲", "info": "●"}
    lines = [f"{marks.get(f.severity.value, '')} {f.check}" for f in behind.flags]
    return "\n".join(lines) or "none"


def _support_cell(behind: Behind) -> str:
    if behind.support is None:
        return "(no gold)"
    if not behind.support:
        return "no sentence of the text supports it"
    return "\n".join(f"“{sentence}”" for sentence in behind.support)


CONTENT_LABELS = frozenset(
    {"Question", "Gold", "Dimension", "Level", "Flags", "Gold's support", *LETTERS}
)
UNCOMPARED = frozenset({"Note", "Decided"})


def differing_cells(label: str, values: list[str]) -> set[int]:
    """Columns of one table row to highlight.

    Content rows: the curators' cells that differ from the item as imported (their edits).
    Verdict rows: when curators differ, the cells off the majority (all of them when there is no
    majority), so the odd one out stands out.
    """
    if label in UNCOMPARED:
        return set()
    curators = values[1:]
    if label in CONTENT_LABELS or label.isdigit():
        return {i for i, v in enumerate(values) if i > 0 and v != values[0]}
    if len(set(curators)) <= 1:
        return set()
    counts = Counter(curators).most_common()
    if len(counts) > 1 and counts[0][1] == counts[1][1]:
        return set(range(1, len(values)))
    return {i for i, v in enumerate(values) if i > 0 and v != counts[0][0]}


def _when(stamp: str) -> str:
    """'2026-11-23T16:47:29.023+00:00' as '2026-11-23 16:47 UTC': the minute is what tells
    curators' decisions apart, and the whole stamp took a column's width."""
    if len(stamp) >= 16 and stamp[10] == "T" and stamp.endswith(("+00:00", "Z")):
        return f"{stamp[:10]} {stamp[11:16]} UTC"
    return stamp.replace("T", " ")


def _option(content: ItemContent, index: int) -> str:
    return content.options[index] if index < len(content.options) else ""


def _gold(content: ItemContent) -> str:
    letter, text = content.answer_letter, content.answer_text
    return f"{letter}. {text}" if letter and text is not None else "(none)"


KEYS_HINT = "J / K: next / previous · 1-9: take a curator's version · R: reject · Esc: close"
NOTHING_TO_ADJUDICATE = (
    "Nothing to adjudicate. Items come here when the curators' decisions on them disagree:"
    " bring the other curators' project files in with Merge… (File → Merge curators' files…,"
    " Ctrl+M in the desk)."
)


class AdjudicationPanel(QWidget):
    """The disputed items, each curator's version side by side, and the keys to settle them."""

    adjudicated = Signal(str)  # item id, once the adjudication is committed
    merged = Signal(object)  # MergeReport, once a merge is committed

    def __init__(self, services: Services, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.services = services
        self.setWindowTitle("Adjudication")
        self.writing = False
        self.reviews: list[Review] = []
        self.heading = plain_label()
        self.queue = QListWidget()
        self.queue.currentItemChanged.connect(self._show_current)
        merge_button = QPushButton("Merge…")
        merge_button.setToolTip("Bring in other curators' project files")
        merge_button.clicked.connect(self._choose_merge_files)
        self.merge_result = plain_label()
        self.item_header = plain_label(bold=True)
        self.evidence = plain_label()  # the item's evidence, named in a line
        self.table = QTableWidget()
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.setWordWrap(True)
        # Every version side by side in the panel's width, wrapped, never a sideways scroll
        # that hides the third curator's column; rows as high as their wrapped text.
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.reason_text = QLineEdit()
        self.reason_text.setPlaceholderText("Adjudicator's reason or note (optional)")
        self.reject_reason = QComboBox()
        for key, label in REJECT_REASONS.items():
            self.reject_reason.addItem(label, key)
        self.take_buttons = QHBoxLayout()
        self.reject_button = QPushButton("Reject [R]")
        self.reject_button.clicked.connect(self.reject)
        self.status = plain_label()
        self._layout(merge_button)
        for key, (action, argument) in KEYS.items():
            shortcut = QShortcut(QKeySequence(key), self)
            shortcut.setObjectName(f"{action} {argument}")
            shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            shortcut.activated.connect(lambda a=action, n=argument: self.handle(a, n))
        add_button_key(self, merge_button, BY_ACTION["merge"].keys[0], "merge")
        self.refresh()
        services.listen(self)

    def apply_changes(self, changes: Changes, origin: object) -> None:
        """Decisions made elsewhere (the desk, a merge from the File menu) can start or end a
        dispute: the queue is read again while the panel is open (a reopened panel reads it
        anyway); its own writes refresh it when they are committed."""
        if origin is not self and changes.parts & Part.STATUS and self.isVisible():
            self.refresh()

    def _layout(self, merge_button: QPushButton) -> None:
        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.addWidget(self.item_header)
        right_layout.addWidget(self.evidence)
        right_layout.addWidget(self.table, 1)
        right_layout.addWidget(self.reason_text)
        reject_row = QHBoxLayout()
        reject_row.addWidget(self.reject_reason, 1)
        reject_row.addWidget(self.reject_button)
        right_layout.addLayout(self.take_buttons)
        right_layout.addLayout(reject_row)
        right_layout.addWidget(self.status)
        keys = plain_label(KEYS_HINT, selectable=False)
        below = [keys, merge_button, self.merge_result]
        lay_out_beside_queue(self, self.heading, self.queue, below, right)

    # -- the queue -----------------------------------------------------------------------------

    def refresh(self, select: str | None = None) -> None:
        """Reload the disputed items and show ``select`` (or the current one, or the first)."""
        store = self.services.store
        keep = select or self.current_item_id()
        ids = store.items.ids(DISPUTED)
        rows = store.queue.rows(ids)
        entries = ((item_id, f"{item_id}: {rows[item_id]['question']}", None) for item_id in ids)
        fill_queue(self.queue, entries, keep)
        self.heading.setText(f"{len(ids)} disputed items")
        self._show_current()

    def item_ids(self) -> list[str]:
        return queue_ids(self.queue)

    def current_item_id(self) -> str | None:
        return current_id(self.queue)

    def _show_current(self, *_: object) -> None:
        clear_layout(self.take_buttons)
        item_id = self.current_item_id()
        if item_id is None:
            self.reviews = []
            self.item_header.setText(NOTHING_TO_ADJUDICATE)
            self.evidence.setText("")
            self.table.clear()
            self.table.setRowCount(0)
            self.table.setColumnCount(0)
            self.reject_button.setEnabled(False)
            return
        store = self.services.store
        item = store.items.get(item_id)
        self.reviews = store.reviews.of_item(item_id)
        self.item_header.setText(
            f"{item.id} · {item.domain} · {item.content.dimension or ''} · {item.status.value}"
        )
        self.evidence.setText("\n".join(evidence_lines(store, item)))
        self._fill_table(item)
        for number, review in enumerate(self.reviews[:9], start=1):
            button = QPushButton(f"Take {review.curator}'s version [{number}]")
            button.setEnabled(review.decision in (*KEEPS, Decision.REJECT))
            button.clicked.connect(lambda _=False, n=number: self.take_version(n))
            self.take_buttons.addWidget(button)
        self.reject_button.setEnabled(not self.services.store.read_only)

    def _fill_table(self, item: Item) -> None:
        contents = [item.original, *(r.content for r in self.reviews)]
        behind = behind_versions(self.services.store, item, contents)
        rows = version_rows(item, self.reviews) + behind_rows(behind)
        headers = ["As imported"] + [
            f"{n}. {r.curator}" for n, r in enumerate(self.reviews, start=1)
        ]
        self.table.clear()
        self.table.setColumnCount(len(headers))
        self.table.setRowCount(len(rows))
        self.table.setHorizontalHeaderLabels(headers)
        self.table.setVerticalHeaderLabels([label for label, _ in rows])
        for row, (label, values) in enumerate(rows):
            marked = differing_cells(label, values)
            for column, value in enumerate(values):
                cell = QTableWidgetItem(value)
                if column in marked:
                    cell.setBackground(HIGHLIGHT)
                    font = QFont(cell.font())
                    font.setBold(True)
                    cell.setFont(font)
                self.table.setItem(row, column, cell)

    def highlighted_cells(self) -> list[tuple[str, str]]:
        """(row label, column header) of every highlighted cell: what differs."""
        cells = []
        for row in range(self.table.rowCount()):
            for column in range(self.table.columnCount()):
                cell = self.table.item(row, column)
                if cell is not None and cell.background() == HIGHLIGHT:
                    row_header = self.table.verticalHeaderItem(row)
                    column_header = self.table.horizontalHeaderItem(column)
                    if row_header is not None and column_header is not None:
                        cells.append((row_header.text(), column_header.text()))
        return cells

    # -- settling ------------------------------------------------------------------------------

    def handle(self, action: str, argument: int) -> None:
        """Dispatch a key from the table; ignored while a write is in flight."""
        if self.writing:
            return
        if action == "take":
            self.take_version(argument)
        elif action == "reject":
            self.reject()
        elif action == "step":
            step_queue(self.queue, argument)

    def take_version(self, number: int) -> None:
        """Settle the item with curator ``number``'s decision (and content, for a keep)."""
        item_id = self.current_item_id()
        if item_id is None or self.writing or not 1 <= number <= len(self.reviews):
            return
        review = self.reviews[number - 1]
        text = self.reason_text.text().strip() or None
        if review.decision in KEEPS:
            content = review.content
            self._adjudicate(
                item_id, Decision.ACCEPT, content, text, f"took {review.curator}'s version"
            )
        elif review.decision is Decision.REJECT:
            note = text or review.note
            self._adjudicate(item_id, Decision.REJECT, None, review.reason or "other", note)
        else:
            self.status.setText(
                f"{review.curator} decided {review.decision.value}: that is not a final decision"
            )

    def reject(self) -> None:
        """Settle the item as rejected, for the reason chosen in the list."""
        item_id = self.current_item_id()
        if item_id is None or self.writing:
            return
        reason = str(self.reject_reason.currentData())
        text = self.reason_text.text().strip() or None
        self._adjudicate(item_id, Decision.REJECT, None, reason, text)

    def _adjudicate(
        self,
        item_id: str,
        decision: Decision,
        content: ItemContent | None,
        reason: str | None,
        note: str | None,
    ) -> None:
        store, adjudicator = self.services.store, self.services.curator
        ids = self.item_ids()
        following = ids[ids.index(item_id) + 1] if ids.index(item_id) + 1 < len(ids) else None

        def write() -> Done[Decision]:
            return operations.adjudicate(
                store, item_id, adjudicator, decision, content, reason=reason, note=note
            )

        def done(_: object) -> None:
            self.writing = False
            self.reason_text.clear()
            self.status.setText(f"{item_id}: {decision.value} ({adjudicator})")
            self.refresh(select=following)
            self.adjudicated.emit(item_id)

        self._submit(write, done)

    # -- merging -------------------------------------------------------------------------------

    def _choose_merge_files(self) -> None:
        start = str(Path(self.services.store.path).parent)
        paths, _ = QFileDialog.getOpenFileNames(
            self, "Merge curators' project files", start, "BAGEL projects (*.bagel);;All files (*)"
        )
        if paths:
            self.merge_files(paths)

    def merge_files(self, paths: list[str]) -> None:
        """Merge other project files on the writer; the result is shown when committed."""
        if self.writing:
            return
        store = self.services.store
        self.merge_result.setText(f"Merging {len(paths)} files…")

        def done(report: MergeReport) -> None:
            self.writing = False
            self.status.clear()
            self.merge_result.setText("\n".join(report.lines()))
            self.refresh()
            self.merged.emit(report)

        self._submit(lambda: merge_projects(store, paths), done, self.merge_result)

    def _submit(
        self,
        op: Callable[[], Done[T]],
        done: Callable[[T], None],
        failed_label: QLabel | None = None,
    ) -> None:
        self.writing = True
        self.status.setText("Saving…")

        def failed(error: BaseException) -> None:
            self.writing = False
            self.status.setText(f"Not saved: {error}")
            if failed_label is not None:
                failed_label.setText(f"Not merged: {error}")

        self.services.write(op, origin=self, done=done, failed=failed)
