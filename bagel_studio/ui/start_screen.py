"""The start screen, shown when there is no recent project: create, open, or pick a recent one."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QFileDialog,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from bagel_studio.core.prefs import Preferences

PROJECT_FILTER = "BAGEL Studio projects (*.bagel *.sqlite *.db);;All files (*)"
OpenProject = Callable[[Path, bool], bool]


class StartScreen(QWidget):
    def __init__(self, prefs: Preferences, open_project: OpenProject) -> None:
        super().__init__()
        self.setWindowTitle("BAGEL Studio")
        self.resize(560, 420)
        self._open_project = open_project
        title = QLabel("BAGEL Studio", self)
        font = title.font()
        font.setPointSizeF(font.pointSizeF() * 1.8)
        font.setBold(True)
        title.setFont(font)
        self.new_button = QPushButton("New project…  [Ctrl+N]", self)
        self.new_button.setShortcut("Ctrl+N")
        self.new_button.clicked.connect(self.new_project)
        self.open_button = QPushButton("Open project…  [Ctrl+O]", self)
        self.open_button.setShortcut("Ctrl+O")
        self.open_button.clicked.connect(self.open_existing)
        self.recent = QListWidget(self)
        for path in prefs.recent_projects:
            entry = QListWidgetItem(path)
            entry.setData(Qt.ItemDataRole.UserRole, path)
            if not Path(path).exists():
                entry.setText(path + "   (missing)")
            self.recent.addItem(entry)
        self.recent.itemActivated.connect(
            lambda entry: self._open_project(Path(entry.data(Qt.ItemDataRole.UserRole)), False)
        )
        layout = QVBoxLayout(self)
        layout.addWidget(title)
        layout.addWidget(self.new_button)
        layout.addWidget(self.open_button)
        layout.addWidget(QLabel("Recent projects (Enter opens):", self))
        layout.addWidget(self.recent, 1)

    def new_project(self) -> None:
        name, _ = QFileDialog.getSaveFileName(self, "New project", "project.bagel", PROJECT_FILTER)
        if name:
            self._open_project(Path(name), True)

    def open_existing(self) -> None:
        name, _ = QFileDialog.getOpenFileName(self, "Open project", "", PROJECT_FILTER)
        if name:
            self._open_project(Path(name), False)
