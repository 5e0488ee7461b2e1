"""Guards against a broken Qt binding.

PySide6 6.12.0 drops a reference to ``None`` on every call of a void method; on CPython 3.11,
where ``None`` is not immortal, a few seconds of repainting abort the interpreter
("Fatal Python error: none_dealloc"). pyproject.toml excludes that release; this test fails if a
release with the same fault comes back.
"""

from __future__ import annotations

import sys

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QLabel
from pytestqt.qtbot import QtBot


def test_void_calls_keep_none_alive(qtbot: QtBot) -> None:
    label = QLabel()
    qtbot.addWidget(label)
    holder = QObject()
    before = sys.getrefcount(None)
    for n in range(2000):
        holder.setObjectName(f"n{n % 3}")
        label.setText("plain")
        label.update()
    assert sys.getrefcount(None) >= before - 50  # a little slack for unrelated allocations
