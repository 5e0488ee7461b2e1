"""The start screen, shown when there is no recent project to open: create, open, or pick a
recent one.

A recent project reads as a curator knows it: its file name, and under it, smaller and dimmer, its
folder (the home folder as ``~``, elided in the middle when too long, since its start and its last
folders are what tell two projects apart); the whole path is in the tooltip.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QSize, Qt
from PySide6.QtGui import QFont, QFontMetrics, QKeySequence, QPainter, QPalette, QShortcut
from PySide6.QtWidgets import (
    QApplication,
    QFileDialog,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMessageBox,
    QPushButton,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QVBoxLayout,
    QWidget,
)

from bagel_studio.core.prefs import Preferences
from bagel_studio.ui.plain import plain_message, plain_tooltip
from bagel_studio.ui.secondary import CLOSE_KEYS
from bagel_studio.ui.shortcuts import BY_ACTION

PROJECT_FILTER = "BAGEL Studio projects (*.bagel *.sqlite *.db);;All files (*)"
OpenProject = Callable[[Path, bool], bool]
NO_RECENT = (
    "No recent project yet. Start a new one and import your generated items (Ctrl+N), open"
    " a colleague's project file (Ctrl+O), or learn the desk on the demo project (Ctrl+D)."
)
PATH_ROLE = Qt.ItemDataRole.UserRole  # the project's path as remembered
FOLDER_ROLE = Qt.ItemDataRole.UserRole + 1  # its folder as shown: the home folder as "~"
MISSING_ROLE = Qt.ItemDataRole.UserRole + 2  # True when the file is gone
MISSING = "(missing)"
FOLDER_SCALE = 0.9  # the folder's font, against the name's
MARGIN = 4  # px around each entry's text


def shown_folder(path: str) -> str:
    """The folder of ``path``, the home folder written ``~`` ("~/curation/2026")."""
    folder = Path(path).parent
    try:
        homes = {Path.home(), Path.home().resolve()}
    except (OSError, RuntimeError):  # no home folder to speak of
        return str(folder)
    for home in homes:
        if folder == home:
            return "~"
        if folder.is_relative_to(home):
            return str(Path("~", folder.relative_to(home)))
    return str(folder)


class RecentProject(NamedTuple):
    """How a recent project is named, on the start screen and in the desk's Open recent menu."""

    name: str  # its file name, and "(missing)" when the file is gone
    folder: str  # ``shown_folder``
    tooltip: str  # its whole path (plain text, for a tooltip)
    missing: bool


def recent_project(path: str) -> RecentProject:
    missing = not Path(path).exists()
    name = Path(path).name or path
    return RecentProject(
        f"{name}   {MISSING}" if missing else name,
        shown_folder(path),
        plain_tooltip(f"Missing: {path}" if missing else path),
        missing,
    )


def recent_entry(path: str) -> QListWidgetItem:
    """A recent project's entry: its name (``recent_project``), its folder as secondary text,
    its whole path in the tooltip."""
    shown = recent_project(path)
    entry = QListWidgetItem(shown.name)
    entry.setData(PATH_ROLE, path)
    entry.setData(FOLDER_ROLE, shown.folder)
    entry.setData(MISSING_ROLE, shown.missing)
    entry.setToolTip(shown.tooltip)
    return entry


class RecentDelegate(QStyledItemDelegate):
    """Draws an entry in two lines: the file name, then the folder, smaller and dimmer (a missing
    project's name dimmed too), each elided in the middle to the entry's width."""

    @staticmethod
    def folder_font(name_font: QFont) -> QFont:
        font = QFont(name_font)
        if font.pointSizeF() > 0:
            font.setPointSizeF(font.pointSizeF() * FOLDER_SCALE)
        else:  # a font sized in pixels
            font.setPixelSize(max(1, round(font.pixelSize() * FOLDER_SCALE)))
        return font

    def lines(
        self, font: QFont, index: QModelIndex | QPersistentModelIndex, width: int
    ) -> list[str]:
        """The name and the folder as drawn in ``width`` pixels, the name in ``font``."""
        name_metrics = QFontMetrics(font)
        folder_metrics = QFontMetrics(self.folder_font(font))
        middle = Qt.TextElideMode.ElideMiddle
        return [
            name_metrics.elidedText(str(index.data()), middle, width),
            folder_metrics.elidedText(str(index.data(FOLDER_ROLE)), middle, width),
        ]

    def sizeHint(
        self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
    ) -> QSize:
        height = QFontMetrics(option.font).height()
        height += QFontMetrics(self.folder_font(option.font)).height()
        return QSize(0, height + 2 * MARGIN)  # as wide as the list: nothing to scroll sideways

    def paint(
        self,
        painter: QPainter,
        option: QStyleOptionViewItem,
        index: QModelIndex | QPersistentModelIndex,
    ) -> None:
        view = QStyleOptionViewItem(option)
        self.initStyleOption(view, index)
        view.text = ""  # the background, selection and focus only
        widget = view.widget
        style = widget.style() if widget is not None else QApplication.style()
        style.drawControl(QStyle.ControlElement.CE_ItemViewItem, view, painter, widget)
        rect = view.rect.adjusted(MARGIN, MARGIN, -MARGIN, -MARGIN)
        name, folder = self.lines(view.font, index, rect.width())
        palette: QPalette = view.palette
        selected = bool(view.state & QStyle.StateFlag.State_Selected)
        strong = palette.highlightedText() if selected else palette.text()
        dim = palette.highlightedText() if selected else palette.placeholderText()
        missing = bool(index.data(MISSING_ROLE))
        painter.save()
        painter.setFont(view.font)
        painter.setPen(dim.color() if missing else strong.color())
        top = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop
        painter.drawText(rect, top, name)
        painter.setFont(self.folder_font(view.font))
        painter.setPen(dim.color())
        bottom = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignBottom
        painter.drawText(rect, bottom, folder)
        painter.restore()


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
        self.recent_delegate = RecentDelegate(self.recent)
        self.recent.setItemDelegate(self.recent_delegate)
        self.recent.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        for path in prefs.recent_projects:
            self.recent.addItem(recent_entry(path))
        self.recent.itemActivated.connect(
            lambda entry: self._open_project(Path(entry.data(PATH_ROLE)), False)
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
        self._closing_keys()

    def _closing_keys(self) -> None:
        """Ctrl+Q quits, as in the desk, and Esc and Ctrl+W close the window, as in every
        other window of the app: with no project open, closing it ends the app."""
        for key in (*BY_ACTION["quit"].keys, *CLOSE_KEYS):
            shortcut = QShortcut(QKeySequence(key), self)
            shortcut.setObjectName("quit" if key in BY_ACTION["quit"].keys else "close")
            shortcut.setContext(Qt.ShortcutContext.WindowShortcut)
            shortcut.activated.connect(self.close)

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
