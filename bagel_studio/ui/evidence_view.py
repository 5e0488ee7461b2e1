"""The right column of the desk: the evidence an item was generated from.

Texts (Wikipedia, bioRxiv) are shown in a read-only plain-text editor with the supporting
sentences highlighted through ExtraSelections and scrolled into view; GloBI records and Xeno-canto
metadata are cards of plain-text fields. Nothing is interpreted as HTML and nothing is fetched:
URLs and DOIs are shown as text to copy, not links.
"""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QSize, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QResizeEvent, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import (
    QFormLayout,
    QGridLayout,
    QLabel,
    QPlainTextEdit,
    QScrollArea,
    QSizePolicy,
    QTabWidget,
    QTextEdit,
    QVBoxLayout,
    QWidget,
)

from bagel_studio.core.audio import SpectrogramSettings, load_settings
from bagel_studio.core.domains import BIORXIV, GLOBI, WIKIPEDIA, XENO_CANTO
from bagel_studio.core.importers.globi import guessed_encodings
from bagel_studio.core.model import Item
from bagel_studio.core.store import Store
from bagel_studio.ui.ambiguity import RecordCard, record_cards
from bagel_studio.ui.blind import KEY_CHECKS
from bagel_studio.ui.evidence_spans import Span, support_ranges
from bagel_studio.ui.listening.ahead import AheadQueue
from bagel_studio.ui.listening.loader import ClipLoader
from bagel_studio.ui.listening_warmup import ListeningWarmup
from bagel_studio.ui.plain import WrappedValue, plain_label, plain_tooltip, plain_value
from bagel_studio.ui.services import Services

if TYPE_CHECKING:
    from bagel_studio.ui.listening import ListeningPanel

log = logging.getLogger(__name__)

HIGHLIGHT = QColor("#fff59d")
NONE_TEXT = "No evidence of this kind is linked to this item."
# a text's kind as stored (the importers' names) and as the heading says it
TEXT_KINDS = {"wikipedia": "Wikipedia article", "biorxiv": "bioRxiv paper"}
NO_EVIDENCE = (
    "No evidence is linked to this item: import the text, GloBI table or recording it was"
    " generated from (File → Import…, Ctrl+I) to see it here."
)
NO_ITEM = "No item on the desk: the evidence of the item shown appears here."
LISTENING_STARTS = "The listening panel starts once the desk is idle for a moment."
LISTENING_PREPARING = (
    "Preparing the spectrogram and player: a moment's pause (or Space) brings them."
)
BLIND_BIRDNET = "names an option: shown once you have answered (blind mode)"
NO_SOURCE_RECORD = "No GloBI record is linked as this item's source; its flags name these rows:"


class Card(QWidget):
    """A titled list of 'field: value' rows, all plain text and selectable."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.title = plain_label("", self)
        font = self.title.font()
        font.setBold(True)
        font.setPointSizeF(font.pointSizeF() * 1.1)
        self.title.setFont(font)
        self._form = QFormLayout()
        self._form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        layout = QVBoxLayout(self)
        layout.addWidget(self.title)
        layout.addLayout(self._form)
        layout.addStretch(1)
        self.values: dict[str, str] = {}

    def set_fields(self, title: str, fields: list[tuple[str, Any]]) -> None:
        self.title.setText(title)
        while self._form.rowCount():
            self._form.removeRow(0)
        self.values = {}
        for name, value in fields:
            if value in (None, "", [], {}):
                continue
            text = str(value)
            self.values[name] = text
            self._form.addRow(plain_label(name + ":", self), plain_value(text, self))

    def text(self) -> str:
        return "\n".join(f"{k}: {v}" for k, v in self.values.items())


class RecordingCard(QWidget):
    """A recording's metadata in as few lines as it reads well in a narrow evidence column (the
    spectrogram below needs the height): species and common name in the title, short fields
    two to a row, a Creative Commons licence by its name (the URL in its tooltip). ``values``
    holds every field whole."""

    PAIRED = ("Recordist", "Licence", "Length", "File")  # short: two to a row
    PAIRED_CHARS = 24  # a longer value (a licence written out) takes the whole row

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.title = plain_label("", self, bold=True)
        self._grid = QGridLayout()
        self._grid.setContentsMargins(0, 0, 0, 0)
        self._grid.setHorizontalSpacing(6)
        self._grid.setVerticalSpacing(2)
        # The width beyond what the fields ask for goes to an empty last column: in a wide
        # evidence column (the listening layout) a pair stays together, not at either edge.
        self._grid.setColumnStretch(4, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 4, 6, 4)
        layout.setSpacing(2)
        layout.addWidget(self.title)
        layout.addLayout(self._grid)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)
        self.values: dict[str, str] = {}
        self.labels: dict[str, QLabel | WrappedValue] = {}  # the values on screen, by field

    def set_fields(self, title: str, fields: list[tuple[str, Any]]) -> None:
        while self._grid.count():
            taken = self._grid.takeAt(0)
            widget = taken.widget() if taken is not None else None
            if widget is not None:
                widget.hide()
                widget.deleteLater()
        self.values = {
            name: str(value) for name, value in fields if value not in (None, "", [], {})
        }
        self.labels = {}
        names = [n for n in self.values if n not in ("Species", "Common name")]
        species, common = self.values.get("Species"), self.values.get("Common name")
        if species is not None and not _is_name(species):  # a yes/no column taken for it
            species = None
            names.insert(0, "Species")  # shown as the value it is, not in the title
        named = f"{species} ({common})" if species and common else species or common
        self.title.setText(" · ".join(part for part in (title, named) if part))
        row = column = 0
        for name in names:
            shown_text = licence_name(self.values[name]) if name == "Licence" else self.values[name]
            # a long value on a row of its own: in half the column it wrapped into many lines
            paired = name in self.PAIRED and len(shown_text) <= self.PAIRED_CHARS
            if column and not paired:
                row, column = row + 1, 0
            key = plain_label(name + ":", self, wrap=False, selectable=False)
            key.setStyleSheet("color:#555555;")
            value = plain_value(shown_text, self)
            if shown_text != self.values[name]:
                value.setToolTip(plain_tooltip(self.values[name]))
            self.labels[name] = value
            self._grid.addWidget(key, row, column, Qt.AlignmentFlag.AlignTop)
            self._grid.addWidget(value, row, column + 1, 1, 1 if paired else 4)
            if paired and column == 0:
                column = 2
            else:
                row, column = row + 1, 0

    def sizeHint(self) -> QSize:
        """As high as its lines need at the width it has: the height a word-wrapped layout
        hints is for its preferred width, and in the narrower desk column the last lines of a
        long licence or location were cut off, while in a wider one it kept a blank line the
        listening panel below needed."""
        hint = super().sizeHint()
        layout = self.layout()
        if layout is not None and self.width() > 0:
            hint.setHeight(layout.heightForWidth(self.width()))
        return hint

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if event.size().width() != event.oldSize().width():
            self.updateGeometry()  # the height its lines need at this width

    def text(self) -> str:
        lines = [self.title.text()] + [f"{k}: {v}" for k, v in self.values.items()]
        return "\n".join(lines)


_NOT_NAMES = frozenset({"no", "yes", "true", "false", "y", "n", "0", "1", "unknown", "none"})


def _is_name(value: str) -> bool:
    """Whether a 'Species' value reads as a name (not 'no': an earlier import took a table's
    yes/no column, the bat table's 'auto', for the species)."""
    return value.strip().lower() not in _NOT_NAMES and any(c.isalpha() for c in value)


_CC = re.compile(r"creativecommons\.org/(?:licenses|publicdomain)/([a-z-]+)/([0-9.]+)", re.I)


def licence_name(licence: str) -> str:
    """'https://creativecommons.org/licenses/by-nc-sa/4.0/' as 'CC BY-NC-SA 4.0' (CC0 for the
    public-domain dedication); any other licence text as it is."""
    match = _CC.search(licence)
    if match is None:
        return licence
    code, version = match.group(1).lower(), match.group(2)
    if code == "zero":
        return f"CC0 {version}"
    if code == "mark":
        return f"Public Domain Mark {version}"
    return f"CC {code.upper()} {version}"


class CitedRecords(QWidget):
    """The GloBI rows an item's flags name (another host, a containing taxon...), one card each,
    with which options they back and which checks cite them."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self.cards: list[Card] = []

    def show_cards(
        self,
        cited: list[RecordCard],
        encodings: dict[str, str] | None = None,
        blind: bool = False,
    ) -> None:
        """One card per cited record; ``encodings``: ``guessed_encodings`` of the project;
        ``blind``: the checks about the key that cite a record are not named in its title."""
        for card in self.cards:
            self._layout.removeWidget(card)
            card.hide()  # never drawn under the new cards while it waits for deletion
            card.deleteLater()
        self.cards = []
        for entry in cited:
            card = Card(self)
            named = [c for c in entry.checks if not (blind and c in KEY_CHECKS)]
            by = f" · named by {', '.join(named)}" if named else ""
            title = f"{entry.role}{by} · GloBI record {entry.ref}"
            if entry.record is None:
                card.set_fields(title, [("Record", "not in this project (import its table)")])
            else:
                card.set_fields(title, globi_fields(entry.record, encodings))
            self._layout.addWidget(card)
            self.cards.append(card)

    def titles(self) -> list[str]:
        return [card.title.text() for card in self.cards]


class TextEvidence(QWidget):
    """A Wikipedia or bioRxiv text with the supporting spans highlighted."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.heading = plain_label("", self)
        self.heading.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        self.editor = QPlainTextEdit(self)
        self.editor.setReadOnly(True)
        self.editor.setFocusPolicy(Qt.FocusPolicy.ClickFocus)
        self.editor.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.heading)
        layout.addWidget(self.editor, 1)
        layout.addStretch(0)  # takes the height while the editor is hidden
        self.spans: list[Span] = []
        self.highlighted = False

    def show_text(
        self, heading: str, text: str, spans: list[Span], *, highlight: bool = True
    ) -> None:
        """Show ``text``; with ``highlight`` the supporting spans are marked and scrolled to
        (blind mode passes False: the sentence that supports the gold would give it away)."""
        self.heading.setText(heading)
        self.editor.setPlainText(text)
        # No text (the item has none linked): the heading says so, over no empty white box
        self.editor.setVisible(bool(text))
        self.spans = spans
        self.highlighted = False
        if highlight:
            self.show_highlights()

    def show_highlights(self) -> None:
        """Mark the supporting spans and scroll the first into view."""
        spans = self.spans
        self.highlighted = True
        fmt = QTextCharFormat()
        fmt.setBackground(HIGHLIGHT)
        selections = []
        for start, end in spans:
            cursor = QTextCursor(self.editor.document())
            cursor.setPosition(start)
            cursor.setPosition(end, QTextCursor.MoveMode.KeepAnchor)
            selection = QTextEdit.ExtraSelection()
            selection.cursor = cursor
            selection.format = fmt
            selections.append(selection)
        self.editor.setExtraSelections(selections)
        if spans:
            cursor = QTextCursor(self.editor.document())
            cursor.setPosition(spans[0][0])
            self.editor.setTextCursor(cursor)
            self.editor.centerCursor()
            # Once laid out (first show, tab switch) centre again: the first call may see no size.
            QTimer.singleShot(0, self.editor, self.editor.centerCursor)

    def highlighted_text(self) -> list[str]:
        """The text of the spans marked on screen (none while blind mode hides them)."""
        if not self.highlighted:
            return []
        text = self.editor.toPlainText()
        return [text[s:e] for s, e in self.spans]


class EvidencePanel(QTabWidget):
    """Tabs for the item's text, GloBI record and recording; only the kinds of evidence the item
    has are shown (greyed-out tabs said nothing but took the eye), the relevant one in front."""

    status_message = Signal(str)

    def __init__(self, services: Services, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._store: Store = services.store
        self.text = TextEvidence(self)
        self.globi = Card(self)
        self.cited = CitedRecords(self)  # the GloBI rows the item's flags name
        self.recording = RecordingCard(self)
        self._services = services
        # The listening panel (pyqtgraph, PortAudio) is built by ``warmup`` in small steps while
        # the desk is idle, once the first item is on screen (``start_listening``); a recording
        # shown before then waits for it in the slot, its card already filled.
        self.listening: ListeningPanel | None = None
        self._listening_tried = False
        self._listening_slot = QLabel(LISTENING_STARTS)
        self._listening_slot.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self._listening_slot.setWordWrap(True)
        self.warmup = ListeningWarmup(self._warmed_up, self)
        # The recordings the desk shows next are decoded and drawn on the workers from its first
        # item on, into the caches the panel takes over once built: while the warm-up still runs
        # the clip a curator arrives at is then ready with it (it waited for the panel before).
        self.clips = ClipLoader()
        self.ahead = AheadQueue(
            lambda: self.listening.loader if self.listening is not None else self.clips,
            services.store, services.workers, self._spectrogram_settings,
        )  # fmt: skip
        self._settings: SpectrogramSettings | None = None
        self.addTab(self.text, "Text")
        self.addTab(self._globi_tab(), "GloBI record")
        self.addTab(self._recording_tab(), "Recording")
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.item: Item | None = None
        self.key_revealed = True
        self._ahead: list[str] = []  # the items the desk shows next (``prepare_ahead``)

    def _globi_tab(self) -> QWidget:
        column = QWidget(self)
        layout = QVBoxLayout(column)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.globi)
        layout.addWidget(self.cited)
        layout.addStretch(1)
        return _scrolling(column)

    def _recording_tab(self) -> QWidget:
        tab = QWidget(self)
        layout = QVBoxLayout(tab)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.recording)  # whole, and no higher than its lines
        layout.addWidget(self._listening_slot, 1)
        self._recording_layout = layout
        return tab

    def start_listening(self) -> None:
        """Build the listening panel in idle steps from now on (the desk calls this once its
        first item is on screen, and ``listening_poke`` whenever the curator acts)."""
        self.warmup.start()

    def listening_poke(self) -> None:
        self.warmup.poke()

    def listening_now(self) -> ListeningPanel | None:
        """The listening panel, its warm-up finished at once if it was not built yet (the curator
        asked for the recording: play, seek, measure)."""
        if self.listening is None and not self._listening_tried:
            self.warmup.finish_now()
        return self.listening

    def _warmed_up(self) -> None:
        """The warm-up's last step: build the panel and give it the recording on screen, then
        the items the desk shows next."""
        if self._listening_tried:
            return
        panel = self.build_listening()
        item = self.item
        if panel is not None and item is not None and item.recording_id:
            self._show_in_panel(panel, item)
        if panel is not None:
            panel.prepare_ahead(self._ahead)

    def build_listening(self) -> ListeningPanel | None:
        """The listening panel, built now if it was not yet (None if it cannot start)."""
        if self._listening_tried:
            return self.listening
        self.warmup.stop()
        self._listening_tried = True
        self.listening = panel = _make_listening_panel(self._services, self.clips, self.ahead)
        if panel is None:
            self._listening_slot.setText("Listening is not available in this build.")
            self.ahead.close()  # nothing will show what it prepares
            return None
        panel.status_message.connect(self.status_message)
        panel.flags_changed.connect(self._refresh_species)  # the card's BirdNET line
        self._recording_layout.replaceWidget(self._listening_slot, panel)
        self._listening_slot.hide()  # deleteLater alone leaves it drawn until the main loop runs
        self._listening_slot.deleteLater()
        # Shown now: Qt shows a widget put into a shown layout on the event loop's next turn, and
        # a clip prepared ahead is drawn at once, so a key pressed meanwhile found the panel
        # nowhere on screen.
        panel.show()
        panel.set_key_revealed(self.key_revealed)
        return panel

    def prepare_ahead(self, item_ids: list[str]) -> None:
        """The items the desk shows next: their recordings are prepared in the background, and
        before the listening panel is built the recording on screen first (the panel shows it
        from the caches once it is)."""
        self._ahead = list(item_ids)
        if self.listening is not None:
            self.listening.prepare_ahead(self._ahead)
        elif not self._listening_tried:
            current = [self.item.id] if self.item is not None and self.item.recording_id else []
            self.ahead.set_items([*current, *self._ahead])

    def _spectrogram_settings(self) -> SpectrogramSettings:
        """The panel's settings once built (the curator may change them there), the project's
        before."""
        if self.listening is not None:
            return self.listening.settings
        if self._settings is None:
            self._settings = load_settings(self._store)
        return self._settings

    def shutdown(self) -> None:
        """The window closes: nothing more is prepared, the panel closes its audio stream."""
        self.warmup.stop()
        self.ahead.close()
        if self.listening is not None:
            self.listening.shutdown()

    def set_key_revealed(self, revealed: bool) -> None:
        """Blind mode: everything here that points at the gold (the highlighted supporting
        sentences, the generator's evidence and rationale, the gold band over the spectrogram)
        stays hidden until the curator has answered, then appears without reloading anything."""
        was = self.key_revealed
        self.key_revealed = revealed
        if self.listening is not None:
            self.listening.set_key_revealed(revealed)
        if revealed and not was and self.item is not None:
            self.text.show_highlights()
            self._show_globi(self.item)
            self._refresh_species(self.item.id)  # a BirdNET row that named an option

    def show_item(self, item: Item | None, *, key_revealed: bool = True) -> None:
        """Show ``item``'s evidence; ``key_revealed`` False (blind mode) hides what points at the
        gold until ``set_key_revealed(True)``."""
        self.item = item
        self.key_revealed = key_revealed
        if self.listening is not None:
            self.listening.set_key_revealed(key_revealed)
        if item is None:
            # One tab that says why it is empty (three empty tabs said nothing), not the last
            # item's recording tab.
            self.setCurrentIndex(0)
            for index in range(self.count()):
                self.setTabVisible(index, index == 0)
            self.text.show_text(NO_ITEM, "", [])
            self.globi.set_fields("", [])
            self.cited.show_cards([])
            self.recording.set_fields("", [])
            if self.listening is not None:
                self.listening.clear()
            return
        has_text = self._show_text(item)
        has_globi = self._show_globi(item)
        has_recording = self._show_recording(item)
        preferred = {WIKIPEDIA: 0, BIORXIV: 0, GLOBI: 1, XENO_CANTO: 2}.get(item.domain, 0)
        available = {0: has_text, 1: has_globi, 2: has_recording}
        if not any(available.values()):  # one tab that says so
            available[0] = True
            self.text.show_text(NO_EVIDENCE, "", [])
            preferred = 0
        elif not available[preferred]:
            preferred = next((i for i in (0, 1, 2) if available[i]), preferred)
        self.setCurrentIndex(preferred)  # before hiding: a hidden current tab would move on
        for index, present in available.items():  # which evidence the item has, at a glance
            self.setTabVisible(index, present)
        if has_recording:
            # After the tab is on screen and laid out: the spectrogram and its labels are placed
            # once, at the panel's size, before the clip's measurement and the next recordings
            # start on the workers (switching from a text item, the tab's layout ran after them
            # and waited on them: the first arrival at a recording took 2-3 times a later one).
            self._show_listening(item)

    def _show_text(self, item: Item) -> bool:
        record = self._store.evidence.find_text(item.text_key) if item.text_key else None
        inline = item.source.get("text") if isinstance(item.source, dict) else None
        if record is None and not inline:
            self.text.show_text(NONE_TEXT, "", [])
            return False
        if record is not None:
            kind = record.get("kind") or ""
            kind = TEXT_KINDS.get(kind, kind)
            heading = " · ".join(
                str(v) for v in (record.get("title"), kind, record.get("doi")) if v
            )
            body = str(record.get("text") or "")
        else:
            heading, body = "Source text (inline)", str(inline)
        from bagel_studio.core.importers.texts import paragraphed  # imported when first needed

        body = paragraphed(body)  # a blank line between paragraphs, in earlier projects' texts too
        spans = support_ranges(body, item)
        self.text.show_text(heading, body, spans, highlight=self.key_revealed)
        return True

    def _show_globi(self, item: Item) -> bool:
        record = self._store.evidence.globi_record(item.globi_ref) if item.globi_ref else None
        cited = [
            card
            for card in record_cards(self._store, item, self._store.flags.of_item(item.id))
            if card.ref != item.globi_ref
        ]
        encodings = guessed_encodings(self._store.imports.all()) if record or cited else {}
        self.cited.show_cards(cited, encodings, blind=not self.key_revealed)
        if record is None:
            self.globi.set_fields(NO_SOURCE_RECORD if cited else NONE_TEXT, [])
            return bool(cited)
        generator = [
            ("Generator's evidence", "\n".join(f"“{span}”" for span in item.supporting_evidence)),
            ("Generator's rationale", item.rationale),
        ]
        if not self.key_revealed:  # the generator's spans and rationale argue for the gold
            generator = [("Generator's evidence", "shown once you have answered (blind mode)")]
        fields = globi_fields(record, encodings) + generator
        self.globi.set_fields(f"GloBI record {record['ref']}", fields)
        return True

    def _show_recording(self, item: Item) -> bool:
        rec = self._store.evidence.recording(item.recording_id) if item.recording_id else None
        if rec is None:
            self.recording.set_fields(NONE_TEXT, [])
            if self.listening is not None:
                self.listening.clear()
            return False
        blind = not self.key_revealed
        fields = [*recording_fields(rec), species_field(self._store, item, rec, blind)]
        self.recording.set_fields(str(rec["id"]), fields)
        return True

    def _show_listening(self, item: Item) -> None:
        if self.listening is not None:
            self._show_in_panel(self.listening, item)
        elif not self._listening_tried:
            # Not built yet: the warm-up gives it this item when it is (see _warmed_up).
            self._listening_slot.setText(LISTENING_PREPARING)

    def _refresh_species(self, item_id: str) -> None:
        """The clip was detected (or measured) after the card was drawn: its BirdNET line now."""
        item = self.item
        rec = (
            self._store.evidence.recording(item.recording_id)
            if item and item.recording_id
            else None
        )
        if item is None or item.id != item_id or rec is None:
            return
        blind = not self.key_revealed
        fields = [*recording_fields(rec), species_field(self._store, item, rec, blind)]
        self.recording.set_fields(str(rec["id"]), fields)

    def _show_in_panel(self, panel: ListeningPanel, item: Item) -> None:
        try:
            panel.show_item(item)
        except Exception as exc:
            log.exception("listening panel failed")
            self.status_message.emit(f"Cannot load the recording: {exc}")


def globi_fields(
    record: dict[str, Any], encodings: dict[str, str] | None = None
) -> list[tuple[str, Any]]:
    """The card's fields of a record; ``encodings``: the notes of the tables whose encoding was
    a guess (``guessed_encodings``), shown as the card's last field when its table is one."""

    def coordinates() -> str | None:
        lat, lon = record.get("latitude"), record.get("longitude")
        return f"{lat}, {lon}" if lat not in (None, "") and lon not in (None, "") else None

    return [
        ("Source taxon", record.get("source_taxon")),
        ("Interaction", record.get("interaction")),
        ("Target taxon", record.get("target_taxon")),
        ("Source lineage", record.get("source_path")),
        ("Target lineage", record.get("target_path")),
        ("Locality", record.get("locality")),
        ("Coordinates", coordinates()),
        ("Date", record.get("date")),
        ("Citation", record.get("citation")),
        ("DOI", record.get("doi")),
        ("URL", record.get("url")),
        ("Table", f"{record.get('table_name')} row {record.get('row')}"),
        ("Encoding", (encodings or {}).get(str(record.get("table_name")))),
    ]


def recording_fields(rec: dict[str, Any]) -> list[tuple[str, Any]]:
    meta = rec.get("metadata") or {}
    return [
        ("Species", rec.get("scientific_name")),
        ("Common name", rec.get("common_name")),
        ("Type", listed(rec.get("vocalization_type")) or "(not given)"),
        ("Recordist", rec.get("recordist")),
        ("Licence", rec.get("licence")),
        ("URL", rec.get("url")),
        ("File", rec.get("file_name") or rec.get("audio_path")),
        (
            "Length",
            meta.get("length") or (f"{meta['length_s']} s" if meta.get("length_s") else None),
        ),
        ("Location", meta.get("loc") or meta.get("cnt")),
    ]


_LIST = re.compile(r"^\s*\[(.*)\]\s*$", re.S)
_QUOTED = re.compile(r"'([^']*)'|\"([^\"]*)\"")


def listed(value: Any) -> str:
    """A list as words: ["song", "call"] (an API's JSON) and "['call', 'flight call']" (a
    table written from Python, as BirdCLEF's are) read 'song, call' and 'call, flight call'."""
    if isinstance(value, list | tuple):
        return ", ".join(str(v).strip() for v in value if str(v).strip())
    text = "" if value is None else str(value).strip()
    match = _LIST.match(text)
    if match is None:
        return text
    inside = match.group(1)
    quoted = [a or b for a, b in _QUOTED.findall(inside)]
    parts = quoted if quoted else inside.split(",")
    return ", ".join(p.strip() for p in parts if p.strip())


def species_field(
    store: Store, item: Item, rec: dict[str, Any], blind: bool = False
) -> tuple[str, Any]:
    """The card's "BirdNET" row: whether the clip confirms the item's species (from the cached
    detection; importing the audio core only now, as the listening panel does). ``blind``: a
    row that names one of the item's options ("Italian Sparrow leads most windows") waits for
    the curator's answer."""
    from bagel_studio.core.audio.species_project import card_line, item_answer

    try:
        line = card_line(item_answer(store, item, rec))
    except Exception:  # a detection that cannot be read must not hide the card
        log.exception("the species detection could not be read")
        return ("BirdNET", None)
    options = [" ".join(o.lower().split()) for o in item.content.options]
    if blind and line and any(len(o) >= 3 and o in line.lower() for o in options):
        return ("BirdNET", BLIND_BIRDNET)
    return ("BirdNET", line)


def _scrolling(widget: QWidget) -> QScrollArea:
    area = QScrollArea()
    area.setWidgetResizable(True)
    area.setWidget(widget)
    return area


def _make_listening_panel(
    services: Services, loader: ClipLoader, ahead: AheadQueue
) -> ListeningPanel | None:
    """The listening panel (imported only now: pyqtgraph and the audio libraries are heavy), or
    None if it cannot start (a library missing from the installation, no usable audio stack)."""
    try:
        from bagel_studio.ui.listening import ListeningPanel
    except ImportError:
        log.exception("the listening panel could not be imported")
        return None
    try:
        panel = ListeningPanel(services, loader=loader, ahead=ahead)
    except Exception:
        log.exception("the listening panel could not start")
        return None
    panel.brief_header = True  # the recording's card above names the rest
    return panel
