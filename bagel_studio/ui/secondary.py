"""Secondary windows (ambiguity, adjudication, agreement, export, help) open at a size their
content fits and close from the keyboard: Esc and Ctrl+W, like any other desktop window.

A top-level QWidget opened by ``show()`` takes the size of its layout's hint (316x280 for the
ambiguity queue, its content clipped) and ignores Esc; ``make_secondary`` gives it a size that is a
share of the screen it opens on (never larger than the screen) and the two closing keys.
"""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QGuiApplication, QKeySequence, QShortcut
from PySide6.QtWidgets import QAbstractButton, QWidget

CLOSE_KEYS = ("Escape", "Ctrl+W")
DEFAULT_SIZE = QSize(1100, 720)
SCREEN_SHARE = 0.9  # a secondary window never covers more than this share of the screen


def useful_size(wanted: QSize, widget: QWidget | None = None, share: float = SCREEN_SHARE) -> QSize:
    """``wanted``, shrunk to ``share`` of the screen (the widget's, or the primary one)."""
    screen = widget.screen() if widget is not None else QGuiApplication.primaryScreen()
    if screen is None:
        return wanted
    room = screen.availableGeometry().size()
    return QSize(
        min(wanted.width(), int(room.width() * share)),
        min(wanted.height(), int(room.height() * share)),
    )


def add_close_keys(window: QWidget) -> list[QShortcut]:
    """Esc and Ctrl+W close ``window`` (a dialog's own Esc handling is kept: it closes too)."""
    shortcuts = []
    for key in CLOSE_KEYS:
        shortcut = QShortcut(QKeySequence(key), window)
        shortcut.setObjectName("close")
        shortcut.setContext(Qt.ShortcutContext.WindowShortcut)
        shortcut.activated.connect(window.close)
        shortcuts.append(shortcut)
    return shortcuts


def make_secondary(window: QWidget, wanted: QSize = DEFAULT_SIZE) -> None:
    """Size ``window`` usefully (at least its layout's hint) and let the keyboard close it."""
    hint = window.sizeHint()
    size = QSize(max(wanted.width(), hint.width()), max(wanted.height(), hint.height()))
    window.resize(useful_size(size, window))
    add_close_keys(window)


def add_button_key(
    window: QWidget, button: QAbstractButton, key: str, action: str | None = None
) -> QShortcut:
    """``key`` anywhere in ``window`` clicks ``button`` (when it is enabled), and the button
    says so: 'Save profile [Ctrl+S]', the key in its tooltip too. The shortcut is named after
    ``action`` (the desk's action the button repeats, as the adjudication's Merge does the
    desk's ``merge``), else after the button's label: a key the desk binds to another action
    is a clash (``tests/ui/test_window_keys.py``)."""
    shortcut = QShortcut(QKeySequence(key), window)
    shortcut.setObjectName(action or button.text().replace("&", "").rstrip("…"))
    shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
    shortcut.activated.connect(lambda: button.click() if button.isEnabled() else None)
    button.setText(f"{button.text()} [{key}]")
    tip = button.toolTip()
    button.setToolTip(f"{tip} ({key})" if tip else key)
    return shortcut
