"""The desk's GloBI tab shows the rows an item's flags name, with or without a source record of
its own, instead of saying that no evidence is linked."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSettings

from bagel_studio.core.importers import import_paths
from bagel_studio.core.model import Flag, ItemContent, Severity
from bagel_studio.core.prefs import Preferences
from bagel_studio.core.store import NewItem, Store
from bagel_studio.ui.evidence_view import NO_SOURCE_RECORD, NONE_TEXT
from bagel_studio.ui.main_window import MainWindow
from bagel_studio.ui.services import Services
from tests.core.importers.test_import_encodings import MAC_PATH, MAC_TABLE, MOJIBAKE
from tests.ui.test_ambiguity import HOSTS, TABLE, add_items, globi_rows

NO_SOURCE = "globi:no-source"


def test_globi_tab_lists_the_rows_flags_name(qtbot, project_path: Path, data_dir: Path) -> None:
    store = Store.open(project_path)
    store.evidence.add_globi_records(globi_rows(data_dir), None)
    add_items(store)
    dim = "Masked participant identification"
    question = "Which coral is Leptoconchus inpleuractis a parasite of?"
    store.items.add_items([NewItem(NO_SOURCE, "GloBI", ItemContent(question, HOSTS, 0, dim))], None)
    cited = {"records": [f"{TABLE}:9", f"{TABLE}:10", "missing.tsv:4"], "options": ["B", "D"]}
    flag = Flag("also-documented", Severity.WARNING, "B and D are recorded too", cited)
    store.flags.replace_flags(NO_SOURCE, [flag])
    services = Services(store=store, prefs=Preferences(curator="ana"))
    settings = QSettings(str(project_path.parent / "desk.ini"), QSettings.Format.IniFormat)
    window = MainWindow(services, settings=settings)
    qtbot.addWidget(window)
    evidence = window.evidence

    window.show_item(NO_SOURCE)
    assert evidence.currentIndex() == 1  # the GloBI tab, not the empty text tab
    assert evidence.globi.title.text() == NO_SOURCE_RECORD
    titles = evidence.cited.titles()
    assert len(titles) == 3
    assert all("named by also-documented" in t for t in titles)
    assert f"GloBI record {TABLE}:9" in titles[0] and "Fungia (Pleuractis) moluccensis" in titles[0]
    nine = evidence.cited.cards[0].values
    rows = {r["ref"]: r for r in globi_rows(data_dir)}
    assert nine["Source taxon"] == rows[f"{TABLE}:9"]["source_taxon"]
    assert nine["Target taxon"] == rows[f"{TABLE}:9"]["target_taxon"]
    assert "not in this project" in evidence.cited.cards[2].values["Record"]

    window.show_item("globi:record-key")  # its own record, then the two rows its flag names
    assert evidence.globi.title.text() == f"GloBI record {TABLE}:8"
    assert [t.rsplit(" ", 1)[-1] for t in evidence.cited.titles()] == [f"{TABLE}:9", f"{TABLE}:10"]

    window.show_item("globi:clean")  # nothing cited: no extra cards
    assert evidence.cited.titles() == []
    window.show_item("wikipedia:flagged")
    assert evidence.globi.title.text() == NONE_TEXT and evidence.cited.titles() == []
    window.close()
    services.close()


def test_a_record_from_a_table_of_guessed_encoding_says_so(qtbot, project_path: Path) -> None:
    store = Store.open(project_path)
    import_paths(store, [MAC_PATH], full_checks=False)
    dim = "Masked participant identification"
    question = "Which moth do Great Tits feed their nestlings in a Mediterranean Iberian forest?"
    options = ("Orthosia", "Canis lupus", "Vulpes vulpes", "Lynx rufus")
    content = ItemContent(question, options, 0, dim)
    item = NewItem("globi:mac", "GloBI", content, globi_ref=f"{MAC_TABLE}#10")
    store.items.add_items([item], None)
    services = Services(store=store, prefs=Preferences(curator="ana"))
    settings = QSettings(str(project_path.parent / "desk.ini"), QSettings.Format.IniFormat)
    window = MainWindow(services, settings=settings)
    qtbot.addWidget(window)
    card = window.evidence.globi

    window.show_item("globi:mac")
    assert card.title.text() == f"GloBI record {MAC_TABLE}#10"
    assert "Pagani–Núñez, E., Ruiz, Í." in card.values["Citation"]
    assert not any(wrong in card.values["Citation"] for wrong in MOJIBAKE)
    assert "the encoding mac_roman is a guess" in card.values["Encoding"]
    assert "“García”, “Núñez”" in card.values["Encoding"]
    window.close()
    services.close()


def test_blind_cited_rows_do_not_name_checks_about_the_key(
    qtbot, project_path: Path, data_dir: Path
) -> None:
    """'named by also-documented' over a cited row said, before the answer, that another option
    is documented too: while blind the row is shown (it is evidence) without the check's name."""
    store = Store.open(project_path)
    store.evidence.add_globi_records(globi_rows(data_dir), None)
    add_items(store)
    dim = "Masked participant identification"
    question = "Which coral is Leptoconchus inpleuractis a parasite of?"
    store.items.add_items([NewItem(NO_SOURCE, "GloBI", ItemContent(question, HOSTS, 0, dim))], None)
    cited = {"records": [f"{TABLE}:9"], "options": ["B"]}
    flag = Flag("also-documented", Severity.WARNING, "B is recorded too", cited)
    store.flags.replace_flags(NO_SOURCE, [flag])
    services = Services(store=store, prefs=Preferences(curator="ana", blind_mode=True))
    settings = QSettings(str(project_path.parent / "desk.ini"), QSettings.Format.IniFormat)
    window = MainWindow(services, settings=settings)
    qtbot.addWidget(window)
    window.show_item(NO_SOURCE)
    titles = window.evidence.cited.titles()
    assert len(titles) == 1 and f"GloBI record {TABLE}:9" in titles[0]
    assert "also-documented" not in titles[0]
    window.controller.choose(0)  # the blind answer
    assert "named by also-documented" in window.evidence.cited.titles()[0]
    window.close()
