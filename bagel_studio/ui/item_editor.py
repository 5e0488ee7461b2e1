"""In-place editing of an item's stem, options, gold, dimension and level.

Shown in place of the read-only item when the curator presses E; the state machine asks it for the
edited ``ItemContent`` on Ctrl+Enter and throws it away on Esc.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QButtonGroup,
    QComboBox,
    QGridLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QRadioButton,
    QWidget,
)

from bagel_studio.core.checks.hidden import reveal_hidden
from bagel_studio.core.domains import DIMENSIONS, LETTERS, LEVELS
from bagel_studio.core.model import Item, ItemContent
from bagel_studio.ui.own_keys import keep_plain_keys


class ItemEditor(QWidget):
    """Editors for one item's content; ``content()`` reads them back."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.stem = QPlainTextEdit(self)
        self.stem.setTabChangesFocus(True)
        self.stem.setMaximumHeight(110)
        self.options = [QLineEdit(self) for _ in LETTERS]
        self.gold_buttons = [QRadioButton(f"{letter} is gold", self) for letter in LETTERS]
        self.gold_group = QButtonGroup(self)
        for index, button in enumerate(self.gold_buttons):
            self.gold_group.addButton(button, index)
        self.dimension = QComboBox(self)
        self.dimension.setEditable(False)
        self.level = QComboBox(self)
        # What the generator answered, when it matched no option: what the gold was meant to be
        self.given = QLabel(self)
        self.given.setTextFormat(Qt.TextFormat.PlainText)
        self.given.setWordWrap(True)
        self.given.setStyleSheet("color: #b71c1c;")
        self.given.hide()
        for combo in (self.dimension, self.level):
            keep_plain_keys(combo, typing=False)  # arrows change the choice; 1-4 still set gold
        self._layout()
        self._base: ItemContent | None = None

    def _layout(self) -> None:
        grid = QGridLayout(self)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.addWidget(QLabel("Stem", self), 0, 0)
        grid.addWidget(self.stem, 0, 1, 1, 2)
        for index, letter in enumerate(LETTERS):
            grid.addWidget(QLabel(letter, self), 1 + index, 0)
            grid.addWidget(self.options[index], 1 + index, 1)
            grid.addWidget(self.gold_buttons[index], 1 + index, 2)
        grid.addWidget(self.given, 5, 1, 1, 2)
        grid.addWidget(QLabel("Dimension", self), 6, 0)
        grid.addWidget(self.dimension, 6, 1, 1, 2)
        grid.addWidget(QLabel("Level", self), 7, 0)
        grid.addWidget(self.level, 7, 1, 1, 2)
        hint = QLabel("Ctrl+Enter saves and accepts as revised · Esc cancels", self)
        hint.setStyleSheet("color: #555;")
        grid.addWidget(hint, 8, 0, 1, 3)
        grid.setColumnStretch(1, 1)

    def load(self, item: Item) -> None:
        """Fill the editors from ``item``'s current content and focus the stem."""
        content = item.content
        self._base = content
        self.stem.setPlainText(content.question)
        for index, editor in enumerate(self.options):
            editor.setText(content.options[index] if index < len(content.options) else "")
        self.set_gold(content.answer_index)
        given = item.given_answer
        self.given.setText(
            f'The generator answered "{reveal_hidden(given)}", which matches none of the options'
            if given is not None
            else ""
        )
        self.given.setVisible(given is not None)
        self.dimension.clear()
        labels = list(DIMENSIONS.get(item.domain, ()))
        if content.dimension and content.dimension not in labels:
            labels.insert(0, content.dimension)
        self.dimension.addItems(labels)
        self.dimension.setCurrentIndex(max(self.dimension.findText(content.dimension or ""), 0))
        self.level.clear()
        self.level.addItem("(none)", None)
        for level in LEVELS:
            self.level.addItem(level, level)
        self.level.setCurrentIndex(max(self.level.findData(content.level), 0))
        self.stem.setFocus()

    def set_gold(self, index: int | None) -> None:
        if index is None or not 0 <= index < len(self.gold_buttons):
            self.gold_group.setExclusive(False)
            for button in self.gold_buttons:
                button.setChecked(False)
            self.gold_group.setExclusive(True)
        else:
            self.gold_buttons[index].setChecked(True)

    def content(self) -> ItemContent:
        """The edited content (options beyond those typed are dropped only if empty at the end)."""
        assert self._base is not None, "load() an item first"
        options = [editor.text().strip() for editor in self.options]
        gold = self.gold_group.checkedId()
        return self._base.with_changes(
            question=self.stem.toPlainText().strip(),
            options=options,
            answer_index=gold if gold >= 0 else None,
            dimension=self.dimension.currentText() or None,
            level=self.level.currentData(),
        )
