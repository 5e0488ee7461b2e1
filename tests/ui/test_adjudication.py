"""The adjudication panel: three curators' real project files merged from the panel, their
disagreements settled from the keyboard and written to the adjudicator's file."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from bagel_studio.core import operations
from bagel_studio.core.agreement import agreement_report
from bagel_studio.core.model import Decision, ItemContent, Status
from bagel_studio.core.prefs import Preferences
from bagel_studio.core.store import NewItem, QueueFilter, Store
from bagel_studio.ui.adjudication import AdjudicationPanel
from bagel_studio.ui.agreement_view import AgreementView, strength, table_texts
from bagel_studio.ui.services import Services

W = [f"wikipedia:andean-flamingo:{i}" for i in range(4)]
G = "globi:2:0"


def paper_items(data_dir: Path) -> list[NewItem]:
    items = []
    for line in (data_dir / "items" / "paper_examples.jsonl").read_text("utf-8").splitlines():
        raw = json.loads(line)
        content = ItemContent(
            raw["question"],
            tuple(raw["options"]),
            "ABCD".index(raw["answer"]),
            raw["dimension"],
            raw.get("level"),
        )
        items.append(NewItem(raw["id"], raw["domain"], content))
    return items


def alice(store: Store) -> None:
    operations.decide(store, W[0], "alice", Decision.ACCEPT)
    operations.decide(store, W[1], "alice", Decision.ACCEPT)
    content = store.items.get(W[2]).content
    operations.edit(
        store,
        W[2],
        "alice",
        content.with_changes(options=("Preying on fish", *content.options[1:])),
    )
    operations.decide(store, W[2], "alice", Decision.ACCEPT)
    operations.decide(store, W[3], "alice", Decision.UNCERTAIN, note="not sure the call is a peep")
    operations.decide(store, G, "alice", Decision.ACCEPT)


def bob(store: Store) -> None:
    for item_id in (W[0], W[1], W[2], W[3]):
        operations.decide(store, item_id, "bob", Decision.ACCEPT)
    operations.decide(
        store, G, "bob", Decision.REJECT, reason="several-answers", note="raccoon fits too"
    )


def carol(store: Store) -> None:
    operations.decide(store, W[0], "carol", Decision.ACCEPT)
    operations.decide(store, W[1], "carol", Decision.REJECT, reason="ambiguous")
    operations.decide(store, W[2], "carol", Decision.ACCEPT)


@pytest.fixture
def files(tmp_path: Path, data_dir: Path) -> dict[str, Path]:
    return curator_files(tmp_path, data_dir)


def curator_files(tmp_path: Path, data_dir: Path) -> dict[str, Path]:
    """The adjudicator dana's project and alice's, bob's and carol's copies with their decisions."""
    base = tmp_path / "base.bagel"
    with Store.open(base) as store:
        store.items.add_items(paper_items(data_dir), None)
    paths = {}
    for name, decide in (("alice", alice), ("bob", bob), ("carol", carol), ("dana", None)):
        paths[name] = tmp_path / f"{name}.bagel"
        shutil.copy(base, paths[name])
        if decide is not None:
            with Store.open(paths[name]) as store:
                decide(store)
    return paths


@pytest.fixture
def services(files: dict[str, Path]) -> Iterator[Services]:
    services = Services(store=Store.open(files["dana"]), prefs=Preferences(curator="dana"))
    yield services
    services.close()


def merged_panel(qtbot: QtBot, services: Services, files: dict[str, Path]) -> AdjudicationPanel:
    panel = AdjudicationPanel(services)
    qtbot.addWidget(panel)
    panel.show()
    panel.activateWindow()
    qtbot.waitUntil(panel.isActiveWindow)
    assert panel.item_ids() == []
    with qtbot.waitSignal(panel.merged):
        panel.merge_files([str(files[n]) for n in ("alice", "bob", "carol")])
    panel.queue.setFocus()
    return panel


def test_merge_from_the_panel_fills_the_queue_with_exactly_the_disagreements(
    qtbot: QtBot, services: Services, files: dict[str, Path]
) -> None:
    panel = merged_panel(qtbot, services, files)
    assert panel.item_ids() == [W[1], W[2], W[3], G]
    assert panel.heading.text() == "4 disputed items"
    assert "4 items disputed" in panel.merge_result.text()
    with qtbot.waitSignal(panel.merged):
        panel.merge_files([str(files["bob"])])
    assert "bob.bagel: already merged" in panel.merge_result.text()
    assert panel.item_ids() == [W[1], W[2], W[3], G]


def test_each_curators_version_side_by_side_with_differences_highlighted(
    qtbot: QtBot, services: Services, files: dict[str, Path]
) -> None:
    panel = merged_panel(qtbot, services, files)
    assert panel.current_item_id() == W[1]
    headers = [panel.table.horizontalHeaderItem(c).text() for c in range(4)]
    assert headers == ["As imported", "1. alice", "2. bob", "3. carol"]
    assert ("Decision", "3. carol") in panel.highlighted_cells()
    assert ("Reason", "3. carol") in panel.highlighted_cells()
    assert not any(row == "Question" for row, _ in panel.highlighted_cells())
    qtbot.keyClick(panel.queue, Qt.Key.Key_J)
    assert panel.current_item_id() == W[2]
    highlighted = panel.highlighted_cells()
    assert ("A", "1. alice") in highlighted and ("A", "3. carol") not in highlighted
    assert panel.table.item(6, 1).text() == "Preying on fish"  # row 6: option A
    assert panel.table.item(6, 1).font().bold()


def test_settling_disputes_by_keyboard_writes_the_adjudications(
    qtbot: QtBot, services: Services, files: dict[str, Path]
) -> None:
    panel = merged_panel(qtbot, services, files)
    store = services.store
    # W1: take carol's rejection (3); a second key pressed during the write is ignored
    with qtbot.waitSignal(panel.adjudicated) as done:
        qtbot.keyClick(panel.queue, Qt.Key.Key_3)
        qtbot.keyClick(panel.queue, Qt.Key.Key_2)
    assert done.args == [W[1]]
    assert store.adjudications.get(W[2]) is None
    assert panel.current_item_id() == W[2]  # the next disputed item appears

    # W2: digits typed in the reason field are text; then take alice's edit (1)
    qtbot.keyClicks(panel.reason_text, "alice fixed distractor 1")
    assert not panel.writing and store.adjudications.get(W[2]) is None
    panel.queue.setFocus()
    with qtbot.waitSignal(panel.adjudicated):
        qtbot.keyClick(panel.queue, Qt.Key.Key_1)

    # W3: alice was uncertain: not a version to take; reject for a chosen reason instead
    assert panel.current_item_id() == W[3]
    qtbot.keyClick(panel.queue, Qt.Key.Key_1)
    assert "not a final decision" in panel.status.text() and not panel.writing
    panel.reject_reason.setCurrentIndex(panel.reject_reason.findData("trivial"))
    with qtbot.waitSignal(panel.adjudicated):
        qtbot.keyClick(panel.queue, Qt.Key.Key_R)

    # G: take bob's rejection (2)
    with qtbot.waitSignal(panel.adjudicated):
        qtbot.keyClick(panel.queue, Qt.Key.Key_2)
    assert panel.item_ids() == []
    assert panel.item_header.text().startswith("Nothing to adjudicate.")

    services.close()
    with Store.open(files["dana"], read_only=True) as saved:
        assert saved.items.ids(QueueFilter(status="disputed")) == []
        first = saved.adjudications.get(W[1])
        assert (first["adjudicator"], first["decision"], first["reason"]) == (
            "dana",
            "reject",
            "ambiguous",
        )
        assert len([h for h in saved.history.of_item(W[1]) if h.action == "adjudicate"]) == 1
        revised = saved.adjudications.get(W[2])
        assert revised["decision"] == "revise"
        assert revised["reason"] == "alice fixed distractor 1"
        assert revised["note"] == "took alice's version"
        assert saved.reviews.final_content(W[2]).options[0] == "Preying on fish"
        assert saved.items.get(W[2]).status is Status.REVISED
        assert saved.adjudications.get(W[3])["reason"] == "trivial"
        bobs = saved.adjudications.get(G)
        assert (bobs["reason"], bobs["note"]) == ("several-answers", "raccoon fits too")
        assert saved.reviews.final_content(G) is None


def test_agreement_view_shows_kappa_overall_and_per_domain(
    qtbot: QtBot, services: Services, files: dict[str, Path]
) -> None:
    panel = merged_panel(qtbot, services, files)
    view = AgreementView(services)
    qtbot.addWidget(view)
    fleiss = table_texts(view.fleiss)
    # Overall: W0..W2 rated by all three: rows keep/keep/keep, keep/keep/reject, keep x3 ->
    # P-bar 7/9, P-bar_e 65/81, kappa -0.125 (they agree less than their keep-heavy marginals)
    few = "poor (only 3 items: says little)"  # a kappa over 3 items is no finding
    assert fleiss[0] == ["Overall", "alice, bob, carol", "5", "3", "-0.125", "78%", few]
    assert [row[0] for row in fleiss] == ["Overall", "GloBI", "Wikipedia"]
    assert fleiss[1][:5] == ["GloBI", "alice, bob", "1", "1", "-1.000"]
    cohen = table_texts(view.cohen)
    # alice/bob agree on 3 of 5; marginals keep 4+uncertain 1 vs keep 4+reject 1 -> -1/9
    assert cohen[0][:6] == ["Overall", "alice", "bob", "5", "-0.111", "60%"]
    assert cohen[0][6] == "poor (only 5 items: says little)"
    few = "slight (only 4 items: says little)"
    assert ["Wikipedia", "alice", "bob", "4", "0.000", "75%", few] in cohen
    assert strength(0.5, 40) == "moderate" and strength(-0.2, 12) == "poor"
    assert strength(0.0, 1) == "slight (only 1 item: says little)"
    assert "Fleiss' κ -0.125 over 3 items" in view.summary.text()
    table = view.fleiss  # its few rows whole, and no empty band under them
    assert table.verticalScrollBar().maximum() == 0
    rows = sum(table.rowHeight(r) for r in range(table.rowCount()))
    assert table.height() <= table.horizontalHeader().sizeHint().height() + rows + 8
    right = Qt.AlignmentFlag.AlignRight
    assert view.cohen.item(0, 4).textAlignment() & right  # "-0.111": digits line up
    assert not view.cohen.item(0, 1).textAlignment() & right  # "alice"

    with qtbot.waitSignal(panel.adjudicated):  # the adjudicator's decision is not a rating
        qtbot.keyClick(panel.queue, Qt.Key.Key_3)
    view.refresh()
    assert table_texts(view.fleiss)[0] == fleiss[0]


def test_agreement_view_switches_to_the_three_verdicts(
    qtbot: QtBot, services: Services, files: dict[str, Path]
) -> None:
    merged_panel(qtbot, services, files)
    view = AgreementView(services)
    qtbot.addWidget(view)
    keep = table_texts(view.fleiss)
    view.scheme.setCurrentIndex(view.scheme.findData("verdicts"))
    verdicts = agreement_report(services.store, scheme="verdicts").overall
    assert view.report is not None and view.report.overall == verdicts
    assert set(verdicts.category_counts) == {"accept", "revise", "discard"}
    first = table_texts(view.fleiss)[0]
    assert first[0] == "Overall" and first[3] == str(verdicts.fleiss_items)
    kappa = verdicts.fleiss_kappa
    assert first[4] == ("n/a" if kappa is None else f"{kappa:.3f}")
    view.scheme.setCurrentIndex(view.scheme.findData("keep"))
    assert table_texts(view.fleiss) == keep
    assert "1 items" not in view.summary.text() and "1 curators" not in view.summary.text()


def test_every_version_is_side_by_side_and_whole_at_1280x800(
    qtbot: QtBot, services: Services, files: dict[str, Path]
) -> None:
    """The three curators' versions beside the imported one in the panel's width (the third
    was behind a sideways scroll at 1280x800), each cell's wrapped text whole, the decision
    times to the minute."""
    panel = merged_panel(qtbot, services, files)
    panel.resize(1152, 720)  # what a 1280x800 screen gives it (90%)
    qtbot.waitUntil(lambda: panel.table.viewport().width() > 500)
    qtbot.wait(50)
    table = panel.table
    assert table.columnCount() == 4
    assert table.horizontalScrollBar().maximum() == 0
    widths = [table.columnWidth(c) for c in range(table.columnCount())]
    assert sum(widths) <= table.viewport().width() + 1
    assert min(widths) >= 150
    metrics = table.fontMetrics()
    for row in range(table.rowCount()):
        for column in range(table.columnCount()):
            cell = table.item(row, column)
            if cell is None or not cell.text():
                continue
            flags = int(Qt.TextFlag.TextWordWrap)
            needed = metrics.boundingRect(0, 0, widths[column] - 8, 10_000, flags, cell.text())
            assert table.rowHeight(row) >= needed.height(), cell.text()  # no line cut off
    labels = [table.verticalHeaderItem(r).text() for r in range(table.rowCount())]
    decided = [table.item(labels.index("Decided"), c).text() for c in range(1, 4)]
    assert all(d.endswith(" UTC") and len(d) == len("2026-11-23 16:47 UTC") for d in decided)


def test_the_flags_and_evidence_behind_each_version(
    qtbot: QtBot, services: Services, files: dict[str, Path], data_dir: Path
) -> None:
    """Beside the versions, what the desk showed each curator: the checks on each version's
    content (alice's edit of option A meets none the import's options did not), the sentence of
    the article that supports each version's gold, and the item's evidence in a line."""
    koala = (data_dir / "wikipedia" / "Koala.txt").read_text(encoding="utf-8")
    store = services.store
    store.evidence.add_texts(
        [
            {
                "key": "wikipedia:Andean flamingo",
                "kind": "wikipedia",
                "title": "Andean flamingo",
                "scientific_name": "Phoenicoparrus andinus",
                "doi": None,
                "text": koala
                + "\n\nThe Andean flamingo feeds by filter feeding on diatoms in salt lakes.",
                "truncated": 0,
                "source_file": "Andean_flamingo.txt",
            }
        ],
        None,
    )
    store.db.execute("UPDATE items SET text_key = 'title:Andean flamingo' WHERE id LIKE 'wik%'")
    panel = merged_panel(qtbot, services, files)
    qtbot.keyClick(panel.queue, Qt.Key.Key_J)
    assert panel.current_item_id() == W[2]  # "What is the primary feeding strategy ...?"
    labels = [panel.table.verticalHeaderItem(r).text() for r in range(panel.table.rowCount())]
    flags_row, support_row = labels.index("Flags"), labels.index("Gold's support")
    assert labels[-2:] == ["Flags", "Gold's support"]  # after the content rows
    cells = [panel.table.item(support_row, c).text() for c in range(4)]
    assert all("filter feeding on diatoms" in cell for cell in cells)
    flags = [panel.table.item(flags_row, c).text() for c in range(4)]
    assert all(cell for cell in flags)  # each version says its flags, or "none"
    assert panel.evidence.text() == "Article: Andean flamingo, " + (
        f"{len(store.evidence.find_text('title:Andean flamingo')['text']):,} characters"
    )
    qtbot.keyClick(panel.queue, Qt.Key.Key_J)
    qtbot.keyClick(panel.queue, Qt.Key.Key_J)
    assert panel.current_item_id() == G
    assert panel.evidence.text() == (
        "The GloBI record it was generated from is not in the project."
    )
