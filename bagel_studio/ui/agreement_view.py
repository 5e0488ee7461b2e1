"""How much the curators agree, overall and per domain: Fleiss' kappa over all curators and
Cohen's kappa for each pair, each with the number of items it rests on (a kappa over a handful of
items says little, so the counts sit beside it). Computed by ``core.agreement``; this is a view.
"""

from __future__ import annotations

import re

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from bagel_studio.core.agreement import (
    SCHEME_TITLES,
    AgreementBlock,
    AgreementReport,
    agreement_report,
)
from bagel_studio.core.changes import Changes, Part
from bagel_studio.ui.plain import plain_label
from bagel_studio.ui.secondary import add_button_key
from bagel_studio.ui.services import Services

FLEISS_COLUMNS = (
    "Scope",
    "Curators",
    "Items rated",
    "Rated by all",
    "Fleiss' κ",
    "Observed agreement",
    "Strength",
)
COHEN_COLUMNS = (
    "Scope",
    "Curator A",
    "Curator B",
    "Items both rated",
    "Cohen's κ",
    "Observed",
    "Strength",
)

# Landis & Koch (1977), the usual reading of a kappa value.
STRENGTH = (
    (0.0, "poor"),
    (0.2, "slight"),
    (0.4, "fair"),
    (0.6, "moderate"),
    (0.8, "substantial"),
    (1.0, "almost perfect"),
)


FEW_ITEMS = 10  # below this many items a kappa is noise, and the Strength column says so


def strength(kappa: float | None, items: int | None = None) -> str:
    """Landis and Koch's word for ``kappa``; over fewer than FEW_ITEMS ``items`` it says that
    the word means little ('slight' for a kappa of 0 over one item read as a finding)."""
    if kappa is None:
        return "undefined"
    label = STRENGTH[-1][1]
    if kappa < 0:
        label = "poor"
    else:
        label = next((word for upper, word in STRENGTH[1:] if kappa <= upper), label)
    if items is not None and items < FEW_ITEMS:
        return f"{label} (only {_count(items, 'item')}: says little)"
    return label


def _number(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


NEEDS_TWO = (
    ". Agreement needs two curators' decisions on the same items: bring the others' project"
    " files in with File → Merge curators' files… (Ctrl+M)."
)


class AgreementView(QWidget):
    """Fleiss' kappa per scope and Cohen's kappa per pair, refreshed on demand."""

    def __init__(self, services: Services, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.services = services
        self.setWindowTitle("Curator agreement")
        self.report: AgreementReport | None = None
        self.summary = plain_label()
        self.fleiss = _table(FLEISS_COLUMNS)
        self.cohen = _table(COHEN_COLUMNS)
        self.scheme = QComboBox()  # today's keep/reject/uncertain, or WoW-Bench's three verdicts
        for scheme, title in SCHEME_TITLES.items():
            self.scheme.addItem(title, scheme)
        self.scheme.currentIndexChanged.connect(lambda _index: self.refresh())
        refresh = QPushButton("Refresh")
        refresh.clicked.connect(self.refresh)
        add_button_key(self, refresh, "F5")
        top = QHBoxLayout()
        top.addWidget(self.summary, 1)
        top.addWidget(plain_label("Categories:", wrap=False, selectable=False))
        top.addWidget(self.scheme)
        top.addWidget(refresh)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(plain_label("Fleiss' kappa (items rated by every curator)", bold=True))
        layout.addWidget(self.fleiss)  # one row per scope: as high as they are
        layout.addWidget(plain_label("Cohen's kappa per pair (items both rated)", bold=True))
        layout.addWidget(self.cohen, 1)  # a row per pair and scope: the rest of the height
        layout.addWidget(
            plain_label(
                "Categories: keep (accept or revise), reject, uncertain; or WoW-Bench's three "
                "verdicts accept, revise (accepted with revision), discard, where uncertain is no "
                "verdict. Skips are not ratings; the adjudicator's decisions are not counted."
            )
        )
        self.refresh()
        services.listen(self)

    def apply_changes(self, changes: Changes, origin: object) -> None:
        """Curators' decisions (the desk's, a merge's) change the agreement: recomputed while
        the window is open (F5 does the same by hand)."""
        if changes.parts & Part.REVIEWS and self.isVisible():
            self.refresh()

    def refresh(self) -> None:
        """Recompute from the project (a single query; fast enough on the main thread)."""
        scheme = str(self.scheme.currentData() or "keep")
        self.report = report = agreement_report(self.services.store, scheme=scheme)
        blocks: list[tuple[str, AgreementBlock]] = [("Overall", report.overall)]
        blocks += list(report.domains.items())
        _fill(self.fleiss, [self._fleiss_row(name, block) for name, block in blocks])
        _fit_height(self.fleiss)
        pair_rows = [
            [
                name,
                p.a,
                p.b,
                str(p.n),
                _number(p.kappa),
                _percent(p.observed),
                strength(p.kappa, p.n),
            ]
            for name, block in blocks
            for p in block.pairs
        ]
        _fill(self.cohen, pair_rows)
        overall = report.overall
        self.summary.setText(
            f"{_count(len(overall.curators), 'curator')}, "
            f"{_count(overall.items_rated, 'item')} rated;"
            f" Fleiss' κ {_number(overall.fleiss_kappa)} over "
            f"{_count(overall.fleiss_items, 'item')}"
            + ("" if len(overall.curators) >= 2 else NEEDS_TWO)
        )

    @staticmethod
    def _fleiss_row(name: str, block: AgreementBlock) -> list[str]:
        return [
            name,
            ", ".join(block.curators),
            str(block.items_rated),
            str(block.fleiss_items),
            _number(block.fleiss_kappa),
            _percent(block.observed),
            strength(block.fleiss_kappa, block.fleiss_items),
        ]


def table_texts(table: QTableWidget) -> list[list[str]]:
    """A table's text, row by row (what the curator reads)."""
    rows = []
    for r in range(table.rowCount()):
        cells = [table.item(r, c) for c in range(table.columnCount())]
        rows.append([cell.text() if cell is not None else "" for cell in cells])
    return rows


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _percent(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.0f}%"


def _table(columns: tuple[str, ...]) -> QTableWidget:
    table = QTableWidget(0, len(columns))
    table.setHorizontalHeaderLabels(list(columns))
    table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
    table.verticalHeader().setVisible(False)
    table.horizontalHeader().setStretchLastSection(True)
    table.setSortingEnabled(False)
    return table


def _fit_height(table: QTableWidget) -> None:
    """The table as high as its rows (no empty band under a handful of scopes)."""
    rows = sum(table.rowHeight(r) for r in range(table.rowCount()))
    header = table.horizontalHeader().sizeHint().height()
    table.setFixedHeight(header + rows + 2 * table.frameWidth())


NUMBER = re.compile(r"-?[0-9][0-9,.]*%?|n/a")
RIGHT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter


def _fill(table: QTableWidget, rows: list[list[str]]) -> None:
    """The rows' text; counts, kappas and percentages right-aligned, so that their digits line
    up and a minus sign stands out."""
    table.setRowCount(len(rows))
    for r, values in enumerate(rows):
        for c, value in enumerate(values):
            cell = QTableWidgetItem(value)
            if NUMBER.fullmatch(value):
                cell.setTextAlignment(RIGHT)
            table.setItem(r, c, cell)
    table.resizeColumnsToContents()
    table.resizeRowsToContents()  # both tables' rows alike, as high as their text
