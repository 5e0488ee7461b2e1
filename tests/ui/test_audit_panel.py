"""The audit panel over a project with planted shortcuts: its findings open the items behind
them in the desk, a cluster is shown side by side, and the flags it sets reach the queue."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from bagel_studio.core.prefs import Preferences
from bagel_studio.core.store import Store
from bagel_studio.ui.audit_panel import AuditPanel
from bagel_studio.ui.services import Services
from tests.core.audit.planted import LEAKED_ID, LEAKING_ID, PARAPHRASES, planted_project
from tests.ui.desk_harness import close_desk, open_desk

FLAGS_COLUMN = 5


@pytest.fixture
def planted(tmp_path: Path) -> Path:
    return planted_project(tmp_path / "planted.bagel")


def open_audit(qtbot, window) -> AuditPanel:
    window.menus.open_panel("audit")
    panel = window.menus.panels["audit"]
    qtbot.addWidget(panel)
    qtbot.waitUntil(lambda: panel.result is not None, timeout=30_000)
    return panel


def test_a_cluster_opens_side_by_side_and_each_item_in_the_desk(qtbot, planted: Path) -> None:
    window = open_desk(qtbot, planted)
    panel = open_audit(qtbot, window)
    report = panel.result.report
    assert f"{len(report.artifacts)} artifacts" in panel.heading.text()
    assert f"{len(report.duplicates)} near-duplicate clusters" in panel.heading.text()
    first, _, second, _, _ = PARAPHRASES[0]
    cluster = report.duplicates.index([first, second])
    panel.select("duplicate", cluster)
    assert [card.item_id for card in panel.cards] == [first, second]
    panel.cards[1].open_button.click()
    assert window.current_item_id() == second
    # The flags the audit set are on the item and in its queue row.
    assert any(
        f"near-duplicate: Says the same thing as {first}" in t
        for t in window.item_view.flag_texts()
    )
    model = window.queue_model
    index = model.index(model.row_of(second), FLAGS_COLUMN)
    assert "near-duplicate" in str(model.data(index, Qt.ItemDataRole.ToolTipRole))
    # J steps to the next finding; Enter on a leak shows its leaking item in the desk.
    panel.activateWindow()
    qtbot.waitUntil(panel.isActiveWindow)
    panel.select("leak")
    assert [card.item_id for card in panel.cards] == [LEAKING_ID, LEAKED_ID]
    panel.queue.setFocus()
    qtbot.keyClick(panel.queue, Qt.Key.Key_Return)
    assert window.current_item_id() == LEAKING_ID
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    panel.close()
    close_desk(window)


def test_an_artifact_filters_the_desk_to_its_items(qtbot, planted: Path) -> None:
    window = open_desk(qtbot, planted)
    panel = open_audit(qtbot, window)
    sentences = [panel.queue.item(row).text() for row in range(panel.queue.count())]
    assert any(
        s.startswith("GloBI / Masked participant identification: the longest") for s in sentences
    )
    row = next(i for i, s in enumerate(sentences) if s.startswith("GloBI / Masked participant"))
    panel.queue.setCurrentRow(row)
    panel.queue.setFocus()
    qtbot.keyClick(panel.queue, Qt.Key.Key_Return)
    filters = window.queue.filters
    assert filters.domain.currentData() == "GloBI"
    assert filters.dimension.currentData() == "Masked participant identification"
    qtbot.waitUntil(lambda: window.queue_model.rowCount() == 201, timeout=10_000)
    panel.close()
    close_desk(window)


def test_the_baselines_table_marks_artifacts(qtbot, planted: Path) -> None:
    with Store.open(planted, read_only=True) as store:
        services = Services(store=store, prefs=Preferences(curator="ana"))
        panel = AuditPanel(services)
        qtbot.addWidget(panel)
        qtbot.waitUntil(lambda: panel.result is not None, timeout=30_000)
        assert "read-only: no flags set" in panel.heading.text()
        panel.select("baselines")
        table = panel.table
        assert table is not None
        texts = [table.horizontalHeaderItem(c).text() for c in range(table.columnCount())]
        assert all("\nn = " in text for text in texts)  # each domain says its item count
        headers = [text.split("\n")[0] for text in texts]
        longest_globi = table.item(0, headers.index("GloBI"))
        assert longest_globi.text() == "61.9%"
        assert longest_globi.font().bold()
        assert not table.item(0, headers.index("Wikipedia")).font().bold()
        assert "p &lt; 1e-40" in longest_globi.toolTip() or "p < 1e-40" in longest_globi.toolTip()
        panel.close()
        services.writer.shutdown()
        services.workers.shutdown()


def _fits_its_cells(table) -> bool:
    """The table's viewport is exactly its rows and columns: no blank strip beside or under."""
    rows = sum(table.rowHeight(r) for r in range(table.rowCount()))
    columns = sum(table.columnWidth(c) for c in range(table.columnCount()))
    viewport = table.viewport()
    return (
        viewport.height() == rows
        and viewport.width() == columns
        and not table.horizontalScrollBar().isVisible()
        and not table.verticalScrollBar().isVisible()
    )


def test_the_tables_are_as_wide_and_as_high_as_their_cells(qtbot, planted: Path) -> None:
    """Stretched to the detail's width, the baselines' columns filled less than half of it, an
    empty band the rest; each table ends where its cells do, and a narrow panel scrolls the
    detail rather than cutting the table."""
    with Store.open(planted, read_only=True) as store:
        services = Services(store=store, prefs=Preferences(curator="ana"))
        panel = AuditPanel(services)
        qtbot.addWidget(panel)
        panel.resize(1100, 720)
        with qtbot.waitExposed(panel):
            panel.show()
        qtbot.waitUntil(lambda: panel.result is not None, timeout=30_000)
        panel.select("baselines")
        table = panel.table
        assert table is not None
        qtbot.waitUntil(table.isVisible)
        assert _fits_its_cells(table)
        panel.select("artifact")
        assert panel.table is not None and panel.table.rowCount() == 2
        qtbot.waitUntil(panel.table.isVisible)
        assert _fits_its_cells(panel.table)
        panel.select("baselines")
        table = panel.table
        panel.resize(520, 720)  # the detail narrower than the table
        qtbot.waitUntil(lambda: panel.detail_scroll.horizontalScrollBar().maximum() > 0)
        assert _fits_its_cells(table)
        panel.close()
        services.writer.shutdown()
        services.workers.shutdown()


def test_the_heading_says_which_items_are_left_out_and_why(qtbot, demo_copy: Path) -> None:
    """The demo's queue holds 58 items and the audit reads 56: the heading says so, and names
    the two items it cannot measure until they are fixed."""
    window = open_desk(qtbot, demo_copy)
    panel = open_audit(qtbot, window)
    first, findings_line = panel.heading.text().split("\n")
    assert first.startswith(f"56 of {window.queue_model.rowCount()} items audited: 2 items without")
    assert "demo:three-options" in first and "demo:gold-not-an-option" in first
    assert findings_line.startswith("Found ") and "near-duplicate cluster" in findings_line
    panel.close()
    close_desk(window)
