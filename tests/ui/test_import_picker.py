"""One dialog picks files and folders to import; Cancel means cancel (no second chooser)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QMimeData, QPointF, Qt, QTimer, QUrl
from PySide6.QtGui import QDropEvent
from PySide6.QtWidgets import QApplication, QDialog, QFileDialog

from bagel_studio.ui.import_picker import ImportPicker, choose_import_paths
from tests.ui.desk_harness import close_desk, open_desk
from tests.ui.desk_project import build_project


def _when_modal(action) -> None:
    """Run ``action(dialog)`` on the modal dialog once it is up."""

    def poll() -> None:
        dialog = QApplication.activeModalWidget()
        if isinstance(dialog, QDialog):
            action(dialog)
        else:
            QTimer.singleShot(20, poll)

    QTimer.singleShot(20, poll)


def test_files_and_folders_in_one_dialog(qtbot, data_dir: Path) -> None:
    picker = ImportPicker()
    qtbot.addWidget(picker)
    assert not picker.import_button.isEnabled()  # nothing to import yet
    folder = data_dir / "globi"
    clip = data_dir / "xeno_canto" / "XC625750.mp3"
    items = data_dir / "items" / "paper_examples.jsonl"
    picker.add_paths([items, folder, items])
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(clip)), QUrl("https://example.org/x.jsonl")])
    drop = QDropEvent(
        QPointF(10, 10),
        Qt.DropAction.CopyAction,
        mime,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    picker.dropEvent(drop)
    assert picker.paths() == [items, folder, clip]  # each once; a web address is not a file
    assert picker.import_button.isEnabled()
    picker.list.setCurrentRow(0)
    picker.remove_selected()
    assert picker.paths() == [folder, clip]


def test_import_returns_the_list_and_cancel_returns_nothing(qtbot, data_dir: Path) -> None:
    folder = data_dir / "globi"

    def fill_and_import(dialog: QDialog) -> None:
        assert isinstance(dialog, ImportPicker)
        dialog.add_paths([folder])
        dialog.import_button.click()

    _when_modal(fill_and_import)
    assert choose_import_paths(None) == [folder]  # type: ignore[arg-type]

    _when_modal(lambda dialog: dialog.reject())
    assert choose_import_paths(None) == []  # type: ignore[arg-type]
    assert QApplication.activeModalWidget() is None  # no folder chooser follows a Cancel
    assert not [w for w in QApplication.topLevelWidgets() if isinstance(w, QFileDialog)]


def test_cancelled_import_from_the_desk_starts_nothing(qtbot, tmp_path, data_dir) -> None:
    path = tmp_path / "import.bagel"
    build_project(path, data_dir)
    window = open_desk(qtbot, path)
    _when_modal(lambda dialog: dialog.reject())
    window.menus.import_dialog()
    assert "import" not in window.menus.panels
    assert QApplication.activeModalWidget() is None
    close_desk(window)
