"""The ambiguity queue: flagged GloBI items, most severe first, each beside its records.

The BAGEL authors' audit found GloBI items with several defensible answers: another option that
the loaded records also link to the same partner, taxa that contain each other, and so on. A
curator judges such an item by reading the record it was generated from next to the records that
back a distractor, so this panel lays them out side by side as cards. The checks name those
records in ``Flag.details["records"]`` (GloBI refs) and the options in ``Flag.details["options"]``
(letters). Everything shown is data: labels are plain text, never rich text.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QListWidget,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from bagel_studio.core.changes import Changes, Part
from bagel_studio.core.checks.ambiguity import Tier, ambiguity_queue
from bagel_studio.core.domains import LETTERS
from bagel_studio.core.model import Flag, Item
from bagel_studio.core.store import Store
from bagel_studio.ui.id_queue import (
    ID_ROLE,
    clear_layout,
    current_id,
    fill_queue,
    lay_out_beside_queue,
    queue_ids,
    step_queue,
)
from bagel_studio.ui.plain import plain_label
from bagel_studio.ui.secondary import add_button_key
from bagel_studio.ui.services import Services

SEVERITY_NAMES = {0: "blocking", 1: "warning", 2: "info"}
CARD_WIDTH = 300
KEYS_HINT = "J / K: next / previous · Enter: show it in the desk · Esc: close"


@dataclass
class RecordCard:
    """One GloBI record to show, and why it is shown."""

    ref: str
    role: str  # "generated from", or which option it backs
    record: dict[str, Any] | None
    checks: list[str] = field(default_factory=list)


def record_cards(store: Store, item: Item, flags: list[Flag]) -> list[RecordCard]:
    """The item's own record first, then every record a flag cites, once each."""
    cards: dict[str, RecordCard] = {}
    if item.globi_ref:
        cards[item.globi_ref] = RecordCard(
            item.globi_ref, "Generated from", store.evidence.globi_record(item.globi_ref)
        )
    for flag in flags:
        for ref in _flag_refs(flag):
            if ref in cards:
                if ref != item.globi_ref and flag.check not in cards[ref].checks:
                    cards[ref].checks.append(flag.check)
                continue
            record = store.evidence.globi_record(ref)
            role = _backed_options(item, ref, record, flag)
            cards[ref] = RecordCard(ref, role, record, [flag.check])
    return list(cards.values())


def _flag_refs(flag: Flag) -> list[str]:
    refs = flag.details.get("records") or []
    if isinstance(refs, str):
        refs = [refs]
    out = []
    for ref in refs:
        value = ref.get("ref") if isinstance(ref, dict) else ref
        if value:
            out.append(str(value))
    return out


def _backed_options(item: Item, ref: str, record: dict[str, Any] | None, flag: Flag) -> str:
    """Which options a record backs: as the flag says (``by_option``), else the options naming
    one of the record's taxa, else the options the flag names."""
    options = item.content.options
    by_option = flag.details.get("by_option")
    letters: list[str] = []
    if isinstance(by_option, dict):
        letters = sorted(str(k) for k, refs in by_option.items() if ref in (refs or ()))
    if not letters and record is not None:
        taxa = {str(record.get(k) or "").strip().lower() for k in ("source_taxon", "target_taxon")}
        taxa.discard("")
        letters = [LETTERS[i] for i, text in enumerate(options[:4]) if text.strip().lower() in taxa]
    if not letters:
        letters = [str(x) for x in flag.details.get("options") or [] if str(x) in LETTERS]
    if not letters:
        return f"Cited by {flag.check}"
    named = ", ".join(
        f"{letter} ({options[LETTERS.index(letter)]})"
        for letter in letters
        if letter in LETTERS and LETTERS.index(letter) < len(options)
    )
    return f"Backs option {named}" if len(letters) == 1 else f"Backs options {named}"


def record_lines(record: dict[str, Any]) -> list[str]:
    """A GloBI record as a curator reads it: who does what to whom, where, when, says who."""
    place = record.get("locality") or ""
    lat, lon = record.get("latitude"), record.get("longitude")
    if lat not in (None, "") and lon not in (None, ""):
        place = f"{place} ({lat}, {lon})".strip()
    reference = " ".join(str(x) for x in (record.get("doi"), record.get("url")) if x)
    return [
        f"{record.get('source_taxon') or '?'}  —{record.get('interaction') or '?'}→  "
        f"{record.get('target_taxon') or '?'}",
        f"Locality: {place or 'not given'}",
        f"Date: {record.get('date') or 'not given'}",
        f"Citation: {record.get('citation') or 'not given'}"
        + (f" {reference}" if reference else ""),
        f"Record: {record.get('table_name') or '?'} row {record.get('row') or '?'}",
    ]


class _Card(QFrame):
    def __init__(self, card: RecordCard) -> None:
        super().__init__()
        self.ref = card.ref
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setFixedWidth(CARD_WIDTH)
        layout = QVBoxLayout(self)
        layout.addWidget(plain_label(card.role, bold=True))
        if card.checks:
            layout.addWidget(plain_label("Flag: " + ", ".join(card.checks)))
        if card.record is None:
            layout.addWidget(plain_label(f"Record {card.ref} is not loaded in this project."))
        else:
            for line in record_lines(card.record):
                layout.addWidget(plain_label(line))
        layout.addStretch(1)


class AmbiguityPanel(QWidget):
    """Flagged GloBI items, most severe first; the selected one with its records side by side."""

    open_item = Signal(str)  # Enter on an item: the desk shows it in the review queue

    def __init__(self, services: Services, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.services = services
        self.setWindowTitle("Ambiguity queue")
        self.heading = plain_label()
        self.queue = QListWidget()
        self.queue.currentItemChanged.connect(self._show_current)
        self.queue.itemActivated.connect(lambda entry: self.open_item.emit(entry.data(ID_ROLE)))
        refresh = QPushButton("Refresh")
        refresh.clicked.connect(self.refresh)
        self.queue.setSpacing(3)  # wrapped entries stay apart
        keys = plain_label(KEYS_HINT, selectable=False)
        self.detail = QWidget()
        self.detail_layout = QVBoxLayout(self.detail)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(self.detail)
        lay_out_beside_queue(self, self.heading, self.queue, [keys, refresh], scroll)
        self.cards: list[_Card] = []
        for key, step in (("J", 1), ("K", -1)):
            shortcut = QShortcut(QKeySequence(key), self)
            shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            shortcut.activated.connect(lambda step=step: self.step_selection(step))
        add_button_key(self, refresh, "F5")
        self.refresh()
        services.listen(self)

    def apply_changes(self, changes: Changes, origin: object) -> None:
        """New items, edits and re-checks change which GloBI items are flagged and how: the
        queue is read again while the panel is open (F5 does the same by hand)."""
        if changes.parts & (Part.NEW | Part.CONTENT | Part.FLAGS) and self.isVisible():
            self.refresh()

    # -- the queue -----------------------------------------------------------------------------

    def refresh(self) -> None:
        """Reload the queue (after a check run or an edit), keeping the selection if possible."""
        store = self.services.store
        keep = self.current_item_id()
        queue = ambiguity_queue(store)
        rows = store.queue.rows([item_id for item_id, _tier in queue])
        entries = (_queue_entry(item_id, rows[item_id], tier) for item_id, tier in queue)
        fill_queue(self.queue, entries, keep)
        conflicts = sum(1 for _id, tier in queue if tier is Tier.RECORDS)
        self.heading.setText(
            f"{len(queue)} flagged GloBI items, {conflicts} with records that back another"
            " option; those first, then the most severe (models' and the audit's flags alone"
            " last)"
        )
        self._show_current()

    def item_ids(self) -> list[str]:
        return queue_ids(self.queue)

    def current_item_id(self) -> str | None:
        return current_id(self.queue)

    def step_selection(self, step: int) -> None:
        step_queue(self.queue, step)

    # -- the selected item ---------------------------------------------------------------------

    def _show_current(self, *_: object) -> None:
        clear_layout(self.detail_layout)
        self.cards = []
        item_id = self.current_item_id()
        if item_id is None:
            self.detail_layout.addWidget(plain_label("No flagged GloBI items."))
            return
        store = self.services.store
        item = store.items.get(item_id)
        flags = store.flags.of_item(item_id)
        self.detail_layout.addWidget(
            plain_label(f"{item.id} · {item.content.dimension or ''} · {item.status.value}")
        )
        self.detail_layout.addWidget(plain_label(item.content.question, bold=True))
        for index, option in enumerate(item.content.options):
            gold = index == item.content.answer_index
            letter = LETTERS[index] if index < len(LETTERS) else "?"
            self.detail_layout.addWidget(
                plain_label(f"{'✓' if gold else ' '} {letter}. {option}", bold=gold)
            )
        self.detail_layout.addWidget(plain_label("Flags", bold=True))
        for flag in flags:
            self.detail_layout.addWidget(
                plain_label(f"{flag.severity.value}: {flag.check}: {flag.message}")
            )
        self.detail_layout.addWidget(plain_label("Records", bold=True))
        # the cards take the height that is left (a fixed strip scrolled them inside it)
        self.detail_layout.addWidget(self._card_row(record_cards(store, item, flags)), 1)

    def _card_row(self, cards: list[RecordCard]) -> QWidget:
        row = QWidget()
        layout = QHBoxLayout(row)
        if not cards:
            layout.addWidget(plain_label("No GloBI record is linked to this item."))
        for card in cards:
            widget = _Card(card)
            self.cards.append(widget)
            layout.addWidget(widget)
        layout.addStretch(1)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(row)
        scroll.setMinimumHeight(220)
        return scroll


def _queue_entry(item_id: str, row: dict[str, Any], tier: Tier) -> tuple[str, str, str]:
    """The queue line of a flagged item (what kind of conflict, severity, flag count, stem) and
    its checks as tooltip."""
    checks = row["flag_checks"]
    severity = SEVERITY_NAMES.get(row["flag_severity"], "")
    kind = f"{tier.label} · " if tier.label else ""
    return (
        item_id,
        f"[{kind}{severity}, {len(checks)} flags] {item_id}: {row['question']}",
        ", ".join(checks),
    )
