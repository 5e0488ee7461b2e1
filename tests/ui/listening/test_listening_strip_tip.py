"""The species strip is a small plot without a title or a time axis: hovering it says what it
draws, so that a curator who has never seen it can read it."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from bagel_studio.core.audio.species import THRESHOLD
from bagel_studio.ui.listening.species_strip import SpeciesStrip


def test_the_strip_says_what_it_draws_when_hovered(qtbot: QtBot) -> None:
    strip = SpeciesStrip()
    qtbot.addWidget(strip)
    tip = strip.plot_widget.toolTip()
    assert tip.startswith("BirdNET's confidence that the item's species is heard")
    assert f"dashed line: {THRESHOLD:g}" in tip and "shaded:" in tip
