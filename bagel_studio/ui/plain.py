"""Plain-text helpers: item and evidence text is data, never markup.

Widgets that could interpret HTML (QLabel, tooltips) get their text through these helpers so that a
stem like ``<b>x</b><img src=http://...>`` is shown literally and nothing is fetched.
"""

from __future__ import annotations

import html
import math
import re

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QResizeEvent, QTextOption
from PySide6.QtWidgets import QFrame, QLabel, QMessageBox, QSizePolicy, QTextEdit, QWidget

from bagel_studio.core.checks.hidden import reveal_hidden


def plain_label(
    text: str = "",
    parent: QWidget | None = None,
    *,
    wrap: bool = True,
    bold: bool = False,
    selectable: bool = True,
) -> QLabel:
    """A QLabel that shows ``text`` literally and (unless told otherwise) can be selected with
    the mouse; a selectable label takes focus when clicked, so status lines can opt out."""
    label = QLabel(parent)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setWordWrap(wrap)
    if selectable:
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    label.setText(text)
    if bold:
        font = label.font()
        font.setBold(True)
        label.setFont(font)
    return label


UNBREAKABLE_CHARS = 28  # a longer run without a space, '-', '/' or '|' does not wrap in a QLabel
_BREAKS = re.compile(r"[\s/|-]+")


class WrappedValue(QTextEdit):
    """A card's value that holds a long run a QLabel cannot break (a table's file name with
    underscores, an id): wrapped anywhere inside its column, selectable and copied whole (a
    QLabel kept the run on one line and the card ran off the column's right edge, or was cut)."""

    def __init__(self, text: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setReadOnly(True)
        self.setAcceptRichText(False)
        self.setPlainText(text)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setWordWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
        self.document().setDocumentMargin(0)
        self.viewport().setAutoFillBackground(False)
        self.setStyleSheet("QTextEdit { background: transparent; }")
        self.setFocusPolicy(Qt.FocusPolicy.ClickFocus)  # the desk's keys stay with the desk
        policy = QSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        policy.setHeightForWidth(True)
        self.setSizePolicy(policy)

    def text(self) -> str:
        return self.toPlainText()

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        document = self.document().clone()
        document.setTextWidth(max(width, 1))
        return math.ceil(document.size().height())

    def sizeHint(self) -> QSize:
        width = self.fontMetrics().horizontalAdvance("x" * 40)
        return QSize(width, self.heightForWidth(self.width() if self.width() > 0 else width))

    def minimumSizeHint(self) -> QSize:
        return QSize(self.fontMetrics().horizontalAdvance("x" * 8), self.fontMetrics().height())

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if event.size().width() != event.oldSize().width():
            self.updateGeometry()  # as many lines as this width needs


def plain_value(text: str, parent: QWidget | None = None) -> QLabel | WrappedValue:
    """A card's value, shown literally: a selectable, word-wrapped label, or a
    ``WrappedValue`` where the text holds a run a label cannot break."""
    if any(len(run) > UNBREAKABLE_CHARS for run in _BREAKS.split(text)):
        return WrappedValue(text, parent)
    return plain_label(text, parent)


def shown(text: str) -> str:
    """Item text as the desk displays it: invisible and reordering characters (bidi overrides,
    zero-width spaces) written out as ``⟨U+202E⟩`` so that nothing hides or reorders the text."""
    return reveal_hidden(text)


def plain_tooltip(text: str) -> str:
    """Tooltips guess rich text on their own; escaping keeps any markup literal."""
    escaped = html.escape(text).replace("\n", "<br>")
    return f"<p style='white-space:pre-wrap'>{escaped}</p>"


def plain_message(
    parent: QWidget | None,
    icon: QMessageBox.Icon,
    title: str,
    text: str,
    buttons: QMessageBox.StandardButton = QMessageBox.StandardButton.Ok,
) -> QMessageBox.StandardButton:
    """A modal message whose text is shown literally (the static QMessageBox helpers guess rich
    text, and error messages quote file names and input that may hold markup)."""
    box = QMessageBox(icon, title, text, buttons, parent)
    box.setTextFormat(Qt.TextFormat.PlainText)
    return QMessageBox.StandardButton(box.exec())


def plain_question(parent: QWidget | None, title: str, text: str) -> bool:
    """A Yes/No question shown literally (it quotes paths and errors); True for Yes."""
    answer = plain_message(
        parent,
        QMessageBox.Icon.Question,
        title,
        text,
        QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
    )
    return answer == QMessageBox.StandardButton.Yes
