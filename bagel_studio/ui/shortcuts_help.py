"""The keyboard-shortcuts overlay, generated from the one shortcut table (never kept by hand)."""

from __future__ import annotations

from PySide6.QtWidgets import QDialog, QDialogButtonBox, QPlainTextEdit, QVBoxLayout, QWidget

from bagel_studio.ui.shortcuts import SHORTCUTS


def shortcut_lines() -> list[str]:
    """One line per action, grouped: 'A            Accept'."""
    lines: list[str] = []
    group = None
    for shortcut in SHORTCUTS:
        if shortcut.group != group:
            group = shortcut.group
            lines.extend(["", group.upper()] if lines else [group.upper()])
        keys = " / ".join(shortcut.keys)
        lines.append(f"  {keys:<24}{shortcut.label}")
    return lines


class ShortcutsHelp(QDialog):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Keyboard shortcuts")
        self.setMinimumSize(520, 560)
        self.text = QPlainTextEdit(self)
        self.text.setReadOnly(True)
        font = self.text.font()
        font.setFamily("monospace")
        self.text.setFont(font)
        self.text.setPlainText("\n".join(shortcut_lines()))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.text)
        layout.addWidget(buttons)
