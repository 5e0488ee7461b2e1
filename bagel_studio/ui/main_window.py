"""The review desk: queue on the left, the item in the centre, its evidence on the right.

The window is handed its ``Services`` (store, preferences, executors) by the app and builds its
widgets around them; the keys come from the one shortcut table in ``shortcuts.py`` and are bound as
window-wide QShortcuts that go through the review machine, so a key works wherever the focus is
except while typing in a text field. Every write, the desk's own or another window's, ends in
``apply_changes``, which redraws what its change set names.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path

from PySide6.QtCore import QByteArray, QSettings, QSize, Qt, QTimer
from PySide6.QtGui import QCloseEvent, QKeySequence, QShortcut, QShowEvent
from PySide6.QtWidgets import QApplication, QLabel, QMainWindow, QSplitter, QVBoxLayout, QWidget

from bagel_studio.core.changes import Changes, Part
from bagel_studio.core.llm.desk import model_choice_lines
from bagel_studio.core.store import QueueFilter
from bagel_studio.ui.decision_bar import DecisionBar
from bagel_studio.ui.desk_menus import DeskMenus
from bagel_studio.ui.evidence_view import EvidencePanel
from bagel_studio.ui.item_view import ItemView
from bagel_studio.ui.queue_model import QueueModel
from bagel_studio.ui.queue_panel import QueuePanel
from bagel_studio.ui.review_controller import ReviewController
from bagel_studio.ui.secondary import useful_size
from bagel_studio.ui.services import Services
from bagel_studio.ui.shortcuts import BY_ACTION, SHORTCUTS, SHOWING, ReviewMachine, State

DESK_SIZE = QSize(1600, 1000)  # the first size of the window, shrunk to fit a smaller screen
FRAME_CHECKS_MS = (0, 300)  # after the first show: when the window manager's frame is known
COLUMN_SHARES = (0.4, 0.3, 0.3)  # queue, item, evidence
SEEK_SECONDS = 1.0
LONG_SEEK_SECONDS = 5.0  # with Shift
RECORDING_TAB = 2
OpenProject = Callable[[Path, bool], object]
STATE_TEXT = {  # the status bar's right end: what the keys do now
    State.EMPTY.value: "No item to show · Ctrl+I imports · F1 lists the keys",
    State.REVIEW.value: (
        "A accept · E edit · R reject · S skip · U uncertain · J/K move · / search · Ctrl+Z undo"
        " · F1 keys"
    ),
    State.BLIND.value: "Blind: answer 1-4 · S skip · J/K move · F1 keys",
    State.WRITING.value: "Saving…",
    State.EDIT.value: "Editing: Ctrl+Enter saves and accepts, Esc cancels",
    State.REJECT.value: "Reject: reason 1-9, 0 or X, Enter rejects, Esc cancels",
    State.NOTE.value: "Accept with a note: Enter accepts, Esc cancels",
    State.READ_ONLY.value: "Read-only: J/K move · F1 keys",
}
# No item because the filters or the search match none: an import is not what is needed.
EMPTY_FILTERED_TEXT = "No item matches the filters · Ctrl+F filters · / search · F1 keys"
# Where the item on screen has a recording, the hint names its key too (before "J/K move"),
# the key of the shortcut table (``play_hint``).
LISTENING_STATES = frozenset(state.value for state in SHOWING)  # where Space plays


def state_hint(state: str, has_recording: bool) -> str:
    """The status bar's key hint for ``state``, naming Space where the item has a recording."""
    text = STATE_TEXT.get(state, state)
    if has_recording and state in LISTENING_STATES and " · J/K move" in text:
        text = text.replace(" · J/K move", f" · {play_hint()} · J/K move", 1)
    return text


def play_hint() -> str:
    """'Space play': the key that plays, as the shortcut table binds it."""
    return f"{BY_ACTION['play'].keys[0]} play"


class MainWindow(QMainWindow):
    """The desk for one open project."""

    def __init__(
        self,
        services: Services,
        *,
        read_only: bool = False,
        open_project: OpenProject | None = None,
        settings: QSettings | None = None,
    ) -> None:
        super().__init__()
        self.services = services
        self.store = services.store
        self.read_only = read_only or bool(self.store.read_only)
        self.open_project = open_project
        self._settings = settings
        self.machine = ReviewMachine()
        self.listening_wide = False
        self._focus_before_wide: QWidget | None = None  # where the keys go back after L again
        self._normal_sizes: list[int] = []
        self.queue_model = QueueModel(
            self.store, blind=lambda: bool(services.prefs.blind_mode), counter=services.reader
        )
        self.queue = QueuePanel(self.queue_model, self.store, services.curator, self)
        if services.package is not None:
            self.queue.progress.set_package(services.curator)
        self.item_view = ItemView(self)
        self.item_view.model_lines = lambda item: model_choice_lines(self.store, item)
        self.evidence = EvidencePanel(services, self)
        self.decision_bar = DecisionBar(self.machine, self)
        self.controller = ReviewController(
            services,
            self.queue_model,
            self.queue,
            self.item_view,
            self.evidence,
            self.machine,
            read_only=self.read_only,
        )
        self.state_label = QLabel(self)
        self._progress: tuple[int, int, int] | None = None  # reviewed, total, mine
        self._shown_once = False
        self._fit_size: QSize | None = None  # the size the first show left (see fit_frame...)
        self._build_layout()
        self.shortcuts = self._bind_shortcuts()
        self.menus = DeskMenus(self, self)
        self._connect()
        self.update_title()
        self.update_progress()
        self.restore_geometry()
        self.controller.show_first()
        # The keys start on the queue: left to Qt, the focus went to the first filter combo,
        # which keeps plain keys for its type-ahead, and A, E, R, J did nothing.
        self.queue.focus_queue()
        self._prepare_listening()
        services.listen(self)
        services.report_failure = lambda error: self.show_status(f"Not saved: {error}")
        if not self.read_only:
            self.finish_pending_checks()

    # -- building ------------------------------------------------------------------------------

    def _prepare_listening(self) -> None:
        """Build the listening panel (pyqtgraph) in small steps while the desk is idle, from
        once the first item is on screen: whatever the curator does (an item shown, a filter, a
        review key, scrolling the queue) pushes the next step back, so no action waits on it
        (see listening_warmup)."""
        if self.evidence.listening is not None:
            return
        poke = self.evidence.listening_poke
        pokes = [
            (self.controller.item_shown, lambda _id: poke()),
            (self.queue_model.modelReset, poke),
            (self.machine.state_changed, lambda _state: poke()),
            (self.queue.filters.search.textChanged, lambda _text: poke()),
            (self.queue.table.verticalScrollBar().valueChanged, lambda _value: poke()),
        ]
        for signal, slot in pokes:
            signal.connect(slot)

        def built() -> None:  # nothing is left to push back: the curator's actions stop poking
            for signal, slot in pokes:
                signal.disconnect(slot)

        self.evidence.warmup.finished.connect(built)
        self.evidence.start_listening()

    def _build_layout(self) -> None:
        self.centre = centre = QWidget(self)
        column = QVBoxLayout(centre)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.item_view, 1)
        column.addWidget(self.decision_bar)
        self.splitter = QSplitter(Qt.Orientation.Horizontal, self)
        self.splitter.addWidget(self.queue)
        self.splitter.addWidget(centre)
        self.splitter.addWidget(self.evidence)
        self.splitter.setStretchFactor(0, 3)
        self.splitter.setStretchFactor(1, 4)
        self.splitter.setStretchFactor(2, 4)
        self.splitter.setChildrenCollapsible(False)
        self.queue.setMinimumWidth(300)
        centre.setMinimumWidth(380)
        self.evidence.setMinimumWidth(300)
        self.setCentralWidget(self.splitter)
        self.statusBar().addPermanentWidget(self.state_label)
        # On a screen smaller than the desk's size (1280x800) the window takes the screen
        # instead of running off its edge, with the columns in the same proportions.
        size = useful_size(DESK_SIZE, self, share=1.0)
        self.resize(size)
        self.splitter.setSizes([int(size.width() * s) for s in COLUMN_SHARES])

    def _bind_shortcuts(self) -> list[QShortcut]:
        shortcuts = []
        for entry in SHORTCUTS:
            for key in entry.keys:
                shortcut = QShortcut(QKeySequence(key), self)
                shortcut.setObjectName(entry.action)
                shortcut.setContext(Qt.ShortcutContext.WindowShortcut)
                shortcut.setAutoRepeat(False)
                shortcut.activated.connect(partial(self.machine.handle, entry.action))
                shortcuts.append(shortcut)
        m = self.machine
        m.on("play", lambda: self._listen("toggle_play"))
        m.on("seek_back", lambda: self._listen("seek_relative", -SEEK_SECONDS))
        m.on("seek_forward", lambda: self._listen("seek_relative", SEEK_SECONDS))
        m.on("seek_back_long", lambda: self._listen("seek_relative", -LONG_SEEK_SECONDS))
        m.on("seek_forward_long", lambda: self._listen("seek_relative", LONG_SEEK_SECONDS))
        m.on("stop", lambda: self._listen("stop"))
        m.on("slower", lambda: self._listen("step_speed", -1))
        m.on("faster", lambda: self._listen("step_speed", 1))
        m.on("loop", lambda: self._listen("toggle_loop"))
        m.on("measure", lambda: self._listen("toggle_measure"))
        m.on("play_species", lambda: self._listen("play_species"))
        m.on("zoom_selection", lambda: self._listen("zoom_to_selection"))
        m.on("zoom_all", lambda: self._listen("show_all"))
        m.on("listen_wide", self.toggle_listening_wide)
        m.on("search", self.focus_search)
        m.on("filter", lambda: self.queue.filters.domain.setFocus())
        return shortcuts

    def _connect(self) -> None:
        self.controller.status_message.connect(self.show_status)
        self.evidence.status_message.connect(self.show_status)
        self.queue_model.modelReset.connect(self.show_progress)
        self.queue_model.counted.connect(self.show_progress)
        self.machine.state_changed.connect(self._state_changed)
        # An empty queue says why (filters or no items) when the filters change, state or not.
        self.queue_model.modelReset.connect(lambda: self._state_changed(self.machine.state.value))
        self.controller.item_shown.connect(
            lambda _id: self._state_changed(self.machine.state.value)
        )
        self._state_changed(self.machine.state.value)

    # -- what tests and benchmarks drive -------------------------------------------------------

    def show_item(self, item_id: str) -> None:
        """Show one item by id (it need not be in the current queue)."""
        self.controller.show_item(item_id)

    def set_filter(self, queue_filter: QueueFilter) -> None:
        self.queue_model.set_filter(queue_filter)

    def current_item_id(self) -> str | None:
        return self.controller.item.id if self.controller.item else None

    # -- reactions -----------------------------------------------------------------------------

    def focus_search(self) -> None:
        self.queue.filters.search.setFocus()
        self.queue.filters.search.selectAll()

    def _listen(self, method: str, *args: float) -> None:
        if self.controller.item is None or not self.controller.item.recording_id:
            return
        panel = self.evidence.listening_now()  # asked for: built now if it was not yet
        if panel is None:
            self.show_status("Listening is not available in this build.")
            return
        getattr(panel, method)(*args)

    def _state_changed(self, state: str) -> None:
        item = self.controller.item
        has_recording = item is not None and bool(item.recording_id)
        if state == State.EMPTY.value and self.controller.model.filtered:
            self.state_label.setText(EMPTY_FILTERED_TEXT)
            return
        self.state_label.setText(state_hint(state, has_recording))

    def show_status(self, message: str) -> None:
        self.statusBar().showMessage(message, 6000)

    def update_progress(self) -> None:
        """Re-count what has been reviewed (after a write, an import, a change of curator)."""
        reviewed, total = self.store.reviews.progress()
        mine = self.store.reviews.progress(self.services.curator)[0] if self.services.curator else 0
        self._progress = (reviewed, total, mine)
        self.controller.left_to_decide = total - mine if self.services.prefs.curator else None
        self.show_progress()

    def show_progress(self) -> None:
        """The counts with the queue's length: a filter change counts only its own items."""
        if self._progress is None:
            self.update_progress()
            return
        shown = None if self.queue_model.counting else self.queue_model.rowCount()
        self.queue.progress.show_progress(*self._progress, shown)

    def update_title(self) -> None:
        suffix = " (read-only)" if self.read_only else ""
        curator = self.services.curator or "no curator"
        package = self.services.package
        if package is not None:
            curator = f"{curator}'s package, plan {package.get('plan')}"
        self.setWindowTitle(f"BAGEL Studio — {Path(self.store.path).name}{suffix} — {curator}")

    def apply_changes(self, changes: Changes, origin: object) -> None:
        """The desk's one answer to every write (its own, another window's, a run's): the queue's
        rows of the items that changed (all of them when every item may have), the filter choices
        when items or other curators' decisions arrived, the item on screen when someone else
        changed it (the desk's own decision moves on to the next item itself), and the progress
        when decisions or items did."""
        parts = changes.parts
        own = origin is self.controller
        if parts & Part.NEW or (parts & Part.REVIEWS and not own):
            self.queue.filters.refresh_choices()
        if changes.every_item and parts:
            self.queue_model.reload()
        else:
            self.queue_model.refresh_items(changes.item_ids(), parts)
        if not own:
            self.controller.show_changes(changes)
        if parts & (Part.STATUS | Part.REVIEWS | Part.NEW):
            self.update_progress()

    def finish_pending_checks(self) -> None:
        """Run the checks an interrupted import left undone (on the writer), and say so."""
        pending = self.store.flags.pending_check_ids()
        if not pending:
            return
        what = f"the checks of {len(pending):,} items an interrupted import left unchecked"
        self.show_status(f"Finishing {what}…")
        from bagel_studio.core.operations.project import recheck

        self.services.write(
            lambda: recheck(self.store, pending),
            origin=self,
            done=lambda _flags: self.show_status(f"Finished {what}."),
        )

    def open_from_elsewhere(self, item_id: str) -> None:
        """Another window (the ambiguity queue) asks the desk to show ``item_id``."""
        if self.controller.open_from_elsewhere(item_id):
            self.raise_()
            self.activateWindow()  # the desk's keys act in the active window

    def curator_changed(self) -> None:
        self.queue.filters.refresh_choices()
        self.controller.refresh_current()
        self.update_title()
        self.update_progress()

    # -- the listening layout ------------------------------------------------------------------

    def toggle_listening_wide(self) -> None:
        """L: hide the queue and keep the item at its narrowest, so the recording (spectrogram,
        transport, measurements side by side) gets the rest of the window; L again restores the
        columns as they were. The choice is remembered with the window's geometry."""
        self.set_listening_wide(not self.listening_wide)
        self.show_status(
            "Listening layout: L gives the queue back"
            if self.listening_wide
            else "Queue, item and evidence side by side"
        )

    def set_listening_wide(self, wide: bool) -> None:
        if wide == self.listening_wide:
            return
        self.listening_wide = wide
        if wide:
            self._normal_sizes = self.splitter.sizes()
            focus = QApplication.focusWidget()
            self._focus_before_wide = (
                focus if focus is not None and self.isAncestorOf(focus) else None
            )
            total = sum(self._normal_sizes)
            centre = self.centre.minimumWidth()
            self.queue.hide()
            self.splitter.setSizes([0, centre, max(0, total - centre)])
            if self.controller.item is not None and self.controller.item.recording_id:
                self.evidence.setCurrentIndex(RECORDING_TAB)
        else:
            self.queue.show()
            if self._normal_sizes:
                self.splitter.setSizes(self._normal_sizes)
            self._give_back_focus()

    def _give_back_focus(self) -> None:
        """L again: the keys go back where they were before L (the queue, as a rule). Hiding
        the queue moved the focus to the item's scroll area, and it stayed there once the queue
        was back: the queue's row lost its highlight."""
        before, self._focus_before_wide = self._focus_before_wide, None
        if before is not None and before.isVisible() and before.isEnabled():
            before.setFocus(Qt.FocusReason.OtherFocusReason)
        else:
            self.queue.focus_queue()

    # -- geometry ------------------------------------------------------------------------------

    def showEvent(self, event: QShowEvent) -> None:
        """The first time it is shown, the window's frame is fitted to the screen: its size was
        the screen's without the title bar the window manager adds (25 px too tall at 1280x800),
        which is known only once the window is on screen (and, with some window managers, a
        moment after)."""
        super().showEvent(event)
        if not self._shown_once:
            self._shown_once = True
            self._fit_size = self.size()
            for delay in FRAME_CHECKS_MS:
                QTimer.singleShot(delay, self, self.fit_frame_to_screen)

    def fit_frame_to_screen(self) -> None:
        """Shrink and move the window so that its frame lies within the screen's free area
        (never while maximized or full screen, where the window manager decides, nor once the
        curator has sized the window)."""
        if self.isMaximized() or self.isFullScreen() or not self.isVisible():
            return
        if self.size() != self._fit_size:  # sized since it was shown: the curator's choice
            return
        room = self.screen().availableGeometry()
        frame = self.frameGeometry()
        if room.contains(frame):
            return
        extra_width, extra_height = frame.width() - self.width(), frame.height() - self.height()
        width = min(self.width(), room.width() - extra_width)
        height = min(self.height(), room.height() - extra_height)
        self.resize(max(width, self.minimumWidth()), max(height, self.minimumHeight()))
        self._fit_size = self.size()
        frame = self.frameGeometry()
        left = min(max(frame.left(), room.left()), room.right() - frame.width() + 1)
        top = min(max(frame.top(), room.top()), room.bottom() - frame.height() + 1)
        self.move(max(left, room.left()), max(top, room.top()))

    def _qsettings(self) -> QSettings:
        return self._settings if self._settings is not None else QSettings()

    def restore_geometry(self) -> None:
        settings = self._qsettings()
        geometry = settings.value("desk/geometry")
        if isinstance(geometry, QByteArray):
            self.restoreGeometry(geometry)
        splitter = settings.value("desk/splitter")
        if isinstance(splitter, QByteArray):
            self.splitter.restoreState(splitter)
        self.queue.restore_column_state(settings.value("desk/queue_columns", ""))
        if str(settings.value("desk/listening_wide", "false")).lower() == "true":
            # once shown: the columns' sizes to come back to are only real after the layout
            QTimer.singleShot(0, lambda: self.set_listening_wide(True))

    def closeEvent(self, event: QCloseEvent) -> None:
        settings = self._qsettings()
        wide = self.listening_wide
        self.set_listening_wide(False)  # the columns are saved as they are without it
        settings.setValue("desk/geometry", self.saveGeometry())
        settings.setValue("desk/splitter", self.splitter.saveState())
        settings.setValue("desk/queue_columns", self.queue.column_state())
        settings.setValue("desk/listening_wide", "true" if wide else "false")
        settings.sync()
        try:
            self.evidence.shutdown()
        except Exception:
            self.show_status("The listening panel did not shut down cleanly")
        self.menus.close_panels()
        super().closeEvent(event)
