"""Arriving at a recording: the next items' spectrograms are prepared in the background while the
curator is on the item before, so the recording is on screen as the item arrives; a listening key
pressed while a clip is still loading acts once it has loaded instead of being lost."""

from __future__ import annotations

import pytest
from pytestqt.qtbot import QtBot

from bagel_studio.core.audio import SpectrogramSettings
from bagel_studio.ui.listening import ListeningPanel
from bagel_studio.ui.services import Services
from tests.ui.listening.conftest import CROWNED, CROWNED_ITEM, FREQ_ITEM, idle, open_panel


def test_items_prepared_ahead_are_shown_as_they_arrive(qtbot: QtBot, panel: ListeningPanel):
    panel.prepare_ahead([FREQ_ITEM, CROWNED_ITEM])
    idle(qtbot, panel.services)
    assert len(panel.loader.spectrograms) == 2  # both recordings, nothing on screen yet
    panel.show_item(panel.services.store.items.get(CROWNED_ITEM))
    # no wait: the clip is on screen when show_item returns
    assert panel.clip is not None and panel.clip.recording_id == CROWNED
    assert panel.stack.currentWidget() is panel.view
    assert "White-crowned Sparrow" in panel.header.text() or "Decoded" in panel.header.text()
    idle(qtbot, panel.services)  # its measurement still comes from the worker and the writer
    assert panel.measurements.rows


def test_preparing_ahead_skips_items_without_a_recording_and_unknown_ids(
    qtbot: QtBot, panel: ListeningPanel
):
    panel.prepare_ahead(["no-such-item", FREQ_ITEM])
    idle(qtbot, panel.services)
    assert len(panel.loader.spectrograms) == 1


def test_a_changed_setting_prepares_with_the_new_settings(qtbot: QtBot, panel: ListeningPanel):
    """What is prepared is what will be drawn: another scale is not a ready clip."""
    panel.prepare_ahead([CROWNED_ITEM])
    idle(qtbot, panel.services)
    panel.settings = SpectrogramSettings(scale="linear")
    panel.show_item(panel.services.store.items.get(CROWNED_ITEM))
    assert panel.clip is None  # loading with the new settings, not the prepared picture
    idle(qtbot, panel.services)
    assert panel.clip is not None and panel.clip.spectrogram.settings.scale == "linear"


@pytest.fixture
def playing_panel(qtbot: QtBot, pulse_sink: str, services: Services) -> ListeningPanel:
    panel = open_panel(qtbot, services)
    yield panel
    panel.shutdown()
    idle(qtbot, services)


@pytest.mark.audio
def test_space_pressed_while_loading_plays_once_loaded(qtbot: QtBot, playing_panel: ListeningPanel):
    panel = playing_panel
    qtbot.waitUntil(lambda: panel.services.workers.pending == 0)  # the device check
    messages: list[str] = []
    panel.status_message.connect(messages.append)
    panel.show_item(panel.services.store.items.get(FREQ_ITEM))
    assert panel.clip is None  # still loading
    panel.seek_relative(1.0)
    panel.toggle_play()
    assert any("once the recording has loaded" in m for m in messages), messages
    qtbot.waitUntil(lambda: panel.clip is not None, timeout=30_000)
    assert panel.controller.is_playing, panel.transport.reason_label.text()
    assert panel.controller.position() >= 1.0  # the seek acted first, in the order pressed
    panel.toggle_play()


def test_keys_pressed_for_an_item_left_behind_do_not_act_on_the_next(
    qtbot: QtBot, panel: ListeningPanel
):
    store = panel.services.store
    panel.show_item(store.items.get(FREQ_ITEM))
    panel.seek_relative(2.0)
    panel.show_item(store.items.get(CROWNED_ITEM))  # moved on before the first clip loaded
    idle(qtbot, panel.services)
    assert panel.clip is not None and panel.clip.recording_id == CROWNED
    assert panel.view.playhead.value() == 0.0
