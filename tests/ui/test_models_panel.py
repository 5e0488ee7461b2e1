"""The Models panel in a real desk: a profile, an evaluation against the scripted server with
progress and cancel, accuracy and letters, the models' choices beside the options (hidden in
blind mode until the curator answers), and a second opinion on the desk's item."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from bagel_studio.core.store import Store
from bagel_studio.ui.models_panel import PROFILE_COLUMNS, RESULT_COLUMNS
from tests.core.llm.conftest import ITEMS, gold_map, new_items
from tests.support.llm_server import ScriptedServer, tokens
from tests.ui.desk_harness import close_desk, open_desk

COLUMN = {name: i for i, name in enumerate(RESULT_COLUMNS)}


@pytest.fixture
def scripted() -> Iterator[ScriptedServer]:
    with ScriptedServer(gold_map()) as server:
        yield server


def make_project(path: Path) -> Path:
    with Store.open(path, owner="test") as store:
        store.items.add_items(new_items(), None)
    return path


def fill_profile(panel, url: str, model: str, label: str, qtbot) -> None:
    panel.label.setText(label)
    panel.base_url.setText(url)
    panel.model.setText(model)
    qtbot.mouseClick(panel.save, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: panel.profiles.rowCount() >= 1, timeout=5_000)


def test_evaluate_from_the_panel_and_see_the_models_on_the_item(
    qtbot, tmp_path: Path, scripted: ScriptedServer
) -> None:
    path = make_project(tmp_path / "desk.bagel")
    window = open_desk(qtbot, path)
    window.menus.open_panel("models")
    panel = window.menus.panels["models"]
    fill_profile(panel, scripted.url, "always-A", "A-bias", qtbot)
    assert panel.profiles.item(0, 5).text().startswith("$OPENAI_API_KEY (")
    panel.profiles.selectRow(0)
    with qtbot.waitSignal(panel.models_changed, timeout=30_000):
        qtbot.mouseClick(panel.run_button, Qt.MouseButton.LeftButton)
    assert "done" in panel.status.text() and f"{len(ITEMS)} asked" in panel.status.text()
    assert panel.bar.value() == panel.bar.maximum()
    assert panel.results.item(0, 0).text() == "A-bias"
    assert panel.results.item(0, COLUMN["Strict"]).text() == "50.0%"
    assert panel.results.item(0, COLUMN["Lenient"]).text() == "50.0%"
    assert panel.results.item(0, COLUMN["A"]).text() == f"{len(ITEMS)} (100%)"  # every one A
    assert panel.run_button.isEnabled() and not panel.cancel_button.isEnabled()
    with Store.open(path, read_only=True) as store:
        assert store.llm.answer_count("A-bias") == len(ITEMS)
    # The desk's item shows which option the model chose, beside the options.
    window.show_item("wiki:2")
    assert window.item_view.models.isVisible()
    assert "A-bias: A ✗ (strict)" in window.item_view.models.text()
    # A second opinion on the desk's item is stored and shown.
    with qtbot.waitSignal(panel.models_changed, timeout=30_000):
        qtbot.mouseClick(panel.judge_button, Qt.MouseButton.LeftButton)
    assert "wiki:2" in panel.status.text()
    window.show_item("wiki:2")
    assert "Judge A-bias" in window.item_view.models.text()
    panel.close()
    close_desk(window)


def test_blind_mode_hides_the_models_until_the_curator_answers(
    qtbot, tmp_path: Path, scripted: ScriptedServer
) -> None:
    from bagel_studio.core.cli import run

    path = make_project(tmp_path / "blind.bagel")
    assert run(["evaluate", str(path), "--model", "gold", "--base-url", scripted.url]) == 0
    window = open_desk(qtbot, path, blind=True)
    window.show_item("wiki:1")
    assert not window.item_view.models.isVisible()
    assert window.item_view.models.text() == ""
    qtbot.keyClick(window, Qt.Key.Key_2)
    qtbot.waitUntil(window.item_view.models.isVisible, timeout=5_000)
    assert "gold: A ✓" in window.item_view.models.text()
    close_desk(window)


def test_cancel_keeps_what_arrived_and_regenerate_needs_a_rejected_item(
    qtbot, tmp_path: Path, scripted: ScriptedServer
) -> None:
    path = make_project(tmp_path / "cancel.bagel")
    window = open_desk(qtbot, path)
    window.menus.open_panel("models")
    panel = window.menus.panels["models"]
    panel.concurrency.setValue(1)
    fill_profile(panel, scripted.url, "gold+delay=0.3", "slow", qtbot)
    panel.profiles.selectRow(0)
    qtbot.mouseClick(panel.run_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: panel.bar.maximum() > 0 and panel.bar.value() >= 1, timeout=20_000)
    with qtbot.waitSignal(panel.models_changed, timeout=30_000):
        qtbot.mouseClick(panel.cancel_button, Qt.MouseButton.LeftButton)
    assert "cancelled" in panel.status.text()
    with Store.open(path, read_only=True) as store:
        kept = store.llm.answer_count("slow")
    assert 1 <= kept < len(ITEMS)
    window.show_item("wiki:1")
    qtbot.mouseClick(panel.regenerate_button, Qt.MouseButton.LeftButton)
    assert "regenerate a rejected item" in panel.status.text()
    panel.close()
    close_desk(window)


def test_the_panel_says_what_invalid_replies_mean_and_why_a_run_stopped(
    qtbot, tmp_path: Path, scripted: ScriptedServer
) -> None:
    from bagel_studio.core.cli import run

    path = make_project(tmp_path / "notes.bagel")
    # A model whose every reply holds no letter, and one that answers them all.
    assert run(["evaluate", str(path), "--model", "rambling", "--base-url", scripted.url]) == 1
    assert run(["evaluate", str(path), "--model", "gold", "--base-url", scripted.url]) == 0
    window = open_desk(qtbot, path)
    window.menus.open_panel("models")
    panel = window.menus.panels["models"]
    rows = {panel.results.item(r, 0).text(): r for r in range(panel.results.rowCount())}
    rambling, gold = rows["rambling"], rows["gold"]
    assert panel.results.item(rambling, COLUMN["Invalid"]).text() == f"{len(ITEMS)} (100%)"
    assert panel.results.item(rambling, COLUMN["Lenient"]).text() == "0.0% *"
    assert panel.results.item(gold, COLUMN["Invalid"]).text() == "0"
    assert panel.results.item(gold, COLUMN["Lenient"]).text() == "100.0%"
    assert panel.notes.isVisibleTo(panel)
    note = panel.notes.text()
    assert note.startswith(f"* rambling: {len(ITEMS)} of {len(ITEMS)} replies held no letter A-D")
    assert "count as wrong: this accuracy measures the reply format" in note
    assert "one-letter grammar" in note and "--grammar" not in note  # the desk's own words
    assert "gold" not in note
    assert panel.results.item(rambling, COLUMN["Invalid"]).toolTip() in note
    # A run the endpoint refuses stops, and the panel says why.
    scripted.fail_next("404", times=len(ITEMS))
    panel.timeout.setValue(20)
    fill_profile(panel, scripted.url, "always-B", "refused", qtbot)
    qtbot.waitUntil(lambda: panel.profiles.rowCount() == 3, timeout=5_000)
    row = next(r for r in range(3) if panel.profiles.item(r, 0).text() == "refused")
    assert panel.profiles.item(row, 7).text() == "20 s"
    panel.profiles.selectRow(row)
    assert panel.selected_profile().timeout == 20
    with qtbot.waitSignal(panel.models_changed, timeout=30_000):
        qtbot.mouseClick(panel.run_button, Qt.MouseButton.LeftButton)
    status = panel.status.text()
    assert status.startswith("refused: stopped.") and "done" not in status
    assert "Why: Error code: 404 - The model does not exist" in status
    assert "no more were sent (check the profile's key variable, base URL" in status
    assert "--base-url" not in status  # the desk's own words
    assert panel.status.styleSheet() == "font-weight: bold"
    assert panel.run_button.text() == "Evaluate all items with refused [Ctrl+R]"  # once
    panel.close()
    close_desk(window)


def test_a_second_opinion_on_a_long_article_says_how_much_the_judge_saw(
    qtbot, tmp_path: Path, scripted: ScriptedServer
) -> None:
    from bagel_studio.core.model import ItemContent
    from bagel_studio.core.store import NewItem
    from tests.core.llm.test_context_fit import KOALA, OPTIONS, QUESTION

    path = tmp_path / "koala.bagel"
    with Store.open(path, owner="test") as store:
        store.evidence.add_texts([{"key": "wikipedia:Koala", "kind": "wikipedia",
                                   "title": "Koala", "text": KOALA, "truncated": 0}],
                                 None)  # fmt: skip
        content = ItemContent(QUESTION, OPTIONS, 3, "Behavior")
        store.items.add_items([NewItem("wiki:koala:0", "Wikipedia", content,
                                       text_key="title:Koala")], None)  # fmt: skip
    scripted.context, scripted.props = 2048, True  # llama.cpp's server with a small model
    window = open_desk(qtbot, path)
    window.menus.open_panel("models")
    panel = window.menus.panels["models"]
    fill_profile(panel, scripted.url, "gold", "judge", qtbot)
    panel.profiles.selectRow(0)
    window.show_item("wiki:koala:0")
    with qtbot.waitSignal(panel.models_changed, timeout=30_000):
        qtbot.mouseClick(panel.judge_button, Qt.MouseButton.LeftButton)
    status = panel.status.text()
    assert status.startswith("wiki:koala:0: ok (evidence shortened to ")
    assert "to fit the model's context of 2,048 tokens (the server's /props)" in status
    window.show_item("wiki:koala:0")
    assert "of the evidence's 36,633 characters" in window.item_view.models.text()
    panel.close()
    close_desk(window)


def test_the_context_field_cuts_the_evidence_for_a_server_that_does_not_say_its_window(
    qtbot, tmp_path: Path, scripted: ScriptedServer
) -> None:
    """An OpenAI-style server with a 2,048-token window that names it only when it refuses a
    request: left empty, the field detects the window as the CLI does (a refused request, then
    one cut to fit); filled in, the evidence is cut before anything is asked. Kept in the
    profile, shown in its row and again in the form when the profile is selected."""
    from bagel_studio.core.model import ItemContent
    from bagel_studio.core.store import NewItem
    from tests.core.llm.test_context_fit import KOALA, OPTIONS, QUESTION

    path = tmp_path / "context.bagel"
    with Store.open(path, owner="test") as store:
        store.evidence.add_texts([{"key": "wikipedia:Koala", "kind": "wikipedia",
                                   "title": "Koala", "text": KOALA, "truncated": 0}],
                                 None)  # fmt: skip
        store.items.add_items(
            [NewItem(f"wiki:koala:{n}", "Wikipedia", ItemContent(QUESTION, OPTIONS, 3, "Behavior"),
                     text_key="title:Koala") for n in (0, 1)],
            None,
        )  # fmt: skip
    scripted.context, scripted.context_style = 2048, "openai"
    window = open_desk(qtbot, path)
    window.menus.open_panel("models")
    panel = window.menus.panels["models"]
    context_column = PROFILE_COLUMNS.index("Context")
    # Empty: detected.
    assert panel.context_tokens.text() == "" and "detect" in panel.context_tokens.placeholderText()
    fill_profile(panel, scripted.url, "gold", "judge", qtbot)
    assert panel.profiles.item(0, context_column).text() == "detect"
    with Store.open(path, read_only=True) as store:
        assert dict(store.llm.profile_rows())["judge"]["context_tokens"] is None
    window.show_item("wiki:koala:0")
    with qtbot.waitSignal(panel.models_changed, timeout=30_000):
        qtbot.mouseClick(panel.judge_button, Qt.MouseButton.LeftButton)
    assert scripted.requests["/v1/chat/completions"] == 2  # refused whole, then sent cut
    assert tokens(scripted.prompts[0]) > 2048 > tokens(scripted.prompts[1])
    assert "context of 2,048 tokens (the server's error message" in panel.status.text()
    # Bad input is refused with a message and nothing is saved.
    panel.context_tokens.setText("0")
    qtbot.mouseClick(panel.save, Qt.MouseButton.LeftButton)
    assert panel.status.text().startswith("Not saved: context tokens must be a whole number")
    assert panel.profiles.item(0, context_column).text() == "detect"
    # Filled in: kept in the profile, and the evidence is cut before asking.
    panel.context_tokens.setText("2048")
    qtbot.mouseClick(panel.save, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: panel.profiles.item(0, context_column).text() == "2,048")
    with Store.open(path, read_only=True) as store:
        assert dict(store.llm.profile_rows())["judge"]["context_tokens"] == 2048
    window.show_item("wiki:koala:1")
    with qtbot.waitSignal(panel.models_changed, timeout=30_000):
        qtbot.mouseClick(panel.judge_button, Qt.MouseButton.LeftButton)
    assert scripted.requests["/v1/chat/completions"] == 3  # one request, nothing refused
    assert tokens(scripted.prompts[2]) < 2048
    status = panel.status.text()
    assert status.startswith("wiki:koala:1: ok (evidence shortened to ")
    assert "to fit the model's context of 2,048 tokens (the profile's context tokens)" in status
    # The form shows a selected profile's settings, the context among them.
    panel.context_tokens.clear()
    panel.label.clear()
    panel.profiles.clearSelection()
    panel.profiles.selectRow(0)
    assert panel.label.text() == "judge" and panel.context_tokens.text() == "2048"
    # Emptied again: detected again.
    panel.context_tokens.clear()
    qtbot.mouseClick(panel.save, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: panel.profiles.item(0, context_column).text() == "detect")
    panel.close()
    close_desk(window)
