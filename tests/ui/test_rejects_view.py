"""Review → Rejected lines: the lines an import could not turn into items, after its summary
closed: by file (its name; its full path in the tooltip), in import order, each file's lines by
line as ``name:line: reason``; a filter; the line as read; Ctrl+C and *Copy all shown* copy
``file:line: reason``; an import made while the window is open shows at once (its change set
says rejects arrived)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from PySide6.QtCore import QItemSelectionModel, Qt
from PySide6.QtGui import QGuiApplication

from bagel_studio.core.importers import import_files, import_paths
from bagel_studio.core.store import Store
from bagel_studio.ui.import_dialog import ImportDialog
from bagel_studio.ui.plain import plain_tooltip
from bagel_studio.ui.rejects_view import PAGE, RejectsView, short_names
from tests.support.items import good
from tests.ui.desk_harness import close_desk, open_desk, open_window


def project_with_rejects(tmp_path: Path) -> tuple[Path, Path, Path]:
    first = tmp_path / "items.jsonl"
    first.write_text(
        json.dumps(good("w:1")) + "\n" + '{"id": "w:2", "que\n' + "plain words\n",
        encoding="utf-8",
    )
    many = tmp_path / "broken.jsonl"
    many.write_text("".join(f'{{"id": "b:{n}", "opt\n' for n in range(PAGE + 40)))
    project = tmp_path / "p.bagel"
    with Store.open(project) as store:
        import_paths(store, [first, many])
    return project, first, many


def shown(view: RejectsView) -> list[str]:
    model, lines = view.model, []
    for row in range(model.rowCount()):
        parent = model.index(row, 0)
        lines.append(str(model.data(parent)))
        lines += [str(model.data(model.index(r, 0, parent))) for r in range(model.rowCount(parent))]
    return lines


def test_rejected_lines_by_file_filtered_and_copied(qtbot, tmp_path: Path) -> None:
    project, first, many = project_with_rejects(tmp_path)
    window = open_desk(qtbot, project)
    qtbot.keyClick(
        window,
        Qt.Key.Key_R,
        Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier,
    )
    qtbot.waitUntil(lambda: "rejects" in window.menus.panels)
    view = window.menus.panels["rejects"]
    assert isinstance(view, RejectsView)
    qtbot.addWidget(view)
    assert view.summary.text() == f"{PAGE + 42} rejected lines in 2 files"
    model = view.model
    assert [f.path for f in model.files] == [str(first), str(many)]  # import order
    view.tree.expand(model.index(0, 0))
    lines = shown(view)
    assert lines[0] == "items.jsonl   (2 lines)"
    assert lines[1].startswith("items.jsonl:2: truncated JSON")
    assert lines[2].startswith("items.jsonl:3: invalid JSON")
    assert lines[3] == f"broken.jsonl   ({PAGE + 40:,} lines)"

    # a long file is read a page at a time, as it is scrolled
    big = model.index(1, 0)
    view.tree.expand(big)
    qtbot.wait(200)  # the view's layouts read no further
    assert model.rowCount(big) == PAGE
    view.tree.scrollToBottom()
    qtbot.waitUntil(lambda: model.rowCount(big) == PAGE + 40)

    # the line as read, and Ctrl+C
    line = model.index(0, 0, model.index(0, 0))
    view.tree.selectionModel().setCurrentIndex(
        line, QItemSelectionModel.SelectionFlag.ClearAndSelect
    )
    assert view.raw.toPlainText() == '{"id": "w:2", "que'
    view.tree.setFocus()
    qtbot.keyClick(view.tree, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)
    copied = QGuiApplication.clipboard().text()
    assert copied.startswith(f"{first}:2: truncated JSON") and copied.count("\n") == 1

    # the filter: a reason's words, any case
    view.filter.setText("INVALID JSON")
    view.apply_filter()
    assert view.summary.text() == "1 rejected line in 1 file matching 'INVALID JSON'"
    assert shown(view)[1].startswith("items.jsonl:3: invalid JSON")
    view.copy_all()
    assert QGuiApplication.clipboard().text() == f"{first}:3: {model.files[0].lines[0][2]}\n"
    view.filter.setText("nothing like it")
    view.apply_filter()
    assert view.summary.text() == "No rejected line matches 'nothing like it'."
    view.filter.clear()
    view.apply_filter()

    # an import from the desk while the window is open
    later = tmp_path / "later.jsonl"
    later.write_text('{"id": "l:1"\n', encoding="utf-8")
    window.services.write(lambda: import_files(window.store, [later]))
    qtbot.waitUntil(lambda: len(view.model.files) == 3)
    assert view.summary.text() == f"{PAGE + 43} rejected lines in 3 files"
    view.close()
    close_desk(window)


def test_a_project_without_rejects_says_so(qtbot, tmp_path: Path) -> None:
    path = tmp_path / "clean.bagel"
    items = tmp_path / "items.jsonl"
    items.write_text(json.dumps(good("w:1")) + "\n", encoding="utf-8")
    with Store.open(path) as store:
        import_paths(store, [items])
    window = open_desk(qtbot, path)
    view = open_window(qtbot, window, "rejects")
    assert isinstance(view, RejectsView)
    assert view.summary.text().startswith("No input line was rejected")
    assert not view.copy_button.isEnabled()
    view.close()
    close_desk(window)


def test_files_are_shown_by_name_and_their_full_path_is_the_tooltip(qtbot, tmp_path: Path) -> None:
    """An import from the desk (File → Import…'s dialog) of two folders of a run each: a file
    is shown by its name, with its folder where another file shown has the same name; the
    full path is in the tooltip of the file and of each of its lines."""
    path = tmp_path / "p.bagel"
    with Store.open(path):
        pass
    runs = tmp_path / "deep" / "folders" / "of" / "a" / "curator"
    first, second = runs / "run-03", runs / "run-04"
    first.mkdir(parents=True)
    second.mkdir()
    (first / "items.jsonl").write_text(
        json.dumps(good("w:1")) + "\n" + '{"id": "w:2", "que\n', encoding="utf-8"
    )
    (first / "holdout.jsonl").write_text("plain words\n", encoding="utf-8")
    (second / "items.jsonl").write_text(
        json.dumps(good("w:3")) + "\n" + '{"id": "w:4"\n', encoding="utf-8"
    )
    window = open_desk(qtbot, path)
    dialog = window.menus.run_import([first, second])
    assert isinstance(dialog, ImportDialog)
    qtbot.waitUntil(lambda: dialog.completed, timeout=20_000)
    assert dialog.error is None
    dialog.accept()
    view = open_window(qtbot, window, "rejects")
    assert isinstance(view, RejectsView)
    model = view.model
    names = {f.path: str(model.data(model.index(row, 0))) for row, f in enumerate(model.files)}
    assert names == {
        str(first / "items.jsonl"): "run-03/items.jsonl   (1 line)",
        str(first / "holdout.jsonl"): "holdout.jsonl   (1 line)",
        str(second / "items.jsonl"): "run-04/items.jsonl   (1 line)",
    }
    row = [f.path for f in model.files].index(str(first / "holdout.jsonl"))
    holdout = model.index(row, 0)
    assert model.data(holdout, Qt.ItemDataRole.ToolTipRole) == plain_tooltip(
        str(first / "holdout.jsonl")
    )
    view.tree.expand(holdout)
    qtbot.waitUntil(lambda: model.rowCount(holdout) == 1)
    line = model.index(0, 0, holdout)
    shown_line = str(model.data(line))
    assert shown_line.startswith("holdout.jsonl:1: ") and str(tmp_path) not in shown_line
    reason = shown_line.removeprefix("holdout.jsonl:1: ")
    assert model.data(line, Qt.ItemDataRole.ToolTipRole) == plain_tooltip(
        f"{first / 'holdout.jsonl'}:1: {reason}"
    )
    view.close()
    close_desk(window)


def test_short_names_add_folders_only_where_names_clash() -> None:
    assert short_names(["/a/x/items.jsonl", "/a/y/items.jsonl", "/a/y/b.jsonl"]) == [
        "x/items.jsonl",
        "y/items.jsonl",
        "b.jsonl",
    ]
    assert short_names(["/r/one/run/items.jsonl", "/r/two/run/items.jsonl"]) == [
        "one/run/items.jsonl",
        "two/run/items.jsonl",
    ]
    # a path written on Windows, and one of nothing but its root
    assert short_names(["C:\\data\\items.jsonl", "/other/items.jsonl", "/"]) == [
        os.path.join("data", "items.jsonl"),
        os.path.join("other", "items.jsonl"),
        "/",
    ]
