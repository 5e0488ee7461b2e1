"""Where frequencies sit on the y axis for each scale the core computes, and open-ended claims."""

from __future__ import annotations

import numpy as np
import pytest
from pytestqt.qtbot import QtBot

from bagel_studio.core.audio import SpectrogramSettings, compute_spectrogram
from bagel_studio.core.model import ItemContent
from bagel_studio.ui.listening import ListeningPanel
from bagel_studio.ui.listening.frequency_axis import FrequencyMapping
from bagel_studio.ui.listening.panel import option_claims
from tests.ui.listening.conftest import FREQ_ITEM, show_and_wait


@pytest.mark.parametrize("scale", ["linear", "log", "mel"])
def test_bin_centres_map_to_their_rows_and_back(scale: str):
    tone = np.sin(2 * np.pi * 3000 * np.arange(22050) / 22050).astype(np.float32)
    spec = compute_spectrogram(tone, 22050, SpectrogramSettings(scale=scale))
    mapping = FrequencyMapping(scale, spec.freqs_hz)
    for row in (0, 7, spec.freqs_hz.size // 2, spec.freqs_hz.size - 1):
        y = mapping.to_y(spec.freqs_hz[row])
        assert mapping.row_at(y) == row
        assert mapping.to_hz(y) == pytest.approx(spec.freqs_hz[row])
    # The loudest row under the 3 kHz tone's y is the row of 3 kHz.
    loudest = int(np.argmax(spec.db.mean(axis=1)))
    assert mapping.row_at(mapping.to_y(3000.0)) == pytest.approx(loudest, abs=1)
    lo, hi = mapping.extent()
    assert mapping.row_at(lo - 1.0) is None and mapping.row_at(hi + 1.0) is None


def test_open_ended_claims_reach_the_edge(qtbot: QtBot, panel: ListeningPanel):
    show_and_wait(qtbot, panel, FREQ_ITEM)
    content = ItemContent("?", ("above 8 kHz", "below 2 kHz", "over 1 s", "Trill"), 0, "x")
    panel.view.overlays.set_options(option_claims(content))
    overlays, mapping = panel.view.overlays, panel.view.mapping
    bottom, top = mapping.extent()
    regions = {option.letter: region.getRegion() for option, region, _ in overlays.bands}
    assert regions["A"] == pytest.approx((mapping.to_y(8000.0), top))
    assert regions["B"] == pytest.approx((bottom, mapping.to_y(2000.0)))
    assert overlays.bar_labels() == ["C  over 1 s"]
    xs = overlays.bars[0][1][1].getData()[0]
    assert xs[1] - overlays.bars[0][1][0].getData()[0][0] == pytest.approx(1.0)
