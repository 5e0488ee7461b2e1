"""The start screen, shown when there is no recent project: create, open, or pick a recent one."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QApplication,
    QFileDialog,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMessageBox,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from bagel_studio.core.prefs import Preferences
from bagel_studio.ui.plain import plain_message

PROJECT_FILTER = "BAGEL Studio projects (*.bagel *.sqlite *.db);;All files (*)"
OpenProject = Callable[[Path, bool], bool]
NO_RECENT = (
    "No recent project yet. Start a new one and import your generated items (Ctrl+N), open"
    " a colleague's project file (Ctrl+O), or learn the desk on the demo project (Ctrl+D)."
)


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
        self.demo_button = QPushButton("Try the demo project  [Ctrl+D]", self)
        self.demo_button.setShortcut("Ctrl+D")
        self.demo_button.setToolTip(
            "Fifty-odd items of all four domains with their evidence and recordings, built once in"
            " your data folder: a safe place to learn the keys"
        )
        self.demo_button.clicked.connect(self.open_demo)
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
        layout.addWidget(self.demo_button)
        recent_label = QLabel("Recent projects (Enter opens):", self)
        layout.addWidget(recent_label)
        layout.addWidget(self.recent, 1)
        self.no_recent = QLabel(NO_RECENT, self)
        self.no_recent.setWordWrap(True)
        layout.addWidget(self.no_recent)
        has_recent = self.recent.count() > 0
        for widget in (recent_label, self.recent):
            widget.setVisible(has_recent)
        self.no_recent.setVisible(not has_recent)
        if not has_recent:  # the sentence right under the buttons, and no empty half-window
            layout.addStretch(1)
            self.resize(560, layout.totalHeightForWidth(560) + 8)
        if self.recent.count():
            self.recent.setCurrentRow(0)
            self.recent.setFocus()  # Enter opens the latest project at once

    def new_project(self) -> None:
        name, _ = QFileDialog.getSaveFileName(self, "New project", "project.bagel", PROJECT_FILTER)
        if name:
            self._open_project(Path(name), True)

    def open_demo(self) -> None:
        """Build the demo project (once, a few seconds) and open it."""
        from bagel_studio.core.demo import build_demo_project

        QApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)
        try:
            path = Path(build_demo_project())
        except Exception as exc:
            plain_message(
                self, QMessageBox.Icon.Critical, "Demo project", f"Could not build it: {exc}"
            )
            return
        finally:
            QApplication.restoreOverrideCursor()
        self._open_project(path, False)

    def open_existing(self) -> None:
        name, _ = QFileDialog.getOpenFileName(self, "Open project", "", PROJECT_FILTER)
        if name:
            self._open_project(Path(name), False)
