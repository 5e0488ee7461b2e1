"""The listening panel's header and notice show recording metadata and file names as written."""

from __future__ import annotations

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from bagel_studio.core.model import ItemContent
from bagel_studio.core.store import NewItem
from bagel_studio.ui.services import Services
from tests.ui.listening.conftest import SPARROW, idle, open_panel

MARKUP = "<b>J. Doe</b><img src=http://example.org/x.png>"


def test_markup_in_recording_metadata_is_shown_literally(qtbot: QtBot, services: Services) -> None:
    store = services.store
    recording = store.evidence.recording(SPARROW)
    assert recording is not None
    store.evidence.upsert_recordings([{**recording, "id": "XC1", "recordist": MARKUP}], None)
    content = ItemContent("Which band?", ("a", "b", "c", "d"), 0, "Dominant frequency range")
    store.items.add_items(
        [
            NewItem("xeno-canto:markup:0", "Xeno-canto", content, recording_id="XC1"),
            NewItem("xeno-canto:markup:1", "Xeno-canto", content, recording_id="<i>XC0</i>"),
        ],
        None,
    )
    panel = open_panel(qtbot, services)
    panel.show_item(store.items.get("xeno-canto:markup:0"))
    idle(qtbot, services)
    assert MARKUP in panel.header.text()
    assert panel.header.textFormat() is Qt.TextFormat.PlainText
    panel.show_item(store.items.get("xeno-canto:markup:1"))
    assert "<i>XC0</i>" in panel.notice.text()
    assert panel.notice.textFormat() is Qt.TextFormat.PlainText
    panel.shutdown()
    idle(qtbot, services)
