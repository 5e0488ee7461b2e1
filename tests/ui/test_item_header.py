"""The item's header wraps between its parts only: 'status: unreviewed' is never split."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QTextLayout, QTextOption
from PySide6.QtWidgets import QLabel

from tests.ui.desk_harness import close_desk, open_desk
from tests.ui.desk_project import KOALA_ID, build_project


def _lines(label: QLabel, width: int) -> list[str]:
    """The lines Qt breaks the label's text into at ``width`` pixels (its word wrap)."""
    layout = QTextLayout(label.text(), label.font())
    option = QTextOption()
    option.setWrapMode(QTextOption.WrapMode.WordWrap)
    layout.setTextOption(option)
    lines = []
    layout.beginLayout()
    while (line := layout.createLine()).isValid():
        line.setLineWidth(width)
        lines.append(label.text()[line.textStart() : line.textStart() + line.textLength()])
    layout.endLayout()
    return [" ".join(text.replace("\u00a0", " ").split()) for text in lines]


def test_the_header_keeps_each_label_with_its_value(qtbot, tmp_path: Path, data_dir: Path) -> None:
    path = tmp_path / "desk.bagel"
    build_project(path, data_dir)
    window = open_desk(qtbot, path)
    with qtbot.waitSignal(window.controller.write_finished, timeout=10_000):
        qtbot.keyClick(window, Qt.Key.Key_A)
    window.show_item(KOALA_ID)
    meta = window.item_view.meta
    pairs = ["status: accepted", "your decision: accept"]
    assert all(pair in meta.text().replace("\u00a0", " ") for pair in pairs), meta.text()
    widths = range(120, 900, 7)
    for width in widths:
        lines = _lines(meta, width)
        assert "".join(lines).replace(" ", "") == meta.text().replace("\u00a0", "").replace(" ", "")
        for pair in pairs:  # whole on one line
            assert any(pair in line for line in lines), (width, lines)
        assert not any(line.startswith("·") for line in lines), (width, lines)
    assert len(_lines(meta, widths[0])) > 2  # the narrow widths did wrap
    window.resize(1280, 800)  # as the desk shows it: the pairs whole
    qtbot.waitUntil(lambda: meta.width() < 500)
    assert all(any(p in line for line in _lines(meta, meta.contentsRect().width())) for p in pairs)
    close_desk(window)
