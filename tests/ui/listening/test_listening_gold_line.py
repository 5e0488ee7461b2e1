"""The measurement panel's first line says what the clip makes of the gold, and no more: "fits"
only when the gold's claim fits the clip, not when it makes no measurable claim or is off the
clip within what acoustic-mismatch tolerates; and the panel colours what it shares with a flag
(the mismatch, a clip too short) as that flag's severity is coloured in the flag list."""

from __future__ import annotations

import dataclasses

from pytestqt.qtbot import QtBot

from bagel_studio.core.audio import parse_claim
from bagel_studio.core.audio.claims import claim_distance, mismatch
from bagel_studio.core.model import ItemContent
from bagel_studio.ui.listening import ListeningPanel
from bagel_studio.ui.listening.measurement_view import MeasurementView
from tests.ui.listening.conftest import FREQ_ITEM, show_and_wait

BANDS_OFF = ("~0.5-1 kHz", "~9-11 kHz", "~12-14 kHz")  # none near the sparrow's 2.9-5 kHz
INFO_COLOUR = "#1565c0"  # the flag list's info (item_view.SEVERITY_STYLES)


def _sparrow(qtbot: QtBot, panel: ListeningPanel):
    show_and_wait(qtbot, panel, FREQ_ITEM)
    qtbot.waitUntil(lambda: bool(panel.measurements.verdicts), timeout=30_000)
    return panel._measurement


def _first_line(view: MeasurementView) -> str:
    return view.body.text().split("<div><b>Measurements</b>")[0]


def test_a_gold_without_a_measurable_claim_is_not_said_to_fit(
    qtbot: QtBot, panel: ListeningPanel
) -> None:
    m = _sparrow(qtbot, panel)
    view = MeasurementView()
    qtbot.addWidget(view)
    content = ItemContent(
        "Which sound is the House Sparrow's call?", ("a chirp", *BANDS_OFF), 0, ""
    )
    view.show_measurement(m, content)
    assert view.flag_text == ""
    first = _first_line(view)
    assert "fits the clip" not in first
    assert "the gold makes no measurable claim" in first


def test_a_gold_off_the_clip_within_the_tolerance_is_said_so(
    qtbot: QtBot, panel: ListeningPanel
) -> None:
    m = _sparrow(qtbot, panel)
    high = m.dominant_band_hz[1] / 1000
    tolerated = [  # a band a little above the clip's that the check lets pass
        near
        for step in range(1, 20)
        if (near := f"~{high + step / 10:.1f}-{high + step / 10 + 1:.1f} kHz")
        and (claim := parse_claim(near)) is not None
        and (claim_distance(claim, m) or 0) > 0
        and mismatch((near, *BANDS_OFF), 0, m) is None
    ]
    assert tolerated
    near = tolerated[0]
    view = MeasurementView()
    qtbot.addWidget(view)
    view.show_measurement(
        m, ItemContent("What is the band of its call?", (near, *BANDS_OFF), 0, "")
    )
    assert view.flag_text == ""  # within what acoustic-mismatch tolerates
    assert view.verdicts[0].startswith(f"A  {near}  (gold): ✗")
    first = _first_line(view)
    assert "fits the clip" not in first
    assert "gold claim is off the clip" in first and "within" in first


def test_a_fitting_gold_still_fits(qtbot: QtBot, panel: ListeningPanel) -> None:
    m = _sparrow(qtbot, panel)
    view = MeasurementView()
    qtbot.addWidget(view)
    view.show_measurement(m, ItemContent("What is the band?", ("~3-5 kHz", *BANDS_OFF), 0, ""))
    assert "gold claim fits the clip" in _first_line(view)


def test_the_mismatch_and_a_short_clip_are_coloured_as_their_info_flags(
    qtbot: QtBot, panel: ListeningPanel
) -> None:
    m = dataclasses.replace(_sparrow(qtbot, panel), duration_s=1.5, too_short=True)
    view = MeasurementView()
    qtbot.addWidget(view)
    view.show_measurement(m, ItemContent("What is the band?", ("~9-11 kHz", "~3-5 kHz"), 0, ""))
    assert view.flag_text  # acoustic-mismatch, an info flag
    text = view.body.text()
    mismatch = text[: text.index("acoustic mismatch")].rsplit("<div", 1)[1]
    short = text[: text.index("too short")].rsplit("<div", 1)[1]
    assert INFO_COLOUR in mismatch and INFO_COLOUR in short
    assert "#c62828" not in text  # red is a blocking flag's
