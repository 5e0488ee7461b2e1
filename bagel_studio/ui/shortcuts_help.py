"""The keyboard-shortcuts overlay, generated from the one shortcut table (never kept by hand)."""

from __future__ import annotations

from PySide6.QtCore import QSize
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QPlainTextEdit, QVBoxLayout, QWidget

from bagel_studio.ui.secondary import useful_size
from bagel_studio.ui.shortcuts import SHORTCUTS


def shortcut_lines() -> list[str]:
    """One line per action, each group once (in the order groups first appear in the table), the
    keys in a column wide enough for the longest so that keys and descriptions never run together:
    'A                       Accept'."""
    groups: dict[str, list[tuple[str, str]]] = {}
    for shortcut in SHORTCUTS:
        keys = " / ".join(shortcut.keys)
        groups.setdefault(shortcut.group, []).append((keys, shortcut.label))
    width = max(len(keys) for rows in groups.values() for keys, _label in rows) + 3
    lines: list[str] = []
    for group, rows in groups.items():
        lines.extend(["", group.upper()] if lines else [group.upper()])
        lines.extend(f"  {keys:<{width}}{label}" for keys, label in rows)
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
        lines = shortcut_lines()
        self.text.setPlainText("\n".join(lines))
        self.text.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        metrics = self.text.fontMetrics()  # wide enough for the longest line, no sideways scroll
        widest = max(metrics.horizontalAdvance(line) for line in lines)
        tall = metrics.lineSpacing() * (len(lines) + 2)
        self.resize(useful_size(QSize(max(520, widest + 60), max(560, tall + 80)), parent))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.text)
        layout.addWidget(buttons)
