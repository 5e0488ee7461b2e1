"""Plain keys for the widget that has the focus, not for the desk's one-key shortcuts.

The desk binds single letters and arrows window-wide. A text field claims those keys itself (Qt's
ShortcutOverride), but a combo box does not: with a filter combo focused, Down moved to the next
item instead of the next choice, and typing 's' to pick 'skipped' skipped the item on screen.
``keep_plain_keys`` makes a widget claim them the way a text field does; chords (Ctrl+Z, Ctrl+F)
and function keys still reach the desk.

A text field, for its part, claims some chords the desk binds: on X11 Qt's line edit takes Ctrl+E
(end of line, an Emacs binding), so Export did nothing from the search field.
``give_chords_to_the_desk`` hands the desk's own chords back, except the editing keys every text
field offers in its context menu (undo, redo, cut, copy, paste, select all): Ctrl+Z in the search
field undoes the typing, never a decision.
"""

from __future__ import annotations

from collections.abc import Iterable

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QKeyEvent, QKeySequence
from PySide6.QtWidgets import QWidget

NAVIGATION_KEYS = frozenset(
    {
        Qt.Key.Key_Up,
        Qt.Key.Key_Down,
        Qt.Key.Key_Left,
        Qt.Key.Key_Right,
        Qt.Key.Key_PageUp,
        Qt.Key.Key_PageDown,
        Qt.Key.Key_Home,
        Qt.Key.Key_End,
        Qt.Key.Key_Space,
    }
)
CHORD_MODIFIERS = (
    Qt.KeyboardModifier.ControlModifier
    | Qt.KeyboardModifier.AltModifier
    | Qt.KeyboardModifier.MetaModifier
)


class _PlainKeys(QObject):
    def __init__(self, parent: QWidget, typing: bool) -> None:
        super().__init__(parent)
        self.typing = typing

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() != QEvent.Type.ShortcutOverride:
            return False
        assert isinstance(event, QKeyEvent)
        if event.modifiers() & CHORD_MODIFIERS:
            return False
        text = event.text()
        typed = self.typing and bool(text) and text.isprintable()
        if typed or event.key() in NAVIGATION_KEYS:
            event.accept()  # the widget gets the key press; the shortcut does not fire
            return True
        return False


def keep_plain_keys(widget: QWidget, *, typing: bool = True) -> None:
    """Let ``widget`` have its arrows, Space and (with ``typing``) printable keys while focused."""
    widget.installEventFilter(_PlainKeys(widget, typing))


FIELD_EDITING_KEYS = (  # a text field's context menu: these chords stay the field's
    QKeySequence.StandardKey.Undo,
    QKeySequence.StandardKey.Redo,
    QKeySequence.StandardKey.Cut,
    QKeySequence.StandardKey.Copy,
    QKeySequence.StandardKey.Paste,
    QKeySequence.StandardKey.SelectAll,
)


class _DeskChords(QObject):
    def __init__(self, parent: QWidget, keys: Iterable[str]) -> None:
        super().__init__(parent)
        self.keys = {QKeySequence(key) for key in keys}

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() != QEvent.Type.ShortcutOverride:
            return False
        assert isinstance(event, QKeyEvent)
        if not event.modifiers() & CHORD_MODIFIERS:
            return False  # plain keys type
        if QKeySequence(event.keyCombination()) not in self.keys:
            return False
        if any(event.matches(key) for key in FIELD_EDITING_KEYS):
            return False
        event.ignore()  # not the field's: Qt goes on to the desk's shortcut
        return True


def give_chords_to_the_desk(widget: QWidget, keys: Iterable[str]) -> None:
    """Let the chords among ``keys`` (QKeySequence strings: 'Ctrl+E') reach the desk's shortcuts
    while ``widget`` (a text field) has the focus; its plain keys and editing chords stay its."""
    widget.installEventFilter(_DeskChords(widget, keys))
