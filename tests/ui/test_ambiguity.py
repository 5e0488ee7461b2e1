"""The ambiguity queue over real GloBI records: flagged GloBI items first, most severe first, each
beside the record it came from and the records that back a distractor."""

from __future__ import annotations

import csv
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel
from pytestqt.qtbot import QtBot

from bagel_studio.core.model import Flag, ItemContent, Severity
from bagel_studio.core.prefs import Preferences
from bagel_studio.core.store import NewItem, Store
from bagel_studio.ui.ambiguity import AmbiguityPanel
from bagel_studio.ui.services import Services

TABLE = "template-dataset__interactions.tsv"


def globi_rows(data_dir: Path) -> list[dict[str, object]]:
    """GloBI's template dataset (real Leptoconchus-coral records) as store records."""
    path = data_dir / "globi" / TABLE
    with open(path, encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    return [
        {
            "ref": f"{TABLE}:{number}",
            "table_name": TABLE,
            "row": number,
            "source_taxon": row["sourceTaxonName"],
            "interaction": row["interactionTypeName"],
            "target_taxon": row["targetTaxonName"],
            "locality": row["localityName"],
            "date": row["observationDateTime"],
            "citation": row["referenceCitation"],
            "doi": row["referenceDoi"],
            "record": row,
        }
        for number, row in enumerate(rows, start=2)
    ]


# Leptoconchus inpleuractis is recorded on three Fungia (Pleuractis) corals (rows 8-10), so an
# item keyed on one of them has two other defensible answers.
HOSTS = (
    "Fungia (Pleuractis) gravis",
    "Fungia (Pleuractis) moluccensis",
    "Herpolitha limax",
    "Fungia (Pleuractis) paumotensis",
)


def add_items(store: Store) -> None:
    dim = "Masked participant identification"
    store.items.add_items(
        [
            NewItem(
                "globi:mild",
                "GloBI",
                ItemContent(
                    "Which coral does <b>Leptoconchus inlimax</b> parasitize?",
                    (
                        "Herpolitha limax",
                        "Halomitra pileus",
                        "Sandalolitha dentata",
                        "Fungia (Fungia) fungites",
                    ),
                    0,
                    dim,
                ),
                globi_ref=f"{TABLE}:6",
            ),
            NewItem(
                "globi:clean",
                "GloBI",
                ItemContent(
                    "Which coral hosts Leptoconchus massini?",
                    (
                        "Fungia (Verrillofungia) concinna",
                        "Herpolitha limax",
                        "Halomitra pileus",
                        "Sandalolitha dentata",
                    ),
                    0,
                    dim,
                ),
                globi_ref=f"{TABLE}:11",
            ),
            NewItem(
                "globi:record-key",
                "GloBI",
                ItemContent(
                    "Which coral is Leptoconchus inpleuractis a parasite of?", HOSTS, 0, dim
                ),
                globi_ref=f"{TABLE}:8",
            ),
            NewItem(
                "wikipedia:flagged",
                "Wikipedia",
                ItemContent(
                    "What does the passage say koalas eat?", ("a", "b", "c", "d"), 1, "Diet"
                ),
            ),
        ],
        None,
    )
    store.flags.replace_flags(
        "globi:record-key",
        [
            Flag(
                "globi-record-specific-key",
                Severity.WARNING,
                "Other options are linked to the same partner by the same interaction",
                {"records": [f"{TABLE}:9", f"{TABLE}:10"], "options": ["B", "D"]},
            ),
            Flag("globi-interaction-leak", Severity.INFO, "The stem names the interaction", {}),
        ],
    )
    store.flags.replace_flags(
        "globi:mild",
        [Flag("globi-interaction-leak", Severity.INFO, "The stem says 'parasitize'", {})],
    )
    store.flags.replace_flags(
        "wikipedia:flagged",
        [Flag("hidden-context", Severity.WARNING, "The stem refers to 'the passage'", {})],
    )


@pytest.fixture
def services(project_path: Path, data_dir: Path) -> Iterator[Services]:
    store = Store.open(project_path)
    store.evidence.add_globi_records(globi_rows(data_dir), None)
    add_items(store)
    services = Services(store=store, prefs=Preferences(curator="alice"))
    yield services
    services.close()


def texts(widget: object) -> list[str]:
    return [label.text() for label in widget.findChildren(QLabel)]  # type: ignore[attr-defined]


def test_flagged_globi_items_come_first_most_severe_first(qtbot: QtBot, services: Services) -> None:
    panel = AmbiguityPanel(services)
    qtbot.addWidget(panel)
    panel.show()
    assert panel.item_ids() == ["globi:record-key", "globi:mild"]
    assert panel.current_item_id() == "globi:record-key"
    assert "2 flagged GloBI items" in panel.heading.text()


def test_the_item_sits_beside_its_record_and_the_records_backing_distractors(
    qtbot: QtBot, services: Services
) -> None:
    panel = AmbiguityPanel(services)
    qtbot.addWidget(panel)
    panel.show()
    assert [card.ref for card in panel.cards] == [f"{TABLE}:8", f"{TABLE}:9", f"{TABLE}:10"]
    origin, second, third = (texts(card) for card in panel.cards)
    assert origin[0] == "Generated from"
    assert "Leptoconchus inpleuractis  —parasite of→  Fungia (Pleuractis) gravis" in origin
    assert second[0] == "Backs option B (Fungia (Pleuractis) moluccensis)"
    assert "Flag: globi-record-specific-key" in second
    assert third[0] == "Backs option D (Fungia (Pleuractis) paumotensis)"
    assert any(t.startswith("Citation: Gittenberger, A., Gittenberger, E. (2011)") for t in third)
    assert "Locality: not given" in third
    shown = texts(panel.detail)
    assert "✓ A. Fungia (Pleuractis) gravis" in shown
    assert any("Other options are linked to the same partner" in t for t in shown)


def test_text_is_plain_and_keys_move_through_the_queue(qtbot: QtBot, services: Services) -> None:
    panel = AmbiguityPanel(services)
    qtbot.addWidget(panel)
    panel.show()
    panel.activateWindow()
    qtbot.waitUntil(panel.isActiveWindow)
    panel.queue.setFocus()
    qtbot.keyClick(panel.queue, Qt.Key.Key_J)
    assert panel.current_item_id() == "globi:mild"
    stem = next(lb for lb in panel.detail.findChildren(QLabel) if "inlimax" in lb.text())
    assert stem.text() == "Which coral does <b>Leptoconchus inlimax</b> parasitize?"
    assert stem.textFormat() is Qt.TextFormat.PlainText
    assert [card.ref for card in panel.cards] == [f"{TABLE}:6"]
    with qtbot.waitSignal(panel.open_item) as opened:
        qtbot.keyClick(panel.queue, Qt.Key.Key_Return)
    assert opened.args == ["globi:mild"]
    qtbot.keyClick(panel.queue, Qt.Key.Key_K)
    assert panel.current_item_id() == "globi:record-key"


def test_a_record_not_loaded_is_said_so(qtbot: QtBot, services: Services) -> None:
    services.store.flags.replace_flags(
        "globi:clean",
        [
            Flag(
                "globi-record-specific-key",
                Severity.BLOCKING,
                "Another option fits",
                {
                    "records": ["missing.tsv:4"],
                    "options": ["B", "C"],
                    "by_option": {"C": ["missing.tsv:4"]},
                },
            )
        ],
    )
    panel = AmbiguityPanel(services)
    qtbot.addWidget(panel)
    assert panel.item_ids()[0] == "globi:clean"  # blocking sorts before warnings
    missing = texts(panel.cards[1])
    assert missing[0] == "Backs option C (Halomitra pileus)"
    assert "Record missing.tsv:4 is not loaded in this project." in missing


def test_on_the_demo_project_the_flawed_globi_items_come_with_their_records(
    qtbot: QtBot, demo_copy: Path
) -> None:
    store = Store.open(demo_copy)
    services = Services(store=store, prefs=Preferences(curator="alice"))
    try:
        panel = AmbiguityPanel(services)
        qtbot.addWidget(panel)
        ids = panel.item_ids()
        assert ids and all(store.items.get(i).domain == "GloBI" for i in ids)
        rows = store.queue.rows(ids)
        severities = [rows[i]["flag_severity"] for i in ids]
        assert severities == sorted(severities)  # most severe first
        ambiguous = []
        for item_id in ids[:3]:
            panel.queue.setCurrentRow(ids.index(item_id))
            backing = [
                card
                for card in panel.cards
                if texts(card)[0].startswith("Backs option")
                and not any("is not loaded" in t for t in texts(card))
            ]
            if backing:
                ambiguous.append(item_id)
        assert ambiguous, "the top of the queue shows records that back a distractor"
    finally:
        services.close()


def test_a_record_conflict_comes_before_items_with_only_model_or_audit_flags(
    qtbot: QtBot, services: Services
) -> None:
    """Models that reject the gold and an audit's near-duplicate are second opinions: an item
    with three of them (more flags, as severe) came before the one item whose records back
    another option. It comes after every item with a flag of its own, and says what it has."""
    services.store.flags.replace_flags(
        "globi:clean",
        [
            Flag("models-reject-gold", Severity.WARNING, "3 of 4 models chose B", {}),
            Flag("judge-disagrees", Severity.WARNING, "The judge keys B", {}),
            Flag("near-duplicate", Severity.WARNING, "Says what globi:mild says", {}),
        ],
    )
    panel = AmbiguityPanel(services)
    qtbot.addWidget(panel)
    assert panel.item_ids() == ["globi:record-key", "globi:mild", "globi:clean"]
    entries = [panel.queue.item(row).text() for row in range(panel.queue.count())]
    assert entries[0].startswith("[records back another option · warning, 2 flags]")
    assert entries[2].startswith("[models / audit only · warning, 3 flags]")
    assert "1 with records that back another option" in panel.heading.text()
