"""No key of the desk means two things: every shortcut of the main window (its table, its
menus, the listening panel) and of each window opened from it (ambiguity, adjudication,
agreement, models, audit, export, help) is collected from the live widgets, and a key bound to
two actions where both can be reached at once is a clash.

Within one window every key has one action. Between the desk and a window opened from it, a
chord (Ctrl or Meta, or a function key) has one action too: a curator who exports with Ctrl+E in
the desk must not start a model run with it in the models window. Plain keys (J, K, 1-9, Esc)
are each window's own, as its hint line says, and so are the Alt+letter mnemonics of menus,
buttons and fields, which underline their letter in the window they act in.

A key has one owner, too: two registrations of one key in one window, even for the same action
(the desk's shortcut table and a menu entry that repeats it), are two shortcuts Qt sees at once
wherever both are in context, and it runs neither ("Ambiguous shortcut overload: Ctrl+Q" with the
menu bar focused)."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import pytest
from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QAction, QKeySequence, QShortcut
from PySide6.QtWidgets import QAbstractButton, QApplication, QLabel, QMenuBar, QWidget

from bagel_studio.ui.desk_menus import PANELS
from tests.ui.desk_harness import close_desk, listening_panel, open_desk, open_window

WINDOWS = [*PANELS, "export", "help"]
CHORD_MODIFIERS = ("Ctrl+", "Meta+")

Keys = dict[str, set[str]]  # key (portable text) -> the actions bound to it


def _owner(thing: QObject) -> QWidget | None:
    parent = thing.parent()
    while parent is not None and not isinstance(parent, QWidget):
        parent = parent.parent()
    return parent.window() if isinstance(parent, QWidget) else None


def _name(thing: QObject, fallback: str) -> str:
    return thing.objectName() or f"{fallback} {id(thing):x}"  # unnamed: an action of its own


def window_keys(window: QWidget) -> Keys:
    """Every key ``window`` itself answers to (not those of the windows it opened), with the
    actions bound to it: shortcuts, actions, buttons' keys, and the mnemonics of its menus and
    of the labels that lead to a field."""
    keys: Keys = defaultdict(set)

    def add(sequence: QKeySequence, action: str) -> None:
        if not sequence.isEmpty():
            keys[sequence.toString(QKeySequence.SequenceFormat.PortableText)].add(action)

    for shortcut in window.findChildren(QShortcut):
        if _owner(shortcut) is window:
            for sequence in shortcut.keys():  # noqa: SIM118 (a QShortcut, not a dict)
                add(sequence, _name(shortcut, "shortcut"))
    for action in window.findChildren(QAction):
        if _owner(action) is window:
            for sequence in action.shortcuts():
                add(sequence, _name(action, action.text()))
    for button in window.findChildren(QAbstractButton):
        if button.window() is window:
            add(button.shortcut(), f"button {button.text()}")
    for label in window.findChildren(QLabel):
        if label.window() is window and label.buddy() is not None:
            add(QKeySequence.mnemonic(label.text()), f"field {label.text()}")
    for bar in window.findChildren(QMenuBar):
        if bar.window() is window:
            for action in bar.actions():
                add(QKeySequence.mnemonic(action.text()), f"menu {action.text()}")
    return keys


def registrations(window: QWidget) -> dict[str, list[str]]:
    """Every registration of a key in ``window`` (shortcuts, actions, buttons): what Qt's
    shortcut map holds for it, one entry per object and key, whatever the action's name."""
    found: dict[str, list[str]] = defaultdict(list)

    def add(sequence: QKeySequence, owner: str) -> None:
        if not sequence.isEmpty():
            found[sequence.toString(QKeySequence.SequenceFormat.PortableText)].append(owner)

    for shortcut in window.findChildren(QShortcut):
        if _owner(shortcut) is window:
            for sequence in shortcut.keys():  # noqa: SIM118 (a QShortcut, not a dict)
                add(sequence, f"shortcut {_name(shortcut, 'shortcut')}")
    for action in window.findChildren(QAction):
        if _owner(action) is window:
            for sequence in action.shortcuts():
                add(sequence, f"action {_name(action, action.text())}")
    for button in window.findChildren(QAbstractButton):
        if button.window() is window:
            add(button.shortcut(), f"button {button.text()}")
    return found


def registered_twice(window: QWidget) -> list[str]:
    return [f"{key}: {owners}" for key, owners in registrations(window).items() if len(owners) > 1]


def is_chord(key: str) -> bool:
    return key.startswith(CHORD_MODIFIERS) or (key[:1] == "F" and key[1:].isdigit())


def clashes(desk: Keys, window: Keys) -> list[str]:
    """The keys of ``window`` bound to two actions, and its chords the desk binds otherwise."""
    found = [f"{key}: {sorted(actions)}" for key, actions in window.items() if len(actions) > 1]
    found += [
        f"{key}: the desk's {sorted(desk[key])}, the window's {sorted(actions)}"
        for key, actions in window.items()
        if is_chord(key) and key in desk and desk[key] != actions
    ]
    return found


def test_the_clash_check_sees_a_clash() -> None:
    """The check itself: Ctrl+E for Evaluate beside the desk's Ctrl+E for export is one."""
    desk = {"Ctrl+E": {"export"}, "J": {"next"}}
    assert clashes(desk, {"Ctrl+E": {"Evaluate all items"}, "J": {"step 1"}}) == [
        "Ctrl+E: the desk's ['export'], the window's ['Evaluate all items']"
    ]
    assert clashes(desk, {"F5": {"a", "b"}}) == ["F5: ['a', 'b']"]
    assert clashes(desk, {"Ctrl+E": {"export"}, "Ctrl+R": {"Evaluate all items"}}) == []


@pytest.mark.parametrize("name", WINDOWS)  # every panel, the future ones too
def test_no_window_opened_from_the_desk_reuses_a_desk_key(
    qtbot, demo_copy: Path, name: str
) -> None:
    window = open_desk(qtbot, demo_copy)
    listening_panel(qtbot, window)  # the listening panel is the desk's: its keys are too
    desk = window_keys(window)
    assert not clashes({}, desk), "the desk binds a key twice"
    assert registered_twice(window) == [], "a desk key has two owners"
    assert {"Ctrl+E", "Ctrl+M", "Ctrl+Shift+M", "Space", "Alt+F"} <= set(desk)
    panel = open_window(qtbot, window, name)
    keys = window_keys(panel)
    assert {"Esc", "Ctrl+W"} <= set(keys)  # every window closes from the keyboard
    assert clashes(desk, keys) == []
    assert registered_twice(panel) == []
    panel.close()
    close_desk(window)


def test_evaluate_has_its_own_key_and_merge_shares_the_desks(qtbot, demo_copy: Path) -> None:
    window = open_desk(qtbot, demo_copy)
    desk = window_keys(window)
    window.menus.open_panel("models")
    models = window_keys(window.menus.panels["models"])
    assert models["Ctrl+R"] == {"Evaluate all items"} and "Ctrl+E" not in models
    window.menus.open_panel("adjudication")
    adjudication = window_keys(window.menus.panels["adjudication"])
    assert adjudication["Ctrl+M"] == desk["Ctrl+M"] == {"merge"}  # the same action: no clash
    for panel in list(window.menus.panels.values()):
        panel.close()
    close_desk(window)


def test_the_owner_check_sees_a_key_registered_twice(qtbot) -> None:
    """The check itself: a menu entry repeating a shortcut's key for the same action is two."""
    window = QWidget()
    qtbot.addWidget(window)
    shortcut = QShortcut(QKeySequence("Ctrl+Q"), window)
    shortcut.setObjectName("quit")
    action = QAction("Quit", window)
    action.setObjectName("quit")
    action.setShortcut(QKeySequence("Ctrl+Q"))
    assert registered_twice(window) == ["Ctrl+Q: ['shortcut quit', 'action quit']"]


def test_ctrl_q_quits_with_the_menu_bar_focused(qtbot, demo_copy: Path) -> None:
    """With the menu bar focused (Alt pressed, a menu walked with the arrows), the File menu's
    entries are in context as well as the desk's own shortcuts: Ctrl+Q still quits."""
    window = open_desk(qtbot, demo_copy)
    bar = window.menuBar()
    bar.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is bar)
    qtbot.keyClick(bar, Qt.Key.Key_Q, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: not window.isVisible())
    close_desk(window)
