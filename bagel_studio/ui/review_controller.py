"""What the review keys do: decide, edit, reject, undo and move, through the writer executor.

Every write is an operation run by ``services.write`` (one thread for all database writes); while
it runs the machine is in ``writing`` and ignores decision and navigation keys. When the write has
committed, every open window has been told what it changed (the desk redraws the queue row and the
progress, see ``MainWindow.apply_changes``), and then the callback (on the main thread) shows the
next item this curator has not reviewed, so the desk never moves on before the decision is on
disk. What other windows' writes change of the item on screen comes through ``show_changes``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from functools import partial
from typing import TypeVar

from PySide6.QtCore import QObject, Signal

from bagel_studio.core import operations
from bagel_studio.core.changes import Changes, Done, Part
from bagel_studio.core.model import Decision, HistoryEntry, Item, ItemContent, Review
from bagel_studio.core.store import BlockedError, QueueFilter, StoreError
from bagel_studio.ui.decision_bar import NoteDialog, RejectDialog
from bagel_studio.ui.evidence_view import EvidencePanel
from bagel_studio.ui.item_view import ItemView
from bagel_studio.ui.queue_model import QueueModel
from bagel_studio.ui.queue_panel import QueuePanel
from bagel_studio.ui.services import Services
from bagel_studio.ui.shortcuts import IDLE, ReviewMachine, State

T = TypeVar("T")
AHEAD = 2  # items after the one on screen whose recordings are prepared in the background
# What of the item on screen, changed by another window, needs it read again (flags alone do not).
REREAD = Part.CONTENT | Part.STATUS | Part.REVIEWS | Part.NEW
NO_ITEMS_TEXT = (
    "This project has no items yet. Import generated items and their evidence with"
    " File → Import… (Ctrl+I)."
)
NO_MATCH_TEXT = (
    "No item matches the filters. Set them back to (any), or press Esc in the search field"
    " to clear it."
)


def undo_message(entry: HistoryEntry) -> str:
    """'Undid your reject of ID' (not 'Undid decide on ID')."""
    what = entry.action
    if entry.action == "decide" and entry.after and entry.after.get("decision"):
        what = str(entry.after["decision"])
    return f"Undid your {what} of {entry.item_id}"


class ReviewController(QObject):
    """Connects the shortcut machine to the store, the queue, the item and the evidence."""

    status_message = Signal(str)
    # Blind mode: False while the curator must answer before seeing anything that points at the
    # key (gold, highlights, flag messages, history, model answers); True once answered or when
    # blind mode is off. Views that show such things (the Models panel) consult ``key_revealed``
    # and follow this signal.
    key_revealed_changed = Signal(bool)
    item_shown = Signal(str)  # after an item is on screen (tests, benchmarks, testing hook)
    write_finished = Signal()

    def __init__(
        self,
        services: Services,
        model: QueueModel,
        queue: QueuePanel,
        item_view: ItemView,
        evidence: EvidencePanel,
        machine: ReviewMachine,
        read_only: bool = False,
    ) -> None:
        super().__init__()
        self.services = services
        self.store = services.store
        self.model = model
        self.queue = queue
        self.item_view = item_view
        self.evidence = evidence
        self.machine = machine
        self.read_only = read_only
        self.item: Item | None = None
        self.pending_blind: int | None = None
        self.key_revealed = True
        self.reject_dialog: RejectDialog | None = None
        self.note_dialog: NoteDialog | None = None
        # How many items of the project this curator has still to decide, as the desk's
        # progress line last counted them (``MainWindow.update_progress``), or None when not
        # counted. At 0 no queue holds one: looking for it would read every item of the queue.
        self.left_to_decide: int | None = None
        self._register()
        queue.item_selected.connect(self._selected_in_queue)
        model.modelReset.connect(self._after_filter)
        model.counted.connect(self._after_count)

    @property
    def curator(self) -> str:
        return str(self.services.curator)

    def _register(self) -> None:
        m = self.machine
        m.on("accept", lambda: self.decide(Decision.ACCEPT))
        m.on("accept_note", self.open_accept_note)
        m.on("skip", lambda: self.decide(Decision.SKIP))
        m.on("uncertain", lambda: self.decide(Decision.UNCERTAIN))
        m.on("reject", self.open_reject)
        m.on("edit", self.begin_edit)
        m.on("save_edit", self.save_edit)
        m.on("cancel_edit", self.cancel_edit)
        m.on("undo", self.undo)
        m.on("next", lambda: self.step(1))
        m.on("previous", lambda: self.step(-1))
        for number in range(1, 5):
            m.on(f"choose_{number}", partial(self.choose, number - 1))

    # -- showing items -------------------------------------------------------------------------

    def _todo_filter(self) -> QueueFilter:
        """The current queue narrowed to what this curator still has to review (skipped ones
        included); with no curator, the whole queue."""
        return replace(self.model.queue_filter, unreviewed_by=self.curator or None)

    def _none_left(self) -> bool:
        """This curator has decided every item of the project (so of every queue)."""
        return bool(self.curator) and self.left_to_decide == 0

    def show_first(self) -> None:
        """The first item of the queue this curator has not reviewed, else the first item."""
        first = None
        if not self._none_left():
            first = self.store.queue.next_id(self._todo_filter(), None, wrap=False)
        self.show_item(first or self.model.item_id(0))

    def show_item(self, item_id: str | None) -> None:
        """Put ``item_id`` (or nothing) on screen, with its flags, history and evidence."""
        self.item = self.store.items.get(item_id) if item_id else None
        self.pending_blind = None
        if self.item is None:
            self.item_view.show_item(None, [], [], None, empty_text=self.empty_text())
            self.evidence.show_item(None)
            self._set_key_revealed(True)
            self.queue.select_item("")
            self.machine.set_state(State.READ_ONLY if self.read_only else State.EMPTY)
            return
        mine = next(
            (r for r in self.store.reviews.of_item(self.item.id) if r.curator == self.curator), None
        )
        blind = bool(self.services.prefs.blind_mode) and not self.read_only and mine is None
        self.item_view.show_item(
            self.item,
            self.store.flags.of_item(self.item.id),
            self.store.history.of_item(self.item.id),
            mine,
            gold_visible=not blind,
            blind_answer=mine.blind_answer if mine else None,
        )
        self.evidence.show_item(self.item, key_revealed=not blind)
        self._set_key_revealed(not blind)
        row = self.queue.select_item(self.item.id)
        # J and a decision go on to the following rows: their recordings are prepared now
        self.evidence.prepare_ahead(self.model.ids_after(row, AHEAD))
        if self.read_only:
            self.machine.set_state(State.READ_ONLY)
        else:
            self.machine.set_state(State.BLIND if blind else State.REVIEW)
        self.item_shown.emit(self.item.id)

    def empty_text(self) -> str:
        """What to say when there is no item: an empty project needs an import, a filter that
        matches nothing needs loosening."""
        if self.model.filtered:
            return NO_MATCH_TEXT
        if self.read_only:
            return "This project has no items."
        return NO_ITEMS_TEXT

    def refresh_current(self) -> None:
        self.show_item(self.item.id if self.item else None)

    def refresh_if_idle(self) -> None:
        """Re-read the item on screen, unless the curator is editing, choosing a reason or
        waiting for a write (a refresh would throw that away); a blind answer given is kept."""
        if self.machine.state not in IDLE:
            return
        blind = self.pending_blind
        self.refresh_current()
        if blind is not None and self.machine.state is State.BLIND:
            self.choose(blind)

    def show_changes(self, changes: Changes) -> None:
        """What another window's write changed of the item on screen. Its flags alone (a clip
        measured, a re-check) go on screen without reloading its evidence, which would stop the
        recording; anything else (a decision, an edit, model answers) reads it again, unless the
        curator is editing, choosing a reason or waiting for a write. With no item on screen,
        new items bring the first."""
        item = self.item
        if item is None:
            if changes.parts & Part.NEW:
                self.show_first()
            return
        if changes.models or changes.touches(item.id, REREAD):
            self.refresh_if_idle()
        elif changes.touches(item.id, Part.FLAGS):
            self.item_view.show_flags(self.store.flags.of_item(item.id))

    def open_from_elsewhere(self, item_id: str) -> bool:
        """Show ``item_id`` asked for by another window; refused while editing or writing."""
        if self.machine.state not in IDLE:
            self.status_message.emit("Finish or cancel the current edit first")
            return False
        self.show_item(item_id)
        return True

    def _selected_in_queue(self, item_id: str) -> None:
        if self.machine.state in (State.WRITING, State.EDIT, State.REJECT, State.NOTE):
            return
        if self.item is None or item_id != self.item.id:
            self.show_item(item_id)

    def _after_filter(self) -> None:
        if self.machine.state in (State.WRITING, State.EDIT, State.REJECT, State.NOTE):
            return
        if self.item is not None and self.model.row_of(self.item.id) >= 0:
            self.queue.select_item(self.item.id)
        else:
            self.show_first()

    def _after_count(self) -> None:
        """A search's rows beyond its first page arrived: the item on screen may be among
        them, now highlighted in the queue."""
        if self.item is not None:
            self.queue.select_item(self.item.id)

    def step(self, delta: int) -> None:
        count = self.model.rowCount()
        if not count:
            self.show_item(None)
            return
        row = self.model.row_of(self.item.id) if self.item else -1
        row = min(max(row + delta, 0), count - 1) if row >= 0 else 0
        self.show_item(self.model.item_id(row))

    def next_unreviewed(self, after: str) -> str | None:
        """The next item in the queue after ``after`` this curator has not reviewed (wrapping)."""
        if self._none_left():
            return None
        following: str | None = self.store.queue.next_id(self._todo_filter(), after)
        return following

    # -- decisions -----------------------------------------------------------------------------

    def choose(self, index: int) -> None:
        """1-4: the blind answer (then the gold is revealed), or the gold while editing."""
        if self.machine.state is State.EDIT:
            self.item_view.editor.set_gold(index)
            return
        if self.item is None or index >= len(self.item.content.options):
            return
        self.pending_blind = index
        self.item_view.hide_banner()
        self.item_view.reveal(index)
        self.evidence.set_key_revealed(True)
        self._set_key_revealed(True)
        self.machine.set_state(State.REVIEW)

    def _set_key_revealed(self, revealed: bool) -> None:
        changed = revealed != self.key_revealed
        self.key_revealed = revealed
        if changed:
            self.key_revealed_changed.emit(revealed)

    def decide(
        self, decision: Decision, reason: str | None = None, note: str | None = None
    ) -> None:
        item = self.item
        if item is None:
            return
        curator, blind = self.curator, self.pending_blind

        def write() -> Done[Review]:
            return operations.decide(
                self.store, item.id, curator, decision, reason=reason, note=note, blind_answer=blind
            )

        self._write(write, lambda _review: self._after_decision(item.id, decision))

    def _after_decision(self, item_id: str, decision: Decision) -> None:
        self.show_next(item_id)
        self.status_message.emit(f"{item_id}: {decision.value} saved")

    def show_next(self, after: str) -> None:
        """Move on from ``after``: the next item of the queue this curator has not reviewed, or
        ``after`` again, saying that every item has their decision."""
        following = self.next_unreviewed(after)
        if following is None:
            self.show_item(after)
            self.item_view.show_banner("Every item in this queue has your decision.", "info")
        else:
            self.show_item(following)

    def open_reject(self) -> None:
        dialog = RejectDialog(self.item_view.window())
        self.reject_dialog = dialog
        dialog.chosen.connect(self._rejected)
        dialog.finished.connect(self._reject_closed)
        self.machine.set_state(State.REJECT)
        dialog.open()

    def _rejected(self, reason: str, note: str) -> None:
        self.machine.set_state(State.REVIEW)
        self.decide(Decision.REJECT, reason, note or None)

    def _reject_closed(self, _result: int) -> None:
        if self.machine.state is State.REJECT:  # cancelled
            self.machine.set_state(State.REVIEW)
        if self.reject_dialog is not None:
            self.reject_dialog.deleteLater()
            self.reject_dialog = None
        self.item_view.window().activateWindow()  # the desk's keys act in the active window

    def open_accept_note(self) -> None:
        """Shift+A: a note, then the accept (why a flagged item is fine, what was checked)."""
        dialog = NoteDialog(self.item_view.window())
        self.note_dialog = dialog
        dialog.chosen.connect(self._accepted_with_note)
        dialog.finished.connect(self._note_closed)
        self.machine.set_state(State.NOTE)
        dialog.open()

    def _accepted_with_note(self, note: str) -> None:
        self.machine.set_state(State.REVIEW)
        self.decide(Decision.ACCEPT, note=note or None)

    def _note_closed(self, _result: int) -> None:
        if self.machine.state is State.NOTE:  # cancelled
            self.machine.set_state(State.REVIEW)
        if self.note_dialog is not None:
            self.note_dialog.deleteLater()
            self.note_dialog = None
        self.item_view.window().activateWindow()  # the desk's keys act in the active window

    def begin_edit(self) -> None:
        if self.item is None:
            return
        self.item_view.begin_edit()
        self.machine.set_state(State.EDIT)

    def cancel_edit(self) -> None:
        self.item_view.end_edit()
        self.machine.set_state(State.REVIEW)
        self.queue.focus_queue()  # not whatever widget follows the hidden editor
        self.status_message.emit("Edit cancelled")

    def save_edit(self) -> None:
        """Write the edited content, then accept it (recorded as accepted with revision)."""
        item = self.item
        if item is None:
            return
        content: ItemContent = self.item_view.editor.content()
        curator, blind = self.curator, self.pending_blind

        def write() -> Done[Review]:
            return operations.edit_and_accept(
                self.store, item.id, curator, content, blind_answer=blind
            )

        def done(review: Review) -> None:
            self._after_decision(item.id, review.decision)
            self.queue.focus_queue()  # the editor that had the keys is hidden

        self._write(write, done)

    def undo(self) -> None:
        curator = self.curator
        self._write(lambda: operations.undo(self.store, curator), self._after_undo)

    def _after_undo(self, entry: HistoryEntry | None) -> None:
        if entry is None:
            self.machine.set_state(State.REVIEW if self.item else State.EMPTY)
            self.refresh_current()
            self.item_view.show_banner("Nothing left to undo.", "info")
            return
        self.show_item(entry.item_id)
        self.status_message.emit(undo_message(entry))

    # -- the write path ------------------------------------------------------------------------

    def _write(self, op: Callable[[], Done[T]], on_done: Callable[[T], None]) -> None:
        if self.read_only:
            return
        self.machine.set_state(State.WRITING)

        def done(result: T) -> None:
            on_done(result)
            self.write_finished.emit()

        self.services.write(op, origin=self, done=done, failed=self._write_failed)

    def _write_failed(self, error: BaseException) -> None:
        """A refused or failed write: stay on the item (and its blind answer) and say why."""
        blind = self.pending_blind
        self.refresh_current()
        if blind is not None and self.machine.state is State.BLIND:
            self.choose(blind)
        if isinstance(error, BlockedError):
            self.item_view.show_banner(f"Not accepted. {error}", "error")
        elif isinstance(error, StoreError):
            self.item_view.show_banner(str(error), "error")
        else:
            self.item_view.show_banner(f"The write failed: {error!r}", "error")
        self.status_message.emit(str(error))
        self.write_finished.emit()
