"""The item and its evidence: plain text only, gold marked, spans highlighted, cards readable."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt

from bagel_studio.core.model import Item, ItemContent, Status
from bagel_studio.ui.evidence_spans import find_phrase, support_ranges
from bagel_studio.ui.evidence_view import licence_name
from bagel_studio.ui.history_view import content_diff
from bagel_studio.ui.queue_model import COLUMNS
from tests.ui.desk_harness import close_desk, open_desk
from tests.ui.desk_project import (
    BIORXIV_ID,
    GLOBI_ID,
    HTML_ID,
    HTML_STEM,
    KOALA_ID,
    XC_ID,
    build_project,
)


def test_markup_in_an_item_is_shown_literally(qtbot, tmp_path: Path, data_dir: Path) -> None:
    path = tmp_path / "html.bagel"
    build_project(path, data_dir, tricky=True)
    window = open_desk(qtbot, path)
    window.show_item(HTML_ID)
    view = window.item_view
    assert view.stem.textFormat() == Qt.TextFormat.PlainText
    assert view.stem.text() == HTML_STEM
    assert "<i>a</i>" in view.options[0].text()
    assert all(label.textFormat() == Qt.TextFormat.PlainText for label in view.options)
    model = window.queue_model
    question = model.index(model.row_of(HTML_ID), [c[0] for c in COLUMNS].index("question"))
    assert model.data(question) == HTML_STEM
    tooltip = model.data(question, Qt.ItemDataRole.ToolTipRole)
    assert "&lt;img src=http://x&gt;" in tooltip and "<img" not in tooltip
    close_desk(window)


def test_gold_is_marked_and_flags_explained(qtbot, tmp_path: Path, data_dir: Path) -> None:
    path = tmp_path / "gold.bagel"
    build_project(path, data_dir)
    window = open_desk(qtbot, path)
    options = [label.text() for label in window.item_view.options]
    assert options[1].startswith("B   Eucalyptus leaves") and "✓ gold" in options[1]
    assert not any("gold" in text for i, text in enumerate(options) if i != 1)
    assert "Diet" in window.item_view.meta.text() and "easy" in window.item_view.meta.text()
    close_desk(window)


def test_wikipedia_text_highlights_the_supporting_sentence(qtbot, tmp_path, data_dir) -> None:
    path = tmp_path / "wiki.bagel"
    build_project(path, data_dir)
    window = open_desk(qtbot, path)
    window.show_item(KOALA_ID)
    evidence = window.evidence
    assert evidence.currentWidget() is evidence.text
    highlighted = evidence.text.highlighted_text()
    assert highlighted and any("Eucalyptus" in h or "eucalypt" in h for h in highlighted)
    assert len(evidence.text.editor.extraSelections()) == len(highlighted)
    assert evidence.text.editor.isReadOnly()
    assert evidence.text.heading.text() == "Koala · Wikipedia article"  # the kind in words
    close_desk(window)


def test_biorxiv_spans_and_globi_and_recording_cards(qtbot, tmp_path, data_dir) -> None:
    path = tmp_path / "cards.bagel"
    build_project(path, data_dir)
    window = open_desk(qtbot, path)
    evidence = window.evidence

    window.show_item(BIORXIV_ID)
    assert evidence.text.highlighted_text() == [
        "Dilution is therefore both necessary and sufficient to explain the higher survival rates"
        " of bats flying in column formation"
    ]

    window.show_item(GLOBI_ID)
    assert evidence.currentIndex() == 1
    card = evidence.globi.values
    assert card["Source taxon"] == "Leptoconchus incycloseris"
    assert card["Interaction"] == "parasite of"
    assert card["Target taxon"] == "Fungia (Cycloseris) costulata"
    assert card["DOI"] == "10.1007/s13127-011-0039-1"
    assert "Gittenberger" in card["Citation"]

    window.show_item(XC_ID)
    assert evidence.currentIndex() == 2
    recording = evidence.recording.values
    assert recording["Species"] == "Passer domesticus"
    assert recording["Common name"] == "House Sparrow"
    assert recording["URL"] == "https://xeno-canto.org/625750"
    assert "by-nc-sa" in recording["Licence"]
    close_desk(window)


def test_support_ranges_prefer_the_generator_spans() -> None:
    text = "Bats swarm at dusk.  The dilution\n effect of swarming protects them. Hawks hunt."
    item = Item(
        "x",
        "bioRxiv",
        ItemContent("q", ("a", "b", "c", "d"), 0, "Result Interpretation"),
        ItemContent("q", ("a", "b", "c", "d"), 0, "Result Interpretation"),
        Status.UNREVIEWED,
        {},
        supporting_evidence=("dilution effect of swarming",),
    )
    spans = support_ranges(text, item)
    assert [text[s:e] for s, e in spans] == ["dilution\n effect of swarming"]
    assert find_phrase(text, "HAWKS hunt") == (text.index("Hawks"), len(text) - 1)


def test_history_diff_names_each_changed_field() -> None:
    before = ItemContent("Old stem", ("a", "b", "c", "d"), 0, "Diet").to_json()
    after = ItemContent("New stem", ("a", "B!", "c", "d"), 1, "Diet").to_json()
    assert content_diff(before, after) == [
        "stem: “Old stem” → “New stem”",
        "option B: “b” → “B!”",
        "gold: A → B",
    ]


def test_history_describes_an_older_merged_decision() -> None:
    from bagel_studio.core.model import HistoryEntry
    from bagel_studio.ui.history_view import describe

    content = ItemContent("Stem", ("a", "b", "c", "d"), 0, "Diet").to_json()
    older = {"decision": "reject", "reason": "ambiguous", "content": content}
    newer = {"decision": "accept", "content": content}
    entry = HistoryEntry(7, "w:1", "bob", "2026-11-20T10:00:00", "merge-older", older, newer, False)
    text = describe(entry)
    assert "older decision from another file" in text and "reject" in text
    assert "kept the newer" in text and "accept" in text


def test_creative_commons_licences_are_named() -> None:
    assert licence_name("https://creativecommons.org/licenses/by-nc-sa/4.0/") == "CC BY-NC-SA 4.0"
    assert licence_name("//creativecommons.org/licenses/by-nc-nd/2.5/") == "CC BY-NC-ND 2.5"
    assert licence_name("https://creativecommons.org/publicdomain/zero/1.0/") == "CC0 1.0"
    assert licence_name("All rights reserved") == "All rights reserved"
