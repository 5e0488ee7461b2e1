"""The keyboard-shortcuts overlay, generated from the one shortcut table (never kept by hand)."""

from __future__ import annotations

import itertools

from PySide6.QtCore import QSize
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QPlainTextEdit, QVBoxLayout, QWidget

from bagel_studio.ui.secondary import useful_size
from bagel_studio.ui.shortcuts import MOUSE, SHORTCUTS

MOUSE_HEADING = "ON THE SPECTROGRAM (MOUSE)"


def shortcut_lines() -> list[str]:
    """One line per action, each group once (in the order groups first appear in the table), the
    keys in a column wide enough for the longest so that keys and descriptions never run together:
    'A                       Accept'."""
    return _in_columns(_key_groups())


def help_lines() -> list[str]:
    """What F1 shows: the keys (as ``shortcut_lines``), then what the mouse does on the
    spectrogram, the descriptions of both in one column."""
    groups = _key_groups()
    groups[MOUSE_HEADING] = list(MOUSE)
    return _in_columns(groups)


def _key_groups() -> dict[str, list[tuple[str, str]]]:
    groups: dict[str, list[tuple[str, str]]] = {}
    for shortcut in SHORTCUTS:
        keys = " / ".join(shortcut.keys)
        groups.setdefault(shortcut.group.upper(), []).append((keys, shortcut.label))
    return groups


def _in_columns(groups: dict[str, list[tuple[str, str]]]) -> list[str]:
    width = max(len(keys) for rows in groups.values() for keys, _label in rows) + 3
    lines: list[str] = []
    for group, rows in groups.items():
        lines.extend(["", group] if lines else [group])
        lines.extend(f"  {keys:<{width}}{label}" for keys, label in rows)
    return lines


def side_by_side(lines: list[str], gap: int = 4) -> list[str]:
    """The groups of ``lines`` in two columns, split at the group boundary nearest the middle
    (so a screen of 800 px shows every key without scrolling)."""
    starts = [n for n, line in enumerate(lines) if line and not line.startswith(" ")]
    split = min(starts[1:] or [len(lines)], key=lambda n: abs(n - len(lines) / 2))
    left, right = lines[:split], lines[split:]
    while left and not left[-1]:
        left.pop()
    width = max(len(line) for line in left) + gap
    return [
        f"{a:<{width}}{b}".rstrip() for a, b in itertools.zip_longest(left, right, fillvalue="")
    ]


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
        lines = help_lines()
        metrics = self.text.fontMetrics()  # wide enough for the longest line, no sideways scroll
        room = useful_size(QSize(10_000, 10_000), parent)
        if metrics.lineSpacing() * (len(lines) + 2) + 80 > room.height():
            paired = side_by_side(lines)  # two columns, when the screen is wide enough
            if max(metrics.horizontalAdvance(line) for line in paired) + 60 <= room.width():
                lines = paired
        self.text.setPlainText("\n".join(lines))
        self.text.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        widest = max(metrics.horizontalAdvance(line) for line in lines)
        tall = metrics.lineSpacing() * (len(lines) + 2)
        self.resize(useful_size(QSize(max(520, widest + 60), max(560, tall + 80)), parent))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.text)
        layout.addWidget(buttons)
