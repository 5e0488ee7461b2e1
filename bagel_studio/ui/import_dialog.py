"""Import (and merge) with a progress bar: the work runs on the writer executor.

The importer reports progress from the writer thread; a QObject signal carries it to the dialog on
the main thread. At the end the dialog shows the importer's own summary, including every rejected
line as ``file:line: reason``, so nothing is dropped silently. Like every write it runs through
``services.write``: once committed, every open window redraws what it changed.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QPlainTextEdit,
    QProgressBar,
    QVBoxLayout,
    QWidget,
)

from bagel_studio.core.changes import Done
from bagel_studio.ui.plain import plain_label
from bagel_studio.ui.services import Services


class _ProgressRelay(QObject):
    """Emitted from the writer thread, delivered (queued) on the main thread."""

    progressed = Signal(object)


class BackgroundJobDialog(QDialog):
    """A progress bar while ``job`` runs on the writer, then a plain-text summary."""

    def __init__(self, services: Services, title: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.services = services
        self.setWindowTitle(title)
        self.setMinimumSize(560, 360)
        self.label = plain_label("Starting…", self, wrap=False, selectable=False)  # file names
        self.bar = QProgressBar(self)
        self.bar.setRange(0, 0)
        self.summary = QPlainTextEdit(self)
        self.summary.setReadOnly(True)
        self.summary.hide()
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        self.buttons.rejected.connect(self.reject)
        self.buttons.setEnabled(False)
        layout = QVBoxLayout(self)
        layout.addWidget(self.label)
        layout.addWidget(self.bar)
        layout.addWidget(self.summary, 1)
        layout.addWidget(self.buttons)
        self._relay = _ProgressRelay()
        self._relay.progressed.connect(self._show_progress)
        self.result_value: Any = None
        self.error: BaseException | None = None
        self.completed = False

    def job(self, progress: Callable[..., None]) -> Done[Any]:
        raise NotImplementedError

    def summary_lines(self, result: Any) -> list[str]:
        for name in ("summary_lines", "lines"):  # ImportReport, MergeReport
            lines = getattr(result, name, None)
            if callable(lines):
                return [str(line) for line in lines()]
        return [str(result)]

    def start(self) -> None:
        def progress(*args: Any) -> None:
            self._relay.progressed.emit(args)

        self.services.write(
            lambda: self.job(progress), origin=self, done=self._finished, failed=self._failed
        )

    def _show_progress(self, args: tuple[Any, ...]) -> None:
        numbers = [a for a in args if isinstance(a, int)]
        texts = [a for a in args if isinstance(a, str)]
        if len(numbers) >= 2 and numbers[1] > 0:
            self.bar.setRange(0, numbers[1])
            self.bar.setValue(min(numbers[0], numbers[1]))
        if texts:
            self.label.setText(texts[0])
        elif len(numbers) >= 2:
            self.label.setText(f"{numbers[0]:,} / {numbers[1]:,}")

    def _finished(self, result: Any) -> None:
        self.result_value = result
        self._end(1, "Done.", "\n".join(self.summary_lines(result)))

    def _failed(self, error: BaseException) -> None:
        self.error = error
        self._end(
            0,
            "Failed; nothing after the last committed file was written.",
            f"{type(error).__name__}: {error}",
        )

    def _end(self, bar_value: int, label: str, summary: str) -> None:
        """Show the outcome (a full or empty bar, a line, the summary) and let the dialog close."""
        self.completed = True
        self.bar.setRange(0, 1)
        self.bar.setValue(bar_value)
        self.label.setText(label)
        self.summary.setPlainText(summary)
        self.summary.show()
        self.buttons.setEnabled(True)


class _PathsJobDialog(BackgroundJobDialog):
    """Runs ``MODULE.FUNCTION(store, paths, progress=...)`` on the chosen files or folders; the
    core module is imported by the job itself, on the writer, not when the desk starts."""

    TITLE = VERB = MODULE = FUNCTION = ""

    def __init__(
        self, services: Services, paths: list[Path], parent: QWidget | None = None
    ) -> None:
        super().__init__(services, self.TITLE, parent)
        self.paths = paths
        self.label.setText(f"{self.VERB} " + ", ".join(p.name for p in paths))

    def job(self, progress: Callable[..., None]) -> Done[Any]:
        run = getattr(importlib.import_module(self.MODULE), self.FUNCTION)
        done: Done[Any] = run(self.services.store, self.paths, progress=progress)
        return done


class ImportDialog(_PathsJobDialog):
    """Runs ``bagel_studio.core.importers.import_files`` on the chosen files or folders."""

    TITLE, VERB = "Import", "Importing"
    MODULE, FUNCTION = "bagel_studio.core.importers", "import_files"

    def summary_lines(self, result: Any) -> list[str]:
        """The importer's summary; where lines were rejected, where to find them again."""
        lines = super().summary_lines(result)
        if getattr(result, "reject_count", 0):
            lines.append(
                "Review → Rejected lines… (Ctrl+Shift+R) lists every rejected line again, by"
                " file, filterable and copyable."
            )
        return lines


class MergeDialog(_PathsJobDialog):
    """Brings other curators' project files in with ``bagel_studio.core.merge.merge_projects``."""

    TITLE, VERB = "Merge curators' files", "Merging"
    MODULE, FUNCTION = "bagel_studio.core.merge", "merge_projects"
