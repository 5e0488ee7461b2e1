"""The audit panel: the shortcuts a model could take, each finding opening the items behind it.

The audit (``core.audit``) runs on the writer thread when the panel opens or is asked to run
again, since it ends by storing its flags; the panel then lists its findings: the baselines per
domain, each artifact in words, each cluster of near-duplicates and each leak. A cluster or a
leak shows its items side by side, each with a button that shows it in the desk; an artifact
filters the desk's queue to its domain and dimension. J/K step through the findings and Enter
opens the selected one. Item text is data: labels are plain text. A decision or an edit made
elsewhere redraws the cards of the items it changed (``apply_changes``); the findings themselves
are the audit's, until it runs again.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QListWidget,
    QPushButton,
    QScrollArea,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from bagel_studio.core.audit import AuditReport, audit_flags, run_audit
from bagel_studio.core.audit.baselines import BASELINES, CHANCE, PICKS, Artifact, format_p
from bagel_studio.core.changes import Changes, Done, Part
from bagel_studio.core.domains import LETTERS
from bagel_studio.core.operations.audit import AuditChange, store_audit_flags
from bagel_studio.core.store import QueueFilter, Store, StoreError
from bagel_studio.ui.id_queue import (
    current_id,
    fill_queue,
    lay_out_beside_queue,
    step_queue,
)
from bagel_studio.ui.plain import plain_label, plain_tooltip
from bagel_studio.ui.secondary import add_button_key
from bagel_studio.ui.services import Services

CARD_WIDTH = 320
ARTIFACT_COLOUR = QColor(200, 60, 40)
CARD_PARTS = Part.CONTENT | Part.STATUS  # what an item card shows of a write
KEYS_HINT = "J / K: next / previous finding · Enter: show its items in the desk · Esc: close"


@dataclass(frozen=True)
class Finding:
    """One entry of the panel's list: what it says and the items behind it."""

    key: str
    kind: str  # "baselines", "artifact", "duplicate" or "leak"
    text: str
    item_ids: tuple[str, ...] = ()
    artifact: Artifact | None = None
    answer: str | None = None  # a leak's leaked answer


@dataclass
class AuditResult:
    report: AuditReport
    change: AuditChange | None  # None when the project is open read-only
    findings: list[Finding] = field(default_factory=list)


def findings(report: AuditReport) -> list[Finding]:
    """The panel's entries: the baselines table, then artifacts, clusters and leaks."""
    found = [
        Finding(
            "baselines",
            "baselines",
            f"Baselines per domain ({report.items:,} items, {len(report.artifacts)} artifacts)",
        )
    ]
    for n, artifact in enumerate(report.artifacts):
        found.append(Finding(f"artifact:{n}", "artifact", artifact.sentence(), (), artifact))
    for n, cluster in enumerate(report.duplicates):
        found.append(
            Finding(
                f"duplicate:{n}",
                "duplicate",
                f"Near-duplicates ({len(cluster)}): {' = '.join(cluster)}",
                tuple(cluster),
            )
        )
    for n, leak in enumerate(report.leaks):
        found.append(
            Finding(
                f"leak:{n}",
                "leak",
                f"Leak: {leak.item_id} states the answer of {leak.leaked_item_id}",
                (leak.item_id, leak.leaked_item_id),
                answer=leak.answer,
            )
        )
    return found


def audit_project(store: Store) -> Done[AuditResult]:
    """Run the audit and (unless read-only) store its flags: the writer thread's job."""
    report = run_audit(store)
    if store.read_only:
        return Done(AuditResult(report, None, findings(report)))
    stored = store_audit_flags(store, audit_flags(report))
    return Done(AuditResult(report, stored.result, findings(report)), stored.changes)


class _ItemCard(QFrame):
    """One item of a finding: id, dimension, status, stem and options, and a button that shows
    it in the desk."""

    def __init__(self, store: Store, item_id: str, role: str, panel: AuditPanel) -> None:
        super().__init__()
        self.item_id = item_id
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setFixedWidth(CARD_WIDTH)
        layout = QVBoxLayout(self)
        if role:
            layout.addWidget(plain_label(role, bold=True))
        try:
            item = store.items.get(item_id)
        except StoreError:
            layout.addWidget(plain_label(f"{item_id} is no longer in this project."))
            layout.addStretch(1)
            return
        content = item.content
        layout.addWidget(
            plain_label(f"{item.id} · {content.dimension or ''} · {item.status.value}")
        )
        layout.addWidget(plain_label(content.question, bold=True))
        for index, option in enumerate(content.options):
            gold = index == content.answer_index
            letter = LETTERS[index] if index < len(LETTERS) else "?"
            layout.addWidget(plain_label(f"{'✓' if gold else ' '} {letter}. {option}", bold=gold))
        self.open_button = QPushButton("Show in desk")
        self.open_button.clicked.connect(lambda: panel.open_item.emit(item_id))
        layout.addWidget(self.open_button)
        layout.addStretch(1)


class AuditPanel(QWidget):
    """The audit's findings beside the selected one's detail."""

    open_item = Signal(str)  # the desk shows this item
    show_filter = Signal(object)  # the desk's queue shows these items (a QueueFilter)

    def __init__(self, services: Services, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.services = services
        self.setWindowTitle("Audit")
        self.result: AuditResult | None = None
        self.running = False
        self.heading = plain_label()
        self.queue = QListWidget()
        self.queue.currentItemChanged.connect(self._show_current)
        self.queue.itemActivated.connect(lambda _entry: self.open_selected())
        self.queue.setWordWrap(True)
        self.run_button = QPushButton("Run the audit again")
        self.run_button.clicked.connect(self.refresh)
        add_button_key(self, self.run_button, "F5")
        keys = plain_label(KEYS_HINT, selectable=False)
        self.detail_scroll = QScrollArea()
        self.detail_scroll.setWidgetResizable(True)
        self._new_detail()
        lay_out_beside_queue(
            self, self.heading, self.queue, [keys, self.run_button], self.detail_scroll
        )
        splitter = self.findChild(QSplitter)
        if splitter is not None:  # findings are sentences: give the list room to show them
            splitter.setSizes([420, 780])
        self.cards: list[_ItemCard] = []
        self.table: QTableWidget | None = None
        for key, step in (("J", 1), ("K", -1)):
            shortcut = QShortcut(QKeySequence(key), self)
            shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            shortcut.activated.connect(lambda step=step: step_queue(self.queue, step))
        self.resize(1200, 720)
        self.refresh()
        services.listen(self)

    def apply_changes(self, changes: Changes, origin: object) -> None:
        """Items shown on the selected finding's cards that a write changed (their status, their
        content) are drawn again; what the audit found stays until it runs again."""
        shown = {card.item_id for card in self.cards}
        if origin is not self and any(changes.touches(i, CARD_PARTS) for i in shown):
            self._show_current()

    # -- running -------------------------------------------------------------------------------

    def refresh(self) -> None:
        """Run the audit (on the writer thread) and show what it finds."""
        if self.running:
            return
        self.running = True
        self.run_button.setEnabled(False)
        self.heading.setText("Auditing the project…")
        store = self.services.store
        self.services.write(
            lambda: audit_project(store),
            origin=self,
            done=self._audit_done,
            failed=self._audit_failed,
        )

    def _audit_done(self, result: AuditResult) -> None:
        self.running = False
        self.run_button.setEnabled(True)
        self.result = result
        report = result.report
        self.heading.setText(
            f"{report.coverage()}\nFound {_count(len(report.artifacts), 'artifact')},"
            f" {_count(len(report.duplicates), 'near-duplicate cluster')},"
            f" {_count(len(report.leaks), 'leak')}"
            + ("" if result.change is not None else " (read-only: no flags set)")
        )
        keep = current_id(self.queue)
        fill_queue(self.queue, ((f.key, f.text, None) for f in result.findings), keep)
        self._show_current()

    def _audit_failed(self, error: BaseException) -> None:
        self.running = False
        self.run_button.setEnabled(True)
        self.heading.setText(f"The audit failed: {error}")

    # -- the selected finding ------------------------------------------------------------------

    def selected(self) -> Finding | None:
        key = current_id(self.queue)
        if self.result is None or key is None:
            return None
        return next((f for f in self.result.findings if f.key == key), None)

    def select(self, kind: str, index: int = 0) -> None:
        """Select the ``index``-th finding of ``kind`` (tests, and keyboard users via J/K)."""
        self.queue.setCurrentRow(self._rows(kind)[index])

    def _rows(self, kind: str) -> list[int]:
        entries = self.result.findings if self.result else []
        return [row for row, f in enumerate(entries) if f.kind == kind]

    def open_selected(self) -> None:
        """Enter: an artifact filters the desk's queue; any other finding shows its first item."""
        finding = self.selected()
        if finding is None:
            return
        if finding.artifact is not None:
            self.show_artifact_items(finding.artifact)
        elif finding.item_ids:
            self.open_item.emit(finding.item_ids[0])

    def show_artifact_items(self, artifact: Artifact) -> None:
        self.show_filter.emit(QueueFilter(domain=artifact.domain, dimension=artifact.dimension))

    def _new_detail(self) -> None:
        """A fresh detail widget (the scroll area deletes the previous one at once, so nothing
        of the last finding lingers on screen)."""
        self.detail = QWidget()
        self.detail_layout = QVBoxLayout(self.detail)
        self.detail_scroll.setWidget(self.detail)

    def _show_current(self, *_: object) -> None:
        self._new_detail()
        self.cards = []
        self.table = None
        finding = self.selected()
        if finding is None:
            self.detail_layout.addWidget(plain_label("No audit yet."))
            return
        self.detail_layout.addWidget(plain_label(finding.text, bold=True))
        if finding.kind == "baselines" and self.result is not None:
            self._show_baselines(self.result.report)
        elif finding.artifact is not None:
            self._show_artifact(finding.artifact)
        elif finding.kind == "duplicate":
            self.detail_layout.addWidget(
                plain_label("These items say the same thing: keep one, reject or rewrite the rest.")
            )
            self._card_row([(i, "") for i in finding.item_ids])
        elif finding.kind == "leak":
            leaking, leaked = finding.item_ids
            self.detail_layout.addWidget(
                plain_label(
                    f"The stem of {leaking} states {finding.answer!r}, the gold answer of"
                    f" {leaked}: a model that has read one answers the other."
                )
            )
            self._card_row([(leaking, "States the answer"), (leaked, "Its answer is given away")])
        self.detail_layout.addStretch(1)

    def _show_baselines(self, report: AuditReport) -> None:
        domains = list(report.baselines.by_domain[BASELINES[0]])
        flagged = {(a.baseline, a.domain) for a in report.artifacts if a.dimension is None}
        table = QTableWidget(len(BASELINES), len(domains))
        # each domain with its item count: a rate over 12 items and one over 1,200 read apart
        first = report.baselines.by_domain[BASELINES[0]]
        table.setHorizontalHeaderLabels([f"{d}\nn = {first[d].n:,}" for d in domains])
        table.setVerticalHeaderLabels(list(BASELINES))
        table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        for row, name in enumerate(BASELINES):
            for column, domain in enumerate(domains):
                score = report.baselines.by_domain[name][domain]
                cell = QTableWidgetItem(f"{score.accuracy:.1%}")
                cell.setToolTip(plain_tooltip(f"n = {score.n:,}, {format_p(score.p_value)}"))
                if (name, domain) in flagged:
                    cell.setForeground(ARTIFACT_COLOUR)
                    font = cell.font()
                    font.setBold(True)
                    cell.setFont(font)
                table.setItem(row, column, cell)
        _fit(table)
        self.table = table
        self.detail_layout.addWidget(
            plain_label(
                f"How often each rule finds the gold without reading the question (chance"
                f" {CHANCE:.0%}), over the n items of each domain; artifacts in red. Hover a"
                f" cell for its p-value."
            )
        )
        self.detail_layout.addWidget(table)

    def _show_artifact(self, artifact: Artifact) -> None:
        what = (
            "the most frequent gold position"
            if artifact.baseline == "position"
            else PICKS[artifact.baseline]
        )
        self.detail_layout.addWidget(
            plain_label(
                f"Picking {what} finds the gold far more often than chance (25%). A model can"
                f" learn this shortcut; rewrite options so that {what} is no longer a clue."
                + (
                    " (The export balances gold positions, so the release loses this one.)"
                    if artifact.baseline == "position"
                    else ""
                )
            )
        )
        button = QPushButton("Show these items in the desk")
        button.clicked.connect(lambda: self.show_artifact_items(artifact))
        self.detail_layout.addWidget(button)
        if self.result is None:
            return
        dimensions = self.result.report.baselines.by_dimension[artifact.baseline].get(
            artifact.domain, {}
        )
        self.detail_layout.addWidget(
            plain_label(f"{artifact.baseline} per dimension of {artifact.domain}:")
        )
        table = QTableWidget(len(dimensions), 3)
        table.setHorizontalHeaderLabels(["accuracy", "n", "p-value"])
        table.setVerticalHeaderLabels(list(dimensions))
        table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        for row, score in enumerate(dimensions.values()):
            texts = (f"{score.accuracy:.1%}", f"{score.n:,}", format_p(score.p_value))
            for column, text in enumerate(texts):
                table.setItem(row, column, QTableWidgetItem(text))
        _fit(table)
        self.table = table
        self.detail_layout.addWidget(table)

    def _card_row(self, entries: list[tuple[str, str]]) -> None:
        row = QWidget()
        layout = QHBoxLayout(row)
        store = self.services.store
        for item_id, role in entries:
            card = _ItemCard(store, item_id, role, self)
            self.cards.append(card)
            layout.addWidget(card)
        layout.addStretch(1)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(row)
        scroll.setMinimumHeight(320)
        self.detail_layout.addWidget(scroll)


def _fit(table: QTableWidget) -> None:
    """Columns as wide as their text, the table as wide as its columns and as high as its rows:
    no empty band beside or under them (stretched to the detail's width, the baselines' four
    columns filled less than half of it, a blank strip the rest). A narrow window scrolls the
    detail sideways instead of cutting the table."""
    table.resizeColumnsToContents()
    table.resizeRowsToContents()
    frame = 2 * table.frameWidth()
    rows = sum(table.rowHeight(r) for r in range(table.rowCount()))
    columns = sum(table.columnWidth(c) for c in range(table.columnCount()))
    table.setFixedHeight(table.horizontalHeader().sizeHint().height() + rows + frame)
    table.setFixedWidth(table.verticalHeader().sizeHint().width() + columns + frame)


def _count(n: int, noun: str) -> str:
    """``n`` and its noun, plural unless one ("1 leak", "2 leaks")."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"
