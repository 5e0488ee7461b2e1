"""The queue's columns at 1280x800 and 1600x1000: every domain, status, level and flag cell whole
(in a shorter form where the column is narrow, whole in its tooltip), ids elided so that they
keep their domain, the start of their name and their number, and a column sized by hand kept,
remembered and given back on request."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QStyleOptionViewItem

from bagel_studio.core import operations
from bagel_studio.core.model import Decision
from bagel_studio.core.store import Store
from bagel_studio.ui.main_window import COLUMN_SHARES, MainWindow
from bagel_studio.ui.queue_model import ALTERNATIVES_ROLE, COLUMNS, alternatives
from bagel_studio.ui.queue_panel import (
    FORM_LEVELS,
    TEXT_LEAST,
    TEXT_MARGINS,
    column_widths,
    elide_id,
)
from tests.ui.desk_harness import close_desk, open_desk
from tests.ui.desk_project import build_project

KEYS = [key for key, _title in COLUMNS]
FREE_TEXT = {"id", "dimension", "question"}  # elided, whole in the tooltip


@pytest.fixture
def project(tmp_path: Path, data_dir: Path) -> Path:
    path = tmp_path / "columns.bagel"
    ids = build_project(path, data_dir, tricky=True)
    with Store.open(path) as store:  # statuses of every width: "accepted", "rejected"
        operations.decide(store, ids[0], "ada", Decision.ACCEPT)
        operations.decide(store, ids[1], "ada", Decision.REJECT, reason="trivial")
    return path


def _at_size(qtbot, window: MainWindow, size: tuple[int, int]) -> None:
    """The columns as the desk first opens on a screen of ``size``."""
    window.resize(*size)
    window.splitter.setSizes([int(size[0] * share) for share in COLUMN_SHARES])
    table = window.queue.table
    qtbot.waitUntil(lambda: sum(_widths(window)) == table.viewport().width())


def _widths(window: MainWindow) -> list[int]:
    table = window.queue.table
    return [0 if table.isColumnHidden(c) else table.columnWidth(c) for c in range(len(KEYS))]


def _cell_texts(window: MainWindow) -> dict[str, set[str]]:
    """What the queue draws in each column for its first rows (the delegate's choice)."""
    table, model = window.queue.table, window.queue_model
    delegate = table.itemDelegate()
    drawn: dict[str, set[str]] = {key: set() for key in KEYS}
    for row in range(min(model.rowCount(), 200)):
        for column, key in enumerate(KEYS):
            if table.isColumnHidden(column):
                continue
            index = model.index(row, column)
            option = QStyleOptionViewItem()
            table.initViewItemOption(option)  # as the view does before it paints a cell
            option.rect = table.visualRect(index)
            option.rect.setWidth(table.columnWidth(column))
            delegate.initStyleOption(option, index)
            metrics = option.fontMetrics
            if key in FREE_TEXT - {"id"}:
                assert option.textElideMode == table.textElideMode()
            elif option.text:  # whole, or an id elided by the delegate (``elide_id``)
                assert metrics.horizontalAdvance(option.text) <= option.rect.width() - TEXT_MARGINS
                assert model.data(index, Qt.ItemDataRole.ToolTipRole)  # the whole value
            drawn[key].add(option.text)
    return drawn


@pytest.mark.parametrize("size", [(1280, 800), (1600, 1000)])
def test_every_short_value_is_drawn_whole(qtbot, project: Path, size: tuple[int, int]) -> None:
    window = open_desk(qtbot, project)
    _at_size(qtbot, window, size)
    drawn = _cell_texts(window)
    assert {"GloBI", "bioRxiv"} <= drawn["domain"]
    assert drawn["domain"] & {"Xeno-canto", "XC"} and drawn["domain"] & {"Wikipedia", "Wiki"}
    for key in ("domain", "status"):  # one form in every row: not "acc." beside "rejected"
        assert any(drawn[key] <= set(values) for values in FORM_LEVELS[key]), drawn[key]
    flags = drawn["flags"] - {""}  # one form for every flagged row: a mark and a count
    assert len(flags) >= 2 and all(re.fullmatch("[■▲●] [0-9]+", text) for text in flags), flags
    widths = dict(zip(KEYS, _widths(window), strict=True))
    assert widths["question"] >= TEXT_LEAST["question"]
    if size == (1600, 1000):  # room for the whole words where they matter most
        assert "unreviewed" in drawn["status"] and "Xeno-canto" in drawn["domain"]
        assert widths["question"] >= 140
    else:
        assert "unrev." in drawn["status"] and "XC" in drawn["domain"]
    close_desk(window)


def test_a_column_sized_by_hand_is_kept_and_remembered(qtbot, project: Path, tmp_path) -> None:
    window = open_desk(qtbot, project, settings_dir=tmp_path)
    _at_size(qtbot, window, (1280, 800))
    table, header = window.queue.table, window.queue.table.horizontalHeader()
    fitted = _widths(window)
    id_column = KEYS.index("id")
    header.resizeSection(id_column, fitted[id_column] + 60)  # as a drag of its edge does
    widths = _widths(window)
    assert widths[id_column] == fitted[id_column] + 60
    assert sum(widths) == table.viewport().width()  # the free-text columns gave the room
    assert widths[-1] < fitted[-1] and widths[-1] >= 60
    for key in ("domain", "status", "flags"):
        assert widths[KEYS.index(key)] == fitted[KEYS.index(key)]
    window.resize(1300, 800)  # a new width for the panel keeps the chosen one
    qtbot.waitUntil(lambda: sum(_widths(window)) == table.viewport().width())
    assert _widths(window)[id_column] == fitted[id_column] + 60
    close_desk(window)

    window = open_desk(qtbot, project, settings_dir=tmp_path)  # remembered with the window
    _at_size(qtbot, window, (1280, 800))
    assert _widths(window)[id_column] == fitted[id_column] + 60
    window.queue.reset_columns()  # the header's menu: fit the columns to the panel again
    assert _widths(window) == fitted
    close_desk(window)


def test_chosen_widths_that_leave_the_question_no_room_are_set_aside() -> None:
    def text(value: str) -> int:
        return 7 * len(value)

    fitted = column_widths(485, text, text)
    assert sum(fitted) == 485
    assert column_widths(485, text, text, {"id": 400}) == fitted
    dimension = KEYS.index("dimension")
    wider = column_widths(485, text, text, {"dimension": fitted[dimension] + 20})
    assert sum(wider) == 485 and wider[dimension] == fitted[dimension] + 20
    assert wider[-1] < fitted[-1]


@pytest.mark.parametrize("size", [(1280, 800), (1600, 1000)])
def test_the_id_column_shows_one_form(qtbot, demo_copy: Path, size: tuple[int, int]) -> None:
    """Every id with its domain in front shows it, or none does ('wikipedia:lion:0' never
    beside 'koala:0'); the tooltip has the whole id."""
    window = open_desk(qtbot, demo_copy)
    _at_size(qtbot, window, size)
    model = window.queue_model
    drawn = _cell_texts(window)["id"]
    forms_used = set()
    for row in range(model.rowCount()):
        index = model.index(row, KEYS.index("id"))
        forms = model.data(index, ALTERNATIVES_ROLE)
        item_id = model.item_id(row)
        assert item_id and item_id in model.data(index, Qt.ItemDataRole.ToolTipRole)
        if forms and forms[0] != forms[-1]:  # GloBI's "globi:" is short already: either
            forms_used |= {n for n, form in enumerate(forms) if _drawn_as(form, drawn)}
    assert len(forms_used) == 1, (forms_used, sorted(drawn))
    close_desk(window)


def _drawn_as(form: str, drawn: set[str]) -> bool:
    """Whether ``form`` of an id is among the texts ``drawn``, whole or elided (its start
    and its end kept on either side of the "…")."""
    for text in drawn:
        start, ellipsis, end = text.partition("…")
        if text == form or (ellipsis and form.startswith(start) and form.endswith(end)):
            return True
    return False


def test_a_short_id_keeps_its_domain() -> None:
    """Without its domain, 'holdout:0' of Wikipedia, GloBI and Xeno-canto was one id shown
    three times: the short form keeps the domain, shortened."""
    ids = {
        "Wikipedia": "wikipedia:holdout:0",
        "GloBI": "globi:holdout:0",
        "bioRxiv": "biorxiv:holdout:0",
        "Xeno-canto": "xeno-canto:holdout:0",
    }
    shorts = {}
    for domain, item_id in ids.items():
        forms = alternatives({"id": item_id, "domain": domain}, "id")
        assert forms is not None and forms[0] == item_id
        shorts[domain] = forms[-1]
        assert len(forms[-1]) <= len(item_id)
    assert shorts == {
        "Wikipedia": "wiki:holdout:0",
        "GloBI": "globi:holdout:0",
        "bioRxiv": "bio:holdout:0",
        "Xeno-canto": "xc:holdout:0",
    }


def test_an_id_too_long_keeps_its_source_its_start_and_its_number() -> None:
    """Cut in the middle, 'wikipedia:andean-flamingo:0' read 'wiki:a…ingo:0' and the demo's
    Xeno-canto ids 'xc:xc2…minant', one like the other: an id keeps its domain, the start of
    its name and its number, and elides its name's end; an id that does not end in a number
    (the demo's 'xeno-canto:xc236243:dominant') keeps its start, where it differs."""

    def fits(width: int):
        return lambda text: 7 * len(text) <= width

    assert elide_id("wiki:koala:0", fits(100)) == "wiki:koala:0"  # whole where it fits
    assert elide_id("wiki:andean-flamingo:0", fits(100)) == "wiki:andean…:0"
    assert elide_id("bio:birds-vs-bats:12", fits(100)) == "bio:birds-…:12"
    assert elide_id("xc:xc236243:dominant", fits(100)) == "xc:xc236243:d…"
    assert elide_id("globi:leptoconchus-host", fits(100)) == "globi:leptoco…"
    assert elide_id("demo:gold-not-an-option", fits(100)) == "demo:gold-not…"
    assert elide_id("wiki:andean-flamingo:0", fits(40)) == "wiki…"  # no room for more
    assert elide_id("wiki:andean-flamingo:0", fits(0)) == "…"


@pytest.mark.parametrize("size", [(1280, 800), (1600, 1000)])
def test_the_ids_drawn_tell_the_items_apart(qtbot, demo_copy: Path, size: tuple[int, int]) -> None:
    """At 1280x800 every id of the demo is drawn so that no two items read alike, its
    domain and number kept, elided at the end of its name; hovered, the whole id."""
    window = open_desk(qtbot, demo_copy)
    _at_size(qtbot, window, size)
    model, table = window.queue_model, window.queue.table
    drawn: dict[str, str] = {}
    elided = 0
    for row in range(min(model.rowCount(), 200)):
        index = model.index(row, KEYS.index("id"))
        item_id = model.item_id(row)
        assert item_id is not None
        assert item_id in model.data(index, Qt.ItemDataRole.ToolTipRole)  # whole on hover
        option = QStyleOptionViewItem()
        table.initViewItemOption(option)
        option.rect = table.visualRect(index)
        option.rect.setWidth(table.columnWidth(KEYS.index("id")))
        table.itemDelegate().initStyleOption(option, index)
        text = option.text
        assert option.fontMetrics.horizontalAdvance(text) <= option.rect.width() - TEXT_MARGINS
        forms = model.data(index, ALTERNATIVES_ROLE) or (item_id,)
        kept = text.partition("…")[0]  # what the drawn text keeps of its form's start
        form = next(f for f in reversed(forms) if f.startswith(kept))
        if text not in forms:
            elided += 1
            head, _, rest = form.partition(":")
            assert text.startswith(f"{head}:") or text == f"{head}…", (text, form)
            number = rest.rpartition(":")[2]
            if number.isdigit() and ":" in rest and len(text) > len(head) + 4:
                assert text.endswith(f"…:{number}"), (text, form)
        assert text not in drawn, (text, item_id, drawn.get(text))  # two items read alike
        drawn[text] = item_id
    if size == (1280, 800):
        assert elided, sorted(drawn)  # the demo's long ids are elided at 1280x800
    close_desk(window)
