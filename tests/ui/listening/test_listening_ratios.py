"""A duration claim that does not fit the clip is said as a ratio ("3.5x longer than the clip's
calls"), which reads naturally for a length; octaves ("1.8 octaves off") stay for frequencies."""

from __future__ import annotations

import dataclasses

from pytestqt.qtbot import QtBot

from bagel_studio.ui.listening import ListeningPanel
from bagel_studio.ui.listening.measurement_view import option_verdicts
from tests.ui.listening.conftest import DURATION_ITEM, FREQ_ITEM, show_and_wait


def _measured(qtbot: QtBot, panel: ListeningPanel, item_id: str):
    show_and_wait(qtbot, panel, item_id)
    qtbot.waitUntil(lambda: bool(panel.measurements.verdicts), timeout=30_000)
    return panel._measurement


def test_durations_off_the_clip_read_as_ratios(qtbot: QtBot, panel: ListeningPanel) -> None:
    m = _measured(qtbot, panel, DURATION_ITEM)  # House Sparrow: calls 133-230 ms (middle half)
    verdicts = panel.measurements.verdicts
    assert verdicts[0] == "A  80-150 ms  (gold): ✓ fits the clip"
    assert verdicts[2] == "C  0.8-1.2 s: ✗ 3.5x longer than the clip's calls"
    assert verdicts[3] == "D  1.5-2.0 s: ✗ 6.5x longer than the clip's calls"
    assert not any("octave" in line for line in verdicts)
    long_calls = dataclasses.replace(
        m, syllable_durations_s=(2.0, 2.4, 2.6, 3.0), phrase_durations_s=()
    )
    shorter = option_verdicts(("0.2-0.5 s",), None, long_calls, "How long is a call?")
    assert shorter == ["A  0.2-0.5 s: ✗ 4.6x shorter than the clip's calls"]


def test_frequencies_off_the_clip_stay_in_octaves(qtbot: QtBot, panel: ListeningPanel) -> None:
    _measured(qtbot, panel, FREQ_ITEM)
    verdicts = panel.measurements.verdicts
    assert verdicts[1] == "B  ~3-5 kHz  (gold): ✓ fits the clip"
    assert "octave" in verdicts[0] and "x " not in verdicts[0]
