"""The Models panel: model profiles, an evaluation run with progress and cancel, each model's
accuracy and emitted letters, and a second opinion or a regeneration for the desk's item.

Requests run on the panel's own worker thread (never the UI thread); every write goes to the
desk's one database-writer executor (``services.write``, or for a run ``services.writes_of_run``,
whose changes reach every open window when the run ends); progress and results reach the widgets
through signals.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QIntValidator
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from bagel_studio.core.changes import Changes
from bagel_studio.core.domains import LETTERS
from bagel_studio.core.llm.jobs import DESK_ADVICE
from bagel_studio.core.llm.profiles import API_STYLES, DEFAULT_KEY_ENV, Profile, ProfileError
from bagel_studio.core.llm.project import find_profile, load_profiles
from bagel_studio.core.model import Status
from bagel_studio.ui.plain import plain_label
from bagel_studio.ui.secondary import add_button_key
from bagel_studio.ui.services import Executor, RunWrites, Services

PROFILE_COLUMNS = (
    "Label", "Model", "Endpoint", "API", "Grammar", "Key", "Concurrency", "Timeout", "Context",
)  # fmt: skip
# A row per run: a profile in one order of the options (the project's, or a release's seed);
# strict and lenient accuracy apart, as lm-evaluation-harness reports them.
RESULT_COLUMNS = ("Model", "Order", "Answered", "Invalid", "Strict", "Lenient", *LETTERS)
ACCURACY_COLUMNS = (RESULT_COLUMNS.index("Strict"), RESULT_COLUMNS.index("Lenient"))
NUMBER_COLUMNS = {  # right-aligned, so that their digits line up
    "profiles": {PROFILE_COLUMNS.index(c) for c in ("Concurrency", "Timeout", "Context")},
    "results": {
        RESULT_COLUMNS.index(c) for c in ("Answered", "Invalid", "Strict", "Lenient", *LETTERS)
    },
}
RUN_ALL = "Evaluate all items"  # the button's action; its text names the profile it asks
RUN_KEY = "Ctrl+R"  # not Ctrl+E: the desk's export
DETECT = "detect"
MAX_CONTEXT_TOKENS = 100_000_000
CONTEXT_HELP = (
    "The model's context window in tokens, for a server that does not say it. Empty: detected, "
    "as the command line does (llama.cpp's /props, vLLM's model listing, or, last, the error of "
    "a request refused as too long). A second opinion or a regeneration cuts the item's evidence "
    "(only it) to fit, and says so."
)


NO_PROFILES = (
    "No model profile yet: fill in a label, the server's base URL and the model id below, then"
    " Save profile (Ctrl+S)."
)


class _Relay(QObject):
    """Signals from the run's thread to the panel (queued onto the UI thread by Qt)."""

    progress = Signal(int, int)
    finished = Signal(str)
    failed = Signal(str)


class ModelsPanel(QWidget):
    models_changed = Signal()  # a run or a request ended; the windows were told what it changed

    def __init__(self, services: Services, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.services = services
        self.setWindowTitle("Models")
        self.current_item: Callable[[], str | None] = lambda: None
        self._runner = Executor(1, "bagel-llm")
        self._writes: RunWrites = services.writes_of_run()
        self._cancel = threading.Event()
        self._relay = _Relay()
        self._relay.progress.connect(self._progress)
        self._relay.finished.connect(self._finished)
        self._relay.failed.connect(self._failed)
        self.profiles = _table(PROFILE_COLUMNS)
        self.results = _table(RESULT_COLUMNS)
        # the endpoint and the model's label take the width the other columns leave
        # (the others fit their contents: resizeColumnsToContents would undo the stretch)
        for table, column in (
            (self.profiles, PROFILE_COLUMNS.index("Endpoint")),
            (self.results, 0),
        ):
            header = table.horizontalHeader()
            header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.Stretch)
        self.label = QLineEdit()
        self.base_url = QLineEdit("http://127.0.0.1:8080/v1")
        self.model = QLineEdit()
        self.key_env = QLineEdit(DEFAULT_KEY_ENV)
        self.api_style = QComboBox()
        self.api_style.addItems(list(API_STYLES))
        self.grammar = QCheckBox("one letter (llama.cpp grammar)")
        self.concurrency = QSpinBox()
        self.concurrency.setRange(1, 64)
        self.concurrency.setValue(8)
        self.timeout = QDoubleSpinBox()
        self.timeout.setRange(1, 3600)
        self.timeout.setDecimals(0)
        self.timeout.setValue(60)
        self.timeout.setSuffix(" s")
        self.timeout.setToolTip(
            "How long one request may take as a whole; a run stops after three items in a row "
            "got no reply in time"
        )
        # Empty means detected, as without --context-tokens; a number is kept in the profile.
        self.context_tokens = QLineEdit()
        self.context_tokens.setValidator(QIntValidator(0, MAX_CONTEXT_TOKENS, self.context_tokens))
        self.context_tokens.setPlaceholderText(f"{DETECT} (empty)")
        self.context_tokens.setToolTip(CONTEXT_HELP)
        self.context_tokens.setClearButtonEnabled(True)
        self.save = QPushButton("Save profile")
        self.run_button = QPushButton(RUN_ALL)
        self.cancel_button = QPushButton("Cancel")
        self.judge_button = QPushButton("Second opinion on the desk's item")
        self.regenerate_button = QPushButton("Regenerate the desk's rejected item")
        self.no_profiles = plain_label(NO_PROFILES, selectable=False)
        self.bar = QProgressBar()
        self.status = plain_label("")
        # Beside the accuracies: how many replies held no letter (they count as wrong) and, when
        # they are many, that the figure measures the reply format (as the CLI prints it).
        self.notes = plain_label("")
        self._layout()
        self.save.clicked.connect(self.save_profile)
        self.profiles.itemSelectionChanged.connect(self._show_selected)
        self.run_button.clicked.connect(self.run_evaluation)
        self.cancel_button.clicked.connect(self.cancel)
        self.judge_button.clicked.connect(lambda: self._item_job("judge"))
        self.regenerate_button.clicked.connect(lambda: self._item_job("regenerate"))
        self.cancel_button.setEnabled(False)
        for button, key in (
            (self.save, "Ctrl+S"),
            (self.run_button, RUN_KEY),
            (self.cancel_button, "Ctrl+."),
            (self.judge_button, "Ctrl+J"),
            (self.regenerate_button, "Ctrl+G"),
        ):
            add_button_key(self, button, key)
        self.refresh()
        services.listen(self)

    def apply_changes(self, changes: Changes, origin: object) -> None:
        """Profiles or answers written elsewhere (a run of this panel re-reads them when it
        ends): the tables again, while the panel is open."""
        if changes.models and origin is not self and self.isVisible():
            self.refresh()

    def _layout(self) -> None:
        form = QFormLayout()
        form.addRow("Label", self.label)
        form.addRow("Base URL", self.base_url)
        form.addRow("Model id", self.model)
        form.addRow("Key variable", self.key_env)
        form.addRow("API", _row(self.api_style, 1, self.grammar))
        form.addRow(
            "Concurrency",
            _row(self.concurrency, 1, _buddy("Timeout", self.timeout), self.timeout, 1,
                 _buddy("Context tokens", self.context_tokens), self.context_tokens, 1),
        )  # fmt: skip
        form.addRow("", self.save)
        buttons = QHBoxLayout()
        for button in (self.run_button, self.cancel_button):
            buttons.addWidget(button)
        buttons.addWidget(self.bar, 1)
        items = QHBoxLayout()
        items.addWidget(self.judge_button)
        items.addWidget(self.regenerate_button)
        layout = QVBoxLayout(self)
        layout.addWidget(plain_label("Profiles (the key is read from its environment variable)"))
        layout.addWidget(self.profiles, 2)
        layout.addWidget(self.no_profiles)
        layout.addLayout(form)
        layout.addLayout(buttons)
        layout.addLayout(items)
        layout.addWidget(self.status)
        layout.addWidget(
            plain_label(
                "Accuracy per run (a model in one order of the options), strict (the reply is "
                "the letter alone) and lenient (the first letter read in it), and emitted letters "
                "(position bias); a reply without a letter A-D is invalid and counts as wrong"
            )
        )
        layout.addWidget(self.results, 2)
        layout.addWidget(self.notes)

    # -- showing -------------------------------------------------------------------------------

    def refresh(self) -> None:
        """Re-read the profiles and the models' results from the project."""
        from bagel_studio.core.llm.metrics import DESK_REMEDY, invalid_note, models_stats

        store = self.services.store
        profiles = load_profiles(store)
        self.no_profiles.setVisible(not profiles)
        self.profiles.setRowCount(len(profiles))
        for row, p in enumerate(profiles):
            context = f"{p.context_tokens:,}" if p.context_tokens else DETECT
            cells = [p.label, p.model, p.base_url, p.api_style, "yes" if p.grammar else "no",
                     f"${p.api_key_env} ({p.key_state()})", str(p.concurrency),
                     f"{p.timeout:g} s", context]  # fmt: skip
            for column, text in enumerate(cells):
                self.profiles.setItem(
                    row, column, _cell(text, column in NUMBER_COLUMNS["profiles"])
                )
        if profiles and not self.profiles.selectedItems():
            self.profiles.selectRow(0)
        stats = models_stats(store)
        self.results.setRowCount(len(stats))
        notes = []
        for row, (name, s) in enumerate(stats.items()):
            letters = {x: sum(d[x] for d in s["letters"].values()) for x in LETTERS}
            total = sum(letters.values()) or 1
            answered, invalid = s["answered"], s["invalid"]
            note = invalid_note(answered, invalid, DESK_REMEDY)
            mark = " *" if note else ""
            cells = [s["profile"], s["order"], str(answered),
                     f"{invalid} ({invalid / answered:.0%})" if invalid else "0",
                     _share(s["strict_accuracy"]["overall"], mark),
                     _share(s["accuracy"]["overall"], mark),
                     *[f"{letters[x]} ({letters[x] / total:.0%})" for x in LETTERS]]  # fmt: skip
            for column, text in enumerate(cells):
                cell = _cell(text, column in NUMBER_COLUMNS["results"])
                if note and (
                    column == RESULT_COLUMNS.index("Invalid") or column in ACCURACY_COLUMNS
                ):
                    cell.setToolTip(note)
                self.results.setItem(row, column, cell)
            if note:
                notes.append(f"* {name}: {note}.")
            if s["no_gold"]:
                items = "item" if s["no_gold"] == 1 else "items"
                notes.append(f"{name}: {s['no_gold']} answered {items} without a valid gold: left "
                             "out of the accuracy.")  # fmt: skip
        self.notes.setText("\n".join(notes))
        self.notes.setVisible(bool(notes))

    def _select(self, label: str) -> None:
        for row in range(self.profiles.rowCount()):
            cell = self.profiles.item(row, 0)
            if cell is not None and cell.text() == label:
                self.profiles.selectRow(row)
                return

    def selected_profile(self) -> Profile | None:
        rows = {index.row() for index in self.profiles.selectedIndexes()}
        if not rows:
            return None
        label_cell = self.profiles.item(min(rows), 0)
        profiles = {p.label: p for p in load_profiles(self.services.store)}
        return profiles.get(label_cell.text()) if label_cell else None

    def _show_selected(self) -> None:
        """The selected profile's settings in the form, to be changed and saved again; the run
        button names it (it asks that profile alone, in the project's order)."""
        profile = self.selected_profile()
        which = f" with {profile.label}" if profile else ""
        self.run_button.setText(f"{RUN_ALL}{which} [{RUN_KEY}]")
        if profile is None:
            return
        self.label.setText(profile.label)
        self.base_url.setText(profile.base_url)
        self.model.setText(profile.model)
        self.key_env.setText(profile.api_key_env)
        self.api_style.setCurrentText(profile.api_style)
        self.grammar.setChecked(profile.grammar)
        self.concurrency.setValue(profile.concurrency)
        self.timeout.setValue(profile.timeout)
        self.context_tokens.setText(str(profile.context_tokens or ""))

    # -- actions -------------------------------------------------------------------------------

    def _form_profile(self) -> Profile:
        """The profile the form describes. Saved over a stored one of the same label, it keeps
        that one's settings the form does not show (max tokens, temperature, seed)."""
        context = self.context_tokens.text().strip().replace(",", "")
        if context and (not context.isdigit() or int(context) < 1):
            raise ProfileError(
                f"context tokens must be a whole number of tokens, or empty to detect: {context}"
            )
        model = self.model.text().strip()
        settings: dict[str, Any] = {
            "label": self.label.text().strip() or model,
            "model": model,
            "base_url": self.base_url.text().strip(),
            "api_key_env": self.key_env.text().strip() or DEFAULT_KEY_ENV,
            "api_style": self.api_style.currentText(),
            "grammar": self.grammar.isChecked(),
            "concurrency": self.concurrency.value(),
            "timeout": self.timeout.value(),
            "context_tokens": int(context) if context else None,
        }
        stored = find_profile(self.services.store, settings["label"])
        return replace(stored, **settings) if stored else Profile(**settings)

    def save_profile(self) -> None:
        from bagel_studio.core.operations.llm import save_profile

        try:
            profile = self._form_profile()
        except ProfileError as exc:
            self.status.setText(f"Not saved: {exc}")
            return
        store = self.services.store

        def saved(_result: object) -> None:
            self.refresh()
            self._select(profile.label)
            self.status.setText(f"Saved {profile.label}")

        self.services.write(
            lambda: save_profile(store, profile),
            origin=self,
            done=saved,
            failed=lambda exc: self.status.setText(f"Not saved: {exc}"),
        )

    def _start(self, job: Callable[[], str], what: str) -> None:
        self._cancel = threading.Event()
        self._writes = self.services.writes_of_run()
        self.run_button.setEnabled(False)
        self.judge_button.setEnabled(False)
        self.regenerate_button.setEnabled(False)
        self.cancel_button.setEnabled(True)
        self.bar.setRange(0, 0)
        self.status.setText(what)
        self.status.setStyleSheet("")

        def run() -> None:
            try:
                self._relay.finished.emit(job())
            except Exception as exc:  # shown to the curator, never a crash
                self._relay.failed.emit(str(exc))

        self._runner.submit(run)

    def run_evaluation(self) -> None:
        profile = self.selected_profile()
        if profile is None:
            self.status.setText("Save or select a profile first.")
            return
        store = self.services.store

        def job() -> str:
            from bagel_studio.core.llm.client import LLMClient
            from bagel_studio.core.llm.evaluate import evaluate, questions

            client = LLMClient(profile)
            try:
                client.check()
                summary = evaluate(
                    store, profile, questions(store), client=client,
                    progress=self._relay.progress.emit, cancel=self._cancel,
                    write=self._writes.write, advice=DESK_ADVICE,
                )  # fmt: skip
            finally:
                client.close()
            s = summary.to_json()
            counts = (
                f"{s['asked']} asked ({s['already_answered']} answered before): {s['strict']} "
                f"strict, {s['lenient']} lenient, {s['invalid']} invalid, {s['failed']} failed."
            )
            if s["stopped"]:
                return f"{profile.label}: stopped. {counts} Why: {_first_upper(s['stopped'])}."
            ending = "cancelled" if s["cancelled"] else "done"
            return f"{profile.label}: {ending}. {counts}"

        self._start(job, f"Evaluating with {profile.label}…")

    def _item_job(self, kind: str) -> None:
        profile = self.selected_profile()
        item_id = self.current_item()
        if profile is None or item_id is None:
            self.status.setText("Select a profile and show an item in the desk first.")
            return
        store = self.services.store
        item = store.items.get(item_id)
        if kind == "regenerate" and item.status is not Status.REJECTED:
            self.status.setText(f"{item_id} is {item.status.value}: regenerate a rejected item.")
            return

        def job() -> str:
            from bagel_studio.core.llm.client import LLMClient

            client = LLMClient(profile)
            try:
                client.check()
                if kind == "judge":
                    from bagel_studio.core.llm.judge import judge

                    summary = judge(
                        store, profile, [item], client=client, cancel=self._cancel,
                        write=self._writes.write, advice=DESK_ADVICE,
                    )  # fmt: skip
                    if summary.stopped:
                        return f"{item_id}: stopped. Why: {_first_upper(summary.stopped)}."
                    cut = summary.shortened.get(item_id)
                    return (
                        f"{item_id}: "
                        + (
                            ", ".join(summary.verdicts)
                            or "the reply could not be read: " + "; ".join(summary.errors)
                        )
                        + (f" ({cut})" if cut else "")
                    )
                from bagel_studio.core.llm.regenerate import regenerate

                result = regenerate(
                    store, profile, [item], client=client, cancel=self._cancel,
                    write=self._writes.write, advice=DESK_ADVICE,
                )  # fmt: skip
                if result.stopped:
                    return f"{item_id}: stopped. Why: {_first_upper(result.stopped)}."
                outcome = result.outcomes.get(item_id, "")
                detail = result.created.get(item_id) or result.reasons.get(item_id, "")
                cut = result.shortened.get(item_id)
                return f"{item_id}: {outcome} {detail}".strip() + (f" ({cut})" if cut else "")
            finally:
                client.close()

        self._start(job, f"Asking {profile.label} about {item_id}…")

    def cancel(self) -> None:
        self._cancel.set()
        self.status.setText("Cancelling: answers already received are kept…")

    # -- results (on the UI thread) ------------------------------------------------------------

    def _progress(self, done: int, total: int) -> None:
        self.bar.setRange(0, max(total, 1))
        self.bar.setValue(done)
        self.bar.setFormat(f"{done} / {total}")

    def _finished(self, message: str) -> None:
        self._end(message)

    def _failed(self, message: str) -> None:
        self._end(f"Stopped: {message}")

    def _end(self, message: str) -> None:
        self.status.setText(message)
        # a run that stopped before asking everything stands out from one that finished
        self.status.setStyleSheet("font-weight: bold" if "stopped" in message.lower() else "")
        self.bar.setRange(0, 1)
        self.bar.setValue(1)
        for button in (self.run_button, self.judge_button, self.regenerate_button):
            button.setEnabled(True)
        self.cancel_button.setEnabled(False)
        self.refresh()
        self.services.tell(self._writes.changes, self)
        self.models_changed.emit()

    def closeEvent(self, event: Any) -> None:
        self._cancel.set()
        self._runner.shutdown()
        super().closeEvent(event)


def _share(value: float | None, mark: str) -> str:
    return "-" if value is None else f"{value:.1%}{mark}"


def _first_upper(text: str) -> str:
    return text[:1].upper() + text[1:]


def _cell(text: str, number: bool) -> QTableWidgetItem:
    cell = QTableWidgetItem(text)
    if number:
        cell.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
    return cell


def _buddy(text: str, field: QWidget) -> QLabel:
    """A label for a field sharing a form row (its mnemonic-free buddy, for screen readers)."""
    label = QLabel(text)
    label.setBuddy(field)
    return label


def _row(*parts: QWidget | int) -> QHBoxLayout:
    """Widgets side by side in one form row; an int is a stretch factor for the widget before."""
    row = QHBoxLayout()
    row.setContentsMargins(0, 0, 0, 0)
    widgets: list[tuple[QWidget, int]] = []
    for part in parts:
        if isinstance(part, int):
            widgets[-1] = (widgets[-1][0], part)
        else:
            widgets.append((part, 0))
    for widget, stretch in widgets:
        row.addWidget(widget, stretch)
    return row


def _table(columns: tuple[str, ...]) -> QTableWidget:
    table = QTableWidget(0, len(columns))
    table.setHorizontalHeaderLabels(list(columns))
    table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
    table.setSelectionBehavior(QTableWidget.SelectionBehavior.SelectRows)
    table.setSelectionMode(QTableWidget.SelectionMode.SingleSelection)
    table.verticalHeader().hide()
    return table
