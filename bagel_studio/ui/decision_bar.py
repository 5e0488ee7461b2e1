"""The decision buttons (labels and keys from the shortcut table) and the reject-reason chooser."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QGridLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from bagel_studio.core.model import REJECT_REASONS
from bagel_studio.ui.shortcuts import ReviewMachine, State, button_text, key_tip

# Two rows of four: the decisions first, then undo and moving on.
BUTTON_ACTIONS = ("accept", "edit", "reject", "uncertain", "skip", "undo", "previous", "next")
DECISIONS_PER_ROW = 4
EDIT_ACTIONS = ("save_edit", "cancel_edit")  # a third row, shown while editing
BUTTON_COLOURS = {"accept": "#2e7d32", "reject": "#c62828", "edit": "#00838f"}


class DecisionBar(QWidget):
    """One button per decision; clicking goes through the same machine as the keys, which
    enables each button in the states its key acts in (``ReviewMachine.control``)."""

    def __init__(self, machine: ReviewMachine, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._machine = machine
        self.buttons: dict[str, QPushButton] = {}
        layout = QGridLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        for position, action in enumerate(BUTTON_ACTIONS):
            button = QPushButton(button_text(action), self)
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # keys stay with the desk
            button.setToolTip(key_tip(action))
            colour = BUTTON_COLOURS.get(action)
            if colour:
                button.setStyleSheet(
                    f"QPushButton:enabled {{ color: {colour}; font-weight: bold; }}"
                )
            button.clicked.connect(lambda _checked=False, a=action: self._machine.handle(a))
            machine.control(action, button)
            self.buttons[action] = button
            row, column = divmod(position, DECISIONS_PER_ROW)
            layout.addWidget(button, row, column)
        # While editing, the two ways out of the editor are buttons too (not only keys).
        for column, action in enumerate(EDIT_ACTIONS):
            button = QPushButton(button_text(action), self)
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            button.setToolTip(key_tip(action))
            button.clicked.connect(lambda _checked=False, a=action: self._machine.handle(a))
            machine.control(action, button)
            self.buttons[action] = button
            layout.addWidget(button, 2, column * 2, 1, 2)
        machine.editing_changed.connect(self.show_editing)
        self.show_editing(machine.state is State.EDIT)

    def show_editing(self, editing: bool) -> None:
        """While editing, only the editor's two ways out (two rows of greyed-out decisions
        stood over them and took the editor's height)."""
        for action, button in self.buttons.items():
            button.setVisible(editing == (action in EDIT_ACTIONS))


OTHER_KEY = "X"  # the last reason, "Other": after the digits 1-9 and 0 of the others


def reason_keys(reasons: list[str]) -> list[str]:
    """The key of each reason: 1-9 then 0 in order, X for the last ("Other"); a reason past the
    tenth before it would have none (the arrows and Enter reach it)."""
    digits = [str(n % 10) for n in range(1, 11)]
    keys = [digits[i] if i < len(digits) else "" for i in range(len(reasons) - 1)]
    return [*keys, OTHER_KEY]


class RejectDialog(QDialog):
    """The fixed reasons keyed 1-9, 0 and X (Other), and a note; a key picks a reason, Enter
    confirms."""

    chosen = Signal(str, str)  # reason id, note

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Reject item")
        self.reasons = list(REJECT_REASONS)
        self.keys = reason_keys(self.reasons)
        self.list = QListWidget(self)
        for key, reason in zip(self.keys, self.reasons, strict=True):
            self.list.addItem(f"{key}  {REJECT_REASONS[reason]}")
        self.list.setCurrentRow(0)
        self.list.installEventFilter(self)
        self.note = QLineEdit(self)
        self.note.setPlaceholderText("Note (optional; needed for 'Other')")
        self.warning = QLabel("", self)
        self.warning.setStyleSheet("color: #c62828;")
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self
        )
        buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Reject [Enter]")
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(
            QLabel("Reason (press 1-9, 0 or X), then a note; Enter rejects, Esc cancels", self)
        )
        layout.addWidget(self.list)
        layout.addWidget(self.note)
        layout.addWidget(self.warning)
        layout.addWidget(buttons)
        self.list.setFocus()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """A reason's key on the list picks it (the list would use it to search)."""
        if watched is self.list and event.type() == QEvent.Type.KeyPress:
            assert isinstance(event, QKeyEvent)
            text = event.text().upper()
            if text and text in self.keys:  # ("" is no key)
                self.list.setCurrentRow(self.keys.index(text))
                self.note.setFocus()
                return True
        return super().eventFilter(watched, event)

    def reason(self) -> str:
        return self.reasons[max(self.list.currentRow(), 0)]

    def accept(self) -> None:
        if self.reason() == "other" and not self.note.text().strip():
            self.warning.setText("'Other' needs a note saying why.")
            self.note.setFocus()
            return
        self.chosen.emit(self.reason(), self.note.text().strip())
        super().accept()


class NoteDialog(QDialog):
    """Shift+A: the note an accept carries; Enter accepts, Esc cancels."""

    chosen = Signal(str)  # the note

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Accept with a note")
        self.note = QLineEdit(self)
        self.note.setPlaceholderText("Why it is fine as it is, what you checked…")
        self.note.setMinimumWidth(420)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self
        )
        buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Accept [Enter]")
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("A note with your accept; Enter accepts, Esc cancels", self))
        layout.addWidget(self.note)
        layout.addWidget(buttons)
        self.note.setFocus()

    def accept(self) -> None:
        self.chosen.emit(self.note.text().strip())
        super().accept()
