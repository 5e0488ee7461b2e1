"""A 500 kHz bat recording on the desk: decoded, drawn up to 250 kHz, measured pulse by pulse
(sub-millisecond durations shown as such), and an item whose gold states the pulses' length is
not flagged while one with a wrong gold is."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from bagel_studio.core.audio import SpectrogramSettings, save_settings
from bagel_studio.core.model import ItemContent
from bagel_studio.core.prefs import Preferences
from bagel_studio.core.store import NewItem, Store
from bagel_studio.ui.listening import ListeningPanel
from bagel_studio.ui.services import Services
from tests.core.audio import ground_truth as gt
from tests.ui.listening.conftest import idle, open_panel, show_and_wait

OPTIONS = ("~0.5-1.5 ms", "5-10 ms", "20-50 ms", "0.1-0.2 s")


@pytest.fixture
def bat_panel(qtbot: QtBot, tmp_path: Path) -> Iterator[ListeningPanel]:
    case = gt.case("bat-fm-1ms-500k")  # 1 ms sweeps, 100 to 50 kHz, every 50 ms, at 500 kHz
    clip = gt.write(case, tmp_path)
    store = Store.open(tmp_path / "project.bagel", owner="t")
    recording = {
        "id": "XC900500", "scientific_name": "Myotis synthetica", "common_name": "Test Bat",
        "vocalization_type": "echolocation call", "audio_path": str(clip),
        "file_name": clip.name,
    }  # fmt: skip
    store.evidence.upsert_recordings([recording], None)
    items = []
    for item_id, gold in (("bat:right", 0), ("bat:wrong", 2)):
        question = "How long is each echolocation call of this bat?"
        content = ItemContent(question, OPTIONS, gold, "Call / syllable duration")
        items.append(NewItem(item_id, "Xeno-canto", content, recording_id="XC900500"))
    store.items.add_items(items, None)
    save_settings(store, SpectrogramSettings(scale="linear"))
    services = Services(store=store, prefs=Preferences(curator="t"))
    panel = open_panel(qtbot, services)
    yield panel
    panel.shutdown()
    idle(qtbot, services)
    services.close()


def test_a_500_khz_clip_is_drawn_and_measured(qtbot: QtBot, bat_panel: ListeningPanel):
    show_and_wait(qtbot, bat_panel, "bat:right")
    clip = bat_panel.clip
    assert clip is not None and clip.audio.sample_rate == 500_000
    assert "500 kHz" in bat_panel.header.text()
    spec = clip.spectrogram
    rect = bat_panel.view.image.mapRectToParent(bat_panel.view.image.boundingRect())
    step_hz = spec.freqs_hz[1] - spec.freqs_hz[0]
    assert rect.bottom() == pytest.approx(250_000 + step_hz / 2)  # up to Nyquist
    rows = bat_panel.measurements.rows
    shown = re.match(
        r"([\d.]+) ms median \(([\d.]+) ms–([\d.]+) ms, n = (\d+)\)", rows["Syllables"]
    )
    assert shown, rows["Syllables"]
    assert 0.8 <= float(shown.group(1)) <= 1.2 and int(shown.group(4)) == 20
    low, high = (float(v) for v in re.findall(r"[\d.]+", rows["Dominant band"])[:2])
    assert 40 <= low < 75 < high <= 120  # kHz
    assert bat_panel.measurements.flag_text == ""
    assert bat_panel.measurements.verdicts[0] == "A  ~0.5-1.5 ms  (gold): ✓ fits the clip"


def test_a_wrong_gold_on_a_bat_is_flagged_with_the_numbers(qtbot: QtBot, bat_panel: ListeningPanel):
    show_and_wait(qtbot, bat_panel, "bat:wrong")
    flag = bat_panel.measurements.flag_text
    assert flag.startswith("gold 20-50 ms but the clip's calls last 0.")
    assert "median of 20" in flag and "option A ~0.5-1.5 ms fits" in flag
    flags = bat_panel.services.store.flags.of_item("bat:wrong")
    assert "acoustic-mismatch" in {f.check for f in flags}
