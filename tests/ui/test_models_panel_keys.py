"""The Models panel with a key no request can carry: the profile's row says it is unusable and
why, a run (Evaluate all items), a second opinion and a regeneration each stop before sending with
the same one line, and the key is nowhere on screen, for every kind of key no header can carry."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QTableWidget

from bagel_studio.core.model import Decision
from bagel_studio.core.operations.reviews import decide
from bagel_studio.core.store import Store
from bagel_studio.ui.models_panel import PROFILE_COLUMNS
from tests.core.llm.test_hostile_keys import HOSTILE, leaked
from tests.support.llm_server import ScriptedServer
from tests.ui.desk_harness import close_desk, open_desk
from tests.ui.test_models_panel import fill_profile, make_project


def screen_text(widget) -> str:
    """Every label's and table cell's text in the panel (what a curator can read)."""
    texts = [label.text() for label in widget.findChildren(QLabel)]
    for table in widget.findChildren(QTableWidget):
        for row in range(table.rowCount()):
            for column in range(table.columnCount()):
                cell = table.item(row, column)
                if cell is not None:
                    texts += [cell.text(), cell.toolTip()]
    return "\n".join(texts)


@pytest.mark.parametrize("kind", list(HOSTILE))
def test_a_hostile_key_is_refused_in_the_panel_without_being_shown(
    kind: str, qtbot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    key, words = HOSTILE[kind]
    monkeypatch.setenv("HOSTILE_KEY", key)
    path = make_project(tmp_path / "keys.bagel")
    with Store.open(path) as store:  # regenerate asks about a rejected item only
        decide(store, "wiki:2", "ana", Decision.REJECT, reason="wrong gold")
    with ScriptedServer() as server:
        window = open_desk(qtbot, path)
        window.menus.open_panel("models")
        panel = window.menus.panels["models"]
        panel.key_env.setText("HOSTILE_KEY")
        fill_profile(panel, server.url, "gold", "gold", qtbot)
        panel.profiles.selectRow(0)
        state = panel.profiles.item(0, PROFILE_COLUMNS.index("Key")).text()
        assert state.startswith("$HOSTILE_KEY (unusable: " + words), state
        for button, item_id in ((panel.run_button, "wiki:1"), (panel.judge_button, "wiki:1"),
                                (panel.regenerate_button, "wiki:2")):  # fmt: skip
            window.show_item(item_id)
            panel.status.setText("")
            qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
            qtbot.waitUntil(lambda: "nothing was sent" in panel.status.text(), timeout=20_000)
            qtbot.waitUntil(panel.run_button.isEnabled, timeout=5_000)
            assert "$HOSTILE_KEY" in panel.status.text() and words in panel.status.text()
            assert not leaked(screen_text(panel))
        assert server.total() == 0
        panel.close()
        close_desk(window)
