"""The evidence cards as a curator met them on real Xeno-canto and GloBI data: the recording's
type read as words (not a Python list), a yes/no column left out of the title (the bat table's
`auto`: "XC824040 · no"), long licence and location lines whole at 1280x800, and a GloBI record
with long unbreakable values (lineages joined by '|', URLs) wrapped inside the column instead of
running off its right edge."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QRect
from PySide6.QtWidgets import QWidget

from bagel_studio.core.model import ItemContent
from bagel_studio.core.store import NewItem, Store
from bagel_studio.ui.evidence_view import RecordingCard, recording_fields
from tests.ui.desk_harness import close_desk, open_desk
from tests.ui.desk_project import GLOBI_ID, build_project

LICENCE = "Creative Commons Attribution-NonCommercial-ShareAlike 4.0 International"
LOCATION = (
    "Estación Biológica La Selva, Puerto Viejo de Sarapiquí, Heredia Province, Costa Rica"
    " (near the river trail, 40 m a.s.l.)"
)
LINEAGE = (
    "Animalia|Arthropoda|Insecta|Coleoptera|Curculionidae|Scolytinae|Hylesinini|Hylesinus"
    "|Hylesinus varius"
)
TABLE = "ashForestInteractions__interactions_with_references.tsv row 4211"
URL = "https://www.inaturalist.org/observations/123456789?locale=en&preferred_place_id=97394"


def _rect(widget: QWidget, ancestor: QWidget) -> QRect:
    return QRect(widget.mapTo(ancestor, widget.rect().topLeft()), widget.size())


def test_the_type_reads_as_words() -> None:
    def typed(value: object) -> str:
        return str(dict(recording_fields({"id": "XC1", "vocalization_type": value}))["Type"])

    assert typed("['call', 'flight call']") == "call, flight call"  # BirdCLEF's tables
    assert typed(["song", "call"]) == "song, call"  # a JSON list
    assert typed('["alarm call"]') == "alarm call"
    assert typed("[]") == "(not given)"
    assert typed("call, song") == "call, song"


def test_a_yes_no_column_is_not_the_species(qtbot) -> None:
    card = RecordingCard()
    qtbot.addWidget(card)
    card.set_fields("XC824040", [("Species", "no"), ("Recordist", "Gloriana Chaverri")])
    assert card.title.text() == "XC824040"
    assert card.values["Species"] == "no"  # still there, named as what it is
    card.set_fields("XC1", [("Species", "Carollia sowelli"), ("Common name", "Sowell's Bat")])
    assert card.title.text() == "XC1 · Carollia sowelli (Sowell's Bat)"


def _long_recording(path: Path, data_dir: Path) -> str:
    """A Xeno-canto item whose recording has a long licence text and location."""
    with Store.open(path) as store:
        audio = data_dir / "xeno_canto" / "XC625750.mp3"
        store.evidence.upsert_recordings(
            [{
                "id": "XC900001", "scientific_name": "Passer domesticus",
                "common_name": "House Sparrow", "vocalization_type": "['call', 'flight call']",
                "licence": LICENCE, "recordist": "A Recordist With A Long Name",
                "audio_path": str(audio), "file_name": "XC900001-Passer_domesticus.mp3",
                "metadata": {"loc": LOCATION, "length": "0:06"},
            }],
            None,
        )  # fmt: skip
        content = ItemContent(
            "What is the dominant frequency range of the House Sparrow's call?",
            ("~0.5-1 kHz", "~3-5 kHz", "~9-11 kHz", "~12-14 kHz"), 1, "Dominant frequency range",
        )  # fmt: skip
        item = NewItem("xeno-canto:long:0", "Xeno-canto", content, recording_id="XC900001")
        store.items.add_items([item], None)
    return item.id


def test_long_licence_and_location_lines_are_whole_at_1280(qtbot, tmp_path, data_dir) -> None:
    path = tmp_path / "cards.bagel"
    build_project(path, data_dir)
    item_id = _long_recording(path, data_dir)
    window = open_desk(qtbot, path)
    window.resize(1280, 800)
    window.show_item(item_id)
    qtbot.wait(100)
    card = window.evidence.recording
    assert card.labels["Type"].text() == "call, flight call"
    assert card.labels["Location"].text() == LOCATION
    assert card.visibleRegion().boundingRect() == card.rect()
    for name, label in card.labels.items():
        assert label.isVisible(), name
        assert card.rect().contains(_rect(label, card)), name
        assert label.height() >= label.heightForWidth(label.width()), name  # no line cut off
    close_desk(window)


def test_a_globi_card_with_long_values_stays_inside_its_column(qtbot, tmp_path, data_dir) -> None:
    path = tmp_path / "globi.bagel"
    build_project(path, data_dir)
    window = open_desk(qtbot, path)
    window.resize(1280, 800)
    window.show_item(GLOBI_ID)
    qtbot.wait(50)
    card = window.evidence.globi
    card.set_fields(
        "GloBI record ashForestInteractions:4211",
        [
            ("Source lineage", LINEAGE),
            ("Target lineage", LINEAGE),
            ("URL", URL),
            ("Table", TABLE),
        ],
    )
    qtbot.wait(100)
    area = card.parentWidget()
    while area is not None and not hasattr(area, "horizontalScrollBar"):
        area = area.parentWidget()
    assert area is not None
    assert area.horizontalScrollBar().maximum() == 0  # nothing runs off to the right
    assert card.width() <= area.viewport().width()
    assert card.minimumSizeHint().width() <= area.viewport().width()
    for widget in card.findChildren(QWidget):  # every value whole: none cut at the right
        if widget.isVisible() and hasattr(widget, "text"):
            assert widget.width() >= widget.minimumSizeHint().width(), widget.text()
            assert widget.height() >= widget.heightForWidth(widget.width()), widget.text()
    assert card.values["Source lineage"] == LINEAGE and card.values["URL"] == URL  # whole
    close_desk(window)
