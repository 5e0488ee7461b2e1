"""The desk as a new curator first sees it, at 1280x800 and 1600x1000: the window fits the screen,
every queue header is whole, every menu entry has a key that the help lists and that works, an
empty queue says why it is empty, a replaced flag is never drawn under the new ones, and the
evidence tabs say which evidence the item has."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QCoreApplication, QPoint, QPointF, Qt
from PySide6.QtGui import QFont, QFontMetrics, QKeySequence
from PySide6.QtWidgets import QApplication, QLabel

from bagel_studio.core.model import ItemContent
from bagel_studio.core.prefs import Preferences
from bagel_studio.core.store import NewItem, QueueFilter, Store
from bagel_studio.ui.evidence_view import NO_EVIDENCE, NO_ITEM
from bagel_studio.ui.listening.spectrogram_view import BOX_HINT, BOX_HINT_MEASURING
from bagel_studio.ui.main_window import COLUMN_SHARES, empty_filtered_hint
from bagel_studio.ui.queue_model import COLUMNS
from bagel_studio.ui.queue_panel import EMPTY_PROJECT_TEXT, NO_MATCH_TEXT
from bagel_studio.ui.review_controller import NO_ITEMS_TEXT
from bagel_studio.ui.review_controller import NO_MATCH_TEXT as NO_MATCH_ITEM_TEXT
from bagel_studio.ui.shortcuts import SHORTCUTS, State
from bagel_studio.ui.shortcuts_help import shortcut_lines, side_by_side
from bagel_studio.ui.start_screen import StartScreen
from tests.ui.desk_harness import close_desk, listening_panel, open_desk, wait_exposed
from tests.ui.desk_project import GLOBI_ID, KOALA_ID, XC_ID, build_project

TEXT_TAB, GLOBI_TAB, RECORDING_TAB = 0, 1, 2


@pytest.fixture
def project(tmp_path: Path, data_dir: Path) -> Path:
    path = tmp_path / "first-look.bagel"
    build_project(path, data_dir)
    return path


def test_the_first_window_fits_the_screen_with_its_frame(qtbot, project: Path) -> None:
    """The window's frame (the title bar a window manager adds: 25 px on the curator's 1280x800
    desktop; a 2 px border offscreen) lies within the screen, not only its inside."""
    window = open_desk(qtbot, project)
    room = window.screen().availableGeometry()

    def fits() -> bool:
        frame = window.frameGeometry()
        # as wide as the screen, unless its columns' least widths are wider (the offscreen
        # screen of the tests is 800 px wide)
        wide = max(room.width(), window.minimumSizeHint().width() + frame.width() - window.width())
        return (
            room.top() <= frame.top() and frame.bottom() <= room.bottom() and frame.width() <= wide
        )

    qtbot.waitUntil(fits)
    assert window.height() >= room.height() - 60  # it still takes the screen's height
    close_desk(window)


def test_the_window_opens_no_taller_than_the_screen(qtbot, project: Path) -> None:
    window = open_desk(qtbot, project)
    room = window.screen().availableGeometry()
    assert window.height() <= room.height()  # 1000 before: the decision buttons ran off a 800
    assert window.width() <= max(room.width(), window.minimumSizeHint().width())
    close_desk(window)


@pytest.mark.parametrize("size", [(1280, 800), (1600, 1000)])
def test_every_queue_header_is_whole(qtbot, project: Path, size: tuple[int, int]) -> None:
    window = open_desk(qtbot, project)
    window.resize(*size)
    # the columns as the desk first opens on a screen of that size (this one is 800x800)
    window.splitter.setSizes([int(size[0] * share) for share in COLUMN_SHARES])
    qtbot.wait(50)
    table = window.queue.table
    header = table.horizontalHeader()
    bold = QFont(header.font())
    bold.setBold(True)
    metrics = QFontMetrics(bold)
    shown = []
    for column, (key, title) in enumerate(COLUMNS):
        if table.isColumnHidden(column):
            assert key == "level"  # only the level, left out for the question's room
            continue
        shown.append(key)
        assert header.sectionSize(column) >= metrics.horizontalAdvance(title) + 8, title
    assert table.horizontalScrollBar().maximum() == 0
    if size == (1600, 1000):
        status = [key for key, _ in COLUMNS].index("status")
        widest = table.fontMetrics().horizontalAdvance("unreviewed")
        assert header.sectionSize(status) >= widest + 8  # the commonest status is whole
    close_desk(window)


def test_every_menu_entry_has_a_key_the_help_lists(qtbot, project: Path) -> None:
    window = open_desk(qtbot, project)
    help_text = "\n".join(shortcut_lines())
    entries = []
    for top in window.menuBar().actions():
        menu = top.menu()
        assert menu is not None
        for action in menu.actions():
            if action.isSeparator() or action.menu() is not None:  # Open recent: a submenu
                continue
            entries.append(action.text())
            key = action.text().partition("\t")[2]  # the key, written where menus show keys
            assert key, f"{action.text()} has no key"
            assert key in help_text, key
    assert len(entries) >= 14
    for shortcut in SHORTCUTS:
        assert window.machine.bound(shortcut.action), shortcut.action  # no dead key
    close_desk(window)


@pytest.mark.parametrize(
    ("key", "panel"),
    [
        ("Ctrl+Shift+A", "ambiguity"),
        ("Ctrl+Shift+D", "adjudication"),
        ("Ctrl+Shift+K", "agreement"),
        ("Ctrl+E", "export"),
    ],
)
def test_a_window_key_opens_its_window(qtbot, project: Path, key: str, panel: str) -> None:
    window = open_desk(qtbot, project)
    combo = QKeySequence(key)[0]
    qtbot.keyClick(window, combo.key(), combo.keyboardModifiers())
    qtbot.waitUntil(lambda: panel in window.menus.panels, timeout=5_000)
    opened = window.menus.panels[panel]
    qtbot.addWidget(opened)
    assert opened.isVisible()
    opened.close()
    close_desk(window)


def test_ctrl_b_turns_blind_mode_on_and_off(qtbot, project: Path) -> None:
    window = open_desk(qtbot, project)
    window.show_item(KOALA_ID)
    prefs = window.services.prefs
    assert not prefs.blind_mode
    qtbot.keyClick(window, Qt.Key.Key_B, Qt.KeyboardModifier.ControlModifier)
    assert prefs.blind_mode and window.menus.actions["blind"].isChecked()
    assert not window.item_view.gold_visible  # the item on screen is now blind
    qtbot.keyClick(window, Qt.Key.Key_B, Qt.KeyboardModifier.ControlModifier)
    assert not prefs.blind_mode and not window.menus.actions["blind"].isChecked()
    assert window.item_view.gold_visible
    close_desk(window)


def test_a_filter_that_matches_nothing_says_so(qtbot, project: Path) -> None:
    window = open_desk(qtbot, project)
    window.show_item(XC_ID)
    window.set_filter(QueueFilter(search="zzqqxx"))
    assert window.queue_model.rowCount() == 0
    assert window.evidence.currentIndex() == TEXT_TAB  # not the last item's recording tab
    assert window.queue.empty_label.isVisible()
    assert window.queue.empty_label.text() == NO_MATCH_TEXT
    assert window.item_view.stem.text() == NO_MATCH_ITEM_TEXT
    assert not window.item_view.flags_heading.isVisible()
    assert not [label for label in window.item_view.flag_labels if label.isVisible()]
    window.set_filter(QueueFilter())
    assert not window.queue.empty_label.isVisible()
    assert window.item_view.flags_heading.isVisible()
    close_desk(window)


def test_an_empty_project_says_how_to_fill_it(qtbot, tmp_path: Path) -> None:
    path = tmp_path / "empty.bagel"
    Store.open(path).close()
    window = open_desk(qtbot, path)
    assert window.queue.empty_label.isVisible()
    assert window.queue.empty_label.text() == EMPTY_PROJECT_TEXT
    assert window.item_view.stem.text() == NO_ITEMS_TEXT
    assert "Ctrl+I" in window.state_label.text()
    close_desk(window)


def test_flags_of_the_previous_item_are_not_drawn_under_the_new_ones(qtbot, project: Path) -> None:
    """Without a turn of the event loop (deleteLater waits for it) the old flags are gone."""
    window = open_desk(qtbot, project)
    flagged = [i for i in window.store.items.ids() if len(window.store.flags.of_item(i)) >= 2]
    plain = [i for i in window.store.items.ids() if not window.store.flags.of_item(i)]
    assert flagged and plain
    window.show_item(flagged[0])
    window.show_item(plain[0])
    QCoreApplication.processEvents()  # shows the new labels; deletes nothing outside a loop
    box = window.item_view.flags_box
    drawn = [label.text() for label in box.findChildren(QLabel) if label.isVisibleTo(box)]
    assert drawn == ["No flags."]
    close_desk(window)


def test_evidence_tabs_say_which_evidence_the_item_has(qtbot, project: Path) -> None:
    window = open_desk(qtbot, project)
    tabs = window.evidence
    bar = tabs.tabBar()

    def shown_tabs() -> list[str]:  # the tabs on screen, by their titles
        return [bar.tabText(i) for i in range(bar.count()) if bar.isTabVisible(i)]

    window.show_item(KOALA_ID)
    assert shown_tabs() == ["Text"] and tabs.currentIndex() == TEXT_TAB
    window.show_item(GLOBI_ID)
    assert shown_tabs() == ["GloBI record"] and tabs.currentIndex() == GLOBI_TAB
    assert tabs.currentWidget().isVisible()
    window.show_item(XC_ID)
    assert shown_tabs() == ["Recording"] and tabs.currentIndex() == RECORDING_TAB
    assert tabs.currentWidget().isVisible()
    window.show_item(KOALA_ID)
    assert shown_tabs() == ["Text"] and tabs.text.isVisible()
    assert tabs.text.editor.isVisible()  # hidden while the recording's item had no text
    close_desk(window)


def test_ambiguity_queue_has_room_at_1280x800(qtbot, project: Path) -> None:
    window = open_desk(qtbot, project)
    window.menus.open_panel("ambiguity")
    panel = window.menus.panels["ambiguity"]
    qtbot.addWidget(panel)
    panel.resize(1152, 720)  # what a 1280x800 screen gives it (90%)
    wait_exposed(qtbot, panel)  # shown, laid out at its new size and painted
    assert panel.queue.width() >= 0.3 * panel.width()  # 256 px before: entries cut off
    assert panel.queue.horizontalScrollBar().maximum() == 0
    assert panel.queue.wordWrap()
    assert panel.queue.alternatingRowColors()  # wrapped entries told apart
    panel.close()
    assert QApplication.activeWindow() is not panel
    close_desk(window)


def test_editing_shows_its_two_ways_out_as_buttons(qtbot, project: Path) -> None:
    window = open_desk(qtbot, project)
    window.show_item(KOALA_ID)
    bar = window.decision_bar.buttons
    assert bar["save_edit"].isHidden() and bar["cancel_edit"].isHidden()
    qtbot.keyClick(window, Qt.Key.Key_E)
    assert window.machine.state is State.EDIT
    assert not bar["save_edit"].isHidden() and bar["save_edit"].isEnabled()
    assert all(bar[a].isHidden() for a in ("accept", "reject", "next", "undo"))  # not greyed
    assert bar["save_edit"].text() == "Save and accept [Ctrl+Return]"
    assert bar["cancel_edit"].text() == "Cancel [Escape]"
    qtbot.mouseClick(bar["cancel_edit"], Qt.MouseButton.LeftButton)
    assert window.machine.state is State.REVIEW
    assert bar["save_edit"].isHidden()
    assert not bar["accept"].isHidden() and bar["accept"].isEnabled()  # back
    assert bar["accept"].toolTip() == "Accept (A)"
    close_desk(window)


def test_the_models_panel_says_how_to_start_and_saves_with_ctrl_s(qtbot, project: Path) -> None:
    window = open_desk(qtbot, project)
    window.menus.open_panel("models")
    panel = window.menus.panels["models"]
    qtbot.addWidget(panel)
    panel.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is panel, timeout=5_000)
    assert panel.no_profiles.isVisible() and "Ctrl+S" in panel.no_profiles.text()
    assert panel.save.text() == "Save profile [Ctrl+S]"
    panel.label.setText("local")
    panel.model.setText("some-model")
    qtbot.keyClick(panel.label, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: panel.profiles.rowCount() == 1, timeout=10_000)
    assert not panel.no_profiles.isVisible()
    panel.close()
    close_desk(window)


def test_m_says_how_to_use_the_measuring_box_and_a_plain_drag_draws_it(
    qtbot, project: Path
) -> None:
    """M pressed the Measure button down and nothing else changed: the line under the plot
    still asked for Shift+drag. Now it and the status bar say that a plain drag measures."""
    window = open_desk(qtbot, project)
    window.resize(1280, 800)
    window.show_item(XC_ID)
    panel = listening_panel(qtbot, window)
    qtbot.waitUntil(lambda: panel.view.mapping is not None, timeout=30_000)
    readout = panel.view.selection_label
    assert readout.text() == BOX_HINT
    qtbot.keyClick(window, Qt.Key.Key_M)
    assert panel.transport.measure_button.isChecked()
    assert readout.text() == BOX_HINT_MEASURING and readout.isVisible()
    # whole in the evidence column at 1280x800 (a longer line lost its end there)
    assert readout.fontMetrics().horizontalAdvance(readout.text()) <= readout.contentsRect().width()
    assert "drag on the spectrogram" in window.statusBar().currentMessage()
    # A drag without Shift now draws the box, and the line reads it out.
    view = panel.view
    viewport = view.plot_widget.viewport()

    def point(t: float, hz: float) -> QPoint:
        return view.plot_widget.mapFromScene(
            view.view_box.mapViewToScene(QPointF(t, view.mapping.to_y(hz)))
        )

    start, end = point(1.0, 6000.0), point(2.0, 3000.0)
    qtbot.mousePress(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, start)
    for step in range(1, 11):
        qtbot.wait(15)  # as a hand moves: pyqtgraph drops moves closer than 10 ms
        qtbot.mouseMove(viewport, start + (end - start) * step / 10)
    qtbot.mouseRelease(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, end)
    assert view.selection() is not None
    assert readout.text().startswith("Δt = ")
    qtbot.keyClick(window, Qt.Key.Key_M)  # off: the box and its reading stay
    assert not panel.transport.measure_button.isChecked()
    assert readout.text().startswith("Δt = ")
    assert "off" in window.statusBar().currentMessage()
    view.clear_selection()
    assert readout.text() == BOX_HINT
    close_desk(window)


def test_agreement_with_one_curator_says_what_it_needs(qtbot, project: Path) -> None:
    window = open_desk(qtbot, project)
    window.menus.open_panel("agreement")
    view = window.menus.panels["agreement"]
    qtbot.addWidget(view)
    assert "needs two curators" in view.summary.text()
    view.close()
    close_desk(window)


def test_the_listening_controls_have_keys(qtbot, project: Path) -> None:
    window = open_desk(qtbot, project)
    window.show_item(XC_ID)
    panel = listening_panel(qtbot, window)
    transport = panel.transport
    qtbot.keyClick(window, Qt.Key.Key_M)
    assert transport.measure_button.isChecked()
    qtbot.keyClick(window, Qt.Key.Key_M)
    assert not transport.measure_button.isChecked()
    qtbot.keyClick(window, Qt.Key.Key_O)
    assert transport.loop_button.isChecked()
    speed = transport.speed()
    qtbot.keyClick(window, Qt.Key.Key_BracketLeft)
    assert transport.speed() < speed
    qtbot.keyClick(window, Qt.Key.Key_BracketRight)
    qtbot.keyClick(window, Qt.Key.Key_BracketRight)
    assert transport.speed() > speed
    assert "(O)" in transport.loop_button.toolTip()
    close_desk(window)


def test_the_help_in_two_columns_keeps_every_row_whole() -> None:
    """At 800 px high the help lists its keys in two columns instead of scrolling."""
    lines = shortcut_lines()
    paired = side_by_side(lines)
    assert len(paired) < 0.7 * len(lines)
    text = "\n".join(paired)
    for line in lines:
        if line.strip():
            assert line.strip() in text, line
    headings = [line for line in lines if line and not line.startswith(" ")]
    right = [h for h in headings if any(row.endswith(h) and row != h for row in paired)]
    assert right and headings[0] not in right  # the later groups moved to the right column


def test_a_first_start_says_where_to_begin_and_offers_the_demo(qtbot, tmp_path: Path) -> None:
    prefs = Preferences(curator="ana")
    screen = StartScreen(prefs, lambda _path, _create: True)
    qtbot.addWidget(screen)
    with qtbot.waitExposed(screen):
        screen.show()
    assert screen.recent.count() == 0  # a new curator: nothing opened yet
    assert screen.no_recent.isVisible() and "Ctrl+D" in screen.no_recent.text()
    assert not screen.recent.isVisible()
    assert screen.demo_button.shortcut().toString() == "Ctrl+D"
    # the window ends under the sentence (it was 420 px high, its lower half empty)
    sentence = screen.no_recent
    assert sentence.height() >= sentence.heightForWidth(sentence.width())  # whole
    assert screen.height() - sentence.geometry().bottom() <= 40


def test_with_no_item_on_the_desk_the_evidence_says_so_on_one_tab(qtbot, project: Path) -> None:
    """A search that finds nothing: the evidence showed three empty tabs (Text, GloBI record,
    Recording) and said nothing; now one tab says why it is empty."""
    window = open_desk(qtbot, project)
    tabs = window.evidence
    bar = tabs.tabBar()
    window.show_item(XC_ID)  # the recording tab in front, as the last item leaves it
    search = window.queue.filters.search
    qtbot.keyClick(window.queue.table, Qt.Key.Key_Slash)
    qtbot.keyClicks(search, "zzzqqq")
    qtbot.keyClick(search, Qt.Key.Key_Return)
    assert window.current_item_id() is None
    assert [i for i in range(bar.count()) if bar.isTabVisible(i)] == [TEXT_TAB]
    assert tabs.currentIndex() == TEXT_TAB
    assert tabs.text.heading.isVisible() and tabs.text.heading.text() == NO_ITEM
    assert not tabs.text.editor.isVisible()  # the sentence, over no empty text box
    # The search emptied, the item's own tabs come back.
    search.setFocus()
    qtbot.keyClick(search, Qt.Key.Key_Escape)
    assert window.current_item_id() is not None
    assert tabs.text.heading.text() != NO_ITEM
    close_desk(window)


def test_the_status_bar_says_what_to_do_when_the_filters_match_nothing(
    qtbot, project: Path, tmp_path: Path
) -> None:
    """It said 'Ctrl+I imports' whenever no item was shown, a search that found nothing too."""
    window = open_desk(qtbot, project)
    search = window.queue.filters.search
    qtbot.keyClick(window.queue.table, Qt.Key.Key_Slash)
    qtbot.keyClicks(search, "zzzqqq")
    qtbot.keyClick(search, Qt.Key.Key_Return)
    assert window.machine.state is State.EMPTY
    assert window.state_label.text() == empty_filtered_hint()
    assert "import" not in window.state_label.text()
    search.setFocus()
    qtbot.keyClick(search, Qt.Key.Key_Escape)  # the search emptied: the decision keys again
    assert window.machine.state is State.REVIEW
    assert window.state_label.text().startswith("A accept")
    close_desk(window)
    empty = tmp_path / "empty.bagel"
    Store.open(empty).close()
    window = open_desk(qtbot, empty)  # an empty project does need an import
    assert window.machine.state is State.EMPTY
    assert "Ctrl+I imports" in window.state_label.text()
    search = window.queue.filters.search
    search.setFocus()
    qtbot.keyClicks(search, "wren")
    qtbot.keyClick(search, Qt.Key.Key_Return)
    assert window.state_label.text() == empty_filtered_hint()
    search.setFocus()
    qtbot.keyClick(search, Qt.Key.Key_Escape)
    assert "Ctrl+I imports" in window.state_label.text()
    close_desk(window)


def test_an_item_without_any_evidence_says_so_on_one_tab(qtbot, tmp_path: Path) -> None:
    path = tmp_path / "bare.bagel"
    with Store.open(path) as store:
        content = ItemContent("Which bird is this?", ("Wren", "Robin", "Tit", "Finch"), 0, "Diet")
        store.items.add_items([NewItem("wikipedia:bare:0", "Wikipedia", content)], None)
    window = open_desk(qtbot, path)
    tabs = window.evidence
    assert window.current_item_id() == "wikipedia:bare:0"
    assert tabs.currentIndex() == TEXT_TAB and tabs.tabBar().isTabVisible(TEXT_TAB)
    assert tabs.text.heading.text() == NO_EVIDENCE
    assert not tabs.text.editor.isVisible()  # the sentence, over no empty text box
    assert tabs.text.heading.y() < 10
    assert not tabs.tabBar().isTabVisible(GLOBI_TAB)
    assert not tabs.tabBar().isTabVisible(RECORDING_TAB)
    close_desk(window)
