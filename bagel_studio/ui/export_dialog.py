"""The export dialog: choose a seed and a folder, see what will be released, export.

The preview is the core's own plan (``plan_export``) for the current seed, so what the dialog shows
is exactly what the export writes: items released per domain, items left out per status, the
gold positions before and after shuffling, the items that block the export, and what the last
audit found among the items the release takes (near-duplicate pairs, cross-item leaks, items
answerable without their stem: said before the release goes out, not blocking it). Planning and
exporting run on the worker pool over a separate read-only connection to the project (the export
only reads, and the read-only connection gives it one consistent snapshot while the desk keeps
writing); results come back to the main thread through the executor's callbacks, progress through
a signal. The export is noted in the project's ``exports`` table on the writer executor.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from PySide6.QtCore import QObject, Qt, QTimer, QUrl, Signal
from PySide6.QtGui import QDesktopServices, QGuiApplication
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from bagel_studio.core.audit.stored import AuditFindings, findings_among
from bagel_studio.core.changes import Changes, Part
from bagel_studio.core.domains import LETTERS
from bagel_studio.core.export import (
    ExportBlockedError,
    ExportCancelled,
    ExportPlan,
    ExportResult,
    export_release,
    last_export_seed,
    plan_export,
)
from bagel_studio.core.operations.export import record_export
from bagel_studio.core.store import Store
from bagel_studio.ui.plain import plain_label
from bagel_studio.ui.services import Services

PREVIEW_DELAY_MS = 250  # wait for the seed to settle before planning again
PLANNED_PARTS = Part.CONTENT | Part.STATUS | Part.FLAGS | Part.NEW  # what the preview reads
AUDIT_ROWS_SHOWN = 8  # findings listed before the list scrolls
AUDIT_FOUND_STYLE = "background:#fff3e0; border-left:4px solid #ef6c00; padding:4px;"
NO_AUDIT = (
    "The audit has not been run on this project: Review → Audit… (Ctrl+Shift+U) finds"
    " near-duplicate items, cross-item leaks and options that give the answer away before a"
    " release goes out."
)


BALANCE_CAPTION = (
    "Gold positions per domain, before → after the shuffle (Max - min: how far the after"
    " counts are from an even split)"
)


class _ProgressRelay(QObject):
    """Emitted on a worker thread, delivered (queued) on the main thread."""

    progressed = Signal(int, int)


class ExportDialog(QDialog):
    """Seed, output folder, preview, progress bar, Export / Close (Enter exports, Esc closes)."""

    exported = Signal(object)  # the ExportResult

    def __init__(self, services: Services, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.services = services
        self.plan: ExportPlan | None = None
        self.result_value: ExportResult | None = None
        self.error: BaseException | None = None
        self.running = False
        self._generation = 0
        self._cancel = threading.Event()
        self.setWindowTitle("Export release")
        self.setMinimumSize(640, 560)
        self._build()
        self._relay = _ProgressRelay()
        self._relay.progressed.connect(self._show_progress)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(PREVIEW_DELAY_MS)
        self._timer.timeout.connect(self.refresh_preview)
        self.seed_box.valueChanged.connect(lambda _value: self._timer.start())
        self.refresh_preview()
        services.listen(self)

    def apply_changes(self, changes: Changes, origin: object) -> None:
        """Decisions, edits or flags written while the dialog is open change what the release
        takes: the preview is planned again (once the writes settle), unless an export runs."""
        if changes.parts & PLANNED_PARTS and self.isVisible() and not self.running:
            self._timer.start()

    # -- layout --------------------------------------------------------------------------------

    def _build(self) -> None:
        store = self.services.store
        self.seed_box = QSpinBox(self)
        self.seed_box.setRange(0, 2_147_483_647)
        self.seed_box.setValue(last_export_seed(store) or 0)
        self.out_edit = QLineEdit(str(_default_out_dir(store)), self)
        browse = QPushButton("Browse…", self)
        browse.setAutoDefault(False)
        browse.clicked.connect(self._browse)
        folder = QHBoxLayout()
        folder.addWidget(self.out_edit, 1)
        folder.addWidget(browse)
        self.replace_box = QCheckBox("Replace the folder if it is not empty", self)
        form = QFormLayout()
        form.addRow("&Seed:", self.seed_box)
        folder_label = QLabel("&Folder:", self)
        folder_label.setBuddy(self.out_edit)  # a layout row label is not a buddy: '&' would show
        form.addRow(folder_label, folder)
        form.addRow("", self.replace_box)

        self.preview_label = plain_label("Planning…", self, selectable=False)  # quotes errors
        self.left_out_label = QLabel("", self)
        self.left_out_label.setWordWrap(True)
        self.balance_table = QTableWidget(0, len(LETTERS) + 2, self)
        self.balance_table.setHorizontalHeaderLabels([*LETTERS, "Items", "Max - min"])
        self.balance_table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.balance_table.setToolTip("Gold positions before -> after shuffling, per domain")
        self.audit_label = plain_label("", self, selectable=False)
        self.audit_list = QListWidget(self)
        self.audit_list.hide()
        self.blocked_label = QLabel("", self)
        self.blocked_label.setWordWrap(True)
        self.blocked_list = QListWidget(self)
        self.blocked_list.hide()
        self.progress = QProgressBar(self)
        self.progress.setRange(0, 100)
        self.progress.setValue(0)
        self.progress.hide()  # until an export runs: a bar at 0% before it said nothing
        self.status_label = plain_label("", self)  # folder names and error messages

        self.buttons = QDialogButtonBox(self)
        self.export_button = self.buttons.addButton(
            "&Export", QDialogButtonBox.ButtonRole.AcceptRole
        )
        self.report_button = self.buttons.addButton(
            "Open &report", QDialogButtonBox.ButtonRole.ActionRole
        )
        self.close_button = self.buttons.addButton(QDialogButtonBox.StandardButton.Close)
        self.export_button.setDefault(True)
        self.export_button.setToolTip("Write the release (Enter or Alt+E)")
        self.export_button.setEnabled(False)
        self.report_button.setEnabled(False)
        self.report_button.clicked.connect(self.open_report)
        self.buttons.accepted.connect(self.start_export)
        self.buttons.rejected.connect(self.reject)

        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.preview_label)
        layout.addWidget(plain_label(BALANCE_CAPTION, self, selectable=False))
        layout.addWidget(self.balance_table)  # as high as its rows: no empty band below them
        layout.addWidget(self.left_out_label)
        layout.addWidget(self.audit_label)
        layout.addWidget(self.audit_list)  # as high as its findings (a few), scrolled beyond
        layout.addWidget(self.blocked_label)
        layout.addWidget(self.blocked_list, 1)
        layout.addWidget(self.progress)
        layout.addWidget(self.status_label)
        layout.addStretch(1)
        layout.addWidget(self.buttons)

    def _browse(self) -> None:
        start = str(Path(self.out_edit.text()).parent)
        chosen = QFileDialog.getExistingDirectory(self, "Export the release to", start)
        if chosen:
            self.out_edit.setText(chosen)

    # -- preview -------------------------------------------------------------------------------

    def refresh_preview(self) -> None:
        """Plan the release for the current seed on a worker; stale answers are dropped."""
        self._generation += 1
        generation, seed = self._generation, self.seed_box.value()
        self.preview_label.setText(f"Planning the release with seed {seed}…")
        self.export_button.setEnabled(False)

        def job() -> tuple[ExportPlan, AuditFindings]:
            with self._reader() as store:
                plan = plan_export(store, seed)
                return plan, findings_among(store, [slot.item_id for slot in plan.items.slots])

        self.services.workers.submit(
            job,
            lambda planned: self._show_plan(generation, *planned),
            lambda error: self._show_error(generation, error),
        )

    def _show_plan(self, generation: int, plan: ExportPlan, audit: AuditFindings) -> None:
        if generation != self._generation:
            return
        self.plan = plan
        self._show_audit(plan, audit)
        released = plan.released_by_domain()
        per_domain = ", ".join(f"{d} {n}" for d, n in released.items()) or "no domain"
        self.preview_label.setText(
            f"{len(plan.items):,} item{'' if len(plan.items) == 1 else 's'} will be released"
            f" with seed {plan.seed}: {per_domain}."
            if plan.items
            else "Nothing to release yet: only accepted and revised items are released. Accept"
            " items at the desk (A), then export."
        )
        left_out = plan.left_out_totals()
        self.left_out_label.setText(
            "Left out: " + (", ".join(f"{n} {s}" for s, n in left_out.items()) or "none")
        )
        self._fill_balance(plan)
        self.blocked_list.clear()
        for blocked in plan.blocked:
            self.blocked_list.addItem(str(blocked))
        self.blocked_list.setVisible(bool(plan.blocked))
        self.blocked_label.setText(
            f"{len(plan.blocked)} item(s) block the export; fix or reject them first:"
            if plan.blocked
            else ""
        )
        self.export_button.setEnabled(not plan.blocked and bool(plan.items) and not self.running)

    def _show_audit(self, plan: ExportPlan, audit: AuditFindings) -> None:
        """What the last audit found among the items the release takes, each finding listed;
        that it found nothing; or that no audit was run."""
        self.audit_list.clear()
        if audit.ran_at is None:
            text, style = NO_AUDIT, ""
        elif audit:
            text = (
                f"The last audit found, among the {len(plan.items):,} items this release takes:"
                f" {', '.join(audit.counts())} (audit of {_when(audit.ran_at)}). Review → Audit…"
                " opens them; reject or edit them first, or release them knowingly."
            )
            style = AUDIT_FOUND_STYLE
            self.audit_list.addItems(audit.lines())
        else:
            text = (
                f"The last audit ({_when(audit.ran_at)}) found nothing among the items this"
                " release takes."
            )
            style = ""
        self.audit_label.setText(text)
        self.audit_label.setStyleSheet(style)
        self.audit_list.setVisible(self.audit_list.count() > 0)
        rows = min(self.audit_list.count(), AUDIT_ROWS_SHOWN)
        row_height = self.audit_list.sizeHintForRow(0) if rows else 0
        self.audit_list.setFixedHeight(rows * row_height + 2 * self.audit_list.frameWidth() + 4)

    def _fill_balance(self, plan: ExportPlan) -> None:
        table = self.balance_table
        table.setRowCount(len(plan.balance))
        table.setVerticalHeaderLabels(list(plan.balance))
        for row, balance in enumerate(plan.balance.values()):
            cells = [f"{b} → {a}" for b, a in zip(balance.before, balance.after, strict=True)]
            cells += [str(sum(balance.after)), str(balance.spread)]
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                table.setItem(row, column, item)
        table.resizeColumnsToContents()
        table.resizeRowsToContents()
        rows = sum(table.rowHeight(r) for r in range(table.rowCount()))
        header = table.horizontalHeader().sizeHint().height()
        table.setFixedHeight(header + rows + 2 * table.frameWidth())

    def _show_error(self, generation: int, error: BaseException) -> None:
        if generation == self._generation:
            self.error = error
            self.preview_label.setText(f"Could not plan the release: {error}")

    # -- export --------------------------------------------------------------------------------

    def start_export(self) -> None:
        """Export on a worker with the current seed and folder (Enter does this)."""
        if self.running or not self.export_button.isEnabled():
            return
        out_dir = Path(self.out_edit.text().strip()).expanduser()
        if not self.out_edit.text().strip():
            self.status_label.setText("Choose a folder to export to.")
            return
        seed, force = self.seed_box.value(), self.replace_box.isChecked()
        self.running = True
        self.error = None
        self._cancel.clear()
        self._set_inputs_enabled(False)
        self.progress.setValue(0)
        self.progress.show()
        self.status_label.setText(f"Exporting to {out_dir}…")

        def progress(done: int, total: int) -> None:
            if self._cancel.is_set():
                raise ExportCancelled("export cancelled")
            self._relay.progressed.emit(done, total)

        def job() -> ExportResult:
            with self._reader() as store:
                return export_release(store, out_dir, seed, force=force, progress=progress)

        self.services.workers.submit(job, self._export_done, self._export_failed)

    def _show_progress(self, done: int, total: int) -> None:
        self.progress.setRange(0, max(total, 1))
        self.progress.setValue(done)

    def _export_done(self, result: ExportResult) -> None:
        self.running = False
        self.result_value = result
        self._set_inputs_enabled(True)
        self.progress.setValue(self.progress.maximum())
        self.status_label.setText(
            f"Released {result.released} items with seed {result.seed} to {result.out_dir}."
        )
        self.report_button.setEnabled(True)
        self.report_button.setFocus()
        store = self.services.store
        if not store.read_only:
            manifest = result.manifest
            self.services.write(
                lambda: record_export(store, str(result.out_dir), result.seed, manifest),
                origin=self,
            )
        self.exported.emit(result)

    def _export_failed(self, error: BaseException) -> None:
        self.running = False
        self.error = error
        self._set_inputs_enabled(True)
        self.progress.setValue(0)
        if isinstance(error, ExportCancelled):
            self.status_label.setText("Export cancelled; nothing was written.")
        elif isinstance(error, ExportBlockedError):
            self.status_label.setText(f"Nothing was written: {error}")
            self.refresh_preview()
        else:
            self.status_label.setText(f"Nothing was written: {error}")

    def _set_inputs_enabled(self, enabled: bool) -> None:
        for widget in (self.seed_box, self.out_edit, self.replace_box):
            widget.setEnabled(enabled)
        can_export = enabled and self.plan is not None and not self.plan.blocked
        self.export_button.setEnabled(can_export and bool(self.plan and self.plan.items))
        self.close_button.setText("Close" if enabled else "Cancel")

    def open_report(self) -> None:
        """Open the release's report with the desktop's program for it; where there is none
        (no desktop, nothing registered for the file), say so, show its path (selectable) and
        copy it."""
        if self.result_value is None:
            return
        path = str(self.result_value.report_path)
        if QDesktopServices.openUrl(QUrl.fromLocalFile(path)):
            self.status_label.setText(f"Opened the report: {path}")
            return
        QGuiApplication.clipboard().setText(path)
        self.status_label.setText(
            f"No program here opens it (no desktop launcher); the report is {path}"
            " (the path is copied: paste it where you read Markdown)."
        )

    def reject(self) -> None:
        """Esc or Close: while exporting, cancel (nothing is left behind); otherwise close."""
        if self.running:
            self._cancel.set()
            self.status_label.setText("Cancelling…")
            return
        super().reject()

    # -- helpers -------------------------------------------------------------------------------

    @contextmanager
    def _reader(self) -> Iterator[Store]:
        """A read-only connection of its own for the worker (the shared one belongs to the
        writer); an in-memory project has no file to reopen and is read directly."""
        path = self.services.store.path
        if str(path) == ":memory:":
            yield self.services.store
            return
        store = Store.open(path, read_only=True)
        try:
            yield store
        finally:
            store.close()


def _default_out_dir(store: Store) -> Path:
    path = Path(store.path)
    if str(path) == ":memory:":
        return Path.home() / "bagel-release"
    return path.with_name(f"{path.stem}-release")


def _when(stamp: str) -> str:
    """'2026-11-23T16:47:29.023+00:00' as '2026-11-23 16:47 UTC'."""
    if len(stamp) >= 16 and stamp[10] == "T" and stamp.endswith(("+00:00", "Z")):
        return f"{stamp[:10]} {stamp[11:16]} UTC"
    return stamp
