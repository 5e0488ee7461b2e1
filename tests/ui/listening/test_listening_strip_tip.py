"""The species strip is a small plot without a title or a time axis: hovering it says what it
draws, so that a curator who has never seen it can read it."""

from __future__ import annotations

from dataclasses import replace

import pytest
from pytestqt.qtbot import QtBot

from bagel_studio.core.audio.birdnet import Label
from bagel_studio.core.audio.species import THRESHOLD, SpeciesAnswer
from bagel_studio.ui.listening.species_strip import SpeciesStrip, species_text
from bagel_studio.ui.shortcuts import BY_ACTION, button_text, key_hint


def test_the_strip_says_what_it_draws_when_hovered(qtbot: QtBot) -> None:
    strip = SpeciesStrip()
    qtbot.addWidget(strip)
    tip = strip.plot_widget.toolTip()
    assert tip.startswith("BirdNET's confidence that the item's species is heard")
    assert f"dashed line: {THRESHOLD:g}" in tip and "shaded:" in tip


HEARD = SpeciesAnswer(
    species="Passer domesticus",
    covered=True,
    starts=(0.0, 3.0),
    window_s=3.0,
    label=Label("Passer domesticus", "House Sparrow"),
    curve=(0.87, 0.4),
    heard=(0,),
    leads=(0, 1),
)


def test_the_verdict_names_the_key_that_plays_the_species_as_buttons_do(
    qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    """'(H plays it)' did not say that H is a key: the line names it as the desk's buttons
    name theirs ('Accept [A]'), from the one shortcut table, and its tooltip says what the key
    does."""
    play = BY_ACTION["play_species"]
    assert key_hint("play_species") == f"[{play.keys[0]}]" and button_text("accept") == (
        f"Accept {key_hint('accept')}"
    )
    text = species_text(HEARD)
    assert text.startswith("BirdNET: House Sparrow heard in 1/2 windows, best 0.87 (play it [H])")
    strip = SpeciesStrip()
    qtbot.addWidget(strip)
    strip.show_answer(HEARD)
    assert strip.verdict.text() == text
    assert strip.verdict.toolTip() == f"{play.label} ({play.keys[0]})"
    # one place: a key changed in the table is the key the line names
    monkeypatch.setitem(BY_ACTION, "play_species", replace(play, keys=("G",)))
    assert "(play it [G])" in species_text(HEARD) and "[H]" not in species_text(HEARD)
    unheard = replace(HEARD, curve=(0.2, 0.1), heard=())
    assert "[" not in species_text(unheard).split("·")[0]  # nothing to play: no key
