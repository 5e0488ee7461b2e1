"""The desk's one shortcut table and the small state machine that gates it (after Anki's reviewer).

Every key the desk answers to is listed in ``SHORTCUTS`` with the states in which it acts; the
buttons, the help overlay and the testing hook are generated from the same table. A key that is
not valid in the current state (in particular any decision key while a write is in flight) is
ignored, so a curator who hits A twice cannot decide two items by accident.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QWidget


class State(StrEnum):
    EMPTY = "empty"  # no item to show
    BLIND = "blind"  # blind mode: the curator must answer (1-4) before the gold is shown
    REVIEW = "review"  # an item is shown, decisions allowed
    EDIT = "edit"  # the in-place editor is open
    REJECT = "reject"  # the reject-reason chooser is open
    NOTE = "note"  # the note of an accept is being written
    WRITING = "writing"  # a write is in flight: decision and navigation keys are ignored
    READ_ONLY = "read-only"  # the project is open read-only: navigation only


S = State
SHOWING = frozenset({S.BLIND, S.REVIEW, S.READ_ONLY})
IDLE = frozenset({S.EMPTY, S.BLIND, S.REVIEW, S.READ_ONLY})
ANYTIME = frozenset(State) - {S.WRITING}


@dataclass(frozen=True)
class Shortcut:
    action: str
    keys: tuple[str, ...]  # QKeySequence strings; the first one is shown on buttons
    label: str
    states: frozenset[State]
    group: str = "Review"
    short: str = ""  # a shorter label for the button, when the full one does not fit


SHORTCUTS: tuple[Shortcut, ...] = (
    Shortcut("accept", ("A",), "Accept", frozenset({S.REVIEW}), "Decide"),
    Shortcut("accept_note", ("Shift+A",), "Accept with a note", frozenset({S.REVIEW}), "Decide"),
    Shortcut("edit", ("E",), "Edit", frozenset({S.REVIEW}), "Decide"),
    Shortcut("reject", ("R",), "Reject", frozenset({S.REVIEW}), "Decide"),
    Shortcut("skip", ("S",), "Skip", frozenset({S.REVIEW, S.BLIND}), "Decide"),
    Shortcut("uncertain", ("U",), "Uncertain", frozenset({S.REVIEW}), "Decide"),
    Shortcut("undo", ("Ctrl+Z",), "Undo", frozenset({S.EMPTY, S.BLIND, S.REVIEW}), "Decide"),
    Shortcut("choose_1", ("1",), "Answer A (blind) / gold A (edit)", frozenset({S.BLIND, S.EDIT})),
    Shortcut("choose_2", ("2",), "Answer B (blind) / gold B (edit)", frozenset({S.BLIND, S.EDIT})),
    Shortcut("choose_3", ("3",), "Answer C (blind) / gold C (edit)", frozenset({S.BLIND, S.EDIT})),
    Shortcut("choose_4", ("4",), "Answer D (blind) / gold D (edit)", frozenset({S.BLIND, S.EDIT})),
    Shortcut(
        "save_edit",
        ("Ctrl+Return", "Ctrl+Enter"),
        "Save edit and accept as revised",
        frozenset({S.EDIT}),
        "Edit",
        "Save and accept",
    ),
    Shortcut("cancel_edit", ("Escape",), "Cancel edit", frozenset({S.EDIT}), "Edit", "Cancel"),
    Shortcut("next", ("J", "Down"), "Next item", SHOWING | {S.EMPTY}, "Move", "Next"),
    Shortcut("previous", ("K", "Up"), "Previous item", SHOWING | {S.EMPTY}, "Move", "Prev"),
    Shortcut("play", ("Space",), "Play / pause the recording", SHOWING, "Listen"),
    Shortcut("seek_back", ("Left",), "Seek back 1 s", SHOWING, "Listen"),
    Shortcut("seek_forward", ("Right",), "Seek forward 1 s", SHOWING, "Listen"),
    Shortcut("seek_back_long", ("Shift+Left",), "Seek back 5 s", SHOWING, "Listen"),
    Shortcut("seek_forward_long", ("Shift+Right",), "Seek forward 5 s", SHOWING, "Listen"),
    Shortcut("stop", ("Shift+Space",), "Stop and rewind", SHOWING, "Listen"),
    Shortcut("slower", ("[",), "Slower playback (lower pitch)", SHOWING, "Listen"),
    Shortcut("faster", ("]",), "Faster playback", SHOWING, "Listen"),
    Shortcut("loop", ("O",), "Loop on / off (the box, or the whole clip)", SHOWING, "Listen"),
    Shortcut("measure", ("M",), "Measuring box on / off (or Shift+drag)", SHOWING, "Listen"),
    Shortcut("zoom_selection", ("Z",), "Zoom to the measuring box", SHOWING, "Listen"),
    Shortcut("zoom_all", ("0",), "Show the whole recording (zoom out)", SHOWING, "Listen"),
    Shortcut(
        "play_species",
        ("H",),
        "Play from where BirdNET hears the item's species most",
        SHOWING,
        "Listen",
    ),
    Shortcut(
        "listen_wide",
        ("L",),
        "Listening layout (the recording gets the queue's width)",
        SHOWING | {S.EMPTY},
        "Listen",
    ),
    Shortcut("measure_all", ("Ctrl+Shift+L",), "Measure all clips", IDLE - {S.READ_ONLY}, "Listen"),
    Shortcut("search", ("/",), "Search the queue", IDLE, "Queue"),
    Shortcut("filter", ("Ctrl+F",), "Go to the filters", IDLE, "Queue"),
    Shortcut("blind", ("Ctrl+B",), "Blind mode on / off", IDLE, "Review"),
    Shortcut("curator", ("Ctrl+Shift+C",), "Change curator", IDLE, "Review"),
    Shortcut("ambiguity", ("Ctrl+Shift+A",), "Ambiguity queue", IDLE, "Windows"),
    Shortcut("adjudication", ("Ctrl+Shift+D",), "Adjudication (disputed items)", IDLE, "Windows"),
    Shortcut("agreement", ("Ctrl+Shift+K",), "Agreement (kappa)", IDLE, "Windows"),
    Shortcut("models", ("Ctrl+Shift+M",), "Models", IDLE, "Windows"),
    Shortcut("audit", ("Ctrl+Shift+U",), "Audit", IDLE, "Windows"),
    Shortcut("rejects", ("Ctrl+Shift+R",), "Rejected lines (by file)", IDLE, "Windows"),
    Shortcut("team", ("Ctrl+Shift+T",), "Team (the review plan, who has what)", IDLE, "Windows"),
    Shortcut("plan", ("Ctrl+Shift+P",), "Plan the review (in the Team window)", IDLE, "Review"),
    Shortcut("new", ("Ctrl+N",), "New project", IDLE, "File"),
    Shortcut("open", ("Ctrl+O",), "Open project", IDLE, "File"),
    Shortcut("import", ("Ctrl+I",), "Import", IDLE - {S.READ_ONLY}, "File"),
    Shortcut("export", ("Ctrl+E",), "Export the release", IDLE, "File"),
    Shortcut("merge", ("Ctrl+M",), "Merge curators' files", IDLE - {S.READ_ONLY}, "File"),
    Shortcut("save_copy", ("Ctrl+Shift+S",), "Save a copy of the project", IDLE, "File"),
    Shortcut("help", ("F1", "?"), "Keyboard shortcuts", ANYTIME, "Help"),
    Shortcut("quit", ("Ctrl+Q",), "Quit (waits for the last write)", ANYTIME, "File"),
)

BY_ACTION: dict[str, Shortcut] = {s.action: s for s in SHORTCUTS}

# What the mouse does on the spectrogram (Raven's and Audacity's habits), listed by F1 after the
# keys: gestures of the plot, not keys of the desk, so no QShortcut is made of them.
MOUSE: tuple[tuple[str, str], ...] = (
    ("Wheel", "Zoom time"),
    ("Shift+wheel", "Zoom frequency"),
    ("Drag", "Pan"),
    ("Shift+drag", "Measuring box (a plain drag while M is on)"),
    ("Click", "Play from there"),
)


def key_hint(action: str) -> str:
    """'[A]': the first key of ``action`` as the desk shows a key in its text, on buttons
    ('Accept [A]') and in the lines that name a key ('play it [H]')."""
    return f"[{BY_ACTION[action].keys[0]}]"


def key_tip(action: str) -> str:
    """'Accept (A)': what ``action`` does and its first key, as a tooltip says it."""
    shortcut = BY_ACTION[action]
    return f"{shortcut.label} ({shortcut.keys[0]})"


def button_text(action: str) -> str:
    """'Accept [A]': the label and first key of ``action``, as shown on its button."""
    shortcut = BY_ACTION[action]
    return f"{shortcut.short or shortcut.label} {key_hint(action)}"


def action_for_key(key: str) -> str | None:
    """The action bound to a key sequence string ('A', 'Ctrl+Z'), or None."""
    for shortcut in SHORTCUTS:
        if key in shortcut.keys:
            return shortcut.action
    return None


class ReviewMachine(QObject):
    """Holds the desk's state and dispatches actions allowed in it to their handlers."""

    state_changed = Signal(str)
    editing_changed = Signal(bool)  # the editor opened (True) or closed (False)
    ignored = Signal(str)  # an action refused in the current state

    def __init__(self, initial: State = State.EMPTY) -> None:
        super().__init__()
        self._state = initial
        self._handlers: dict[str, Callable[[], None]] = {}
        self._controls: list[tuple[frozenset[State], QWidget]] = []

    @property
    def state(self) -> State:
        return self._state

    def set_state(self, state: State) -> None:
        if state != self._state:
            editing = self._state is State.EDIT
            self._state = state
            for states, widget in self._controls:
                widget.setEnabled(state in states)
            if editing != (state is State.EDIT):
                self.editing_changed.emit(not editing)
            self.state_changed.emit(state.value)

    def control(self, action: str, widget: QWidget) -> None:
        """``widget`` (a button) carries out ``action``: it is enabled exactly in the states the
        table gives the action, as a QAction is (the machine sets it as the state changes)."""
        states = BY_ACTION[action].states
        self._controls.append((states, widget))
        widget.setEnabled(self._state in states)

    def on(self, action: str, handler: Callable[[], None]) -> None:
        if action not in BY_ACTION:
            raise KeyError(action)
        self._handlers[action] = handler

    def bound(self, action: str) -> bool:
        """Whether something carries ``action`` out (a key in the table with no handler would
        be a dead key)."""
        return action in self._handlers

    def allowed(self, action: str) -> bool:
        return self._state in BY_ACTION[action].states and action in self._handlers

    def handle(self, action: str) -> bool:
        """Run ``action`` if the current state allows it; return whether it ran."""
        if not self.allowed(action):
            self.ignored.emit(action)
            return False
        self._handlers[action]()
        return True
