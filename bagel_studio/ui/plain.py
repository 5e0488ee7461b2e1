"""Plain-text helpers: item and evidence text is data, never markup.

Widgets that could interpret HTML (QLabel, tooltips) get their text through these helpers so that a
stem like ``<b>x</b><img src=http://...>`` is shown literally and nothing is fetched.
"""

from __future__ import annotations

import html

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QMessageBox, QWidget

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
