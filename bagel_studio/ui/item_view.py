"""The centre of the desk: one item's stem, options (gold marked), flags and history.

Everything the item carries is data shown as plain text. In blind mode the gold stays hidden until
the curator has given an answer; the view only renders what the window tells it (gold visible or
not, the curator's blind answer), it does not decide.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QFrame,
    QLabel,
    QScrollArea,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from bagel_studio.core.checks import CHECKS
from bagel_studio.core.domains import LETTERS
from bagel_studio.core.model import Flag, HistoryEntry, Item, Review, Severity
from bagel_studio.ui.blind import KEY_CHECKS, key_flags_line
from bagel_studio.ui.history_view import HistoryBox
from bagel_studio.ui.item_editor import ItemEditor
from bagel_studio.ui.plain import plain_label, shown

SEVERITY_STYLE = {
    Severity.BLOCKING: "background:#ffebee; border-left:4px solid #c62828;",
    Severity.WARNING: "background:#fff3e0; border-left:4px solid #ef6c00;",
    Severity.INFO: "background:#e3f2fd; border-left:4px solid #1565c0;",
}
OPTION_STYLE = "padding:6px; border:1px solid #cfcfcf; border-radius:4px;"
GOLD_STYLE = "padding:6px; border:2px solid #2e7d32; border-radius:4px; background:#e8f5e9;"
PICK_STYLE = "padding:6px; border:2px dashed #1565c0; border-radius:4px;"
MODELS_STYLE = "padding:4px; color:#37474f; background:#eceff1;"
GIVEN_STYLE = "padding:4px; color:#b71c1c; background:#ffebee;"
EMPTY_TEXT = "No item to show: the queue is empty for this filter."
BLIND_FLAG = "details shown once you have answered (blind mode)"
BLIND_HISTORY = "hidden in blind mode until you answer"
BANNER_STYLE = {
    "error": "background:#ffebee; color:#b71c1c; padding:6px; border:1px solid #c62828;",
    "info": "background:#e3f2fd; color:#0d47a1; padding:6px; border:1px solid #1565c0;",
}


class ItemView(QWidget):
    """Read-only presentation of one item, with an in-place editor swapped in on demand."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.item: Item | None = None
        self.gold_visible = True
        self.blind_answer: int | None = None
        self.meta = plain_label("", self)
        self.banner = plain_label("", self)
        self.banner.hide()
        self.stem = plain_label("", self)
        font = self.stem.font()
        font.setPointSizeF(font.pointSizeF() * 1.3)
        self.stem.setFont(font)
        self.options = [plain_label("", self) for _ in LETTERS]
        # The gold as the generator gave it, when it matches none of the options
        self.given = plain_label("", self)
        self.given.setStyleSheet(GIVEN_STYLE)
        self.given.hide()
        # Which option each model chose: shown beside the options once the gold is visible
        # (blind mode hides it until the curator has answered). The window sets the source.
        self.model_lines: Callable[[Item], list[str]] | None = None
        self._model_text = ""
        self.models = plain_label("", self)
        self.models.setStyleSheet(MODELS_STYLE)
        self.models.hide()
        self.editor = ItemEditor(self)
        self.editor.hide()
        self.flags_box = QWidget(self)
        self._flags_layout = QVBoxLayout(self.flags_box)
        self._flags_layout.setContentsMargins(0, 0, 0, 0)
        self.flag_labels: list[QLabel] = []
        self._flags: list[Flag] = []
        self._history: list[HistoryEntry] = []
        self.history = HistoryBox(self)
        self._layout()

    def _layout(self) -> None:
        top = QWidget(self)
        column = QVBoxLayout(top)
        column.addWidget(self.meta)
        column.addWidget(self.banner)
        column.addWidget(self.stem)
        for label in self.options:
            column.addWidget(label)
        column.addWidget(self.given)
        column.addWidget(self.models)
        column.addWidget(self.editor)
        self.flags_heading = _heading("Flags", top)
        column.addWidget(self.flags_heading)
        column.addWidget(self.flags_box)
        column.addStretch(1)
        scroll = QScrollArea(self)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setWidget(top)
        # The history takes the height its rows need (one line while it has none), at most a
        # quarter of the column unless the curator drags the handle.
        splitter = self.splitter = QSplitter(Qt.Orientation.Vertical, self)
        splitter.addWidget(scroll)
        splitter.addWidget(self.history)
        splitter.setChildrenCollapsible(False)
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(splitter)

    # -- showing -------------------------------------------------------------------------------

    def show_item(
        self,
        item: Item | None,
        flags: list[Flag],
        history: list[HistoryEntry],
        mine: Review | None,
        *,
        gold_visible: bool = True,
        blind_answer: int | None = None,
        empty_text: str = EMPTY_TEXT,
    ) -> None:
        self.item = item
        self.gold_visible = gold_visible
        self.blind_answer = blind_answer
        self._flags, self._history = flags, history
        self.end_edit()
        self.hide_banner()
        if item is None:
            self.meta.setText("")
            self.stem.setText(empty_text)
            for label in self.options:
                label.hide()
            self.models.hide()
            self.given.hide()
            self._show_flags([])
            self.flags_heading.hide()
            for label in self.flag_labels:  # no "No flags." under no item
                label.hide()
            self.history.show_entries([])
            self.history.hide()  # no "History · No decisions or edits yet." under no item
            return
        self.history.show()
        self.flags_heading.show()
        self.meta.setText(_meta_text(item, mine))
        self.stem.setText(shown(item.content.question))
        lines = self.model_lines(item) if self.model_lines is not None else []
        self._model_text = "Models: " + "   ·   ".join(lines) if lines else ""
        self._render_options()
        self._show_flags(flags)
        self._show_history()

    def reveal(self, blind_answer: int | None) -> None:
        """Blind mode: show the gold, the flags' details and the history once the curator has
        answered."""
        self.gold_visible = True
        self.blind_answer = blind_answer
        self._render_options()
        self._show_flags(self._flags)
        self._show_history()

    def _show_history(self) -> None:
        """The history names gold changes and other curators' verdicts: hidden while blind."""
        if self.gold_visible:
            self.history.show_entries(self._history)
        else:
            self.history.show_message(BLIND_HISTORY)

    def _render_options(self) -> None:
        assert self.item is not None
        content = self.item.content
        for index, label in enumerate(self.options):
            if index >= len(content.options):
                label.hide()
                continue
            label.show()
            is_gold = self.gold_visible and index == content.answer_index
            marks = []
            if is_gold:
                marks.append("✓ gold")
            if self.blind_answer == index:
                marks.append("your answer")
            suffix = f"   [{', '.join(marks)}]" if marks else ""
            label.setText(f"{LETTERS[index]}   {shown(content.options[index])}{suffix}")
            style = GOLD_STYLE if is_gold else OPTION_STYLE
            if self.blind_answer == index and not is_gold:
                style = PICK_STYLE
            _set_style(label, style)
        given = self.item.given_answer
        wrong = content.answer_index is None or not 0 <= content.answer_index < len(content.options)
        if given is not None and wrong and self.gold_visible:  # it is the key: not while blind
            self.given.setText(
                f'The generator\'s answer: "{shown(given)}" (matches none of the options:'
                " E edits the item, 1-4 there picks the gold)"
            )
            self.given.show()
        else:
            self.given.hide()
        visible = bool(self._model_text) and self.gold_visible
        self.models.setText(shown(self._model_text) if visible else "")
        self.models.setVisible(visible)
        if not self.gold_visible:
            self.show_banner("Blind mode: answer with 1-4 to reveal the gold.", "info")

    def show_flags(self, flags: list[Flag]) -> None:
        """Replace the flags shown (after a background re-check of the item on screen)."""
        self._flags = flags
        self._show_flags(flags)

    def _show_flags(self, flags: list[Flag]) -> None:
        """One label per flag. The labels are kept from item to item and only re-styled when
        their severity changes: a new style sheet re-polishes the label, and labels made and
        deleted for every item were a good part of the next item's time."""
        if not flags:
            flags_text = [("No flags.", "")]
        elif self.gold_visible:
            flags_text = [
                (_flag_text(f), SEVERITY_STYLE[f.severity] + " padding:4px;") for f in flags
            ]
        else:
            flags_text = _blind_flags_text(flags)
        tips = [CHECKS.get(f.check, "") for f in flags] if self.gold_visible and flags else []
        while len(self.flag_labels) < len(flags_text):
            label = plain_label("", self.flags_box)
            self._flags_layout.addWidget(label)
            self.flag_labels.append(label)
        for index, (label, (text, style)) in enumerate(
            zip(self.flag_labels, flags_text, strict=False)
        ):
            label.setText(text)
            label.setToolTip(tips[index] if index < len(tips) else "")
            _set_style(label, style)
            label.show()
        for label in self.flag_labels[len(flags_text) :]:
            label.hide()
            label.setText("")
            label.setToolTip("")

    # -- banner and editing --------------------------------------------------------------------

    def show_banner(self, text: str, kind: str = "info") -> None:
        self.banner.setText(text)
        _set_style(self.banner, BANNER_STYLE.get(kind, BANNER_STYLE["info"]))
        self.banner.show()

    def hide_banner(self) -> None:
        self.banner.hide()
        self.banner.setText("")

    def begin_edit(self) -> None:
        assert self.item is not None
        self.stem.hide()
        for label in self.options:
            label.hide()
        self.models.hide()
        self.given.hide()
        self.editor.load(self.item)
        self.editor.show()
        self.editor.stem.setFocus()

    def end_edit(self) -> None:
        if self.editor.isHidden():
            return
        self.editor.hide()
        self.stem.show()
        if self.item is not None:
            self._render_options()

    @property
    def editing(self) -> bool:
        return not self.editor.isHidden()

    def flag_texts(self) -> list[str]:
        """The flags on screen (labels kept hidden for a later item are not)."""
        return [label.text() for label in self.flag_labels if not label.isHidden()]


def _set_style(label: QLabel, style: str) -> None:
    """Set ``label``'s style sheet only when it changes (setting one re-polishes the label)."""
    if label.property("bagel_style") != style:
        label.setProperty("bagel_style", style)
        label.setStyleSheet(style)


def _heading(text: str, parent: QWidget) -> QLabel:
    label = QLabel(text, parent)
    font = label.font()
    font.setBold(True)
    label.setFont(font)
    return label


NBSP = "\u00a0"
META_SEPARATOR = NBSP * 3 + "·   "  # a line may end after the dot, never begin with it


def _meta_text(item: Item, mine: Review | None) -> str:
    """The item's header: 'id · domain · dimension · level · status: unreviewed'. It wraps
    between its parts, and inside a dimension (a phrase: 'Masked participant identification'),
    nowhere else: a narrow item column never shows 'status:' at the end of one line and its
    value at the start of the next."""
    whole = [item.id, item.domain]
    dimension = item.content.dimension
    if not dimension:
        whole.append("(no dimension)")
    level = [item.content.level or "(no level)", f"status: {item.status.value}"]
    if mine is not None:
        level.append(f"your decision: {mine.decision.value}")
    if item.is_revised:
        level.append("edited")
    parts = [p.replace(" ", NBSP) for p in whole]
    if dimension:
        parts.append(dimension)
    parts += [p.replace(" ", NBSP) for p in level]
    return META_SEPARATOR.join(parts)


def _blind_flags_text(flags: list[Flag]) -> list[tuple[str, str]]:
    """Blind mode: which check fired and how bad it is, not its message (messages name the
    options and the gold, e.g. which distractor the text supports); the checks about the key
    (``KEY_CHECKS``) not even by name, only how many wait, in one neutral line."""
    shown_flags = [f for f in flags if f.check not in KEY_CHECKS]
    lines = [
        (f"{f.severity.value.upper()}  {f.check}: {BLIND_FLAG}", SEVERITY_STYLE[f.severity])
        for f in shown_flags
    ]
    hidden = len(flags) - len(shown_flags)
    if hidden:
        lines.append((f"{key_flags_line(hidden)}: {BLIND_FLAG}", SEVERITY_STYLE[Severity.INFO]))
    return [(text, style + " padding:4px;") for text, style in lines]


def _flag_text(flag: Flag) -> str:
    """What the check found, and the first sentence of what the check means (its whole
    definition, as long as docs/CHECKS.md's row, is the label's tooltip)."""
    explanation = first_sentence(CHECKS.get(flag.check, ""))
    text = f"{flag.severity.value.upper()}  {flag.check}: {flag.message}"
    return text + (f"\n{explanation}" if explanation else "")


# a sentence ends at a full stop after a word of two or more letters ("e.g." does not end one)
_SENTENCE_END = re.compile(r"(?<=[a-z)\]\"'][a-z)\]\"'][.!?])\s+(?=[A-Z\"(])")


def first_sentence(text: str) -> str:
    """The first sentence of a check's definition."""
    return _SENTENCE_END.split(text.strip(), maxsplit=1)[0]
