"""The panel and the project: measurements cached through the writer, the claim check, stored
settings, and clear messages for items whose audio cannot be shown."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from bagel_studio.core.audio import SpectrogramSettings, load_settings, measurement_for
from bagel_studio.core.model import ItemContent
from bagel_studio.core.store import NewItem, Store
from bagel_studio.ui.listening import ListeningPanel
from bagel_studio.ui.services import Services
from tests.ui.listening.conftest import (
    FREQ_ITEM,
    FREQ_OPTIONS,
    SPARROW,
    WRONG_GOLD_ITEM,
    idle,
    open_panel,
    show_and_wait,
)


def test_measurement_is_shown_cached_and_flags_a_wrong_gold(qtbot: QtBot, panel: ListeningPanel):
    store = panel.services.store
    assert measurement_for(store, SPARROW, compute=False) is None
    with qtbot.waitSignal(panel.flags_changed, timeout=30000) as changed:
        show_and_wait(qtbot, panel, WRONG_GOLD_ITEM)
    assert changed.args == [WRONG_GOLD_ITEM]
    cached = measurement_for(store, SPARROW, compute=False)
    assert cached is not None  # written to the project through the writer
    box = panel.measurements
    shown = re.match(r"([\d.]+)–([\d.]+) kHz \(peak ([\d.]+) kHz\)", box.rows["Dominant band"])
    assert shown, box.rows["Dominant band"]
    low, high = cached.dominant_band_hz
    assert [float(v) * 1000 for v in shown.groups()] == pytest.approx(
        [low, high, cached.peak_freq_hz], abs=5.1
    )
    assert "median" in box.rows["Syllables"] and "n = " in box.rows["Syllables"]
    assert box.rows["Harmonicity"].startswith(f"{cached.harmonicity:.2f}")
    assert box.rows["Modulation"] == (cached.modulation or "not determined")
    assert box.flag_text.startswith("gold ~9-11 kHz but the clip's dominant band is")
    assert "option B ~3-5 kHz fits" in box.flag_text
    assert box.verdicts[0].startswith("A  ~9-11 kHz  (gold): ✗")
    assert box.verdicts[1] == "B  ~3-5 kHz: ✓ fits the clip"
    assert "acoustic mismatch" in box.body.text()
    assert "acoustic-mismatch" in {flag.check for flag in store.flags.of_item(WRONG_GOLD_ITEM)}
    measured = panel.view.overlays.measured_items
    assert len(measured) == 3 and "measured" in measured[-1].toPlainText()


def test_a_fitting_gold_raises_no_flag_and_reuses_the_cache(qtbot: QtBot, panel: ListeningPanel):
    show_and_wait(qtbot, panel, WRONG_GOLD_ITEM)
    show_and_wait(qtbot, panel, FREQ_ITEM)  # same recording: measurement read from the project
    box = panel.measurements
    assert panel.clip.measurement is not None
    assert box.flag_text == ""
    assert box.verdicts[1] == "B  ~3-5 kHz  (gold): ✓ fits the clip"
    assert "gold claim fits the clip" in box.body.text()
    assert box.warnings == []  # 6 s, loud enough, not clipped


def test_settings_are_stored_in_the_project(qtbot: QtBot, panel: ListeningPanel, tmp_path: Path):
    show_and_wait(qtbot, panel, FREQ_ITEM)
    bar = panel.settings_bar
    bar.scale_combo.setCurrentIndex(bar.scale_combo.findData("linear"))
    bar.fft_combo.setCurrentIndex(bar.fft_combo.findData(2048))
    bar.hop_combo.setCurrentIndex(bar.hop_combo.findData(512))
    bar.window_combo.setCurrentIndex(bar.window_combo.findData("blackman"))
    bar.colour_combo.setCurrentIndex(bar.colour_combo.findData("magma"))
    bar.range_spin.setValue(60)
    idle(qtbot, panel.services)
    wanted = SpectrogramSettings(2048, 512, "blackman", "linear", 60.0, "magma")
    assert load_settings(panel.services.store) == wanted
    # Another curator opening the project file sees the same settings...
    other = Store.open(tmp_path / "project.bagel", read_only=True)
    try:
        assert load_settings(other) == wanted
    finally:
        other.close()
    # ...and the picture was recomputed with them, off the UI thread.
    spec = panel.view.spectrogram
    assert spec.settings == wanted
    assert panel.view.image.image.shape[0] == 1025
    assert panel.view.colour_bar.levels() == pytest.approx((-60.0, 0.0))
    second = open_panel(qtbot, panel.services)
    try:
        assert second.settings_bar.settings() == wanted
    finally:
        second.shutdown()


def _add_item(store: Store, item_id: str, recording: str | None) -> None:
    content = ItemContent("What is the dominant frequency range?", FREQ_OPTIONS, 1, "Dominant")
    store.items.add_items([NewItem(item_id, "Xeno-canto", content, recording_id=recording)], None)


@pytest.fixture
def broken_services(services: Services, tmp_path: Path, data_dir: Path) -> Services:
    """The project plus a truncated MP3, a missing file and an item without a recording."""
    truncated = tmp_path / "audio" / "XC000001.mp3"
    truncated.write_bytes((data_dir / "xeno_canto" / "XC132865.mp3").read_bytes()[:600])
    missing = tmp_path / "audio" / "XC000002.mp3"
    shutil.copyfile(data_dir / "xeno_canto" / "XC132865.mp3", missing)
    store = services.store
    recordings = [
        {"id": "XC000001", "audio_path": str(truncated), "file_name": truncated.name},
        {"id": "XC000002", "audio_path": str(missing), "file_name": missing.name},
    ]
    store.evidence.upsert_recordings(recordings, None)
    missing.unlink()
    _add_item(store, "xc:truncated", "XC000001")
    _add_item(store, "xc:missing", "XC000002")
    _add_item(store, "xc:unknown", "XC999999")
    _add_item(store, "xc:none", None)
    return services


@pytest.mark.parametrize(
    ("item_id", "message"),
    [
        ("xc:truncated", "XC000001.mp3: truncated or corrupt MP3"),
        ("xc:missing", "no audio file for XC000002 in this project"),
        ("xc:unknown", "no recording XC999999 in this project"),
        ("xc:none", "xc:none: no Xeno-canto recording linked to this item"),
    ],
)
def test_unplayable_items_give_a_message(
    qtbot: QtBot, broken_services: Services, item_id: str, message: str
):
    panel = open_panel(qtbot, broken_services)
    try:
        show_and_wait(qtbot, panel, FREQ_ITEM)  # a good clip first: it must not linger
        panel.show_item(broken_services.store.items.get(item_id))
        idle(qtbot, broken_services)
        assert panel.notice.text().startswith(message)
        assert panel.stack.currentWidget() is panel.notice
        assert panel.clip is None and panel.view.spectrogram is None
        assert not panel.transport.play_button.isEnabled()
        panel.toggle_play()  # nothing to play: no error
        panel.seek_relative(1.0)
        # The desk keeps working: the next good item shows normally.
        show_and_wait(qtbot, panel, FREQ_ITEM)
        assert panel.stack.currentWidget() is panel.view
    finally:
        panel.shutdown()
        idle(qtbot, broken_services)


def test_clear_empties_the_panel(qtbot: QtBot, panel: ListeningPanel):
    show_and_wait(qtbot, panel, FREQ_ITEM)
    panel.clear()
    assert panel.clip is None and panel.item is None
    assert panel.view.overlays.bands == [] and panel.view.selection() is None
    assert panel.notice.text() == "No Xeno-canto item selected"
