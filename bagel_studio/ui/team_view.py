"""The review team (*Review → Team…*, *Review → Plan the review…*): the plan, who has what, how far
each curator is and how much they agree, with the items the agreement was measured on.

At the top, the plan: the curators and the settings ``bagel-studio plan`` takes (curators per
item, per risky item, the calibration share, the seed), *Make the plan* (``operations.team.
make_plan``; a project that has a plan keeps it unless *Replace the current plan* is ticked) and
*Next round* (``operations.team.next_round``: each disagreement to one more curator). Both write
through ``Services.write``; what the plan dealt is shown as the command line prints it.

Below, where the plan stands (``core.team.status.team_status``): per curator the items assigned,
decided, shared with another curator who decided them too, Cohen's kappa with the others on
those, and the items waiting for a further look; the agreement on the calibration share and on
the overlap, each with the items and curators it rests on (``agreement_lines``); per item, who
has it, who decided what and where it stands. Double-click (or Enter) shows an item in the
desk. Decisions, adjudications and plan changes made anywhere redraw it (``apply_changes``)
while it is open.
"""

from __future__ import annotations

import re
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt, Signal
from PySide6.QtGui import QFont, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSizePolicy,
    QSpinBox,
    QTableView,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from bagel_studio.core.agreement import AgreementBlock
from bagel_studio.core.assignment import RISK_RULE, ItemState, PlanError, PlanSettings
from bagel_studio.core.changes import Changes, Part
from bagel_studio.core.operations.team import PlanMade, make_plan, next_round
from bagel_studio.core.team.status import TeamStatus, plan_lines, team_status
from bagel_studio.ui.plain import plain_label
from bagel_studio.ui.secondary import add_button_key
from bagel_studio.ui.services import Services

CURATOR_COLUMNS = ("Curator", "Assigned", "Decided", "Shared", "κ with the others", "Waiting")
ITEM_COLUMNS = ("Item", "Curators", "Decided", "Where it stands", "Agreement measured on")
SHOWN = {  # the item list's choices: title -> which items
    "every item": "all",
    "waiting for a further look": "waiting",
    "disagreements at the limit": "at_limit",
    "not yet decided by all": "open",
    "the calibration share": "calibration",
}
RIGHT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
Index = QModelIndex | QPersistentModelIndex


def parse_curators(text: str) -> tuple[str, ...]:
    """The curators typed: separated by commas when there is one (a name may hold a space),
    else by spaces."""
    parts = text.split(",") if "," in text else text.split()
    return tuple(p.strip() for p in parts if p.strip())


def stands(state: ItemState, waiting: set[str], at_limit: set[str]) -> str:
    """Where an item stands, in words."""
    if state.adjudicated:
        return "adjudicated"
    if state.item_id in waiting:
        return "waiting for a further look"
    if state.item_id in at_limit:
        return "disagreement at the limit: the adjudicator's"
    decided = len(state.verdicts)
    if decided < len(state.curators):
        return f"{decided} of {len(state.curators)} decided"
    return "agreed"


def measured_on(state: ItemState) -> str:
    """Which of the agreement's measures the item counts in."""
    if len(state.verdicts) < 2:
        return ""
    return "calibration share, overlap" if state.calibration else "overlap"


class ItemsModel(QAbstractTableModel):
    """Per item: who has it, who decided what, where it stands (one row per item of the plan)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.rows: list[tuple[str, str, str, str, str]] = []

    def set_states(self, states: list[ItemState], waiting: set[str], at_limit: set[str]) -> None:
        self.beginResetModel()
        self.rows = [
            (
                s.item_id,
                ", ".join(s.curators) + ("  (calibration)" if s.calibration else ""),
                ", ".join(f"{c} {d}" for c, d in s.decisions.items()),
                stands(s, waiting, at_limit),
                measured_on(s),
            )
            for s in states
        ]
        self.endResetModel()

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(ITEM_COLUMNS)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role == Qt.ItemDataRole.DisplayRole and index.isValid():
            return self.rows[index.row()][index.column()]
        return None

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            return ITEM_COLUMNS[section]
        return None


class TeamView(QWidget):
    """The review plan and where the team stands."""

    open_item = Signal(str)  # the desk shows this item

    def __init__(self, services: Services, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.services = services
        self.status: TeamStatus | None = None
        self.setWindowTitle("Review team")
        read_only = services.store.read_only
        # -- the plan
        self.curators = QLineEdit()
        self.curators.setPlaceholderText("alice, bob, carol")
        self.per_item = _spin(1, 50, 2)
        self.risky_per_item = _spin(1, 50, 3)
        self.calibration = QDoubleSpinBox()
        self.calibration.setRange(0.0, 100.0)
        self.calibration.setDecimals(1)
        self.calibration.setSuffix(" %")
        self.calibration.setValue(5.0)
        self.seed = _spin(0, 2**31 - 1, 0)
        self.replace = QCheckBox(
            "Replace the current plan (its packages can no longer be collected)"
        )
        self.make_button = QPushButton("Make the plan")
        self.make_button.clicked.connect(self.make)
        self.next_button = QPushButton("Next round")
        self.next_button.setToolTip(
            "Give every item whose curators have all decided and disagree to one more curator,"
            " the least loaded (bagel-studio plan --next); hand-out then writes their packages"
        )
        self.next_button.clicked.connect(self.next_round)
        self.message = plain_label()
        self.plan_text = QPlainTextEdit()  # the plan just made, as the command line prints it
        self.plan_text.setReadOnly(True)
        fixed = QFont("monospace")
        fixed.setStyleHint(QFont.StyleHint.TypeWriter)
        self.plan_text.setFont(fixed)
        self.plan_text.setMaximumHeight(170)
        self.plan_text.hide()
        form = QFormLayout()
        form.addRow("Curators:", self.curators)
        numbers = QHBoxLayout()
        for label, box in (
            ("per item", self.per_item),
            ("per risky item", self.risky_per_item),
            ("calibration share", self.calibration),
            ("seed", self.seed),
        ):
            numbers.addWidget(plain_label(label, wrap=False, selectable=False))
            numbers.addWidget(box)
        numbers.addStretch(1)
        form.addRow("Settings:", numbers)
        buttons = QHBoxLayout()
        buttons.addWidget(self.replace, 1)
        buttons.addWidget(self.make_button)
        buttons.addWidget(self.next_button)
        plan_box = QGroupBox("Plan the review")
        plan_layout = QVBoxLayout(plan_box)
        plan_layout.addLayout(form)
        plan_layout.addWidget(plain_label(f"{RISK_RULE[0].upper()}{RISK_RULE[1:]}."))
        plan_layout.addLayout(buttons)
        plan_layout.addWidget(self.message)
        plan_layout.addWidget(self.plan_text)
        plan_box.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)
        if read_only:
            for widget in (self.make_button, self.next_button, self.replace):
                widget.setEnabled(False)
                widget.setToolTip("The project is open read-only")
        # -- where the team stands
        self.summary = plain_label()
        self.curator_table = QTableWidget(0, len(CURATOR_COLUMNS))
        self.curator_table.setHorizontalHeaderLabels(list(CURATOR_COLUMNS))
        self.curator_table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.curator_table.verticalHeader().setVisible(False)
        self.curator_table.horizontalHeader().setStretchLastSection(False)
        self.agreement = plain_label()
        self.shown = QComboBox()
        for title, key in SHOWN.items():
            self.shown.addItem(title, key)
        self.shown.currentIndexChanged.connect(lambda _index: self._show_items())
        self.items_model = ItemsModel(self)
        self.items = QTableView()
        self.items.setModel(self.items_model)
        self.items.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.items.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.items.verticalHeader().setVisible(False)
        header = self.items.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(True)
        self.items.doubleClicked.connect(self._open)
        enter = QShortcut(QKeySequence(Qt.Key.Key_Return), self.items)
        enter.setContext(Qt.ShortcutContext.WidgetShortcut)
        enter.activated.connect(lambda: self._open(self.items.currentIndex()))
        refresh = QPushButton("Refresh")
        refresh.clicked.connect(self.refresh)
        add_button_key(self, refresh, "F5")
        top = QHBoxLayout()
        top.addWidget(self.summary, 1)
        top.addWidget(refresh)
        shown_row = QHBoxLayout()
        shown_row.addWidget(plain_label("Items:", bold=True, wrap=False, selectable=False))
        shown_row.addWidget(self.shown)
        shown_row.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addWidget(plan_box)
        layout.addLayout(top)
        layout.addWidget(self.curator_table)  # as high as its rows: the items get the rest
        layout.addWidget(self.agreement)
        layout.addLayout(shown_row)
        layout.addWidget(self.items, 1)
        self.refresh()
        services.listen(self)

    # -- the plan -------------------------------------------------------------------------------

    def settings(self) -> PlanSettings:
        """The plan's settings as the form says them; ``PlanError`` when they are not a plan."""
        return PlanSettings(
            curators=parse_curators(self.curators.text()),
            per_item=self.per_item.value(),
            risky_per_item=self.risky_per_item.value(),
            calibration=round(self.calibration.value() / 100, 6),
            seed=self.seed.value(),
        )

    def make(self) -> None:
        """Make the plan the form says (through ``Services.write``)."""
        try:
            settings = self.settings()
        except PlanError as exc:
            self.message.setText(f"No plan made: {exc}")
            return
        store, replace = self.services.store, self.replace.isChecked()
        self.message.setText("Dealing the items…")
        self.make_button.setEnabled(False)
        self.services.write(
            lambda: make_plan(store, settings, replace=replace),
            origin=self,
            done=self._made,
            failed=lambda error: self._failed("No plan made", error),
        )

    def _made(self, made: PlanMade) -> None:
        self.make_button.setEnabled(True)
        self.replace.setChecked(False)
        self.message.setText(
            f"Plan {made.plan_id} made: bagel-studio hand-out PROJECT OUTDIR writes each"
            " curator's package."
        )
        self.plan_text.setPlainText("\n".join(plan_lines(made)))
        self.plan_text.show()
        self.refresh()

    def next_round(self) -> None:
        """Hand out the next round (through ``Services.write``)."""
        store = self.services.store
        self.next_button.setEnabled(False)
        self.services.write(
            lambda: next_round(store),
            origin=self,
            done=self._next_done,
            failed=lambda error: self._failed("No round handed out", error),
        )

    def _next_done(self, result: Any) -> None:
        given = len(result.assignments)
        if given:
            text = (
                f"Round {result.number}: {_count(given, 'item')} to a further curator; bagel-studio"
                " hand-out writes their packages."
            )
        else:
            text = "No disagreement to pass on: no new round."
        if result.at_limit:
            text += f" {len(result.at_limit):,} disagreements are at the limit: the adjudicator's."
        self.message.setText(text)
        self.refresh()

    def _failed(self, what: str, error: BaseException) -> None:
        self.message.setText(f"{what}: {error}")
        self.refresh()

    # -- where the team stands ------------------------------------------------------------------

    def apply_changes(self, changes: Changes, origin: object) -> None:
        """Decisions, adjudications (reviews) and the plan (team) change where the team
        stands: redrawn while the window is open."""
        if (changes.team or changes.parts & (Part.REVIEWS | Part.STATUS)) and self.isVisible():
            self.refresh()

    def refresh(self) -> None:
        """Re-read where the plan stands."""
        try:
            self.status = status = team_status(self.services.store)
        except PlanError:
            self.status = None
            self.summary.setText(
                "No review plan yet: name the curators and make one (or bagel-studio plan"
                " PROJECT --curators NAME...)."
            )
            self.curator_table.setRowCount(0)
            self.agreement.setText("")
            self.items_model.set_states([], set(), set())
            self.next_button.setEnabled(False)
            self.make_button.setEnabled(not self.services.store.read_only)
            return
        s = status.plan.settings
        if not self.curators.text():
            self.curators.setText(", ".join(s.curators))
            self.per_item.setValue(s.per_item)
            self.risky_per_item.setValue(s.risky_per_item)
            self.calibration.setValue(round(s.calibration * 100, 1))
            self.seed.setValue(s.seed)
        writable = not self.services.store.read_only
        self.make_button.setEnabled(writable)
        self.next_button.setEnabled(writable and bool(status.waiting))
        package = self.services.package
        whose = f"{package.get('curator')}'s package of " if package is not None else ""
        self.summary.setText(
            f"{whose}plan {status.plan.id} (made {status.plan.created_at[:16].replace('T', ' ')}):"
            f" {len(status.items):,} items, {len(s.curators)} curators, {s.per_item} per item,"
            f" {s.risky_per_item} per risky item, round {status.rounds};"
            f" {len(status.waiting):,} waiting for a further look,"
            f" {len(status.at_limit):,} disagreements at the limit ({s.limit} curators)"
        )
        rows = [
            [
                c.curator,
                f"{c.assigned:,}",
                f"{c.decided:,}",
                f"{c.shared:,}",
                "n/a" if c.kappa is None else f"{c.kappa:.3f}",
                f"{c.waiting:,}",
            ]
            for c in status.curators
        ]
        _fill(self.curator_table, rows)
        self.agreement.setText(
            "\n".join(agreement_lines(status.calibration, status.overlap))
            + "\nκ with the others: each curator's decisions against every other curator's on"
            " the items both decided (Cohen's kappa, pooled)."
        )
        self._show_items()

    def _show_items(self) -> None:
        status = self.status
        if status is None:
            return
        key = str(self.shown.currentData() or "all")
        waiting, at_limit = set(status.waiting), set(status.at_limit)
        states = status.items
        if key == "waiting":
            states = [s for s in states if s.item_id in waiting]
        elif key == "at_limit":
            states = [s for s in states if s.item_id in at_limit]
        elif key == "open":
            states = [s for s in states if len(s.verdicts) < len(s.curators)]
        elif key == "calibration":
            states = [s for s in states if s.calibration]
        self.items_model.set_states(states, waiting, at_limit)
        if self.items_model.rowCount() <= 2000:  # a handful of rows: fit them; many: as set
            self.items.resizeColumnsToContents()

    def _open(self, index: QModelIndex | QPersistentModelIndex) -> None:
        if index.isValid():
            self.open_item.emit(self.items_model.rows[index.row()][0])


def agreement_lines(calibration: AgreementBlock, overlap: AgreementBlock) -> tuple[str, str]:
    """The agreement on the calibration share and on the overlap, each saying the items and
    the curators its kappas are computed over. Fleiss' kappa takes the items every curator
    decided: while no item outside the calibration share has been decided by all of them, the
    overlap's are the calibration share's (the same items, the same decisions) and so is its
    kappa, which the overlap's line says rather than showing one number twice."""
    same = (
        overlap.fleiss_items > 0
        and overlap.curators == calibration.curators
        and overlap.fleiss_items == calibration.fleiss_items
    )  # the calibration share's complete items are among the overlap's: equal counts, one set
    return (
        agreement_text("the calibration share (items every curator has)", calibration),
        agreement_text(
            "the overlap (every item two or more curators decided)", overlap, same_as=same
        ),
    )


def agreement_text(name: str, block: AgreementBlock, *, same_as: bool = False) -> str:
    """One line of the agreement: on which items, how many, by whom, and the kappas;
    ``same_as``: Fleiss' kappa rests on the calibration share's items, and the line says so."""
    kappas = [p.kappa for p in block.pairs if p.kappa is not None]
    mean = "n/a" if not kappas else f"{sum(kappas) / len(kappas):.3f}"
    fleiss = "n/a" if block.fleiss_kappa is None else f"{block.fleiss_kappa:.3f}"
    everyone = len(block.curators)
    if same_as:
        over = (
            f"over the same {block.fleiss_items:,} items as on the calibration share (no other"
            f" item has been decided by all {everyone} curators)"
        )
    elif everyone >= 2:
        items, names = _count(block.fleiss_items, "item"), ", ".join(block.curators)
        over = f"over the {items} all {everyone} curators ({names}) decided"
    else:
        over = "(two curators or more are needed)"
    pairs = _count(len(kappas), "pair")
    return (
        f"Agreement on {name}: {_count(block.items_rated, 'item')} decided by two or more;"
        f" Fleiss' κ {fleiss} {over}; mean Cohen's κ of the {pairs} {mean}, each pair on the"
        " items both decided"
    )


NUMBER = re.compile(r"-?[0-9][0-9,.]*|n/a")


def _fill(table: QTableWidget, rows: list[list[str]]) -> None:
    """The rows' text, numbers right-aligned; the table as high as its rows."""
    table.setRowCount(len(rows))
    for r, values in enumerate(rows):
        for c, value in enumerate(values):
            cell = QTableWidgetItem(value)
            if c and NUMBER.fullmatch(value):
                cell.setTextAlignment(RIGHT)
            table.setItem(r, c, cell)
    table.resizeColumnsToContents()
    table.resizeRowsToContents()
    height = sum(table.rowHeight(r) for r in range(table.rowCount()))
    header = table.horizontalHeader().sizeHint().height()
    table.setFixedHeight(header + max(height, 1) + 2 * table.frameWidth())


def _count(n: int, noun: str) -> str:
    return f"{n:,} {noun}" if n == 1 else f"{n:,} {noun}s"


def _spin(low: int, high: int, value: int) -> QSpinBox:
    box = QSpinBox()
    box.setRange(low, high)
    box.setValue(value)
    return box
