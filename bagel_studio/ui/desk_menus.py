"""The desk's menus: File, Review and Help.

The panels of other parts of the app (export, adjudication, agreement, ambiguity, merging) are
imported only when their menu entry is used; an entry whose module is not installed is disabled
with a tooltip that says so, instead of failing at start.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from PySide6.QtCore import QEvent, QObject, QSize, Qt, QTimer
from PySide6.QtGui import QAction, QFontMetrics, QKeySequence
from PySide6.QtWidgets import (
    QFileDialog,
    QInputDialog,
    QLineEdit,
    QMainWindow,
    QMenu,
    QMessageBox,
    QWidget,
)

from bagel_studio.core.operations.reviews import curator_name
from bagel_studio.core.store import QueueFilter, StoreError
from bagel_studio.ui.import_dialog import ImportDialog, MergeDialog
from bagel_studio.ui.import_picker import choose_import_paths
from bagel_studio.ui.plain import plain_message
from bagel_studio.ui.queue_panel import QueuePanel
from bagel_studio.ui.review_controller import ReviewController
from bagel_studio.ui.secondary import DEFAULT_SIZE, add_close_keys, make_secondary
from bagel_studio.ui.services import Services
from bagel_studio.ui.shortcuts import BY_ACTION, ReviewMachine
from bagel_studio.ui.shortcuts_help import ShortcutsHelp
from bagel_studio.ui.start_screen import recent_project

PROJECT_FILTER = "BAGEL Studio projects (*.bagel *.sqlite *.db);;All files (*)"
PANELS = {
    "ambiguity": ("bagel_studio.ui.ambiguity", "AmbiguityPanel", "Ambiguity queue"),
    "adjudication": ("bagel_studio.ui.adjudication", "AdjudicationPanel", "Adjudication"),
    "agreement": ("bagel_studio.ui.agreement_view", "AgreementView", "Agreement"),
    "models": ("bagel_studio.ui.models_panel", "ModelsPanel", "Models"),
    "audit": ("bagel_studio.ui.audit_panel", "AuditPanel", "Audit"),
    "rejects": ("bagel_studio.ui.rejects_view", "RejectsView", "Rejected lines"),
    "team": ("bagel_studio.ui.team_view", "TeamView", "Team"),
}

PANEL_SIZES = {  # what each panel needs to show its content unclipped (shrunk to the screen)
    "ambiguity": QSize(1200, 780),
    "adjudication": QSize(1200, 780),
    "agreement": QSize(960, 640),
    "models": QSize(1000, 760),
    "rejects": QSize(1000, 700),
    "team": QSize(1200, 800),
}


def module_available(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


class _KeysBackOnClose(QObject):
    """A panel closed while it had the keys (Esc, Ctrl+W) gives them back to the desk. A window
    manager often does so by itself; without one (the headless desk on Xvfb, seen over VNC) no
    window was active and the desk's keys did nothing until a click."""

    def __init__(self, panel: QWidget, return_keys: Callable[[], None]) -> None:
        super().__init__(panel)
        self.panel = panel
        self.return_keys = return_keys

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        closing = event.type() in (QEvent.Type.Close, QEvent.Type.Hide)
        if closing and self.panel.isActiveWindow():
            QTimer.singleShot(0, self, self.return_keys)  # not after the panel is gone
        return False


class Desk(Protocol):
    """What the menus ask of the desk they belong to (``main_window.MainWindow`` is one), named
    here so that the menus do not import the window that builds them."""

    services: Services
    read_only: bool
    open_project: Callable[[Path, bool], object] | None
    machine: ReviewMachine
    queue: QueuePanel
    controller: ReviewController

    def current_item_id(self) -> str | None: ...

    def open_from_elsewhere(self, item_id: str) -> None: ...

    def show_status(self, message: str) -> None: ...

    def curator_changed(self) -> None: ...


class DeskMenus:
    """Builds the menu bar of ``window`` and carries out its entries on ``desk`` (the same
    window, as the desk)."""

    def __init__(self, window: QMainWindow, desk: Desk) -> None:
        self.window = window
        self.desk = desk
        self.panels: dict[str, QWidget] = {}
        self.actions: dict[str, QAction] = {}
        self._file_menu()
        self._review_menu()
        help_menu = window.menuBar().addMenu("&Help")
        self._add(help_menu, "help", "Keyboard shortcuts", self.show_help)

    def _add(
        self, menu: QMenu, name: str, text: str, slot: Any, *, checkable: bool = False
    ) -> QAction:
        """A menu entry for ``name``; when the shortcut table has a key for it, the entry shows
        the key and the key (through the review machine) runs the same slot.

        The key is only written in the entry (after a tab, where a menu shows keys), never
        registered as the action's shortcut: the desk's QShortcut is its one owner. A second
        registration, even in a narrower context, is in context with the first whenever the
        menu bar has the focus, and Qt then runs neither ("Ambiguous shortcut overload")."""
        action = QAction(text, self.window)
        action.setObjectName(name)
        action.setCheckable(checkable)
        shortcut = BY_ACTION.get(name)
        if shortcut is not None:
            key = QKeySequence(shortcut.keys[0]).toString(QKeySequence.SequenceFormat.NativeText)
            action.setText(f"{text}\t{key}")
            action.setToolTip(f"{shortcut.label} ({shortcut.keys[0]})")
            self.desk.machine.on(name, lambda: action.trigger() if action.isEnabled() else None)
        action.triggered.connect(lambda _checked=False: slot())
        menu.addAction(action)
        self.actions[name] = action
        return action

    def _file_menu(self) -> None:
        menu = self.window.menuBar().addMenu("&File")
        menu.setToolTipsVisible(True)  # why an entry is disabled
        self._add(menu, "new", "New project…", self.new_project)
        self._add(menu, "open", "Open project…", self.open_dialog)
        self.recent_menu = menu.addMenu("Open recent")
        self.recent_menu.aboutToShow.connect(self._fill_recent)
        menu.addSeparator()
        self._add(menu, "import", "Import…", self.import_dialog)
        export = self._add(menu, "export", "Export…", self.export_dialog)
        self._need(export, "bagel_studio.ui.export_dialog")
        merge = self._add(menu, "merge", "Merge curators' files…", self.merge_dialog)
        self._need(merge, "bagel_studio.core.merge")
        self._add(menu, "save_copy", "Save a copy…", self.save_copy_dialog)
        menu.addSeparator()
        self._add(menu, "quit", "Quit", self.quit)
        if self.desk.read_only:
            for name in ("import", "merge"):
                self.actions[name].setEnabled(False)
                self.actions[name].setToolTip("The project is open read-only")

    def _review_menu(self) -> None:
        menu = self.window.menuBar().addMenu("&Review")
        menu.setToolTipsVisible(True)
        for name, (module, _cls, title) in PANELS.items():
            action = self._add(menu, name, title + "…", lambda n=name: self.open_panel(n))
            self._need(action, module)
        plan = self._add(menu, "plan", "Plan the review…", self.plan_review)
        self._need(plan, "bagel_studio.ui.team_view")
        measure = self._add(menu, "measure_all", "Measure all clips…", self.measure_all)
        if self.desk.read_only:
            measure.setEnabled(False)
            measure.setToolTip("The project is open read-only")
        menu.addSeparator()
        # checkable: Ctrl+B triggers it, which moves the tick as a click would
        blind = self._add(menu, "blind", "Blind mode", self.toggle_blind, checkable=True)
        blind.setChecked(bool(self.desk.services.prefs.blind_mode))
        curator = self._add(menu, "curator", "Change curator…", self.change_curator)
        if self.desk.services.package is not None:
            curator.setEnabled(False)
            curator.setToolTip(
                f"This is {self.desk.services.curator}'s package: it is reviewed as"
                f" {self.desk.services.curator}"
            )

    def _need(self, action: QAction, module: str) -> None:
        if not module_available(module):
            action.setEnabled(False)
            action.setToolTip(f"Not available yet ({module} is not installed)")
            text, tab, key = action.text().partition("\t")
            action.setText(f"{text} (not available){tab}{key}")

    # -- file ----------------------------------------------------------------------------------

    def _fill_recent(self) -> None:
        """The recent projects as the start screen names them: the file name, then its folder
        (the home folder as "~", elided in the middle when long), "(missing)" for a file that
        is gone; the whole path in the entry's tooltip."""
        menu = self.recent_menu
        menu.clear()
        menu.setToolTipsVisible(True)
        recent = list(self.desk.services.prefs.recent_projects)
        if not recent:
            menu.addAction("(none)").setEnabled(False)
        metrics = QFontMetrics(menu.font())
        for path in recent:
            shown = recent_project(path)
            folder = metrics.elidedText(shown.folder, Qt.TextElideMode.ElideMiddle, 360)
            action = menu.addAction(f"{shown.name}  —  {folder}".replace("&", "&&"))
            action.setToolTip(shown.tooltip)
            action.triggered.connect(lambda _c=False, p=path: self._open(Path(p), create=False))

    def _open(self, path: Path, *, create: bool) -> None:
        if self.desk.open_project is None:
            plain_message(
                self.window,
                QMessageBox.Icon.Information,
                "Open project",
                "Opening is not available here.",
            )
            return
        self.desk.open_project(path, create)

    def new_project(self) -> None:
        name, _ = QFileDialog.getSaveFileName(
            self.window, "New project", "project.bagel", PROJECT_FILTER
        )
        if name:
            self._open(Path(name), create=True)

    def open_dialog(self) -> None:
        name, _ = QFileDialog.getOpenFileName(self.window, "Open project", "", PROJECT_FILTER)
        if name:
            self._open(Path(name), create=False)
        else:
            self._return_keys()

    def import_dialog(self) -> None:
        paths = choose_import_paths(self.window)
        if paths:
            self.run_import(paths)
        else:  # cancelled: without a window manager no window would have the keys
            self._return_keys()

    def run_import(self, paths: list[Path]) -> ImportDialog:
        dialog = ImportDialog(self.desk.services, paths, self.window)
        self.panels["import"] = dialog
        dialog.installEventFilter(_KeysBackOnClose(dialog, self._return_keys))
        dialog.open()
        dialog.start()
        return dialog

    def merge_dialog(self) -> None:
        names, _ = QFileDialog.getOpenFileNames(
            self.window, "Merge curators' project files", "", PROJECT_FILTER
        )
        if names:
            dialog = MergeDialog(self.desk.services, [Path(n) for n in names], self.window)
            self.panels["merge"] = dialog
            dialog.installEventFilter(_KeysBackOnClose(dialog, self._return_keys))
            dialog.open()
            dialog.start()
        else:
            self._return_keys()

    def save_copy_dialog(self) -> None:
        """File → Save a copy…: a consistent copy of the project, made while it stays open."""
        current = Path(self.desk.services.store.path)
        name, _ = QFileDialog.getSaveFileName(
            self.window,
            "Save a copy of the project",
            str(current.with_name(f"{current.stem}-copy.bagel")),
            PROJECT_FILTER,
        )
        if name:
            self.save_copy(Path(name))
        else:
            self._return_keys()

    def save_copy(self, target: Path) -> None:
        """Write a copy of the project to ``target`` with SQLite's backup API, after the writes
        already asked for (on the writer thread, so every decision made so far is in it); the
        status line says where, or why not."""
        project = importlib.import_module("bagel_studio.core.operations.project")
        services = self.desk.services
        self.desk.show_status(f"Saving a copy to {target}…")
        services.write(
            lambda: project.save_copy(services.store, target),
            done=lambda path: self.desk.show_status(f"Saved a copy of the project: {path}"),
            failed=lambda error: self.desk.show_status(f"No copy saved: {error}"),
        )
        self._return_keys()

    def export_dialog(self) -> None:
        module = importlib.import_module("bagel_studio.ui.export_dialog")
        dialog = module.ExportDialog(self.desk.services, self.window)
        add_close_keys(dialog)
        self.panels["export"] = dialog
        dialog.installEventFilter(_KeysBackOnClose(dialog, self._return_keys))
        dialog.show()
        dialog.raise_()
        dialog.activateWindow()  # its keys (Esc, Enter) act at once, with or without a WM

    # -- review --------------------------------------------------------------------------------

    def plan_review(self) -> None:
        """Review → Plan the review…: the Team window, the keys in its curators' field."""
        self.open_panel("team")
        team = self.panels["team"]
        field = getattr(team, "curators", None)
        if isinstance(field, QWidget):
            field.setFocus()

    def open_panel(self, name: str) -> None:
        module_name, class_name, title = PANELS[name]
        panel = self.panels.get(name)
        if panel is None:
            module = importlib.import_module(module_name)
            panel = getattr(module, class_name)(self.desk.services)
            panel.setWindowTitle(f"BAGEL Studio — {title}")
            self.panels[name] = panel
            make_secondary(panel, PANEL_SIZES.get(name, DEFAULT_SIZE))
            self._wire(name, panel)
            panel.installEventFilter(_KeysBackOnClose(panel, self._return_keys))
            if hasattr(panel, "current_item"):  # the Models panel acts on the desk's item
                panel.current_item = self.desk.current_item_id
        else:  # the project changed since it was opened (decisions, merges, adjudications)
            refresh = getattr(panel, "refresh", None)
            if callable(refresh):
                refresh()
        panel.show()
        panel.raise_()
        panel.activateWindow()

    def _wire(self, name: str, panel: QWidget) -> None:
        """What a panel asks of the desk: to show an item (the ambiguity queue, the audit), to
        filter the queue (the audit). What a panel writes reaches the desk as every write does,
        through ``services.write`` and the desk's ``apply_changes``."""
        if name == "ambiguity":
            from bagel_studio.ui.ambiguity import AmbiguityPanel

            assert isinstance(panel, AmbiguityPanel)
            panel.open_item.connect(self.desk.open_from_elsewhere)
        elif name == "team":
            from bagel_studio.ui.team_view import TeamView

            assert isinstance(panel, TeamView)
            panel.open_item.connect(self.desk.open_from_elsewhere)
        elif name == "audit":
            from bagel_studio.ui.audit_panel import AuditPanel

            assert isinstance(panel, AuditPanel)
            panel.open_item.connect(self.desk.open_from_elsewhere)
            panel.show_filter.connect(self.show_filter)

    def show_filter(self, queue_filter: QueueFilter) -> None:
        """Another window (the audit) asks the desk's queue to show some items: the filter bar
        shows the same choice, every other filter is cleared."""
        bar = self.desk.queue.filters
        wanted = {
            bar.domain: queue_filter.domain,
            bar.dimension: queue_filter.dimension,
            bar.flag: queue_filter.check,
        }
        for combo in (bar.domain, bar.dimension, bar.level, bar.status, bar.flag, bar.reviewer):
            value = wanted.get(combo)
            combo.blockSignals(True)
            combo.setCurrentIndex(max(combo.findData(value), 0) if value else 0)
            combo.blockSignals(False)
        bar.search.blockSignals(True)
        bar.search.clear()
        bar.search.blockSignals(False)
        bar.emit_filter()
        self._return_keys()

    def measure_all(self) -> None:
        """Measure every clip not measured yet, in a dialog with progress and Cancel."""
        from bagel_studio.ui.measure_all import MeasureAllDialog

        dialog = self.panels.get("measure_all")
        if not isinstance(dialog, MeasureAllDialog):
            dialog = MeasureAllDialog(self.desk.services, self.window)
            self.panels["measure_all"] = dialog
        dialog.show()
        dialog.raise_()
        dialog.activateWindow()
        dialog.start()

    def toggle_blind(self) -> None:
        prefs = self.desk.services.prefs
        prefs.blind_mode = self.actions["blind"].isChecked()
        prefs.save()
        self.desk.controller.refresh_current()
        self.desk.show_status("Blind mode on" if prefs.blind_mode else "Blind mode off")

    def change_curator(self) -> None:
        prefs = self.desk.services.prefs
        name, ok = QInputDialog.getText(
            self.window,
            "Curator",
            "Your name (recorded with every decision):",
            QLineEdit.EchoMode.Normal,
            prefs.curator,
        )
        if ok and name.strip():
            try:
                prefs.curator = curator_name(name)
            except StoreError as exc:
                plain_message(self.window, QMessageBox.Icon.Warning, "Name not taken", str(exc))
            else:
                prefs.save()
                self.desk.curator_changed()
        self._return_keys()

    def show_help(self) -> None:
        help_window = ShortcutsHelp(self.window)
        add_close_keys(help_window)
        self.panels["help"] = help_window
        help_window.finished.connect(lambda _result: self._return_keys())
        help_window.open()

    def _return_keys(self) -> None:
        """After a dialog closes, the desk's one-key shortcuts act again at once."""
        if not self.window.isVisible():  # the desk itself is closing
            return
        self.window.raise_()
        self.window.activateWindow()

    def quit(self) -> None:
        self.window.close()

    def close_panels(self) -> None:
        for panel in self.panels.values():
            panel.close()
