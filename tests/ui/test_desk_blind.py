"""Blind mode hides everything that points at the key until the curator has answered: the gold,
the highlighted supporting sentence, the generator's evidence, flag messages that name options,
the history, the gold band over the spectrogram; answering reveals all of it at once."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt

from bagel_studio.core.checks import CHECKS
from bagel_studio.core.model import Flag, Item, ItemContent, Severity, Status
from bagel_studio.ui.blind import KEY_CHECKS
from bagel_studio.ui.item_view import BLIND_FLAG, BLIND_HISTORY, ItemView
from bagel_studio.ui.shortcuts import State
from tests.ui.desk_harness import close_desk, listening_panel, open_desk
from tests.ui.desk_project import GLOBI_ID, KOALA_ID, XC_ID, build_project

PALLISENTIS_ID = "globi:pallisentis:0"  # its stem-taxon-in-options flag names option D


def test_blind_text_item_hides_highlights_and_history_until_answered(
    qtbot, tmp_path: Path, data_dir: Path
) -> None:
    path = tmp_path / "blind.bagel"
    build_project(path, data_dir)
    window = open_desk(qtbot, path, blind=True)
    assert window.current_item_id() == KOALA_ID and window.machine.state is State.BLIND
    text = window.evidence.text
    assert window.controller.key_revealed is False
    assert text.spans and text.highlighted_text() == []  # found, but not shown
    assert text.editor.extraSelections() == []
    assert window.item_view.history.texts() == [BLIND_HISTORY]

    with qtbot.waitSignal(window.controller.key_revealed_changed) as revealed:
        qtbot.keyClick(window, Qt.Key.Key_1)
    assert revealed.args == [True] and window.controller.key_revealed
    assert any("ucalypt" in h for h in text.highlighted_text())
    assert len(text.editor.extraSelections()) == len(text.spans)
    assert window.item_view.history.texts() != [BLIND_HISTORY]
    close_desk(window)


def test_blind_flags_name_neither_the_options_nor_checks_that_point_at_the_key(
    qtbot, tmp_path, data_dir
) -> None:
    """stem-taxon-in-options says the stem's taxon, one of the options, is a wrong one: while
    blind, its name is not shown either, only that a flag about the answer waits."""
    path = tmp_path / "flags.bagel"
    build_project(path, data_dir)
    window = open_desk(qtbot, path, blind=True)
    window.show_item(PALLISENTIS_ID)
    assert window.machine.state is State.BLIND
    options = window.store.items.get(PALLISENTIS_ID).content.options
    flags = window.item_view.flag_texts()
    assert not any("stem-taxon-in-options" in f for f in flags)
    assert any("about the answer" in f for f in flags)
    assert all(BLIND_FLAG in f for f in flags)
    assert not any(option in f for f in flags for option in options)

    qtbot.keyClick(window, Qt.Key.Key_2)
    flags = window.item_view.flag_texts()
    assert any("stem-taxon-in-options" in f for f in flags)
    assert any("Pallisentis nagpurensis" in f for f in flags)  # the message, now shown
    assert not any(BLIND_FLAG in f for f in flags)
    close_desk(window)


def test_blind_acoustic_mismatch_is_not_named_beside_the_measurements(qtbot) -> None:
    """'acoustic-mismatch' beside the measurements told which options were not the gold; a
    check about the recording alone (clip-too-short) keeps its name, its message waits."""
    view = ItemView()
    qtbot.addWidget(view)
    content = ItemContent(
        "What is the typical duration of a single call?",
        ("80-150 ms", "200-400 ms", "0.8-1.2 s", "1.5-2.0 s"), 2, "Call / syllable duration",
    )  # fmt: skip
    item = Item("xc:1", "Xeno-canto", content, content, Status.UNREVIEWED, {})
    flags = [
        Flag("acoustic-mismatch", Severity.WARNING, "gold 0.8-1.2 s but the calls last 174 ms"),
        Flag("models-reject-gold", Severity.WARNING, "every model chose A"),
        Flag("clip-too-short", Severity.WARNING, "clip is 1.5 s long"),
    ]
    view.show_item(item, flags, [], None, gold_visible=False)
    texts = view.flag_texts()
    assert not any("acoustic-mismatch" in t or "models-reject-gold" in t for t in texts)
    assert any(t.startswith("WARNING  clip-too-short: ") and BLIND_FLAG in t for t in texts)
    assert any("2 flags about the answer" in t for t in texts)
    assert not any(o in t for t in texts for o in content.options)
    view.reveal(2)
    texts = view.flag_texts()
    assert any(t.startswith("WARNING  acoustic-mismatch: gold 0.8-1.2 s") for t in texts)
    assert any(t.startswith("WARNING  models-reject-gold: every model") for t in texts)


def test_the_checks_that_point_at_the_key_exist() -> None:
    assert set(CHECKS) >= KEY_CHECKS


def test_blind_globi_card_and_spectrogram_hide_the_key(qtbot, tmp_path, data_dir) -> None:
    path = tmp_path / "cards.bagel"
    build_project(path, data_dir)
    window = open_desk(qtbot, path, blind=True)
    window.show_item(GLOBI_ID)
    card = window.evidence.globi.values
    assert "Generator's rationale" not in card
    assert "blind mode" in card["Generator's evidence"]
    qtbot.keyClick(window, Qt.Key.Key_1)
    card = window.evidence.globi.values
    assert "blind mode" not in card.get("Generator's evidence", "")

    window.show_item(XC_ID)
    panel = listening_panel(qtbot, window)
    assert window.machine.state is State.BLIND
    qtbot.waitUntil(lambda: panel.clip is not None, timeout=30_000)
    labels = panel.view.overlays.band_labels()
    assert len(labels) == 4 and not any("gold" in label for label in labels)
    measurements = panel.measurements
    qtbot.waitUntil(lambda: bool(measurements.rows), timeout=30_000)
    assert measurements.blind and measurements.verdicts == []
    assert "gold" not in measurements.body.text()
    qtbot.keyClick(window, Qt.Key.Key_4)
    labels = panel.view.overlays.band_labels()
    assert [label for label in labels if "gold" in label] == ["B  ~3-5 kHz  ★ gold"]
    assert not measurements.blind and any("(gold)" in v for v in measurements.verdicts)
    close_desk(window)


def test_blind_mode_off_shows_everything_at_once(qtbot, tmp_path, data_dir) -> None:
    path = tmp_path / "open.bagel"
    build_project(path, data_dir)
    window = open_desk(qtbot, path, blind=False)
    assert window.machine.state is State.REVIEW and window.controller.key_revealed
    assert window.evidence.text.highlighted_text()
    close_desk(window)


def test_blind_queue_tooltip_does_not_name_checks_about_the_key(qtbot, tmp_path, data_dir) -> None:
    """The queue's flags cell told on hover what the item view hides: its tooltip counts the
    checks about the key while blind mode is on, and names them again once it is off."""
    path = tmp_path / "queue.bagel"
    build_project(path, data_dir)
    window = open_desk(qtbot, path, blind=True)
    model = window.queue_model
    row = next(r for r in range(model.rowCount()) if model.item_id(r) == PALLISENTIS_ID)
    column = next(c for c in range(model.columnCount()) if model.headerData(
        c, Qt.Orientation.Horizontal) == "Flags")  # fmt: skip
    tip = model.data(model.index(row, column), Qt.ItemDataRole.ToolTipRole)
    assert "stem-taxon-in-options" not in tip and "flag about the answer" in tip
    window.services.prefs.blind_mode = False
    tip = model.data(model.index(row, column), Qt.ItemDataRole.ToolTipRole)
    assert "stem-taxon-in-options" in tip
    close_desk(window)
