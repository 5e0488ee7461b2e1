"""Choosing what to import: files and folders in one dialog.

Qt's file dialogs pick either files or one folder, so the desk used to open a file chooser and,
on Cancel, a second folder chooser. Here one dialog gathers any mix of files and folders (added
with its two buttons, or dropped on it) and Cancel means cancel.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QDragEnterEvent, QDropEvent, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QHBoxLayout,
    QListWidget,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from bagel_studio.ui.plain import plain_label

ITEM_FILTER = "Items and evidence (*.jsonl *.json *.tsv *.csv *.txt *.mp3 *.wav *.flac *.ogg)"


class ImportPicker(QDialog):
    """A list of files and folders to import; Import returns them, Cancel nothing."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Import items and evidence")
        self.setAcceptDrops(True)
        self.resize(640, 400)
        self.list = QListWidget(self)
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        add_files = QPushButton("Add &files…", self)
        add_files.clicked.connect(self.add_files)
        add_folder = QPushButton("Add f&older…", self)
        add_folder.clicked.connect(self.add_folder)
        self.remove_button = QPushButton("&Remove", self)
        self.remove_button.setShortcut(QKeySequence(QKeySequence.StandardKey.Delete))
        self.remove_button.clicked.connect(self.remove_selected)
        row = QHBoxLayout()
        for button in (add_files, add_folder, self.remove_button):
            button.setAutoDefault(False)
            row.addWidget(button)
        row.addStretch(1)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self
        )
        self.import_button = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.import_button.setText("Import")
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(
            plain_label(
                "Files and whole folders, in any mix (or drop them here): the format of each "
                "file is detected from its content; a folder brings in everything under it.",
                self,
                selectable=False,
            )
        )
        layout.addWidget(self.list, 1)
        layout.addLayout(row)
        layout.addWidget(self.buttons)
        self._update()

    def paths(self) -> list[Path]:
        return [Path(self.list.item(i).text()) for i in range(self.list.count())]

    def add_paths(self, paths: list[Path]) -> None:
        """Add each path once, in the order given."""
        present = {str(p) for p in self.paths()}
        for path in paths:
            text = str(path)
            if text not in present:
                self.list.addItem(text)
                present.add(text)
        self._update()

    def add_files(self) -> None:
        names, _ = QFileDialog.getOpenFileNames(
            self, "Add files to import", "", f"{ITEM_FILTER};;All files (*)"
        )
        self.add_paths([Path(n) for n in names])

    def add_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Add a folder to import")
        if folder:
            self.add_paths([Path(folder)])

    def remove_selected(self) -> None:
        for item in self.list.selectedItems():
            self.list.takeItem(self.list.row(item))
        self._update()

    def _update(self) -> None:
        self.import_button.setEnabled(self.list.count() > 0)
        self.remove_button.setEnabled(self.list.count() > 0)

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if event.mimeData().hasUrls():
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        local = [Path(url.toLocalFile()) for url in event.mimeData().urls() if url.isLocalFile()]
        self.add_paths(local)
        event.setDropAction(Qt.DropAction.CopyAction)
        event.accept()


def choose_import_paths(parent: QWidget) -> list[Path]:
    """Files and folders to import, from one dialog; [] when cancelled."""
    picker = ImportPicker(parent)
    try:
        if picker.exec() == QDialog.DialogCode.Accepted:
            return picker.paths()
        return []
    finally:
        picker.deleteLater()
