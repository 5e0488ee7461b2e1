"""An item's history: every decision, edit, undo and merge, newest first, with what changed.

Undone entries stay in the list (the history is append-only) but are struck through, so the
curator sees both the action and that it was taken back.

The box takes the height its rows need and no more: an item without history gets one line
("History · No decisions or edits yet."), and the item above it the room.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QBrush, QColor, QResizeEvent
from PySide6.QtWidgets import QListWidget, QListWidgetItem, QSizePolicy, QVBoxLayout, QWidget

from bagel_studio.core.domains import LETTERS
from bagel_studio.core.model import HistoryEntry
from bagel_studio.ui.plain import plain_label, plain_tooltip

CONTENT_LABELS = {
    "question": "stem",
    "options": "options",
    "answer_index": "gold",
    "dimension": "dimension",
    "level": "level",
}


def _short(value: Any, limit: int = 80) -> str:
    text = " ".join(str(value).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _gold(value: Any) -> str:
    return LETTERS[value] if isinstance(value, int) and 0 <= value < len(LETTERS) else str(value)


def content_diff(before: dict[str, Any] | None, after: dict[str, Any] | None) -> list[str]:
    """One line per content field that differs: 'stem: "old" → "new"'."""
    before, after = before or {}, after or {}
    lines = []
    for key, label in CONTENT_LABELS.items():
        old, new = before.get(key), after.get(key)
        if old == new:
            continue
        if key == "answer_index":
            lines.append(f"{label}: {_gold(old)} → {_gold(new)}")
        elif key == "options" and isinstance(old, list) and isinstance(new, list):
            for index in range(max(len(old), len(new))):
                a = old[index] if index < len(old) else ""
                b = new[index] if index < len(new) else ""
                if a != b:
                    letter = LETTERS[index] if index < len(LETTERS) else str(index + 1)
                    lines.append(f"option {letter}: “{_short(a)}” → “{_short(b)}”")
        else:
            lines.append(f"{label}: “{_short(old)}” → “{_short(new)}”")
    return lines


def _decision_text(data: dict[str, Any] | None) -> str:
    if not data:
        return "(none)"
    text = str(data.get("decision", "?"))
    if data.get("reason"):
        text += f" ({data['reason']})"
    if data.get("note"):
        text += f" “{_short(data['note'], 60)}”"
    if data.get("blind_answer") is not None:
        text += f", blind answer {_gold(data['blind_answer'])}"
    return text


def describe(entry: HistoryEntry) -> str:
    """A plain-text description of one history entry (several lines for edits)."""
    when = entry.at.replace("T", " ")[:19]
    head = f"{when}  {entry.curator}  {entry.action}"
    if entry.action in ("decide", "merge"):
        lines = [f"{head}: {_decision_text(entry.after)}"]
        if entry.before:
            lines.append(f"   was: {_decision_text(entry.before)}")
    elif entry.action == "edit":
        lines = [head] + ["   " + line for line in content_diff(entry.before, entry.after)]
    elif entry.action == "undo":
        if entry.after is not None and "question" in entry.after:
            lines = [head + " of an edit"]
            lines += ["   " + line for line in content_diff(entry.before, entry.after)]
        else:
            lines = [f"{head}: {_decision_text(entry.before)} → {_decision_text(entry.after)}"]
    elif entry.action == "adjudicate":
        lines = [f"{head}: {_decision_text(entry.after)}"]
    elif entry.action == "merge-older":
        lines = [f"{head}: an older decision from another file, {_decision_text(entry.before)}"]
        lines.append(f"   kept the newer: {_decision_text(entry.after)}")
    else:
        lines = [head]
    if entry.undone:
        lines[0] += "   [undone]"
    return "\n".join(lines)


NO_HISTORY = "No decisions or edits yet."
ROW_PADDING = 6  # the width a list row's text may not use (the style's margins)
SPACING = 4


class HistoryList(QListWidget):
    """The history of the shown item (QListWidget items are plain text)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWordWrap(True)
        self.setAlternatingRowColors(True)
        self.setUniformItemSizes(False)

    def show_entries(self, entries: list[HistoryEntry]) -> None:
        self.clear()
        for entry in reversed(entries):
            row = QListWidgetItem(describe(entry))
            if entry.undone:
                font = row.font()
                font.setStrikeOut(True)
                row.setFont(font)
                row.setForeground(QBrush(QColor("#888888")))
            self.addItem(row)

    def show_message(self, text: str) -> None:
        """One line instead of the entries (blind mode hides them until the answer)."""
        self.clear()
        self.addItem(text)

    def texts(self) -> list[str]:
        return [self.item(i).text() for i in range(self.count())]

    def content_height(self) -> int:
        """The height that shows every row whole at the list's present width."""
        width = max(self.viewport().width() - ROW_PADDING, 50)
        metrics = self.fontMetrics()
        rows = 0
        for i in range(self.count()):
            text = self.item(i).text()
            unwrapped = metrics.boundingRect(QRect(0, 0, 100_000, 100_000), 0, text).height()
            wrapped = metrics.boundingRect(
                QRect(0, 0, width, 100_000), Qt.TextFlag.TextWordWrap, text
            ).height()
            # the style's margins around a row: its own size hint less its unwrapped text
            margins = max(0, self.sizeHintForRow(i) - unwrapped)
            rows += wrapped + margins
        return rows + 2 * self.frameWidth()


class HistoryBox(QWidget):
    """'History' over the list of entries; without entries (or while blind mode hides them) one
    line that says so, and the box no higher than that line."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        # one line, never wrapped: a wrapped label asks for three lines of a narrow one, and the
        # box is exactly one line high while it has no rows
        self.heading = plain_label("History", self, wrap=False, bold=True, selectable=False)
        self.heading.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self.heading.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        self.list = HistoryList(self)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 0, 8, 0)
        self._margins = layout.contentsMargins()
        layout.setSpacing(SPACING)
        layout.addWidget(self.heading)
        layout.addWidget(self.list, 1)
        self._message: str | None = NO_HISTORY
        self._fit()

    def show_entries(self, entries: list[HistoryEntry]) -> None:
        self.list.show_entries(entries)
        self._message = None if entries else NO_HISTORY
        self._fit()

    def show_message(self, text: str) -> None:
        """One line instead of the entries (blind mode hides them until the answer)."""
        self.list.clear()
        self._message = text
        self._fit()

    def texts(self) -> list[str]:
        """What the box says: its entries, or the one line that stands for them."""
        return [self._message] if self._message is not None else self.list.texts()

    @property
    def collapsed(self) -> bool:
        return self._message is not None

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if event.size().width() != event.oldSize().width():
            self._fit()  # the rows wrap anew, the heading may need eliding

    def _fit(self) -> None:
        """No higher than the heading (collapsed) or the heading and every row."""
        text = "History" if self._message is None else f"History · {self._message}"
        room = self.contentsRect().width() - self._margins.left() - self._margins.right()
        metrics = self.heading.fontMetrics()
        if 0 < room < metrics.horizontalAdvance(text):  # never cut mid-letter at the edge
            self.heading.setText(metrics.elidedText(text, Qt.TextElideMode.ElideRight, room))
        else:
            self.heading.setText(text)
        self.heading.setToolTip(plain_tooltip(text))  # whole, should a narrow column cut it
        self.list.setVisible(self._message is None)
        height = self.heading.sizeHint().height()
        if self._message is None:
            height += SPACING + self.list.content_height()
        self.setMaximumHeight(height)
