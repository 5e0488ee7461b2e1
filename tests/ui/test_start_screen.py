"""The start screen's recent projects: each reads as its file name over its folder (the home
folder as ~, elided in the middle when long), its whole path in the tooltip, and opens from the
keyboard."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QFontMetrics

from bagel_studio.core.prefs import Preferences
from bagel_studio.core.store import Store
from bagel_studio.ui.start_screen import FOLDER_ROLE, MARGIN, MISSING, StartScreen

DEEP = (
    "curation",
    "bagel-release-2026",
    "round-two-with-the-xeno-canto-recordings-and-their-measurements",
    "shared-with-the-bioacoustics-group",
)


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "home" / "ana"
    folder.mkdir(parents=True)
    monkeypatch.setenv("HOME", str(folder))
    return folder


def _project(path: Path) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    with Store.open(path, create=True, owner="ana"):
        pass
    return str(path)


def test_recent_projects_read_as_file_names_over_their_folders(
    qtbot, tmp_path: Path, home: Path
) -> None:
    deep = home.joinpath(*DEEP)
    candidate = _project(deep / "bagel-release-candidate.bagel")
    globi = _project(deep / "ana-globi-pass.bagel")
    gone = str(home / "old" / "gone.bagel")  # opened once, deleted since
    elsewhere = _project(tmp_path / "elsewhere" / "shared-disk.bagel")
    opened: list[Path] = []
    prefs = Preferences(curator="ana", recent_projects=[candidate, globi, gone, elsewhere])
    screen = StartScreen(prefs, lambda path, _create: opened.append(path) or True)
    qtbot.addWidget(screen)
    with qtbot.waitExposed(screen):
        screen.show()
    recent = screen.recent
    names = [recent.item(row).text() for row in range(recent.count())]
    assert names == [
        "bagel-release-candidate.bagel",
        "ana-globi-pass.bagel",
        f"gone.bagel   {MISSING}",  # it still says so
        "shared-disk.bagel",
    ]
    folders = [recent.item(row).data(FOLDER_ROLE) for row in range(recent.count())]
    assert folders == ["~/" + "/".join(DEEP)] * 2 + ["~/old", str(tmp_path / "elsewhere")]
    assert candidate in recent.item(0).toolTip()  # the whole path, on hover
    assert f"Missing: {gone}" in recent.item(2).toolTip()
    # Each entry shows both lines whole in the list's width: the long folder elided in the
    # middle (its start and its last folder kept), nothing to scroll sideways.
    delegate = screen.recent_delegate
    font = recent.font()
    folder_metrics = QFontMetrics(delegate.folder_font(font))
    for row in range(recent.count()):
        rect = recent.visualRect(recent.model().index(row, 0))
        assert rect.height() >= QFontMetrics(font).height() + folder_metrics.height()
        width = rect.width() - 2 * MARGIN
        assert width > 300 and rect.right() < recent.viewport().width()
        name, folder = delegate.lines(font, recent.model().index(row, 0), width)
        assert name == names[row]
        assert folder_metrics.horizontalAdvance(folder) <= width
    index = recent.model().index(0, 0)
    _, long_folder = delegate.lines(font, index, recent.visualRect(index).width() - 2 * MARGIN)
    assert "…" in long_folder
    assert long_folder.startswith("~/curation/")
    assert long_folder.endswith("/" + DEEP[-1])
    assert not recent.horizontalScrollBar().isVisible()
    # The keyboard opens a project as before: the latest is selected, Down + Enter the next.
    assert recent.hasFocus() and recent.currentRow() == 0
    qtbot.keyClick(recent, Qt.Key.Key_Down)
    qtbot.keyClick(recent, Qt.Key.Key_Return)
    assert opened == [Path(globi)]


@pytest.mark.parametrize(
    ("key", "modifier"),
    [(Qt.Key.Key_Q, Qt.KeyboardModifier.ControlModifier), (Qt.Key.Key_Escape, None)],
    ids=["ctrl-q", "esc"],
)
def test_ctrl_q_and_esc_close_the_start_screen(
    qtbot, tmp_path: Path, home: Path, key: Qt.Key, modifier: Qt.KeyboardModifier | None
) -> None:
    """The start screen closes from the keyboard as the desk does, with the recent list (which
    has the focus) or nothing in it."""
    recent = [_project(home / "a.bagel")] if modifier is not None else []
    screen = StartScreen(Preferences(curator="ana", recent_projects=recent), lambda *_: True)
    qtbot.addWidget(screen)
    with qtbot.waitExposed(screen):
        screen.show()
    screen.activateWindow()
    qtbot.waitUntil(screen.isActiveWindow)
    target = screen.focusWidget() or screen
    if modifier is None:
        qtbot.keyClick(target, key)
    else:
        qtbot.keyClick(target, key, modifier)
    qtbot.waitUntil(lambda: not screen.isVisible())
