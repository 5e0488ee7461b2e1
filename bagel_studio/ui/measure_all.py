"""Review → Measure all clips…: every recording of the project measured at once, from the desk
(and its species detected by BirdNET, when installed; else the dialog says how to get it).

The same engine as ``bagel-studio analyze`` (``operations.analyze_recordings``: a pool of
processes, one per core, or this process for a few clips), run on a thread of its own so the desk
stays usable; each batch of results is stored through the desk's single writer thread
(``services.writes_of_run``), progress comes back through a signal, and Cancel (or closing the
dialog) stops after the clips under way, keeping what was measured. Clips measured before are
skipped, so a later run finishes the rest. When it ends, every open window is told what the run
changed (the flags of the clips' items).
"""

from __future__ import annotations

import threading
from typing import Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from bagel_studio.ui.plain import plain_label
from bagel_studio.ui.services import Services


class _Relay(QObject):
    """Emitted on the measuring thread, delivered (queued) on the main thread."""

    progressed = Signal(int, int)
    finished = Signal(object)  # the AnalysisReport
    failed = Signal(str)


class MeasureAllDialog(QDialog):
    """A progress bar, what it is doing, and Cancel (Close once done)."""

    def __init__(self, services: Services, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.services = services
        self.running = False
        self.report: Any = None
        self._cancel = threading.Event()
        self._writes = services.writes_of_run()
        self._relay = _Relay()
        self._relay.progressed.connect(self._progressed)
        self._relay.finished.connect(self._finished)
        self._relay.failed.connect(self._failed)
        self.setWindowTitle("Measure all clips")
        self.setMinimumWidth(520)
        layout = QVBoxLayout(self)
        self.status = plain_label("", self)
        self.status.setWordWrap(True)
        self.bar = QProgressBar(self)
        self.buttons = QDialogButtonBox(self)
        self.cancel_button = QPushButton("Cancel", self)
        self.buttons.addButton(self.cancel_button, QDialogButtonBox.ButtonRole.RejectRole)
        self.cancel_button.clicked.connect(self.cancel_or_close)
        for widget in (self.status, self.bar, self.buttons):
            layout.addWidget(widget)

    def start(self, workers: int | None = None) -> None:
        """Measure every clip not measured yet (on ``workers`` processes; default one per core)."""
        if self.running:
            return
        self.running = True
        self.report = None
        self.bar.setRange(0, 0)
        self.status.setText("Finding the clips not measured yet…")
        self.cancel_button.setText("Cancel")
        store = self.services.store
        self._writes = writes = self.services.writes_of_run()

        def run() -> None:
            from bagel_studio.core.operations import analyze_recordings

            try:
                report = analyze_recordings(
                    store, workers=workers, progress=self._relay.progressed.emit,
                    cancel=self._cancel, write=writes.write,
                ).result  # fmt: skip
            except Exception as exc:  # shown to the curator, never a crash
                self._relay.failed.emit(str(exc) or type(exc).__name__)
            else:
                self._relay.finished.emit(report)

        threading.Thread(target=run, name="bagel-measure-all", daemon=True).start()

    def cancel(self) -> None:
        """Stop after the clips under way; what was measured is kept."""
        if self.running:
            self._cancel.set()
            self.status.setText("Cancelling: finishing the clips under way…")
            self.cancel_button.setEnabled(False)

    def cancel_or_close(self) -> None:
        if self.running:
            self.cancel()
        else:
            self.accept()

    def closeEvent(self, event: QCloseEvent) -> None:
        self.cancel()
        super().closeEvent(event)

    def reject(self) -> None:  # Esc
        self.cancel_or_close()

    def _progressed(self, done: int, total: int) -> None:
        self.bar.setRange(0, max(total, 1))
        self.bar.setValue(done)
        if not self._cancel.is_set():
            self.status.setText(f"Measuring clip {done:,} of {total:,}…")

    def _finished(self, report: Any) -> None:
        self.running = False
        self.report = report
        self._cancel = threading.Event()
        self.bar.setRange(0, 1)
        self.bar.setValue(1)
        ending = "Cancelled" if report.cancelled else "Done"
        text = (
            f"{ending}: {report.measured:,} clips measured, {report.unreadable:,} unreadable, "
            f"{report.already:,} measured before, {len(report.missing):,} without an audio file."
        )
        if report.species_note:
            text += f"\nSpecies not detected: {report.species_note}"
        elif report.detected:
            text += f" BirdNET detected the species of {report.detected:,} clips."
        if report.cancelled:
            text += " Measure again to finish the rest."
        self.status.setText(text)
        self.cancel_button.setText("Close")
        self.cancel_button.setEnabled(True)
        self.services.tell(self._writes.changes, self)

    def _failed(self, message: str) -> None:
        self.running = False
        self.services.tell(self._writes.changes, self)  # what was stored before it stopped
        self._cancel = threading.Event()
        self.bar.setRange(0, 1)
        self.status.setText(f"Measuring stopped: {message}")
        self.cancel_button.setText("Close")
        self.cancel_button.setEnabled(True)
