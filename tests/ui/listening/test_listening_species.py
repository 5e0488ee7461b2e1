"""The species strip under the spectrogram: BirdNET (the real model) runs on the clip on a worker,
the detection is stored through the writer, the strip draws the item's species per window
aligned with the spectrogram, and H plays from where BirdNET is surest."""

from __future__ import annotations

import sys

import pytest
from pytestqt.qtbot import QtBot

from bagel_studio.core.audio import birdnet
from bagel_studio.core.audio.species_project import cached_detection
from bagel_studio.core.model import ItemContent
from bagel_studio.core.store import NewItem
from bagel_studio.ui.evidence_view import BLIND_BIRDNET, species_field
from bagel_studio.ui.listening import ListeningPanel
from bagel_studio.ui.services import Services
from bagel_studio.ui.shortcuts import action_for_key
from tests.ui.listening.conftest import (
    CROWNED_ITEM,
    FREQ_ITEM,
    SPARROW,
    idle,
    open_panel,
    show_and_wait,
)


def test_the_strip_shows_the_items_species_per_window(qtbot: QtBot, panel: ListeningPanel):
    store = panel.services.store
    assert cached_detection(store, store.evidence.recording(SPARROW) or {}) is None
    show_and_wait(qtbot, panel, FREQ_ITEM)
    strip = panel.species
    qtbot.waitUntil(lambda: strip.answer is not None, timeout=30000)
    found = strip.answer
    assert found is not None and found.confirmed
    assert strip.verdict.text().startswith(
        "BirdNET: House Sparrow heard in 3/3 windows, best 0.87 (play it [H])"
    )
    assert "clip's top: House Sparrow 0.87, Italian Sparrow 0.06, Southern Martin 0.02" in (
        strip.verdict.text()
    )
    xs, ys = strip.curve.getData()
    assert list(xs) == [1.5, 3.0, 4.5] and len(ys) == 3 and max(ys) >= 0.5
    assert strip.plot_widget.isVisible() and len(strip._shades) == 1  # one run: it leads all
    assert cached_detection(store, store.evidence.recording(SPARROW) or {}) is not None  # stored
    # the strip's plot area lies under the spectrogram's (same seconds at the same pixels)
    spectrogram = panel.view.plot.vb
    here = strip.plot.vb
    qtbot.waitUntil(
        lambda: (
            abs(
                here.mapViewToDevice(here.viewRect()).boundingRect().left()
                + strip.plot_widget.mapTo(panel, strip.plot_widget.rect().topLeft()).x()
                - spectrogram.mapViewToDevice(spectrogram.viewRect()).boundingRect().left()
                - panel.view.plot_widget.mapTo(panel, panel.view.plot_widget.rect().topLeft()).x()
            )
            <= 2
        ),
        timeout=5000,
    )
    assert here.viewRange()[0] == pytest.approx(spectrogram.viewRange()[0], abs=0.02)  # a pixel


@pytest.mark.audio
def test_h_plays_from_the_surest_window(qtbot: QtBot, pulse_sink: str, services: Services):
    assert action_for_key("H") == "play_species"
    panel = open_panel(qtbot, services)
    try:
        show_and_wait(qtbot, panel, CROWNED_ITEM)
        qtbot.waitUntil(lambda: panel.species.answer is not None, timeout=30000)
        found = panel.species.answer
        assert found is not None and found.species == "Zonotrichia leucophrys"
        assert found.best_window is not None
        start = found.starts[found.best_window]
        panel.seek_relative(4.0)  # elsewhere first
        said: list[str] = []
        panel.status_message.connect(said.append)
        panel.play_species()
        assert said == [f"Playing from {start:.1f} s, where BirdNET is surest of "
                        f"Zonotrichia leucophrys ({found.best:.2f})"]  # fmt: skip
        assert panel.controller.is_playing
        assert start <= panel.controller.position() < start + 1.0
        panel.stop()
    finally:
        panel.shutdown()
        idle(qtbot, services)


def test_without_birdnet_the_strip_says_how_to_get_it(
    qtbot: QtBot, panel: ListeningPanel, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setitem(sys.modules, "ai_edge_litert", None)  # as if the extra were missing
    show_and_wait(qtbot, panel, FREQ_ITEM)
    assert panel.species.answer is None
    assert panel.species.verdict.text() == f"BirdNET: {birdnet.INSTALL_HINT}"
    assert not panel.species.plot_widget.isVisible()
    assert panel.measurements.rows["Dominant band"]  # everything else works
    store = panel.services.store
    assert cached_detection(store, store.evidence.recording(SPARROW) or {}) is None


def test_the_recording_card_says_what_the_clip_confirms(qtbot: QtBot, tmp_path, data_dir):
    from tests.ui.desk_harness import close_desk, open_desk
    from tests.ui.desk_project import XC_ID, build_showcase_project

    path = tmp_path / "showcase.bagel"
    build_showcase_project(path, data_dir)
    window = open_desk(qtbot, path)
    try:
        window.show_item(XC_ID)
        card = window.evidence.recording
        assert card.values["BirdNET"].startswith("not run yet")
        window.evidence.listening_now()  # the panel detects the clip and stores it
        qtbot.waitUntil(
            lambda: card.values.get("BirdNET") == "confirmed (best 0.87)", timeout=60000
        )
    finally:
        close_desk(window)


SPECIES_OPTIONS = ("Italian Sparrow", "House Sparrow", "Eurasian Tree Sparrow", "Spanish Sparrow")


def test_blind_mode_hides_a_birdnet_line_that_names_an_option(qtbot: QtBot, panel: ListeningPanel):
    """Which species is calling? BirdNET's line ('House Sparrow heard in 3/3 windows', the
    clip's top labels) names the gold among the options: while blind it waits for the answer;
    the line of an item whose options name no species stays."""
    store = panel.services.store
    question = "Which sparrow is calling in this recording of Passer domesticus?"
    content = ItemContent(question, SPECIES_OPTIONS, 1, "Species identification")
    store.items.add_items([NewItem("xc:which", "Xeno-canto", content, recording_id=SPARROW)], None)
    strip = panel.species
    panel.set_key_revealed(False)
    show_and_wait(qtbot, panel, "xc:which")
    qtbot.waitUntil(lambda: strip.answer is not None, timeout=30000)
    text = strip.verdict.text()
    assert "blind mode" in text
    assert not any(option.lower() in text.lower() for option in SPECIES_OPTIONS), text
    panel.set_key_revealed(True)
    assert strip.verdict.text().startswith("BirdNET: House Sparrow heard in 3/3 windows")

    panel.set_key_revealed(False)
    show_and_wait(qtbot, panel, FREQ_ITEM)  # options in kHz: nothing to hide
    qtbot.waitUntil(lambda: strip.answer is not None, timeout=30000)
    assert strip.verdict.text().startswith("BirdNET: House Sparrow heard in 3/3 windows")


def test_blind_mode_hides_a_card_birdnet_row_that_names_an_option(
    qtbot: QtBot, panel: ListeningPanel
) -> None:
    """The recording card's row for an item about the Italian Sparrow on this clip says 'House
    Sparrow leads most windows': an option, so while blind it waits for the answer."""
    store = panel.services.store
    content = ItemContent("Which sparrow is calling?", SPECIES_OPTIONS, 0, "Species identification")
    about = {"scientific_name": "Passer italiae"}
    store.items.add_items(
        [NewItem("xc:italian", "Xeno-canto", content, about, recording_id=SPARROW)], None
    )
    show_and_wait(qtbot, panel, FREQ_ITEM)  # the clip detected and stored
    qtbot.waitUntil(lambda: panel.species.answer is not None, timeout=30000)
    idle(qtbot, panel.services)
    item, recording = store.items.get("xc:italian"), store.evidence.recording(SPARROW)
    assert species_field(store, item, recording) == (
        "BirdNET", "House Sparrow leads most windows (0.87)"
    )  # fmt: skip
    assert species_field(store, item, recording, blind=True) == ("BirdNET", BLIND_BIRDNET)
    frequency = store.items.get(FREQ_ITEM)  # its options name no species
    assert species_field(store, frequency, recording, blind=True)[1].startswith("confirmed")
